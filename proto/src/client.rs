//! The client side of the shared-token protocol: a channel (TLS for `https://`) and the
//! interceptor adding the token, in one place for the worker and `hakase status`.

use std::path::Path;
use std::time::Duration;

use thiserror::Error;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint};
use tonic::Status;

use crate::token::validate_token;
use crate::{bearer, AUTH_HEADER};

/// Why a client channel could not be set up (before any call is made).
#[derive(Debug, Error)]
pub enum ClientError {
    /// The address, token or TLS settings are unusable.
    #[error("connection settings: {0}")]
    Settings(String),
    /// The CA certificate could not be read.
    #[error("{path}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Adds the shared token to every call.
#[derive(Clone)]
pub struct Auth(MetadataValue<Ascii>);

impl Auth {
    /// The interceptor for `token`, refused here when the server would refuse it anyway.
    pub fn new(token: &str) -> Result<Auth, ClientError> {
        validate_token(token).map_err(|e| ClientError::Settings(format!("--token: {e}")))?;
        bearer(token)
            .parse()
            .map(Auth)
            .map_err(|_| ClientError::Settings("the token must be printable ASCII".into()))
    }
}

impl Interceptor for Auth {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, Status> {
        request.metadata_mut().insert(AUTH_HEADER, self.0.clone());
        Ok(request)
    }
}

/// A lazily connecting channel to `url`, with TLS when the URL is `https://` (trusting
/// `ca_cert` besides the system roots, and expecting `tls_domain` when given).
pub fn channel(
    url: &str,
    ca_cert: Option<&Path>,
    tls_domain: Option<&str>,
) -> Result<Channel, ClientError> {
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| ClientError::Settings(format!("{url}: {e}")))?
        .connect_timeout(Duration::from_secs(5))
        .tcp_nodelay(true);
    if url.starts_with("https://") {
        let mut tls = ClientTlsConfig::new().with_enabled_roots();
        if let Some(path) = ca_cert {
            let pem = std::fs::read(path).map_err(|source| ClientError::Io {
                path: path.display().to_string(),
                source,
            })?;
            tls = tls.ca_certificate(Certificate::from_pem(pem));
        }
        if let Some(domain) = tls_domain {
            tls = tls.domain_name(domain);
        }
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| ClientError::Settings(format!("TLS: {e}")))?;
    }
    Ok(endpoint.connect_lazy())
}
