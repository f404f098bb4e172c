//! The query and response bodies of the results route, and their conversion from the domain.

use std::collections::BTreeMap;

use pulse_domain::analysis::models::ModelInfo;
use pulse_domain::campaigns::models::Campaign;
use pulse_domain::results::models::{
    CSAT_METHOD, CampaignResults, Csat, LabelCount, NPS_METHOD, Nps, ResultsFilter, SENTIMENT_THRESHOLD, ThemeCount,
};
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::channel::campaigns::json::{QualityRequest, question_kind};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsCampaignBody {
    pub campaign_id: Uuid,
    pub name: String,
    #[schema(example = "ACTIVE")]
    pub status: &'static str,
    /// Who could answer: `OPEN` (anyone with the public link) or `CLOSED` (the attached audience).
    #[schema(example = "OPEN")]
    pub respondent_group: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SentimentCountBody {
    /// `POSITIVE`, `NEUTRAL` or `NEGATIVE`.
    #[schema(example = "POSITIVE")]
    pub label: &'static str,
    pub count: u64,
}

impl From<&LabelCount> for SentimentCountBody {
    fn from(c: &LabelCount) -> Self {
        Self { label: c.label.as_str(), count: c.count }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ThemeBody {
    /// A key phrase, as most respondents wrote it (variants merged).
    pub theme: String,
    /// Accepted sessions of the group that mention it (at least 2).
    pub count: u64,
}

impl From<&ThemeCount> for ThemeBody {
    fn from(t: &ThemeCount) -> Self {
        Self { theme: t.theme.clone(), count: t.count }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CsatBody {
    /// Share of 1 to 5 ratings that are 4 or 5, from 0 to 1.
    pub score: f64,
    pub satisfied: u64,
    pub rated: u64,
}

/// The Net Promoter Score of 0 to 10 recommendation ratings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NpsBody {
    /// Promoters' share minus detractors', in whole points from -100 to 100.
    #[schema(minimum = -100, maximum = 100, example = 25)]
    pub score: i64,
    /// Ratings of 9 or 10.
    pub promoters: u64,
    /// Ratings of 7 or 8.
    pub passives: u64,
    /// Ratings of 0 to 6.
    pub detractors: u64,
    pub rated: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FilterBody {
    pub platform: Option<String>,
    pub app_version: Option<String>,
    /// The language filter as a canonical language tag (`pt-BR`).
    pub language: Option<String>,
    pub tags: Vec<String>,
    pub attributes: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelBody {
    pub name: String,
    pub version: String,
    /// Primary language subtags the model covers; answers in others get no score or theme.
    pub languages: Vec<String>,
    pub description: String,
}

impl From<&ModelInfo> for ModelBody {
    fn from(m: &ModelInfo) -> Self {
        Self {
            name: m.name.clone(),
            version: m.version.clone(),
            languages: m.languages.clone(),
            description: m.description.clone(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MethodologyBody {
    pub sentiment_model: ModelBody,
    pub theme_model: ModelBody,
    /// A session's sentiment is the mean compound score of its text answers: POSITIVE at 0.05 or
    /// more, NEGATIVE at -0.05 or less, NEUTRAL between.
    pub sentiment_threshold: f64,
    /// A phrase becomes a theme when at least this many sessions of the group mention it.
    pub min_theme_sessions: u64,
    /// CSAT counts the 4s and 5s of 1 to 5 rating questions.
    #[schema(example = json!(CSAT_METHOD))]
    pub csat_method: &'static str,
    /// NPS counts the 9s and 10s (promoters) less the 0s to 6s (detractors) of 0 to 10
    /// recommendation questions, as percentages of everyone who rated.
    #[schema(example = json!(NPS_METHOD))]
    pub nps_method: &'static str,
    /// Why the breakdowns are empty: `GROUP_BELOW_FLOOR`, `COMPLEMENT_BELOW_FLOOR` (comparing
    /// this view with views of fewer of its conditions would set fewer than the floor apart), or
    /// null.
    pub suppression: Option<&'static str>,
    /// `INCLUDED`, `NOT_PERMITTED` (the key lacks channel:transcripts) or `HIDDEN_BY_FLOOR`.
    #[schema(example = "NOT_PERMITTED")]
    pub quotes: &'static str,
    /// The languages the group's scored answers were read in (each answer's language is
    /// identified from its text, the session's language standing when the text is short or
    /// unclear), with how many answers each.
    pub languages_scored: Vec<LanguageCountBody>,
    /// Text answers read in another language than their session's.
    pub answers_in_other_language: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageCountBody {
    /// A primary language subtag.
    #[schema(example = "hi")]
    pub language: String,
    pub answers: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RejectionCountBody {
    /// `TOO_FAST`, `LOW_COVERAGE`, `TOO_FEW_WORDS` or `OVER_CAPACITY`.
    #[schema(example = "TOO_FAST")]
    pub reason: &'static str,
    pub count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AcceptanceBody {
    /// The campaign's `quality` block as provisioned.
    pub rules: QualityRequest,
    /// Finished sessions of the group whose analysis is recorded.
    pub analyzed: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub rejections: Vec<RejectionCountBody>,
    /// Whether the campaign holds `quality.targetCount` accepted sessions; null without a target.
    pub target_reached: Option<bool>,
    /// Whether the campaign holds `quality.maxResponses` accepted sessions.
    pub capacity_reached: bool,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InferredBody {
    /// The most frequent session sentiment; null when nothing was scored.
    pub dominant_sentiment: Option<&'static str>,
    /// Themes whose answers lean positive.
    pub positive_themes: Vec<String>,
    /// Themes whose answers lean negative.
    pub negative_themes: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsBody {
    /// Campaign-wide funnel (filters do not apply): attached respondents, those who finished
    /// through their invitation, sessions started and finished.
    pub invited: u64,
    pub responded: u64,
    pub started: u64,
    pub completed: u64,
    /// Finished sessions the analysis has not recorded yet.
    pub pending_analysis: u64,
    /// Analyzed sessions whose text answers an older analyzer read: they are read again in the
    /// background and count with their earlier results until then.
    pub pending_reanalysis: u64,
    pub completion_rate: Option<f64>,
    /// Of the group's accepted sessions; null when the floor applies.
    pub median_duration_secs: Option<u32>,
    pub average_coverage: Option<f64>,
    /// Text answers the sentiment model scored, and those in a language it does not cover.
    pub scored_answers: u64,
    pub unscored_answers: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingBody {
    pub min: i16,
    pub max: i16,
    pub mean: f64,
    pub distribution: Vec<RatingCountBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RatingCountBody {
    pub value: i16,
    pub count: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionResultBody {
    pub question_id: String,
    /// `rating` or `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// In the survey's default language.
    pub text: String,
    /// Accepted sessions of the group that answered it (shown below the floor too).
    pub answered: u64,
    /// Rating questions; null when the floor applies.
    pub rating: Option<RatingBody>,
    /// Text questions: answers by sentiment; empty when the floor applies.
    pub sentiment: Vec<SentimentCountBody>,
    pub themes: Vec<ThemeBody>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteBody {
    pub question_id: String,
    /// The answer with email addresses, phone numbers and links replaced by `[email]`, `[phone]`, `[link]`.
    pub text: String,
    pub sentiment: Option<&'static str>,
}

/// Aggregate results: counts, sentiment, themes and CSAT, never one person's answers or identity.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultsBody {
    pub campaign: ResultsCampaignBody,
    /// Accepted sessions in the group shown.
    pub accepted_count: u64,
    /// Accepted sessions weighted by the share of questions each answered, rounded.
    pub weighted_accepted_count: u64,
    /// Mean session sentiment from -1 to 1; 0 when the floor applies or nothing was scored.
    pub overall_sentiment_score: f64,
    pub csat: Option<CsatBody>,
    /// Null without a 0 to 10 recommendation question (asked with the brief's `nps`), before
    /// anyone rated it, or when the floor applies.
    pub nps: Option<NpsBody>,
    /// Accepted sessions by sentiment; empty when the floor applies.
    pub sentiment: Vec<SentimentCountBody>,
    pub themes: Vec<ThemeBody>,
    pub anonymity_floor: u32,
    /// True when the breakdowns are hidden (see `methodology.suppression`).
    pub floor_applied: bool,
    pub filter: Option<FilterBody>,
    #[serde(with = "time::serde::rfc3339")]
    pub generated_at: OffsetDateTime,
    pub methodology: MethodologyBody,
    pub acceptance: AcceptanceBody,
    pub inferred: InferredBody,
    pub metrics: MetricsBody,
    pub questions: Vec<QuestionResultBody>,
    /// Only for keys with channel:transcripts, above the floor; never with identity.
    pub quotes: Vec<QuoteBody>,
}

impl From<&Campaign> for ResultsCampaignBody {
    fn from(c: &Campaign) -> Self {
        Self {
            campaign_id: c.id.0,
            name: c.name.clone(),
            status: c.status.as_str(),
            respondent_group: c.audience.as_str(),
        }
    }
}

impl From<Csat> for CsatBody {
    fn from(c: Csat) -> Self {
        Self { score: c.score, satisfied: c.satisfied, rated: c.rated }
    }
}

impl From<Nps> for NpsBody {
    fn from(n: Nps) -> Self {
        Self { score: n.score, promoters: n.promoters, passives: n.passives, detractors: n.detractors, rated: n.rated }
    }
}

impl From<ResultsFilter> for FilterBody {
    fn from(f: ResultsFilter) -> Self {
        Self {
            platform: f.platform,
            app_version: f.app_version,
            language: f.language,
            tags: f.tags,
            attributes: f.attributes,
        }
    }
}

impl From<CampaignResults> for ResultsBody {
    fn from(r: CampaignResults) -> Self {
        let a = &r.acceptance;
        let m = &r.metrics;
        Self {
            campaign: ResultsCampaignBody::from(&r.campaign),
            accepted_count: r.accepted_count,
            weighted_accepted_count: r.weighted_accepted_count,
            overall_sentiment_score: r.overall_sentiment_score,
            csat: r.csat.map(CsatBody::from),
            nps: r.nps.map(NpsBody::from),
            sentiment: r.sentiment.iter().map(SentimentCountBody::from).collect(),
            themes: r.themes.iter().map(ThemeBody::from).collect(),
            anonymity_floor: r.anonymity_floor,
            floor_applied: r.floor_applied,
            filter: r.filter.map(FilterBody::from),
            generated_at: r.generated_at,
            methodology: MethodologyBody {
                sentiment_model: ModelBody::from(&r.methodology.sentiment),
                theme_model: ModelBody::from(&r.methodology.themes),
                sentiment_threshold: SENTIMENT_THRESHOLD,
                min_theme_sessions: r.methodology.min_theme_sessions,
                csat_method: CSAT_METHOD,
                nps_method: NPS_METHOD,
                suppression: r.methodology.suppression.map(|s| s.as_str()),
                quotes: r.methodology.quotes.as_str(),
                languages_scored: r
                    .methodology
                    .languages_scored
                    .iter()
                    .map(|(language, answers)| LanguageCountBody { language: language.clone(), answers: *answers })
                    .collect(),
                answers_in_other_language: r.methodology.answers_in_other_language,
            },
            acceptance: AcceptanceBody {
                rules: QualityRequest::from(&a.rules),
                analyzed: a.analyzed,
                accepted: a.accepted,
                rejected: a.rejected,
                rejections: a
                    .rejections
                    .iter()
                    .map(|(reason, count)| RejectionCountBody { reason: reason.as_str(), count: *count })
                    .collect(),
                target_reached: a.target_reached,
                capacity_reached: a.capacity_reached,
            },
            inferred: InferredBody {
                dominant_sentiment: r.inferred.dominant_sentiment.map(|l| l.as_str()),
                positive_themes: r.inferred.positive_themes.clone(),
                negative_themes: r.inferred.negative_themes.clone(),
            },
            metrics: MetricsBody {
                invited: m.invited,
                responded: m.responded,
                started: m.started,
                completed: m.completed,
                pending_analysis: m.pending_analysis,
                pending_reanalysis: m.pending_reanalysis,
                completion_rate: m.completion_rate,
                median_duration_secs: m.median_duration_secs,
                average_coverage: m.average_coverage,
                scored_answers: m.scored_answers,
                unscored_answers: m.unscored_answers,
            },
            questions: r
                .questions
                .iter()
                .map(|q| QuestionResultBody {
                    question_id: q.question_id.clone(),
                    kind: question_kind(q.kind).0,
                    text: q.text.clone(),
                    answered: q.answered,
                    rating: q.rating.as_ref().map(|s| RatingBody {
                        min: s.min,
                        max: s.max,
                        mean: s.mean,
                        distribution: s
                            .distribution
                            .iter()
                            .map(|(value, count)| RatingCountBody { value: *value, count: *count })
                            .collect(),
                    }),
                    sentiment: q.sentiment.iter().map(SentimentCountBody::from).collect(),
                    themes: q.themes.iter().map(ThemeBody::from).collect(),
                })
                .collect(),
            quotes: r
                .quotes
                .iter()
                .map(|q| QuoteBody {
                    question_id: q.question_id.clone(),
                    text: q.text.clone(),
                    sentiment: q.sentiment.map(|l| l.as_str()),
                })
                .collect(),
        }
    }
}

/// Optional filters; every one given must hold. A filter is never refused for isolating a small
/// group: the breakdowns are suppressed instead (`COMPLEMENT_BELOW_FLOOR`).
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ResultsQuery {
    /// The launch device's platform (`ios`, `android`...), case-insensitive.
    pub platform: Option<String>,
    /// The launch device's or app's version, exactly.
    #[param(rename = "appVersion")]
    pub app_version: Option<String>,
    /// The language the sessions were answered in, as a language tag (`en`, `pt-BR`), in any case.
    pub language: Option<String>,
    /// A tag of the signed launch token; repeat for several (all must be present).
    pub tag: Option<Vec<String>>,
    /// A launch attribute as `<name>:<value>` (split at the first colon), compared as text, e.g.
    /// `attribute=plan:pro`; repeat for several names (all must hold).
    pub attribute: Option<Vec<String>>,
}
