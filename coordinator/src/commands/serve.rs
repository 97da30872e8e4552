//! `hakase serve`: the read-only query service over gRPC.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_coordinator::query::{serve, RunCatalog};

/// Answer queries about runs over gRPC (service hakase.v1.Query, plus health).
///
/// Serves one run (--db DIR) or every run under a data directory (--data DIR). Queries only
/// read: no token is needed. Runs are loaded at start; restart to pick up new runs.
#[derive(Debug, Args)]
pub struct Serve {
    /// Serve this one run directory.
    #[arg(long, value_name = "DIR", conflicts_with = "data")]
    pub db: Option<PathBuf>,

    /// Serve every run under this data directory.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,

    /// Address to listen on (port 0 picks a free port; the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50061")]
    pub listen: String,
}

impl Serve {
    /// Loads the runs and serves until Ctrl-C or SIGTERM.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let catalog = match (&self.db, &self.data) {
            (Some(db), _) => {
                RunCatalog::single(db).with_context(|| format!("loading run {}", db.display()))?
            }
            (None, data) => {
                let data = data
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(hakase_coordinator::query::DEFAULT_DATA_DIR));
                let (catalog, skipped) = RunCatalog::load_data_dir(&data);
                for (path, err) in skipped {
                    eprintln!("skipping {}: {err}", path.display());
                }
                catalog
            }
        };
        if catalog.is_empty() {
            bail!("no runs to serve");
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the async runtime")?;
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(&self.listen)
                .await
                .with_context(|| format!("listening on {}", self.listen))?;
            let addr = listener
                .local_addr()
                .context("reading the listening address")?;
            let names: Vec<String> = catalog.summaries().into_iter().map(|s| s.name).collect();
            writeln!(out, "serving {} on {addr}", names.join(", "))?;
            out.flush()?;
            serve(
                Arc::new(catalog),
                listener,
                hakase_coordinator::cluster::runtime::shutdown_signal(),
            )
            .await
            .context("serving queries")
        })
    }
}
