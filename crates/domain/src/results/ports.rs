//! What results need from the world: the campaign's funnel and the tallies of its analyzed
//! sessions (and, for exports, every analyzed session).

use std::future::Future;

use crate::error::Result;
use crate::ids::{CampaignId, WorkspaceId};
use crate::results::models::{
    Dimension, GroupSize, ResultsFilter, ResultsInput, StoredPhrase, TalliedInput, TrendInput,
};
use crate::shared::time_zone::ZoneOffsets;

/// Reads what results are computed from.
pub trait ResultsRepository: Send + Sync + 'static {
    /// The campaign's funnel and its analyzed sessions, with sealed texts only when
    /// `with_texts`; `None` for an unknown campaign or another workspace's. Linear in the
    /// campaign's sessions: for exports and checks, not for the results route.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> impl Future<Output = Result<Option<ResultsInput>>> + Send;

    /// The campaign's funnel and the summed tallies of the analyzed sessions `filter` selects
    /// (all when `None`): the counters, the themes at least `MIN_THEME_SESSIONS` sessions of the
    /// group mention, `all_accepted` of the whole campaign, with a filter the campaign's accepted
    /// sessions by the conditions they meet (`cells`), and, when `with_quotes`, the quote
    /// candidates of each text question picked as [`crate::results::models::QUOTE_CANDIDATES`] says
    /// (with whether any candidate of the question has a score). `pending` counts finished
    /// sessions whose analysis is not tallied yet, `pending_reanalysis` the campaign's analyses
    /// [`crate::analysis::ports::AnalysisRepository::claim_reanalyses`] would take for the
    /// announced analyzer. `None` for an unknown campaign or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn results_tally(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        with_quotes: bool,
    ) -> impl Future<Output = Result<Option<TalliedInput>>> + Send;

    /// The accepted sessions `filter` selects (all when `None`) by their value of `by`, largest
    /// group first (ties by value), with those lacking the label as one group of value `None`;
    /// empty groups are left out, and so is everything of an unknown campaign or another
    /// workspace's. Linear in the campaign's distinct sets of launch labels, not in its sessions.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn result_groups(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        by: &Dimension,
        filter: Option<&ResultsFilter>,
    ) -> impl Future<Output = Result<Vec<GroupSize>>> + Send;

    /// The campaign's accepted sessions by the local day they were completed on, in the zone
    /// whose `offsets` are given, in day order: per day, the campaign's sessions by which of
    /// `filter`'s conditions they meet (all in cell 0 without a filter) and the
    /// [`crate::results::models::trend_metrics`] counters of those `filter` selects. `None` for
    /// an unknown campaign or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn trend_days(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        offsets: &ZoneOffsets,
    ) -> impl Future<Output = Result<Option<TrendInput>>> + Send;

    /// The campaign's sealed phrases among `wanted` (pairs of key and label digests); unknown
    /// pairs are left out.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn result_phrases(
        &self,
        campaign: CampaignId,
        wanted: &[(Vec<u8>, Vec<u8>)],
    ) -> impl Future<Output = Result<Vec<StoredPhrase>>> + Send;
}
