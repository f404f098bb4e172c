//! The adapters a running `pulse` plugs into the domain, and the services its workers run over them.

use std::sync::Arc;

use pulse_analysis::BuiltinAnalyzer;
use pulse_api::{AppState, Platform};
use pulse_clock::SystemClock;
use pulse_crypto::{JwtLaunchTokens, JwtStudioTokens, RingCrypto};
use pulse_domain::analysis::service::Analysis;
use pulse_domain::exports::ports::ExportStore;
use pulse_domain::ids::ExportId;
use pulse_domain::shared::clock::{Clock, SettableClock};
use pulse_domain::webhooks::service::Dispatcher;
use pulse_export_pdf::ExportRenderers;
use pulse_export_s3::S3ExportStore;
use pulse_generator::TemplateGenerator;
use pulse_outreach_senders::Senders;
use pulse_postgres::PgStore;
use pulse_webhook_http::HttpTransport;
use time::OffsetDateTime;

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
    type Generator = TemplateGenerator;
    type LaunchTokens = Arc<JwtLaunchTokens>;
    type StudioTokens = JwtStudioTokens;
    type WebhookTransport = HttpTransport;
    type ExportStore = ExportFiles;
    type ExportRenderer = ExportRenderers;
    type MessageSender = Senders;
}

pub type ServerState = AppState<ServerPlatform>;

/// Where export files are kept, as configured. Both places are reached by every replica: the
/// database already, a bucket through its shared settings.
pub enum ExportFiles {
    Postgres(PgStore),
    S3(S3ExportStore),
}

impl ExportStore for ExportFiles {
    async fn put(&self, id: ExportId, bytes: Vec<u8>) -> pulse_domain::Result<()> {
        match self {
            ExportFiles::Postgres(store) => store.put(id, bytes).await,
            ExportFiles::S3(store) => store.put(id, bytes).await,
        }
    }

    async fn get(&self, id: ExportId) -> pulse_domain::Result<Option<Vec<u8>>> {
        match self {
            ExportFiles::Postgres(store) => store.get(id).await,
            ExportFiles::S3(store) => store.get(id).await,
        }
    }

    async fn delete(&self, id: ExportId) -> pulse_domain::Result<()> {
        match self {
            ExportFiles::Postgres(store) => store.delete(id).await,
            ExportFiles::S3(store) => store.delete(id).await,
        }
    }
}

/// The webhook delivery worker's service.
pub type ServerDispatcher = Dispatcher<PgStore, Arc<RingCrypto>, AppClock, HttpTransport>;

/// The analysis worker's service.
pub type ServerAnalysis = Analysis<PgStore, Arc<BuiltinAnalyzer>, Arc<RingCrypto>, AppClock>;
