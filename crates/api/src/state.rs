use std::net::IpAddr;

use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::apps::ports::AppRepository;
use pulse_domain::apps::service::Apps;
use pulse_domain::audit::ports::AuditTrail;
use pulse_domain::audit::service::Audit;
use pulse_domain::campaigns::ports::{CampaignRepository, LaunchRepository, LaunchTokenCodec, SurveyGenerator};
use pulse_domain::campaigns::service::{Campaigns, LaunchKeys};
use pulse_domain::challenges::ports::ProofOfWork;
use pulse_domain::erasure::ports::ErasureRepository;
use pulse_domain::erasure::service::Erasures;
use pulse_domain::exports::ports::{ExportRenderer, ExportRepository, ExportStore, WorkerPresence};
use pulse_domain::exports::service::Exports;
use pulse_domain::idempotency::ports::IdempotencyStore;
use pulse_domain::idempotency::service::Idempotency;
use pulse_domain::outreach::ports::{MessageSender, OutreachRepository};
use pulse_domain::outreach::service::Outreach;
use pulse_domain::quota::ports::QuotaCounter;
use pulse_domain::quota::service::Quotas;
use pulse_domain::results::ports::ResultsRepository;
use pulse_domain::results::service::Results;
use pulse_domain::sessions::ports::SessionStore;
use pulse_domain::sessions::service::Respondents;
use pulse_domain::shared::clock::Clock;
use pulse_domain::shared::crypto::Crypto;
use pulse_domain::shared::health::{Backlogs, HealthCheck};
use pulse_domain::studio::ports::StudioTokens;
use pulse_domain::tenancy::ports::TenancyRepository;
use pulse_domain::tenancy::service::Tenancy;
use pulse_domain::webhooks::ports::{WebhookRepository, WebhookTransport};
use pulse_domain::webhooks::service::Webhooks;

/// The adapters a running service is built from. The server picks Postgres and the real crypto;
/// nothing in this crate knows which.
pub trait Platform: Send + Sync + 'static {
    type Store: TenancyRepository
        + IdempotencyStore
        + QuotaCounter
        + HealthCheck
        + Backlogs
        + CampaignRepository
        + LaunchRepository
        + SessionStore
        + AppRepository
        + WebhookRepository
        + AnalysisRepository
        + ResultsRepository
        + ExportRepository
        + WorkerPresence
        + OutreachRepository
        + ErasureRepository
        + AuditTrail
        + Clone;
    /// Where rendered export files are kept, readable by every replica.
    type ExportStore: ExportStore;
    type ExportRenderer: ExportRenderer;
    type Crypto: Crypto + ProofOfWork + Clone;
    type Clock: Clock + Clone;
    type Generator: SurveyGenerator;
    type LaunchTokens: LaunchTokenCodec + Clone;
    type StudioTokens: StudioTokens;
    type WebhookTransport: WebhookTransport + Clone;
    /// Where invitations, reminders and thank-you messages leave, and provider replies are read.
    type MessageSender: MessageSender;
}

/// Where requests come from: the peer address, or the client named in `X-Forwarded-For` when the
/// peer is a trusted proxy.
#[derive(Clone, Debug, Default)]
pub struct NetworkPolicy {
    /// Proxies by address or range (a load balancer's or an ingress controller's pods).
    pub trusted_proxies: Vec<ipnet::IpNet>,
}

impl NetworkPolicy {
    pub fn trusts(&self, address: &IpAddr) -> bool {
        self.trusted_proxies.iter().any(|net| net.contains(address))
    }
}

/// The partner campaign service of a platform.
pub type CampaignService<P> = Campaigns<
    <P as Platform>::Store,
    <P as Platform>::Generator,
    <P as Platform>::Crypto,
    <P as Platform>::Clock,
    <P as Platform>::LaunchTokens,
>;

/// The export service of a platform.
pub type ExportService<P> = Exports<
    <P as Platform>::Store,
    <P as Platform>::ExportStore,
    <P as Platform>::ExportRenderer,
    <P as Platform>::Crypto,
    <P as Platform>::Clock,
>;

/// The outreach service of a platform.
pub type OutreachService<P> =
    Outreach<<P as Platform>::Store, <P as Platform>::MessageSender, <P as Platform>::Crypto, <P as Platform>::Clock>;

/// The domain services the handlers call.
pub struct AppState<P: Platform> {
    pub tenancy: Tenancy<P::Store, P::Crypto, P::Clock>,
    pub idempotency: Idempotency<P::Store, P::Crypto, P::Clock>,
    pub quotas: Quotas<P::Store, P::Clock>,
    pub campaigns: CampaignService<P>,
    pub audit: Audit<P::Store, P::Crypto, P::Clock>,
    pub respondents: Respondents<P::Store, P::Crypto, P::Clock, P::LaunchTokens>,
    pub launch_keys: LaunchKeys<P::Store, P::Crypto, P::Clock>,
    pub apps: Apps<P::Store, P::Crypto, P::Clock>,
    pub webhooks: Webhooks<P::Store, P::Crypto, P::Clock, P::WebhookTransport>,
    pub results: Results<P::Store, P::Crypto, P::Clock>,
    pub exports: ExportService<P>,
    pub outreach: OutreachService<P>,
    pub erasures: Erasures<P::Store, P::Crypto, P::Clock>,
    pub studio_tokens: P::StudioTokens,
    pub clock: P::Clock,
    pub network: NetworkPolicy,
    pub health: P::Store,
    pub metrics: crate::telemetry::MetricsExport,
    /// How long a request's body and its work may take.
    pub deadlines: crate::middleware::Deadlines,
    /// Set when the process was asked to stop: readiness answers 503 so balancers stop sending
    /// requests here before the server stops taking them.
    pub draining: std::sync::Arc<std::sync::atomic::AtomicBool>,
}
