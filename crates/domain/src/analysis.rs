//! Analysis of finished sessions: the port that reads text answers (sentiment and key phrases).

use std::future::Future;

use time::OffsetDateTime;

use crate::campaign::Quality;
use crate::clock::Clock;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, EventId, SessionId};
use crate::ports::{AnalysisRepository, CampaignRepository, Crypto, DigestPurpose};
use crate::session::{StoredAnswer, answer_seal_context};
use crate::survey::{LanguageTag, QuestionKind};
use crate::webhooks::{AnalyzedCounts, NewEvent, SessionFacts};

/// One model behind the [`Analyzer`] port, as the results' methodology block names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// A stable name, such as `vader`.
    pub name: String,
    /// Changes whenever the model could give another result for the same input: stored results
    /// of an older version are computed again, those of the same version are reused.
    pub version: String,
    /// Primary language subtags (`en`, `de`) the model truly covers; any other gets no result.
    pub languages: Vec<String>,
    /// One sentence for partners on how it works.
    pub description: String,
}

/// The two models of an analyzer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzerInfo {
    pub sentiment: ModelInfo,
    pub themes: ModelInfo,
}

/// A key phrase of one answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyPhrase {
    /// Equal for variants of one phrase (inflections, word order): themes are merged on it.
    pub key: String,
    /// The phrase as people would read it, in lower case: `late delivery`.
    pub label: String,
}

/// Reads text answers. Results must depend only on the text, the language and the version.
pub trait Analyzer: Send + Sync + 'static {
    /// The models, their versions and the languages they cover.
    fn info(&self) -> AnalyzerInfo;

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

pub const MAX_PHRASES_PER_ANSWER: usize = 5;

/// How long a claimed analysis is held before another worker may take it over.
pub const ANALYSIS_LEASE: time::Duration = time::Duration::minutes(5);
/// Sessions claimed per round.
pub const ANALYSIS_BATCH: u32 = 16;

/// One analyzer run on one text answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    Sentiment,
    Themes,
}

impl Step {
    pub const ALL: [Step; 2] = [Step::Sentiment, Step::Themes];

    pub const fn as_str(self) -> &'static str {
        match self {
            Step::Sentiment => "sentiment",
            Step::Themes => "themes",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Why a finished session does not count in the results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rejection {
    /// Finished faster than `quality.minDurationSecs`.
    TooFast,
    /// Answered a smaller share of the questions than `quality.minCoverageRatio`.
    LowCoverage,
    /// Its text answers hold fewer words than `quality.minAnswerWords` in all.
    TooFewWords,
    /// The campaign already had `quality.maxResponses` accepted sessions.
    OverCapacity,
}

impl Rejection {
    pub const ALL: [Rejection; 4] =
        [Rejection::TooFast, Rejection::LowCoverage, Rejection::TooFewWords, Rejection::OverCapacity];

    pub const fn as_str(self) -> &'static str {
        match self {
            Rejection::TooFast => "TOO_FAST",
            Rejection::LowCoverage => "LOW_COVERAGE",
            Rejection::TooFewWords => "TOO_FEW_WORDS",
            Rejection::OverCapacity => "OVER_CAPACITY",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

/// A session's measures and the quality rules' verdict, before the capacity rule (which only the
/// store can apply, counting the campaign's accepted sessions in the same transaction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub duration_secs: u32,
    /// Answered questions over questions, 0 to 1.
    pub coverage: f64,
    /// Words in all text answers.
    pub words: u32,
    pub rejection: Option<Rejection>,
}

/// Applies `quality` to a finished session: the first rule it breaks, in the order duration,
/// coverage, words. The word rule only judges surveys that ask something in words.
pub fn judge(quality: &Quality, input: &SessionInput, asks_for_words: bool) -> Verdict {
    let duration_secs =
        u32::try_from((input.completed_at - input.started_at).whole_seconds().max(0)).unwrap_or(u32::MAX);
    let coverage =
        if input.total == 0 { 1.0 } else { f64::from(input.answered.min(input.total)) / f64::from(input.total) };
    let words = input.answers.iter().filter(|a| a.text_sealed.is_some()).map(|a| a.word_count).sum();
    let rejection = if quality.min_duration_secs.is_some_and(|min| duration_secs < min) {
        Some(Rejection::TooFast)
    } else if quality.min_coverage_ratio.is_some_and(|min| coverage < min) {
        Some(Rejection::LowCoverage)
    } else if asks_for_words && quality.min_answer_words.is_some_and(|min| words < min) {
        Some(Rejection::TooFewWords)
    } else {
        None
    };
    Verdict { duration_secs, coverage, words, rejection }
}

/// An analyzer's result for one answer, as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StepResult {
    pub question_id: String,
    pub step: Step,
    /// The model version that produced it.
    pub version: String,
    /// Keyed digest of the language and the text read.
    pub input_digest: Vec<u8>,
    /// Whether the model covers the answer's language; when not, there is no score and no phrase.
    pub covered: bool,
    /// Sentiment: the compound score.
    pub score: Option<f64>,
    /// Themes: the key phrases, sealed (they are the respondent's words).
    pub phrases_sealed: Option<Vec<u8>>,
}

/// A claimed analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisJob {
    pub session: SessionId,
    /// Proves the claim when recording; a job whose lease ran out may have been claimed again.
    pub claim_token: uuid::Uuid,
    /// Attempts before this one.
    pub attempts: u32,
}

/// What the analysis reads of a finished session.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInput {
    pub facts: SessionFacts,
    pub language: LanguageTag,
    pub started_at: OffsetDateTime,
    pub completed_at: OffsetDateTime,
    pub answered: u32,
    pub total: u32,
    /// Answer writes the respondent made (answering again counts again).
    pub exchanges: u32,
    pub answers: Vec<StoredAnswer>,
    /// Results of an earlier run, reused where input and version are unchanged.
    pub earlier: Vec<StepResult>,
    /// Whether `feedback.analyzed` was already emitted for this session.
    pub announced: bool,
}

/// A finished analysis, recorded in one transaction with its event.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalysisRecord {
    pub session: SessionId,
    pub campaign: CampaignId,
    pub verdict: Verdict,
    /// Applied by the store: a session the quality rules accept is rejected `OVER_CAPACITY` when
    /// the campaign already holds this many accepted sessions.
    pub max_responses: Option<u32>,
    pub results: Vec<StepResult>,
    pub run: u32,
    pub reused: u32,
    pub analyzed_at: OffsetDateTime,
    /// `feedback.analyzed`, on the first analysis only.
    pub event: Option<NewEvent>,
}

/// What a worker did with one session, for its log line (ids and counts only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisSummary {
    pub session: SessionId,
    pub outcome: AnalysisOutcome,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalysisOutcome {
    Recorded {
        accepted: bool,
        rejection: Option<Rejection>,
        run: u32,
        reused: u32,
        announced: bool,
    },
    /// Another worker took the job over after this one's lease ran out.
    ClaimLost,
    /// The session or its campaign is gone.
    Vanished,
    /// An analyzer failed; the job is due again at `retry_at`.
    Failed {
        code: ErrorCode,
        retry_at: OffsetDateTime,
    },
}

/// The associated data binding a session's sealed key phrases to their answer.
pub fn phrases_seal_context(session: SessionId, question_id: &str) -> Vec<u8> {
    format!("phrases\0{session}\0{question_id}").into_bytes()
}

fn input_of(language: &LanguageTag, text: &str) -> Vec<u8> {
    let mut input = Vec::with_capacity(language.as_str().len() + 1 + text.len());
    input.extend_from_slice(language.as_str().as_bytes());
    input.push(0);
    input.extend_from_slice(text.as_bytes());
    input
}

/// Encodes key phrases for sealing.
pub fn encode_phrases(phrases: &[KeyPhrase]) -> Vec<u8> {
    let pairs: Vec<[&str; 2]> = phrases.iter().map(|p| [p.key.as_str(), p.label.as_str()]).collect();
    serde_json::to_vec(&pairs).unwrap_or_default()
}

/// Decodes what [`encode_phrases`] made.
///
/// # Errors
/// `Internal` for bytes that are not such a list.
pub fn decode_phrases(bytes: &[u8]) -> Result<Vec<KeyPhrase>> {
    let pairs: Vec<[String; 2]> = serde_json::from_slice(bytes).map_err(Error::internal)?;
    Ok(pairs.into_iter().map(|[key, label]| KeyPhrase { key, label }).collect())
}

/// Retry delay after `attempts` failed attempts: 1, 2, 4... minutes, at most an hour.
pub fn retry_delay(attempts: u32) -> time::Duration {
    time::Duration::minutes(1_i64 << attempts.min(6)).min(time::Duration::HOUR)
}

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

    /// Analyzes the sessions that are due, up to [`ANALYSIS_BATCH`].
    ///
    /// # Errors
    /// Port errors of the claim; a failure of one session is recorded on its job instead.
    pub async fn run_due(&self) -> Result<Vec<AnalysisSummary>> {
        let now = self.clock.now();
        let jobs = self.repo.claim_analyses(now, now + ANALYSIS_LEASE, ANALYSIS_BATCH).await?;
        let mut summaries = Vec::with_capacity(jobs.len());
        for job in jobs {
            let outcome = match self.analyze(&job).await {
                Ok(outcome) => outcome,
                Err(error) => {
                    let retry_at = self.clock.now() + retry_delay(job.attempts);
                    self.repo.release_analysis(job.session, job.claim_token, retry_at).await?;
                    AnalysisOutcome::Failed { code: error.code(), retry_at }
                }
            };
            summaries.push(AnalysisSummary { session: job.session, outcome });
        }
        Ok(summaries)
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
                };
                match step {
                    Step::Sentiment => {
                        result.score =
                            self.analyzer.sentiment(&text, &input.language).await?.map(|s| s.clamp(-1.0, 1.0));
                        result.covered = result.score.is_some();
                    }
                    Step::Themes => {
                        if let Some(phrases) = self.analyzer.key_phrases(&text, &input.language).await? {
                            let context = phrases_seal_context(input.facts.session, &answer.question_id);
                            result.phrases_sealed = Some(self.crypto.seal(&context, &encode_phrases(&phrases)));
                            result.covered = true;
                        }
                    }
                }
                results.push(result);
            }
        }
        let analyzed_at = self.clock.now();
        let event = (!input.announced).then(|| {
            input.facts.analyzed_event(
                EventId::new_random(),
                AnalyzedCounts { answers: input.answered, exchanges: input.exchanges, run, reused },
                analyzed_at,
            )
        });
        let announced = event.is_some();
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
        };
        Ok(match self.repo.record_analysis(job.claim_token, &record).await? {
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

/// Replaces email addresses, phone numbers and links in `text` with `[email]`, `[phone]` and
/// `[link]`, so that no contact detail reaches an analyzer, a theme or a quote.
pub fn redact_contacts(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let start = rest.find(|c: char| !c.is_whitespace()).unwrap_or(rest.len());
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        if rest.is_empty() {
            break;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (word, tail) = rest.split_at(end);
        // A phone number may be written with spaces: take the following words while they are
        // made of digits and separators.
        let (phone_end, digits) = phone_run(rest);
        if digits >= 7 {
            out.push_str("[phone]");
            rest = trailing_punctuation(&rest[..phone_end], &mut out, &rest[phone_end..]);
            continue;
        }
        let core = word.trim_end_matches(CLOSING_PUNCTUATION);
        let lower = core.to_ascii_lowercase();
        if is_email(core) {
            out.push_str("[email]");
            out.push_str(&word[core.len()..]);
        } else if lower.starts_with("http://") || lower.starts_with("https://") || lower.starts_with("www.") {
            out.push_str("[link]");
            out.push_str(&word[core.len()..]);
        } else {
            out.push_str(word);
        }
        rest = tail;
    }
    out
}

/// Punctuation that may close a sentence or a bracket right after an address or a number.
const CLOSING_PUNCTUATION: [char; 9] = ['.', ',', ';', ':', '!', '?', ')', '"', '\''];

/// Keeps the punctuation that ended a phone number and returns what follows it.
fn trailing_punctuation<'a>(run: &str, out: &mut String, after: &'a str) -> &'a str {
    let kept = run.len() - run.trim_end_matches(CLOSING_PUNCTUATION).len();
    out.push_str(&run[run.len() - kept..]);
    after
}

/// The length of the phone-like run at the start of `text` (digits, spaces and `+-()./`) and
/// how many digits it holds; it ends at the last digit.
fn phone_run(text: &str) -> (usize, usize) {
    let (mut digits, mut end) = (0, 0);
    for (i, c) in text.char_indices() {
        if c.is_ascii_digit() {
            digits += 1;
            end = i + 1;
        } else if !(matches!(c, '+' | '-' | '(' | ')' | '.' | '/') || c == ' ') {
            break;
        }
    }
    let run_end = text[end..].find(|c: char| c.is_whitespace() || c.is_alphanumeric()).map_or(text.len(), |i| end + i);
    (if digits >= 7 { run_end } else { end }, digits)
}

fn is_email(word: &str) -> bool {
    let Some((local, domain)) = word.split_once('@') else { return false };
    !local.is_empty() && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.')
}
