//! Where outreach messages and opt-outs live, and how messages leave the service.

use std::future::Future;

use time::OffsetDateTime;

use crate::campaigns::models::{Campaign, DeliveryChannel, Survey};
use crate::error::Result;
use crate::ids::{CampaignId, MessageId, RecordingId, RespondentId, SessionId, WorkspaceId};
use crate::outreach::models::{
    AddressFamily, CallContext, CallReport, CallUpdate, ClaimedMessage, DueRecording, InboundReply, MessageOutcome,
    NewRecording, OptOutSource, OutgoingMessage, OutreachCounts, Recipient, RecordingDeletion, RecordingResult,
    ReminderSchedule, SendOutcome, TurnUrls, VoiceTurn,
};
use crate::sessions::models::{AnswerInput, Progress, StartInput, StartOutcome};

/// The message outbox and the opt-out list.
pub trait OutreachRepository: Send + Sync + 'static {
    /// Queues, due at `now`, every message the durable state asks for and that is not there yet
    /// (each is unique per person, channel, kind and number, so planning twice queues nothing
    /// twice), and returns how many it queued:
    /// - an invitation per attached respondent of an ACTIVE campaign, on each of the campaign's
    ///   `senders` channels the respondent has an address for, unless they already finished;
    /// - reminder `n` (up to the campaign's `reminderCount`) on a channel whose message `n - 1`
    ///   was SENT at least `schedule.wait_before(n)` ago, while the campaign is ACTIVE and the
    ///   person has not finished;
    /// - one thank-you to a person who finished through their invitation, on the first of the
    ///   campaign's channels whose invitation was SENT (one per person, whatever the channel).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn plan_messages(
        &self,
        now: OffsetDateTime,
        senders: &[DeliveryChannel],
        schedule: &ReminderSchedule,
    ) -> impl Future<Output = Result<u64>> + Send;

    /// Claims up to `limit` QUEUED messages on the `senders` channels, due at `now`, that no live
    /// lease holds, until `lease_until`. Concurrent claims never return the same message.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_messages(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
        senders: &[DeliveryChannel],
    ) -> impl Future<Output = Result<Vec<ClaimedMessage>>> + Send;

    /// Records a claimed message's outcome (and, for an accepted thank-you, its
    /// `respondent.acknowledged` event) in one transaction; `false`, recording nothing, when the
    /// claim was lost.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn finish_message(&self, outcome: &MessageOutcome) -> impl Future<Output = Result<bool>> + Send;

    /// Whether the address (by its keyed digest) opted out of the workspace's messages.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn is_opted_out(&self, workspace: WorkspaceId, address_digest: &[u8]) -> impl Future<Output = Result<bool>> + Send;

    /// Records an opt-out; recording one twice keeps the first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_opt_out(
        &self,
        workspace: WorkspaceId,
        address_digest: &[u8],
        family: AddressFamily,
        source: OptOutSource,
        at: OffsetDateTime,
    ) -> impl Future<Output = Result<()>> + Send;

    /// The workspaces that sent a message to the address (by its keyed digest), latest first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn workspaces_that_wrote_to(&self, address_digest: &[u8]) -> impl Future<Output = Result<Vec<WorkspaceId>>> + Send;

    /// A respondent with their campaign and its workspace.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn recipient(
        &self,
        respondent: RespondentId,
    ) -> impl Future<Output = Result<Option<(WorkspaceId, CampaignId, Recipient)>>> + Send;

    /// The campaign's messages per channel, its failure codes, and its recordings (overdue: not
    /// deleted, and due before `now`).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn outreach_counts(
        &self,
        campaign: CampaignId,
        now: OffsetDateTime,
    ) -> impl Future<Output = Result<OutreachCounts>> + Send;

    /// The workspace's calls under way: TELEPHONY messages SENT since `since` whose call has no
    /// outcome yet.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn calls_under_way(
        &self,
        workspace: WorkspaceId,
        since: OffsetDateTime,
    ) -> impl Future<Output = Result<u64>> + Send;

    /// A TELEPHONY message with what its call recorded so far; `None` for another message.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn call(&self, message: MessageId) -> impl Future<Output = Result<Option<CallContext>>> + Send;

    /// Records what a turn changed of a call: its provider id, the session it started, how it
    /// ended (an outcome nobody took also becomes its message's reason), and the
    /// `respondent.acknowledged` event of a spoken thank-you, in one transaction. The first
    /// outcome recorded stays.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_call(&self, update: &CallUpdate) -> impl Future<Output = Result<()>> + Send;

    /// Keeps a recording the provider reported until it is deleted; one reported again (the
    /// same message and reference digest) is kept once, as first reported.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_recording(&self, recording: &NewRecording) -> impl Future<Output = Result<()>> + Send;

    /// Claims up to `limit` recordings not yet deleted, due for deletion and for their next
    /// attempt at `now`, that no live lease holds, until `lease_until`. Concurrent claims never
    /// return the same recording.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_recordings(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<DueRecording>>> + Send;

    /// Records what became of a claimed recording and releases it: deleted (its sealed
    /// reference dropped, for good), or one more failed attempt and when to try again.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn finish_recording(
        &self,
        recording: RecordingId,
        result: &RecordingResult,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// How messages leave the service: one adapter per channel behind one router.
pub trait MessageSender: Send + Sync + 'static {
    /// Whether messages on `channel` can be sent here (a channel without a configured provider
    /// cannot, and a campaign that asks for it cannot launch).
    fn can_send(&self, channel: DeliveryChannel) -> bool;

    /// Hands the message to the channel's provider. Every failure is an outcome, not an error.
    fn send(&self, message: &OutgoingMessage) -> impl Future<Output = SendOutcome> + Send;

    /// Reads a reply that the SMS/WhatsApp provider posted to `url` (the public URL it was
    /// configured with) as the form `params`, signed with `signature`; `None` unless the provider
    /// truly signed it.
    fn read_reply(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<InboundReply>;

    /// Reads a request the voice provider made about a call to `url`; `None` unless the provider
    /// truly signed it (and always without a voice provider).
    fn read_call(&self, _url: &str, _params: &[(String, String)], _signature: Option<&str>) -> Option<CallReport> {
        None
    }

    /// The turn in the voice provider's markup, with where the provider sends what follows it;
    /// nothing without a voice provider, which never places a call to ask about.
    fn render_turn(&self, _turn: &VoiceTurn, _urls: &TurnUrls) -> String {
        String::new()
    }

    /// Deletes a recording at the voice provider, by its reference. Every failure is an
    /// outcome; without a voice provider nothing can be deleted, and the recording waits for
    /// one.
    fn delete_recording(&self, _reference: &str) -> impl Future<Output = RecordingDeletion> + Send {
        std::future::ready(RecordingDeletion::Failed { code: "TELEPHONY_NOT_CONFIGURED".into() })
    }
}

/// Survey sessions as a call drives them: the respondent's own, started through their
/// invitation, answered and completed with the session's token, as the page does.
pub trait CallSessions: Send + Sync {
    /// The campaign of `code` and its survey.
    fn survey(&self, code: &str) -> impl Future<Output = Result<(Campaign, Survey)>> + Send;

    fn start(&self, code: &str, input: StartInput) -> impl Future<Output = Result<StartOutcome>> + Send;

    fn answer(
        &self,
        code: &str,
        session: SessionId,
        token: &str,
        answers: Vec<AnswerInput>,
    ) -> impl Future<Output = Result<Progress>> + Send;

    fn complete(&self, code: &str, session: SessionId, token: &str) -> impl Future<Output = Result<Progress>> + Send;
}
