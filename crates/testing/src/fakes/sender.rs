//! A message sender that sends nothing: it records each message and answers from a script.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::outreach::models::{CallReport, InboundReply, OutgoingMessage, RecordingDeletion, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;

/// Sends on email, SMS and WhatsApp, and places calls only when made [`RecordingSender::with_voice`].
/// Each message is recorded and answered from the script, or accepted once the script runs out.
/// A reply or a call's request is genuine when signed [`GENUINE_REPLY`]: a reply reads its
/// `From` and `Body` params, a call's request its `CallSid` and `RecordingSid`. Recordings are
/// deleted as asked, or fail as scripted.
/// The signature the fake takes for a provider's.
pub const GENUINE_REPLY: &str = "signed-by-the-provider";

#[derive(Clone, Debug, Default)]
pub struct RecordingSender {
    inner: Arc<Mutex<SenderState>>,
}

#[derive(Debug, Default)]
struct SenderState {
    script: VecDeque<SendOutcome>,
    sent: Vec<OutgoingMessage>,
    voice: bool,
    /// Failure codes the next deletions get, in order.
    deletion_failures: VecDeque<String>,
    deleted: Vec<String>,
}

impl RecordingSender {
    /// A sender that places calls (TELEPHONY) too.
    pub fn with_voice() -> Self {
        let sender = Self::default();
        sender.lock().voice = true;
        sender
    }

    /// Answers the next messages with these outcomes, in order.
    pub fn answer(&self, outcomes: impl IntoIterator<Item = SendOutcome>) {
        self.lock().script.extend(outcomes);
    }

    /// The next recording deletions fail with these codes, in order.
    pub fn fail_deletions(&self, codes: impl IntoIterator<Item = &'static str>) {
        self.lock().deletion_failures.extend(codes.into_iter().map(str::to_owned));
    }

    /// The references of the recordings deleted so far, in order.
    pub fn deleted_recordings(&self) -> Vec<String> {
        self.lock().deleted.clone()
    }

    /// Every message handed over so far, accepted or not.
    pub fn sent(&self) -> Vec<OutgoingMessage> {
        self.lock().sent.clone()
    }

    fn lock(&self) -> MutexGuard<'_, SenderState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MessageSender for RecordingSender {
    fn can_send(&self, channel: DeliveryChannel) -> bool {
        channel != DeliveryChannel::Telephony || self.lock().voice
    }

    async fn send(&self, message: &OutgoingMessage) -> SendOutcome {
        let mut state = self.lock();
        state.sent.push(message.clone());
        let accepted = SendOutcome::Accepted { provider_id: Some(format!("fake-{}", state.sent.len())) };
        state.script.pop_front().unwrap_or(accepted)
    }

    fn read_reply(&self, _url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<InboundReply> {
        if signature != Some(GENUINE_REPLY) {
            return None;
        }
        let param = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        Some(InboundReply { from: param("From")?, body: param("Body").unwrap_or_default() })
    }

    fn read_call(&self, _url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<CallReport> {
        if signature != Some(GENUINE_REPLY) {
            return None;
        }
        let param = |name: &str| params.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        Some(CallReport { call_id: param("CallSid"), recording: param("RecordingSid"), ..CallReport::default() })
    }

    async fn delete_recording(&self, reference: &str) -> RecordingDeletion {
        let mut state = self.lock();
        match state.deletion_failures.pop_front() {
            Some(code) => RecordingDeletion::Failed { code },
            None => {
                state.deleted.push(reference.to_owned());
                RecordingDeletion::Deleted
            }
        }
    }
}
