//! `hakase serve`: the read-only query service over gRPC, and the web assistant with its
//! JSON API over HTTP.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_coordinator::output::{plural, JsonArg};
use hakase_coordinator::query::{
    serve_live, LiveCatalog, QueryService, ScanReport, ServiceLimits, Sources, TreeSource,
};
use hakase_coordinator::runs::DEFAULT_DATA_DIR;
use hakase_coordinator::runs::{check_data_dir, RunError};
use hakase_coordinator::serving::{self, shutdown_signal, Stop, Threads};
use hakase_coordinator::web;
use serde::Serialize;

/// Answer "what next?" over gRPC (hakase.v1.Query, health, reflection) and over HTTP: the web
/// assistant at / and a JSON API under /api/v1/.
///
/// Serves every run under --data DIR (default hakase-data), runs given with --db, and tree
/// files given with --tree (as written by `solve --tree-out`). Runs that appear or finish
/// later are picked up every --rescan-secs seconds (and on POST /api/v1/rescan). Queries only
/// read: no token is needed. Listens on loopback unless told otherwise.
#[derive(Debug, Args)]
pub struct Serve {
    /// Serve this run directory (repeatable).
    #[arg(long, value_name = "DIR")]
    pub db: Vec<PathBuf>,

    /// Serve every run under this data directory (repeatable; default hakase-data when no
    /// --db or --tree is given).
    #[arg(long, value_name = "DIR")]
    pub data: Vec<PathBuf>,

    /// Serve this tree file, JSON or text (repeatable); its name is the file's stem.
    #[arg(long, value_name = "FILE")]
    pub tree: Vec<PathBuf>,

    /// The game of text tree files (JSON files name their own).
    #[arg(long, value_name = "G")]
    pub game: Option<String>,

    /// gRPC address (port 0 picks a free port; the address is printed).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50061")]
    pub listen: String,

    /// HTTP address of the web page and the JSON API ("off" to serve gRPC only).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8061")]
    pub http: String,

    /// Seconds between looks for new or finished runs (0: only on POST /api/v1/rescan).
    #[arg(long, value_name = "S", default_value_t = 5)]
    pub rescan_secs: u64,

    /// Say where it listens as one JSON line once it is ready (for scripts that start it).
    #[command(flatten)]
    pub output: JsonArg,
}

/// Where the service listens, printed once both listeners are bound.
#[derive(Debug, Serialize)]
struct Listening {
    /// The runs served at start.
    runs: Vec<String>,
    /// The gRPC address, e.g. `127.0.0.1:50061`.
    grpc: String,
    /// The web assistant's URL, null with `--http off`.
    http: Option<String>,
}

impl Listening {
    /// Writes the announcement: two lines of text, or one line of JSON.
    fn write(&self, out: &mut dyn Write, json: JsonArg) -> Result<()> {
        if json.json {
            writeln!(out, "{}", serde_json::to_string(self)?)?;
        } else {
            let names = if self.runs.is_empty() {
                "no runs yet".to_string()
            } else {
                self.runs.join(", ")
            };
            writeln!(out, "serving {names} on {}", self.grpc)?;
            if let Some(http) = &self.http {
                writeln!(out, "web assistant and JSON API on {http}")?;
            }
        }
        out.flush()?;
        Ok(())
    }
}

impl Serve {
    /// Where the runs come from.
    fn sources(&self) -> Sources {
        let mut data = self.data.clone();
        if data.is_empty() && self.db.is_empty() && self.tree.is_empty() {
            data.push(PathBuf::from(DEFAULT_DATA_DIR));
        }
        Sources {
            data_dirs: data,
            runs: self.db.clone(),
            trees: self
                .tree
                .iter()
                .map(|path| TreeSource {
                    path: path.clone(),
                    game: self.game.clone(),
                })
                .collect(),
        }
    }

    /// Refuses a data directory that is a file (it can never hold runs), and warns of one
    /// that does not exist yet: serving it is still useful, since runs written there later
    /// are picked up, but a mistyped path must not pass unnoticed.
    fn check_data_dirs(&self, dirs: &[PathBuf]) -> Result<()> {
        for dir in dirs {
            match check_data_dir(dir) {
                Ok(()) => {}
                Err(RunError::NoDataDir(_)) => {
                    let when = match self.rescan_secs {
                        0 => "after POST /api/v1/rescan".to_string(),
                        s => format!("within {}", plural(s, "second", "seconds")),
                    };
                    eprintln!(
                        "warning: the data directory {} does not exist (yet); runs written \
                         there are served {when}",
                        dir.display()
                    );
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(())
    }

    /// Loads the runs and serves until Ctrl-C or SIGTERM.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let sources = self.sources();
        self.check_data_dirs(&sources.data_dirs)?;
        let (catalog, report) = LiveCatalog::scan(sources.clone());
        print_skipped(&report, &[]);
        if report.runs.is_empty() && sources.data_dirs.is_empty() {
            bail!("no runs to serve");
        }
        let catalog = Arc::new(catalog);
        let service = QueryService::new(catalog.clone(), ServiceLimits::default());
        let runtime = serving::runtime(Threads::PerCore)?;
        runtime.block_on(async {
            let (grpc, grpc_addr) = serving::bind(self.listen.as_str()).await?;
            let http = match self.http.as_str() {
                "off" => None,
                addr => Some(
                    tokio::net::TcpListener::bind(addr)
                        .await
                        .with_context(|| format!("listening on {addr} (--http)"))?,
                ),
            };
            let http_url = match &http {
                Some(http) => Some(format!(
                    "http://{}/",
                    http.local_addr().context("reading the HTTP address")?
                )),
                None => None,
            };
            Listening {
                runs: report.runs.clone(),
                grpc: grpc_addr.to_string(),
                http: http_url,
            }
            .write(out, self.output)?;
            let stop = Stop::new();
            let rescans = tokio::spawn(rescan_loop(
                catalog,
                report,
                self.rescan_secs,
                stop.stopped(),
            ));
            let http_task = http.map(|listener| {
                let limits = web::WebLimits::default();
                let app = web::router(service.clone(), limits);
                tokio::spawn(web::serve_http(app, listener, limits, stop.stopped()))
            });
            let grpc_task = tokio::spawn(serve_live(service, grpc, stop.stopped()));
            shutdown_signal().await;
            stop.stop();
            let _ = rescans.await;
            if let Some(task) = http_task {
                task.await
                    .context("the HTTP server stopped")?
                    .context("serving HTTP")?;
            }
            grpc_task
                .await
                .context("the gRPC server stopped")?
                .context("serving queries")
        })
    }
}

/// Rescans every `secs` seconds (never when 0) until `stop`, logging what changed.
async fn rescan_loop(
    catalog: Arc<LiveCatalog>,
    mut last: ScanReport,
    secs: u64,
    stop: impl std::future::Future<Output = ()>,
) {
    if secs == 0 {
        stop.await;
        return;
    }
    tokio::pin!(stop);
    let mut ticks = tokio::time::interval(Duration::from_secs(secs));
    ticks.tick().await;
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            () = &mut stop => return,
        }
        let scan = catalog.clone();
        let Ok(report) = tokio::task::spawn_blocking(move || scan.rescan()).await else {
            continue;
        };
        if !report.reloaded.is_empty() || report.runs != last.runs {
            eprintln!("serving {}", report.runs.join(", "));
        }
        print_skipped(&report, &last.skipped);
        last = report;
    }
}

/// Prints the runs that could not be loaded, once per new error.
fn print_skipped(report: &ScanReport, already: &[hakase_coordinator::query::live::Skipped]) {
    for skipped in report.skipped.iter().filter(|s| !already.contains(s)) {
        eprintln!("skipping {}: {}", skipped.path.display(), skipped.error);
    }
}
