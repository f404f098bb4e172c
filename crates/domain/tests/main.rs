//! The domain's services over the in-memory adapters of `pulse-testing`, a settable clock and
//! fakes: one module per aggregate, sharing the fixtures in `common`.

mod analysis;
mod apps;
mod campaigns;
mod challenges;
mod common;
mod exports;
mod idempotency;
mod layout;
mod paging;
mod quota;
mod results;
mod sessions;
mod tenancy;
mod webhooks;
