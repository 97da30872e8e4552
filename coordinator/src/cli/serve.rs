//! `hakase serve`: the read-only query service over gRPC, and the web assistant with its
//! JSON API over HTTP.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::output::{plural, JsonArg};
use anyhow::{bail, Context, Result};
use clap::Args;
use hakase_query::web;
use hakase_query::{
    serve_service, QueryService, RescannedCatalog, ScanReport, ServiceLimits, Sources, TreeSource,
    SOLVE_TIME,
};
use hakase_runs::DEFAULT_DATA_DIR;
use hakase_runs::{check_data_dir, RunError};
use hakase_serving::{shutdown_signal, PortArgs, PortLimits, Stop, Threads};
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

    /// On-the-spot solves running at once.
    #[arg(long, value_name = "N", default_value_t = ServiceLimits::default().concurrent_solves)]
    pub solves: usize,

    /// Solves one client address may have running or waiting at once (the page asks for two
    /// at a time).
    #[arg(long, value_name = "N", default_value_t = ServiceLimits::default().solves_per_address)]
    pub solves_per_address: usize,

    /// Seconds one request's solve may run; past them the answer is "too costly to solve
    /// here" (503, RESOURCE_EXHAUSTED).
    #[arg(long, value_name = "SECS", default_value_t = SOLVE_TIME.as_secs_f64())]
    pub solve_secs: f64,

    /// What one client may cost each port (the HTTP port takes --max-connections,
    /// --max-connections-per-address and --request-timeout-secs too; docs/security.md).
    #[command(flatten)]
    pub ports: PortArgs,

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

    /// The bounds of the solves requests cause.
    fn service_limits(&self) -> ServiceLimits {
        ServiceLimits {
            concurrent_solves: self.solves.max(1),
            solves_per_address: self.solves_per_address.max(1),
            solve_time: Duration::from_secs_f64(self.solve_secs.clamp(0.001, 3600.0)),
            ..ServiceLimits::default()
        }
    }

    /// The HTTP port's bounds: its own defaults, with the connection caps and the request
    /// time given by flag, fitted to the open-files limit as the gRPC port's are.
    fn web_limits(&self, ports: usize) -> hakase_serving::http::WebLimits {
        let defaults = hakase_serving::http::WebLimits::default();
        let wanted = self
            .ports
            .max_connections
            .unwrap_or(defaults.max_connections);
        let max_connections = hakase_serving::limits::connection_room(ports)
            .map_or(wanted, |room| wanted.min(room.max(16)))
            .max(1);
        hakase_serving::http::WebLimits {
            max_connections,
            connections_per_address: self
                .ports
                .max_connections_per_address
                .unwrap_or(defaults.connections_per_address)
                .clamp(1, max_connections),
            request_timeout: self
                .ports
                .request_timeout_secs
                .map_or(defaults.request_timeout, |s| {
                    Duration::from_secs_f64(s.clamp(0.1, 86_400.0))
                }),
            ..defaults
        }
    }

    /// Loads the runs and serves until Ctrl-C or SIGTERM.
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let sources = self.sources();
        self.check_data_dirs(&sources.data_dirs)?;
        let (catalog, report) = RescannedCatalog::scan(sources.clone());
        print_skipped(&report, &[]);
        // Later rescans are anyone's to ask for: from now on no word list outside a run.
        hakase_runs::custom::forbid_outside_lists();
        if report.runs.is_empty() && sources.data_dirs.is_empty() {
            bail!("no runs to serve");
        }
        let catalog = Arc::new(catalog);
        let service = QueryService::new(catalog.clone(), self.service_limits());
        let ports = 1 + usize::from(self.http != "off");
        let grpc_limits = hakase_serving::fit_to_descriptors(
            self.ports.limits(PortLimits::QUERY),
            ports,
            "serve",
        );
        let web_limits = self.web_limits(ports);
        let runtime = hakase_serving::runtime(Threads::PerCore)?;
        runtime.block_on(async {
            let (grpc, grpc_addr) = hakase_serving::bind(self.listen.as_str()).await?;
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
                let app = web::router(service.clone(), web_limits);
                tokio::spawn(hakase_serving::http::serve_http(
                    app,
                    listener,
                    web_limits,
                    stop.stopped(),
                ))
            });
            let stopped = stop.stopped();
            let grpc_task =
                tokio::spawn(
                    async move { serve_service(service, grpc, &grpc_limits, stopped).await },
                );
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
    catalog: Arc<RescannedCatalog>,
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
fn print_skipped(report: &ScanReport, already: &[hakase_query::rescan::Skipped]) {
    for skipped in report.skipped.iter().filter(|s| !already.contains(s)) {
        eprintln!("skipping {}: {}", skipped.path.display(), skipped.error);
    }
}
