//! Logging: built separately from being installed, so tests can send it elsewhere.

use tracing::Subscriber;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::{EnvFilter, Registry};

use crate::settings::LogFormat;

/// A subscriber writing to `sink` at `filter` (an `EnvFilter` directive such as `info`).
pub fn build_subscriber<W>(filter: &str, format: LogFormat, sink: W) -> Box<dyn Subscriber + Send + Sync>
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    let filter = EnvFilter::try_new(filter).unwrap_or_else(|_| EnvFilter::new("info"));
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
