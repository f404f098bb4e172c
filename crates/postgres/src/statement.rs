//! Hand-written SQL that PostgreSQL prepares once per connection. Diesel marks every `sql_query`
//! unsafe to cache, so each call is parsed and planned again; [`Cached`] declares a statement's
//! text fixed (values only ever go in binds), and the connection's statement cache then keys the
//! prepared statement by that text. Beside it, the SQL functions the DSL lacks, declared so that
//! DSL statements need no text fragments.

use diesel::pg::Pg;
use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{Nullable, SingleValue, SqlType, Untyped};
use diesel::{QueryResult, RunQueryDsl};

diesel::define_sql_function! {
    /// SQL's `coalesce` of two values: the first that is not null.
    fn coalesce<T: SqlType + SingleValue>(first: Nullable<T>, second: Nullable<T>) -> Nullable<T>;
}

/// A raw statement, with its binds, whose text never varies with the data.
#[derive(Debug)]
#[must_use = "a statement runs only when loaded or executed"]
pub(crate) struct CachedStatement<Q>(Q);

pub(crate) trait Cached: Sized {
    /// Lets the connection prepare this statement once and reuse it. Only for statements whose
    /// SQL text is the same on every call.
    fn cached(self) -> CachedStatement<Self> {
        CachedStatement(self)
    }
}

impl<Q: QueryFragment<Pg> + Query<SqlType = Untyped>> Cached for Q {}

impl<Q: QueryFragment<Pg>> QueryFragment<Pg> for CachedStatement<Q> {
    fn walk_ast<'b>(&'b self, pass: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        self.0.walk_ast(pass)
    }

    fn is_safe_to_cache_prepared(&self, _backend: &Pg) -> QueryResult<bool> {
        Ok(true)
    }
}

impl<Q> QueryId for CachedStatement<Q> {
    // No type of its own: the text is the cache key.
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl<Q> Query for CachedStatement<Q> {
    type SqlType = Untyped;
}

impl<Q, Conn> RunQueryDsl<Conn> for CachedStatement<Q> {}

#[cfg(all(test, feature = "test-db"))]
mod tests {
    use diesel::sql_types::{Integer, Text};
    use diesel::{QueryableByName, sql_query};
    use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};

    use super::*;
    use crate::test_db::TestDatabase;

    #[derive(QueryableByName)]
    struct Prepared {
        #[diesel(sql_type = Text)]
        statement: String,
    }

    #[derive(QueryableByName)]
    struct Number {
        #[diesel(sql_type = Integer)]
        n: i32,
    }

    #[tokio::test]
    async fn a_cached_statement_is_prepared_once_per_connection_and_a_plain_one_never() {
        let database = TestDatabase::create().await;
        let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        for n in 1..=3 {
            let rows: Vec<Number> =
                sql_query("SELECT $1::int AS n").bind::<Integer, _>(n).cached().load(&mut conn).await.expect("ran");
            assert_eq!(rows[0].n, n);
        }
        let plain: Vec<Number> =
            sql_query("SELECT $1::int + 0 AS n").bind::<Integer, _>(7).load(&mut conn).await.expect("ran");
        assert_eq!(plain[0].n, 7);
        let prepared: Vec<Prepared> =
            sql_query("SELECT statement FROM pg_prepared_statements").load(&mut conn).await.expect("listed");
        let texts: Vec<&str> = prepared.iter().map(|p| p.statement.as_str()).collect();
        assert_eq!(texts.iter().filter(|t| **t == "SELECT $1::int AS n").count(), 1, "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("+ 0")), "a plain sql_query is not kept: {texts:?}");
    }
}
