//! A message sender that sends nothing: it records each message and answers from a script.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::outreach::models::{InboundReply, OutgoingMessage, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;

/// Sends on email, SMS and WhatsApp, and places calls only when made [`RecordingSender::with_voice`].
/// Each message is recorded and answered from the script, or accepted once the script runs out. A reply is genuine when signed
/// [`GENUINE_REPLY`], and reads its `From` and `Body` params.
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
}
