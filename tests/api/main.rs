//! Black-box tests: the real application on a free port, a fresh PostgreSQL database per test.

mod cli;
mod errors;
mod health;
mod helpers;
mod idempotency;
mod identity;
mod openapi;
mod orgs;
mod quotas;
mod secrets;
