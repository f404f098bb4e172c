//! Aggregate results of a campaign: counts, sentiment, themes and CSAT behind an anonymity floor.
//!
//! Everything here is computed from analyzed sessions at read time. Nothing identifies a person:
//! no session id, no device, no user leaves this module, and a group smaller than the campaign's
//! floor (or one a filter would isolate by difference with the unfiltered view) shows counts only.

mod aggregate;
mod breakdown;
mod tally;
mod trend;

pub use aggregate::*;
pub use breakdown::*;
pub use tally::*;
pub use trend::*;

use crate::analysis::models::{ModelInfo, Rejection, Step, StepResult};
use crate::campaigns::models::{Campaign, CampaignCounts, LanguageTag, Quality, QuestionKind, Survey};
use crate::error::{Error, Result};
use crate::ids::SessionId;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use time::OffsetDateTime;

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

/// What a session is known by for filters: launch context and app attribution, never identity.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segment {
    /// The language the session was answered in (a canonical language tag).
    pub language: Option<String>,
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
        language: Option<&str>,
        app_platform: Option<&str>,
        app_version: Option<&str>,
    ) -> Self {
        let label = |group: &str, key: &str| {
            context.get(group).and_then(|g| g.get(key)).and_then(Value::as_str).map(str::to_owned)
        };
        Segment {
            language: language.map(str::to_owned),
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
    /// The language the sentiment model read the answer in, and whether it is not the session's.
    pub language: Option<LanguageTag>,
    pub other_language: bool,
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
            language: sentiment.and_then(|r| r.language.clone()),
            other_language: sentiment.is_some_and(|r| r.other_language),
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

/// One text answer of an accepted session, redacted of contact details, as a transcript export
/// carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transcript {
    pub question_id: String,
    pub text: String,
}

/// What the store gives the results computation.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultsInput {
    pub campaign: Campaign,
    pub survey: Survey,
    pub counts: CampaignCounts,
    /// Finished sessions whose analysis is not recorded yet.
    pub pending: u64,
    /// Analyzed sessions whose text is to be read again by the analyzer in charge.
    pub pending_reanalysis: u64,
    pub sessions: Vec<AnalyzedSession>,
}

/// Narrows results to sessions launched with this context. Every condition must hold.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResultsFilter {
    pub platform: Option<String>,
    pub app_version: Option<String>,
    /// The language the sessions were answered in, as a canonical language tag.
    pub language: Option<String>,
    pub tags: Vec<String>,
    pub attributes: BTreeMap<String, String>,
}

impl ResultsFilter {
    /// Reads query parameters: `platform`, `appVersion`, `language`, `tag` (repeatable) and `attribute`
    /// (repeatable, `<name>:<value>`, split at the first colon); `attribute.<name>=<value>`, the
    /// first form, is still read. `None` when none is given.
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
                "language" => {
                    let tag = LanguageTag::parse(name, value)?;
                    if filter.language.replace(tag.as_str().to_owned()).is_some() {
                        return Err(Error::validation(name, "may be given once"));
                    }
                }
                "tag" => {
                    if !filter.tags.contains(value) {
                        filter.tags.push(value.clone());
                    }
                    if filter.tags.len() > MAX_FILTER_TAGS {
                        return Err(Error::validation("tag", format!("may be given at most {MAX_FILTER_TAGS} times")));
                    }
                }
                "attribute" => {
                    let Some((attribute, wanted)) = value.split_once(':') else {
                        return Err(Error::validation(name, "must be <name>:<value>, e.g. plan:pro"));
                    };
                    filter.add_attribute(name, attribute, wanted)?;
                }
                other => {
                    let Some(attribute) = other.strip_prefix("attribute.") else {
                        return Err(Error::validation(
                            other,
                            "is not a filter; use platform, appVersion, language, tag or attribute (<name>:<value>)",
                        ));
                    };
                    filter.add_attribute(other, attribute, value)?;
                }
            }
        }
        Ok((filter != Self::default()).then_some(filter))
    }

    /// One attribute filter, from the parameter `param` (named in refusals).
    fn add_attribute(&mut self, param: &str, attribute: &str, value: &str) -> Result<()> {
        if attribute.is_empty() || attribute.chars().count() > MAX_ATTRIBUTE_NAME_CHARS {
            return Err(Error::validation(
                param,
                format!("needs an attribute name of 1 to {MAX_ATTRIBUTE_NAME_CHARS} characters"),
            ));
        }
        if value.is_empty() {
            return Err(Error::validation(param, "needs a value to compare the attribute with"));
        }
        // The same pair twice says nothing new; two values for one name cannot both hold.
        if self.attributes.insert(attribute.to_owned(), value.to_owned()).is_some_and(|earlier| earlier != value) {
            return Err(Error::validation(param, "names an attribute already given another value"));
        }
        if self.attributes.len() > MAX_FILTER_ATTRIBUTES {
            return Err(Error::validation(
                "attribute",
                format!("at most {MAX_FILTER_ATTRIBUTES} attributes may be filtered on"),
            ));
        }
        Ok(())
    }

    pub fn matches(&self, segment: &Segment) -> bool {
        self.conditions().iter().all(|c| c.matches(segment))
    }

    /// The filter's conditions in a fixed order (platform, app version, language, tags as given,
    /// attributes by name): bit `i` of a [`ConditionCells`] key is condition `i`.
    pub fn conditions(&self) -> Vec<Condition> {
        let mut conditions = Vec::new();
        conditions.extend(self.platform_folded().map(Condition::Platform));
        conditions.extend(self.app_version.clone().map(Condition::AppVersion));
        conditions.extend(self.language.clone().map(Condition::Language));
        conditions.extend(self.tags.iter().cloned().map(Condition::Tag));
        conditions
            .extend(self.attributes.iter().map(|(name, value)| Condition::Attribute(name.clone(), value.clone())));
        conditions
    }

    /// This filter with one condition more; `None` when it cannot hold with the others (another
    /// platform, app version or value of the same attribute).
    pub fn and(&self, condition: &Condition) -> Option<Self> {
        let mut narrower = self.clone();
        let conflicts = |slot: &Option<String>, value: &str| slot.as_ref().is_some_and(|s| s != value);
        match condition {
            Condition::Platform(platform) => {
                if self.platform_folded().is_some_and(|p| p != *platform) {
                    return None;
                }
                narrower.platform = Some(platform.clone());
            }
            Condition::AppVersion(version) => {
                if conflicts(&self.app_version, version) {
                    return None;
                }
                narrower.app_version = Some(version.clone());
            }
            Condition::Language(language) => {
                if conflicts(&self.language, language) {
                    return None;
                }
                narrower.language = Some(language.clone());
            }
            Condition::Tag(tag) => {
                if !narrower.tags.contains(tag) {
                    narrower.tags.push(tag.clone());
                }
            }
            Condition::Attribute(name, value) => {
                if narrower.attributes.insert(name.clone(), value.clone()).is_some_and(|earlier| earlier != *value) {
                    return None;
                }
            }
        }
        Some(narrower)
    }
}

/// One condition of a [`ResultsFilter`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Condition {
    /// In ASCII lower case (the platform filter ignores ASCII case).
    Platform(String),
    AppVersion(String),
    /// A canonical language tag.
    Language(String),
    Tag(String),
    /// A name and the text its value is compared as.
    Attribute(String, String),
}

impl Condition {
    pub fn matches(&self, segment: &Segment) -> bool {
        match self {
            Condition::Platform(platform) => {
                segment.platform.as_ref().is_some_and(|s| s.eq_ignore_ascii_case(platform))
            }
            Condition::AppVersion(version) => segment.app_version.as_ref() == Some(version),
            Condition::Language(language) => segment.language.as_ref() == Some(language),
            Condition::Tag(tag) => segment.tags.contains(tag),
            Condition::Attribute(name, wanted) => {
                segment.attributes.get(name).and_then(attribute_text).is_some_and(|text| text == *wanted)
            }
        }
    }
}

/// The accepted sessions of a whole campaign grouped by which conditions of a filter they meet:
/// the key's bit `i` is set when a session meets condition `i` of
/// [`ResultsFilter::conditions`]; empty cells are left out. Every difference between views made
/// of these conditions (a view less a narrower one, and any sum and difference of such views) is
/// a union of cells, so a view is shown only when each of its cells is empty or holds at least
/// the floor.
pub type ConditionCells = BTreeMap<u64, u64>;

/// The cell key of a session's segment.
pub fn cell_of(conditions: &[Condition], segment: &Segment) -> u64 {
    conditions.iter().enumerate().filter(|(_, c)| c.matches(segment)).fold(0, |key, (i, _)| key | (1 << i))
}

/// The text an attribute filter compares a value with: strings, numbers and booleans; other values
/// match no filter.
pub fn attribute_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
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

/// How CSAT is counted: the share of 1 to 5 ratings in the top two boxes (4 and 5).
pub const CSAT_METHOD: &str = "TOP_2_BOX_1_TO_5";

/// CSAT counts the top two points of its 1 to 5 scale as satisfied.
const CSAT_SATISFIED: i64 = 4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Csat {
    /// Share of ratings in the top two points, 0 to 1, to three places.
    pub score: f64,
    pub satisfied: u64,
    pub rated: u64,
}

impl Csat {
    /// The CSAT of these ratings (value, how many); `None` when nobody rated.
    pub fn of<'a>(ratings: impl IntoIterator<Item = (&'a i64, &'a u64)>) -> Option<Self> {
        let (mut satisfied, mut rated) = (0_u64, 0_u64);
        for (rating, n) in ratings {
            rated += n;
            if *rating >= CSAT_SATISFIED {
                satisfied += n;
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let score = round(satisfied as f64 / rated as f64, 3);
        (rated > 0).then_some(Self { score, satisfied, rated })
    }
}

/// Why the breakdowns are empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suppression {
    /// The group has fewer accepted sessions than the floor.
    GroupBelowFloor,
    /// Some sessions that comparing this view with views of fewer of its conditions would set
    /// apart (those meeting some of its conditions but not the others, or none of them; with one
    /// condition, the sessions it leaves out) are fewer than the floor, but not none.
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
    /// Scored answers of the group by the language they were read in (primary subtag), in order.
    pub languages_scored: Vec<(String, u64)>,
    /// Text answers read in another language than their session's.
    pub answers_in_other_language: u64,
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
    /// Analyzed sessions whose text answers were read by an older analyzer and are being read
    /// again in the background; until then they count with their earlier results.
    pub pending_reanalysis: u64,
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

/// How NPS is counted: on a 0 to 10 recommendation question, promoters (9 and 10) minus
/// detractors (0 to 6), as percentages of everyone who rated.
pub const NPS_METHOD: &str = "PROMOTERS_9_10_MINUS_DETRACTORS_0_6";

/// The Net Promoter Score of the group's 0 to 10 recommendation ratings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Nps {
    /// Promoters' share minus detractors', in whole points from -100 to 100.
    pub score: i64,
    pub promoters: u64,
    pub passives: u64,
    pub detractors: u64,
    pub rated: u64,
}

impl Nps {
    /// The score of these ratings (value, how many); `None` when nobody rated.
    pub fn of<'a>(ratings: impl IntoIterator<Item = (&'a i64, &'a u64)>) -> Option<Self> {
        let (mut promoters, mut passives, mut detractors) = (0_u64, 0_u64, 0_u64);
        for (rating, n) in ratings {
            match rating {
                9.. => promoters += n,
                7 | 8 => passives += n,
                _ => detractors += n,
            }
        }
        let rated = promoters + passives + detractors;
        if rated == 0 {
            return None;
        }
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let score = ((promoters as f64 - detractors as f64) * 100.0 / rated as f64).round() as i64;
        Some(Self { score, promoters, passives, detractors, rated })
    }
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
    /// `None` without a 0 to 10 recommendation question, or before anyone rated it.
    pub nps: Option<Nps>,
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

#[cfg(test)]
mod nps_tests {
    use super::Nps;

    #[test]
    fn nps_is_promoters_minus_detractors_in_whole_points() {
        let ratings: Vec<(i64, u64)> = vec![(10, 3), (9, 2), (8, 2), (7, 1), (6, 1), (0, 3)];
        let nps = Nps::of(ratings.iter().map(|(r, n)| (r, n))).expect("rated");
        // 5 promoters, 3 passives, 4 detractors of 12: (5 - 4) / 12 = 8.3 points.
        assert_eq!(nps, Nps { score: 8, promoters: 5, passives: 3, detractors: 4, rated: 12 });
        let all_detractors: Vec<(i64, u64)> = vec![(3, 2)];
        assert_eq!(Nps::of(all_detractors.iter().map(|(r, n)| (r, n))).map(|n| n.score), Some(-100));
        assert_eq!(Nps::of(std::iter::empty()), None);
    }
}
