//! Black-box tests: the real application on a free port, a fresh PostgreSQL database per test.

mod apps;
mod audience;
mod browser;
mod campaigns;
mod cli;
mod errors;
mod exports;
mod health;
mod helpers;
mod idempotency;
mod identity;
mod launch;
mod lifecycle;
mod openapi;
mod orgs;
mod outreach;
mod page;
mod public;
mod quotas;
mod readme;
mod receiver;
mod results;
mod secrets;
mod signed_tokens;
mod studio;
mod webhooks;
