//! Logging: built separately from being installed, so tests can send it elsewhere.

use tracing::Subscriber;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::{EnvFilter, Registry};

use crate::settings::LogFormat;

/// Where the HTTP library logs requests it could not read.
const QUIET_TARGET: &str = "actix_http::h1::dispatcher";

/// A subscriber writing to `sink` at `filter` (an `EnvFilter` directive such as `info`).
pub fn build_subscriber<W>(filter: &str, format: LogFormat, sink: W) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let mut env_filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
    // The HTTP library logs every malformed request (a bad request line or header, a stream cut
    // mid-request) at ERROR: any client could write ERROR lines at will. It already answers those
    // requests itself, so its dispatcher stays quiet unless the filter asks for it by name.
    if !filter.contains(QUIET_TARGET) {
        env_filter = env_filter.add_directive(format!("{QUIET_TARGET}=off").parse().expect("a valid directive"));
    }
    let filter = env_filter;
    match format {
        LogFormat::Json => Box::new(
            Registry::default().with(filter).with(
                tracing_subscriber::fmt::layer()
                    .json()
                    .flatten_event(true)
                    .with_current_span(true)
                    .with_span_list(false)
                    .with_writer(sink),
            ),
        ),
        LogFormat::Pretty => {
            Box::new(Registry::default().with(filter).with(tracing_subscriber::fmt::layer().with_writer(sink)))
        }
    }
}

/// Installs `subscriber` for the whole process.
///
/// # Errors
/// When a subscriber is installed already.
pub fn init_subscriber(subscriber: Box<dyn Subscriber + Send + Sync>) -> anyhow::Result<()> {
    tracing::subscriber::set_global_default(subscriber)?;
    Ok(())
}
