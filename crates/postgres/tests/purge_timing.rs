//! How long the maintenance worker's purge of webhook events past their retention takes as they
//! pile up: seeds events two months old, each with a delivered delivery and an analysis job linked
//! to it (as a completed session leaves them), and times one purge of them all; then the same purge
//! in a database without migration 000022's indexes, which reads the deliveries and analysis jobs
//! whole for every event as the one-statement purge before it did. Speed is measured, never asserted; run it on
//! purpose:
//!
//! ```sh
//! cargo test --release -p pulse-postgres --test purge_timing -- --ignored --nocapture
//! ```

use std::time::Instant;

use diesel_async::{AsyncConnection as _, AsyncPgConnection, SimpleAsyncConnection as _};
use pulse_domain::webhooks::ports::WebhookRepository as _;
use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PoolSettings, connect};
use time::{Duration, OffsetDateTime};

/// A business, its workspace, a survey, a campaign and a webhook endpoint.
const ONE_ENDPOINT: &str = "\
    INSERT INTO businesses (id, name, created_at) VALUES ('00000000-0000-0000-0000-00000000000b', 'b', now()); \
    INSERT INTO workspaces (id, business_id, external_ref, name, slug, kind, created_at) \
    VALUES ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000b', 'w', 'w', 'w', \
    'COMPANY', now()); \
    INSERT INTO surveys (id, workspace_id, title, languages, questions, created_at) \
    VALUES ('00000000-0000-0000-0000-00000000000c', '00000000-0000-0000-0000-00000000000a', 't', '{en}', '[]', now()); \
    INSERT INTO campaigns (id, workspace_id, survey_id, code, name, status, audience, quality, delivery, \
    order_terms, anonymity_floor, created_at) VALUES ('00000000-0000-0000-0000-00000000000d', \
    '00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000c', 'c', 'c', 'ACTIVE', 'OPEN', \
    '{}', '{}', '{}', 5, now()); \
    INSERT INTO webhook_subscriptions (id, workspace_id, url, event_types, secret_sealed, is_active, created_at, \
    updated_at) VALUES ('00000000-0000-0000-0000-0000000000ee', '00000000-0000-0000-0000-00000000000a', \
    'https://hooks.example.com/pulse', '{}', 'x', true, now(), now());";

/// `count` completed sessions of two months ago, each with its `feedback.received` event, that
/// event's delivered delivery, and its analysis job linked to the event.
fn old_completions(count: u32) -> String {
    format!(
        "INSERT INTO webhook_events (id, workspace_id, event_type, aggregate, aggregate_id, payload, occurred_at) \
        SELECT md5('event' || i)::uuid, '00000000-0000-0000-0000-00000000000a', 'feedback.received', 'session', \
        md5('session' || i)::uuid, '{{}}', now() - interval '60 days' FROM generate_series(1, {count}) AS i; \
        INSERT INTO webhook_deliveries (id, subscription_id, event_id, status, attempts, delivered_at) \
        SELECT gen_random_uuid(), '00000000-0000-0000-0000-0000000000ee', md5('event' || i)::uuid, 'DELIVERED', 1, \
        now() - interval '60 days' FROM generate_series(1, {count}) AS i; \
        INSERT INTO sessions (id, campaign_id, token_digest, language, tags, context, status, total, started_at, \
        completed_at) SELECT md5('session' || i)::uuid, '00000000-0000-0000-0000-00000000000d', \
        sha256(i::text::bytea), 'en', '{{}}', '{{}}', 'COMPLETED', 1, now() - interval '60 days', \
        now() - interval '60 days' FROM generate_series(1, {count}) AS i; \
        INSERT INTO analysis_jobs (session_id, campaign_id, event_id, created_at) \
        SELECT md5('session' || i)::uuid, '00000000-0000-0000-0000-00000000000d', md5('event' || i)::uuid, \
        now() - interval '60 days' FROM generate_series(1, {count}) AS i; \
        ANALYZE;"
    )
}

const WITHOUT_THE_INDEXES: &str =
    "DROP INDEX webhook_events_occurred, webhook_deliveries_event, analysis_jobs_event; ANALYZE;";

/// Seeds `count` old completions in a fresh database (without 000022's indexes unless `indexed`)
/// and returns how long purging them took.
async fn purge_of(count: u32, indexed: bool) -> std::time::Duration {
    let database = TestDatabase::create().await;
    let store = connect(database.url(), &PoolSettings { max_size: 2, ..PoolSettings::default() }).expect("a pool");
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    conn.batch_execute(ONE_ENDPOINT).await.expect("an endpoint");
    conn.batch_execute(&old_completions(count)).await.expect("seeded");
    if !indexed {
        conn.batch_execute(WITHOUT_THE_INDEXES).await.expect("indexes dropped");
    }
    let started = Instant::now();
    let purged = store.purge_webhook_events(OffsetDateTime::now_utc() - Duration::days(30)).await.expect("purged");
    let took = started.elapsed();
    assert_eq!(purged, u64::from(count));
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::print_stdout)]
#[ignore = "a measurement: run it on purpose, in release"]
async fn purging_old_events_grows_with_them_not_with_their_square() {
    println!("| old events | purge, with 000022's indexes | purge, without them |");
    println!("|---:|---:|---:|");
    for count in [1_000, 10_000, 100_000] {
        let with = purge_of(count, true).await;
        // Without the indexes every event reads every delivery and analysis job: 100,000 would
        // take about a hundred times 10,000's time.
        let without = if count <= 10_000 {
            format!("{:.2} s", purge_of(count, false).await.as_secs_f64())
        } else {
            "not run".into()
        };
        println!("| {count} | {:.2} s | {without} |", with.as_secs_f64());
    }
}
