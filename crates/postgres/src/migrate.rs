use anyhow::Context as _;
use diesel::{Connection as _, RunQueryDsl as _};
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness as _, embed_migrations};

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

/// Held while migrating, so replicas starting together run the migrations once.
const MIGRATION_LOCK: i64 = 0x7075_6c73_656d_6967;

/// Applies the pending migrations and returns their names (`<version>_<name>`), oldest first.
///
/// # Errors
/// When the database cannot be reached or a migration fails (the failing one is rolled back).
pub async fn run_migrations(database_url: &str) -> anyhow::Result<Vec<String>> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<String>> {
        let mut conn =
            AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url).context("connecting to the database")?;
        diesel::sql_query(format!("SELECT pg_advisory_lock({MIGRATION_LOCK})")).execute(&mut conn)?;
        let applied: anyhow::Result<Vec<String>> = conn
            .run_pending_migrations(MIGRATIONS)
            .map(|versions| versions.iter().map(ToString::to_string).collect())
            .map_err(|e| anyhow::anyhow!("migration failed: {e}"));
        diesel::sql_query(format!("SELECT pg_advisory_unlock({MIGRATION_LOCK})")).execute(&mut conn)?;
        let names = diesel::migration::MigrationSource::<diesel::pg::Pg>::migrations(&MIGRATIONS)
            .map_err(|e| anyhow::anyhow!("reading embedded migrations: {e}"))?;
        Ok(applied?
            .iter()
            .map(|version| {
                names
                    .iter()
                    .find(|m| m.name().version().to_string() == *version)
                    .map_or_else(|| version.clone(), |m| m.name().to_string())
            })
            .collect())
    })
    .await?
}

/// The names of migrations not yet applied.
///
/// # Errors
/// When the database cannot be reached.
pub async fn pending_migrations(database_url: &str) -> anyhow::Result<Vec<String>> {
    let url = database_url.to_owned();
    tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<String>> {
        let mut conn =
            AsyncConnectionWrapper::<AsyncPgConnection>::establish(&url).context("connecting to the database")?;
        let pending = conn.pending_migrations(MIGRATIONS).map_err(|e| anyhow::anyhow!("reading migrations: {e}"))?;
        Ok(pending.iter().map(|m| m.name().to_string()).collect())
    })
    .await?
}
