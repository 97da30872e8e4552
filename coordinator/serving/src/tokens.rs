//! Who may talk to a server: the tokens it accepts (read from `--token` and
//! `--tokens-file`, re-read on SIGHUP), the check every gRPC call passes, and the same
//! check on the HTTP port.

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use axum::extract::{Query, Request as HttpRequest, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use hakase_proto::token::{TokenSet, SHARED_TOKEN_NAME};
use hakase_proto::AUTH_HEADER;
use tonic::service::Interceptor;
use tonic::{Request, Status};

use super::ServingError;

/// The tokens a running server accepts; replace the set inside to revoke or add tokens
/// without a restart (the coordinator does on SIGHUP).
pub type SharedTokens = Arc<RwLock<TokenSet>>;

/// Where a server's tokens come from, kept so they can be read again.
#[derive(Debug, Clone, Default)]
pub struct TokenSource {
    /// The shared token (`--token` or `HAKASE_TOKEN`).
    pub token: Option<String>,
    /// The per-worker tokens file (`--tokens-file`).
    pub file: Option<PathBuf>,
}

impl TokenSource {
    /// Reads and checks the shared token and the lines of the tokens file.
    pub fn read(&self) -> Result<TokenSet, ServingError> {
        let mut tokens = TokenSet::default();
        if let Some(token) = &self.token {
            tokens = TokenSet::single(token).map_err(ServingError::Token)?;
        }
        if let Some(path) = &self.file {
            tokens.extend(read_file(path)?);
        }
        Ok(tokens)
    }

    /// Re-reads the tokens into `tokens` on every SIGHUP, so a revoked worker token stops
    /// working without a restart. A file that no longer reads keeps the old tokens. Call
    /// inside the runtime.
    #[cfg(unix)]
    pub fn reload_on_hangup(self, tokens: SharedTokens) -> Result<(), ServingError> {
        use tokio::signal::unix::{signal, SignalKind};
        let mut hangup = signal(SignalKind::hangup()).map_err(ServingError::Hangup)?;
        tokio::spawn(async move {
            while hangup.recv().await.is_some() {
                match self.read() {
                    Ok(fresh) => {
                        tracing::info!(tokens = fresh.len(), "tokens reloaded");
                        if let Ok(mut slot) = tokens.write() {
                            *slot = fresh;
                        }
                    }
                    Err(err) => {
                        let error = crate::chain(&err);
                        tracing::warn!(%error, "tokens not reloaded; keeping the old ones")
                    }
                }
            }
        });
        Ok(())
    }
}

/// The tokens of a tokens file (with a warning when others may read it).
fn read_file(path: &Path) -> Result<TokenSet, ServingError> {
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            eprintln!(
                "warning: --tokens-file {} can be read by other users of this machine (mode \
                 {mode:04o}): `chmod 600 {}`",
                path.display(),
                path.display()
            );
        }
    }
    let text = std::fs::read_to_string(path).map_err(|source| ServingError::TokensFile {
        path: path.to_path_buf(),
        source,
    })?;
    TokenSet::parse_file(&text).map_err(|source| ServingError::TokensLine {
        path: path.to_path_buf(),
        source,
    })
}

/// Checks the `authorization: Bearer <token>` metadata of every call against the accepted
/// tokens, in constant time; `Bearer ` with nothing after it is refused like a wrong token.
#[derive(Clone)]
pub struct CheckToken {
    tokens: SharedTokens,
    refuse_shared: bool,
    failures: Arc<Failures>,
}

/// Failed token checks per client address in the current window: logged (one line per
/// address and window, so a flood is not a flood of lines too) and, past
/// [`FAILURES_PER_WINDOW`], refused without a look at the token until the window ends.
#[derive(Debug, Default)]
pub struct Failures {
    window: Mutex<(Option<std::time::Instant>, HashMap<IpAddr, u32>)>,
}

/// The window failed token checks are counted in.
pub const FAILURE_WINDOW: std::time::Duration = std::time::Duration::from_secs(10);

/// Failed token checks one address may make per window; past them its calls are refused.
pub const FAILURES_PER_WINDOW: u32 = 20;

/// Addresses counted per window at most (more are not counted: the bound is on memory).
const COUNTED_ADDRESSES: usize = 10_000;

impl Failures {
    /// The failures of `ip` in the current window (a new window empties the counts).
    fn count(&self, ip: IpAddr) -> u32 {
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        Self::roll(&mut window);
        window.1.get(&ip).copied().unwrap_or(0)
    }

    /// Counts one failure of `ip`; returns its count in the window.
    fn add(&self, ip: IpAddr) -> u32 {
        let mut window = self.window.lock().unwrap_or_else(PoisonError::into_inner);
        Self::roll(&mut window);
        let counts = &mut window.1;
        if counts.len() >= COUNTED_ADDRESSES && !counts.contains_key(&ip) {
            return 0;
        }
        let n = counts.entry(ip).or_insert(0);
        *n += 1;
        *n
    }

    fn roll(window: &mut (Option<std::time::Instant>, HashMap<IpAddr, u32>)) {
        let now = std::time::Instant::now();
        if window
            .0
            .is_none_or(|start| now.duration_since(start) >= FAILURE_WINDOW)
        {
            *window = (Some(now), HashMap::new());
        }
    }
}

impl CheckToken {
    /// Accepts the tokens in `tokens` (as they are at each call).
    pub fn new(tokens: SharedTokens) -> CheckToken {
        CheckToken {
            tokens,
            refuse_shared: false,
            failures: Arc::default(),
        }
    }

    /// The check of the worker service: like [`CheckToken::new`], refusing the shared token
    /// when `require_own` (workers must present their own).
    pub fn for_workers(tokens: SharedTokens, require_own: bool) -> CheckToken {
        CheckToken {
            tokens,
            refuse_shared: require_own,
            failures: Arc::default(),
        }
    }
}

impl Interceptor for CheckToken {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let ip = request.remote_addr().map(|a| a.ip().to_canonical());
        if let Some(ip) = ip {
            if self.failures.count(ip) >= FAILURES_PER_WINDOW {
                return Err(Status::resource_exhausted(format!(
                    "too many calls with a wrong token from {ip}; wait {} s",
                    FAILURE_WINDOW.as_secs()
                )));
            }
        }
        let given = request
            .metadata()
            .get(AUTH_HEADER)
            .map(|v| v.as_bytes())
            .unwrap_or_default();
        let accepted = match self.tokens.read() {
            Ok(tokens) => tokens.check_header(given).map(str::to_string),
            Err(_) => None,
        };
        if self.refuse_shared && accepted.as_deref() == Some(SHARED_TOKEN_NAME) {
            return Err(Status::permission_denied(
                "this coordinator takes workers only with their own token from its \
                 --tokens-file (--require-worker-tokens); the shared token is for `hakase status`",
            ));
        }
        if let Some(name) = accepted {
            let mut request = request;
            request.extensions_mut().insert(TokenName(name));
            Ok(request)
        } else {
            if let Some(ip) = ip {
                match self.failures.add(ip) {
                    1 => tracing::warn!(%ip, "refused a call with a missing or wrong token"),
                    FAILURES_PER_WINDOW => tracing::warn!(
                        %ip,
                        "{FAILURES_PER_WINDOW} calls with a wrong token: refusing this address \
                         for {} s",
                        FAILURE_WINDOW.as_secs()
                    ),
                    _ => {}
                }
            }
            Err(Status::unauthenticated(
                "missing or wrong token (set --token or HAKASE_TOKEN to the coordinator's)",
            ))
        }
    }
}

/// The name of the token a call presented (put there by [`CheckToken`]), so that a
/// refused worker's own token is refused too.
#[derive(Debug, Clone)]
pub struct TokenName(pub String);

/// The token name of `request`, if [`CheckToken`] named one.
pub fn token_name<T>(request: &Request<T>) -> Option<String> {
    request.extensions().get::<TokenName>().map(|t| t.0.clone())
}

/// The `?token=` of an HTTP request.
#[derive(serde::Deserialize)]
pub struct TokenQuery {
    /// The token, when given.
    pub token: Option<String>,
}

/// True when `request` carries one of `tokens` (header or query).
fn authorized(tokens: &TokenSet, header: &[u8], query: Option<&str>) -> bool {
    tokens.check_header(header).is_some()
        || query.is_some_and(|t| !t.is_empty() && tokens.check(t.as_bytes()).is_some())
}

/// The HTTP side of [`CheckToken`]: an axum middleware that lets through only requests
/// carrying one of the run's tokens (`authorization: Bearer` or `?token=`).
pub async fn require_token(
    State(tokens): State<SharedTokens>,
    Query(query): Query<TokenQuery>,
    request: HttpRequest,
    next: Next,
) -> Response {
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    let ok = match tokens.read() {
        Ok(tokens) => authorized(&tokens, header, query.token.as_deref()),
        Err(_) => false,
    };
    if ok {
        return next.run(request).await;
    }
    let body = serde_json::json!({"error": {
        "kind": "unauthenticated",
        "message": "missing or wrong token: send `authorization: Bearer TOKEN` or ?token=TOKEN \
                    with the coordinator's token",
    }});
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        axum::Json(body),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123";

    #[test]
    fn the_token_is_taken_from_the_header_or_the_query() {
        let tokens = TokenSet::single(TOKEN).expect("token");
        let bearer = format!("Bearer {TOKEN}");
        assert!(authorized(&tokens, bearer.as_bytes(), None));
        assert!(authorized(&tokens, b"", Some(TOKEN)));
        assert!(!authorized(&tokens, b"", None));
        assert!(!authorized(&tokens, b"Bearer ", Some("")));
        assert!(!authorized(
            &tokens,
            b"Bearer wrong-token-0000000",
            Some("nope")
        ));
        assert!(!authorized(&tokens, TOKEN.as_bytes(), None));
    }
}
