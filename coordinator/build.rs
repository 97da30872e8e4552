//! Puts the git commit the binary was built from into `hakase --version`; "unknown" when
//! the source is not a git checkout (e.g. built from a tarball) or git is missing.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some();
    let suffix = if dirty && commit != "unknown" {
        "-modified"
    } else {
        ""
    };
    println!("cargo:rustc-env=HAKASE_COMMIT={commit}{suffix}");
    // Rebuild the version string when HEAD moves (a commit, a checkout).
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/logs/HEAD");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
