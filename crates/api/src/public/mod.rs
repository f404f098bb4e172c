//! The public respondent routes, `/api/v1/public/pulse/{code}/...`: no secret; the campaign code
//! is public, single-use links and tokens gate starts, and a session token gates answers.

use actix_web::http::StatusCode;
use actix_web::web::{self, Bytes, Data, Path, Query};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::Error;
use pulse_domain::ids::SessionId;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::sessions::models::{AnswerInput, Progress, StartInput, StartOutcome, Visit};
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::channel::campaigns::{ScaleBody, question_kind};
use crate::error::{ApiError, ErrorBody};
use crate::request::{Reply, bearer_token, idempotent, json_response, network_subject, no_store, parse_json};
use crate::state::{AppState, Platform};

pub const PREFIX: &str = "/api/v1/public/pulse";

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope(PREFIX)
            .service(web::resource("/{code}/access").route(web::get().to(access::<P>)))
            .service(web::resource("/{code}/start").route(web::post().to(start::<P>)))
            .service(web::resource("/{code}/sessions/{session_id}/answers").route(web::post().to(answer::<P>)))
            .service(web::resource("/{code}/sessions/{session_id}/complete").route(web::post().to(complete::<P>))),
    );
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AccessQuery {
    /// The signed launch token from the page's `?lt=`; checked, never spent here.
    pub lt: Option<String>,
    /// The nonce of a `/s/<code>/<nonce>` link.
    pub invitation: Option<String>,
    /// The page's `?lang=`.
    pub lang: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RefusalBody {
    /// `LAUNCH_SIGNATURE_REQUIRED` or `LAUNCH_TOKEN_INVALID`.
    pub code: &'static str,
    pub title: &'static str,
    pub description: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccessBody {
    pub require_signed: bool,
    /// `NOT_REQUIRED`, `VALID`, `MISSING` or `INVALID`.
    #[schema(example = "NOT_REQUIRED")]
    pub state: &'static str,
    /// What a start would be refused with; the page shows the open-from-the-app instruction.
    pub refusal: Option<RefusalBody>,
    /// The language the session would use.
    pub language: Option<String>,
}

/// Check a visit before consent: whether a signed launch is required and whether the token (or
/// invitation) is valid. Read-only: a valid token is not used up.
#[utoipa::path(
    get, path = "/api/v1/public/pulse/{code}/access", tag = "public",
    params(("code" = String, Path, description = "The campaign's public code"), AccessQuery),
    responses(
        (status = 200, body = AccessBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many link checks from this network this hour (`access_check`)", body = ErrorBody),
    )
)]
pub async fn access<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    code: Path<String>,
    query: Query<AccessQuery>,
) -> Result<HttpResponse, ApiError> {
    let rate = state.quotas.hit(&network_subject(&req, &state.network), QuotaFamily::AccessCheck).await?;
    let query = query.into_inner();
    let visit = Visit { launch_token: query.lt, invitation: query.invitation, language: query.lang };
    let access = state.respondents.access(&code, &visit).await?;
    let body = AccessBody {
        require_signed: access.require_signed,
        state: access.state.as_str(),
        refusal: access.refusal.map(|(code, description)| RefusalBody {
            code: code.as_str(),
            title: code.title(),
            description,
        }),
        language: Some(access.language.as_str().to_owned()),
    };
    Ok(json_response(StatusCode::OK, &body, rate))
}

// No `Debug`: tokens ride in it.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartRequest {
    /// Must be true; nothing is created without consent.
    #[serde(default)]
    pub consent_given: Option<bool>,
    #[schema(max_length = 24)]
    #[serde(default)]
    pub language: Option<String>,
    /// The signed install id from `?inst=`.
    #[serde(default)]
    pub install_id: Option<String>,
    /// The access token from the fragment `#dt=`; a bad or expired one is ignored.
    #[schema(max_length = 1024)]
    #[serde(default)]
    pub device_token: Option<String>,
    /// The signed launch token from `?lt=`; verified and used up here.
    #[schema(max_length = 4096)]
    #[serde(default)]
    pub launch_token: Option<String>,
    /// The nonce of a `/s/<code>/<nonce>` link; used up here.
    #[schema(max_length = 64)]
    #[serde(default)]
    pub invitation: Option<String>,
    /// Short device and app labels (string, number or boolean); unreadable values are ignored.
    #[schema(value_type = Option<Object>)]
    #[serde(default)]
    pub client: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionQuestionBody {
    pub id: String,
    /// `rating` or `text`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The question in the session's language.
    pub text: String,
    pub required: bool,
    pub scale: Option<ScaleBody>,
}

/// A created session. Send `sessionToken` as `Authorization: Bearer` to the answer routes.
// No `Debug`: it holds the session token.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartedBody {
    pub session_id: uuid::Uuid,
    pub session_token: String,
    pub language: String,
    pub questions: Vec<SessionQuestionBody>,
}

/// Nothing was created.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotStartedBody {
    /// Always false.
    pub started: bool,
    /// `CONSENT_REQUIRED`, `CAMPAIGN_NOT_OPEN` (not collecting) or `INVITATION_REQUIRED` (a
    /// closed-list campaign opened without its invitation).
    #[schema(example = "CONSENT_REQUIRED")]
    pub reason: &'static str,
}

/// Start a respondent session: consent, then the launch token or invitation is verified and used
/// up together with the session's creation.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/start", tag = "public",
    params(("code" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "Replays the same answer for 24 hours; honoured only with a launchToken or invitation")),
    request_body = StartRequest,
    responses(
        (status = 201, description = "Session created", body = StartedBody),
        (status = 200, description = "Nothing created: consent not given, campaign not open, or an invitation needed", body = NotStartedBody),
        (status = 400, description = "VALIDATION_FAILED: an over-long field or malformed body", body = ErrorBody),
        (status = 403, description = "LAUNCH_SIGNATURE_REQUIRED (signed-only campaign, no token) or LAUNCH_TOKEN_INVALID (bad, expired, spent or another campaign's token or link)", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown campaign code", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: too many start attempts from this network (`start_attempt`), or responses paused for the campaign (quality.maxResponses reached)", body = ErrorBody),
    )
)]
pub async fn start<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    code: Path<String>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let rate = state.quotas.hit(&network_subject(&req, &state.network), QuotaFamily::StartAttempt).await?;
    let request: StartRequest = parse_json(&req, &body)?;
    let canonical = serde_json::to_value(&request).map_err(|e| ApiError(Error::internal(e)))?;
    let input = StartInput {
        consent_given: request.consent_given,
        visit: Visit { launch_token: request.launch_token, invitation: request.invitation, language: request.language },
        install_id: request.install_id,
        device_token: request.device_token,
        client: match request.client {
            Some(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        },
    };
    // A replay returns the session token, so a key is honoured only when the body carries a launch
    // token or invitation: a secret of this respondent's that a stranger cannot repeat.
    let honours_key = input.visit.launch_token.is_some() || input.visit.invitation.is_some();
    let scope = format!("start:{code}");
    let run = || async {
        match state.respondents.start(&code, input).await? {
            StartOutcome::NotStarted(reason) => {
                let body = serde_json::to_value(NotStartedBody { started: false, reason: reason.as_str() })
                    .map_err(Error::internal)?;
                Ok(Reply { status: StatusCode::OK, replay_body: body.clone(), body })
            }
            StartOutcome::Started(session) => {
                let body = StartedBody {
                    session_id: session.id.0,
                    session_token: session.token.expose_secret().to_owned(),
                    language: session.language.as_str().to_owned(),
                    questions: session
                        .questions
                        .iter()
                        .map(|q| {
                            let (kind, scale) = question_kind(q);
                            SessionQuestionBody {
                                id: q.id.clone(),
                                kind,
                                text: q.text_in(&session.language).to_owned(),
                                required: q.required,
                                scale,
                            }
                        })
                        .collect(),
                };
                let body = serde_json::to_value(body).map_err(Error::internal)?;
                Ok(Reply { status: StatusCode::CREATED, replay_body: body.clone(), body })
            }
        }
    };
    // The answer may hold the session token.
    let response = if honours_key {
        idempotent(&state, &req, &scope, &canonical, rate, run).await?
    } else {
        let reply = run().await?;
        json_response(reply.status, &reply.body, rate)
    };
    Ok(no_store(response))
}

// Extra fields are ignored: SDKs built on this fixed route may send more.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerRequest {
    pub question_id: String,
    /// An integer within the scale for a rating question; a string of at most 4000 characters for text.
    #[schema(value_type = Object)]
    pub value: serde_json::Value,
}

#[derive(Deserialize, ToSchema)]
pub struct AnswersRequest {
    pub answers: Vec<AnswerRequest>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProgressBody {
    pub answered: u32,
    pub total: u32,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CompletedBody {
    /// `COMPLETED`.
    pub status: &'static str,
    pub answered: u32,
    pub total: u32,
}

fn session_id(text: &str) -> Result<SessionId, ApiError> {
    text.parse().map_err(|_| ApiError(Error::not_found("session")))
}

/// Record answers; answering a question again replaces its answer.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/sessions/{sessionId}/answers", tag = "public",
    security(("session" = [])),
    params(("code" = String, Path), ("sessionId" = uuid::Uuid, Path)),
    request_body = AnswersRequest,
    responses(
        (status = 200, body = ProgressBody),
        (status = 400, description = "VALIDATION_FAILED naming `answers[i]`", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED: missing or wrong session token", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown code, or a session of another campaign", body = ErrorBody),
        (status = 409, description = "CONFLICT: the session is completed", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `session_write`", body = ErrorBody),
    )
)]
pub async fn answer<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let (code, session) = path.into_inner();
    let session = session_id(&session)?;
    let rate = state.quotas.hit(&format!("session:{session}"), QuotaFamily::SessionWrite).await?;
    let request: AnswersRequest = parse_json(&req, &body)?;
    let answers =
        request.answers.into_iter().map(|a| AnswerInput { question_id: a.question_id, value: a.value }).collect();
    let progress = state.respondents.answer(&code, session, bearer_token(&req), answers).await?;
    Ok(json_response(StatusCode::OK, &ProgressBody { answered: progress.answered, total: progress.total }, rate))
}

/// Complete the session; calling again answers the same. A completed session is immutable.
#[utoipa::path(
    post, path = "/api/v1/public/pulse/{code}/sessions/{sessionId}/complete", tag = "public",
    security(("session" = [])),
    params(("code" = String, Path), ("sessionId" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = CompletedBody),
        (status = 400, description = "VALIDATION_FAILED: a required question is unanswered", body = ErrorBody),
        (status = 401, description = "UNAUTHENTICATED: missing or wrong session token", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: `session_write`", body = ErrorBody),
    )
)]
pub async fn complete<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (code, session) = path.into_inner();
    let session = session_id(&session)?;
    let rate = state.quotas.hit(&format!("session:{session}"), QuotaFamily::SessionWrite).await?;
    let Progress { status, answered, total } = state.respondents.complete(&code, session, bearer_token(&req)).await?;
    Ok(json_response(StatusCode::OK, &CompletedBody { status: status.as_str(), answered, total }, rate))
}
