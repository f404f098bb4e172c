//! The partner route of aggregate results.

use crate::analysis::models::{AnalyzerInfo, Verdict, decode_phrases, phrases_seal_context, redact_contacts};
use crate::error::{Error, Result};
use crate::ids::{CampaignId, SessionId, WorkspaceId};
use crate::results::models::{
    AnalyzedAnswer, AnalyzedSession, AnswerTally, BREAKDOWN_THEMES, Breakdown, BreakdownRow, CampaignResults,
    Dimension, GroupSize, Interval, MAX_BREAKDOWN_ROWS, OpenedSession, OpenedTally, PhraseMention, QuoteCandidate,
    ResultsFilter, RowMeasures, RowSuppression, SealedQuote, SessionTally, Subtag, TalliedInput, Transcript, Trend,
    TrendRequest, Unlisted, compute, compute_tallied, compute_trend, decode_phrase, encode_phrase, phrase_key_input,
    phrase_label_input, phrase_seal_context, quote_seal_context, suppress_complements, wanted_phrases,
};
use crate::results::ports::ResultsRepository;
use crate::sessions::models::answer_seal_context;
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use crate::shared::time_zone::{TimeZoneName, ZoneOffsets};
use crate::tenancy::models::{Principal, Scope};
use std::collections::HashMap;

/// The partner route of results.
pub struct Results<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    analyzer: AnalyzerInfo,
}

impl<R: ResultsRepository, C: Crypto, K: Clock> Results<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K, analyzer: AnalyzerInfo) -> Self {
        Self { repo, crypto, clock, analyzer }
    }

    /// The campaign's aggregate results, for the group the filter selects.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:results`; workspace resolution errors;
    /// `NotFound` for an unknown campaign or another workspace's; port errors.
    pub async fn results(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        filter: Option<ResultsFilter>,
    ) -> Result<CampaignResults> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let may_quote = principal.require_scope(Scope::TRANSCRIPTS).is_ok();
        let input = self
            .repo
            .results_tally(workspace, id, filter.as_ref(), may_quote)
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        let opened = self.open_tally(&input).await?;
        compute_tallied(&input, &opened, filter, may_quote, &self.analyzer, self.clock.now())
    }

    /// The group the filter selects, one row per value of `by`: each row's count, and its
    /// measures where the floor and complementary suppression allow.
    ///
    /// # Errors
    /// As [`Results::results`].
    pub async fn breakdown(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        by: Dimension,
        filter: Option<ResultsFilter>,
    ) -> Result<Breakdown> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let whole = self.tallied(workspace, id, filter.clone()).await?;
        let floor = u64::from(whole.anonymity_floor);
        let groups = self.repo.result_groups(workspace, id, &by, filter.as_ref()).await?;
        let (listed, rest) = groups.split_at(groups.len().min(MAX_BREAKDOWN_ROWS));
        let unlisted = Unlisted { groups: rest.len() as u64, accepted: rest.iter().map(|g| g.accepted).sum() };
        let mut rows = Vec::with_capacity(listed.len());
        for group in listed {
            rows.extend(self.row_of(workspace, id, &whole, &by, filter.as_ref(), group).await?);
        }
        suppress_complements(&mut rows, unlisted, floor);
        Ok(Breakdown {
            campaign: whole.campaign,
            by,
            filter,
            accepted_count: whole.accepted_count,
            anonymity_floor: whole.anonymity_floor,
            suppression: whole.methodology.suppression,
            rows,
            unlisted,
            generated_at: whole.generated_at,
        })
    }

    /// A breakdown's row: the measures of its own view (the filter and its value) when they
    /// show, else why not; `None` for a value the filter's own conditions rule out.
    async fn row_of(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
        whole: &CampaignResults,
        by: &Dimension,
        filter: Option<&ResultsFilter>,
        group: &GroupSize,
    ) -> Result<Option<BreakdownRow>> {
        let row = |measures, suppression| BreakdownRow {
            value: group.value.clone(),
            accepted: group.accepted,
            measures,
            suppression,
        };
        let hidden = |reason: RowSuppression| Ok(Some(row(None, Some(reason))));
        if let Some(reason) = whole.methodology.suppression {
            return hidden(reason.into());
        }
        let Some(value) = &group.value else { return hidden(RowSuppression::Unlabelled) };
        if group.accepted < u64::from(whole.anonymity_floor) {
            return hidden(RowSuppression::GroupBelowFloor);
        }
        let Some(narrower) = filter.cloned().unwrap_or_default().and(&by.condition(value)) else { return Ok(None) };
        let results = self.tallied(workspace, id, Some(narrower)).await?;
        if let Some(reason) = results.methodology.suppression {
            return hidden(reason.into());
        }
        let measures = RowMeasures {
            overall_sentiment_score: results.overall_sentiment_score,
            sentiment: results.sentiment,
            csat: results.csat,
            nps: results.nps,
            themes: results.themes.into_iter().take(BREAKDOWN_THEMES).collect(),
        };
        Ok(Some(row(Some(measures), None)))
    }

    /// The group the request's filter selects over time, in buckets of whole blocks.
    ///
    /// # Errors
    /// As [`Results::results`].
    pub async fn trend(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        request: TrendRequest,
    ) -> Result<Trend> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let now = self.clock.now();
        let offsets = ZoneOffsets::of(&request.zone, now);
        let input = self
            .repo
            .trend_days(workspace, id, request.filter.as_ref(), &offsets)
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        Ok(compute_trend(&input, &request, now))
    }

    /// The whole campaign week by week in UTC, as an export takes it; `None` for an unknown
    /// campaign or another workspace's.
    ///
    /// # Errors
    /// Port errors.
    pub async fn campaign_trend(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<Trend>> {
        let now = self.clock.now();
        let zone = TimeZoneName::utc();
        let offsets = ZoneOffsets::of(&zone, now);
        let Some(input) = self.repo.trend_days(workspace, id, None, &offsets).await? else { return Ok(None) };
        let request = TrendRequest { interval: Interval::Week, from: None, to: None, zone, filter: None };
        Ok(Some(compute_trend(&input, &request, now)))
    }

    /// The group's results from the tallies, without quotes.
    async fn tallied(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
        filter: Option<ResultsFilter>,
    ) -> Result<CampaignResults> {
        let input = self
            .repo
            .results_tally(workspace, id, filter.as_ref(), false)
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        let opened = self.open_tally(&input).await?;
        compute_tallied(&input, &opened, filter, false, &self.analyzer, self.clock.now())
    }

    /// The same results computed from every analyzed answer (linear in the campaign's sessions):
    /// what the maintained tallies must always agree with.
    ///
    /// # Errors
    /// As [`Results::results`].
    pub async fn results_from_answers(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        filter: Option<ResultsFilter>,
    ) -> Result<CampaignResults> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let may_quote = principal.require_scope(Scope::TRANSCRIPTS).is_ok();
        let input =
            self.repo.results_input(workspace, id, may_quote).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let opened = open_sessions(&self.crypto, input.sessions.iter().filter(|s| s.rejection.is_none()))?;
        Ok(compute(&input, &opened, filter, may_quote, &self.analyzer, self.clock.now()))
    }

    /// Opens the phrases of the tally's themes and its quote candidates.
    async fn open_tally(&self, input: &TalliedInput) -> Result<OpenedTally> {
        let campaign = input.campaign.id;
        let mut opened = OpenedTally::default();
        let wanted = wanted_phrases(&input.tally);
        if !wanted.is_empty() {
            for stored in self.repo.result_phrases(campaign, &wanted).await? {
                let context = phrase_seal_context(campaign, &stored.key_digest, &stored.label_digest);
                let phrase = decode_phrase(&self.crypto.open(&context, &stored.sealed)?)?;
                opened.phrases.insert((stored.key_digest, stored.label_digest), phrase);
            }
        }
        for quote in &input.tally.quotes {
            let bytes = self.crypto.open(&quote_seal_context(quote.session, &quote.question_id), &quote.sealed)?;
            opened.quotes.push(QuoteCandidate {
                question_id: quote.question_id.clone(),
                session: quote.session,
                score: quote.score,
                text: String::from_utf8(bytes).map_err(Error::internal)?,
            });
        }
        Ok(opened)
    }

    /// The whole campaign's results as an export takes them (the floor applied, no quotes) and,
    /// when `with_texts`, every accepted answer's text with contact details redacted, sorted so
    /// that no person's answers stand together; `None` for an unknown campaign or another
    /// workspace's.
    ///
    /// # Errors
    /// Port errors.
    pub async fn campaign_results(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
        with_texts: bool,
    ) -> Result<Option<(CampaignResults, Vec<Transcript>)>> {
        let Some(input) = self.repo.results_input(workspace, id, with_texts).await? else { return Ok(None) };
        let opened = open_sessions(&self.crypto, input.sessions.iter().filter(|s| s.rejection.is_none()))?;
        let results = compute(&input, &opened, None, false, &self.analyzer, self.clock.now());
        let mut transcripts: Vec<Transcript> = opened
            .values()
            .flat_map(|session| session.texts.iter())
            .map(|(question, text)| Transcript { question_id: question.clone(), text: redact_contacts(text) })
            .collect();
        transcripts.sort_by(|a, b| (&a.question_id, &a.text).cmp(&(&b.question_id, &b.text)));
        Ok(Some((results, transcripts)))
    }
}

fn open_sessions<'a, C: Crypto>(
    crypto: &C,
    sessions: impl Iterator<Item = &'a AnalyzedSession>,
) -> Result<HashMap<SessionId, OpenedSession>> {
    let mut opened = HashMap::new();
    for session in sessions {
        let mut readable = OpenedSession::default();
        for answer in &session.answers {
            if let Some(sealed) = &answer.phrases_sealed {
                let bytes = crypto.open(&phrases_seal_context(session.session, &answer.question_id), sealed)?;
                readable.phrases.insert(answer.question_id.clone(), decode_phrases(&bytes)?);
            }
            if let Some(sealed) = &answer.text_sealed {
                let bytes = crypto.open(&answer_seal_context(session.session, &answer.question_id), sealed)?;
                readable.texts.insert(answer.question_id.clone(), String::from_utf8(bytes).map_err(Error::internal)?);
            }
        }
        opened.insert(session.session, readable);
    }
    Ok(opened)
}

/// What an analyzed session adds to its campaign's results: its measures, each answer's rating
/// and scores, its key phrases as keyed digests (each phrase sealed for the campaign) and its
/// quotable text (trimmed, contacts redacted, sealed). `answers` must carry their texts.
///
/// # Errors
/// `Internal` when a sealed text or phrase list does not open.
pub fn tally_session<C: Crypto>(
    crypto: &C,
    campaign: CampaignId,
    session: SessionId,
    verdict: &Verdict,
    answers: &[AnalyzedAnswer],
) -> Result<SessionTally> {
    let mut tallies = Vec::with_capacity(answers.len());
    for answer in answers {
        let mut phrases: Vec<PhraseMention> = Vec::new();
        if let Some(sealed) = &answer.phrases_sealed {
            let bytes = crypto.open(&phrases_seal_context(session, &answer.question_id), sealed)?;
            for phrase in decode_phrases(&bytes)? {
                let key_digest =
                    crypto.keyed_digest(DigestPurpose::ResultsPhrase, &phrase_key_input(campaign, &phrase));
                let label_digest =
                    crypto.keyed_digest(DigestPurpose::ResultsPhrase, &phrase_label_input(campaign, &phrase));
                match phrases.iter_mut().find(|p| p.key_digest == key_digest && p.label_digest == label_digest) {
                    Some(known) => known.mentions += 1,
                    None => {
                        let context = phrase_seal_context(campaign, &key_digest, &label_digest);
                        phrases.push(PhraseMention {
                            phrase_sealed: crypto.seal(&context, &encode_phrase(&phrase)),
                            key_digest,
                            label_digest,
                            mentions: 1,
                        });
                    }
                }
            }
        }
        let mut quote = None;
        if let Some(sealed) = &answer.text_sealed {
            let bytes = crypto.open(&answer_seal_context(session, &answer.question_id), sealed)?;
            let text = redact_contacts(String::from_utf8(bytes).map_err(Error::internal)?.trim());
            if !text.is_empty() {
                quote = Some(SealedQuote {
                    len: u32::try_from(text.len()).unwrap_or(u32::MAX),
                    sealed: crypto.seal(&quote_seal_context(session, &answer.question_id), text.as_bytes()),
                });
            }
        }
        tallies.push(AnswerTally {
            question_id: answer.question_id.clone(),
            rating: answer.rating,
            text_analyzed: answer.text_analyzed,
            sentiment_covered: answer.sentiment_covered,
            score: answer.score,
            language: answer.language.as_ref().map(Subtag::of),
            other_language: answer.other_language,
            quote,
            phrases,
        });
    }
    Ok(SessionTally { duration_secs: verdict.duration_secs, coverage: verdict.coverage, answers: tallies })
}
