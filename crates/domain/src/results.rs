//! Aggregate results of a campaign: counts, sentiment, themes and CSAT behind an anonymity floor.
//!
//! Everything here is computed from analyzed sessions at read time. Nothing identifies a person:
//! no session id, no device, no user leaves this module, and a group smaller than the campaign's
//! floor (or one a filter would isolate by difference with the unfiltered view) shows counts only.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::analysis::{
    AnalyzerInfo, ModelInfo, Rejection, Step, StepResult, decode_phrases, phrases_seal_context, redact_contacts,
};
use crate::campaign::{Campaign, CampaignCounts, Quality};
use crate::clock::Clock;
use crate::error::{Error, Result};
use crate::ids::{CampaignId, SessionId};
use crate::ports::{AnalysisRepository, Crypto};
use crate::session::answer_seal_context;
use crate::survey::{QuestionKind, Survey};
use crate::tenancy::{Principal, Scope};

/// A compound score at or above this is positive, at or below its negative is negative (VADER's
/// published thresholds).
pub const SENTIMENT_THRESHOLD: f64 = 0.05;
/// A theme is shown only when this many sessions of the group mention it: a phrase one person
/// wrote is theirs, not a theme.
pub const MIN_THEME_SESSIONS: u64 = 2;
pub const MAX_THEMES: usize = 10;
pub const MAX_QUESTION_THEMES: usize = 5;
pub const MAX_QUOTES_PER_QUESTION: usize = 3;
pub const MAX_FILTER_TAGS: usize = 8;
pub const MAX_FILTER_ATTRIBUTES: usize = 16;
pub const MAX_FILTER_VALUE_CHARS: usize = 200;
pub const MAX_ATTRIBUTE_NAME_CHARS: usize = 64;
/// CSAT counts the top two points of a 1 to 5 scale.
const CSAT_SCALE: (i16, i16) = (1, 5);

/// What a session is known by for filters: launch context and app attribution, never identity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segment {
    pub platform: Option<String>,
    pub app_version: Option<String>,
    pub tags: Vec<String>,
    pub attributes: Map<String, Value>,
}

impl Segment {
    /// A session's segment from its stored context: the launch device's labels, then the signed
    /// token's, then the attributed app device's.
    pub fn of_session(
        context: &Map<String, Value>,
        tags: Vec<String>,
        app_platform: Option<&str>,
        app_version: Option<&str>,
    ) -> Self {
        let label = |group: &str, key: &str| {
            context.get(group).and_then(|g| g.get(key)).and_then(Value::as_str).map(str::to_owned)
        };
        Segment {
            platform: label("device", "platform")
                .or_else(|| label("launch", "os"))
                .or_else(|| app_platform.map(str::to_owned)),
            app_version: label("device", "appVersion")
                .or_else(|| label("launch", "appVersion"))
                .or_else(|| app_version.map(str::to_owned)),
            tags,
            attributes: context.get("attributes").and_then(Value::as_object).cloned().unwrap_or_default(),
        }
    }
}

/// One answer of an analyzed session.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzedAnswer {
    pub question_id: String,
    pub rating: Option<i16>,
    /// Whether a text answer was read by the sentiment model (its language is covered).
    pub text_analyzed: bool,
    pub sentiment_covered: bool,
    pub score: Option<f64>,
    pub phrases_sealed: Option<Vec<u8>>,
    /// Present only when quotes were asked for.
    pub text_sealed: Option<Vec<u8>>,
}

impl AnalyzedAnswer {
    /// An answer with the analyzers' results of its question (none for a rating); `text_sealed`
    /// only when quotes were asked for.
    pub fn new(question_id: String, rating: Option<i16>, text_sealed: Option<Vec<u8>>, results: &[StepResult]) -> Self {
        let of = |step| results.iter().find(|r| r.question_id == question_id && r.step == step);
        let sentiment = of(Step::Sentiment);
        Self {
            rating,
            text_analyzed: sentiment.is_some(),
            sentiment_covered: sentiment.is_some_and(|r| r.covered),
            score: sentiment.and_then(|r| r.score),
            phrases_sealed: of(Step::Themes).and_then(|r| r.phrases_sealed.clone()),
            text_sealed,
            question_id,
        }
    }
}

/// An analyzed session as results read it.
#[derive(Clone, Debug, PartialEq)]
pub struct AnalyzedSession {
    /// Used only to open sealed texts and phrases; never shown.
    pub session: SessionId,
    pub rejection: Option<Rejection>,
    pub duration_secs: u32,
    pub coverage: f64,
    pub segment: Segment,
    pub answers: Vec<AnalyzedAnswer>,
}

/// What the store gives the results computation.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultsInput {
    pub campaign: Campaign,
    pub survey: Survey,
    pub counts: CampaignCounts,
    /// Finished sessions whose analysis is not recorded yet.
    pub pending: u64,
    pub sessions: Vec<AnalyzedSession>,
}

/// Narrows results to sessions launched with this context. Every condition must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResultsFilter {
    pub platform: Option<String>,
    pub app_version: Option<String>,
    pub tags: Vec<String>,
    pub attributes: BTreeMap<String, String>,
}

impl ResultsFilter {
    /// Reads query parameters: `platform`, `appVersion`, `tag` (repeatable) and
    /// `attribute.<name>`; `None` when none is given.
    ///
    /// # Errors
    /// `ValidationFailed` naming the parameter: an unknown one, an empty or over-long value, a
    /// repeated single one, or too many tags or attributes.
    pub fn parse(params: &[(String, String)]) -> Result<Option<Self>> {
        let mut filter = Self::default();
        for (name, value) in params {
            if value.is_empty() || value.chars().count() > MAX_FILTER_VALUE_CHARS || value.chars().any(char::is_control)
            {
                return Err(Error::validation(
                    name,
                    format!("must be 1 to {MAX_FILTER_VALUE_CHARS} characters without control characters"),
                ));
            }
            let once = |slot: &mut Option<String>| {
                if slot.replace(value.clone()).is_some() {
                    return Err(Error::validation(name, "may be given once"));
                }
                Ok(())
            };
            match name.as_str() {
                "platform" => once(&mut filter.platform)?,
                "appVersion" => once(&mut filter.app_version)?,
                "tag" => {
                    if !filter.tags.contains(value) {
                        filter.tags.push(value.clone());
                    }
                    if filter.tags.len() > MAX_FILTER_TAGS {
                        return Err(Error::validation("tag", format!("may be given at most {MAX_FILTER_TAGS} times")));
                    }
                }
                other => {
                    let Some(attribute) = other.strip_prefix("attribute.") else {
                        return Err(Error::validation(
                            other,
                            "is not a filter; use platform, appVersion, tag or attribute.<name>",
                        ));
                    };
                    if attribute.is_empty() || attribute.chars().count() > MAX_ATTRIBUTE_NAME_CHARS {
                        return Err(Error::validation(
                            other,
                            format!("needs an attribute name of 1 to {MAX_ATTRIBUTE_NAME_CHARS} characters"),
                        ));
                    }
                    if filter.attributes.insert(attribute.to_owned(), value.clone()).is_some() {
                        return Err(Error::validation(other, "may be given once"));
                    }
                    if filter.attributes.len() > MAX_FILTER_ATTRIBUTES {
                        return Err(Error::validation(
                            "attribute",
                            format!("at most {MAX_FILTER_ATTRIBUTES} attributes may be filtered on"),
                        ));
                    }
                }
            }
        }
        Ok((filter != Self::default()).then_some(filter))
    }

    pub fn matches(&self, segment: &Segment) -> bool {
        let platform_ok =
            self.platform.as_ref().is_none_or(|p| segment.platform.as_ref().is_some_and(|s| s.eq_ignore_ascii_case(p)));
        let version_ok = self.app_version.as_ref().is_none_or(|v| segment.app_version.as_ref() == Some(v));
        let tags_ok = self.tags.iter().all(|t| segment.tags.contains(t));
        let attributes_ok = self.attributes.iter().all(|(name, wanted)| {
            segment.attributes.get(name).is_some_and(|value| match value {
                Value::String(s) => s == wanted,
                Value::Number(n) => n.to_string() == *wanted,
                Value::Bool(b) => b.to_string() == *wanted,
                _ => false,
            })
        });
        platform_ok && version_ok && tags_ok && attributes_ok
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SentimentLabel {
    Positive,
    Neutral,
    Negative,
}

impl SentimentLabel {
    pub const ALL: [SentimentLabel; 3] = [SentimentLabel::Positive, SentimentLabel::Neutral, SentimentLabel::Negative];

    pub fn of(score: f64) -> Self {
        if score >= SENTIMENT_THRESHOLD {
            SentimentLabel::Positive
        } else if score <= -SENTIMENT_THRESHOLD {
            SentimentLabel::Negative
        } else {
            SentimentLabel::Neutral
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            SentimentLabel::Positive => "POSITIVE",
            SentimentLabel::Neutral => "NEUTRAL",
            SentimentLabel::Negative => "NEGATIVE",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelCount {
    pub label: SentimentLabel,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThemeCount {
    pub theme: String,
    /// Sessions of the group that mention it.
    pub count: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Csat {
    /// Share of ratings in the top two points, 0 to 1.
    pub score: f64,
    pub satisfied: u64,
    pub rated: u64,
}

/// Why the breakdowns are empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suppression {
    /// The group has fewer accepted sessions than the floor.
    GroupBelowFloor,
    /// The sessions the filter leaves out are fewer than the floor (but not none): comparing
    /// with the unfiltered view would show them alone.
    ComplementBelowFloor,
}

impl Suppression {
    pub const fn as_str(self) -> &'static str {
        match self {
            Suppression::GroupBelowFloor => "GROUP_BELOW_FLOOR",
            Suppression::ComplementBelowFloor => "COMPLEMENT_BELOW_FLOOR",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuotesState {
    Included,
    /// The key lacks `channel:transcripts`.
    NotPermitted,
    /// The floor applies.
    HiddenByFloor,
}

impl QuotesState {
    pub const fn as_str(self) -> &'static str {
        match self {
            QuotesState::Included => "INCLUDED",
            QuotesState::NotPermitted => "NOT_PERMITTED",
            QuotesState::HiddenByFloor => "HIDDEN_BY_FLOOR",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Methodology {
    pub sentiment: ModelInfo,
    pub themes: ModelInfo,
    pub min_theme_sessions: u64,
    pub suppression: Option<Suppression>,
    pub quotes: QuotesState,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Acceptance {
    pub rules: Quality,
    pub analyzed: u64,
    pub accepted: u64,
    pub rejected: u64,
    /// Every reason, in a fixed order, with its count.
    pub rejections: Vec<(Rejection, u64)>,
    pub target_reached: Option<bool>,
    pub capacity_reached: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub invited: u64,
    pub responded: u64,
    pub started: u64,
    pub completed: u64,
    pub pending_analysis: u64,
    pub completion_rate: Option<f64>,
    pub median_duration_secs: Option<u32>,
    pub average_coverage: Option<f64>,
    /// Text answers the sentiment model read, and those in a language it does not cover.
    pub scored_answers: u64,
    pub unscored_answers: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inferred {
    pub dominant_sentiment: Option<SentimentLabel>,
    /// Themes whose answers lean positive, and negative.
    pub positive_themes: Vec<String>,
    pub negative_themes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RatingSummary {
    pub min: i16,
    pub max: i16,
    pub mean: f64,
    pub distribution: Vec<(i16, u64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct QuestionResult {
    pub question_id: String,
    pub kind: QuestionKind,
    pub text: String,
    pub answered: u64,
    pub rating: Option<RatingSummary>,
    pub sentiment: Vec<LabelCount>,
    pub themes: Vec<ThemeCount>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quote {
    pub question_id: String,
    pub text: String,
    pub sentiment: Option<SentimentLabel>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CampaignResults {
    pub campaign: Campaign,
    pub accepted_count: u64,
    pub weighted_accepted_count: u64,
    pub overall_sentiment_score: f64,
    pub csat: Option<Csat>,
    pub sentiment: Vec<LabelCount>,
    pub themes: Vec<ThemeCount>,
    pub anonymity_floor: u32,
    pub floor_applied: bool,
    pub filter: Option<ResultsFilter>,
    pub generated_at: OffsetDateTime,
    pub methodology: Methodology,
    pub acceptance: Acceptance,
    pub inferred: Inferred,
    pub metrics: Metrics,
    pub questions: Vec<QuestionResult>,
    pub quotes: Vec<Quote>,
}

/// The partner route of results.
pub struct Results<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    analyzer: AnalyzerInfo,
}

impl<R: AnalysisRepository, C: Crypto, K: Clock> Results<R, C, K> {
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
        let input =
            self.repo.results_input(workspace, id, may_quote).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let opened = open_sessions(&self.crypto, input.sessions.iter().filter(|s| s.rejection.is_none()))?;
        Ok(compute(&input, &opened, filter, may_quote, &self.analyzer, self.clock.now()))
    }
}

/// An accepted session's readable parts: key phrases per question and, when quoting, texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenedSession {
    pub phrases: HashMap<String, Vec<crate::analysis::KeyPhrase>>,
    pub texts: HashMap<String, String>,
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

fn round(value: f64, places: i32) -> f64 {
    let factor = 10_f64.powi(places);
    (value * factor).round() / factor
}

fn mean(values: &[f64]) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn label_counts(scores: &[f64]) -> Vec<LabelCount> {
    SentimentLabel::ALL
        .into_iter()
        .map(|label| LabelCount {
            label,
            count: scores.iter().filter(|s| SentimentLabel::of(**s) == label).count() as u64,
        })
        .collect()
}

/// Groups key phrases by their variant key: each theme counts the sessions that mention it,
/// is named by its most written label, and carries the mean score of the answers it came from.
struct ThemeTally {
    sessions: BTreeSet<SessionId>,
    labels: BTreeMap<String, u64>,
    scores: Vec<f64>,
}

fn tally_themes<'a>(
    mentions: impl Iterator<Item = (SessionId, &'a crate::analysis::KeyPhrase, Option<f64>)>,
) -> Vec<(ThemeCount, Option<f64>)> {
    let mut tallies: BTreeMap<&str, ThemeTally> = BTreeMap::new();
    for (session, phrase, score) in mentions {
        let tally = tallies.entry(phrase.key.as_str()).or_insert_with(|| ThemeTally {
            sessions: BTreeSet::new(),
            labels: BTreeMap::new(),
            scores: Vec::new(),
        });
        tally.sessions.insert(session);
        *tally.labels.entry(phrase.label.clone()).or_default() += 1;
        tally.scores.extend(score);
    }
    let mut themes: Vec<(ThemeCount, Option<f64>)> = tallies
        .into_values()
        .filter(|t| t.sessions.len() as u64 >= MIN_THEME_SESSIONS)
        .map(|t| {
            // The most written label; ties go to the alphabetically first (BTreeMap order).
            let theme = t
                .labels
                .iter()
                .fold(None::<(&String, u64)>, |best, (label, n)| match best {
                    Some((_, m)) if m >= *n => best,
                    _ => Some((label, *n)),
                })
                .map(|(label, _)| label.clone())
                .unwrap_or_default();
            (ThemeCount { theme, count: t.sessions.len() as u64 }, mean(&t.scores))
        })
        .collect();
    themes.sort_by(|(a, _), (b, _)| b.count.cmp(&a.count).then_with(|| a.theme.cmp(&b.theme)));
    themes
}

/// Computes the results of `input` for the group `filter` selects.
pub fn compute(
    input: &ResultsInput,
    opened: &HashMap<SessionId, OpenedSession>,
    filter: Option<ResultsFilter>,
    may_quote: bool,
    analyzer: &AnalyzerInfo,
    now: OffsetDateTime,
) -> CampaignResults {
    let floor = u64::from(input.campaign.anonymity_floor);
    let in_group = |s: &&AnalyzedSession| filter.as_ref().is_none_or(|f| f.matches(&s.segment));
    let group: Vec<&AnalyzedSession> = input.sessions.iter().filter(in_group).collect();
    let accepted: Vec<&AnalyzedSession> = group.iter().copied().filter(|s| s.rejection.is_none()).collect();
    let all_accepted = input.sessions.iter().filter(|s| s.rejection.is_none()).count() as u64;
    let accepted_count = accepted.len() as u64;
    let complement = all_accepted - accepted_count;
    let suppression = if accepted_count < floor {
        Some(Suppression::GroupBelowFloor)
    } else if filter.is_some() && complement > 0 && complement < floor {
        Some(Suppression::ComplementBelowFloor)
    } else {
        None
    };
    let floor_applied = suppression.is_some();

    let rejections: Vec<(Rejection, u64)> = Rejection::ALL
        .into_iter()
        .map(|r| (r, group.iter().filter(|s| s.rejection == Some(r)).count() as u64))
        .collect();
    let quality = &input.campaign.quality;
    let acceptance = Acceptance {
        rules: quality.clone(),
        analyzed: group.len() as u64,
        accepted: accepted_count,
        rejected: group.len() as u64 - accepted_count,
        rejections,
        target_reached: quality.target_count.map(|t| all_accepted >= u64::from(t)),
        capacity_reached: quality.max_responses.is_some_and(|m| all_accepted >= u64::from(m)),
    };

    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let weighted_accepted_count = accepted.iter().map(|s| s.coverage).sum::<f64>().round() as u64;

    let text_answers = || accepted.iter().flat_map(|s| s.answers.iter()).filter(|a| a.text_analyzed);
    let scored_answers = text_answers().filter(|a| a.sentiment_covered).count() as u64;
    let unscored_answers = text_answers().filter(|a| !a.sentiment_covered).count() as u64;
    let mut durations: Vec<u32> = accepted.iter().map(|s| s.duration_secs).collect();
    durations.sort_unstable();
    let coverages: Vec<f64> = accepted.iter().map(|s| s.coverage).collect();
    let metrics = Metrics {
        invited: input.counts.invited,
        responded: input.counts.responded,
        started: input.counts.started,
        completed: input.counts.completed,
        pending_analysis: input.pending,
        #[allow(clippy::cast_precision_loss)]
        completion_rate: (input.counts.started > 0)
            .then(|| round(input.counts.completed as f64 / input.counts.started as f64, 3)),
        median_duration_secs: if floor_applied { None } else { durations.get(durations.len() / 2).copied() },
        average_coverage: if floor_applied { None } else { mean(&coverages).map(|m| round(m, 3)) },
        scored_answers,
        unscored_answers,
    };

    let quotes_state = match (may_quote, floor_applied) {
        (false, _) => QuotesState::NotPermitted,
        (true, true) => QuotesState::HiddenByFloor,
        (true, false) => QuotesState::Included,
    };
    let methodology = Methodology {
        sentiment: analyzer.sentiment.clone(),
        themes: analyzer.themes.clone(),
        min_theme_sessions: MIN_THEME_SESSIONS,
        suppression,
        quotes: quotes_state,
    };

    let questions_counts = |question_id: &str| {
        accepted.iter().filter(|s| s.answers.iter().any(|a| a.question_id == question_id)).count() as u64
    };
    let mut results = CampaignResults {
        campaign: input.campaign.clone(),
        accepted_count,
        weighted_accepted_count,
        overall_sentiment_score: 0.0,
        csat: None,
        sentiment: Vec::new(),
        themes: Vec::new(),
        anonymity_floor: input.campaign.anonymity_floor,
        floor_applied,
        filter,
        generated_at: now,
        methodology,
        acceptance,
        inferred: Inferred { dominant_sentiment: None, positive_themes: Vec::new(), negative_themes: Vec::new() },
        metrics,
        questions: input
            .survey
            .questions
            .iter()
            .map(|q| QuestionResult {
                question_id: q.id.clone(),
                kind: q.kind,
                text: q.text_in(input.survey.default_language()).to_owned(),
                answered: questions_counts(&q.id),
                rating: None,
                sentiment: Vec::new(),
                themes: Vec::new(),
            })
            .collect(),
        quotes: Vec::new(),
    };
    if floor_applied {
        return results;
    }

    // A session's sentiment is the mean of its scored text answers.
    let session_scores: Vec<f64> =
        accepted.iter().filter_map(|s| mean(&s.answers.iter().filter_map(|a| a.score).collect::<Vec<_>>())).collect();
    results.sentiment = label_counts(&session_scores);
    results.overall_sentiment_score = mean(&session_scores).map_or(0.0, |m| round(m, 3));
    results.inferred.dominant_sentiment = (!session_scores.is_empty())
        .then(|| results.sentiment.iter().max_by_key(|c| (c.count, std::cmp::Reverse(c.label))).map(|c| c.label))
        .flatten();

    let ratings_in_csat_scale: Vec<i16> = accepted
        .iter()
        .flat_map(|s| s.answers.iter())
        .filter(|a| {
            input.survey.questions.iter().any(|q| {
                q.id == a.question_id && q.kind == (QuestionKind::Rating { min: CSAT_SCALE.0, max: CSAT_SCALE.1 })
            })
        })
        .filter_map(|a| a.rating)
        .collect();
    if !ratings_in_csat_scale.is_empty() {
        let satisfied = ratings_in_csat_scale.iter().filter(|r| **r >= CSAT_SCALE.1 - 1).count() as u64;
        let rated = ratings_in_csat_scale.len() as u64;
        #[allow(clippy::cast_precision_loss)]
        let score = round(satisfied as f64 / rated as f64, 3);
        results.csat = Some(Csat { score, satisfied, rated });
    }

    let mentions = |question: Option<&str>| {
        let mut list = Vec::new();
        for session in &accepted {
            let Some(readable) = opened.get(&session.session) else { continue };
            for answer in &session.answers {
                if question.is_some_and(|q| q != answer.question_id) {
                    continue;
                }
                for phrase in readable.phrases.get(&answer.question_id).into_iter().flatten() {
                    list.push((session.session, phrase, answer.score));
                }
            }
        }
        list
    };
    let themes = tally_themes(mentions(None).into_iter());
    results.inferred.positive_themes = themes
        .iter()
        .filter(|(_, score)| score.is_some_and(|s| SentimentLabel::of(s) == SentimentLabel::Positive))
        .take(MAX_THEMES)
        .map(|(t, _)| t.theme.clone())
        .collect();
    results.inferred.negative_themes = themes
        .iter()
        .filter(|(_, score)| score.is_some_and(|s| SentimentLabel::of(s) == SentimentLabel::Negative))
        .take(MAX_THEMES)
        .map(|(t, _)| t.theme.clone())
        .collect();
    results.themes = themes.into_iter().take(MAX_THEMES).map(|(t, _)| t).collect();

    for question in &mut results.questions {
        let answers: Vec<_> =
            accepted.iter().flat_map(|s| s.answers.iter()).filter(|a| a.question_id == question.question_id).collect();
        match question.kind {
            QuestionKind::Rating { min, max } => {
                let ratings: Vec<i16> = answers.iter().filter_map(|a| a.rating).collect();
                if !ratings.is_empty() {
                    let values: Vec<f64> = ratings.iter().map(|r| f64::from(*r)).collect();
                    question.rating = Some(RatingSummary {
                        min,
                        max,
                        mean: mean(&values).map_or(0.0, |m| round(m, 2)),
                        distribution: (min..=max)
                            .map(|v| (v, ratings.iter().filter(|r| **r == v).count() as u64))
                            .collect(),
                    });
                }
            }
            QuestionKind::Text => {
                let scores: Vec<f64> = answers.iter().filter_map(|a| a.score).collect();
                if !scores.is_empty() {
                    question.sentiment = label_counts(&scores);
                }
                question.themes = tally_themes(mentions(Some(&question.question_id)).into_iter())
                    .into_iter()
                    .take(MAX_QUESTION_THEMES)
                    .map(|(t, _)| t)
                    .collect();
            }
        }
    }

    if may_quote {
        results.quotes = pick_quotes(input, &accepted, opened);
    }
    results
}

/// Up to three quotes per text question: the most positive, the most negative and the one
/// nearest neutral, then the longest answers; each redacted, never with identity.
fn pick_quotes(
    input: &ResultsInput,
    accepted: &[&AnalyzedSession],
    opened: &HashMap<SessionId, OpenedSession>,
) -> Vec<Quote> {
    let mut quotes = Vec::new();
    for question in input.survey.questions.iter().filter(|q| q.kind == QuestionKind::Text) {
        let mut candidates: Vec<(Option<f64>, String)> = accepted
            .iter()
            .filter_map(|s| {
                let answer = s.answers.iter().find(|a| a.question_id == question.id)?;
                let text = opened.get(&s.session)?.texts.get(&question.id)?;
                let text = redact_contacts(text.trim());
                (!text.is_empty()).then_some((answer.score, text))
            })
            .collect();
        candidates.sort_by(|(a, ta), (b, tb)| {
            b.unwrap_or(0.0).total_cmp(&a.unwrap_or(0.0)).then_with(|| tb.len().cmp(&ta.len())).then(ta.cmp(tb))
        });
        let mut chosen: Vec<usize> = Vec::new();
        let scored = candidates.iter().any(|(s, _)| s.is_some());
        if scored && !candidates.is_empty() {
            chosen.push(0);
            chosen.push(candidates.len() - 1);
            let neutral = (0..candidates.len())
                .min_by(|a, b| candidates[*a].0.unwrap_or(0.0).abs().total_cmp(&candidates[*b].0.unwrap_or(0.0).abs()))
                .unwrap_or(0);
            chosen.push(neutral);
        }
        // Then, or without scores, the longest answers.
        let mut by_length: Vec<usize> = (0..candidates.len()).collect();
        by_length.sort_by(|a, b| candidates[*b].1.len().cmp(&candidates[*a].1.len()).then(a.cmp(b)));
        chosen.extend(by_length);
        let mut seen = BTreeSet::new();
        for index in chosen {
            if seen.len() == MAX_QUOTES_PER_QUESTION {
                break;
            }
            if seen.insert(index) {
                let (score, text) = &candidates[index];
                quotes.push(Quote {
                    question_id: question.id.clone(),
                    text: text.clone(),
                    sentiment: score.map(SentimentLabel::of),
                });
            }
        }
    }
    quotes
}
