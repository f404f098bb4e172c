//! What a message is, what it says, and the rules of who gets one and when.

mod call;
mod quiet;
mod recording;
mod voice;
mod wording;

pub use call::*;
pub use quiet::*;
pub use recording::*;
pub use voice::*;
pub use wording::*;

use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::campaigns::models::{DeliveryChannel, Register, StoredRef};
use crate::error::{Error, Result};
use crate::ids::{CampaignId, EventId, MessageId, RespondentId, SessionId, WorkspaceId};
use crate::shared::time_zone::TimeZoneName;
use crate::webhooks::models::{EventType, NewEvent};
use serde_json::{Map, json};

/// Messages claimed per round.
pub const MESSAGE_BATCH: u32 = 20;
/// How long a claimed message is held before another worker may take it over: a whole batch,
/// each send bounded by its provider's timeout (about 20 seconds), ends well within it, so a slow
/// provider does not let another replica send a message again.
pub const MESSAGE_LEASE: Duration = Duration::minutes(15);
/// Sending attempts before a message is FAILED.
pub const MAX_SEND_ATTEMPTS: u32 = 5;
/// The wait before each retry of a message whose provider failed for now; a provider's own
/// `Retry-After` wins when it is longer.
pub const RETRY_AFTER: [Duration; 4] =
    [Duration::minutes(1), Duration::minutes(5), Duration::minutes(30), Duration::hours(2)];
/// The most reminders a campaign may ask for (the spec's `reminderCount` range).
pub const MAX_REMINDERS: u8 = 4;

/// Why a message is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageKind {
    /// The first message, with the person's own link.
    Invitation,
    /// A later nudge with the same link, to someone who has not answered.
    Reminder,
    /// Sent once the person has finished the survey.
    ThankYou,
}

impl MessageKind {
    pub const ALL: [MessageKind; 3] = [MessageKind::Invitation, MessageKind::Reminder, MessageKind::ThankYou];

    pub const fn as_str(self) -> &'static str {
        match self {
            MessageKind::Invitation => "INVITATION",
            MessageKind::Reminder => "REMINDER",
            MessageKind::ThankYou => "THANK_YOU",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text)
    }
}

/// Where a message is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageStatus {
    Queued,
    /// The provider accepted it.
    Sent,
    /// The provider refused it for good, or kept failing.
    Failed,
    /// Not sent, and never will be (see [`Suppression`]).
    Suppressed,
}

impl MessageStatus {
    pub const ALL: [MessageStatus; 4] =
        [MessageStatus::Queued, MessageStatus::Sent, MessageStatus::Failed, MessageStatus::Suppressed];

    pub const fn as_str(self) -> &'static str {
        match self {
            MessageStatus::Queued => "QUEUED",
            MessageStatus::Sent => "SENT",
            MessageStatus::Failed => "FAILED",
            MessageStatus::Suppressed => "SUPPRESSED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Why a planned message is not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Suppression {
    /// The person has finished the survey (invitations and reminders only).
    Responded,
    /// The person asked this workspace to stop writing to them.
    OptedOut,
    /// The campaign no longer collects answers.
    NotCollecting,
    /// The address could not be read.
    NoAddress,
    /// The person was erased while the message waited.
    Erased,
}

impl Suppression {
    pub const fn as_str(self) -> &'static str {
        match self {
            Suppression::Responded => "RESPONDED",
            Suppression::OptedOut => "OPTED_OUT",
            Suppression::Erased => "ERASED",
            Suppression::NotCollecting => "NOT_COLLECTING",
            Suppression::NoAddress => "NO_ADDRESS",
        }
    }
}

/// The channels messages can go out on; a TELEPHONY message is a call.
pub const MESSAGE_CHANNELS: [DeliveryChannel; 4] =
    [DeliveryChannel::Email, DeliveryChannel::Sms, DeliveryChannel::Whatsapp, DeliveryChannel::Telephony];

/// A call placed this long ago without an outcome is taken to be over (its end was never
/// reported): no call lasts as long.
pub const CALL_AT_MOST: Duration = Duration::minutes(30);

/// A call held back because its workspace has as many calls under way as it may is tried again
/// this much later.
pub const CALL_PACE_WAIT: Duration = Duration::minutes(1);

/// The reason a placed call keeps when nobody took it: `NOT_REACHED_BUSY`, `…_NO_ANSWER`,
/// `…_FAILED`, `…_MACHINE`. The message stays SENT, so the next reminder calls again.
pub const NOT_REACHED: &str = "NOT_REACHED";

/// What kind of address a channel writes to; an opt-out covers every channel of its family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressFamily {
    Email,
    /// SMS and WhatsApp.
    Phone,
}

impl AddressFamily {
    pub const fn of(channel: DeliveryChannel) -> Self {
        if channel.needs_email() { AddressFamily::Email } else { AddressFamily::Phone }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            AddressFamily::Email => "EMAIL",
            AddressFamily::Phone => "PHONE",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [AddressFamily::Email, AddressFamily::Phone].into_iter().find(|f| f.as_str() == text)
    }

    /// The address as a provider takes it: an email as given, a phone number in E.164 form (the
    /// leading `+` and the digits, without spaces or punctuation).
    pub fn dialable(self, address: &str) -> String {
        match self {
            AddressFamily::Email => address.trim().to_owned(),
            AddressFamily::Phone => {
                let digits: String = address.chars().filter(char::is_ascii_digit).collect();
                if address.trim_start().starts_with('+') { format!("+{digits}") } else { digits }
            }
        }
    }

    /// The address as it is compared: emails lower-cased, phone numbers as their digits, so an
    /// opt-out holds however the partner spelled the address.
    pub fn normalise(self, address: &str) -> String {
        match self {
            AddressFamily::Email => address.trim().to_lowercase(),
            AddressFamily::Phone => address.chars().filter(char::is_ascii_digit).collect(),
        }
    }
}

/// How opt-outs arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OptOutSource {
    /// The one-click link of an email.
    Link,
    /// A STOP reply to an SMS or WhatsApp message.
    Reply,
}

impl OptOutSource {
    pub const fn as_str(self) -> &'static str {
        match self {
            OptOutSource::Link => "LINK",
            OptOutSource::Reply => "REPLY",
        }
    }
}

/// A reply to an SMS or WhatsApp message, as the provider relayed it. The number and the words
/// are personal data: `Debug` shows neither.
#[derive(Clone, PartialEq, Eq)]
pub struct InboundReply {
    /// The number it came from (a WhatsApp number without its `whatsapp:` prefix).
    pub from: String,
    pub body: String,
}

impl std::fmt::Debug for InboundReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboundReply").finish_non_exhaustive()
    }
}

/// Whether an inbound reply asks to stop: the opt-out words SMS providers honour, alone.
pub fn is_stop_reply(body: &str) -> bool {
    const WORDS: [&str; 7] = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT"];
    let word = body.trim().trim_end_matches(['.', '!']).to_uppercase();
    WORDS.contains(&word.as_str())
}

/// The waits before each reminder: the n-th reminder is due that long after the message before
/// it was sent. Shorter lists repeat their last wait.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReminderSchedule {
    waits: Vec<Duration>,
}

impl Default for ReminderSchedule {
    /// Two days after the invitation, then four days after each reminder.
    fn default() -> Self {
        Self { waits: vec![Duration::days(2), Duration::days(4)] }
    }
}

impl ReminderSchedule {
    /// # Errors
    /// `ValidationFailed` for no waits, or a wait under an hour or over 60 days.
    pub fn new(waits: Vec<Duration>) -> Result<Self> {
        if waits.is_empty() || waits.len() > usize::from(MAX_REMINDERS) {
            return Err(Error::validation("reminder schedule", "give one to four waits"));
        }
        if waits.iter().any(|w| *w < Duration::hours(1) || *w > Duration::days(60)) {
            return Err(Error::validation("reminder schedule", "each wait is between 1 hour and 60 days"));
        }
        Ok(Self { waits })
    }

    /// The wait before reminder `number` (1 to 4).
    pub fn wait_before(&self, number: u8) -> Duration {
        let index = usize::from(number.max(1) - 1).min(self.waits.len() - 1);
        self.waits[index]
    }

    /// The waits before reminders 1 to 4, in seconds (the form the store reads).
    pub fn wait_seconds(&self) -> [i64; MAX_REMINDERS as usize] {
        [1, 2, 3, 4].map(|n| self.wait_before(n).whole_seconds())
    }
}

/// The person a message is for, as stored: contact details sealed to their row.
#[derive(Clone, PartialEq, Eq)]
pub struct Recipient {
    pub id: RespondentId,
    /// Its reference: the associated data its sealed fields are bound to; `None` once erased.
    pub reference: Option<StoredRef>,
    pub name_sealed: Option<Vec<u8>>,
    pub email_sealed: Option<Vec<u8>>,
    pub phone_sealed: Option<Vec<u8>>,
    /// The person's IANA time zone, when the partner gave one.
    pub time_zone_sealed: Option<Vec<u8>>,
    /// `None` once erased.
    pub invitation_sealed: Option<Vec<u8>>,
}

impl std::fmt::Debug for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recipient").field("id", &self.id).finish_non_exhaustive()
    }
}

/// A message claimed for sending, with everything needed to compose it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedMessage {
    pub id: MessageId,
    pub claim_token: Uuid,
    /// Attempts made before this one.
    pub attempts: u32,
    pub channel: DeliveryChannel,
    pub kind: MessageKind,
    pub sequence: u8,
    pub workspace_id: WorkspaceId,
    pub workspace_name: String,
    /// The workspace's time zone, when its partner set one: quiet hours follow it for people
    /// whose own zone is not known.
    pub workspace_time_zone: Option<TimeZoneName>,
    pub campaign_id: CampaignId,
    pub campaign_code: String,
    pub campaign_name: String,
    pub collecting: bool,
    pub greet_by_name: bool,
    /// The survey's default language tag.
    pub language: String,
    pub register: Register,
    pub recipient: Recipient,
    /// The session the person finished through their invitation, if they did.
    pub finished_session: Option<SessionId>,
}

/// A message ready for a sender. The address and the texts are personal data: `Debug` shows
/// neither.
#[derive(Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub id: MessageId,
    pub channel: DeliveryChannel,
    pub to: String,
    /// Email only: `List-Unsubscribe`.
    pub unsubscribe_url: Option<String>,
    /// Email only: the sender's display name (the workspace).
    pub sender_name: String,
    pub email: Option<EmailContent>,
    /// SMS and WhatsApp.
    pub text: Option<String>,
    /// TELEPHONY: where the provider asks what to say once the call is answered, and where it
    /// reports the call's end.
    pub call: Option<CallRequest>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRequest {
    pub answer_url: String,
    pub status_url: String,
}

impl std::fmt::Debug for OutgoingMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutgoingMessage").field("id", &self.id).field("channel", &self.channel).finish_non_exhaustive()
    }
}

/// What a provider made of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendOutcome {
    /// Accepted for delivery, with the provider's id when it gives one.
    Accepted { provider_id: Option<String> },
    /// Refused for good (a bad address, a blocked number): retrying would not help.
    Rejected { code: String },
    /// Failed for now (unreachable, overloaded, rate-limited): try again later, not before
    /// `retry_after` when the provider said so.
    Deferred { code: String, retry_after: Option<Duration> },
}

/// What becomes of a claimed message.
#[derive(Clone, Debug, PartialEq)]
pub enum MessageResult {
    Sent {
        provider_id: Option<String>,
        address_digest: Vec<u8>,
        acknowledged: Option<NewEvent>,
    },
    Retry {
        due_at: OffsetDateTime,
        code: String,
    },
    /// Quiet hours where the person is: queued again for `due_at`, no attempt counted.
    Held {
        due_at: OffsetDateTime,
    },
    Failed {
        code: String,
        address_digest: Option<Vec<u8>>,
    },
    Suppressed {
        reason: Suppression,
    },
}

/// A claimed message's outcome, recorded only while the claim is held.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageOutcome {
    pub id: MessageId,
    pub claim_token: Uuid,
    pub at: OffsetDateTime,
    pub result: MessageResult,
}

impl ClaimedMessage {
    /// What to do after the provider's answer to attempt number `self.attempts + 1`.
    pub fn after(&self, outcome: SendOutcome, address_digest: Vec<u8>, at: OffsetDateTime) -> MessageResult {
        match outcome {
            SendOutcome::Accepted { provider_id } => {
                let acknowledged = (self.kind == MessageKind::ThankYou).then(|| self.acknowledged_event(at));
                MessageResult::Sent { provider_id, address_digest, acknowledged }
            }
            SendOutcome::Rejected { code } => MessageResult::Failed { code, address_digest: Some(address_digest) },
            SendOutcome::Deferred { code, retry_after } => {
                let made = self.attempts + 1;
                if made >= MAX_SEND_ATTEMPTS {
                    return MessageResult::Failed { code, address_digest: Some(address_digest) };
                }
                let index = usize::try_from(made - 1).unwrap_or(usize::MAX).min(RETRY_AFTER.len() - 1);
                let wait = retry_after.map_or(RETRY_AFTER[index], |asked| asked.max(RETRY_AFTER[index]));
                MessageResult::Retry { due_at: at + wait, code }
            }
        }
    }

    /// `respondent.acknowledged`: the thank-you was accepted by the provider.
    fn acknowledged_event(&self, at: OffsetDateTime) -> NewEvent {
        let thanked =
            Thanked { workspace: self.workspace_id, campaign: self.campaign_id, respondent: self.recipient.id };
        thanked.event(self.finished_session, self.channel, at)
    }

    /// Why an invitation or reminder should not go out, read from the claim alone.
    pub fn suppression(&self) -> Option<Suppression> {
        match self.kind {
            MessageKind::ThankYou => None,
            MessageKind::Invitation | MessageKind::Reminder if self.finished_session.is_some() => {
                Some(Suppression::Responded)
            }
            MessageKind::Invitation | MessageKind::Reminder if !self.collecting => Some(Suppression::NotCollecting),
            MessageKind::Invitation | MessageKind::Reminder => None,
        }
    }
}

/// A respondent thanked for finishing, in a written message or at the end of a call.
pub struct Thanked {
    pub workspace: WorkspaceId,
    pub campaign: CampaignId,
    pub respondent: RespondentId,
}

impl Thanked {
    /// `respondent.acknowledged`: ids and the channel only, never an address.
    pub fn event(&self, session: Option<SessionId>, channel: DeliveryChannel, at: OffsetDateTime) -> NewEvent {
        let mut payload = Map::new();
        payload.insert("campaignId".into(), json!(self.campaign));
        payload.insert("respondentId".into(), json!(self.respondent));
        payload.insert("conversationId".into(), json!(session));
        payload.insert("channel".into(), json!(channel.as_str()));
        NewEvent {
            id: EventId::new_random(),
            workspace_id: self.workspace,
            event_type: EventType::RespondentAcknowledged,
            aggregate: crate::webhooks::models::aggregate::RESPONDENT,
            aggregate_id: self.respondent.0,
            payload,
            occurred_at: at,
        }
    }
}

/// What an unsubscribe link names. The link is this, MAC-signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsubscribeClaims {
    pub respondent: RespondentId,
    pub family: AddressFamily,
}

impl UnsubscribeClaims {
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = self.respondent.0.as_bytes().to_vec();
        bytes.push(match self.family {
            AddressFamily::Email => b'E',
            AddressFamily::Phone => b'P',
        });
        bytes
    }

    /// `None` for bytes [`UnsubscribeClaims::encode`] did not make.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        let (id, family) = bytes.split_at_checked(16)?;
        let family = match family {
            b"E" => AddressFamily::Email,
            b"P" => AddressFamily::Phone,
            _ => return None,
        };
        Some(Self { respondent: RespondentId(Uuid::from_slice(id).ok()?), family })
    }
}

/// Messages of one campaign on one channel, by what became of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelCounts {
    pub queued: u64,
    pub sent: u64,
    pub failed: u64,
    pub opted_out: u64,
    /// Calls placed that no person took: busy, unanswered, failed on the network, or answered
    /// by a machine. Counted in `sent` too.
    pub not_reached: u64,
}

/// A campaign's messages per channel, and the most frequent failure codes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutreachCounts {
    pub channels: Vec<(DeliveryChannel, ChannelCounts)>,
    /// Failure codes with how many messages failed with each, most frequent first.
    pub failures: Vec<(String, u64)>,
    /// Recordings of spoken answers at the voice provider.
    pub recordings: RecordingCounts,
}

/// Messages of one campaign grouped by channel, status and reason, as the store counts them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageTally {
    pub channel: DeliveryChannel,
    pub status: MessageStatus,
    pub reason: Option<String>,
    pub messages: u64,
}

impl OutreachCounts {
    /// The counts per channel (channels without messages left out) and the failure codes, most
    /// frequent first.
    pub fn of(tallies: &[MessageTally]) -> Self {
        let mut counts = OutreachCounts::default();
        for channel in MESSAGE_CHANNELS {
            let on: Vec<&MessageTally> = tallies.iter().filter(|t| t.channel == channel).collect();
            if on.is_empty() {
                continue;
            }
            let sum = |keep: &dyn Fn(&MessageTally) -> bool| on.iter().filter(|t| keep(t)).map(|t| t.messages).sum();
            let opted_out = Suppression::OptedOut.as_str();
            counts.channels.push((
                channel,
                ChannelCounts {
                    queued: sum(&|t| t.status == MessageStatus::Queued),
                    sent: sum(&|t| t.status == MessageStatus::Sent),
                    failed: sum(&|t| t.status == MessageStatus::Failed),
                    opted_out: sum(&|t| {
                        t.status == MessageStatus::Suppressed && t.reason.as_deref() == Some(opted_out)
                    }),
                    not_reached: sum(&|t| {
                        t.status == MessageStatus::Sent
                            && t.reason.as_deref().is_some_and(|r| r.starts_with(NOT_REACHED))
                    }),
                },
            ));
        }
        for tally in tallies.iter().filter(|t| t.status == MessageStatus::Failed) {
            let code = tally.reason.clone().unwrap_or_default();
            match counts.failures.iter_mut().find(|(c, _)| *c == code) {
                Some((_, n)) => *n += tally.messages,
                None => counts.failures.push((code, tally.messages)),
            }
        }
        counts.failures.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        counts
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn claimed(kind: MessageKind, attempts: u32) -> ClaimedMessage {
        ClaimedMessage {
            id: MessageId::new_random(),
            claim_token: Uuid::new_v4(),
            attempts,
            channel: DeliveryChannel::Sms,
            kind,
            sequence: 0,
            workspace_id: WorkspaceId::new_random(),
            workspace_name: "Acme".into(),
            workspace_time_zone: None,
            campaign_id: CampaignId::new_random(),
            campaign_code: "c".into(),
            campaign_name: "n".into(),
            collecting: true,
            greet_by_name: false,
            language: "en".into(),
            register: Register::Formal,
            recipient: Recipient {
                id: RespondentId::new_random(),
                reference: Some(StoredRef::Clear("r".into())),
                name_sealed: None,
                email_sealed: None,
                phone_sealed: None,
                time_zone_sealed: None,
                invitation_sealed: None,
            },
            finished_session: None,
        }
    }

    #[test]
    fn a_deferred_message_waits_longer_each_time_and_fails_at_the_last_attempt() {
        let at = datetime!(2026-11-23 10:00 UTC);
        let deferred = |retry_after| SendOutcome::Deferred { code: "PROVIDER_UNAVAILABLE".into(), retry_after };
        let due = |attempts, retry_after| match claimed(MessageKind::Invitation, attempts).after(
            deferred(retry_after),
            vec![],
            at,
        ) {
            MessageResult::Retry { due_at, .. } => Some(due_at - at),
            _ => None,
        };
        assert_eq!(due(0, None), Some(Duration::minutes(1)));
        assert_eq!(due(1, None), Some(Duration::minutes(5)));
        assert_eq!(due(0, Some(Duration::minutes(3))), Some(Duration::minutes(3)), "the provider's wait wins");
        assert_eq!(due(3, None), Some(Duration::hours(2)));
        assert_eq!(due(MAX_SEND_ATTEMPTS - 1, None), None, "the fifth failure is final");
        let rejected = claimed(MessageKind::Invitation, 0).after(
            SendOutcome::Rejected { code: "BAD_ADDRESS".into() },
            vec![1],
            at,
        );
        assert_eq!(rejected, MessageResult::Failed { code: "BAD_ADDRESS".into(), address_digest: Some(vec![1]) });
    }

    #[test]
    fn only_a_thank_you_acknowledges_and_its_event_names_no_address() {
        let at = datetime!(2026-11-23 10:00 UTC);
        let accepted = || SendOutcome::Accepted { provider_id: Some("SM1".into()) };
        let MessageResult::Sent { acknowledged: Some(event), .. } =
            claimed(MessageKind::ThankYou, 0).after(accepted(), vec![], at)
        else {
            panic!("a thank-you acknowledges");
        };
        assert_eq!(event.event_type, EventType::RespondentAcknowledged);
        assert_eq!(event.payload["channel"], "SMS");
        let keys: Vec<&String> = event.payload.keys().collect();
        assert_eq!(keys, ["campaignId", "channel", "conversationId", "respondentId"]);
        assert!(matches!(
            claimed(MessageKind::Reminder, 0).after(accepted(), vec![], at),
            MessageResult::Sent { acknowledged: None, .. }
        ));
    }

    #[test]
    fn invitations_and_reminders_stop_for_people_who_answered_and_closed_campaigns() {
        let mut message = claimed(MessageKind::Reminder, 0);
        assert_eq!(message.suppression(), None);
        message.collecting = false;
        assert_eq!(message.suppression(), Some(Suppression::NotCollecting));
        message.finished_session = Some(SessionId::new_random());
        assert_eq!(message.suppression(), Some(Suppression::Responded));
        message.kind = MessageKind::ThankYou;
        assert_eq!(message.suppression(), None, "a thank-you goes out once they answered");
    }

    #[test]
    fn addresses_compare_as_spelled_loosely_and_stop_words_are_recognised() {
        assert_eq!(AddressFamily::Email.normalise(" Ada@Example.COM "), "ada@example.com");
        assert_eq!(AddressFamily::Phone.normalise("+91 (98765) 43-210"), "919876543210");
        assert_eq!(AddressFamily::Phone.dialable("+91 (98765) 43-210"), "+919876543210");
        assert_eq!(AddressFamily::Email.dialable(" ada@example.com "), "ada@example.com");
        for stop in ["STOP", "stop", " Stop. ", "unsubscribe", "STOPALL"] {
            assert!(is_stop_reply(stop), "{stop}");
        }
        for other in ["please stop", "Thanks!", "", "STOPPED"] {
            assert!(!is_stop_reply(other), "{other}");
        }
    }

    #[test]
    fn the_schedule_repeats_its_last_wait_and_is_bounded() {
        let schedule = ReminderSchedule::default();
        assert_eq!(schedule.wait_before(1), Duration::days(2));
        assert_eq!(schedule.wait_before(4), Duration::days(4));
        assert_eq!(schedule.wait_seconds()[0], 172_800);
        assert!(ReminderSchedule::new(vec![]).is_err());
        assert!(ReminderSchedule::new(vec![Duration::minutes(5)]).is_err());
        assert!(ReminderSchedule::new(vec![Duration::days(1); 5]).is_err());
    }

    #[test]
    fn unsubscribe_claims_read_back_and_nothing_else_reads() {
        let claims = UnsubscribeClaims { respondent: RespondentId::new_random(), family: AddressFamily::Email };
        assert_eq!(UnsubscribeClaims::decode(&claims.encode()), Some(claims));
        assert_eq!(UnsubscribeClaims::decode(&claims.encode()[1..]), None);
        let mut other = claims.encode();
        other[16] = b'X';
        assert_eq!(UnsubscribeClaims::decode(&other), None);
    }
}
