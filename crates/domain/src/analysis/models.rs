//! Analysis of finished sessions: the quality verdict, analyzer results, contact redaction and the
//! jobs the worker claims.

use crate::campaigns::models::{LanguageTag, Quality};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, SessionId};
use crate::sessions::models::{SessionFacts, StoredAnswer};
use crate::webhooks::models::NewEvent;
use time::OffsetDateTime;

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

impl AnalyzerInfo {
    /// Both models' versions in one text: an analysis that read text is recorded with it, and is
    /// read again in the background once the analyzer in charge has another.
    pub fn fingerprint(&self) -> String {
        format!("sentiment={} themes={}", self.sentiment.version, self.themes.version)
    }
}

/// A key phrase of one answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyPhrase {
    /// Equal for variants of one phrase (inflections, word order): themes are merged on it.
    pub key: String,
    /// The phrase as people would read it, in lower case: `late delivery`.
    pub label: String,
}

pub const MAX_PHRASES_PER_ANSWER: usize = 5;

/// How long a claimed analysis is held before another worker may take it over: a round of a batch
/// takes milliseconds, so this outlasts it many times, and the sessions of a worker that died (or
/// lost the database mid-round) come back within seconds. A round that did outlast it loses only
/// its work: another worker's claim is the one that records.
pub const ANALYSIS_LEASE: time::Duration = time::Duration::seconds(20);

/// When an analysis failed because the database could not be reached, not because of the
/// session: it is tried again this soon.
pub const UNAVAILABLE_RETRY: time::Duration = time::Duration::seconds(5);

/// Sessions claimed per round.
pub const ANALYSIS_BATCH: u32 = 16;

/// Sessions whose text was read by another analyzer, claimed in a round after its due sessions
/// when those did not fill it. A round that re-read any waits for the next poll: the catch-up after
/// an analyzer upgrade goes at most this many sessions per replica and poll, and never ahead of a
/// new completion.
pub const REANALYSIS_BATCH: u32 = 32;

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
    /// The language the answer was read in (see [`Analyzer::language_of`]); `None` for results
    /// stored before answers were identified by their text.
    ///
    /// [`Analyzer::language_of`]: crate::analysis::ports::Analyzer::language_of
    pub language: Option<LanguageTag>,
    /// Whether that is another language than the session's.
    pub other_language: bool,
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
    /// The analyzer's [`AnalyzerInfo::fingerprint`], or `None` when the session had no text to
    /// read (no analyzer upgrade changes its results).
    pub analyzed_with: Option<String>,
}

/// What a worker did with one session, for its log line (ids and counts only).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalysisSummary {
    pub session: SessionId,
    pub outcome: AnalysisOutcome,
    /// Whether the session was analyzed before and is read again under a newer analyzer.
    pub reanalysis: bool,
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
    /// An analyzer failed; the job is due again at `retry_at`, or, when it could not be
    /// `released` (the database is gone), once its lease ends.
    Failed {
        code: ErrorCode,
        retry_at: OffsetDateTime,
        released: bool,
    },
}

/// The associated data binding a session's sealed key phrases to their answer.
pub fn phrases_seal_context(session: SessionId, question_id: &str) -> Vec<u8> {
    format!("phrases\0{session}\0{question_id}").into_bytes()
}

pub(crate) fn input_of(language: &LanguageTag, text: &str) -> Vec<u8> {
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
