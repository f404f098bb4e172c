//! SMS and WhatsApp through Twilio's Programmable Messaging REST API, the most widely used SMS
//! provider's, and the check of its inbound webhooks' signatures.

use std::time::{Duration, SystemTime};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::outreach::models::{InboundReply, OutgoingMessage, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use ring::hmac;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use url::Url;

use crate::{SettingsError, logged, not_configured};

/// Twilio's API host, the usual `api_base`.
pub const TWILIO_API_BASE: &str = "https://api.twilio.com";

/// The longest wait a provider's `Retry-After` is believed for: a day is past any real rate
/// limit, and a larger value is more likely a mistake than a plan.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Clone, Debug)]
pub struct TwilioSettings {
    /// [`TWILIO_API_BASE`]; another base (a path is kept) for tests.
    pub api_base: Url,
    /// `AC…`: the account the messages are sent from, and the basic-auth user.
    pub account_sid: String,
    pub auth_token: SecretString,
    /// The sending number (E.164, `+1…`) or alphanumeric sender id; `None` leaves SMS off.
    pub sms_from: Option<String>,
    /// The WhatsApp sender, with or without its `whatsapp:` prefix; `None` leaves WhatsApp off.
    pub whatsapp_from: Option<String>,
    /// For the whole request, from connecting to the answer's body.
    pub timeout: Duration,
}

/// Sends SMS and WhatsApp messages with one Twilio account. Cloning it is cheap.
#[derive(Clone, Debug)]
pub struct SmsSender {
    client: reqwest::Client,
    /// `{api_base}/2010-04-01/Accounts/{account_sid}/Messages.json`
    messages_url: Url,
    account_sid: String,
    auth_token: SecretString,
    sms_from: Option<String>,
    whatsapp_from: Option<String>,
}

impl SmsSender {
    /// # Errors
    /// `SettingsError::Twilio` for an API base that is not an http(s) URL, an account SID that is
    /// not alphanumeric, an empty auth token or sender, or an HTTP client that cannot be built.
    pub fn new(settings: TwilioSettings) -> Result<Self, SettingsError> {
        let invalid = SettingsError::Twilio;
        let (sid, messages_url) = endpoint(&settings, "Messages.json")?;
        if settings.auth_token.expose_secret().is_empty() {
            return Err(invalid("the auth token is empty"));
        }
        let sender = |from: Option<String>| match from.map(|from| from.trim().to_owned()) {
            Some(from) if from.is_empty() || from == "whatsapp:" => Err(invalid("a sender is empty")),
            from => Ok(from),
        };
        let client = client(&settings)?;
        let (sms_from, whatsapp_from) = (sender(settings.sms_from)?, sender(settings.whatsapp_from)?);
        Ok(Self { client, messages_url, account_sid: sid, auth_token: settings.auth_token, sms_from, whatsapp_from })
    }

    fn from(&self, channel: DeliveryChannel) -> Option<&str> {
        match channel {
            DeliveryChannel::Sms => self.sms_from.as_deref(),
            DeliveryChannel::Whatsapp => self.whatsapp_from.as_deref(),
            DeliveryChannel::Email | DeliveryChannel::Telephony => None,
        }
    }
}

impl MessageSender for SmsSender {
    fn can_send(&self, channel: DeliveryChannel) -> bool {
        self.from(channel).is_some()
    }

    async fn send(&self, message: &OutgoingMessage) -> SendOutcome {
        let Some(from) = self.from(message.channel) else {
            return logged(message, not_configured(), "no sender number for the channel");
        };
        let prefix = if message.channel == DeliveryChannel::Whatsapp { "WHATSAPP" } else { "SMS" };
        let Some(body) = &message.text else {
            return logged(message, SendOutcome::Rejected { code: format!("{prefix}_CONTENT_MISSING") }, "no text");
        };
        let (to, from) = match message.channel {
            DeliveryChannel::Whatsapp => (whatsapp(&message.to), whatsapp(from)),
            _ => (message.to.trim().to_owned(), from.to_owned()),
        };
        let request = self
            .client
            .post(self.messages_url.clone())
            .basic_auth(&self.account_sid, Some(self.auth_token.expose_secret()))
            .form(&[("To", to.as_str()), ("From", from.as_str()), ("Body", body.as_str())]);
        let unavailable = |retry_after| SendOutcome::Deferred { code: format!("{prefix}_UNAVAILABLE"), retry_after };
        let response = match request.send().await {
            Ok(response) => response,
            // reqwest's message names the URL; the kind of failure is enough.
            Err(error) => {
                let detail = if error.is_timeout() {
                    "timed out"
                } else if error.is_connect() {
                    "could not connect"
                } else {
                    "the request failed"
                };
                return logged(message, unavailable(None), detail);
            }
        };
        let status = response.status();
        let detail = format!("HTTP {}", status.as_u16());
        let outcome = match status {
            _ if status.is_success() => {
                // Accepted whatever the body: sending again would send twice.
                let sid = response.json::<Created>().await.ok().map(|created| created.sid);
                SendOutcome::Accepted { provider_id: sid }
            }
            StatusCode::TOO_MANY_REQUESTS => SendOutcome::Deferred {
                code: format!("{prefix}_RATE_LIMITED"),
                retry_after: retry_after(response.headers()),
            },
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                // The account, not the message: deferred until an operator fixes the credentials.
                SendOutcome::Deferred { code: format!("{prefix}_AUTH_FAILED"), retry_after: None }
            }
            _ if status.is_client_error() => {
                // Only Twilio's numeric error code is kept; its message quotes the number.
                let code = match response.json::<TwilioError>().await {
                    Ok(TwilioError { code: Some(number) }) => format!("{prefix}_REJECTED_{number}"),
                    _ => format!("{prefix}_REJECTED"),
                };
                SendOutcome::Rejected { code }
            }
            // 5xx, and the redirects that are not followed.
            _ => unavailable(retry_after(response.headers())),
        };
        logged(message, outcome, &detail)
    }

    /// A message Twilio relayed to the inbound webhook, once its `X-Twilio-Signature` holds: the
    /// sender's number (`From`, without a `whatsapp:` prefix) and the text (`Body`).
    fn read_reply(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Option<InboundReply> {
        if !twilio_signature_valid(self.auth_token.expose_secret(), url, params, signature?) {
            tracing::warn!("an inbound message without a valid Twilio signature was ignored");
            return None;
        }
        let param = |name: &str| params.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str());
        let from = param("From")?.trim();
        let from = from.strip_prefix("whatsapp:").unwrap_or(from).to_owned();
        Some(InboundReply { from, body: param("Body").unwrap_or_default().to_owned() })
    }
}

/// The account's SID and the URL of one of its resources (`Messages.json`, `Calls.json`).
pub(crate) fn endpoint(settings: &TwilioSettings, resource: &str) -> Result<(String, Url), SettingsError> {
    let invalid = SettingsError::Twilio;
    let sid = settings.account_sid.trim().to_owned();
    // The SID goes into the path and before the colon of basic auth.
    if sid.is_empty() || !sid.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(invalid("the account SID is letters and digits"));
    }
    let mut url = settings.api_base.clone();
    if !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
        return Err(invalid("the API base is an http(s) URL"));
    }
    url.set_query(None);
    url.set_fragment(None);
    url.path_segments_mut().map_err(|()| invalid("the API base is an http(s) URL"))?.pop_if_empty().extend([
        "2010-04-01",
        "Accounts",
        &sid,
        resource,
    ]);
    Ok((sid, url))
}

/// The HTTP client of every Twilio request.
pub(crate) fn client(settings: &TwilioSettings) -> Result<reqwest::Client, SettingsError> {
    reqwest::Client::builder()
        // A redirect would carry the credentials elsewhere; a proxy from the environment would
        // see the request. Twilio needs neither.
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(settings.timeout)
        .connect_timeout(settings.timeout)
        .build()
        .map_err(|_| SettingsError::Twilio("the HTTP client could not be built"))
}

/// The body of a created message or call (only what is kept of it).
#[derive(Deserialize)]
pub(crate) struct Created {
    pub(crate) sid: String,
}

/// Twilio's error body (only what is kept of it).
#[derive(Deserialize)]
pub(crate) struct TwilioError {
    pub(crate) code: Option<u32>,
}

/// A WhatsApp address as Twilio writes it: `whatsapp:+14155238886`.
fn whatsapp(address: &str) -> String {
    let address = address.trim();
    if address.starts_with("whatsapp:") { address.to_owned() } else { format!("whatsapp:{address}") }
}

/// `Retry-After` in seconds or as an HTTP date, capped at [`MAX_RETRY_AFTER`].
fn retry_after(headers: &HeaderMap) -> Option<time::Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let wait = match value.parse::<u64>() {
        Ok(seconds) => Duration::from_secs(seconds),
        Err(_) => httpdate::parse_http_date(value).ok()?.duration_since(SystemTime::now()).unwrap_or_default(),
    };
    time::Duration::try_from(wait.min(MAX_RETRY_AFTER)).ok()
}

/// Whether `signature_b64` (the `X-Twilio-Signature` header) is Twilio's signature of an inbound
/// webhook: HMAC-SHA1 under the auth token over the full URL Twilio requested, followed by each
/// POST parameter's name and value, sorted by name (byte order), base64. The comparison is in
/// constant time.
pub fn twilio_signature_valid(auth_token: &str, url: &str, params: &[(String, String)], signature_b64: &str) -> bool {
    let Ok(signature) = STANDARD.decode(signature_b64.trim()) else {
        return false;
    };
    let mut sorted: Vec<&(String, String)> = params.iter().collect();
    sorted.sort();
    let mut signed = url.to_owned();
    for (name, value) in sorted {
        signed.push_str(name);
        signed.push_str(value);
    }
    // SHA-1 because Twilio signs with it; ring keeps it for such legacy protocols.
    let key = hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, auth_token.as_bytes());
    hmac::verify(&key, signed.as_bytes(), &signature).is_ok()
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn a_signature_computed_elsewhere_verifies_and_any_change_fails() {
        // Computed independently with Python's hmac module, over the URL followed by the
        // parameters sorted by name (Body, From, MessageSid, To):
        //   python3 -c 'import hmac, hashlib, base64; print(base64.b64encode(hmac.new(b"12345",
        //     b"https://pulse.example.org/twilio/inbound?x=1" b"BodySTOP" b"From+14155550100"
        //     b"MessageSidSM0123456789abcdef0123456789abcdef" b"To+14155550199",
        //     hashlib.sha1).digest()).decode())'
        const SIGNATURE: &str = "2n/KeSFQzt3gWxMQ5fmzWUM1l54=";
        let url = "https://pulse.example.org/twilio/inbound?x=1";
        let params: Vec<(String, String)> = [
            ("To", "+14155550199"),
            ("From", "+14155550100"),
            ("MessageSid", "SM0123456789abcdef0123456789abcdef"),
            ("Body", "STOP"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
        assert!(twilio_signature_valid("12345", url, &params, SIGNATURE));
        assert!(!twilio_signature_valid("12346", url, &params, SIGNATURE), "another token");
        assert!(
            !twilio_signature_valid("12345", "https://pulse.example.org/twilio/inbound", &params, SIGNATURE),
            "another URL"
        );
        let mut changed = params.clone();
        changed[3].1 = "START".to_owned();
        assert!(!twilio_signature_valid("12345", url, &changed, SIGNATURE), "another body");
        assert!(!twilio_signature_valid("12345", url, &params[..3], SIGNATURE), "a parameter left out");
        assert!(!twilio_signature_valid("12345", url, &params, "not base64!"));
        assert!(!twilio_signature_valid("12345", url, &params, ""));
    }

    #[test]
    fn retry_after_is_read_in_seconds_or_as_a_date_and_capped() {
        let headers = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(RETRY_AFTER, HeaderValue::from_str(value).expect("a header value"));
            headers
        };
        assert_eq!(retry_after(&headers("7")), Some(time::Duration::seconds(7)));
        assert_eq!(retry_after(&headers("99999999")), Some(time::Duration::days(1)));
        assert_eq!(retry_after(&headers("Thu, 01 Jan 1970 00:00:00 GMT")), Some(time::Duration::ZERO));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(600));
        let wait = retry_after(&headers(&later)).expect("a date is read");
        assert!(wait > time::Duration::minutes(9) && wait <= time::Duration::minutes(10), "{wait}");
        assert_eq!(retry_after(&headers("soon")), None);
        assert_eq!(retry_after(&HeaderMap::new()), None);
    }

    fn settings(api_base: &str) -> TwilioSettings {
        TwilioSettings {
            api_base: Url::parse(api_base).expect("a URL"),
            account_sid: "AC0123".to_owned(),
            auth_token: SecretString::from("token".to_owned()),
            sms_from: Some("+15005550000".to_owned()),
            whatsapp_from: None,
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn the_endpoint_is_twilios_under_any_base_and_settings_are_checked() {
        let url = |base: &str| SmsSender::new(settings(base)).expect("valid").messages_url.to_string();
        assert_eq!(url(TWILIO_API_BASE), "https://api.twilio.com/2010-04-01/Accounts/AC0123/Messages.json");
        assert_eq!(
            url("http://127.0.0.1:8080/fake/?q=1"),
            "http://127.0.0.1:8080/fake/2010-04-01/Accounts/AC0123/Messages.json"
        );

        let refused = |change: fn(&mut TwilioSettings)| {
            let mut settings = settings(TWILIO_API_BASE);
            change(&mut settings);
            SmsSender::new(settings).is_err()
        };
        assert!(refused(|s| s.account_sid = "AC01/../x".to_owned()));
        assert!(refused(|s| s.account_sid = "AC01:x".to_owned()));
        assert!(refused(|s| s.auth_token = SecretString::from(String::new())));
        assert!(refused(|s| s.sms_from = Some(" ".to_owned())));
        assert!(refused(|s| s.whatsapp_from = Some("whatsapp:".to_owned())));
        assert!(refused(|s| s.api_base = Url::parse("ftp://api.twilio.com").expect("a URL")));
        assert!(refused(|s| s.api_base = Url::parse("mailto:ops@example.org").expect("a URL")));
    }

    #[test]
    fn whatsapp_addresses_are_prefixed_once() {
        assert_eq!(whatsapp("+14155238886"), "whatsapp:+14155238886");
        assert_eq!(whatsapp("whatsapp:+14155238886"), "whatsapp:+14155238886");
    }
}
