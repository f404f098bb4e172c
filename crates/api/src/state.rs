use std::net::IpAddr;

use pulse_domain::apps::Apps;
use pulse_domain::clock::Clock;
use pulse_domain::idempotency::Idempotency;
use pulse_domain::launch::LaunchTokenCodec;
use pulse_domain::launch_keys::LaunchKeys;
use pulse_domain::ports::{
    AnalysisRepository, AppRepository, CampaignRepository, Crypto, HealthCheck, IdempotencyStore, LaunchRepository,
    QuotaCounter, SessionStore, TenancyRepository, WebhookRepository, WebhookTransport,
};
use pulse_domain::provisioning::Campaigns;
use pulse_domain::quota::Quotas;
use pulse_domain::respondents::Respondents;
use pulse_domain::results::Results;
use pulse_domain::services::Tenancy;
use pulse_domain::studio::StudioTokens;
use pulse_domain::survey::SurveyGenerator;
use pulse_domain::webhooks::Webhooks;

/// The adapters a running service is built from. The server picks Postgres and the real crypto;
/// nothing in this crate knows which.
pub trait Platform: Send + Sync + 'static {
    type Store: TenancyRepository
        + IdempotencyStore
        + QuotaCounter
        + HealthCheck
        + CampaignRepository
        + LaunchRepository
        + SessionStore
        + AppRepository
        + WebhookRepository
        + AnalysisRepository
        + Clone;
    type Crypto: Crypto + Clone;
    type Clock: Clock + Clone;
    type Generator: SurveyGenerator;
    type LaunchTokens: LaunchTokenCodec + Clone;
    type StudioTokens: StudioTokens;
    type WebhookTransport: WebhookTransport + Clone;
}

/// Where requests come from: the peer address, or the client named in `X-Forwarded-For` when the
/// peer is a trusted proxy.
#[derive(Clone, Debug, Default)]
pub struct NetworkPolicy {
    pub trusted_proxies: Vec<IpAddr>,
}

/// The partner campaign service of a platform.
pub type CampaignService<P> = Campaigns<
    <P as Platform>::Store,
    <P as Platform>::Generator,
    <P as Platform>::Crypto,
    <P as Platform>::Clock,
    <P as Platform>::LaunchTokens,
>;

/// The domain services the handlers call.
pub struct AppState<P: Platform> {
    pub tenancy: Tenancy<P::Store, P::Crypto, P::Clock>,
    pub idempotency: Idempotency<P::Store, P::Crypto, P::Clock>,
    pub quotas: Quotas<P::Store, P::Clock>,
    pub campaigns: CampaignService<P>,
    pub respondents: Respondents<P::Store, P::Crypto, P::Clock, P::LaunchTokens>,
    pub launch_keys: LaunchKeys<P::Store, P::Crypto, P::Clock>,
    pub apps: Apps<P::Store, P::Crypto, P::Clock>,
    pub webhooks: Webhooks<P::Store, P::Crypto, P::Clock, P::WebhookTransport>,
    pub results: Results<P::Store, P::Crypto, P::Clock>,
    pub studio_tokens: P::StudioTokens,
    pub clock: P::Clock,
    pub network: NetworkPolicy,
    pub health: P::Store,
}
