//! A survey by phone: what is said at each step of a call, and what the caller's keys and words
//! mean. Provider-neutral: a sender renders a [`VoiceTurn`] in its provider's markup, and reads
//! the provider's requests into a [`CallReport`].

use serde_json::{Value, json};
use time::OffsetDateTime;

use crate::campaigns::models::{DeliveryChannel, LanguageTag, QuestionKind, Register, Survey};
use crate::error::Error;
use crate::ids::{CampaignId, MessageId, SessionId, WorkspaceId};
use crate::outreach::models::{
    NOT_REACHED, Recipient, Thanked, is_stop, is_yes, say, spoken_number, voice_locale, voice_phrases,
};
use crate::webhooks::models::NewEvent;

/// The key that consents, and the one that opts out of calls.
pub const CONSENT_KEY: &str = "1";
pub const STOP_KEY: &str = "9";

/// Where a call is: the provider's next request names it, in the URL Pulse gave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStep {
    /// The callee picked up (or a machine did).
    Answered,
    /// The greeting was said; the answer to "may we begin?" follows.
    Consent,
    /// Question `index` (from 0) was asked, a second time when `retried`.
    Question { index: u8, retried: bool },
}

impl CallStep {
    /// The step as a URL path segment: `answered`, `consent`, `q0`, `q0-again`.
    pub fn segment(self) -> String {
        match self {
            Self::Answered => "answered".into(),
            Self::Consent => "consent".into(),
            Self::Question { index, retried: false } => format!("q{index}"),
            Self::Question { index, retried: true } => format!("q{index}-again"),
        }
    }

    pub fn parse(segment: &str) -> Option<Self> {
        match segment {
            "answered" => Some(Self::Answered),
            "consent" => Some(Self::Consent),
            other => {
                let rest = other.strip_prefix('q')?;
                let (digits, retried) = rest.strip_suffix("-again").map_or((rest, false), |d| (d, true));
                let canonical = !digits.is_empty() && (digits == "0" || !digits.starts_with('0'));
                canonical.then(|| digits.parse().ok().map(|index| Self::Question { index, retried })).flatten()
            }
        }
    }
}

/// How a call ended, or where it stands, as the provider reported it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallStatus {
    Ringing,
    InProgress,
    Completed,
    Busy,
    NoAnswer,
    Failed,
    Canceled,
}

impl CallStatus {
    /// Whether the call is over.
    pub const fn ended(self) -> bool {
        !matches!(self, Self::Ringing | Self::InProgress)
    }

    /// Whether the callee was never on the line: the call counts as not reached.
    pub const fn unreached(self) -> bool {
        matches!(self, Self::Busy | Self::NoAnswer | Self::Failed | Self::Canceled)
    }
}

/// What a provider's request about a call said. The keys pressed and the words recognised are
/// the person's: `Debug` shows neither.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CallReport {
    /// The provider's id of the call.
    pub call_id: Option<String>,
    pub digits: Option<String>,
    pub speech: Option<String>,
    /// Answered by a machine (voicemail, a fax), not a person.
    pub machine: bool,
    pub status: Option<CallStatus>,
    /// The provider's reference of a recording it reports as made.
    pub recording: Option<String>,
}

impl std::fmt::Debug for CallReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallReport")
            .field("has_digits", &self.digits.is_some())
            .field("has_speech", &self.speech.is_some())
            .field("machine", &self.machine)
            .field("status", &self.status)
            .field("has_recording", &self.recording.is_some())
            .finish_non_exhaustive()
    }
}

/// What to say, then what to listen for; with nothing to listen for, the call ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoiceTurn {
    /// The locale spoken and recognised, such as `fr-FR`.
    pub locale: &'static str,
    pub say: Vec<String>,
    pub listen: Option<Listen>,
    /// The recording of the answer to the step before, ended before anything is said.
    pub stop_recording: Option<CallStep>,
    /// Records the callee (only them) from before this turn's words until the next turn, named
    /// by the step it answers.
    pub record: Option<CallStep>,
}

impl VoiceTurn {
    /// Nothing said, the line hung up: what a machine gets.
    pub const fn hang_up() -> Self {
        Self { locale: "en-US", say: Vec::new(), listen: None, stop_recording: None, record: None }
    }
}

/// What to answer the provider with, and the failure it stands in for: a callee hears a
/// goodbye, never the provider's "application error", and the failure is logged.
#[derive(Debug)]
pub struct CallReply {
    /// The next turn, in the provider's markup.
    pub markup: String,
    pub failure: Option<Error>,
}

/// Said when Pulse cannot go on with a call (a fault on its side): an apology in the call's
/// language, then the line hung up.
pub fn interrupted_call(language: &str, register: Register) -> VoiceTurn {
    VoiceTurn {
        locale: voice_locale(language),
        say: vec![voice_phrases(language, register).interrupted.to_owned()],
        listen: None,
        stop_recording: None,
        record: None,
    }
}

/// Where the provider sends what follows a turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TurnUrls {
    /// The keys or words the turn listens for.
    pub action: String,
    /// The report of a recording the turn starts.
    pub recording: String,
}

/// What the caller may answer with, and the step the answer is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Listen {
    /// At most this many keys (0: keys are not read).
    pub keys: u8,
    pub speech: bool,
    pub next: CallStep,
}

/// What the callee said to "may we begin?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consent {
    Given,
    Declined,
    /// Never call again.
    Stop,
}

/// How a call ended for the survey.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallOutcome {
    /// Every question was asked; the session is completed and the person thanked.
    Completed,
    /// The callee hung up after consenting: the session is completed with what it has.
    Partial,
    /// No consent (or a hang-up before it): nothing is kept.
    Declined,
    /// The callee asked never to be called again.
    Stopped,
    Machine,
    Busy,
    NoAnswer,
    Failed,
}

impl CallOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "COMPLETED",
            Self::Partial => "PARTIAL",
            Self::Declined => "DECLINED",
            Self::Stopped => "STOPPED",
            Self::Machine => "MACHINE",
            Self::Busy => "BUSY",
            Self::NoAnswer => "NO_ANSWER",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Completed,
            Self::Partial,
            Self::Declined,
            Self::Stopped,
            Self::Machine,
            Self::Busy,
            Self::NoAnswer,
            Self::Failed,
        ]
        .into_iter()
        .find(|o| o.as_str() == text)
    }

    /// The reason its message keeps when no person took the call.
    pub fn not_reached(self) -> Option<String> {
        matches!(self, Self::Machine | Self::Busy | Self::NoAnswer | Self::Failed)
            .then(|| format!("{NOT_REACHED}_{}", self.as_str()))
    }

    /// The outcome of a call that ended with `status` before anyone was on the line.
    pub const fn unreached(status: CallStatus) -> Option<Self> {
        match status {
            CallStatus::Busy => Some(Self::Busy),
            CallStatus::NoAnswer | CallStatus::Canceled => Some(Self::NoAnswer),
            CallStatus::Failed => Some(Self::Failed),
            CallStatus::Ringing | CallStatus::InProgress | CallStatus::Completed => None,
        }
    }
}

/// A placed call, with what a turn needs of its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallContext {
    pub message_id: MessageId,
    pub workspace_id: WorkspaceId,
    pub workspace_name: String,
    pub campaign_id: CampaignId,
    pub campaign_code: String,
    pub campaign_name: String,
    pub recipient: Recipient,
    /// The provider's id of the call placed for the message, when it gave one.
    pub placed_call_id: Option<String>,
    /// The session the call started, with its token sealed to the call.
    pub session: Option<(SessionId, Vec<u8>)>,
    pub outcome: Option<CallOutcome>,
    /// The campaign's `audioRetentionDays`.
    pub audio_retention_days: Option<u8>,
    /// The survey's first language and its register: the call's.
    pub language: String,
    pub register: Register,
    /// The respondent finished a session already (on the page, after the call was placed).
    pub finished: bool,
}

impl CallContext {
    /// Whether a request is about the call placed for this message: always, when either side
    /// does not name it.
    pub fn placed_as(&self, report: &CallReport) -> bool {
        match (&self.placed_call_id, &report.call_id) {
            (Some(placed), Some(asked)) => placed == asked,
            _ => true,
        }
    }

    /// `respondent.acknowledged` after the spoken thank-you.
    pub fn acknowledged(&self, session: SessionId, at: OffsetDateTime) -> NewEvent {
        let thanked =
            Thanked { workspace: self.workspace_id, campaign: self.campaign_id, respondent: self.recipient.id };
        thanked.event(Some(session), DeliveryChannel::Telephony, at)
    }
}

/// What a turn changes of a call, recorded in one transaction: a field left `None` keeps its
/// stored value.
#[derive(Clone, Debug, PartialEq)]
pub struct CallUpdate {
    pub message_id: MessageId,
    pub provider_call_id: Option<String>,
    pub session: Option<(SessionId, Vec<u8>)>,
    pub outcome: Option<CallOutcome>,
    pub acknowledged: Option<NewEvent>,
    pub at: OffsetDateTime,
}

/// The survey read aloud in one language and register, on behalf of a workspace.
pub struct CallScript<'a> {
    survey: &'a Survey,
    language: &'a LanguageTag,
    register: Register,
    sender: &'a str,
    campaign: &'a str,
    /// Days spoken answers are kept at the provider, when they are recorded.
    recorded_for_days: Option<u8>,
}

impl<'a> CallScript<'a> {
    pub fn new(survey: &'a Survey, language: &'a LanguageTag, sender: &'a str, campaign: &'a str) -> Self {
        Self { survey, language, register: survey.register, sender, campaign, recorded_for_days: None }
    }

    /// Spoken answers are recorded and kept `days`: the greeting says so before asking consent.
    #[must_use]
    pub fn recorded_for(mut self, days: u8) -> Self {
        self.recorded_for_days = Some(days);
        self
    }

    pub fn survey(&self) -> &'a Survey {
        self.survey
    }

    pub fn language(&self) -> &'a LanguageTag {
        self.language
    }

    /// Whether the answer to question `index` is recorded: answers in words are, when the
    /// operator records them.
    pub fn records_answer(&self, index: u8) -> bool {
        self.recorded_for_days.is_some()
            && self.survey.questions.get(usize::from(index)).is_some_and(|q| matches!(q.kind, QuestionKind::Text))
    }

    fn turn(&self, say: Vec<String>, listen: Option<Listen>) -> VoiceTurn {
        VoiceTurn { locale: voice_locale(self.language.as_str()), say, listen, stop_recording: None, record: None }
    }

    fn phrase(&self, template: &str) -> String {
        let count = self.survey.questions.len().to_string();
        say(template, &[("sender", self.sender), ("campaign", self.campaign), ("count", &count)])
    }

    fn phrases(&self) -> &'static crate::outreach::models::VoicePhrases {
        voice_phrases(self.language.as_str(), self.register)
    }

    /// Who asks, about what, and whether the callee agrees to begin.
    pub fn greeting(&self) -> VoiceTurn {
        let phrases = self.phrases();
        let listen = Listen { keys: 1, speech: true, next: CallStep::Consent };
        let mut said = vec![self.phrase(phrases.greeting)];
        if let Some(days) = self.recorded_for_days {
            said.push(say(phrases.recorded, &[("days", &days.to_string())]));
        }
        said.push(self.phrase(phrases.consent));
        self.turn(said, Some(listen))
    }

    /// Reads the answer to the greeting: a key, or words.
    pub fn consent(&self, report: &CallReport) -> Consent {
        let language = self.language.as_str();
        let digits = report.digits.as_deref().map(str::trim);
        let speech = report.speech.as_deref().unwrap_or_default();
        if digits == Some(STOP_KEY) || is_stop(language, speech) {
            Consent::Stop
        } else if digits == Some(CONSENT_KEY) || (digits.is_none() && is_yes(language, speech)) {
            Consent::Given
        } else {
            Consent::Declined
        }
    }

    /// The number of questions asked.
    pub fn questions(&self) -> usize {
        self.survey.questions.len()
    }

    /// Asks question `index` (after `before`, such as "sorry, that was not a number"); `None`
    /// past the last.
    pub fn ask(&self, index: u8, retried: bool, before: Vec<String>) -> Option<VoiceTurn> {
        let question = self.survey.questions.get(usize::from(index))?;
        let phrases = self.phrases();
        let mut said = before;
        said.push(question.text_in(self.language).to_owned());
        let next = CallStep::Question { index, retried };
        let listen = match question.kind {
            QuestionKind::Rating { min, max } => {
                let (low, high) = (min.to_string(), max.to_string());
                said.push(say(phrases.rating, &[("min", &low), ("max", &high)]));
                let keys = u8::try_from(max.max(min.abs()).to_string().len()).unwrap_or(2);
                Listen { keys, speech: true, next }
            }
            QuestionKind::Text => {
                said.push(phrases.speak.to_owned());
                Listen { keys: 0, speech: true, next }
            }
        };
        let mut turn = self.turn(said, Some(listen));
        turn.record = self.records_answer(index).then_some(next);
        Some(turn)
    }

    /// The answer the caller gave to question `index`, as the page would send it; `None` when
    /// there was none or it does not fit the question.
    pub fn answer(&self, index: u8, report: &CallReport) -> Option<Value> {
        let question = self.survey.questions.get(usize::from(index))?;
        match question.kind {
            QuestionKind::Rating { min, max } => {
                let keyed = report.digits.as_deref().and_then(|d| d.trim().parse::<i16>().ok());
                let spoken =
                    || report.speech.as_deref().and_then(|s| spoken_number(self.language.as_str(), s)).map(i16::from);
                keyed.or_else(spoken).filter(|n| (min..=max).contains(n)).map(|n| json!(n))
            }
            QuestionKind::Text => {
                let words = report.speech.as_deref().map(str::trim).filter(|s| !s.is_empty())?;
                Some(json!(words))
            }
        }
    }

    /// After a question got nothing usable: the first time it is asked again, saying why; the
    /// second time the call moves on.
    pub fn not_understood(&self, index: u8) -> Vec<String> {
        let phrases = self.phrases();
        match self.survey.questions.get(usize::from(index)).map(|q| &q.kind) {
            Some(QuestionKind::Rating { min, max }) => {
                vec![say(phrases.invalid, &[("min", &min.to_string()), ("max", &max.to_string())])]
            }
            _ => vec![phrases.no_answer.to_owned()],
        }
    }

    /// Said when a question is left unanswered and the call goes on.
    pub fn moving_on(&self) -> Vec<String> {
        vec![self.phrases().no_answer.to_owned()]
    }

    /// The spoken thank-you that ends a completed call.
    pub fn thanks(&self) -> VoiceTurn {
        self.turn(vec![self.phrase(self.phrases().thanks)], None)
    }

    pub fn declined(&self) -> VoiceTurn {
        self.turn(vec![self.phrase(self.phrases().declined)], None)
    }

    pub fn stopped(&self) -> VoiceTurn {
        self.turn(vec![self.phrase(self.phrases().stopped)], None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_back_what_they_write_and_nothing_else() {
        for step in [
            CallStep::Answered,
            CallStep::Consent,
            CallStep::Question { index: 0, retried: false },
            CallStep::Question { index: 12, retried: true },
        ] {
            assert_eq!(CallStep::parse(&step.segment()), Some(step));
        }
        for bad in ["", "q", "q-again", "q01", "q1x", "q256", "Answered", "q1-again-again", "../consent"] {
            assert_eq!(CallStep::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_report_shows_no_keys_or_words() {
        let report =
            CallReport { digits: Some("4".into()), speech: Some("très bien".into()), ..CallReport::default() };
        let shown = format!("{report:?}");
        assert!(!shown.contains('4') && !shown.contains("bien"), "{shown}");
    }

    #[test]
    fn only_the_call_placed_for_a_message_drives_it() {
        let recipient = Recipient {
            id: crate::ids::RespondentId::new_random(),
            reference: None,
            name_sealed: None,
            email_sealed: None,
            phone_sealed: None,
            time_zone_sealed: None,
            invitation_sealed: None,
        };
        let call = |placed: Option<&str>| CallContext {
            message_id: MessageId::new_random(),
            workspace_id: WorkspaceId::new_random(),
            workspace_name: "Acme".into(),
            campaign_id: CampaignId::new_random(),
            campaign_code: "c".into(),
            campaign_name: "Survey".into(),
            recipient: recipient.clone(),
            placed_call_id: placed.map(str::to_owned),
            session: None,
            outcome: None,
            audio_retention_days: None,
            language: "en".into(),
            register: Register::Formal,
            finished: false,
        };
        let asked = |sid: Option<&str>| CallReport { call_id: sid.map(str::to_owned), ..CallReport::default() };
        assert!(call(Some("CA1")).placed_as(&asked(Some("CA1"))));
        assert!(!call(Some("CA1")).placed_as(&asked(Some("CA2"))), "a second call of the message");
        assert!(call(None).placed_as(&asked(Some("CA2"))), "the provider gave no id when it took the call");
        assert!(call(Some("CA1")).placed_as(&asked(None)));
    }

    #[test]
    fn statuses_say_whether_the_call_ended_and_whether_anyone_answered() {
        assert!(!CallStatus::InProgress.ended() && CallStatus::Completed.ended());
        assert!(CallStatus::Busy.unreached() && CallStatus::NoAnswer.unreached());
        assert!(!CallStatus::Completed.unreached());
    }
}
