//! What the outreach worker does each round (plan, claim, compose, send, record), and the two
//! ways a person stops messages: the one-click link and a STOP reply. A call's turns are in
//! `calls`, and the recordings of their spoken answers in `recordings`.

mod calls;
mod recordings;

pub use calls::CALLS_PATH;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::campaigns::models::{DeliveryChannel, StoredRef, ref_seal_context, seal_context};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, MessageId};
use crate::outreach::models::{
    AddressFamily, AnswerRecording, CALL_AT_MOST, CALL_PACE_WAIT, CallRequest, ClaimedMessage, MESSAGE_BATCH,
    MESSAGE_CHANNELS, MESSAGE_LEASE, MessageFacts, MessageKind, MessageOutcome, MessageResult, OptOutSource,
    OutgoingMessage, QuietHours, Recipient, ReminderSchedule, SendOutcome, Suppression, UnsubscribeClaims, email,
    interrupts, short_text, zone_for,
};
use crate::outreach::ports::{MessageSender, OutreachRepository};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose, macs_equal};
use crate::shared::time_zone::TimeZoneName;

/// Bytes of the unsubscribe MAC kept in links.
const MAC_LEN: usize = 16;

/// What one round of the worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutreachRound {
    pub planned: u64,
    pub sent: Vec<MessageId>,
    pub retried: Vec<MessageId>,
    /// Queued again for the end of quiet hours where the person is.
    pub held: Vec<MessageId>,
    pub failed: Vec<MessageId>,
    pub suppressed: Vec<MessageId>,
}

impl OutreachRound {
    pub fn handled(&self) -> usize {
        self.sent.len() + self.retried.len() + self.held.len() + self.failed.len() + self.suppressed.len()
    }
}

pub struct Outreach<R, M, C, K> {
    repo: R,
    sender: M,
    crypto: C,
    clock: K,
    survey_url: String,
    base_url: String,
    unsubscribe_url: String,
    schedule: ReminderSchedule,
    quiet_hours: Option<QuietHours>,
    calls_at_once: Option<u32>,
    answer_recording: AnswerRecording,
}

impl<R, M, C, K> Outreach<R, M, C, K>
where
    R: OutreachRepository,
    M: MessageSender,
    C: Crypto,
    K: Clock,
{
    pub fn new(
        repo: R,
        sender: M,
        crypto: C,
        clock: K,
        survey_url: &str,
        base_url: &str,
        schedule: ReminderSchedule,
    ) -> Self {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let unsubscribe_url = format!("{base_url}/u");
        let survey_url = survey_url.trim_end_matches('/').to_owned();
        Self {
            repo,
            sender,
            crypto,
            clock,
            survey_url,
            base_url,
            unsubscribe_url,
            schedule,
            quiet_hours: None,
            calls_at_once: None,
            answer_recording: AnswerRecording::Off,
        }
    }

    /// At most this many calls under way per workspace, so a morning's held calls do not ring
    /// all at once; without, calls go as fast as they are claimed.
    #[must_use]
    pub fn with_calls_at_once(mut self, calls_at_once: Option<u32>) -> Self {
        self.calls_at_once = calls_at_once;
        self
    }

    /// Whether spoken answers are also recorded at the voice provider (and deleted after the
    /// campaign's `audioRetentionDays`).
    #[must_use]
    pub fn with_answer_recording(mut self, answer_recording: AnswerRecording) -> Self {
        self.answer_recording = answer_recording;
        self
    }

    /// Holds texts and calls in these hours of the person's day; without, they go at any hour.
    #[must_use]
    pub fn with_quiet_hours(mut self, quiet_hours: Option<QuietHours>) -> Self {
        self.quiet_hours = quiet_hours;
        self
    }

    /// The public origin of the API, as providers are told to call it back.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The channels messages can be sent on here; a campaign asking for another cannot launch.
    pub fn senders(&self) -> Vec<DeliveryChannel> {
        MESSAGE_CHANNELS.into_iter().filter(|c| self.sender.can_send(*c)).collect()
    }

    /// Plans what is due, then sends a batch of due messages and records each outcome.
    ///
    /// # Errors
    /// Port errors of planning, claiming or recording; a send that fails is an outcome.
    pub async fn run_due(&self) -> Result<OutreachRound> {
        let now = self.clock.now();
        let senders = self.senders();
        let planned = self.repo.plan_messages(now, &senders, &self.schedule).await?;
        let mut round = OutreachRound { planned, ..OutreachRound::default() };
        for message in self.repo.claim_messages(now, now + MESSAGE_LEASE, MESSAGE_BATCH, &senders).await? {
            let result = self.handle(&message).await?;
            let list = match &result {
                MessageResult::Sent { .. } => &mut round.sent,
                MessageResult::Retry { .. } => &mut round.retried,
                MessageResult::Held { .. } => &mut round.held,
                MessageResult::Failed { .. } => &mut round.failed,
                MessageResult::Suppressed { .. } => &mut round.suppressed,
            };
            let outcome =
                MessageOutcome { id: message.id, claim_token: message.claim_token, at: self.clock.now(), result };
            if self.repo.finish_message(&outcome).await? {
                list.push(message.id);
            }
        }
        Ok(round)
    }

    async fn handle(&self, message: &ClaimedMessage) -> Result<MessageResult> {
        if let Some(reason) = message.suppression() {
            return Ok(MessageResult::Suppressed { reason });
        }
        let family = AddressFamily::of(message.channel);
        let Some(address) = self.address(message, family) else {
            return Ok(MessageResult::Suppressed { reason: Suppression::NoAddress });
        };
        let digest = self.address_digest(family, &address);
        if self.repo.is_opted_out(message.workspace_id, &digest).await? {
            return Ok(MessageResult::Suppressed { reason: Suppression::OptedOut });
        }
        if !self.sender.can_send(message.channel) {
            return Ok(MessageResult::Failed { code: "CHANNEL_NOT_CONFIGURED".into(), address_digest: None });
        }
        let to = family.dialable(&address);
        if let Some(due_at) = self.quiet_until(message, &to) {
            return Ok(MessageResult::Held { due_at });
        }
        if let Some(at_once) = self.calls_at_once.filter(|_| message.channel == DeliveryChannel::Telephony) {
            let now = self.clock.now();
            if self.repo.calls_under_way(message.workspace_id, now - CALL_AT_MOST).await? >= u64::from(at_once) {
                return Ok(MessageResult::Held { due_at: now + CALL_PACE_WAIT });
            }
        }
        let outgoing = self.compose(message, family, to)?;
        let outcome: SendOutcome = self.sender.send(&outgoing).await;
        Ok(message.after(outcome, digest, self.clock.now()))
    }

    /// When quiet hours where the person is end, if they hold a message on this channel now.
    fn quiet_until(&self, message: &ClaimedMessage, number: &str) -> Option<time::OffsetDateTime> {
        let quiet_hours = self.quiet_hours.filter(|_| interrupts(message.channel))?;
        let own_zone = message
            .recipient
            .time_zone_sealed
            .as_ref()
            .and_then(|sealed| self.open(message, "timeZone", sealed))
            .and_then(|name| TimeZoneName::known(&name));
        let zone = zone_for(own_zone.as_ref(), Some(number), message.workspace_time_zone.as_ref());
        quiet_hours.opening(self.clock.now(), &zone)
    }

    /// The person's address on the message's channel, opened in memory; `None` when there is
    /// none or it cannot be opened.
    fn address(&self, message: &ClaimedMessage, family: AddressFamily) -> Option<String> {
        let recipient = &message.recipient;
        let (field, sealed) = match family {
            AddressFamily::Email => ("email", recipient.email_sealed.as_ref()?),
            AddressFamily::Phone => ("phone", recipient.phone_sealed.as_ref()?),
        };
        self.open(message, field, sealed)
    }

    fn open(&self, message: &ClaimedMessage, field: &str, sealed: &[u8]) -> Option<String> {
        open_field(&self.crypto, message.campaign_id, &message.recipient, field, sealed)
    }

    fn address_digest(&self, family: AddressFamily, address: &str) -> Vec<u8> {
        let normalised = format!("{}:{}", family.as_str(), family.normalise(address));
        self.crypto.keyed_digest(DigestPurpose::OutreachAddress, normalised.as_bytes())
    }

    fn compose(&self, message: &ClaimedMessage, family: AddressFamily, to: String) -> Result<OutgoingMessage> {
        let recipient = &message.recipient;
        let name = if message.greet_by_name {
            recipient.name_sealed.as_ref().and_then(|sealed| self.open(message, "name", sealed))
        } else {
            None
        };
        let link = match message.kind {
            MessageKind::ThankYou => None,
            MessageKind::Invitation | MessageKind::Reminder => {
                let nonce = recipient
                    .invitation_sealed
                    .as_ref()
                    .and_then(|sealed| self.open(message, "invitation", sealed))
                    .ok_or_else(|| Error::internal("an invitation link could not be opened"))?;
                Some(format!("{}/s/{}/{nonce}", self.survey_url, message.campaign_code))
            }
        };
        let unsubscribe = (family == AddressFamily::Email).then(|| self.unsubscribe_link(message, family));
        let facts = MessageFacts {
            kind: message.kind,
            language: &message.language,
            register: message.register,
            recipient_name: name.as_deref(),
            sender: &message.workspace_name,
            campaign: &message.campaign_name,
            link: link.as_deref(),
            unsubscribe: unsubscribe.as_deref(),
        };
        let (email, text, call) = match (family, message.channel) {
            (AddressFamily::Email, _) => (Some(email(&facts)), None, None),
            (AddressFamily::Phone, DeliveryChannel::Telephony) => {
                let answer_url = self.call_url(message.id, "answered");
                (None, None, Some(CallRequest { answer_url, status_url: self.call_url(message.id, "status") }))
            }
            (AddressFamily::Phone, _) => (None, Some(short_text(&facts)), None),
        };
        Ok(OutgoingMessage {
            id: message.id,
            channel: message.channel,
            to,
            unsubscribe_url: unsubscribe,
            sender_name: message.workspace_name.clone(),
            email,
            text,
            call,
        })
    }

    fn unsubscribe_link(&self, message: &ClaimedMessage, family: AddressFamily) -> String {
        let body = UnsubscribeClaims { respondent: message.recipient.id, family }.encode();
        let mac = self.mac(&body);
        format!("{}/{}.{}", self.unsubscribe_url, URL_SAFE_NO_PAD.encode(body), URL_SAFE_NO_PAD.encode(mac))
    }

    fn mac(&self, body: &[u8]) -> Vec<u8> {
        let mut mac = self.crypto.keyed_digest(DigestPurpose::Unsubscribe, body);
        mac.truncate(MAC_LEN);
        mac
    }

    /// Opts the person a one-click link names out of its workspace's messages on the link's
    /// address family. Following a link twice is no error.
    ///
    /// # Errors
    /// `NotFound` for a link that is not genuine or whose person is gone; port errors.
    pub async fn unsubscribe(&self, token: &str) -> Result<()> {
        let gone = || Error::not_found("unsubscribe link");
        let claims = self.read_unsubscribe(token).ok_or_else(gone)?;
        let (workspace, campaign, recipient) = self.repo.recipient(claims.respondent).await?.ok_or_else(gone)?;
        let (field, sealed) = match claims.family {
            AddressFamily::Email => ("email", recipient.email_sealed.as_ref()),
            AddressFamily::Phone => ("phone", recipient.phone_sealed.as_ref()),
        };
        let sealed = sealed.ok_or_else(gone)?;
        let address = open_field(&self.crypto, campaign, &recipient, field, sealed).ok_or_else(gone)?;
        let digest = self.address_digest(claims.family, &address);
        self.repo.record_opt_out(workspace, &digest, claims.family, OptOutSource::Link, self.clock.now()).await
    }

    /// Whether a one-click link is genuine, without acting on it (a page shows the button first:
    /// mail scanners open links, and must not unsubscribe anyone).
    ///
    /// # Errors
    /// `NotFound` for a link that is not genuine.
    pub fn check_unsubscribe(&self, token: &str) -> Result<()> {
        self.read_unsubscribe(token).map(|_| ()).ok_or_else(|| Error::not_found("unsubscribe link"))
    }

    fn read_unsubscribe(&self, token: &str) -> Option<UnsubscribeClaims> {
        let (body, mac) = token.split_once('.')?;
        let body = URL_SAFE_NO_PAD.decode(body).ok()?;
        let mac = URL_SAFE_NO_PAD.decode(mac).ok()?;
        if !macs_equal(&self.mac(&body), &mac) {
            return None;
        }
        UnsubscribeClaims::decode(&body)
    }

    /// Handles a reply the provider relayed (see [`MessageSender::read_reply`]): a STOP word opts
    /// the number out of the messages of every workspace that wrote to it (they share the sending
    /// number, so the reply cannot say which one it meant). Returns whether it was an opt-out.
    ///
    /// # Errors
    /// `Unauthenticated` when the provider did not sign it; port errors.
    pub async fn reply(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Result<bool> {
        let reply = self.sender.read_reply(url, params, signature).ok_or_else(|| {
            Error::refused(ErrorCode::Unauthenticated, "the reply is not signed by the messaging provider")
        })?;
        if !crate::outreach::models::is_stop_reply(&reply.body) {
            return Ok(false);
        }
        let family = AddressFamily::Phone;
        let digest = self.address_digest(family, &reply.from);
        let now = self.clock.now();
        for workspace in self.repo.workspaces_that_wrote_to(&digest).await? {
            self.repo.record_opt_out(workspace, &digest, family, OptOutSource::Reply, now).await?;
        }
        Ok(true)
    }
}

/// One sealed field of a recipient, opened in memory: its reference (the field's associated data)
/// is opened first. `None` when either cannot be opened.
fn open_field<C: Crypto>(
    crypto: &C,
    campaign: CampaignId,
    recipient: &Recipient,
    field: &str,
    sealed: &[u8],
) -> Option<String> {
    let reference = match recipient.reference.as_ref()? {
        StoredRef::Sealed { digest, sealed } => crypto.open(&ref_seal_context(campaign, digest), sealed).ok()?,
        StoredRef::Clear(reference) => reference.clone().into_bytes(),
    };
    let reference = String::from_utf8(reference).ok()?;
    crypto.open(&seal_context(campaign, &reference, field), sealed).ok().and_then(|bytes| String::from_utf8(bytes).ok())
}
