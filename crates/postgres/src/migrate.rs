use diesel::RunQueryDsl as _;
use diesel_async::AsyncPgConnection;
use diesel_async::async_connection_wrapper::AsyncConnectionWrapper;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness as _, embed_migrations};

use crate::connection::DatabaseTarget;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations");

/// Held while migrating, so replicas starting together run the migrations once.
const MIGRATION_LOCK: i64 = 0x7075_6c73_656d_6967;

/// A connection for diesel's migration harness, which is synchronous: it runs on a blocking
/// thread and waits on the connection's futures there.
async fn migration_connection(database_url: &str) -> anyhow::Result<AsyncConnectionWrapper<AsyncPgConnection>> {
    let connection = DatabaseTarget::parse(database_url)?.connect().await?;
    Ok(AsyncConnectionWrapper::from(connection))
}

/// Applies the pending migrations and returns their names (`<version>_<name>`), oldest first.
///
/// # Errors
/// When the URL is not valid, the database cannot be reached or a migration fails (the failing
/// one is rolled back).
pub async fn run_migrations(database_url: &str) -> anyhow::Result<Vec<String>> {
    let mut conn = migration_connection(database_url).await?;
    tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<String>> {
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
/// When the URL is not valid or the database cannot be reached.
pub async fn pending_migrations(database_url: &str) -> anyhow::Result<Vec<String>> {
    let mut conn = migration_connection(database_url).await?;
    tokio::task::spawn_blocking(move || -> anyhow::Result<Vec<String>> {
        let pending = conn.pending_migrations(MIGRATIONS).map_err(|e| anyhow::anyhow!("reading migrations: {e}"))?;
        Ok(pending.iter().map(|m| m.name().to_string()).collect())
    })
    .await?
}

#[cfg(test)]
mod tests {
    use diesel::QueryableByName;
    use diesel::sql_types::Text;
    use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl as _};

    use crate::test_db::TestDatabase;

    /// Tables no code path deletes rows from, so nothing looks up the rows that reference them.
    const NEVER_DELETED: [&str; 7] =
        ["api_keys", "businesses", "campaigns", "launch_keys", "service_accounts", "surveys", "workspaces"];

    #[derive(QueryableByName)]
    struct ForeignKey {
        #[diesel(sql_type = Text)]
        child: String,
        #[diesel(sql_type = Text)]
        columns: String,
        #[diesel(sql_type = Text)]
        parent: String,
    }

    /// Deleting a row looks up every row that references it, by the referencing columns; without
    /// an index that leads with them, each deletion reads the referencing table whole (an erasure,
    /// or the purge of a webhook event, would grow with every row ever written).
    #[tokio::test]
    async fn every_foreign_key_to_a_table_rows_are_deleted_from_has_an_index() {
        let database = TestDatabase::create().await;
        let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        // An index serves when its leading columns are the key's, and it has no condition or only
        // that the key is set (a deletion never looks up a null).
        let unindexed: Vec<ForeignKey> = diesel::sql_query(
            "SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent,
                    (SELECT string_agg(a.attname, ',' ORDER BY k.n)
                     FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
                     JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns
             FROM pg_constraint c
             WHERE c.contype = 'f' AND NOT EXISTS (
                 SELECT 1 FROM pg_index i
                 WHERE i.indrelid = c.conrelid
                   AND i.indnkeyatts >= cardinality(c.conkey)
                   AND (i.indkey::int2[])[0:cardinality(c.conkey) - 1] = c.conkey
                   AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = (
                        SELECT format('(%I IS NOT NULL)', a.attname) FROM pg_attribute a
                        WHERE cardinality(c.conkey) = 1 AND a.attrelid = c.conrelid AND a.attnum = c.conkey[1])))
             ORDER BY 1, 3",
        )
        .load(&mut conn)
        .await
        .expect("the schema's foreign keys");

        let looked_up: Vec<String> = unindexed
            .iter()
            .filter(|key| !NEVER_DELETED.contains(&key.parent.as_str()))
            .map(|key| format!("{} ({}) -> {}", key.child, key.columns, key.parent))
            .collect();
        assert!(looked_up.is_empty(), "foreign keys without an index, to tables rows are deleted from: {looked_up:?}");
        // Each table listed is one the query finds keys to, so the list names no table in vain and
        // the query is seen to find keys at all.
        let stale: Vec<&str> =
            NEVER_DELETED.into_iter().filter(|table| !unindexed.iter().any(|key| key.parent == *table)).collect();
        assert!(stale.is_empty(), "listed as never deleted, yet no key without an index references them: {stale:?}");
    }
}
