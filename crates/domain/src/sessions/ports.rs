//! Where respondent sessions and their answers live.
use crate::error::Result;
use crate::ids::{CampaignId, LaunchLinkId, SessionId, WorkspaceId};
use crate::sessions::models::{Completion, NewSession, Progress, SessionRecord, Spend, StoredAnswer, VisitFacts};
use std::future::Future;

/// Respondent sessions and their answers.
pub trait SessionStore: Send + Sync + 'static {
    /// Spends what the start used (a link, or a token's `jti`) and creates the session, in one
    /// transaction; a launch key used is marked used at `started_at`.
    ///
    /// # Errors
    /// `LaunchTokenInvalid` when the link was spent already (also by a concurrent start) or has
    /// expired by `started_at`, or the `jti` was spent already; `LaunchSignatureRequired` for a
    /// start without a token (`Spend::Nothing`) in a campaign that requires signed launches by the
    /// time it is written (the caller may have decided on a copy of the campaign that predates
    /// the setting); `CampaignNotCollecting` when the campaign is not `ACTIVE` by the time it is
    /// written (paused or closed since the caller's copy was read);
    /// `Internal`/`Unavailable` otherwise.
    fn start_session(&self, session: &NewSession, spend: &Spend) -> impl Future<Output = Result<()>> + Send;

    /// How many of the campaign's sessions are completed (the `maxResponses` rule reads it on
    /// every start, so it counts nothing else).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn completed_sessions(&self, campaign: CampaignId) -> impl Future<Output = Result<u64>> + Send;

    /// A session of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_session(
        &self,
        campaign: CampaignId,
        id: SessionId,
    ) -> impl Future<Output = Result<Option<SessionRecord>>> + Send;

    /// Stores the answers (replacing earlier answers to the same questions) unless the session is
    /// completed, and returns the progress.
    ///
    /// # Errors
    /// `Conflict` when the session is completed; `Internal`/`Unavailable` otherwise.
    fn record_answers(
        &self,
        session: SessionId,
        answers: &[StoredAnswer],
    ) -> impl Future<Output = Result<Progress>> + Send;

    /// Marks the session completed at `completion.at` and, in the same transaction, writes the
    /// events of [`Completion::events`] (with the progress read while completing) and their
    /// deliveries to the workspace's subscribed endpoints. A completed session stays as it was and
    /// emits nothing. Returns the progress.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn complete_session(&self, completion: &Completion) -> impl Future<Output = Result<Progress>> + Send;

    /// The workspace's display name, and whether `spent_link` (when given) started a session of
    /// the campaign that is completed.
    ///
    /// # Errors
    /// `NotFound` for an unknown workspace; `Internal`/`Unavailable` otherwise.
    fn visit_facts(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        spent_link: Option<LaunchLinkId>,
    ) -> impl Future<Output = Result<VisitFacts>> + Send;
}
