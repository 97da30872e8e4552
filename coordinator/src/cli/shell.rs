//! `hakase completions` and `hakase man`: generated from the same clap definitions the
//! command parses with, so they never fall behind a new flag.

use std::io::Write;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::Shell;

/// Print a shell completion script.
///
/// bash: `hakase completions bash > ~/.local/share/bash-completion/completions/hakase`;
/// zsh: into a directory on $fpath as `_hakase`; fish:
/// `hakase completions fish > ~/.config/fish/completions/hakase.fish`.
#[derive(Debug, Args)]
pub struct Completions {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: Shell,
}

impl Completions {
    /// Writes the script for `command` (the whole `hakase` command line).
    pub fn run(self, out: &mut dyn Write, mut command: clap::Command) -> Result<()> {
        let name = command.get_name().to_string();
        let mut buffer = Vec::new();
        clap_complete::generate(self.shell, &mut command, name, &mut buffer);
        out.write_all(&buffer)
            .context("writing the completion script")
    }
}

/// Print the manual page (roff): `hakase man > hakase.1 && man ./hakase.1`.
#[derive(Debug, Args)]
pub struct Man {}

impl Man {
    /// Writes the page for `command`, with one section per subcommand.
    pub fn run(self, out: &mut dyn Write, command: clap::Command) -> Result<()> {
        let mut buffer = Vec::new();
        clap_mangen::Man::new(command.clone())
            .render(&mut buffer)
            .context("rendering the man page")?;
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            clap_mangen::Man::new(sub.clone())
                .title(format!("hakase-{}", sub.get_name()))
                .render(&mut buffer)
                .context("rendering the man page")?;
        }
        out.write_all(&buffer).context("writing the man page")
    }
}
