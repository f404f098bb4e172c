use hmac::{Hmac, Mac as _};
use serde::Deserialize;
use serde_json::Value;
use sha2::Sha256;
use uuid::Uuid;

/// How far a delivery's timestamp may be from the receiver's clock, either way.
pub const SIGNATURE_TOLERANCE_SECS: i64 = 300;

/// Why a delivery was not accepted. Answer it with a `4xx`; Pulse retries, and a delivery that
/// really came from Pulse verifies on a later attempt once the cause (a wrong secret) is fixed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WebhookError {
    #[error("the X-SVC-Signature header is not `t=<unix seconds>,v1=<hex>`")]
    MalformedSignature,
    #[error("the signature's timestamp is more than {SIGNATURE_TOLERANCE_SECS} seconds from now")]
    Stale,
    #[error("no v1 signature matches a secret")]
    BadSignature,
    #[error("the body is not a Pulse event: {0}")]
    Body(String),
}

/// A delivery's body: the envelope, with its payload read into an [`Event`].
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    /// The event id, the same on every attempt and every endpoint: deduplicate on it.
    pub id: Uuid,
    pub event_type: String,
    pub aggregate: String,
    pub aggregate_id: Uuid,
    /// The workspace.
    pub org_id: Uuid,
    /// RFC 3339, UTC.
    pub occurred_at: String,
    pub event: Event,
}

/// What happened. Types this version does not know arrive as [`Event::Other`]: ignore them, and
/// still answer `2xx`.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    FeedbackReceived(FeedbackReceived),
    FeedbackAnalyzed(FeedbackAnalyzed),
    RespondentAcknowledged(RespondentAcknowledged),
    ExportReady(ExportReady),
    WorkspaceApproved(WorkspaceApproved),
    WebhookTest(WebhookTest),
    Other { event_type: String, payload: Value },
}

/// `feedback.received`: a respondent session finished.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackReceived {
    pub conversation_id: Uuid,
    pub campaign_id: Uuid,
    pub public_ref: String,
    pub app_install_id: Option<Uuid>,
    /// Only when the session was started with the device's proof.
    #[serde(default)]
    pub device_id: Option<Uuid>,
    /// Only when the app verified its user with `userHash`.
    #[serde(default)]
    pub user_id: Option<Uuid>,
    pub answered: u32,
    pub total: u32,
}

/// `feedback.analyzed`: the analysis of a finished session is recorded; once per session.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackAnalyzed {
    pub conversation_id: Uuid,
    pub campaign_id: Uuid,
    pub public_ref: Option<String>,
    pub app_install_id: Option<Uuid>,
    #[serde(default)]
    pub device_id: Option<Uuid>,
    #[serde(default)]
    pub user_id: Option<Uuid>,
    pub answers: u32,
    pub exchanges: u32,
    pub analyzers_run: u32,
    pub analyzers_reused: u32,
}

/// `respondent.acknowledged`: the thank-you to an invited respondent was sent.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RespondentAcknowledged {
    pub campaign_id: Uuid,
    pub respondent_id: Uuid,
    pub conversation_id: Uuid,
    /// `EMAIL`, `SMS` or `WHATSAPP`.
    pub channel: String,
}

/// `export.ready`: an export's file can be downloaded (read the export for its link).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportReady {
    pub export_id: Uuid,
    pub campaign_id: Uuid,
    pub format: String,
    pub byte_size: u64,
}

/// `workspace.approved`: Pulse's operator approved the workspace, whose campaigns can now launch.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceApproved {
    pub workspace_id: Uuid,
    /// `ACTIVE`.
    pub status: String,
}

/// `webhook.test`: sent by simulate; it reports no fact.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WebhookTest {
    pub webhook_id: Uuid,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEnvelope {
    id: Uuid,
    #[serde(rename = "type")]
    event_type: String,
    aggregate: String,
    aggregate_id: Uuid,
    org_id: Uuid,
    occurred_at: String,
    payload: Value,
}

/// [`verify_webhook_at`] with the system clock.
///
/// # Errors
/// As [`verify_webhook_at`].
pub fn verify_webhook(secrets: &[&str], signature_header: &str, body: &[u8]) -> Result<Envelope, WebhookError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .unwrap_or_default();
    verify_webhook_at(secrets, signature_header, body, now)
}

/// Verifies a delivery and reads it. `signature_header` is `X-SVC-Signature` as received, `body`
/// the raw bytes as received (verify before any parsing), `now` the receiver's clock in Unix
/// seconds. Any `v1` signature made with any of `secrets` verifies, so a receiver can hold the old
/// and the new secret while it rotates them; each comparison takes constant time.
///
/// # Errors
/// [`WebhookError`]: a malformed header, a timestamp outside the tolerance, no matching signature,
/// or a body that is not an envelope (or whose payload does not fit its event type).
pub fn verify_webhook_at(
    secrets: &[&str],
    signature_header: &str,
    body: &[u8],
    now: i64,
) -> Result<Envelope, WebhookError> {
    let (timestamp, signatures) = parse_header(signature_header)?;
    if now.abs_diff(timestamp) > SIGNATURE_TOLERANCE_SECS.unsigned_abs() {
        return Err(WebhookError::Stale);
    }
    let mut signed = format!("{timestamp}.").into_bytes();
    signed.extend_from_slice(body);
    let verifies = |secret: &&str, signature: &Vec<u8>| {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else { return false };
        mac.update(&signed);
        mac.verify_slice(signature).is_ok()
    };
    if !signatures.iter().any(|signature| secrets.iter().any(|secret| verifies(secret, signature))) {
        return Err(WebhookError::BadSignature);
    }
    read_envelope(body)
}

/// `t=<unix seconds>` once and one or more `v1=<hex>`; other schemes are skipped, so a receiver
/// keeps working when Pulse adds one.
fn parse_header(header: &str) -> Result<(i64, Vec<Vec<u8>>), WebhookError> {
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        let (scheme, value) = part.trim().split_once('=').ok_or(WebhookError::MalformedSignature)?;
        match scheme {
            "t" if timestamp.is_none() => {
                timestamp = Some(value.parse::<i64>().map_err(|_| WebhookError::MalformedSignature)?);
            }
            "t" => return Err(WebhookError::MalformedSignature),
            "v1" => signatures.push(crate::hex::decode(value).ok_or(WebhookError::MalformedSignature)?),
            _ => {}
        }
    }
    match (timestamp, signatures.is_empty()) {
        (Some(timestamp), false) => Ok((timestamp, signatures)),
        _ => Err(WebhookError::MalformedSignature),
    }
}

fn payload<T: serde::de::DeserializeOwned>(payload: Value) -> Result<T, WebhookError> {
    serde_json::from_value(payload).map_err(|e| WebhookError::Body(e.to_string()))
}

fn read_envelope(body: &[u8]) -> Result<Envelope, WebhookError> {
    let raw: RawEnvelope = serde_json::from_slice(body).map_err(|e| WebhookError::Body(e.to_string()))?;
    let event = match raw.event_type.as_str() {
        "feedback.received" => Event::FeedbackReceived(payload(raw.payload)?),
        "feedback.analyzed" => Event::FeedbackAnalyzed(payload(raw.payload)?),
        "respondent.acknowledged" => Event::RespondentAcknowledged(payload(raw.payload)?),
        "export.ready" => Event::ExportReady(payload(raw.payload)?),
        "workspace.approved" => Event::WorkspaceApproved(payload(raw.payload)?),
        "webhook.test" => Event::WebhookTest(payload(raw.payload)?),
        other => Event::Other { event_type: other.to_owned(), payload: raw.payload },
    };
    Ok(Envelope {
        id: raw.id,
        event_type: raw.event_type,
        aggregate: raw.aggregate,
        aggregate_id: raw.aggregate_id,
        org_id: raw.org_id,
        occurred_at: raw.occurred_at,
        event,
    })
}
