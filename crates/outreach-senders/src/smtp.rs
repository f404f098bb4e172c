//! Email over SMTP with lettre.

use std::error::Error as _;
use std::io;
use std::time::Duration;

use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Tls, TlsParameters};
use lettre::transport::smtp::{self, SMTP_PORT, SUBMISSION_PORT, SUBMISSIONS_PORT};
use lettre::{Address, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::outreach::models::{InboundReply, OutgoingMessage, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;
use secrecy::{ExposeSecret, SecretString};
use url::{Host, Url};

use crate::{SettingsError, logged, not_configured};

const LIST_UNSUBSCRIBE: HeaderName = HeaderName::new_from_ascii_str("List-Unsubscribe");
const LIST_UNSUBSCRIBE_POST: HeaderName = HeaderName::new_from_ascii_str("List-Unsubscribe-Post");

/// Reply codes that only the submission server's own rules give (RFC 4954 and RFC 3207:
/// authentication required, mechanism too weak, credentials invalid, encryption required). They
/// say our account is wrong, not the message: deferred, so an operator can fix it before the
/// audience is failed.
const ACCOUNT_REPLY_CODES: [&str; 4] = ["530", "534", "535", "538"];

#[derive(Clone, Debug)]
pub struct SmtpSettings {
    /// `smtp://host[:port]` (STARTTLS required; port 587 by default), `smtps://host[:port]`
    /// (implicit TLS; 465), or `smtp://host[:port]?tls=none` (plain text, for local tests only;
    /// port 25). Credentials never go in the URL.
    pub url: String,
    /// The envelope and header sender; its domain also ends every `Message-ID`.
    pub from_address: String,
    pub username: Option<String>,
    pub password: Option<SecretString>,
    /// For connecting, and for the whole exchange of one message.
    pub timeout: Duration,
}

/// Sends email through one SMTP submission server. Cloning it is cheap.
#[derive(Clone, Debug)]
pub struct SmtpSender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Address,
    timeout: Duration,
}

impl SmtpSender {
    /// # Errors
    /// `SettingsError::Smtp` for a URL that is not one of the three forms, a from address that
    /// is not an address, a username without a password (or the other way round), credentials
    /// over a plain-text connection, or a TLS setup that cannot be built.
    pub fn new(settings: SmtpSettings) -> Result<Self, SettingsError> {
        let invalid = SettingsError::Smtp;
        let from: Address =
            settings.from_address.trim().parse().map_err(|_| invalid("the from address is not valid"))?;
        let url = Url::parse(&settings.url).map_err(|_| invalid("the URL is not valid"))?;
        if !url.username().is_empty() || url.password().is_some() {
            return Err(invalid("credentials go in the username and password settings, not in the URL"));
        }
        if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
            return Err(invalid("the URL has nothing after the host and port but ?tls="));
        }
        let host = match url.host() {
            Some(Host::Domain(name)) if !name.is_empty() => name.to_owned(),
            Some(Host::Ipv4(address)) => address.to_string(),
            Some(Host::Ipv6(address)) => address.to_string(),
            _ => return Err(invalid("the URL names no host")),
        };
        let mut tls_mode = None;
        for (key, value) in url.query_pairs() {
            if key != "tls" || tls_mode.is_some() {
                return Err(invalid("the URL's only query parameter is tls"));
            }
            tls_mode = Some(value.into_owned());
        }
        let tls_parameters = || TlsParameters::new(host.clone()).map_err(|_| invalid("TLS could not be set up"));
        let (tls, default_port) = match (url.scheme(), tls_mode.as_deref()) {
            ("smtp", None | Some("required")) => (Tls::Required(tls_parameters()?), SUBMISSION_PORT),
            ("smtp", Some("none")) => (Tls::None, SMTP_PORT),
            ("smtps", None) => (Tls::Wrapper(tls_parameters()?), SUBMISSIONS_PORT),
            ("smtp", Some(_)) => return Err(invalid("tls is required or none")),
            _ => return Err(invalid("the URL is smtp://host:port or smtps://host:port")),
        };
        let plain = matches!(tls, Tls::None);
        // The builder is "dangerous" only because it starts without TLS; the TLS mode is set just
        // below from the URL.
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)
            .port(url.port().unwrap_or(default_port))
            .tls(tls)
            .timeout(Some(settings.timeout));
        match (settings.username, settings.password) {
            (Some(_), Some(_)) if plain => return Err(invalid("credentials are never sent without TLS")),
            (Some(username), Some(password)) => {
                builder = builder.credentials(Credentials::new(username, password.expose_secret().to_owned()));
            }
            (None, None) => {}
            _ => return Err(invalid("the username and password go together")),
        }
        Ok(Self { transport: builder.build(), from, timeout: settings.timeout })
    }

    /// The MIME message for `message`, or the code of why it cannot be written.
    fn compose(&self, message: &OutgoingMessage) -> Result<Message, &'static str> {
        let content = message.email.as_ref().ok_or("EMAIL_CONTENT_MISSING")?;
        let to: Address = message.to.trim().parse().map_err(|_| "EMAIL_ADDRESS_INVALID")?;
        // lettre quotes or encodes the display name; control characters have no place in one.
        let name: String = format!("{} via Pulse", message.sender_name).chars().filter(|c| !c.is_control()).collect();
        let mut builder = Message::builder()
            .from(Mailbox::new(Some(name), self.from.clone()))
            .to(Mailbox::new(None, to))
            .subject(content.subject.clone())
            // The same message sent again (after a lost answer) carries the same id, so it can be
            // recognised as a duplicate.
            .message_id(Some(format!("<{}@{}>", message.id, self.from.domain())));
        if let Some(unsubscribe) = &message.unsubscribe_url {
            // Serialised by `url`, the link has no spaces, line breaks or angle brackets left to
            // break out of the header.
            let link = Url::parse(unsubscribe)
                .ok()
                .filter(|link| matches!(link.scheme(), "https" | "http"))
                .ok_or("EMAIL_UNSUBSCRIBE_URL_INVALID")?;
            builder = builder
                .raw_header(HeaderValue::new(LIST_UNSUBSCRIBE, format!("<{link}>")))
                .raw_header(HeaderValue::new(LIST_UNSUBSCRIBE_POST, "List-Unsubscribe=One-Click".to_owned()));
        }
        builder
            .multipart(MultiPart::alternative_plain_html(content.text.clone(), content.html.clone()))
            .map_err(|_| "EMAIL_ADDRESS_INVALID")
    }
}

impl MessageSender for SmtpSender {
    fn can_send(&self, channel: DeliveryChannel) -> bool {
        channel == DeliveryChannel::Email
    }

    async fn send(&self, message: &OutgoingMessage) -> SendOutcome {
        if message.channel != DeliveryChannel::Email {
            return logged(message, not_configured(), "not an email");
        }
        let email = match self.compose(message) {
            Ok(email) => email,
            Err(code) => return logged(message, SendOutcome::Rejected { code: code.to_owned() }, "not composed"),
        };
        // lettre's own timeout covers connecting only; a server that stops answering later would
        // hold the worker without this one.
        match tokio::time::timeout(self.timeout, self.transport.send(email)).await {
            // The reply's text is the server's and may quote the address: it is not kept.
            Ok(Ok(reply)) => {
                logged(message, SendOutcome::Accepted { provider_id: None }, &format!("SMTP {}", reply.code()))
            }
            Ok(Err(error)) => {
                let (outcome, detail) = failure(&error);
                logged(message, outcome, &detail)
            }
            Err(_) => logged(message, unavailable(), "timed out"),
        }
    }

    /// Email replies are not read: the one-click link is how email opts out.
    fn read_reply(&self, _url: &str, _params: &[(String, String)], _signature: Option<&str>) -> Option<InboundReply> {
        None
    }
}

fn unavailable() -> SendOutcome {
    SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None }
}

/// The outcome of a failed exchange, and words for the log made of the reply code or the kind of
/// failure: lettre's own message quotes the server's reply, which may name the address.
fn failure(error: &smtp::Error) -> (SendOutcome, String) {
    if let Some(code) = error.status() {
        let code = code.to_string();
        let outcome = if ACCOUNT_REPLY_CODES.contains(&code.as_str()) {
            SendOutcome::Deferred { code: "EMAIL_AUTH_FAILED".to_owned(), retry_after: None }
        } else if error.is_permanent() {
            SendOutcome::Rejected { code: "EMAIL_REJECTED".to_owned() }
        } else {
            unavailable()
        };
        return (outcome, format!("SMTP {code}"));
    }
    let detail = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_tls() {
        "TLS failed".to_owned()
    } else if error.is_client() {
        // Such as STARTTLS required but not offered, or no common authentication mechanism.
        "the server lacks a required extension".to_owned()
    } else if let Some(io) =
        std::iter::successors(error.source(), |&e| e.source()).find_map(|e| e.downcast_ref::<io::Error>())
    {
        format!("connection failed: {}", io.kind())
    } else {
        "connection failed".to_owned()
    };
    (unavailable(), detail)
}

#[cfg(test)]
mod tests {
    use pulse_domain::ids::MessageId;
    use pulse_domain::outreach::models::EmailContent;

    use super::*;

    fn sender(url: &str) -> Result<SmtpSender, SettingsError> {
        SmtpSender::new(SmtpSettings {
            url: url.to_owned(),
            from_address: "pulse@mail.example.org".to_owned(),
            username: None,
            password: None,
            timeout: Duration::from_secs(5),
        })
    }

    fn message(sender_name: &str, subject: &str) -> OutgoingMessage {
        OutgoingMessage {
            id: MessageId::new_random(),
            channel: DeliveryChannel::Email,
            to: "ada@example.com".to_owned(),
            unsubscribe_url: Some("https://pulse.example.org/u/abc.def".to_owned()),
            sender_name: sender_name.to_owned(),
            email: Some(EmailContent {
                subject: subject.to_owned(),
                text: "text".to_owned(),
                html: "<p>html</p>".to_owned(),
            }),
            text: None,
            call: None,
        }
    }

    fn head(email: &Message) -> String {
        let raw = String::from_utf8(email.formatted()).expect("lettre writes ASCII");
        raw.split("\r\n\r\n").next().expect("a message has a head").to_owned()
    }

    #[test]
    fn urls_are_the_three_forms_and_never_carry_credentials() {
        for good in [
            "smtp://mail.example.org",
            "smtp://mail.example.org:2525?tls=required",
            "smtps://mail.example.org",
            "smtp://127.0.0.1:2525?tls=none",
            "smtp://[::1]:25?tls=none",
        ] {
            assert!(sender(good).is_ok(), "{good}");
        }
        for bad in [
            "http://mail.example.org",
            "smtp://user:secret@mail.example.org",
            "smtp://mail.example.org?tls=opportunistic",
            "smtps://mail.example.org?tls=none",
            "smtp://mail.example.org/helo",
            "smtp://mail.example.org?tls=none&x=1",
            "smtp:///",
        ] {
            let error = sender(bad).expect_err(bad).to_string();
            assert!(!error.contains("secret") && !error.contains("mail.example.org"), "{error}");
        }
        let mut plain_with_password = SmtpSettings {
            url: "smtp://127.0.0.1:2525?tls=none".to_owned(),
            from_address: "pulse@example.org".to_owned(),
            username: Some("pulse".to_owned()),
            password: Some(SecretString::from("hunter2".to_owned())),
            timeout: Duration::from_secs(5),
        };
        assert!(SmtpSender::new(plain_with_password.clone()).is_err(), "no password in plain text");
        plain_with_password.url = "smtps://mail.example.org".to_owned();
        assert!(!format!("{plain_with_password:?}").contains("hunter2"));
        let built = SmtpSender::new(plain_with_password).expect("TLS with credentials builds");
        assert!(!format!("{built:?}").contains("hunter2"));
    }

    #[test]
    fn names_and_subjects_cannot_start_a_header() {
        let sender = sender("smtp://127.0.0.1:2525?tls=none").expect("plain settings build");
        let email = sender
            .compose(&message("Acme\r\nBcc: eve@example.net", "Hello\r\nBcc: eve@example.net"))
            .expect("the message is written");
        let head = head(&email);
        assert!(!head.lines().any(|line| line.to_ascii_lowercase().starts_with("bcc:")), "{head}");
        assert!(!email.envelope().to().iter().any(|to| to.domain() == "example.net"));
    }

    #[test]
    fn the_message_id_follows_the_message_and_bad_inputs_have_codes() {
        let sender = sender("smtp://127.0.0.1:2525?tls=none").expect("plain settings build");
        let mut message = message("Acme", "Hello");
        let id = format!("Message-ID: <{}@mail.example.org>", message.id);
        assert!(head(&sender.compose(&message).expect("written")).contains(&id));
        assert!(head(&sender.compose(&message).expect("written again")).contains(&id), "a resend has the same id");

        message.unsubscribe_url = Some("javascript:alert(1)".to_owned());
        assert_eq!(sender.compose(&message).err(), Some("EMAIL_UNSUBSCRIBE_URL_INVALID"));
        message.unsubscribe_url = None;
        message.to = "not an address".to_owned();
        assert_eq!(sender.compose(&message).err(), Some("EMAIL_ADDRESS_INVALID"));
        message.email = None;
        assert_eq!(sender.compose(&message).err(), Some("EMAIL_CONTENT_MISSING"));
    }
}
