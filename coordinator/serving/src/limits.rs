//! What one client may cost a port: the bounds every gRPC port of the `hakase` command serves
//! under (the coordinator's, a puzzle batch's and `hakase serve`'s), with the flags that change
//! them, and the fit of those bounds to the process's file-descriptor limit.

use std::time::Duration;

use clap::Args;

/// The bounds of one gRPC port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortLimits {
    /// Connections served at once; more are closed as soon as they are accepted.
    pub max_connections: usize,
    /// Connections one client address may hold at once.
    pub connections_per_address: usize,
    /// Time a new connection has to send its first bytes (the HTTP/2 preface, or the start of
    /// the TLS handshake) and to finish the TLS handshake.
    pub handshake: Duration,
    /// Time a connection may stay without a byte from the client; an open client answers the
    /// server's keep-alive pings well within it.
    pub idle: Duration,
    /// HTTP/2 streams (calls) one connection may have open at once.
    pub streams_per_connection: u32,
    /// Time a call may take to answer (a stream's replies may go on after).
    pub request_timeout: Duration,
    /// Bytes of requests received and not yet answered, over every connection: a request
    /// that would go past it is refused (`resource_exhausted`), never waited for.
    pub inflight_bytes: usize,
    /// `grpc.health.v1.Health/Watch` streams open at once, over every connection.
    pub health_watches: usize,
}

/// Interval of the HTTP/2 keep-alive pings a port sends; a client that does not answer one
/// within [`KEEPALIVE_TIMEOUT`] is disconnected.
pub const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(20);

/// See [`KEEPALIVE_INTERVAL`].
pub const KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);

/// Largest header block a call may send (a token and a few names).
pub const MAX_HEADER_BYTES: u32 = 16 * 1024;

/// Descriptors a process keeps for itself beside its ports' connections: its database, logs,
/// the blocking pool's files, its own clients.
pub const RESERVED_DESCRIPTORS: usize = 256;

impl PortLimits {
    /// The coordinator's port: workers may all come through one ssh tunnel (one address),
    /// and a report may carry up to `hakase_proto::MAX_MESSAGE_BYTES`.
    pub const COORDINATOR: PortLimits = PortLimits {
        max_connections: 1024,
        connections_per_address: 256,
        handshake: Duration::from_secs(5),
        idle: Duration::from_secs(60),
        streams_per_connection: 64,
        request_timeout: Duration::from_secs(60),
        inflight_bytes: 256 * 1024 * 1024,
        health_watches: 64,
    };

    /// `hakase serve`'s gRPC port: players' requests of a few hundred bytes.
    pub const QUERY: PortLimits = PortLimits {
        max_connections: 512,
        connections_per_address: 32,
        handshake: Duration::from_secs(5),
        idle: Duration::from_secs(60),
        streams_per_connection: 32,
        request_timeout: Duration::from_secs(30),
        inflight_bytes: 16 * 1024 * 1024,
        health_watches: 64,
    };

    /// These limits with the connection caps lowered, if need be, so that `ports` ports of
    /// this kind and the descriptors the process keeps for itself fit in `descriptors`;
    /// returns the limits and whether they were lowered.
    pub fn fit(self, descriptors: usize, ports: usize) -> (PortLimits, bool) {
        let room = descriptors.saturating_sub(RESERVED_DESCRIPTORS) / ports.max(1);
        if self.max_connections <= room {
            return (self, false);
        }
        let max_connections = room.max(16);
        let limits = PortLimits {
            max_connections,
            connections_per_address: self.connections_per_address.min(max_connections),
            ..self
        };
        (limits, true)
    }
}

/// The flags that change a gRPC port's limits (every one has the default of its server).
#[derive(Debug, Clone, Default, Args)]
pub struct PortArgs {
    /// Connections served at once per port [default: 1024 for a coordinator, 512 for serve];
    /// lowered to fit the process's open-files limit.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// Connections one client address may hold at once [default: 256 for a coordinator,
    /// whose workers may share one ssh tunnel; 32 for serve].
    #[arg(long, value_name = "N")]
    pub max_connections_per_address: Option<usize>,
    /// Seconds a new connection has to send its first bytes and finish a TLS handshake
    /// [default: 5].
    #[arg(long, value_name = "SECS")]
    pub handshake_timeout_secs: Option<f64>,
    /// Seconds a connection may stay without a byte from its client [default: 60].
    #[arg(long, value_name = "SECS")]
    pub idle_timeout_secs: Option<f64>,
    /// Calls one connection may have open at once [default: 64, serve 32].
    #[arg(long, value_name = "N")]
    pub max_streams_per_connection: Option<u32>,
    /// Seconds a call may take to answer [default: 60, serve 30].
    #[arg(long, value_name = "SECS")]
    pub request_timeout_secs: Option<f64>,
    /// MiB of requests received and not yet answered, over every connection of the port
    /// [default: 256, serve 16].
    #[arg(long, value_name = "MIB")]
    pub inflight_mib: Option<usize>,
}

impl PortArgs {
    /// `defaults` with the flags given in place of theirs (times clamped to 0.1 s – 1 day,
    /// counts to at least 1).
    pub fn limits(&self, defaults: PortLimits) -> PortLimits {
        let secs = |flag: Option<f64>, default: Duration| {
            flag.map_or(default, |s| Duration::from_secs_f64(s.clamp(0.1, 86_400.0)))
        };
        PortLimits {
            max_connections: self
                .max_connections
                .unwrap_or(defaults.max_connections)
                .max(1),
            connections_per_address: self
                .max_connections_per_address
                .unwrap_or(defaults.connections_per_address)
                .max(1),
            handshake: secs(self.handshake_timeout_secs, defaults.handshake),
            idle: secs(self.idle_timeout_secs, defaults.idle),
            streams_per_connection: self
                .max_streams_per_connection
                .unwrap_or(defaults.streams_per_connection)
                .max(1),
            request_timeout: secs(self.request_timeout_secs, defaults.request_timeout),
            inflight_bytes: self
                .inflight_mib
                .map_or(defaults.inflight_bytes, |mib| mib.max(1) * 1024 * 1024),
            health_watches: defaults.health_watches,
        }
    }
}

/// The process's soft limit on open files (Linux: from /proc; elsewhere, or unreadable:
/// `None`).
pub fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    match line.split_whitespace().nth(3)? {
        "unlimited" => Some(usize::MAX),
        n => n.parse().ok(),
    }
}

/// Connections each of `ports` ports may hold within this process's open-files limit, beside
/// [`RESERVED_DESCRIPTORS`] (`None` when the limit cannot be read).
pub fn connection_room(ports: usize) -> Option<usize> {
    open_files_limit().map(|fds| fds.saturating_sub(RESERVED_DESCRIPTORS) / ports.max(1))
}

/// `limits` fitted to this process's open-files limit for `ports` ports (see
/// [`PortLimits::fit`]), with a warning on stderr when they had to be lowered.
pub fn fit_to_descriptors(limits: PortLimits, ports: usize, what: &str) -> PortLimits {
    let Some(descriptors) = open_files_limit() else {
        return limits;
    };
    let (fitted, lowered) = limits.fit(descriptors, ports);
    if lowered {
        eprintln!(
            "warning: {what}: at most {} connections per port instead of {}: the open-files \
             limit is {descriptors} (raise it with `ulimit -n` or LimitNOFILE=, see \
             docs/security.md)",
            fitted.max_connections, limits.max_connections
        );
    }
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_are_lowered_to_fit_the_descriptors() {
        let (same, lowered) = PortLimits::QUERY.fit(65_536, 2);
        assert_eq!((same, lowered), (PortLimits::QUERY, false));
        let (fitted, lowered) = PortLimits::QUERY.fit(1024, 2);
        assert!(lowered);
        assert_eq!(fitted.max_connections, (1024 - RESERVED_DESCRIPTORS) / 2);
        assert_eq!(fitted.connections_per_address, 32);
        let (tiny, _) = PortLimits::COORDINATOR.fit(100, 1);
        assert_eq!(tiny.max_connections, 16);
        assert_eq!(tiny.connections_per_address, 16);
    }

    #[test]
    fn flags_replace_the_defaults() {
        let args = PortArgs {
            max_connections: Some(10),
            idle_timeout_secs: Some(0.0),
            inflight_mib: Some(3),
            ..PortArgs::default()
        };
        let limits = args.limits(PortLimits::QUERY);
        assert_eq!(limits.max_connections, 10);
        assert_eq!(limits.idle, Duration::from_millis(100));
        assert_eq!(limits.inflight_bytes, 3 * 1024 * 1024);
        assert_eq!(limits.handshake, PortLimits::QUERY.handshake);
    }
}
