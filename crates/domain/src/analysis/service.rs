//! The analysis worker's service.

use crate::analysis::models::{
    ANALYSIS_BATCH, ANALYSIS_LEASE, AnalysisJob, AnalysisOutcome, AnalysisRecord, AnalysisSummary, REANALYSIS_BATCH,
    Step, StepResult, UNAVAILABLE_RETRY, encode_phrases, input_of, judge, phrases_seal_context, redact_contacts,
    retry_delay,
};
use crate::analysis::ports::{AnalysisRepository, Analyzer};
use crate::campaigns::models::QuestionKind;
use crate::campaigns::ports::CampaignRepository;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, EventId};
use crate::results::models::AnalyzedAnswer;
use crate::results::service::tally_session;
use crate::sessions::models::{AnalyzedCounts, answer_seal_context};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};

/// The analysis worker's service: claims finished sessions, applies the quality rules, runs the
/// analyzers on text answers (reusing unchanged results), and records the outcome with
/// `feedback.analyzed`.
pub struct Analysis<R, A, C, K> {
    repo: R,
    analyzer: A,
    crypto: C,
    clock: K,
}

impl<R, A, C, K> Analysis<R, A, C, K>
where
    R: AnalysisRepository + CampaignRepository,
    A: Analyzer,
    C: Crypto,
    K: Clock,
{
    pub fn new(repo: R, analyzer: A, crypto: C, clock: K) -> Self {
        Self { repo, analyzer, crypto, clock }
    }

    /// Puts this analyzer in charge of what analyses are recorded with (see
    /// [`AnalysisRepository::announce_analyzer`]); a replica does so when its worker starts.
    ///
    /// # Errors
    /// Port errors.
    pub async fn announce(&self) -> Result<()> {
        self.repo.announce_analyzer(&self.analyzer.info().fingerprint(), self.clock.now()).await
    }

    /// Analyzes the sessions that are due, up to [`ANALYSIS_BATCH`]; then, when they did not fill
    /// the round and this analyzer is in charge, reads again up to [`REANALYSIS_BATCH`] sessions
    /// analyzed under another.
    ///
    /// # Errors
    /// Port errors of the first claim; a failure of one session is recorded on its job instead,
    /// and a failed claim of sessions to read again leaves them to a later round.
    pub async fn run_due(&self) -> Result<Vec<AnalysisSummary>> {
        let now = self.clock.now();
        let jobs = self.repo.claim_analyses(now, now + ANALYSIS_LEASE, ANALYSIS_BATCH).await?;
        let full = jobs.len() >= ANALYSIS_BATCH as usize;
        let mut summaries = Vec::with_capacity(jobs.len());
        self.analyze_all(jobs, false, &mut summaries).await;
        if !full {
            let now = self.clock.now();
            let fingerprint = self.analyzer.info().fingerprint();
            match self.repo.claim_reanalyses(&fingerprint, now + ANALYSIS_LEASE, REANALYSIS_BATCH).await {
                Ok(stale) => self.analyze_all(stale, true, &mut summaries).await,
                Err(error) if summaries.is_empty() => return Err(error),
                Err(_) => {}
            }
        }
        Ok(summaries)
    }

    async fn analyze_all(&self, jobs: Vec<AnalysisJob>, reanalysis: bool, summaries: &mut Vec<AnalysisSummary>) {
        for job in jobs {
            let outcome = match self.analyze(&job).await {
                Ok(outcome) => outcome,
                Err(error) => {
                    // A database blip is no fault of the session: soon again, not on the schedule.
                    let delay = if error.code() == ErrorCode::Unavailable {
                        UNAVAILABLE_RETRY
                    } else {
                        retry_delay(job.attempts)
                    };
                    let retry_at = self.clock.now() + delay;
                    // A release that fails (the database is gone) leaves the job to its lease; the
                    // round goes on with the others rather than holding them all under theirs.
                    let released = self.repo.release_analysis(job.session, job.claim_token, retry_at).await.is_ok();
                    AnalysisOutcome::Failed { code: error.code(), retry_at, released }
                }
            };
            summaries.push(AnalysisSummary { session: job.session, outcome, reanalysis });
        }
    }

    async fn analyze(&self, job: &AnalysisJob) -> Result<AnalysisOutcome> {
        let Some(input) = self.repo.analysis_input(job.session).await? else {
            return Ok(AnalysisOutcome::Vanished);
        };
        let Some((campaign, survey)) = self.repo.find_campaign_by_code(&input.facts.public_ref).await? else {
            return Ok(AnalysisOutcome::Vanished);
        };
        let asks_for_words = survey.questions.iter().any(|q| q.kind == QuestionKind::Text);
        let verdict = judge(&campaign.quality, &input, asks_for_words);
        let info = self.analyzer.info();
        let (mut run, mut reused) = (0_u32, 0_u32);
        let mut results = Vec::new();
        for answer in &input.answers {
            let Some(sealed) = &answer.text_sealed else { continue };
            let opened = self.crypto.open(&answer_seal_context(input.facts.session, &answer.question_id), sealed)?;
            let text = redact_contacts(&String::from_utf8(opened).map_err(Error::internal)?);
            if text.trim().is_empty() {
                continue;
            }
            let input_digest =
                self.crypto.keyed_digest(DigestPurpose::AnalysisInput, &input_of(&input.language, &text));
            let language = self.analyzer.language_of(&text, &input.language);
            let other_language = language.primary() != input.language.primary();
            for step in Step::ALL {
                let version = match step {
                    Step::Sentiment => &info.sentiment.version,
                    Step::Themes => &info.themes.version,
                };
                let earlier = input.earlier.iter().find(|r| {
                    r.question_id == answer.question_id
                        && r.step == step
                        && r.version == *version
                        && r.input_digest == input_digest
                });
                if let Some(earlier) = earlier {
                    reused += 1;
                    results.push(earlier.clone());
                    continue;
                }
                run += 1;
                let mut result = StepResult {
                    question_id: answer.question_id.clone(),
                    step,
                    version: version.clone(),
                    input_digest: input_digest.clone(),
                    covered: false,
                    score: None,
                    phrases_sealed: None,
                    language: Some(language.clone()),
                    other_language,
                };
                match step {
                    Step::Sentiment => {
                        result.score = self.analyzer.sentiment(&text, &language).await?.map(|s| s.clamp(-1.0, 1.0));
                        result.covered = result.score.is_some();
                    }
                    Step::Themes => {
                        if let Some(phrases) = self.analyzer.key_phrases(&text, &language).await? {
                            let context = phrases_seal_context(input.facts.session, &answer.question_id);
                            result.phrases_sealed = Some(self.crypto.seal(&context, &encode_phrases(&phrases)));
                            result.covered = true;
                        }
                    }
                }
                results.push(result);
            }
        }
        let answers: Vec<AnalyzedAnswer> = input
            .answers
            .iter()
            .map(|a| AnalyzedAnswer::new(a.question_id.clone(), a.rating, a.text_sealed.clone(), &results))
            .collect();
        let tally = tally_session(&self.crypto, campaign.id, input.facts.session, &verdict, &answers)?;
        let analyzed_at = self.clock.now();
        let event = (!input.announced).then(|| {
            input.facts.analyzed_event(
                EventId::new_random(),
                AnalyzedCounts { answers: input.answered, exchanges: input.exchanges, run, reused },
                analyzed_at,
            )
        });
        let announced = event.is_some();
        let analyzed_with = (!results.is_empty()).then(|| info.fingerprint());
        let record = AnalysisRecord {
            session: input.facts.session,
            campaign: campaign.id,
            verdict,
            max_responses: campaign.quality.max_responses,
            results,
            run,
            reused,
            analyzed_at,
            event,
            analyzed_with,
        };
        Ok(match self.repo.record_analysis(job.claim_token, &record, &tally).await? {
            Some(rejection) => {
                AnalysisOutcome::Recorded { accepted: rejection.is_none(), rejection, run, reused, announced }
            }
            None => AnalysisOutcome::ClaimLost,
        })
    }

    /// Queues every finished session of the campaign for another analysis (after an analyzer
    /// upgrade): unchanged results are reused and no second `feedback.analyzed` is emitted.
    ///
    /// # Errors
    /// `NotFound` for an unknown campaign; port errors.
    pub async fn rerun(&self, campaign: CampaignId) -> Result<u64> {
        self.repo.requeue_analyses(campaign, self.clock.now()).await?.ok_or_else(|| Error::not_found("campaign"))
    }
}
