//! `GET CH/campaigns/{id}/results/trend`: the results' measures over time.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::results::models::{Trend, TrendBucket, TrendRequest};
use pulse_domain::tenancy::models::Scope;
use serde::Serialize;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::json::{CsatBody, FilterBody, NpsBody, ResultsCampaignBody, ResultsQuery};
use crate::channel::campaigns::campaign_id;
use crate::channel::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{json_response, workspace_header};
use crate::state::{AppState, Platform};

/// The buckets to read; the results' filters narrow the sessions first.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrendQuery {
    /// `day`, `week` (from Monday; the default) or `month`.
    #[param(example = "week")]
    pub interval: Option<String>,
    /// The first local day wanted, `YYYY-MM-DD`; widened to the start of its block.
    #[param(example = "2026-11-02")]
    pub from: Option<String>,
    /// The last local day wanted, `YYYY-MM-DD`, at most 3660 days after `from`; widened to the end
    /// of its block.
    #[param(example = "2026-11-22")]
    pub to: Option<String>,
    /// The IANA time zone days are counted in; `UTC` by default.
    #[param(rename = "timeZone", example = "Europe/Paris")]
    pub time_zone: Option<String>,
}

/// The accepted sessions of one period's blocks.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendBucketBody {
    /// The first day of the period the bucket is labelled by (the day, the week's Monday, the
    /// month's first).
    #[schema(example = "2026-11-02")]
    pub period: String,
    /// The days the bucket's sessions were completed on, both included: the period's, or wider
    /// when a sparse neighbour was merged into it.
    #[schema(example = "2026-11-02")]
    pub first_day: String,
    #[schema(example = "2026-11-15")]
    pub last_day: String,
    pub accepted_count: u64,
    /// Mean session sentiment from -1 to 1; null when nothing was scored.
    pub overall_sentiment_score: Option<f64>,
    pub csat: Option<CsatBody>,
    pub nps: Option<NpsBody>,
}

impl From<TrendBucket> for TrendBucketBody {
    fn from(b: TrendBucket) -> Self {
        Self {
            period: b.period.to_string(),
            first_day: b.first_day.to_string(),
            last_day: b.last_day.to_string(),
            accepted_count: b.accepted,
            overall_sentiment_score: b.overall_sentiment_score,
            csat: b.csat.map(CsatBody::from),
            nps: b.nps.map(NpsBody::from),
        }
    }
}

/// The group a filter selects over time, in buckets of at least the floor's sessions.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendBody {
    pub campaign: ResultsCampaignBody,
    /// `day`, `week` or `month`.
    #[schema(example = "week")]
    pub interval: &'static str,
    #[schema(example = "Europe/Paris")]
    pub time_zone: String,
    pub filter: Option<FilterBody>,
    /// The days the buckets cover, both included; null without buckets.
    pub first_day: Option<String>,
    pub last_day: Option<String>,
    pub anonymity_floor: u32,
    /// Why there are no buckets: `GROUP_BELOW_FLOOR` (fewer accepted sessions than the floor,
    /// none included) or `COMPLEMENT_BELOW_FLOOR` (the filter's cells); null otherwise.
    pub suppression: Option<&'static str>,
    /// In time order; a period whose sessions were merged into a neighbour has no bucket.
    pub buckets: Vec<TrendBucketBody>,
    #[serde(with = "time::serde::rfc3339")]
    pub generated_at: OffsetDateTime,
}

impl From<Trend> for TrendBody {
    fn from(t: Trend) -> Self {
        Self {
            campaign: ResultsCampaignBody::from(&t.campaign),
            interval: t.interval.as_str(),
            time_zone: t.zone.as_str().to_owned(),
            filter: t.filter.map(FilterBody::from),
            first_day: t.first_day.map(|d| d.to_string()),
            last_day: t.last_day.map(|d| d.to_string()),
            anonymity_floor: t.anonymity_floor,
            suppression: t.suppression.map(|s| s.as_str()),
            buckets: t.buckets.into_iter().map(TrendBucketBody::from).collect(),
            generated_at: t.generated_at,
        }
    }
}

/// Accepted sessions, CSAT, NPS and mean sentiment per day, week or month.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}/results/trend", operation_id = "getCampaignResultsTrend",
    tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), TrendQuery, ResultsQuery),
    responses(
        (status = 200, body = TrendBody),
        (status = 400, description = "VALIDATION_FAILED naming `interval`, `from`, `to`, `timeZone` or a filter; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn get_trend<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    query: Query<Vec<(String, String)>>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let id = campaign_id(&id)?;
    let request = TrendRequest::parse(&query)?;
    let trend = state.results.trend(&principal, workspace_header(&req), id, request).await?;
    Ok(json_response(StatusCode::OK, &TrendBody::from(trend), rate))
}
