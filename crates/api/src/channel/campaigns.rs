//! `POST /campaigns`, `GET /campaigns/{id}`, `POST /campaigns/{id}/respondents`,
//! `POST /campaigns/{id}/launch` and `POST /launch`.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::campaigns::models::{
    AudienceRowInput, BriefInput, CampaignOverview, Delivery, DeliveryChannel, DeliveryInput, LaunchInput,
    MAX_ROWS_PER_CALL, Order, OrderInput, ProvisionInput, Quality, QualityInput, Question, QuestionKind,
};
use pulse_domain::campaigns::service::AttachedRespondent;
use pulse_domain::ids::{CampaignId, SurveyId};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::tenancy::models::Scope;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::{Admitted, admit};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, idempotent, json_response, parse_json, workspace_header};
use crate::state::{AppState, Platform};

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefConstraints {
    /// 1 to 50; default 5.
    #[schema(minimum = 1, maximum = 50)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_count: Option<i64>,
    /// Language tags; the first is the survey's default. At most 20; default `["en"]`.
    #[schema(max_items = 20)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
    /// For example `friendly` or `formal`.
    #[schema(max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<String>,
    /// No generated question mentions one of these.
    #[schema(max_items = 50)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banned_topics: Option<Vec<String>>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefRequest {
    /// What the partner wants to learn, 10 to 4000 characters.
    #[schema(min_length = 10, max_length = 4000)]
    pub intent_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<BriefConstraints>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QualityRequest {
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_count: Option<i64>,
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_responses: Option<i64>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration_secs: Option<i64>,
    #[schema(minimum = 0, maximum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_coverage_ratio: Option<f64>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_answer_words: Option<i64>,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeliveryChannelDto {
    Email,
    Whatsapp,
    Sms,
    Telephony,
}

impl From<DeliveryChannelDto> for DeliveryChannel {
    fn from(c: DeliveryChannelDto) -> Self {
        match c {
            DeliveryChannelDto::Email => DeliveryChannel::Email,
            DeliveryChannelDto::Whatsapp => DeliveryChannel::Whatsapp,
            DeliveryChannelDto::Sms => DeliveryChannel::Sms,
            DeliveryChannelDto::Telephony => DeliveryChannel::Telephony,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeliveryRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<DeliveryChannelDto>>,
    #[schema(minimum = 0, maximum = 4)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder_count: Option<i64>,
    #[schema(minimum = 1, maximum = 90)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_retention_days: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub greet_by_name: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrderRequest {
    #[schema(max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_type: Option<String>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted_price_inr: Option<i64>,
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_responses_committed: Option<i64>,
}

/// Exactly one of `brief` and `surveyId`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProvisionRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brief: Option<BriefRequest>,
    /// Reuse a survey of this workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey_id: Option<Uuid>,
    /// Defaults to the survey's title.
    #[schema(min_length = 1, max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<QualityRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<OrderRequest>,
}

impl From<ProvisionRequest> for ProvisionInput {
    fn from(r: ProvisionRequest) -> Self {
        Self {
            brief: r.brief.map(|b| {
                let c = b.constraints.unwrap_or(BriefConstraints {
                    question_count: None,
                    languages: None,
                    tone: None,
                    banned_topics: None,
                });
                BriefInput {
                    intent_text: b.intent_text,
                    question_count: c.question_count,
                    languages: c.languages,
                    tone: c.tone,
                    banned_topics: c.banned_topics,
                }
            }),
            survey_id: r.survey_id.map(SurveyId),
            name: r.name,
            quality: r.quality.map(|q| QualityInput {
                target_count: q.target_count,
                max_responses: q.max_responses,
                min_duration_secs: q.min_duration_secs,
                min_coverage_ratio: q.min_coverage_ratio,
                min_answer_words: q.min_answer_words,
            }),
            delivery: r.delivery.map(|d| DeliveryInput {
                channels: d.channels.map(|c| c.into_iter().map(DeliveryChannel::from).collect()),
                reminder_count: d.reminder_count,
                audio_retention_days: d.audio_retention_days,
                greet_by_name: d.greet_by_name,
            }),
            order: r.order.map(|o| OrderInput {
                package_type: o.package_type,
                quoted_price_inr: o.quoted_price_inr,
                accepted_responses_committed: o.accepted_responses_committed,
            }),
        }
    }
}

/// The scale of a rating question.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScaleBody {
    pub min: i16,
    pub max: i16,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveyQuestionBody {
    /// Stable within the survey: `q1`, `q2`...
    pub id: String,
    /// `rating` or `text`.
    #[serde(rename = "type")]
    #[schema(example = "rating")]
    pub kind: &'static str,
    pub required: bool,
    /// For rating questions; null for text.
    pub scale: Option<ScaleBody>,
    /// The question in every language of the survey.
    pub texts: BTreeMap<String, String>,
}

pub(crate) fn question_kind(question: &Question) -> (&'static str, Option<ScaleBody>) {
    match question.kind {
        QuestionKind::Rating { min, max } => ("rating", Some(ScaleBody { min, max })),
        QuestionKind::Text => ("text", None),
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveyBody {
    pub id: Uuid,
    pub title: String,
    pub languages: Vec<String>,
    pub default_language: String,
    pub questions: Vec<SurveyQuestionBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BlockerBody {
    /// `WORKSPACE_NOT_APPROVED`, `WORKSPACE_SUSPENDED`, `NO_EMAIL_RECIPIENTS` or `NO_PHONE_RECIPIENTS`.
    pub code: &'static str,
    pub description: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadinessBody {
    /// True when `POST /campaigns/{id}/launch` would succeed (or the campaign is live).
    pub launch_ready: bool,
    pub blockers: Vec<BlockerBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CountsBody {
    /// Respondents attached to the campaign.
    pub invited: u64,
    /// Attached respondents who finished a session through their invitation (single-use link).
    pub responded: u64,
    /// Sessions started with consent.
    pub started: u64,
    /// Sessions completed.
    pub completed: u64,
}

/// A campaign: status, readiness with its blockers, counts, and its survey.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignBody {
    pub id: Uuid,
    /// The public code in `{survey_url}/p/<code>`.
    pub code: String,
    pub name: String,
    /// `DRAFT` until launched, then `ACTIVE` (collecting).
    #[schema(example = "DRAFT")]
    pub status: &'static str,
    /// `OPEN` (anyone with the public link) or `CLOSED` (respondents attached before launch).
    #[schema(example = "OPEN")]
    pub audience: &'static str,
    pub workspace_id: Uuid,
    /// Whether public starts need a signed launch token or a minted link.
    pub require_signed: bool,
    pub public_url: String,
    pub readiness: ReadinessBody,
    pub counts: CountsBody,
    pub anonymity_floor: u32,
    #[schema(value_type = Object)]
    pub quality: Quality,
    #[schema(value_type = Object)]
    pub delivery: Delivery,
    #[schema(value_type = Object)]
    pub order: Order,
    pub survey: SurveyBody,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub launched_at: Option<OffsetDateTime>,
}

impl CampaignBody {
    fn new(o: CampaignOverview, survey_url: &str) -> Self {
        let blockers = if o.campaign.status == pulse_domain::campaigns::models::CampaignStatus::Active {
            Vec::new()
        } else {
            o.blockers()
        };
        let c = o.campaign;
        Self {
            id: c.id.0,
            public_url: format!("{survey_url}/p/{}", c.code),
            code: c.code,
            name: c.name,
            status: c.status.as_str(),
            audience: c.audience.as_str(),
            workspace_id: c.workspace_id.0,
            require_signed: c.require_signed,
            readiness: ReadinessBody {
                launch_ready: blockers.is_empty(),
                blockers: blockers
                    .into_iter()
                    .map(|b| BlockerBody { code: b.code, description: b.description })
                    .collect(),
            },
            counts: CountsBody {
                invited: o.counts.invited,
                responded: o.counts.responded,
                started: o.counts.started,
                completed: o.counts.completed,
            },
            anonymity_floor: c.anonymity_floor,
            quality: c.quality,
            delivery: c.delivery,
            order: c.order,
            survey: SurveyBody {
                id: o.survey.id.0,
                title: o.survey.title.clone(),
                default_language: o.survey.default_language().as_str().to_owned(),
                languages: o.survey.languages.iter().map(|l| l.as_str().to_owned()).collect(),
                questions: o
                    .survey
                    .questions
                    .iter()
                    .map(|q| {
                        let (kind, scale) = question_kind(q);
                        SurveyQuestionBody {
                            id: q.id.clone(),
                            kind,
                            required: q.required,
                            scale,
                            texts: q.texts.iter().map(|(l, t)| (l.as_str().to_owned(), t.clone())).collect(),
                        }
                    })
                    .collect(),
            },
            created_at: c.created_at,
            launched_at: c.launched_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProvisionResponse {
    pub campaign: CampaignBody,
    /// False on an idempotent replay.
    pub created: bool,
}

fn to_value<T: Serialize>(value: &T) -> Result<serde_json::Value, Error> {
    serde_json::to_value(value).map_err(Error::internal)
}

/// Provision a campaign: generate a survey from a brief (or reuse one), publish it and create
/// the campaign as a `DRAFT`, in one transaction.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(
        ("X-SVC-Workspace" = Option<Uuid>, Header, description = "Required when the key reaches more than one workspace"),
        ("Idempotency-Key" = Option<String>, Header, description = "Makes the POST replay-safe for 24 hours"),
    ),
    request_body = ProvisionRequest,
    responses(
        (status = 201, description = "Provisioned", body = ProvisionResponse),
        (status = 200, description = "Idempotent replay (`Idempotency-Replayed: true`, `created: false`)", body = ProvisionResponse),
        (status = 400, description = "VALIDATION_FAILED naming the field (also neither or both of brief and surveyId, or a language the generator cannot write); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or foreign workspace, or a survey of another workspace", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key reused with another body or in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn provision<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } =
        admit(&state, &req, &[Scope::PROVISION], QuotaFamily::Provision).await?;
    let request: ProvisionRequest = parse_json(&req, &body)?;
    let canonical = to_value(&request)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let overview = state.campaigns.provision(&principal, workspace.as_deref(), request.into()).await?;
        let campaign = to_value(&CampaignBody::new(overview, state.campaigns.survey_url()))?;
        Ok(Reply {
            status: StatusCode::CREATED,
            body: serde_json::json!({ "campaign": campaign, "created": true }),
            replay_body: serde_json::json!({ "campaign": campaign, "created": false }),
        })
    })
    .await
}

/// A campaign's status, readiness (with the list of blockers), counts and survey.
#[utoipa::path(
    get, path = "/api/v1/channel/campaigns/{id}", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header)),
    responses(
        (status = 200, body = CampaignBody),
(status = 400, description = "WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision or channel:results) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `campaign_read` quota", body = ErrorBody),
    )
)]
pub async fn get_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } =
        admit(&state, &req, &[Scope::PROVISION, Scope::RESULTS], QuotaFamily::CampaignRead).await?;
    let id = campaign_id(&id)?;
    let overview = state.campaigns.get(&principal, workspace_header(&req), id).await?;
    Ok(json_response(StatusCode::OK, &CampaignBody::new(overview, state.campaigns.survey_url()), rate))
}

/// A path id that is not a uuid names no campaign: the same 404 as an unknown one.
pub(crate) fn campaign_id(text: &str) -> Result<CampaignId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("campaign")))
}

// No `Debug`: rows carry contact details.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AudienceRowRequest {
    /// The partner's own id of the respondent; the same ref updates the same respondent.
    #[schema(min_length = 1, max_length = 200)]
    pub external_ref: String,
    #[schema(max_length = 200)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Stored encrypted, never returned.
    #[schema(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Stored encrypted, never returned.
    #[schema(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AudienceRequest {
    /// 1 to 1000 rows.
    #[schema(min_items = 1, max_items = 1000)]
    pub rows: Vec<AudienceRowRequest>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RespondentOutcomeBody {
    /// The row's position in the request.
    pub index: usize,
    pub external_ref: String,
    pub respondent_id: Uuid,
    /// `CREATED` or `UPDATED`.
    #[schema(example = "CREATED")]
    pub outcome: &'static str,
    /// The respondent's single-use invitation, `{survey_url}/s/<code>/<nonce>`; the same link on every update.
    pub invitation_url: String,
    /// Whether the invitation was already used to answer.
    pub responded: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AudienceResponse {
    /// One outcome per input row, in order.
    pub rows: Vec<RespondentOutcomeBody>,
}

fn outcome_body(index: usize, r: AttachedRespondent) -> RespondentOutcomeBody {
    RespondentOutcomeBody {
        index,
        external_ref: r.external_ref,
        respondent_id: r.respondent_id.0,
        outcome: r.outcome.as_str(),
        invitation_url: r.invitation_url,
        responded: r.responded,
    }
}

/// Attach respondents by the partner's own reference. Every row is checked first: one bad row
/// refuses the call (naming `rows[i].field`) and nothing is stored.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/respondents", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    request_body = AudienceRequest,
    responses(
        (status = 200, description = "One outcome per input row, with its invitation link", body = AudienceResponse),
        (status = 400, description = "VALIDATION_FAILED naming `rows[i].field`, or more than 1000 rows; WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:audience) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key reused with another body or in flight", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE: over 1 MiB", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `audience` quota", body = ErrorBody),
    )
)]
pub async fn attach_respondents<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } = admit(&state, &req, &[Scope::AUDIENCE], QuotaFamily::Audience).await?;
    let id = campaign_id(&id)?;
    let request: AudienceRequest = parse_json(&req, &body)?;
    if request.rows.len() > MAX_ROWS_PER_CALL {
        return Err(ApiError(Error::validation("rows", format!("at most {MAX_ROWS_PER_CALL} rows per call"))));
    }
    let canonical = to_value(&request)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    let rows: Vec<AudienceRowInput> = request
        .rows
        .into_iter()
        .map(|r| AudienceRowInput { external_ref: r.external_ref, name: r.name, email: r.email, phone: r.phone })
        .collect();
    idempotent(&state, &req, &subject, &canonical, rate, || async {
        let attached = state.campaigns.attach_audience(&principal, workspace.as_deref(), id, rows).await?;
        let body = to_value(&AudienceResponse {
            rows: attached.into_iter().enumerate().map(|(i, r)| outcome_body(i, r)).collect(),
        })?;
        Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
    })
    .await
}

/// Launch a campaign: it starts collecting (`ACTIVE`). Launching a live campaign again answers 200.
#[utoipa::path(
    post, path = "/api/v1/channel/campaigns/{id}/launch", tag = "campaigns",
    security(("apiKey" = []), ("bearer" = [])),
    params(("id" = Uuid, Path), ("X-SVC-Workspace" = Option<Uuid>, Header), ("Idempotency-Key" = Option<String>, Header)),
    responses(
        (status = 200, description = "The campaign, now ACTIVE", body = CampaignBody),
        (status = 400, description = "NOT_LAUNCH_READY: the description names the blocker (such as WORKSPACE_NOT_APPROVED); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (channel:provision) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "CONFLICT: Idempotency-Key in flight", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `provision` quota", body = ErrorBody),
    )
)]
pub async fn launch_campaign<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    id: Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, subject, rate } =
        admit(&state, &req, &[Scope::PROVISION], QuotaFamily::Provision).await?;
    let id = campaign_id(&id)?;
    let workspace = workspace_header(&req).map(str::to_owned);
    idempotent(&state, &req, &subject, &serde_json::json!({ "id": id }), rate, || async {
        let overview = state.campaigns.launch(&principal, workspace.as_deref(), id).await?;
        let body = to_value(&CampaignBody::new(overview, state.campaigns.survey_url()))?;
        Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
    })
    .await
}

// The schema of `device` in the OpenAPI document only: the body is read as a map and checked by
// the domain, which refuses any other key.
/// Only these device keys; each value a string of at most 64 characters.
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct DeviceLabels {
    pub platform: Option<String>,
    pub os_name: Option<String>,
    pub os_version: Option<String>,
    pub device_vendor: Option<String>,
    pub device_model: Option<String>,
    pub browser_name: Option<String>,
    pub browser_version: Option<String>,
    pub app_id: Option<String>,
    pub app_version: Option<String>,
    pub app_build: Option<String>,
    pub sdk_version: Option<String>,
    pub locale: Option<String>,
    pub timezone: Option<String>,
    pub network_type: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchLinkRequest {
    pub campaign_id: Uuid,
    /// Stored only as a keyed digest.
    #[schema(max_length = 200)]
    #[serde(default)]
    pub external_user_ref: Option<String>,
    /// Rides on the link as `?lang=`; a language the campaign does not offer falls back to its default.
    #[schema(min_length = 2, max_length = 24)]
    #[serde(default)]
    pub language: Option<String>,
    #[schema(value_type = Option<DeviceLabels>)]
    #[serde(default)]
    pub device: Option<serde_json::Map<String, serde_json::Value>>,
    /// At most 64 keys and 8 KB of JSON; string, number or boolean values only.
    #[schema(value_type = Option<Object>)]
    #[serde(default)]
    pub attributes: Option<serde_json::Map<String, serde_json::Value>>,
}

// No `Debug`: the url is a capability.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchLinkResponse {
    /// `{survey_url}/p/<code>?lt=<token>&lang=<language>` for an open campaign,
    /// `{survey_url}/s/<code>/<nonce>?lang=<language>` for a closed-list one. Single use.
    pub url: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

/// Mint a single-use respondent link that carries the partner's context; it expires in 10
/// minutes. This route ignores `Idempotency-Key`: its answer is a secret link.
#[utoipa::path(
    post, path = "/api/v1/channel/launch", tag = "sessions",
    security(("apiKey" = []), ("bearer" = [])),
    params(("X-SVC-Workspace" = Option<Uuid>, Header)),
    request_body = LaunchLinkRequest,
    responses(
        (status = 201, description = "Minted", body = LaunchLinkResponse),
        (status = 400, description = "VALIDATION_FAILED: oversized or malformed context (attributes over 64 keys or 8 KB, non-primitive values, unknown device key or property); WORKSPACE_REQUIRED", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSION (sessions:launch) or NO_ORG", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign or another workspace's", body = ErrorBody),
        (status = 409, description = "CAMPAIGN_NOT_COLLECTING: the campaign is not ACTIVE", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: hourly `launch` quota", body = ErrorBody),
    )
)]
pub async fn mint_launch_link<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let Admitted { principal, rate, .. } = admit(&state, &req, &[Scope::LAUNCH], QuotaFamily::Launch).await?;
    let request: LaunchLinkRequest = parse_json(&req, &body)?;
    let input = LaunchInput {
        campaign_id: CampaignId(request.campaign_id),
        external_user_ref: request.external_user_ref,
        language: request.language,
        device: request.device,
        attributes: request.attributes,
    };
    let minted = state.campaigns.mint_link(&principal, workspace_header(&req), input).await?;
    Ok(json_response(StatusCode::CREATED, &LaunchLinkResponse { url: minted.url, expires_at: minted.expires_at }, rate))
}
