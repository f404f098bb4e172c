//! What results need from the world: the campaign's funnel and its analyzed sessions.

use std::future::Future;

use crate::error::Result;
use crate::ids::{CampaignId, WorkspaceId};
use crate::results::models::ResultsInput;

/// Reads what results are computed from.
pub trait ResultsRepository: Send + Sync + 'static {
    /// The campaign's funnel and its analyzed sessions, with sealed texts only when
    /// `with_texts`; `None` for an unknown campaign or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> impl Future<Output = Result<Option<ResultsInput>>> + Send;
}
