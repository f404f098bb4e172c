//! The answer every erasure route gives.

use serde::Serialize;
use utoipa::ToSchema;

#[derive(Debug, Serialize, ToSchema)]
pub struct ErasureResponse {
    /// `true` when the subject was found and erased now; `false` when there is none: unknown,
    /// erased already or another workspace's, which look alike.
    pub erased: bool,
}
