//! How long the maintenance worker's purge of webhook events past their retention takes as they
//! pile up (the service's purge, batch after batch). Seeds events two months old, each with a
//! delivered delivery and an analysis job linked to it (as a completed session leaves them), and
//! times one purge of them all; then the same purge in a database without migration 000022's
//! indexes, which reads the deliveries and analysis jobs whole for every event as the
//! one-statement purge before it did. Speed is measured, never asserted; run it on purpose:
//!
//! ```sh
//! cargo test --release -p pulse-postgres --test purge_timing -- --ignored --nocapture
//! ```

use std::time::Instant;

use diesel_async::{AsyncConnection as _, AsyncPgConnection, SimpleAsyncConnection as _};
use pulse_postgres::test_db::{ONE_ENDPOINT, ONE_WORKSPACE, TestDatabase};
use pulse_postgres::{PoolSettings, connect};
use pulse_testing::contract::World;
use time::OffsetDateTime;

/// A survey and a campaign (`…0d`) of [`ONE_WORKSPACE`]'s workspace.
const ONE_CAMPAIGN: &str = "\
    INSERT INTO surveys (id, workspace_id, title, languages, questions, created_at) \
    VALUES ('00000000-0000-0000-0000-00000000000c', '00000000-0000-0000-0000-00000000000a', 't', '{en}', '[]', now()); \
    INSERT INTO campaigns (id, workspace_id, survey_id, code, name, status, audience, quality, delivery, \
    order_terms, anonymity_floor, created_at) VALUES ('00000000-0000-0000-0000-00000000000d', \
    '00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000c', 'c', 'c', 'ACTIVE', 'OPEN', \
    '{}', '{}', '{}', 5, now());";

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
    let w = World::new(store);
    w.clock.set(OffsetDateTime::now_utc());
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    for seed in [ONE_WORKSPACE, ONE_ENDPOINT, ONE_CAMPAIGN] {
        conn.batch_execute(seed).await.expect("seeded");
    }
    conn.batch_execute(&old_completions(count)).await.expect("seeded");
    if !indexed {
        conn.batch_execute(WITHOUT_THE_INDEXES).await.expect("indexes dropped");
    }
    let started = Instant::now();
    let purged = w.webhooks.purge_old_events(|| true).await.expect("purged");
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
        // take about a hundred times 10,000's.
        let without = if count <= 10_000 {
            format!("{:.2} s", purge_of(count, false).await.as_secs_f64())
        } else {
            "not run".into()
        };
        println!("| {count} | {:.2} s | {without} |", with.as_secs_f64());
    }
}
