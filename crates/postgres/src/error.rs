//! One place that turns database failures into domain errors.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::pooled_connection::deadpool::PoolError;
use pulse_domain::Error;

pub(crate) fn from_pool(error: PoolError) -> Error {
    Error::Unavailable(format!("database connection: {error}"))
}

pub(crate) fn from_diesel(error: DieselError) -> Error {
    match error {
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection, _) => {
            Error::Unavailable("database connection closed".to_owned())
        }
        other => Error::internal(other),
    }
}

/// The name of the violated constraint, when `error` is a unique or foreign key violation.
pub(crate) fn violated_constraint(error: &DieselError) -> Option<(DatabaseErrorKind, String)> {
    match error {
        DieselError::DatabaseError(
            kind @ (DatabaseErrorKind::UniqueViolation | DatabaseErrorKind::ForeignKeyViolation),
            info,
        ) => Some((*kind, info.constraint_name().unwrap_or_default().to_owned())),
        _ => None,
    }
}
