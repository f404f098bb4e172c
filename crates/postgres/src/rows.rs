//! Rows of one column that queries of several modules read.

use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use uuid::Uuid;

/// An `id` column.
#[derive(QueryableByName)]
pub(crate) struct IdRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) id: Uuid,
}

/// A count, as a `bigint` column named `n`.
#[derive(QueryableByName)]
pub(crate) struct RowCount {
    #[diesel(sql_type = BigInt)]
    pub(crate) n: i64,
}
