//! Building the application (adapters, services, HTTP server) apart from running it, so tests
//! can start the real thing on a free port.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{HttpServer, web};
use anyhow::Context as _;
use pulse_api::{AppState, Platform};
use pulse_clock::SystemClock;
use pulse_crypto::{MasterKey, RingCrypto};
use pulse_domain::clock::{Clock, SettableClock};
use pulse_domain::idempotency::Idempotency;
use pulse_domain::quota::Quotas;
use pulse_domain::services::Tenancy;
use pulse_postgres::PgStore;
use secrecy::ExposeSecret as _;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;

use crate::settings::Settings;
use crate::workers;

/// The clock the service runs on: the system's, or a settable one in tests.
#[derive(Clone, Debug)]
pub enum AppClock {
    System(SystemClock),
    Settable(SettableClock),
}

impl Clock for AppClock {
    fn now(&self) -> OffsetDateTime {
        match self {
            AppClock::System(c) => c.now(),
            AppClock::Settable(c) => c.now(),
        }
    }
}

/// The adapters of a running `pulse`.
pub struct ServerPlatform;

impl Platform for ServerPlatform {
    type Store = PgStore;
    type Crypto = Arc<RingCrypto>;
    type Clock = AppClock;
}

pub type ServerState = AppState<ServerPlatform>;

/// The crypto adapter from the configured master key.
///
/// # Errors
/// When the master key is missing or malformed.
pub fn crypto_from(settings: &Settings) -> anyhow::Result<Arc<RingCrypto>> {
    let text = settings.master_key.as_ref().context(
        "PULSE_MASTER_KEY is not set: set it to 32 random bytes in base64 (or run `pulse serve --dev` locally)",
    )?;
    let master = MasterKey::from_base64(text.expose_secret()).context("PULSE_MASTER_KEY")?;
    Ok(Arc::new(RingCrypto::new(&master)))
}

/// # Errors
/// When the pool cannot be configured.
pub fn store_from(settings: &Settings) -> anyhow::Result<PgStore> {
    pulse_postgres::connect(&settings.database_url, &settings.pool)
}

pub struct Application {
    port: u16,
    server: Server,
    state: web::Data<ServerState>,
}

impl Application {
    /// Wires adapters and services and binds the listener (`PULSE_BIND`, port 0 for any free one).
    ///
    /// # Errors
    /// When the master key is missing, the pool cannot be built or the address cannot be bound.
    pub fn build(settings: &Settings, clock: AppClock) -> anyhow::Result<Self> {
        let crypto = crypto_from(settings)?;
        let store = store_from(settings)?;
        let state = web::Data::new(AppState::<ServerPlatform> {
            tenancy: Tenancy::new(store.clone(), crypto.clone(), clock.clone(), settings.quotas.workspace_limit()),
            idempotency: Idempotency::new(store.clone(), crypto, clock.clone()),
            quotas: Quotas::new(store.clone(), clock, settings.quotas.clone()),
            health: store,
        });
        let listener = TcpListener::bind(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let app_state = state.clone();
        let server =
            HttpServer::new(move || pulse_api::app(app_state.clone())).listen(listener)?.shutdown_timeout(10).run();
        Ok(Self { port, server, state })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Serves until SIGTERM or SIGINT, then lets in-flight requests finish and stops the workers.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let stop = CancellationToken::new();
        let maintenance =
            tokio::spawn(workers::maintenance(self.state.clone(), stop.clone(), Duration::from_secs(300)));
        let served = self.server.await;
        stop.cancel();
        maintenance.await?;
        Ok(served?)
    }
}
