//! `DATABASE_READ_URL`: lists and results read from a streaming replica, made by this test with
//! `pg_basebackup` from a private cluster, while every write goes to the primary.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::campaigns::id_of;
use crate::helpers::cluster::Cluster;
use crate::helpers::{TestApp, spawn_app_with};

async fn listed(app: &TestApp, key: &str) -> Vec<String> {
    let response = app.client.get(app.url("/api/v1/channel/campaigns")).bearer_auth(key).send().await.expect("sent");
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.expect("json");
    page["items"].as_array().expect("items").iter().map(|c| c["id"].as_str().expect("id").to_owned()).collect()
}

/// Waits (at most 10 s) until the replica's list has `count` campaigns.
async fn until_listed(app: &TestApp, key: &str, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ids = listed(app, key).await;
        if ids.len() == count || Instant::now() > deadline {
            return ids;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn lists_and_results_read_from_the_replica_and_writes_go_to_the_primary() {
    let primary = Cluster::primary();
    primary.sql_on("postgres", "CREATE DATABASE pulse");
    pulse_postgres::run_migrations(&primary.url("pulse")).await.expect("migrated");
    let replica = Cluster::replica_of(&primary);
    assert_eq!(replica.sql("SELECT pg_is_in_recovery()"), "t", "a hot standby");

    let (write_url, read_url) = (primary.url("pulse"), replica.url("pulse"));
    let app = spawn_app_with(move |s| {
        s.database_url = write_url;
        s.database_read_url = Some(read_url);
    })
    .await;
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let first = app.live_campaign(&key).await;
    assert_eq!(until_listed(&app, &key, 1).await, [id_of(&first)], "the replica caught up");

    // With replay paused, the replica stands still: a campaign written now is on the primary
    // (it reads back by id) but not in the list, which the replica answers.
    replica.sql("SELECT pg_wal_replay_pause()");
    let second = app.provisioned(&key).await;
    assert_eq!(app.get_campaign(&key, id_of(&second)).await.status(), 200, "reads by id go to the primary");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(listed(&app, &key).await, [id_of(&first)], "the list is the replica's, behind");
    let results = app.client.get(app.url(&format!("/api/v1/channel/campaigns/{}/results", id_of(&first))));
    assert_eq!(results.bearer_auth(&key).send().await.expect("sent").status(), 200, "results from the replica");

    replica.sql("SELECT pg_wal_replay_resume()");
    assert_eq!(until_listed(&app, &key, 2).await, [id_of(&first), id_of(&second)], "caught up again");
    assert_eq!(primary.sql("SELECT count(*) FROM campaigns"), "2", "every write went to the primary");
}
