//! The export file as partners read it: camelCase JSON, one conversion from the domain's
//! [`ExportDocument`]. Enum values are the domain's stable strings, and the schema lists them
//! from the domain too, so the two cannot disagree.

use pulse_domain::analysis::models::{ModelInfo, Rejection};
use pulse_domain::campaigns::models::{CampaignStatus, QuestionKind};
use pulse_domain::exports::models::{ExportDocument, SCHEMA_NAME};
use pulse_domain::results::models::{
    self as results, CSAT_METHOD, Interval, LabelCount, NPS_METHOD, QuestionResult, SentimentLabel, ThemeCount,
};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use time::OffsetDateTime;
use uuid::Uuid;

/// Aggregate results of one campaign, tied to no person; breakdowns are withheld below the floor.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ExportFile {
    /// Always `svc.partner-export.v1.2`.
    #[schemars(schema_with = "schema_name")]
    pub schema: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(schema_with = "date_time")]
    pub generated_at: OffsetDateTime,
    pub campaign: Campaign,
    pub study: Study,
    pub funnel: Funnel,
    /// Null when no 1 to 5 rating was given, or the floor applies.
    pub csat: Option<Csat>,
    /// Null without a 0 to 10 recommendation question, when nobody rated it, or when the floor
    /// applies. Added in v1.1.
    pub nps: Option<Nps>,
    /// Accepted responses per sentiment label, by the mean score of their text answers.
    pub sentiment: Vec<SentimentCount>,
    pub questions: Vec<Question>,
    /// The most mentioned themes of the campaign.
    pub themes: Vec<Theme>,
    /// A few sentences written from the numbers alone.
    pub narrative: Vec<String>,
    /// Components this file leaves out, and why.
    pub exclusions: Vec<Exclusion>,
    /// The campaign week by week. Added in v1.2.
    pub trend: Trend,
    /// Answer texts, contact details redacted, in no person's order; only when asked for and allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<Transcript>")]
    pub transcripts: Option<Vec<Transcript>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Campaign {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    #[schemars(schema_with = "campaign_status")]
    pub status: &'static str,
}

/// The honesty block: what was asked, when, of how many, what was kept and why, by which models.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Study {
    pub questions: Vec<AskedQuestion>,
    pub period: Period,
    pub invited: u64,
    pub started: u64,
    pub completed: u64,
    pub accepted: u64,
    pub rejected: u64,
    /// Every rejection reason with its count.
    pub rejections: Vec<RejectionCount>,
    pub analyzers: Vec<Analyzer>,
    /// Languages whose answers truly got a sentiment score.
    pub languages_scored: Vec<String>,
    /// Accepted responses below which breakdowns are withheld.
    pub anonymity_floor: u32,
    /// Whether this file's breakdowns are withheld.
    pub floor_applied: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct AskedQuestion {
    pub id: String,
    #[schemars(schema_with = "question_kind")]
    pub kind: &'static str,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Period {
    /// When the campaign was launched; null if it never was.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schemars(schema_with = "nullable_date_time")]
    pub start: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(schema_with = "date_time")]
    pub end: OffsetDateTime,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RejectionCount {
    #[schemars(schema_with = "rejection_reason")]
    pub reason: &'static str,
    pub count: u64,
}

/// A model behind the scores and themes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Analyzer {
    pub name: String,
    pub version: String,
    /// Primary language subtags the model covers.
    pub languages: Vec<String>,
    pub description: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Funnel {
    pub invited: u64,
    pub responded: u64,
    pub started: u64,
    pub completed: u64,
    pub accepted: u64,
    /// Completed over started, 0 to 1; null before anyone started.
    pub completion_rate: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Csat {
    /// Share of ratings in the top two points, 0 to 1.
    pub score: f64,
    pub satisfied: u64,
    pub rated: u64,
    #[schemars(schema_with = "csat_method")]
    pub method: &'static str,
}

/// The Net Promoter Score of the 0 to 10 recommendation ratings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Nps {
    /// Promoters' share minus detractors', in whole points from -100 to 100.
    #[schemars(range(min = -100, max = 100))]
    pub score: i64,
    /// Ratings of 9 or 10.
    pub promoters: u64,
    /// Ratings of 7 or 8.
    pub passives: u64,
    /// Ratings of 0 to 6.
    pub detractors: u64,
    pub rated: u64,
    #[schemars(schema_with = "nps_method")]
    pub method: &'static str,
}

/// Accepted responses per period. Each bucket holds at least the floor's responses: a sparse
/// period is merged into a neighbour (its bucket's days say which), and none is given below the
/// floor.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Trend {
    #[schemars(schema_with = "interval")]
    pub interval: &'static str,
    /// The IANA time zone days are counted in.
    pub time_zone: String,
    pub buckets: Vec<TrendBucket>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TrendBucket {
    /// The first day of the period the bucket is labelled by.
    #[schemars(schema_with = "date")]
    pub period: String,
    /// The days its responses were completed on, both included.
    #[schemars(schema_with = "date")]
    pub first_day: String,
    #[schemars(schema_with = "date")]
    pub last_day: String,
    pub accepted: u64,
    /// Mean response sentiment, -1 to 1; null when nothing was scored.
    pub sentiment_score: Option<f64>,
    pub csat: Option<Csat>,
    pub nps: Option<Nps>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SentimentCount {
    #[schemars(schema_with = "sentiment_label")]
    pub label: &'static str,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Question {
    pub question_id: String,
    #[schemars(schema_with = "question_kind")]
    pub kind: &'static str,
    pub text: String,
    pub answered: u64,
    /// Null for a text question, and when the floor applies.
    pub rating: Option<Rating>,
    pub sentiment: Vec<SentimentCount>,
    pub themes: Vec<Theme>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Rating {
    pub min: i16,
    pub max: i16,
    pub mean: f64,
    pub distribution: Vec<RatingCount>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RatingCount {
    pub value: i16,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Theme {
    pub theme: String,
    /// Responses that mention it.
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Exclusion {
    pub component: &'static str,
    pub reason: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Transcript {
    pub question_id: String,
    pub text: String,
}

impl From<&ExportDocument> for ExportFile {
    fn from(document: &ExportDocument) -> Self {
        let campaign = &document.campaign;
        let study = &document.study;
        let funnel = &document.funnel;
        Self {
            schema: SCHEMA_NAME,
            generated_at: document.generated_at,
            campaign: Campaign {
                id: campaign.id.0,
                code: campaign.code.clone(),
                name: campaign.name.clone(),
                status: campaign.status.as_str(),
            },
            study: Study {
                questions: study
                    .questions
                    .iter()
                    .map(|q| AskedQuestion { id: q.id.clone(), kind: kind(q.kind), text: q.text.clone() })
                    .collect(),
                period: Period { start: study.period_start, end: study.period_end },
                invited: study.invited,
                started: study.started,
                completed: study.completed,
                accepted: study.accepted,
                rejected: study.rejected,
                rejections: study
                    .rejections
                    .iter()
                    .map(|&(reason, count)| RejectionCount { reason: reason.as_str(), count })
                    .collect(),
                analyzers: study.analyzers.iter().map(Analyzer::from).collect(),
                languages_scored: study.languages_scored.clone(),
                anonymity_floor: study.anonymity_floor,
                floor_applied: study.floor_applied,
            },
            funnel: Funnel {
                invited: funnel.invited,
                responded: funnel.responded,
                started: funnel.started,
                completed: funnel.completed,
                accepted: funnel.accepted,
                completion_rate: funnel.completion_rate,
            },
            csat: document.csat.map(Csat::from),
            nps: document.nps.map(Nps::from),
            sentiment: sentiment(&document.sentiment),
            questions: document.questions.iter().map(Question::from).collect(),
            themes: themes(&document.themes),
            narrative: document.narrative.clone(),
            exclusions: document
                .exclusions
                .iter()
                .map(|e| Exclusion { component: e.component, reason: e.reason })
                .collect(),
            trend: Trend {
                interval: document.trend.interval.as_str(),
                time_zone: document.trend.zone.as_str().to_owned(),
                buckets: document
                    .trend
                    .buckets
                    .iter()
                    .map(|b| TrendBucket {
                        period: b.period.to_string(),
                        first_day: b.first_day.to_string(),
                        last_day: b.last_day.to_string(),
                        accepted: b.accepted,
                        sentiment_score: b.overall_sentiment_score,
                        csat: b.csat.map(Csat::from),
                        nps: b.nps.map(Nps::from),
                    })
                    .collect(),
            },
            transcripts: document.transcripts.as_ref().map(|transcripts| {
                transcripts
                    .iter()
                    .map(|t| Transcript { question_id: t.question_id.clone(), text: t.text.clone() })
                    .collect()
            }),
        }
    }
}

impl From<results::Csat> for Csat {
    fn from(c: results::Csat) -> Self {
        Self { score: c.score, satisfied: c.satisfied, rated: c.rated, method: CSAT_METHOD }
    }
}

impl From<results::Nps> for Nps {
    fn from(n: results::Nps) -> Self {
        Self {
            score: n.score,
            promoters: n.promoters,
            passives: n.passives,
            detractors: n.detractors,
            rated: n.rated,
            method: NPS_METHOD,
        }
    }
}

impl From<&ModelInfo> for Analyzer {
    fn from(model: &ModelInfo) -> Self {
        Self {
            name: model.name.clone(),
            version: model.version.clone(),
            languages: model.languages.clone(),
            description: model.description.clone(),
        }
    }
}

impl From<&QuestionResult> for Question {
    fn from(question: &QuestionResult) -> Self {
        Self {
            question_id: question.question_id.clone(),
            kind: kind(question.kind),
            text: question.text.clone(),
            answered: question.answered,
            rating: question.rating.as_ref().map(|r| Rating {
                min: r.min,
                max: r.max,
                mean: r.mean,
                distribution: r.distribution.iter().map(|&(value, count)| RatingCount { value, count }).collect(),
            }),
            sentiment: sentiment(&question.sentiment),
            themes: themes(&question.themes),
        }
    }
}

/// The scale of a rating question is in its `rating` block, so the kind is only its name.
const fn kind(kind: QuestionKind) -> &'static str {
    match kind {
        QuestionKind::Rating { .. } => "rating",
        QuestionKind::Text => "text",
    }
}

fn sentiment(counts: &[LabelCount]) -> Vec<SentimentCount> {
    counts.iter().map(|c| SentimentCount { label: c.label.as_str(), count: c.count }).collect()
}

fn themes(counts: &[ThemeCount]) -> Vec<Theme> {
    counts.iter().map(|t| Theme { theme: t.theme.clone(), count: t.count }).collect()
}

fn one_of(values: impl IntoIterator<Item = &'static str>) -> Schema {
    let values: Vec<&str> = values.into_iter().collect();
    json_schema!({ "type": "string", "enum": values })
}

fn schema_name(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": SCHEMA_NAME })
}

fn csat_method(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": CSAT_METHOD })
}

fn nps_method(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "const": NPS_METHOD })
}

fn campaign_status(_: &mut SchemaGenerator) -> Schema {
    one_of([CampaignStatus::Draft, CampaignStatus::Active].map(CampaignStatus::as_str))
}

fn question_kind(_: &mut SchemaGenerator) -> Schema {
    // Any scale will do: the name leaves it out.
    one_of([QuestionKind::Rating { min: 1, max: 5 }, QuestionKind::Text].map(kind))
}

fn rejection_reason(_: &mut SchemaGenerator) -> Schema {
    one_of(Rejection::ALL.map(Rejection::as_str))
}

fn sentiment_label(_: &mut SchemaGenerator) -> Schema {
    one_of(SentimentLabel::ALL.map(SentimentLabel::as_str))
}

fn interval(_: &mut SchemaGenerator) -> Schema {
    one_of([Interval::Day, Interval::Week, Interval::Month].map(Interval::as_str))
}

fn date(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "format": "date" })
}

fn date_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "string", "format": "date-time" })
}

fn nullable_date_time(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": ["string", "null"], "format": "date-time" })
}
