//! `GET CH/campaigns/{id}/results/breakdown`: one row per group of a launch label.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::results::models::{Breakdown, BreakdownRow, Dimension};
use pulse_domain::tenancy::models::Scope;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::json::{CsatBody, FilterBody, NpsBody, ResultsCampaignBody, ResultsQuery, SentimentCountBody, ThemeBody};
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// What to group by; the results' filters narrow the sessions first.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BreakdownQuery {
    /// `platform`, `appVersion`, `language` (the language sessions were answered in), `tag` or
    /// `attribute:<name>` (a launch attribute's name).
    #[param(example = "platform")]
    pub by: String,
}

/// One group: its count always, its measures only when the floor allows.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BreakdownRowBody {
    /// The group's value (a platform in lower case); null for the sessions without the label
    /// (for `tag`, without any tag).
    pub value: Option<String>,
    /// Accepted sessions of the group.
    pub accepted_count: u64,
    /// Why the measures are null: `GROUP_BELOW_FLOOR`, `COMPLEMENT_BELOW_FLOOR`, `COMPLEMENTARY`
    /// (hidden so that another hidden row cannot be recovered by subtraction) or `UNLABELLED`
    /// (sessions without the label); null when they are shown.
    #[schema(example = json!(null))]
    pub suppression: Option<&'static str>,
    /// Mean session sentiment from -1 to 1.
    pub overall_sentiment_score: Option<f64>,
    /// Accepted sessions by sentiment; empty when suppressed.
    pub sentiment: Vec<SentimentCountBody>,
    pub csat: Option<CsatBody>,
    pub nps: Option<NpsBody>,
    /// The group's first three themes.
    pub themes: Vec<ThemeBody>,
}

impl From<BreakdownRow> for BreakdownRowBody {
    fn from(row: BreakdownRow) -> Self {
        let measures = row.measures;
        Self {
            value: row.value,
            accepted_count: row.accepted,
            suppression: row.suppression.map(|s| s.as_str()),
            overall_sentiment_score: measures.as_ref().map(|m| m.overall_sentiment_score),
            sentiment: measures
                .as_ref()
                .map(|m| m.sentiment.iter().map(SentimentCountBody::from).collect())
                .unwrap_or_default(),
            csat: measures.as_ref().and_then(|m| m.csat).map(CsatBody::from),
            nps: measures.as_ref().and_then(|m| m.nps).map(NpsBody::from),
            themes: measures.map(|m| m.themes.iter().map(ThemeBody::from).collect()).unwrap_or_default(),
        }
    }
}

/// The groups past the twentieth largest, together.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnlistedBody {
    pub groups: u64,
    pub accepted_count: u64,
}

/// The group a filter selects, broken down by one launch label.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BreakdownBody {
    pub campaign: ResultsCampaignBody,
    /// The dimension, as asked.
    #[schema(example = "platform")]
    pub by: String,
    pub filter: Option<FilterBody>,
    /// Accepted sessions of the group the filter selects (the rows' total, except for `tag`,
    /// where a session counts once per tag).
    pub accepted_count: u64,
    pub anonymity_floor: u32,
    /// Set when the group itself is suppressed (`GROUP_BELOW_FLOOR` or `COMPLEMENT_BELOW_FLOOR`):
    /// every row then shows its count only.
    pub suppression: Option<&'static str>,
    /// Largest group first, at most 20.
    pub rows: Vec<BreakdownRowBody>,
    pub unlisted: UnlistedBody,
    #[serde(with = "time::serde::rfc3339")]
    pub generated_at: OffsetDateTime,
}

impl From<Breakdown> for BreakdownBody {
    fn from(b: Breakdown) -> Self {
        Self {
            campaign: ResultsCampaignBody::from(&b.campaign),
            by: b.by.name(),
            filter: b.filter.map(FilterBody::from),
            accepted_count: b.accepted_count,
            anonymity_floor: b.anonymity_floor,
            suppression: b.suppression.map(|s| s.as_str()),
            rows: b.rows.into_iter().map(BreakdownRowBody::from).collect(),
            unlisted: UnlistedBody { groups: b.unlisted.groups, accepted_count: b.unlisted.accepted },
            generated_at: b.generated_at,
        }
    }
}

/// The results' measures per group of one launch label, each behind the floor.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}/results/breakdown", operation_id = "getCampaignResultsBreakdown",
    tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), BreakdownQuery, ResultsQuery),
    responses(
        (status = 200, body = BreakdownBody),
        (status = 400, description = "VALIDATION_FAILED naming `by` or a filter; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn get_breakdown<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    query: Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let id = campaign_id(&id)?;
    let (by, filter) = Dimension::parse(&query)?;
    let breakdown = state.results.breakdown(&principal, workspace_header(&req), id, by, filter).await?;
    Ok(json_response(StatusCode::OK, &BreakdownBody::from(breakdown), rate))
}
