//! A fresh database per test, cloned from a migrated template, so tests run in parallel and never
//! see each other's rows.

use std::sync::OnceLock;

use anyhow::Context as _;
use diesel::sql_types::Text;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use sha2::{Digest as _, Sha256};
use uuid::Uuid;

use crate::local::{ServerUrl, create_database_if_missing, ensure_server, quote_ident};
use crate::migrate::run_migrations;
use crate::rows::RowCount;

/// Where the test server is; only its server part is used.
pub const TEST_SERVER_ENV: &str = "PULSE_TEST_DATABASE_URL";
const DEFAULT_TEST_SERVER: &str = "postgres://postgres@127.0.0.1:5432/postgres";
const TEMPLATE_LOCK: i64 = 0x7075_6c73_6574_706c;

/// The test server's URL: `PULSE_TEST_DATABASE_URL`, or the local PostgreSQL.
#[must_use]
pub fn test_server_url() -> String {
    std::env::var(TEST_SERVER_ENV).unwrap_or_else(|_| DEFAULT_TEST_SERVER.to_owned())
}

/// A business (`…0b`) and its workspace (`…0a`), for tests that seed rows of their own with SQL.
pub const ONE_WORKSPACE: &str = "\
    INSERT INTO businesses (id, name, created_at) VALUES ('00000000-0000-0000-0000-00000000000b', 'b', now()); \
    INSERT INTO workspaces (id, business_id, external_ref, name, slug, kind, created_at) \
    VALUES ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000b', 'w', 'w', 'w', \
    'COMPANY', now());";

/// A webhook endpoint (`…ee`) of [`ONE_WORKSPACE`]'s workspace.
pub const ONE_ENDPOINT: &str = "\
    INSERT INTO webhook_subscriptions (id, workspace_id, url, event_types, secret_sealed, is_active, created_at, \
    updated_at) VALUES ('00000000-0000-0000-0000-0000000000ee', '00000000-0000-0000-0000-00000000000a', \
    'https://hooks.example.com/pulse', '{}', 'x', true, now(), now());";

/// Returns once `n` of the tasks a test started wait for a lock in `watcher`'s database or have
/// finished (`finished` counts those), so that a change that stops them waiting fails on their
/// answers instead of hanging.
///
/// # Panics
/// When `pg_stat_activity` cannot be read, or when the tasks neither wait nor finish within a
/// minute (a task stuck elsewhere fails the test rather than hanging it).
pub async fn until_settled(watcher: &mut AsyncPgConnection, n: i64, finished: impl Fn() -> i64) {
    let settled = async {
        loop {
            let waiting: RowCount = diesel::sql_query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() \
                 AND wait_event_type = 'Lock'",
            )
            .get_result(watcher)
            .await
            .expect("read");
            if waiting.n + finished() >= n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), settled)
        .await
        .expect("the tasks neither waited for a lock nor finished within a minute");
}

/// A database that exists for as long as this value does.
pub struct TestDatabase {
    name: String,
    url: String,
    server: ServerUrl,
}

impl TestDatabase {
    /// # Panics
    /// When no PostgreSQL can be reached or started, or the template cannot be migrated: a test
    /// suite without its database cannot say anything.
    pub async fn create() -> Self {
        match Self::try_create().await {
            Ok(db) => db,
            Err(e) => panic!("cannot create a test database: {e:#}"),
        }
    }

    async fn try_create() -> anyhow::Result<Self> {
        let base = test_server_url();
        let server = ServerUrl::parse(&base)?;
        let mut conn = ensure_server(&server).await?;
        let template = template_name();
        ensure_template(&mut conn, &server, template).await?;
        let name = format!("pulse_test_{}", Uuid::new_v4().simple());
        diesel::sql_query(format!("CREATE DATABASE {} TEMPLATE {}", quote_ident(&name), quote_ident(template)))
            .execute(&mut conn)
            .await
            .context("cloning the template database")?;
        Ok(Self { url: server.with_database(&name), name, server })
    }

    /// A database with no tables at all, for testing migrations themselves.
    ///
    /// # Panics
    /// As [`TestDatabase::create`].
    pub async fn create_empty() -> Self {
        let base = test_server_url();
        let created = async {
            let server = ServerUrl::parse(&base)?;
            let mut conn = ensure_server(&server).await?;
            let name = format!("pulse_test_{}", Uuid::new_v4().simple());
            create_database_if_missing(&mut conn, &name).await?;
            anyhow::Ok(Self { url: server.with_database(&name), name, server })
        };
        match created.await {
            Ok(db) => db,
            Err(e) => panic!("cannot create an empty test database: {e:#}"),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let maintenance = self.server.with_database("postgres");
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", quote_ident(&self.name));
        // Drop may run inside a runtime that cannot block, so the clean-up gets its own thread.
        let cleanup = std::thread::spawn(move || {
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
            runtime.block_on(async move {
                if let Ok(mut conn) = AsyncPgConnection::establish(&maintenance).await {
                    let _ignored_best_effort = diesel::sql_query(statement).execute(&mut conn).await;
                }
            });
        });
        let _ignored_best_effort = cleanup.join();
    }
}

/// The template's name carries a digest of the migrations, so a changed migration makes a new one.
fn template_name() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
        let mut files: Vec<_> = walk(&dir);
        files.sort();
        let mut hasher = Sha256::new();
        for file in files {
            hasher.update(file.strip_prefix(&dir).unwrap_or(&file).to_string_lossy().as_bytes());
            hasher.update(std::fs::read(&file).unwrap_or_default());
        }
        let digest = hasher.finalize();
        let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
        format!("pulse_template_{hex}")
    })
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().flat_map(|e| if e.path().is_dir() { walk(&e.path()) } else { vec![e.path()] }).collect()
}

#[derive(diesel::QueryableByName)]
struct Name {
    #[diesel(sql_type = Text)]
    datname: String,
}

async fn ensure_template(conn: &mut AsyncPgConnection, server: &ServerUrl, template: &str) -> anyhow::Result<()> {
    diesel::sql_query(format!("SELECT pg_advisory_lock({TEMPLATE_LOCK})")).execute(conn).await?;
    let result = build_template_if_missing(conn, server, template).await;
    diesel::sql_query(format!("SELECT pg_advisory_unlock({TEMPLATE_LOCK})")).execute(conn).await?;
    result
}

async fn build_template_if_missing(
    conn: &mut AsyncPgConnection,
    server: &ServerUrl,
    template: &str,
) -> anyhow::Result<()> {
    let existing: Vec<Name> =
        diesel::sql_query("SELECT datname FROM pg_database WHERE datname LIKE 'pulse\\_template\\_%'")
            .load(conn)
            .await?;
    if existing.iter().any(|n| n.datname == template) {
        return Ok(());
    }
    for stale in existing {
        diesel::sql_query(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", quote_ident(&stale.datname)))
            .execute(conn)
            .await?;
    }
    // Migrate under a temporary name and rename at the end, so a half-built template never exists.
    let building = format!("{template}_building");
    diesel::sql_query(format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", quote_ident(&building))).execute(conn).await?;
    create_database_if_missing(conn, &building).await?;
    run_migrations(&server.with_database(&building)).await?;
    diesel::sql_query(format!("ALTER DATABASE {} RENAME TO {}", quote_ident(&building), quote_ident(template)))
        .execute(conn)
        .await?;
    Ok(())
}
