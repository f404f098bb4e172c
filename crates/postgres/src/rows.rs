//! What the modules share to read rows: rows of one column, and the conversions between stored
//! and domain numbers.

use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Uuid as SqlUuid};
use pulse_domain::Error;
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

/// A stored value this version does not know: the row was written by another version or by hand.
pub(crate) fn corrupt(row: &str, what: &str) -> Error {
    Error::internal(format!("a stored {row} row has an unknown {what}"))
}

/// A stored count or attempt number; never negative, by the table's checks.
pub(crate) fn to_u32(n: i32) -> u32 {
    u32::try_from(n).unwrap_or(0)
}

pub(crate) fn to_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A stored `count(*)` or sum; never negative.
pub(crate) fn count_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

pub(crate) fn limit_of(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}
