//! Outreach senders: the adapters of `pulse_domain::outreach::ports::MessageSender`. Email goes out
//! over SMTP with lettre ([`SmtpSender`]: STARTTLS or implicit TLS on rustls, a multipart text and
//! HTML body, a stable `Message-ID` and RFC 8058 one-click `List-Unsubscribe`); SMS and WhatsApp go
//! out through Twilio's Programmable Messaging REST API with reqwest ([`SmsSender`]), which also
//! reads the replies Twilio relays once [`twilio_signature_valid`] has authenticated them; calls
//! go out through Twilio's Programmable Voice ([`VoiceCaller`]), which reads the survey as TwiML.
//! [`Senders`] routes each message to the sender of its channel and is what the worker is given.
//! Every failure is a [`SendOutcome`] whose code names the kind of failure only: codes and log
//! lines never hold an address, a message text, a credential or a provider's reply text.

mod smtp;
mod twilio;
mod voice;

pub use smtp::{SmtpSender, SmtpSettings};
pub use twilio::{SmsSender, TWILIO_API_BASE, TwilioSettings, twilio_signature_valid};
pub use voice::{Placed, VoiceCaller, twiml};

use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::outreach::models::{
    CallReport, InboundReply, OutgoingMessage, RecordingDeletion, SendOutcome, TurnUrls, VoiceTurn,
};
use pulse_domain::outreach::ports::MessageSender;

/// The code of a message whose channel has no sender here.
pub const CHANNEL_NOT_CONFIGURED: &str = "CHANNEL_NOT_CONFIGURED";

/// Settings a sender cannot be built from. The texts name the setting, never its value.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("SMTP settings: {0}")]
    Smtp(&'static str),
    #[error("Twilio settings: {0}")]
    Twilio(&'static str),
}

/// The router the worker is given: each message goes to the sender of its channel.
#[derive(Clone, Debug, Default)]
pub struct Senders {
    email: Option<SmtpSender>,
    sms: Option<SmsSender>,
    voice: Option<VoiceCaller>,
}

impl Senders {
    /// `None` leaves the channel(s) unconfigured: they cannot be sent on, and a campaign asking
    /// for them cannot launch.
    pub fn new(email: Option<SmtpSender>, sms: Option<SmsSender>) -> Self {
        Self { email, sms, voice: None }
    }

    /// Calls (TELEPHONY) through `voice`; without, TELEPHONY cannot be sent on.
    #[must_use]
    pub fn with_voice(mut self, voice: Option<VoiceCaller>) -> Self {
        self.voice = voice;
        self
    }
}

impl MessageSender for Senders {
    fn can_send(&self, channel: DeliveryChannel) -> bool {
        match channel {
            DeliveryChannel::Email => self.email.as_ref().is_some_and(|email| email.can_send(channel)),
            DeliveryChannel::Sms | DeliveryChannel::Whatsapp => {
                self.sms.as_ref().is_some_and(|sms| sms.can_send(channel))
            }
            DeliveryChannel::Telephony => self.voice.is_some(),
        }
    }

    async fn send(&self, message: &OutgoingMessage) -> SendOutcome {
        match (message.channel, &self.email, &self.sms, &self.voice) {
            (DeliveryChannel::Email, Some(email), _, _) => email.send(message).await,
            (DeliveryChannel::Sms | DeliveryChannel::Whatsapp, _, Some(sms), _) => sms.send(message).await,
            (DeliveryChannel::Telephony, _, _, Some(voice)) => call(voice, message).await,
            _ => logged(message, not_configured(), "no sender for the channel"),
        }
    }

    /// Replies come only from the SMS/WhatsApp provider.
    fn read_reply(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<InboundReply> {
        self.sms.as_ref()?.read_reply(url, params, signature)
    }

    fn read_call(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<CallReport> {
        self.voice.as_ref()?.read(url, params, signature)
    }

    fn render_turn(&self, turn: &VoiceTurn, urls: &TurnUrls) -> String {
        twiml(turn, urls)
    }

    async fn delete_recording(&self, reference: &str) -> RecordingDeletion {
        match &self.voice {
            Some(voice) => voice.delete_recording(reference).await,
            None => RecordingDeletion::Failed { code: "TELEPHONY_NOT_CONFIGURED".into() },
        }
    }
}

/// Places the call a TELEPHONY message asks for.
async fn call(voice: &VoiceCaller, message: &OutgoingMessage) -> SendOutcome {
    let Some(request) = &message.call else {
        return logged(message, SendOutcome::Rejected { code: "TELEPHONY_CONTENT_MISSING".into() }, "no call");
    };
    let outcome = match voice.place(&message.to, &request.answer_url, &request.status_url).await {
        Placed::Accepted { call_id } => SendOutcome::Accepted { provider_id: call_id },
        Placed::Rejected { code } => SendOutcome::Rejected { code },
        Placed::Deferred { code } => SendOutcome::Deferred { code, retry_after: None },
    };
    logged(message, outcome, "a call")
}

fn not_configured() -> SendOutcome {
    SendOutcome::Rejected { code: CHANNEL_NOT_CONFIGURED.to_owned() }
}

/// Logs what became of a message and hands the outcome on. The line names the message by its id
/// and channel; `detail` is the sender's own words (a reply code, a kind of failure), never a
/// provider's text.
fn logged(message: &OutgoingMessage, outcome: SendOutcome, detail: &str) -> SendOutcome {
    let (message_id, channel) = (message.id, message.channel.as_str());
    match &outcome {
        SendOutcome::Accepted { .. } => {
            tracing::info!(%message_id, channel, detail, "message accepted by the provider")
        }
        SendOutcome::Rejected { code } => tracing::warn!(%message_id, channel, code, detail, "message rejected"),
        SendOutcome::Deferred { code, retry_after } => {
            let retry_after_s = retry_after.map(|wait| wait.whole_seconds());
            tracing::warn!(%message_id, channel, code, retry_after_s, detail, "message deferred");
        }
    }
    outcome
}
