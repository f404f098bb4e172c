//! `DATABASE_READ_URL`: lists and results read from a streaming replica, made by this test with
//! `pg_basebackup` from a private cluster, while every write goes to the primary.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::helpers::campaigns::id_of;
use crate::helpers::{TestApp, free_port, spawn_app_with};

/// A PostgreSQL server of its own, in a scratch directory, stopped and removed on drop.
struct Cluster {
    dir: PathBuf,
    port: u16,
}

fn pg_bin(tool: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed")
        .flatten()
        .map(|e| e.path())
        .collect();
    versions.sort();
    versions.pop().expect("a PostgreSQL version").join("bin").join(tool)
}

/// Runs a PostgreSQL tool as the `postgres` user (the tools refuse root).
fn as_postgres(tool: &str, args: &[&str]) {
    let output = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(pg_bin(tool))
        .args(args)
        .output()
        .expect("run a PostgreSQL tool");
    assert!(output.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

impl Cluster {
    fn scratch(name: &str) -> (PathBuf, u16) {
        let dir = std::env::temp_dir().join(format!("pulse-{name}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        let chown = Command::new("chown").args(["postgres:postgres", &dir.to_string_lossy()]).status();
        assert!(chown.expect("chown").success());
        (dir, free_port())
    }

    fn primary() -> Self {
        let (dir, port) = Self::scratch("primary");
        as_postgres("initdb", &["-D", &dir.join("data").to_string_lossy(), "-A", "trust", "-U", "postgres"]);
        let cluster = Self { dir, port };
        cluster.start();
        cluster
    }

    /// A hot standby of `primary`, streaming from it.
    fn replica_of(primary: &Cluster) -> Self {
        let (dir, port) = Self::scratch("replica");
        let data = dir.join("data").to_string_lossy().into_owned();
        let source = primary.port.to_string();
        as_postgres(
            "pg_basebackup",
            &["-h", "127.0.0.1", "-p", &source, "-U", "postgres", "-D", &data, "-R", "-X", "stream", "-c", "fast"],
        );
        let cluster = Self { dir, port };
        cluster.start();
        cluster
    }

    fn start(&self) {
        let options = format!("-p {} -c listen_addresses=127.0.0.1 -k {}", self.port, self.dir.to_string_lossy());
        let log = self.dir.join("log").to_string_lossy().into_owned();
        as_postgres("pg_ctl", &["-D", &self.data(), "-o", &options, "-l", &log, "-w", "start"]);
    }

    fn data(&self) -> String {
        self.dir.join("data").to_string_lossy().into_owned()
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    fn sql(&self, statement: &str) -> String {
        let output = Command::new("psql")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", "-d", "pulse", "-tAc", statement])
            .output()
            .expect("psql");
        assert!(output.status.success(), "{statement}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _stopped = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
        let _removed = std::fs::remove_dir_all(Path::new(&self.dir));
    }
}

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
    let created = Command::new("psql")
        .args(["-h", "127.0.0.1", "-p", &primary.port.to_string(), "-U", "postgres", "-c", "CREATE DATABASE pulse"])
        .status()
        .expect("psql");
    assert!(created.success());
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
