//! Results maintained as sessions are analyzed. When a session's analysis is recorded, the domain
//! computes what the session adds to its campaign's results (its [`SessionTally`]); the store keeps
//! it per session (for filters) and adds it to the campaign's sums (for the unfiltered view), in
//! the same transaction. A read gets a [`GroupTally`] (the sums of the sessions a filter selects)
//! and [`compute_tallied`] turns it into the same [`CampaignResults`] that [`super::compute`] makes
//! from every answer.
//!
//! Nothing here holds a respondent's words in the clear: theme phrases travel as keyed digests
//! (for grouping) with the phrase sealed once per campaign, and quote texts are sealed per answer.

use crate::analysis::models::{AnalyzerInfo, KeyPhrase, Rejection};
use crate::campaigns::models::{Campaign, CampaignCounts, LanguageTag, QuestionKind, Survey};
use crate::error::{Error, Result};
use crate::ids::{CampaignId, SessionId};
use crate::results::models::{
    CampaignResults, ConditionCells, MAX_QUOTES_PER_QUESTION, MIN_THEME_SESSIONS, ResultsFilter, SentimentLabel,
    ThemeCount, attribute_text,
};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use time::OffsetDateTime;

use super::aggregate::{
    Frame, GroupTotals, QuestionTotals, QuoteCandidate, Request, Shown, finish, most_written, order_themes, pick_from,
};

/// Analyzers give scores (-1 to 1) to four decimals (VADER rounds its compound so): a score is a
/// whole number of these units, so sums of scores are exact integers, in any order.
pub const SCORE_UNITS: i64 = 10_000;

/// A session's score (the mean of its answers' scores) and its coverage (0 to 1) are rounded once,
/// per session, to these units and then summed exactly.
pub const FINE_UNITS: i64 = 100_000_000;

/// A score in [`SCORE_UNITS`].
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub fn score_units(score: f64) -> i64 {
    (score * SCORE_UNITS as f64).round() as i64
}

/// A coverage in [`FINE_UNITS`].
#[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
pub fn fine_units(value: f64) -> i64 {
    (value * FINE_UNITS as f64).round() as i64
}

/// The mean of `count` values that sum to `sum` in `units` to the unit: one division, so it is the
/// number nearest the exact mean. Both computations (from every answer and from tallies) take every
/// mean of scores and coverages from here.
#[allow(clippy::cast_precision_loss)]
pub fn mean_of(sum: i64, count: u64, units: i64) -> Option<f64> {
    (count > 0).then(|| sum as f64 / (count as f64 * units as f64))
}

/// A session's score in [`FINE_UNITS`]: the mean of its answers' scores, rounded half away from
/// zero; `None` without scores.
pub fn session_score(scores: impl IntoIterator<Item = f64>) -> Option<i64> {
    let (sum, n) = scores.into_iter().fold((0_i64, 0_i64), |(sum, n), s| (sum + score_units(s), n + 1));
    (n > 0).then(|| {
        let scaled = sum * (FINE_UNITS / SCORE_UNITS);
        (2 * scaled + scaled.signum() * n) / (2 * n)
    })
}

/// The label of a session's score (in [`FINE_UNITS`]).
pub fn session_label(score: i64) -> SentimentLabel {
    SentimentLabel::of(mean_of(score, 1, FINE_UNITS).unwrap_or(0.0))
}

/// The scope of the campaign-wide themes; per-question themes are scoped by the question id.
pub const ALL_QUESTIONS: &str = "";

/// What a counter counts. Every counter is a sum of `n` over sessions, keyed by its metric (stored
/// as its [`Metric::code`], with reasons and labels by their own codes), a question id (empty when
/// none) and a value (a bucket, such as a rating or a duration; 0 when none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Analyzed sessions.
    Analyzed,
    /// Accepted sessions.
    Accepted,
    /// Sessions rejected for the reason.
    Rejection(Rejection),
    /// Accepted sessions by duration; the value is the duration in seconds.
    Duration,
    /// The coverage of accepted sessions, summed in [`FINE_UNITS`].
    Coverage,
    /// Text answers of accepted sessions the sentiment model read, and those it does not cover.
    ScoredAnswers,
    UnscoredAnswers,
    /// Accepted sessions whose score has the label.
    SessionSentiment(SentimentLabel),
    /// The scores of accepted sessions, summed in [`FINE_UNITS`].
    SessionScore,
    /// Accepted sessions that answered the question.
    Answered,
    /// Ratings of the question in accepted sessions; the value is the rating.
    Rating,
    /// Scored answers of the question in accepted sessions with the label.
    AnswerSentiment(SentimentLabel),
    /// Scored answers of accepted sessions read in the language.
    ScoredIn(Subtag),
    /// Text answers of accepted sessions read in another language than their session's.
    OtherLanguage,
}

/// A language's primary subtag (`en`, `hi`: two or three lower-case letters), small enough to
/// key a [`Metric`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Subtag([u8; 3]);

impl Subtag {
    pub fn of(tag: &LanguageTag) -> Self {
        Self::parse(tag.primary()).unwrap_or(Self(*b"und"))
    }

    /// Two or three ASCII letters, lower-cased.
    pub fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        if !(2..=3).contains(&bytes.len()) || !bytes.iter().all(u8::is_ascii_alphabetic) {
            return None;
        }
        let mut code = [0; 3];
        for (slot, byte) in code.iter_mut().zip(bytes) {
            *slot = byte.to_ascii_lowercase();
        }
        Some(Self(code))
    }

    pub fn as_str(&self) -> &str {
        let len = if self.0[2] == 0 { 2 } else { 3 };
        std::str::from_utf8(&self.0[..len]).unwrap_or("und")
    }
}

impl Metric {
    /// The metric as stored: a name, and for reasons and labels `name:CODE`.
    pub fn code(self) -> String {
        match self {
            Metric::Analyzed => "analyzed".into(),
            Metric::Accepted => "accepted".into(),
            Metric::Rejection(r) => format!("rejection:{}", r.as_str()),
            Metric::Duration => "duration".into(),
            Metric::Coverage => "coverage".into(),
            Metric::ScoredAnswers => "scored_answers".into(),
            Metric::UnscoredAnswers => "unscored_answers".into(),
            Metric::SessionSentiment(l) => format!("session_sentiment:{}", l.as_str()),
            Metric::SessionScore => "session_score".into(),
            Metric::Answered => "answered".into(),
            Metric::Rating => "rating".into(),
            Metric::AnswerSentiment(l) => format!("answer_sentiment:{}", l.as_str()),
            Metric::ScoredIn(language) => format!("scored_in:{}", language.as_str()),
            Metric::OtherLanguage => "other_language".into(),
        }
    }

    /// Reads what [`Metric::code`] wrote.
    pub fn parse(text: &str) -> Option<Self> {
        let label = |code: &str| SentimentLabel::ALL.into_iter().find(|l| l.as_str() == code);
        Some(match text.split_once(':') {
            Some(("rejection", code)) => Metric::Rejection(Rejection::parse(code)?),
            Some(("session_sentiment", code)) => Metric::SessionSentiment(label(code)?),
            Some(("answer_sentiment", code)) => Metric::AnswerSentiment(label(code)?),
            Some(("scored_in", code)) => Metric::ScoredIn(Subtag::parse(code)?),
            Some(_) => return None,
            None => match text {
                "analyzed" => Metric::Analyzed,
                "accepted" => Metric::Accepted,
                "duration" => Metric::Duration,
                "coverage" => Metric::Coverage,
                "scored_answers" => Metric::ScoredAnswers,
                "unscored_answers" => Metric::UnscoredAnswers,
                "session_score" => Metric::SessionScore,
                "other_language" => Metric::OtherLanguage,
                "answered" => Metric::Answered,
                "rating" => Metric::Rating,
                _ => return None,
            },
        })
    }
}

/// One counter's share: `n` added to `(metric, question_id, value)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Count {
    pub metric: Metric,
    pub question_id: String,
    pub value: i64,
    pub n: i64,
}

impl Count {
    fn new(metric: Metric, question_id: &str, value: i64, n: i64) -> Self {
        Self { metric, question_id: question_id.to_owned(), value, n }
    }
}

/// A key phrase of one answer, grouped for themes by keyed digests; the phrase itself is sealed
/// (with [`phrase_seal_context`]) once per campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhraseMention {
    pub key_digest: Vec<u8>,
    pub label_digest: Vec<u8>,
    /// The key and the label, sealed.
    pub phrase_sealed: Vec<u8>,
    /// How often the answer holds the phrase with this label.
    pub mentions: u32,
}

/// An answer's text as a quote would show it (trimmed, contacts redacted), sealed with
/// [`quote_seal_context`]; `len` is its length in bytes, by which quotes are ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedQuote {
    pub len: u32,
    pub sealed: Vec<u8>,
}

/// What one answer adds.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerTally {
    pub question_id: String,
    pub rating: Option<i16>,
    pub text_analyzed: bool,
    pub sentiment_covered: bool,
    pub score: Option<f64>,
    /// The language the answer was read in, and whether it is not the session's.
    pub language: Option<Subtag>,
    pub other_language: bool,
    pub quote: Option<SealedQuote>,
    pub phrases: Vec<PhraseMention>,
}

/// What one analyzed session adds to its campaign's results, computed by the domain when the
/// analysis is recorded. Whether it counts as accepted is the store's final verdict.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SessionTally {
    pub duration_secs: u32,
    pub coverage: f64,
    pub answers: Vec<AnswerTally>,
}

/// A session's share of one theme in one scope (all questions, or one question), per label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThemeShare {
    /// [`ALL_QUESTIONS`] or a question id.
    pub scope: String,
    pub key_digest: Vec<u8>,
    pub label_digest: Vec<u8>,
    pub mentions: u64,
    /// The scores of the answers the mentions came from, in [`SCORE_UNITS`], and how many there were.
    pub score_sum: i64,
    pub scores: u64,
}

impl SessionTally {
    /// The session's score (see [`session_score`]).
    pub fn score(&self) -> Option<i64> {
        session_score(self.answers.iter().filter_map(|a| a.score))
    }

    /// The counters the session adds under its final verdict (`None` = accepted).
    pub fn counts(&self, rejection: Option<Rejection>) -> Vec<Count> {
        let mut counts = vec![Count::new(Metric::Analyzed, "", 0, 1)];
        if let Some(rejection) = rejection {
            counts.push(Count::new(Metric::Rejection(rejection), "", 0, 1));
            return counts;
        }
        counts.push(Count::new(Metric::Accepted, "", 0, 1));
        counts.push(Count::new(Metric::Duration, "", i64::from(self.duration_secs), 1));
        counts.push(Count::new(Metric::Coverage, "", 0, fine_units(self.coverage)));
        let analyzed = self.answers.iter().filter(|a| a.text_analyzed);
        let scored = analyzed.clone().filter(|a| a.sentiment_covered).count() as i64;
        let unscored = analyzed.filter(|a| !a.sentiment_covered).count() as i64;
        counts.push(Count::new(Metric::ScoredAnswers, "", 0, scored));
        counts.push(Count::new(Metric::UnscoredAnswers, "", 0, unscored));
        for answer in self.answers.iter().filter(|a| a.text_analyzed) {
            if let (true, Some(language)) = (answer.sentiment_covered, answer.language) {
                counts.push(Count::new(Metric::ScoredIn(language), "", 0, 1));
            }
            if answer.other_language {
                counts.push(Count::new(Metric::OtherLanguage, "", 0, 1));
            }
        }
        if let Some(score) = self.score() {
            counts.push(Count::new(Metric::SessionSentiment(session_label(score)), "", 0, 1));
            counts.push(Count::new(Metric::SessionScore, "", 0, score));
        }
        let mut answered = BTreeSet::new();
        for answer in &self.answers {
            if answered.insert(answer.question_id.as_str()) {
                counts.push(Count::new(Metric::Answered, &answer.question_id, 0, 1));
            }
            if let Some(rating) = answer.rating {
                counts.push(Count::new(Metric::Rating, &answer.question_id, i64::from(rating), 1));
            }
            if let Some(score) = answer.score {
                counts.push(Count::new(Metric::AnswerSentiment(SentimentLabel::of(score)), &answer.question_id, 0, 1));
            }
        }
        merge_counts(counts)
    }

    /// The session's shares of themes, in every scope (all questions and each question).
    pub fn themes(&self) -> Vec<ThemeShare> {
        // (scope, key digest, label digest) -> (mentions, score sum, scores)
        type Key = (String, Vec<u8>, Vec<u8>);
        let mut shares: BTreeMap<Key, (u64, i64, u64)> = BTreeMap::new();
        for answer in &self.answers {
            for phrase in &answer.phrases {
                for scope in [ALL_QUESTIONS, answer.question_id.as_str()] {
                    let key = (scope.to_owned(), phrase.key_digest.clone(), phrase.label_digest.clone());
                    let share = shares.entry(key).or_default();
                    let n = u64::from(phrase.mentions);
                    share.0 += n;
                    if let Some(score) = answer.score {
                        share.1 += score_units(score) * i64::from(phrase.mentions);
                        share.2 += n;
                    }
                }
            }
        }
        shares
            .into_iter()
            .map(|((scope, key_digest, label_digest), (mentions, score_sum, scores))| ThemeShare {
                scope,
                key_digest,
                label_digest,
                mentions,
                score_sum,
                scores,
            })
            .collect()
    }
}

/// Sums counts with equal keys and drops those that come to zero.
pub fn merge_counts(counts: impl IntoIterator<Item = Count>) -> Vec<Count> {
    let mut sums: BTreeMap<(Metric, String, i64), i64> = BTreeMap::new();
    for c in counts {
        *sums.entry((c.metric, c.question_id, c.value)).or_default() += c.n;
    }
    sums.into_iter()
        .filter(|(_, n)| *n != 0)
        .map(|((metric, question_id, value), n)| Count { metric, question_id, value, n })
        .collect()
}

/// Sums sessions' theme shares into themes: sessions per `(scope, key)`, label mentions and scores.
pub fn merge_themes<'a>(sessions: impl IntoIterator<Item = &'a [ThemeShare]>) -> Vec<ThemeTotal> {
    let mut totals: BTreeMap<(String, Vec<u8>), ThemeTotal> = BTreeMap::new();
    for shares in sessions {
        let mut seen = BTreeSet::new();
        for share in shares {
            let key = (share.scope.clone(), share.key_digest.clone());
            let total = totals.entry(key.clone()).or_insert_with(|| ThemeTotal {
                scope: share.scope.clone(),
                key_digest: share.key_digest.clone(),
                ..ThemeTotal::default()
            });
            if seen.insert(key) {
                total.sessions += 1;
            }
            total.score_sum += share.score_sum;
            total.scores += share.scores;
            match total.labels.iter_mut().find(|(digest, _)| *digest == share.label_digest) {
                Some((_, n)) => *n += share.mentions,
                None => total.labels.push((share.label_digest.clone(), share.mentions)),
            }
        }
    }
    totals.into_values().filter(|t| t.sessions >= MIN_THEME_SESSIONS).collect()
}

/// The associated data of a campaign's sealed phrase (its key and label).
pub fn phrase_seal_context(campaign: CampaignId, key_digest: &[u8], label_digest: &[u8]) -> Vec<u8> {
    let mut context = format!("result-phrase\0{campaign}\0").into_bytes();
    context.extend_from_slice(key_digest);
    context.push(0);
    context.extend_from_slice(label_digest);
    context
}

/// The associated data of an answer's sealed quote text.
pub fn quote_seal_context(session: SessionId, question_id: &str) -> Vec<u8> {
    format!("result-quote\0{session}\0{question_id}").into_bytes()
}

/// What the keyed digest of a phrase's key reads (bound to the campaign, so digests of one
/// campaign say nothing about another's).
pub fn phrase_key_input(campaign: CampaignId, phrase: &KeyPhrase) -> Vec<u8> {
    format!("key\0{campaign}\0{}", phrase.key).into_bytes()
}

/// What the keyed digest of a phrase's label reads.
pub fn phrase_label_input(campaign: CampaignId, phrase: &KeyPhrase) -> Vec<u8> {
    format!("label\0{campaign}\0{}\0{}", phrase.key, phrase.label).into_bytes()
}

/// Encodes a phrase for sealing.
pub fn encode_phrase(phrase: &KeyPhrase) -> Vec<u8> {
    serde_json::to_vec(&[phrase.key.as_str(), phrase.label.as_str()]).unwrap_or_default()
}

/// Decodes what [`encode_phrase`] made.
///
/// # Errors
/// `Internal` for bytes that are not a phrase.
pub fn decode_phrase(bytes: &[u8]) -> crate::error::Result<KeyPhrase> {
    let [key, label]: [String; 2] = serde_json::from_slice(bytes).map_err(crate::error::Error::internal)?;
    Ok(KeyPhrase { key, label })
}

/// A session's filter columns: the launch labels (without the app device's, which the store reads
/// at query time, as they may change), tags, and attributes as the texts a filter compares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SegmentLabels {
    /// The launch label in ASCII lower case (the platform filter ignores ASCII case).
    pub platform: Option<String>,
    pub app_version: Option<String>,
    pub tags: Vec<String>,
    /// Strings, numbers and booleans as the filter's texts; other values match no filter.
    pub attributes: BTreeMap<String, String>,
}

impl SegmentLabels {
    pub fn of_session(context: &Map<String, Value>, tags: Vec<String>) -> Self {
        let segment = super::Segment::of_session(context, tags, None, None, None);
        let attributes = segment
            .attributes
            .iter()
            .filter_map(|(name, value)| Some((name.clone(), attribute_text(value)?)))
            .collect();
        Self {
            platform: segment.platform.map(|p| p.to_ascii_lowercase()),
            app_version: segment.app_version,
            tags: segment.tags,
            attributes,
        }
    }
}

impl ResultsFilter {
    /// The platform as [`SegmentLabels::platform`] keeps it.
    pub fn platform_folded(&self) -> Option<String> {
        self.platform.as_ref().map(|p| p.to_ascii_lowercase())
    }
}

/// A theme's sums in one scope.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThemeTotal {
    pub scope: String,
    pub key_digest: Vec<u8>,
    pub sessions: u64,
    pub score_sum: i64,
    pub scores: u64,
    /// Mentions per label digest.
    pub labels: Vec<(Vec<u8>, u64)>,
}

/// A text answer that may be quoted, as the store picks candidates (see [`QUOTE_CANDIDATES`]).
#[derive(Clone, Debug, PartialEq)]
pub struct QuoteRow {
    pub question_id: String,
    pub session: SessionId,
    pub score: Option<f64>,
    pub sealed: Vec<u8>,
}

/// How a store picks quote candidates of a text question from the group's accepted sessions, so
/// that the picks are those every answer would give. Each order is applied with `FETCH FIRST n
/// ROWS ONLY`, where `s` is the score with none as 0, `len` the quote's length and `session` its
/// session id (the last tie-break of [`crate::results::models::QuoteCandidate::order`]):
/// - `s DESC, len DESC, session`, [`QUOTE_CANDIDATES`] rows (the most positive);
/// - `s ASC, len ASC, session DESC`, [`QUOTE_CANDIDATES`] rows (the most negative);
/// - `abs(s) ASC, s DESC, len DESC, session`, [`QUOTE_CANDIDATES`] rows (the nearest neutral);
/// - `len DESC, s DESC, session`, [`LONGEST_QUOTE_CANDIDATES`] rows (the longest).
pub const QUOTE_CANDIDATES: usize = 1;

/// Longest candidates a question needs: its picks, after as many chosen by score.
pub const LONGEST_QUOTE_CANDIDATES: usize = 2 * MAX_QUOTES_PER_QUESTION;

/// The sums a group of analyzed sessions reads as.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupTally {
    /// Summed counters of the group (see [`Metric`]).
    pub counts: Vec<Count>,
    /// Accepted sessions of the whole campaign, for the complement and the targets.
    pub all_accepted: u64,
    /// Tallied sessions of the whole campaign, for the pending count.
    pub all_analyzed: u64,
    /// With a filter, the campaign's accepted sessions by the filter's conditions they meet.
    pub cells: ConditionCells,
    /// Themes mentioned by at least [`MIN_THEME_SESSIONS`] sessions of the group.
    pub themes: Vec<ThemeTotal>,
    /// Quote candidates of the group's accepted sessions (only when quotes were asked for).
    pub quotes: Vec<QuoteRow>,
    /// Text questions where some candidate of the group has a score.
    pub scored_quotes: BTreeSet<String>,
}

/// What a store gives the tallied results.
#[derive(Clone, Debug, PartialEq)]
pub struct TalliedInput {
    pub campaign: Campaign,
    pub survey: Survey,
    pub counts: CampaignCounts,
    /// Finished sessions whose analysis is not recorded (or not tallied) yet.
    pub pending: u64,
    /// Analyzed sessions whose text is to be read again by the analyzer in charge.
    pub pending_reanalysis: u64,
    pub tally: GroupTally,
}

/// A campaign's sealed phrase, found by its digests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPhrase {
    pub key_digest: Vec<u8>,
    pub label_digest: Vec<u8>,
    pub sealed: Vec<u8>,
}

/// The readable parts of a tally: phrases by digests, quote texts (trimmed and redacted).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenedTally {
    pub phrases: HashMap<(Vec<u8>, Vec<u8>), KeyPhrase>,
    pub quotes: Vec<QuoteCandidate>,
}

struct Sums<'a> {
    counts: &'a [Count],
}

impl Sums<'_> {
    fn total(&self, metric: Metric, question: &str) -> i64 {
        self.counts.iter().filter(|c| c.metric == metric && c.question_id == question).map(|c| c.n).sum()
    }

    fn count(&self, metric: Metric, question: &str) -> u64 {
        u64::try_from(self.total(metric, question)).unwrap_or(0)
    }

    fn scored_in(&self) -> BTreeMap<Subtag, u64> {
        let mut languages = BTreeMap::new();
        for c in self.counts {
            if let Metric::ScoredIn(language) = c.metric {
                *languages.entry(language).or_default() += u64::try_from(c.n).unwrap_or(0);
            }
        }
        languages.retain(|_, n| *n > 0);
        languages
    }

    fn by_value(&self, metric: Metric, question: &str) -> BTreeMap<i64, u64> {
        let mut values = BTreeMap::new();
        for c in self.counts.iter().filter(|c| c.metric == metric && c.question_id == question) {
            *values.entry(c.value).or_default() += u64::try_from(c.n).unwrap_or(0);
        }
        values
    }

    fn labels(&self, metric: fn(SentimentLabel) -> Metric, question: &str) -> BTreeMap<SentimentLabel, u64> {
        SentimentLabel::ALL
            .into_iter()
            .map(|label| (label, self.count(metric(label), question)))
            .filter(|(_, n)| *n > 0)
            .collect()
    }
}

/// The digests of the phrases a read needs opened: every label of every theme the tally holds.
pub fn wanted_phrases(tally: &GroupTally) -> Vec<(Vec<u8>, Vec<u8>)> {
    let wanted: BTreeSet<(Vec<u8>, Vec<u8>)> = tally
        .themes
        .iter()
        .flat_map(|t| t.labels.iter().map(|(label, _)| (t.key_digest.clone(), label.clone())))
        .collect();
    wanted.into_iter().collect()
}

/// Themes of one scope: sessions, the most written label (ties to the alphabetically first),
/// the mean score; in the order [`super::compute`] gives them.
///
/// # Errors
/// `Internal` when a theme's phrase was not opened (the store lost it).
fn themes_of(tally: &GroupTally, opened: &OpenedTally, scope: &str) -> Result<Vec<(ThemeCount, Option<f64>)>> {
    let mut keyed = Vec::new();
    for theme in tally.themes.iter().filter(|t| t.scope == scope && t.sessions >= MIN_THEME_SESSIONS) {
        let mut labels: BTreeMap<&str, u64> = BTreeMap::new();
        let mut key = None;
        for (digest, n) in &theme.labels {
            let phrase = opened
                .phrases
                .get(&(theme.key_digest.clone(), digest.clone()))
                .ok_or_else(|| Error::internal("a theme's phrase is missing from the results store"))?;
            key.get_or_insert_with(|| phrase.key.clone());
            *labels.entry(phrase.label.as_str()).or_default() += n;
        }
        let count = ThemeCount { theme: most_written(labels), count: theme.sessions };
        keyed.push((key.unwrap_or_default(), count, mean_of(theme.score_sum, theme.scores, SCORE_UNITS)));
    }
    Ok(order_themes(keyed))
}

/// Computes results from a group's tally, exactly as [`super::compute`] does from every answer.
///
/// # Errors
/// `Internal` when a theme's phrase was not opened.
pub fn compute_tallied(
    input: &TalliedInput,
    opened: &OpenedTally,
    filter: Option<ResultsFilter>,
    may_quote: bool,
    analyzer: &AnalyzerInfo,
    now: OffsetDateTime,
) -> Result<CampaignResults> {
    let sums = Sums { counts: &input.tally.counts };
    let durations = sums.by_value(Metric::Duration, "");
    let median_duration_secs = {
        let middle = durations.values().sum::<u64>() / 2;
        let mut seen = 0;
        durations.iter().find_map(|(secs, n)| {
            seen += n;
            (seen > middle).then(|| u32::try_from(*secs).unwrap_or(0))
        })
    };
    let totals = GroupTotals {
        analyzed: sums.count(Metric::Analyzed, ""),
        accepted: sums.count(Metric::Accepted, ""),
        all_accepted: input.tally.all_accepted,
        cells: input.tally.cells.clone(),
        rejections: Rejection::ALL.into_iter().map(|r| (r, sums.count(Metric::Rejection(r), ""))).collect(),
        coverage_sum: sums.total(Metric::Coverage, ""),
        median_duration_secs,
        scored_answers: sums.count(Metric::ScoredAnswers, ""),
        unscored_answers: sums.count(Metric::UnscoredAnswers, ""),
        scored_in: sums.scored_in(),
        other_language_answers: sums.count(Metric::OtherLanguage, ""),
        session_score_sum: sums.total(Metric::SessionScore, ""),
        session_labels: sums.labels(Metric::SessionSentiment, ""),
        questions: input
            .survey
            .questions
            .iter()
            .map(|q| {
                let totals = QuestionTotals {
                    answered: sums.count(Metric::Answered, &q.id),
                    ratings: sums.by_value(Metric::Rating, &q.id),
                    labels: sums.labels(Metric::AnswerSentiment, &q.id),
                };
                (q.id.clone(), totals)
            })
            .collect(),
    };
    let shown = || {
        let mut question_themes = HashMap::new();
        for question in input.survey.questions.iter().filter(|q| q.kind == QuestionKind::Text) {
            let themes = themes_of(&input.tally, opened, &question.id)?.into_iter().map(|(t, _)| t).collect();
            question_themes.insert(question.id.clone(), themes);
        }
        let mut quotes = Vec::new();
        if may_quote {
            for question in input.survey.questions.iter().filter(|q| q.kind == QuestionKind::Text) {
                let mut candidates: Vec<&QuoteCandidate> =
                    opened.quotes.iter().filter(|c| c.question_id == question.id).collect();
                candidates.sort_by(|a, b| a.order(b));
                candidates.dedup_by(|a, b| a.session == b.session);
                let scored = input.tally.scored_quotes.contains(&question.id);
                quotes.extend(pick_from(&question.id, &candidates, scored));
            }
        }
        Ok(Shown { themes: themes_of(&input.tally, opened, ALL_QUESTIONS)?, question_themes, quotes })
    };
    let frame = Frame {
        campaign: &input.campaign,
        survey: &input.survey,
        counts: &input.counts,
        pending: input.pending,
        pending_reanalysis: input.pending_reanalysis,
    };
    finish(&frame, totals, Request { filter, may_quote, analyzer, now }, shown)
}
