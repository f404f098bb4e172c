//! One place that turns database failures into domain errors.

use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::pooled_connection::deadpool::PoolError;
use pulse_domain::Error;

pub(crate) fn from_pool(error: PoolError) -> Error {
    Error::Unavailable(format!("database connection: {error}"))
}

pub(crate) fn from_diesel(error: DieselError) -> Error {
    match error {
        DieselError::DatabaseError(DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand, _) => {
            Error::Unavailable("database connection lost".to_owned())
        }
        DieselError::DatabaseError(DatabaseErrorKind::Unknown, info) if server_going_away(info.message()) => {
            Error::Unavailable("the database is shutting down or restarting".to_owned())
        }
        other => Error::internal(other),
    }
}

/// The server's own words when it ends a session it is shutting down or is not ready for one
/// (SQLSTATE class 57: 57P01, 57P02, 57P03); the driver hands over the message, not the code.
fn server_going_away(message: &str) -> bool {
    message.starts_with("terminating connection due to") || message.starts_with("the database system is")
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
