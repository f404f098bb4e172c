use pulse_domain::clock::Clock;
use pulse_domain::idempotency::Idempotency;
use pulse_domain::ports::{Crypto, HealthCheck, IdempotencyStore, QuotaCounter, TenancyRepository};
use pulse_domain::quota::Quotas;
use pulse_domain::services::Tenancy;

/// The adapters a running service is built from. The server picks Postgres and the real crypto;
/// nothing in this crate knows which.
pub trait Platform: Send + Sync + 'static {
    type Store: TenancyRepository + IdempotencyStore + QuotaCounter + HealthCheck + Clone;
    type Crypto: Crypto + Clone;
    type Clock: Clock + Clone;
}

/// The domain services the handlers call.
pub struct AppState<P: Platform> {
    pub tenancy: Tenancy<P::Store, P::Crypto, P::Clock>,
    pub idempotency: Idempotency<P::Store, P::Crypto, P::Clock>,
    pub quotas: Quotas<P::Store, P::Clock>,
    pub health: P::Store,
}
