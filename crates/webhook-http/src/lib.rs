//! Webhook transport: signed POSTs to partners' endpoints over reqwest, guarded against SSRF.
//!
//! Partners choose the URLs, so a URL is a request to reach into our network unless every address
//! it leads to is checked. The guard is a DNS resolver that refuses a name when any of its
//! addresses is non-public and otherwise hands reqwest exactly the addresses it checked, so there
//! is no second lookup to rebind. IP literals never reach a resolver and are checked before
//! sending. Redirects are returned, not followed, and no proxy is used, so nothing takes the
//! request elsewhere after the check.

use std::error::Error as StdError;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use std::{fmt, io};

use pulse_domain::webhooks::models::{OutboundRequest, PostOutcome, WebhookUrl, address_refusal, refused_address};
use pulse_domain::webhooks::ports::WebhookTransport;
use pulse_domain::{Error, Result};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// The longest wait for a connection, when the total timeout is longer: an endpoint that does not
/// accept within it is not coming.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransportConfig {
    /// For the whole exchange, from resolving the host to the response's head.
    pub timeout: Duration,
    /// Lets loopback, private and other non-public addresses through (development and tests).
    pub allow_private: bool,
}

/// Sends webhooks with one shared reqwest client; cloning it is cheap.
#[derive(Clone, Debug)]
pub struct HttpTransport {
    client: reqwest::Client,
    timeout: Duration,
    connect_timeout: Duration,
    allow_private: bool,
}

impl HttpTransport {
    /// # Errors
    /// When the TLS backend cannot be initialised.
    pub fn new(config: TransportConfig) -> std::result::Result<Self, reqwest::Error> {
        let connect_timeout = config.timeout.min(MAX_CONNECT_TIMEOUT);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(config.timeout)
            .connect_timeout(connect_timeout)
            .dns_resolver(Arc::new(GuardedResolver { allow_private: config.allow_private }))
            .build()?;
        Ok(Self { client, timeout: config.timeout, connect_timeout, allow_private: config.allow_private })
    }

    async fn send(&self, request: &OutboundRequest) -> std::result::Result<u16, String> {
        let url = Url::parse(&request.url).map_err(|_| "the URL is not valid".to_owned())?;
        if !self.allow_private
            && let Some(host) = url.host()
        {
            // reqwest connects to IP literals without asking the resolver.
            screen(&host, literal(&host)).map_err(|refusal| refusal.to_string())?;
        }
        let mut builder = self.client.post(url).body(request.body.clone());
        for (name, value) in &request.headers {
            builder = builder.header(*name, value);
        }
        // Only the status matters; dropping the response leaves its body unread.
        let response = builder.send().await.map_err(|error| self.describe(&error))?;
        Ok(response.status().as_u16())
    }

    /// What went wrong, in words that never include the URL, headers or body: reqwest's own
    /// message names the URL, whose path and query may carry partners' secrets.
    fn describe(&self, error: &reqwest::Error) -> String {
        let chain: Vec<&(dyn StdError + 'static)> = std::iter::successors(error.source(), |&e| e.source()).collect();
        if let Some(unreachable) = chain.iter().find_map(|e| e.downcast_ref::<Unreachable>()) {
            return unreachable.to_string();
        }
        // An I/O error's `source` skips the error it wraps, so unwrap nested ones by hand.
        let io = chain.iter().find_map(|e| e.downcast_ref::<io::Error>()).map(|mut io| {
            while let Some(inner) = io.get_ref().and_then(|e| e.downcast_ref::<io::Error>()) {
                io = inner;
            }
            io
        });
        let hyper = || chain.iter().filter_map(|e| e.downcast_ref::<hyper::Error>());
        if error.is_timeout() {
            return if error.is_connect() {
                format!("could not connect: timed out after {} s", self.connect_timeout.as_secs_f64())
            } else {
                format!("timed out after {} s without a complete answer", self.timeout.as_secs_f64())
            };
        }
        if error.is_connect() {
            return match io {
                // The TLS stack reports through I/O errors; rustls' message names the failure (and at
                // most host names), never the path.
                Some(io) if io.kind() == io::ErrorKind::InvalidData => match io.get_ref() {
                    Some(tls) => format!("could not connect: TLS failed: {tls}"),
                    None => "could not connect: TLS failed".to_owned(),
                },
                Some(io) => format!("could not connect: {}", io.kind()),
                None => "could not connect".to_owned(),
            };
        }
        if hyper().any(|e| e.is_parse() || e.is_parse_status()) {
            return "the answer was not valid HTTP".to_owned();
        }
        let closed = hyper().any(|e| e.is_incomplete_message())
            || io.is_some_and(|e| {
                matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::BrokenPipe
                        | io::ErrorKind::UnexpectedEof
                )
            });
        if closed {
            return "the connection closed before an answer".to_owned();
        }
        if error.is_builder() {
            return "the request could not be built".to_owned();
        }
        "the request failed".to_owned()
    }
}

impl WebhookTransport for HttpTransport {
    async fn check_target(&self, url: &WebhookUrl) -> Result<()> {
        let url = url.as_url();
        let host = url.host().ok_or_else(|| Error::validation("url", "must name a host"))?;
        // Resolution needs a port, though which one does not change the addresses.
        let port = url.port_or_known_default().unwrap_or(0);
        let addresses = match literal(&host) {
            Some(address) => vec![address],
            None => lookup(&host.to_string(), port).await.map_err(Unreachable::into_error)?,
        };
        if self.allow_private {
            return Ok(());
        }
        screen(&host, addresses).map_err(Unreachable::into_error)
    }

    async fn post(&self, request: &OutboundRequest) -> PostOutcome {
        let started = Instant::now();
        let result = self.send(request).await;
        let duration_ms = u32::try_from(started.elapsed().as_millis()).unwrap_or(u32::MAX);
        match result {
            Ok(status) => PostOutcome { status_code: Some(status), error: None, duration_ms },
            Err(error) => {
                tracing::debug!(%error, "webhook POST failed");
                PostOutcome { status_code: None, error: Some(error), duration_ms }
            }
        }
    }
}

/// Why a host may not be posted to. It travels from the resolver through reqwest's error chain,
/// where [`HttpTransport::describe`] finds it again.
#[derive(Debug)]
enum Unreachable {
    Refused { host: String, address: IpAddr, why: &'static str },
    Unresolved { host: String },
}

impl Unreachable {
    fn into_error(self) -> Error {
        match self {
            Unreachable::Refused { host, address, why } => refused_address(&host, address, why),
            Unreachable::Unresolved { host } => Error::validation("url", format!("{host} does not resolve")),
        }
    }
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Refused { host, address, why } => {
                write!(f, "address refused: {host} resolves to {address} ({why})")
            }
            Unreachable::Unresolved { host } => write!(f, "{host} does not resolve"),
        }
    }
}

impl StdError for Unreachable {}

/// The address an IP-literal host names, or `None` for a domain.
fn literal(host: &Host<&str>) -> Option<IpAddr> {
    match *host {
        Host::Ipv4(ip) => Some(ip.into()),
        Host::Ipv6(ip) => Some(ip.into()),
        Host::Domain(_) => None,
    }
}

/// Every address `name` resolves to; none is an error.
async fn lookup(name: &str, port: u16) -> std::result::Result<Vec<IpAddr>, Unreachable> {
    let unresolved = || Unreachable::Unresolved { host: name.to_owned() };
    let addresses: Vec<IpAddr> =
        tokio::net::lookup_host((name, port)).await.map_err(|_| unresolved())?.map(|a| a.ip()).collect();
    if addresses.is_empty() {
        return Err(unresolved());
    }
    Ok(addresses)
}

/// Refuses the host when any of its addresses is non-public: one private answer among public
/// ones is enough to reach inside.
fn screen(
    host: &impl fmt::Display,
    addresses: impl IntoIterator<Item = IpAddr>,
) -> std::result::Result<(), Unreachable> {
    match addresses.into_iter().find_map(|address| address_refusal(address).map(|why| (address, why))) {
        Some((address, why)) => Err(Unreachable::Refused { host: host.to_string(), address, why }),
        None => Ok(()),
    }
}

/// Resolves names for reqwest and screens their addresses; what it returns is all reqwest may
/// connect to.
struct GuardedResolver {
    allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            // Port 0: reqwest puts the URL's port on each address.
            let addresses = lookup(name.as_str(), 0).await?;
            if !allow_private {
                screen(&name.as_str(), addresses.iter().copied())?;
            }
            let addrs: Addrs = Box::new(addresses.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}
