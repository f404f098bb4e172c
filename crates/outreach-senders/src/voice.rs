//! Phone calls through Twilio's Programmable Voice: a call is placed with the Calls resource, and
//! the survey is read as TwiML that Pulse serves to the call's webhooks, each signed by Twilio.

use pulse_domain::outreach::models::{CallReport, CallStatus, RecordingDeletion, TurnUrls, VoiceTurn};
use reqwest::StatusCode;
use secrecy::{ExposeSecret, SecretString};
use url::Url;

use crate::twilio::{Created, TwilioError, client, endpoint, twilio_signature_valid};
use crate::{SettingsError, TwilioSettings};

/// Seconds a call rings before it counts as not answered.
const RING_SECONDS: &str = "30";
/// Seconds of silence before a question's keys or words are taken as given.
const LISTEN_SECONDS: &str = "6";

/// Places calls from one number of one Twilio account. Cloning it is cheap.
#[derive(Clone, Debug)]
pub struct VoiceCaller {
    client: reqwest::Client,
    /// `{api_base}/2010-04-01/Accounts/{account_sid}/Calls.json`
    calls_url: Url,
    /// `{api_base}/2010-04-01/Accounts/{account_sid}/Recordings`, a recording's `{sid}.json` below.
    recordings_url: Url,
    account_sid: String,
    auth_token: SecretString,
    from: String,
}

/// What became of a request to place a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placed {
    /// Twilio took the call, with its id.
    Accepted {
        call_id: Option<String>,
    },
    Rejected {
        code: String,
    },
    Deferred {
        code: String,
    },
}

impl VoiceCaller {
    /// `None` when the account has no voice number (`voice_from`).
    ///
    /// # Errors
    /// `SettingsError::Twilio` as for texts, or for an empty voice number.
    pub fn new(settings: &TwilioSettings, from: Option<&str>) -> Result<Option<Self>, SettingsError> {
        let invalid = SettingsError::Twilio;
        let Some(from) = from.map(str::trim) else { return Ok(None) };
        if from.is_empty() {
            return Err(invalid("the voice number is empty"));
        }
        let (sid, calls_url) = endpoint(settings, "Calls.json")?;
        let (_, recordings_url) = endpoint(settings, "Recordings")?;
        let client = client(settings)?;
        Ok(Some(Self {
            client,
            calls_url,
            recordings_url,
            account_sid: sid,
            auth_token: settings.auth_token.clone(),
            from: from.to_owned(),
        }))
    }

    /// Asks Twilio to call `to`; when someone (or something) picks up, Twilio asks `answer_url`
    /// what to say, telling it whether a machine answered, and it reports the call's end to
    /// `status_url`.
    pub async fn place(&self, to: &str, answer_url: &str, status_url: &str) -> Placed {
        let form = [
            ("To", to.trim()),
            ("From", self.from.as_str()),
            ("Url", answer_url),
            ("Method", "POST"),
            ("StatusCallback", status_url),
            ("StatusCallbackMethod", "POST"),
            ("StatusCallbackEvent", "completed"),
            // Pulse waits for Twilio's verdict before it speaks, so a machine hears nothing.
            ("MachineDetection", "Enable"),
            ("Timeout", RING_SECONDS),
        ];
        let request = self
            .client
            .post(self.calls_url.clone())
            .basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()))
            .form(&form);
        let Ok(response) = request.send().await else {
            return Placed::Deferred { code: "TELEPHONY_UNAVAILABLE".into() };
        };
        match response.status() {
            status if status.is_success() => {
                Placed::Accepted { call_id: response.json::<Created>().await.ok().map(|created| created.sid) }
            }
            StatusCode::TOO_MANY_REQUESTS => Placed::Deferred { code: "TELEPHONY_RATE_LIMITED".into() },
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                Placed::Deferred { code: "TELEPHONY_AUTH_FAILED".into() }
            }
            status if status.is_client_error() => {
                // Only Twilio's numeric code is kept; its message quotes the number.
                let code = match response.json::<TwilioError>().await {
                    Ok(TwilioError { code: Some(number) }) => format!("TELEPHONY_REJECTED_{number}"),
                    _ => "TELEPHONY_REJECTED".to_owned(),
                };
                Placed::Rejected { code }
            }
            _ => Placed::Deferred { code: "TELEPHONY_UNAVAILABLE".into() },
        }
    }

    /// Deletes a recording of the account: gone when Twilio answers 204, or 404 (deleted
    /// before).
    pub async fn delete_recording(&self, recording_sid: &str) -> RecordingDeletion {
        let mut url = self.recordings_url.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.push(&format!("{recording_sid}.json"));
        }
        let request = self.client.delete(url).basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()));
        let failed = |code: &str| RecordingDeletion::Failed { code: code.to_owned() };
        let Ok(response) = request.send().await else { return failed("TELEPHONY_UNAVAILABLE") };
        match response.status() {
            status if status.is_success() => RecordingDeletion::Deleted,
            StatusCode::NOT_FOUND => RecordingDeletion::Deleted,
            StatusCode::TOO_MANY_REQUESTS => failed("TELEPHONY_RATE_LIMITED"),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => failed("TELEPHONY_AUTH_FAILED"),
            status if status.is_client_error() => failed("TELEPHONY_REJECTED"),
            _ => failed("TELEPHONY_UNAVAILABLE"),
        }
    }

    /// A request Twilio made about a call, once its `X-Twilio-Signature` holds.
    pub fn read(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<CallReport> {
        if !twilio_signature_valid(self.auth_token.expose_secret(), url, params, signature?) {
            tracing::warn!("a call webhook without a valid Twilio signature was refused");
            return None;
        }
        let param = |name: &str| {
            params.iter().find(|(key, _)| key == name).map(|(_, value)| value.trim()).filter(|v| !v.is_empty())
        };
        Some(CallReport {
            call_id: param("CallSid").map(str::to_owned),
            digits: param("Digits").map(str::to_owned),
            speech: param("SpeechResult").map(str::to_owned),
            machine: param("AnsweredBy").is_some_and(|by| by.starts_with("machine") || by == "fax"),
            status: param("CallStatus").and_then(status),
            // A recording's SID goes into the path of its deletion: letters and digits only.
            recording: param("RecordingSid")
                .filter(|sid| sid.len() <= 64 && sid.chars().all(|c| c.is_ascii_alphanumeric()))
                .map(str::to_owned),
        })
    }
}

fn status(text: &str) -> Option<CallStatus> {
    Some(match text {
        "queued" | "initiated" | "ringing" => CallStatus::Ringing,
        "in-progress" => CallStatus::InProgress,
        "completed" => CallStatus::Completed,
        "busy" => CallStatus::Busy,
        "no-answer" => CallStatus::NoAnswer,
        "failed" => CallStatus::Failed,
        "canceled" => CallStatus::Canceled,
        _ => return None,
    })
}

/// The turn as TwiML: what is said, inside a `<Gather>` when an answer is awaited (with a
/// `<Redirect>` to the same step when none comes, so silence is an answer too), else followed by
/// `<Hangup/>`. A recording the turn ends is stopped first; one it starts records the callee's
/// side only, from before the words, reported to `urls.recording` once Twilio has it.
pub fn twiml(turn: &VoiceTurn, urls: &TurnUrls) -> String {
    let voice = voice_of(turn.locale).map_or_else(String::new, |voice| format!(" voice=\"{voice}\""));
    let mut recording = String::new();
    if let Some(step) = turn.stop_recording {
        recording.push_str(&format!("<Stop><Recording name=\"{}\"/></Stop>", step.segment()));
    }
    if let Some(step) = turn.record {
        recording.push_str(&format!(
            "<Start><Recording name=\"{}\" track=\"inbound\" channels=\"mono\" \
             recordingStatusCallback=\"{}\" recordingStatusCallbackMethod=\"POST\" \
             recordingStatusCallbackEvent=\"completed absent\"/></Start>",
            step.segment(),
            escape(&urls.recording),
        ));
    }
    let mut said = String::new();
    for text in &turn.say {
        said.push_str(&format!("<Say{voice} language=\"{}\">{}</Say>", turn.locale, escape(text)));
    }
    // A spoken answer is asked for "after the tone": a short key tone marks the start.
    if turn.listen.is_some_and(|listen| listen.keys == 0) {
        said.push_str("<Play digits=\"w0\"/>");
    }
    let body = match &turn.listen {
        None => format!("{said}<Hangup/>"),
        Some(listen) => {
            let input = match (listen.keys > 0, listen.speech) {
                (true, true) => "dtmf speech",
                (true, false) => "dtmf",
                (false, _) => "speech",
            };
            let digits = if listen.keys > 0 { format!(" numDigits=\"{}\"", listen.keys) } else { String::new() };
            let action = escape(&urls.action);
            format!(
                "<Gather input=\"{input}\"{digits} language=\"{locale}\" speechTimeout=\"auto\" \
                 timeout=\"{LISTEN_SECONDS}\" action=\"{action}\" method=\"POST\">{said}</Gather>\
                 <Redirect method=\"POST\">{action}</Redirect>",
                locale = turn.locale,
            )
        }
    };
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response>{recording}{body}</Response>")
}

/// The Amazon Polly voice Twilio speaks a locale with: Twilio's default voices do not speak every
/// language a survey may be in (Hindi, Dutch, Brazilian Portuguese, Italian).
fn voice_of(locale: &str) -> Option<&'static str> {
    Some(match locale {
        "en-US" => "Polly.Joanna",
        "en-GB" => "Polly.Amy",
        "en-AU" => "Polly.Nicole",
        "en-IN" | "hi-IN" => "Polly.Aditi",
        "fr-FR" => "Polly.Lea",
        "fr-CA" => "Polly.Chantal",
        "es-ES" => "Polly.Lucia",
        "es-MX" => "Polly.Mia",
        "es-US" => "Polly.Lupe",
        "de-DE" => "Polly.Vicki",
        "pt-BR" => "Polly.Camila",
        "pt-PT" => "Polly.Ines",
        "it-IT" => "Polly.Bianca",
        "nl-NL" => "Polly.Lotte",
        _ => return None,
    })
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use pulse_domain::outreach::models::{CallStep, Listen};

    use super::*;

    #[test]
    fn a_turn_that_listens_gathers_keys_and_words_and_comes_back_on_silence() {
        let turn = VoiceTurn {
            locale: "fr-FR",
            say: vec!["Bonjour, c'est <Acme> & Cie.".into()],
            listen: Some(Listen { keys: 1, speech: true, next: CallStep::Consent }),
            stop_recording: None,
            record: None,
        };
        let xml = twiml(&turn, &urls("https://pulse.example/api/v1/public/calls/m/consent?a=1&b=2"));
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Gather input=\"dtmf speech\" numDigits=\"1\" \
             language=\"fr-FR\" speechTimeout=\"auto\" timeout=\"6\" \
             action=\"https://pulse.example/api/v1/public/calls/m/consent?a=1&amp;b=2\" method=\"POST\">\
             <Say voice=\"Polly.Lea\" language=\"fr-FR\">Bonjour, c&apos;est &lt;Acme&gt; &amp; Cie.</Say></Gather>\
             <Redirect method=\"POST\">https://pulse.example/api/v1/public/calls/m/consent?a=1&amp;b=2</Redirect>\
             </Response>"
        );
    }

    fn urls(action: &str) -> TurnUrls {
        TurnUrls { action: action.to_owned(), recording: "https://pulse.example/calls/m/recording".to_owned() }
    }

    #[test]
    fn a_recorded_answer_is_the_callee_s_side_from_before_the_question_to_the_next_turn() {
        let question = CallStep::Question { index: 1, retried: false };
        let asked = VoiceTurn {
            locale: "en-US",
            say: vec!["Tell us more.".into()],
            listen: Some(Listen { keys: 0, speech: true, next: question }),
            stop_recording: None,
            record: Some(question),
        };
        let xml = twiml(&asked, &urls("https://pulse.example/calls/m/q1"));
        assert!(
            xml.starts_with(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Start><Recording name=\"q1\" \
                 track=\"inbound\" channels=\"mono\" recordingStatusCallback=\"https://pulse.example/calls/m/recording\" \
                 recordingStatusCallbackMethod=\"POST\" recordingStatusCallbackEvent=\"completed absent\"/></Start><Gather"
            ),
            "{xml}"
        );
        let next = VoiceTurn { stop_recording: Some(question), record: None, listen: None, ..asked };
        let xml = twiml(&next, &urls("unused"));
        assert!(xml.contains("<Response><Stop><Recording name=\"q1\"/></Stop><Say"), "{xml}");
        assert!(!xml.contains("<Start>"), "{xml}");
    }

    #[test]
    fn a_last_turn_says_its_words_and_hangs_up() {
        let turn =
            VoiceTurn {
                locale: "hi-IN", say: vec!["धन्यवाद".into()], listen: None, stop_recording: None, record: None
            };
        assert_eq!(
            twiml(&turn, &urls("unused")),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Say voice=\"Polly.Aditi\" language=\"hi-IN\">धन्यवाद</Say><Hangup/></Response>"
        );
        assert!(twiml(&VoiceTurn::hang_up(), &urls("unused")).ends_with("<Response><Hangup/></Response>"));
    }

    #[test]
    fn statuses_are_read_as_twilio_names_them() {
        assert_eq!(status("no-answer"), Some(CallStatus::NoAnswer));
        assert_eq!(status("in-progress"), Some(CallStatus::InProgress));
        assert_eq!(status("exploded"), None);
    }
}
