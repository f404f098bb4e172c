//! The analyzer (sentiment and key phrases of a text) and where analyses are kept.

use crate::analysis::models::{AnalysisJob, AnalysisRecord, AnalyzerInfo, KeyPhrase, Rejection, SessionInput};
use crate::campaigns::models::LanguageTag;
use crate::error::Result;
use crate::ids::{CampaignId, SessionId};
use crate::results::models::SessionTally;
use std::future::Future;
use time::OffsetDateTime;
use uuid::Uuid;

/// The analysis jobs (one per finished session, queued with its `feedback.received` outbox row)
/// and what results are computed from.
pub trait AnalysisRepository: Send + Sync + 'static {
    /// Claims up to `limit` jobs not done and due at `now` (a claimed job is due again at
    /// `lease_until`, should its worker die), each under a fresh claim token. Workers never
    /// claim the same job at once.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<AnalysisJob>>> + Send;

    /// What the analysis of a finished session reads; `None` when the session is gone.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn analysis_input(&self, session: SessionId) -> impl Future<Output = Result<Option<SessionInput>>> + Send;

    /// In one transaction, while `claim_token` still holds the job: applies the capacity rule
    /// (counting the campaign's accepted sessions under a lock of the campaign), stores the
    /// verdict and the step results (replacing earlier ones), keeps the session's `tally` under
    /// the final verdict in place of its earlier one (the campaign's maintained results are then
    /// exactly the sum of its sessions' tallies), emits the event when there is one, and marks
    /// the job done. Returns the final rejection (`None` = accepted), or `None` at the outer level
    /// when the claim was lost and nothing was written.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_analysis(
        &self,
        claim_token: Uuid,
        record: &AnalysisRecord,
        tally: &SessionTally,
    ) -> impl Future<Output = Result<Option<Option<Rejection>>>> + Send;

    /// Gives a failed job back, due again at `retry_at`, one attempt more; a lost claim is a no-op.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn release_analysis(
        &self,
        session: SessionId,
        claim_token: Uuid,
        retry_at: OffsetDateTime,
    ) -> impl Future<Output = Result<()>> + Send;

    /// Puts the analyzer `analyzed_with` (an [`crate::analysis::models::AnalyzerInfo::fingerprint`])
    /// in charge as of `started_at`, unless one announced with a later start is: the replica that
    /// started last decides, so during a rolling upgrade the replicas left on the older analyzer
    /// stop re-reading, and a rollback puts the older one back in charge.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn announce_analyzer(
        &self,
        analyzed_with: &str,
        started_at: OffsetDateTime,
    ) -> impl Future<Output = Result<()>> + Send;

    /// When `analyzed_with` is the analyzer in charge: claims, as [`Self::claim_analyses`] does, up
    /// to `limit` done jobs whose analysis read text under another analyzer, or was recorded by a
    /// version of Pulse that did not say which. Nothing when another analyzer is in charge, or none
    /// was announced.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_reanalyses(
        &self,
        analyzed_with: &str,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<AnalysisJob>>> + Send;

    /// Makes every job of the campaign due at `now` again; the number queued, or `None` for an
    /// unknown campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn requeue_analyses(
        &self,
        campaign: CampaignId,
        now: OffsetDateTime,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;
}

/// Reads text answers. Results must depend only on the text, the language and the version.
pub trait Analyzer: Send + Sync + 'static {
    /// The models, their versions and the languages they cover.
    fn info(&self) -> AnalyzerInfo;

    /// The language `text` is read in: the one it is written in when the analyzer can tell, and
    /// `asked_in` (the session's) when the text is short or unclear, or the analyzer cannot tell
    /// languages apart. Pure: the same text and language give the same answer.
    fn language_of(&self, text: &str, asked_in: &LanguageTag) -> LanguageTag {
        let _ = text;
        asked_in.clone()
    }

    /// The sentiment of `text` as a compound score from -1 (most negative) to 1 (most positive),
    /// or `None` when `language` is not one the sentiment model covers: a score is never guessed.
    ///
    /// # Errors
    /// `Unavailable` or `Internal` for a model behind a network; the built-in one never fails.
    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send;

    /// At most [`MAX_PHRASES_PER_ANSWER`] key phrases of `text`, most important first, none made of
    /// stop words only; `None` when `language` is not one the theme model covers.
    ///
    /// # Errors
    /// As [`Analyzer::sentiment`].
    fn key_phrases(
        &self,
        text: &str,
        language: &LanguageTag,
    ) -> impl Future<Output = Result<Option<Vec<KeyPhrase>>>> + Send;
}

impl<A: Analyzer> Analyzer for std::sync::Arc<A> {
    fn info(&self) -> AnalyzerInfo {
        (**self).info()
    }

    fn language_of(&self, text: &str, asked_in: &LanguageTag) -> LanguageTag {
        (**self).language_of(text, asked_in)
    }

    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send {
        (**self).sentiment(text, language)
    }

    fn key_phrases(
        &self,
        text: &str,
        language: &LanguageTag,
    ) -> impl Future<Output = Result<Option<Vec<KeyPhrase>>>> + Send {
        (**self).key_phrases(text, language)
    }
}
