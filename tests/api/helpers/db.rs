//! What a test reads in the database behind the API: only to prove what was not stored (a refused
//! call leaves no row; personal data and partner ids never sit there in clear), or to stage what
//! the API cannot.

use super::TestApp;

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[derive(diesel::QueryableByName)]
struct TableName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

impl TestApp {
    async fn db_connection(&self) -> diesel_async::AsyncPgConnection {
        use diesel_async::AsyncConnection as _;
        diesel_async::AsyncPgConnection::establish(self.db.url()).await.expect("test database")
    }

    /// How many rows `table` holds.
    pub async fn count_rows(&self, table: &str) -> i64 {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let row: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM \"{table}\""))
            .get_result(&mut conn)
            .await
            .expect("count");
        row.n
    }

    /// How many rows `SELECT count(*) FROM <from_where>` counts, e.g. `jobs WHERE done`.
    pub async fn count_where(&self, from_where: &str) -> i64 {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let row: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM {from_where}"))
            .get_result(&mut conn)
            .await
            .expect("count");
        row.n
    }

    /// The tables with a row whose text form holds `needle` (bytea columns read as hex, so a sealed
    /// or digested value never matches).
    pub async fn tables_holding(&self, needle: &str) -> Vec<String> {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let tables: Vec<TableName> = diesel::sql_query(
            "SELECT table_name::text AS name FROM information_schema.tables \
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
        )
        .load(&mut conn)
        .await
        .expect("tables");
        assert!(tables.iter().any(|t| t.name == "sessions"), "the schema is visible");
        let mut holding = Vec::new();
        for table in tables {
            let row: Count = diesel::sql_query(format!(
                "SELECT count(*) AS n FROM \"{}\" AS r WHERE strpos(r::text, $1) > 0",
                table.name
            ))
            .bind::<diesel::sql_types::Text, _>(needle)
            .get_result(&mut conn)
            .await
            .expect("scan");
            if row.n > 0 {
                holding.push(table.name);
            }
        }
        holding
    }

    /// Runs one SQL statement against the test database (to stage what the API cannot, such as a
    /// host that resolves elsewhere after registration).
    pub async fn execute_sql(&self, sql: &str) {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        diesel::sql_query(sql).execute(&mut conn).await.expect("statement");
    }
}
