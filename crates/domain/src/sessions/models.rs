//! Respondent sessions: consent, answers and completion.

use crate::apps::models::{Attribution, Identity};
use crate::campaigns::models::{Campaign, LanguageTag, MAX_TEXT_ANSWER_CHARS, Question, QuestionKind, Register};
use crate::challenges::models::{Challenge, SolvedChallenge, SpentChallenge};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{
    AppInstallId, AppUserId, CampaignId, DeviceId, EventId, LaunchKeyId, LaunchLinkId, RespondentId, SessionId,
    WorkspaceId,
};
use crate::webhooks::models::{EventType, NewEvent};
use secrecy::SecretString;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

/// Session tokens: 43 base62 characters (about 256 bits), kept only as a keyed digest.
pub const SESSION_TOKEN_LEN: usize = 43;

pub const MAX_DEVICE_TOKEN_CHARS: usize = 1024;

pub const MAX_LAUNCH_TOKEN_CHARS: usize = 4096;

pub const MAX_ANSWERS_PER_CALL: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionStatus {
    Started,
    Completed,
}

impl SessionStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Started => "STARTED",
            SessionStatus::Completed => "COMPLETED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [SessionStatus::Started, SessionStatus::Completed].into_iter().find(|s| s.as_str() == text)
    }
}

/// What a public start uses up, in the same transaction that creates the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spend {
    /// No token: an open campaign that does not require signing.
    Nothing,
    /// A minted link or an invitation.
    Link(LaunchLinkId),
    /// A partner-signed token: its `jti` is remembered until `expires_at`.
    Token { key_id: LaunchKeyId, jti: String, expires_at: OffsetDateTime },
    /// A solved challenge of an open campaign: its fingerprint is remembered until it expires.
    Challenge(SpentChallenge),
}

impl Spend {
    /// Whether the start came without a launch token, link or invitation.
    pub fn is_unsigned(&self) -> bool {
        matches!(self, Spend::Nothing | Spend::Challenge(_))
    }
}

/// A session to create.
#[derive(Clone, Debug, PartialEq)]
pub struct NewSession {
    pub id: SessionId,
    pub campaign_id: CampaignId,
    pub token_digest: Vec<u8>,
    pub language: LanguageTag,
    pub respondent_id: Option<RespondentId>,
    pub launch_link_id: Option<LaunchLinkId>,
    pub launch_key_id: Option<LaunchKeyId>,
    /// Keyed digest of the partner's user reference (`externalUserRef` or the token's `uid`).
    pub external_user_digest: Option<Vec<u8>>,
    pub tags: Vec<String>,
    /// Device labels, launch attributes, token context and the page's client labels.
    pub context: Map<String, Value>,
    /// The app device and person, when the start proved them; its feedback count grows with the session.
    pub attribution: Option<crate::apps::models::Attribution>,
    pub total_questions: u32,
    pub started_at: OffsetDateTime,
}

/// A session as the answer routes need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: SessionId,
    pub campaign_id: CampaignId,
    pub token_digest: Vec<u8>,
    pub language: LanguageTag,
    pub status: SessionStatus,
    pub answered: u32,
    pub total: u32,
    pub started_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
    /// The device and person an app proved at start.
    pub attribution: Option<crate::apps::models::Attribution>,
}

/// One answer as sent.
#[derive(Clone, Debug, PartialEq)]
pub struct AnswerInput {
    pub question_id: String,
    pub value: Value,
}

/// A validated answer, ready to store. Text is personal data: it is sealed before it leaves the
/// service; only its word count is kept in the clear (for the quality rules).
#[derive(Clone, PartialEq, Eq)]
pub enum AnswerValue {
    Rating(i16),
    Text(String),
}

impl std::fmt::Debug for AnswerValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AnswerValue::Rating(r) => write!(f, "Rating({r})"),
            AnswerValue::Text(t) => write!(f, "Text({} chars)", t.chars().count()),
        }
    }
}

/// An answer to store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnswer {
    pub question_id: String,
    pub rating: Option<i16>,
    pub text_sealed: Option<Vec<u8>>,
    pub word_count: u32,
    pub answered_at: OffsetDateTime,
}

/// Checks every answer against the survey's questions.
///
/// # Errors
/// `ValidationFailed` naming `answers[i]` for no answers, too many, an unknown question, a
/// question answered twice in one call, a rating outside its scale or a text over 4000 characters.
pub fn parse_answers(questions: &[Question], answers: Vec<AnswerInput>) -> Result<Vec<(String, AnswerValue)>> {
    if answers.is_empty() {
        return Err(Error::validation("answers", "send at least one answer"));
    }
    if answers.len() > MAX_ANSWERS_PER_CALL {
        return Err(Error::validation("answers", format!("at most {MAX_ANSWERS_PER_CALL} answers per call")));
    }
    let mut parsed: Vec<(String, AnswerValue)> = Vec::with_capacity(answers.len());
    for (i, answer) in answers.into_iter().enumerate() {
        let Some(question) = questions.iter().find(|q| q.id == answer.question_id) else {
            return Err(Error::validation(&format!("answers[{i}].questionId"), "is not a question of this survey"));
        };
        if parsed.iter().any(|(id, _)| *id == question.id) {
            return Err(Error::validation(&format!("answers[{i}].questionId"), "answers a question twice"));
        }
        let field = format!("answers[{i}].value");
        let value = match question.kind {
            QuestionKind::Rating { min, max } => {
                // JSON Schema counts 4.0 as an integer.
                let rating = answer
                    .value
                    .as_i64()
                    .or_else(|| answer.value.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    .and_then(|v| i16::try_from(v).ok())
                    .filter(|v| (min..=max).contains(v))
                    .ok_or_else(|| Error::validation(&field, format!("must be an integer from {min} to {max}")))?;
                AnswerValue::Rating(rating)
            }
            QuestionKind::Text => {
                let text =
                    answer.value.as_str().filter(|t| t.chars().count() <= MAX_TEXT_ANSWER_CHARS).ok_or_else(|| {
                        Error::validation(
                            &field,
                            format!("must be a string of at most {MAX_TEXT_ANSWER_CHARS} characters"),
                        )
                    })?;
                AnswerValue::Text(text.to_owned())
            }
        };
        parsed.push((question.id.clone(), value));
    }
    Ok(parsed)
}

pub fn word_count(text: &str) -> u32 {
    u32::try_from(text.split_whitespace().count()).unwrap_or(u32::MAX)
}

/// The associated data binding a sealed answer to its session and question.
pub fn answer_seal_context(session: SessionId, question_id: &str) -> Vec<u8> {
    format!("answer\0{session}\0{question_id}").into_bytes()
}

/// The refusal for answers after completion.
pub fn already_completed() -> Error {
    Error::refused(ErrorCode::Conflict, "this session is completed; its answers can no longer change")
}

/// Progress of a session after answers or completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    pub status: SessionStatus,
    pub answered: u32,
    pub total: u32,
}

/// Where a visit stands with signed launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessState {
    /// Signing is not required and no token was given.
    NotRequired,
    /// The token (or invitation) given is valid and unused.
    Valid,
    /// Signing is required and no token was given.
    Missing,
    /// The token (or invitation) given is not valid: malformed, expired or spent.
    Invalid,
}

impl AccessState {
    pub const fn as_str(self) -> &'static str {
        match self {
            AccessState::NotRequired => "NOT_REQUIRED",
            AccessState::Valid => "VALID",
            AccessState::Missing => "MISSING",
            AccessState::Invalid => "INVALID",
        }
    }
}

/// The answer of the access check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub require_signed: bool,
    pub state: AccessState,
    /// The refusal a start would meet, for the page to show.
    pub refusal: Option<(ErrorCode, String)>,
    /// The link given was spent on a session that was finished: the person has answered, and the
    /// page thanks them rather than showing the refusal.
    pub answered: bool,
    /// The challenge a start from this visit must carry solved, when it needs one.
    pub challenge: Option<Challenge>,
    pub language: LanguageTag,
    pub intro: Intro,
}

/// What the consent screen tells a person before anything is created: who asks, about what, how
/// long it takes, and where the privacy notice is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intro {
    pub campaign_name: String,
    /// The workspace's display name.
    pub asked_by: String,
    pub privacy_notice_url: Option<String>,
    pub question_count: u32,
    pub estimated_minutes: u32,
    pub register: Register,
    pub collecting: bool,
}

/// What the store knows about a visit beyond the campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisitFacts {
    /// The display name of the campaign's workspace.
    pub asked_by: String,
    /// Whether the spent link the visit presented started a session that was finished.
    pub link_answered: bool,
}

/// What a visit presents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Visit {
    pub launch_token: Option<String>,
    /// The nonce of a `/s/<code>/<nonce>` link.
    pub invitation: Option<String>,
    pub language: Option<String>,
}

/// `POST /start` as sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StartInput {
    pub consent_given: Option<bool>,
    pub visit: Visit,
    /// Device attribution: the signed install id (`?inst=`) or the access token (`#dt=`); a bad
    /// or expired one is ignored and the feedback stays anonymous.
    pub install_id: Option<String>,
    pub device_token: Option<String>,
    pub client: Option<Map<String, Value>>,
    /// The network the start came from (a quota subject), when it came over one.
    pub network: Option<String>,
    /// The solved challenge an open start may need.
    pub altcha: Option<SolvedChallenge>,
}

/// Why a start created nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotStarted {
    CampaignNotOpen,
    InvitationRequired,
    ConsentRequired,
}

impl NotStarted {
    pub const fn as_str(self) -> &'static str {
        match self {
            NotStarted::CampaignNotOpen => "CAMPAIGN_NOT_OPEN",
            NotStarted::InvitationRequired => "INVITATION_REQUIRED",
            NotStarted::ConsentRequired => "CONSENT_REQUIRED",
        }
    }
}

/// A created session, with the token that authorises its answers (shown once).
#[derive(Debug)]
pub struct StartedSession {
    pub id: SessionId,
    pub token: SecretString,
    pub language: LanguageTag,
    pub questions: Vec<Question>,
}

#[derive(Debug)]
pub enum StartOutcome {
    NotStarted(NotStarted),
    Started(StartedSession),
}

pub const MAX_CLIENT_LABELS: usize = 32;

pub const MAX_CLIENT_LABEL_CHARS: usize = 128;

pub const MAX_INSTALL_ID_CHARS: usize = 2048;

/// What a finished respondent session tells partners: ids and counts, never a word said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFacts {
    pub session: SessionId,
    pub campaign: CampaignId,
    pub workspace: WorkspaceId,
    /// The campaign's public code.
    pub public_ref: String,
    pub app_install_id: Option<AppInstallId>,
    /// Set only when the app proved the device with its token.
    pub device_id: Option<DeviceId>,
    /// Set only when the app proved the person with a valid `userHash`.
    pub user_id: Option<AppUserId>,
}

impl SessionFacts {
    /// The facts of `session` of `campaign`, naming only what the app proved.
    pub fn of(session: SessionId, campaign: &Campaign, attribution: Option<&Attribution>) -> Self {
        let (device_id, user_id) = Self::proven(
            attribution.map(|a| a.device_id),
            attribution.and_then(|a| a.user_id),
            attribution.map(|a| a.identity),
        );
        Self {
            session,
            campaign: campaign.id,
            workspace: campaign.workspace_id,
            public_ref: campaign.code.clone(),
            app_install_id: attribution.and_then(|a| a.install_id),
            device_id,
            user_id,
        }
    }

    /// The proven parts of a session's attribution.
    pub fn proven(
        device_id: Option<DeviceId>,
        user_id: Option<AppUserId>,
        identity: Option<Identity>,
    ) -> (Option<DeviceId>, Option<AppUserId>) {
        (device_id, user_id.filter(|_| identity == Some(Identity::Verified)))
    }

    fn common(&self) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("conversationId".into(), json!(self.session));
        payload.insert("campaignId".into(), json!(self.campaign));
        payload.insert("publicRef".into(), json!(self.public_ref));
        payload.insert("appInstallId".into(), json!(self.app_install_id));
        payload.insert("deviceId".into(), json!(self.device_id));
        payload.insert("userId".into(), json!(self.user_id));
        payload
    }

    /// `feedback.analyzed`: counts of the analysis, never a finding.
    pub fn analyzed_event(&self, id: EventId, counts: AnalyzedCounts, at: OffsetDateTime) -> NewEvent {
        let mut payload = self.common();
        payload.insert("answers".into(), json!(counts.answers));
        payload.insert("exchanges".into(), json!(counts.exchanges));
        payload.insert("analyzersRun".into(), json!(counts.run));
        payload.insert("analyzersReused".into(), json!(counts.reused));
        self.event(id, EventType::FeedbackAnalyzed, payload, at)
    }

    fn event(&self, id: EventId, event_type: EventType, payload: Map<String, Value>, at: OffsetDateTime) -> NewEvent {
        NewEvent {
            id,
            workspace_id: self.workspace,
            event_type,
            aggregate: crate::webhooks::models::aggregate::CONVERSATION,
            aggregate_id: self.session.0,
            payload,
            occurred_at: at,
        }
    }
}

/// The counts `feedback.analyzed` carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalyzedCounts {
    /// Questions answered.
    pub answers: u32,
    /// Answer writes made.
    pub exchanges: u32,
    /// Analyzer runs made by this analysis.
    pub run: u32,
    /// Analyzer results reused from an earlier run of unchanged input and version.
    pub reused: u32,
}

/// A session's completion and the events it emits, written together by the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub facts: SessionFacts,
    pub at: OffsetDateTime,
    pub received_event: EventId,
}

impl Completion {
    pub fn new(facts: SessionFacts, at: OffsetDateTime) -> Self {
        Self { facts, at, received_event: EventId::new_random() }
    }

    /// `feedback.received` with the counts the store read while completing. The page's own
    /// thank-you is no `respondent.acknowledged`: that is emitted when a thank-you message is
    /// accepted by its provider (see outreach).
    pub fn events(&self, progress: &Progress) -> [NewEvent; 1] {
        let mut received = self.facts.common();
        received.insert("answered".into(), json!(progress.answered));
        received.insert("total".into(), json!(progress.total));
        [self.facts.event(self.received_event, EventType::FeedbackReceived, received, self.at)]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::apps::models::Identity;
    use crate::ids::{AppUserId, DeviceId};

    fn questions() -> Vec<Question> {
        let en = LanguageTag::parse("l", "en").expect("tag");
        vec![
            Question {
                id: "q1".into(),
                kind: QuestionKind::Rating { min: 1, max: 5 },
                required: true,
                texts: vec![(en.clone(), "How satisfied?".into())],
            },
            Question { id: "q2".into(), kind: QuestionKind::Text, required: false, texts: vec![(en, "Why?".into())] },
        ]
    }

    fn answer(id: &str, value: Value) -> AnswerInput {
        AnswerInput { question_id: id.into(), value }
    }

    #[test]
    fn answers_fit_their_questions() {
        let ok = parse_answers(&questions(), vec![answer("q1", json!(5)), answer("q2", json!("Great"))]).expect("ok");
        assert_eq!(ok[0].1, AnswerValue::Rating(5));
        let cases = [
            (vec![answer("q1", json!(0))], "answers[0].value"),
            (vec![answer("q1", json!(6))], "answers[0].value"),
            (vec![answer("q1", json!(4.5))], "answers[0].value"),
            (vec![answer("q1", json!("5"))], "answers[0].value"),
            (vec![answer("q2", json!(3))], "answers[0].value"),
            (vec![answer("q2", json!("x".repeat(4001)))], "answers[0].value"),
            (vec![answer("q9", json!(1))], "answers[0].questionId"),
            (vec![answer("q1", json!(1)), answer("q1", json!(2))], "answers[1].questionId"),
            (vec![], "answers"),
        ];
        for (answers, field) in cases {
            let message = parse_answers(&questions(), answers).expect_err("refused").to_string();
            assert!(message.contains(field), "{message} should name {field}");
        }
        assert!(parse_answers(&questions(), vec![answer("q2", json!("x".repeat(4000)))]).is_ok());
        let written_as_float = parse_answers(&questions(), vec![answer("q1", json!(4.0))]).expect("4.0 is an integer");
        assert_eq!(written_as_float[0].1, AnswerValue::Rating(4));
    }

    #[test]
    fn words_are_counted_and_text_is_not_shown_in_debug() {
        assert_eq!(word_count("  the   food was\tgreat \n"), 4);
        assert_eq!(format!("{:?}", AnswerValue::Text("my secret words".into())), "Text(15 chars)");
    }

    #[test]
    fn only_a_verified_person_is_named() {
        let device = Some(DeviceId::new_random());
        let user = Some(AppUserId::new_random());
        assert_eq!(SessionFacts::proven(device, user, Some(Identity::Verified)), (device, user));
        assert_eq!(SessionFacts::proven(device, user, Some(Identity::SelfDeclared)), (device, None));
        assert_eq!(SessionFacts::proven(None, None, None), (None, None));
    }
}
