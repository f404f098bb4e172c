//! The query, request and response bodies of the public respondent routes, and their conversions
//! to and from the domain.

use std::collections::BTreeMap;

use pulse_domain::campaigns::models::MAX_TEXT_ANSWER_CHARS;
use pulse_domain::challenges::models::{Challenge, ChallengeParameters, Solution, SolvedChallenge};
use pulse_domain::sessions::models::{Access, AnswerInput, NotStarted, Progress, StartInput, StartedSession, Visit};
use secrecy::ExposeSecret as _;
use serde::{Deserialize, Serialize};
use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
use utoipa::{IntoParams, ToSchema};

use crate::channel::campaigns::json::{ScaleBody, question_kind};

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

impl From<AccessQuery> for Visit {
    fn from(q: AccessQuery) -> Self {
        Self { launch_token: q.lt, invitation: q.invitation, language: q.lang }
    }
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
    /// True when the link given (`INVALID`, `LAUNCH_TOKEN_INVALID`) was spent on a session that
    /// was finished: the person has answered, and the page thanks them instead of the refusal.
    pub answered: bool,
    /// Present when a start from this visit must carry this challenge solved (as `altcha`): the
    /// campaign asks for one (`quality.requireChallenge`), or its open starts passed the hourly
    /// rates the operator set. Never for a launch token or invitation.
    pub challenge: Option<ChallengeBody>,
    /// The language the session would use.
    pub language: Option<String>,
    pub campaign: IntroBody,
}

/// What the consent screen says before anything is created.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntroBody {
    /// The campaign's name.
    pub name: String,
    /// Who asks: the workspace's display name.
    pub asked_by: String,
    /// The privacy notice the partner set, if any (`https`).
    pub privacy_notice_url: Option<String>,
    pub question_count: u32,
    /// About how long answering takes, at least 1.
    pub estimated_minutes: u32,
    /// `FORMAL` or `INFORMAL`: the register of the questions, which the page's own texts follow.
    #[schema(example = "FORMAL")]
    pub register: &'static str,
    /// False when the campaign is not collecting (a draft, paused or closed).
    pub collecting: bool,
}

impl From<Access> for AccessBody {
    fn from(access: Access) -> Self {
        let intro = access.intro;
        Self {
            campaign: IntroBody {
                name: intro.campaign_name,
                asked_by: intro.asked_by,
                privacy_notice_url: intro.privacy_notice_url,
                question_count: intro.question_count,
                estimated_minutes: intro.estimated_minutes,
                register: intro.register.as_str(),
                collecting: intro.collecting,
            },
            require_signed: access.require_signed,
            state: access.state.as_str(),
            refusal: access.refusal.map(|(code, description)| RefusalBody {
                code: code.as_str(),
                title: code.title(),
                description,
            }),
            answered: access.answered,
            challenge: access.challenge.map(ChallengeBody::from),
            language: Some(access.language.as_str().to_owned()),
        }
    }
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
    /// The access check's challenge with its solution, when the campaign needs one (ignored
    /// otherwise). Each solves one start.
    #[serde(default)]
    pub altcha: Option<AltchaBody>,
}

/// An ALTCHA proof-of-work challenge (its v2 protocol): find the counter whose PBKDF2 key starts
/// with `keyPrefix`. Any ALTCHA v2 solver solves it; send it back unchanged with the solution.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct ChallengeBody {
    pub parameters: ChallengeParametersBody,
    /// HMAC-SHA256 of the parameters, in hex.
    #[schema(max_length = 128)]
    pub signature: String,
}

/// What the challenge asks, as ALTCHA names it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChallengeParametersBody {
    /// `PBKDF2/SHA-256`.
    #[schema(example = "PBKDF2/SHA-256", max_length = 32)]
    pub algorithm: String,
    /// PBKDF2 iterations per try.
    pub cost: u32,
    /// `code`: the campaign's public code, which the challenge is bound to.
    pub data: BTreeMap<String, String>,
    /// Unix seconds after which no start takes the solution.
    pub expires_at: i64,
    /// Bytes of the derived key.
    pub key_length: u32,
    /// The hex the derived key must start with.
    #[schema(max_length = 128)]
    pub key_prefix: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 128)]
    pub key_signature: Option<String>,
    /// Hex; the password of try `n` is these bytes followed by `n` as four big-endian bytes.
    #[schema(max_length = 128)]
    pub nonce: String,
    /// Hex.
    #[schema(max_length = 128)]
    pub salt: String,
}

/// A solution: the counter found and the key it derives.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SolutionBody {
    pub counter: u32,
    /// The whole derived key, in hex.
    #[schema(max_length = 128)]
    pub derived_key: String,
    /// How long solving took, in milliseconds, as ALTCHA solvers report it; not used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
}

/// A challenge sent back with its solution: ALTCHA's payload, as an object.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct AltchaBody {
    pub challenge: ChallengeBody,
    pub solution: SolutionBody,
}

impl From<Challenge> for ChallengeBody {
    fn from(c: Challenge) -> Self {
        let p = c.parameters;
        Self {
            parameters: ChallengeParametersBody {
                algorithm: p.algorithm,
                cost: p.cost,
                data: p.data,
                expires_at: p.expires_at,
                key_length: p.key_length,
                key_prefix: p.key_prefix,
                key_signature: p.key_signature,
                nonce: p.nonce,
                salt: p.salt,
            },
            signature: c.signature,
        }
    }
}

impl From<AltchaBody> for SolvedChallenge {
    fn from(a: AltchaBody) -> Self {
        let p = a.challenge.parameters;
        Self {
            challenge: Challenge {
                parameters: ChallengeParameters {
                    algorithm: p.algorithm,
                    cost: p.cost,
                    data: p.data,
                    expires_at: p.expires_at,
                    key_length: p.key_length,
                    key_prefix: p.key_prefix,
                    key_signature: p.key_signature,
                    nonce: p.nonce,
                    salt: p.salt,
                },
                signature: a.challenge.signature,
            },
            solution: Solution { counter: a.solution.counter, derived_key: a.solution.derived_key },
        }
    }
}

impl From<StartRequest> for StartInput {
    fn from(r: StartRequest) -> Self {
        Self {
            consent_given: r.consent_given,
            visit: Visit { launch_token: r.launch_token, invitation: r.invitation, language: r.language },
            install_id: r.install_id,
            device_token: r.device_token,
            client: match r.client {
                Some(serde_json::Value::Object(map)) => Some(map),
                _ => None,
            },
            network: None,
            altcha: r.altcha.map(SolvedChallenge::from),
        }
    }
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

impl From<StartedSession> for StartedBody {
    fn from(session: StartedSession) -> Self {
        Self {
            session_id: session.id.0,
            session_token: session.token.expose_secret().to_owned(),
            language: session.language.as_str().to_owned(),
            questions: session
                .questions
                .iter()
                .map(|q| {
                    let (kind, scale) = question_kind(q.kind);
                    SessionQuestionBody {
                        id: q.id.clone(),
                        kind,
                        text: q.text_in(&session.language).to_owned(),
                        required: q.required,
                        scale,
                    }
                })
                .collect(),
        }
    }
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

impl From<NotStarted> for NotStartedBody {
    fn from(reason: NotStarted) -> Self {
        Self { started: false, reason: reason.as_str() }
    }
}

// Extra fields are ignored: SDKs built on this fixed route may send more.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnswerRequest {
    pub question_id: String,
    /// An integer within the scale for a rating question; a string of at most 4000 characters for text.
    #[schema(schema_with = answer_value)]
    pub value: serde_json::Value,
}

/// `value` as a generated client must send it: a number for a rating, a string for a text. Kept
/// as raw JSON on the wire so a value of the wrong kind is refused naming the question's own rule.
fn answer_value() -> OneOfBuilder {
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Integer).description(Some("A rating question's answer")))
        .item(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(MAX_TEXT_ANSWER_CHARS))
                .description(Some("A text question's answer")),
        )
        .description(Some(format!(
            "An integer within the scale for a rating question; a string of at most {MAX_TEXT_ANSWER_CHARS} characters for text"
        )))
}

impl From<AnswerRequest> for AnswerInput {
    fn from(a: AnswerRequest) -> Self {
        Self { question_id: a.question_id, value: a.value }
    }
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

impl From<Progress> for ProgressBody {
    fn from(p: Progress) -> Self {
        Self { answered: p.answered, total: p.total }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CompletedBody {
    /// `COMPLETED`.
    pub status: &'static str,
    pub answered: u32,
    pub total: u32,
}

impl From<Progress> for CompletedBody {
    fn from(p: Progress) -> Self {
        Self { status: p.status.as_str(), answered: p.answered, total: p.total }
    }
}
