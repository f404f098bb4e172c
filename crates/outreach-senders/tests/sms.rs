//! `SmsSender` against a local HTTP server that speaks Twilio's Programmable Messaging API (the
//! path, basic auth, the form and the JSON answers), and `Senders`' routing.

use std::collections::HashMap;
use std::net::TcpListener as StdListener;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::ids::MessageId;
use pulse_domain::outreach::models::{EmailContent, OutgoingMessage, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;
use pulse_outreach_senders::{Senders, SmsSender, SmtpSender, SmtpSettings, TwilioSettings};
use secrecy::SecretString;
use tokio::net::TcpListener;
use url::Url;

const ACCOUNT_SID: &str = "AC0123456789abcdef0123456789abcdef";
const AUTH_TOKEN: &str = "test-auth-token";
const SMS_FROM: &str = "+15005550000";
const WHATSAPP_FROM: &str = "whatsapp:+14155238886";
const BODY: &str = "Acme Foods asks: how was your visit? https://pulse.example.org/s/c1/n0nce";

/// Numbers the fake provider answers for in its own way (after Twilio's magic test numbers).
const ACCEPTED: &str = "+15005550006";
const RATE_LIMITED: &str = "+15005550429";
const DOWN: &str = "+15005550503";
const INVALID: &str = "+15005550009";
const UNSUBSCRIBED: &str = "+15005550610";

/// What the provider was sent: the form of each request it accepted for processing.
#[derive(Default)]
struct Provider {
    forms: Mutex<Vec<HashMap<String, String>>>,
}

fn twilio_error(status: u16, code: u32, message: &str) -> serde_json::Value {
    serde_json::json!({ "code": code, "message": message, "more_info": format!("https://www.twilio.com/docs/errors/{code}"), "status": status })
}

async fn create_message(
    request: HttpRequest,
    sid: web::Path<String>,
    form: web::Form<HashMap<String, String>>,
    provider: web::Data<Provider>,
) -> HttpResponse {
    let expected = format!("Basic {}", STANDARD.encode(format!("{ACCOUNT_SID}:{AUTH_TOKEN}")));
    let authorization = request.headers().get("authorization").and_then(|value| value.to_str().ok());
    if authorization != Some(expected.as_str()) {
        return HttpResponse::Unauthorized().json(twilio_error(401, 20003, "Authenticate"));
    }
    if sid.as_str() != ACCOUNT_SID {
        return HttpResponse::NotFound().json(twilio_error(404, 20404, "The requested resource was not found"));
    }
    let form = form.into_inner();
    let (Some(to), Some(_), Some(_)) = (form.get("To").cloned(), form.get("From"), form.get("Body")) else {
        return HttpResponse::BadRequest().json(twilio_error(400, 21602, "Message body is required."));
    };
    let number = to.trim_start_matches("whatsapp:");
    provider.forms.lock().expect("the record is not poisoned").push(form);
    match number {
        RATE_LIMITED => HttpResponse::TooManyRequests().insert_header(("Retry-After", "7")).json(twilio_error(
            429,
            20429,
            "Too Many Requests",
        )),
        DOWN => HttpResponse::ServiceUnavailable().finish(),
        INVALID => HttpResponse::BadRequest().json(twilio_error(
            400,
            21211,
            &format!("The 'To' number {number} is not a valid phone number."),
        )),
        UNSUBSCRIBED => HttpResponse::BadRequest().json(twilio_error(
            400,
            21610,
            &format!("Attempt to send to unsubscribed recipient {number}"),
        )),
        // Twilio echoes the number and the text; the sender keeps only the sid.
        _ => HttpResponse::Created().json(serde_json::json!({
            "sid": "SM0123456789abcdef0123456789abcdef",
            "status": "queued",
            "to": to,
            "body": BODY,
        })),
    }
}

/// Starts the fake provider on a free loopback port; it lives until the test's runtime ends.
fn start_provider() -> (Url, web::Data<Provider>) {
    let provider = web::Data::new(Provider::default());
    let listener = StdListener::bind("127.0.0.1:0").expect("a loopback port is free");
    let port = listener.local_addr().expect("the listener has an address").port();
    let state = provider.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .route("/2010-04-01/Accounts/{sid}/Messages.json", web::post().to(create_message))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .expect("the server listens")
    .run();
    tokio::spawn(server);
    (Url::parse(&format!("http://127.0.0.1:{port}")).expect("a URL"), provider)
}

fn settings(api_base: Url) -> TwilioSettings {
    TwilioSettings {
        api_base,
        account_sid: ACCOUNT_SID.to_owned(),
        auth_token: SecretString::from(AUTH_TOKEN.to_owned()),
        sms_from: Some(SMS_FROM.to_owned()),
        whatsapp_from: Some(WHATSAPP_FROM.to_owned()),
        timeout: Duration::from_secs(5),
    }
}

fn sms_sender(api_base: Url) -> SmsSender {
    SmsSender::new(settings(api_base)).expect("the settings are valid")
}

fn text(channel: DeliveryChannel, to: &str) -> OutgoingMessage {
    OutgoingMessage {
        id: MessageId::new_random(),
        channel,
        to: to.to_owned(),
        unsubscribe_url: None,
        sender_name: "Acme Foods".to_owned(),
        email: None,
        text: Some(BODY.to_owned()),
        call: None,
    }
}

/// Codes name the kind of failure: never the number (nor its digits), the text or the
/// provider's words.
fn assert_clean(outcome: &SendOutcome, to: &str) {
    let code = match outcome {
        SendOutcome::Rejected { code } | SendOutcome::Deferred { code, .. } => code,
        SendOutcome::Accepted { .. } => return,
    };
    let digits = to.trim_start_matches('+');
    assert!(!code.contains(digits) && !code.contains(&digits[digits.len() - 7..]), "{code}");
    assert!(!code.contains(BODY) && !code.contains("Acme") && !code.contains("valid"), "{code}");
}

#[tokio::test]
async fn an_sms_is_posted_in_twilios_shape_and_accepted_with_its_sid() {
    let (base, provider) = start_provider();
    let outcome = sms_sender(base).send(&text(DeliveryChannel::Sms, ACCEPTED)).await;
    assert_eq!(outcome, SendOutcome::Accepted { provider_id: Some("SM0123456789abcdef0123456789abcdef".to_owned()) });
    let forms = provider.forms.lock().expect("the record is not poisoned");
    assert_eq!(forms.len(), 1);
    assert_eq!(forms[0]["To"], ACCEPTED);
    assert_eq!(forms[0]["From"], SMS_FROM);
    assert_eq!(forms[0]["Body"], BODY);
}

#[tokio::test]
async fn whatsapp_numbers_carry_the_prefix_on_both_ends() {
    let (base, provider) = start_provider();
    let mut settings = settings(base);
    settings.whatsapp_from = Some("+14155238886".to_owned());
    let sender = SmsSender::new(settings).expect("the settings are valid");
    let outcome = sender.send(&text(DeliveryChannel::Whatsapp, ACCEPTED)).await;
    assert!(matches!(outcome, SendOutcome::Accepted { provider_id: Some(_) }), "{outcome:?}");
    let forms = provider.forms.lock().expect("the record is not poisoned");
    assert_eq!(forms[0]["To"], format!("whatsapp:{ACCEPTED}"));
    assert_eq!(forms[0]["From"], WHATSAPP_FROM);
    assert_eq!(forms[0]["Body"], BODY);
}

#[tokio::test]
async fn each_answer_of_the_provider_has_its_outcome() {
    let (base, _provider) = start_provider();
    let sender = sms_sender(base);
    let deferred = |code: &str, retry_after| SendOutcome::Deferred { code: code.to_owned(), retry_after };
    let rejected = |code: &str| SendOutcome::Rejected { code: code.to_owned() };
    let cases = [
        (DeliveryChannel::Sms, RATE_LIMITED, deferred("SMS_RATE_LIMITED", Some(time::Duration::seconds(7)))),
        (DeliveryChannel::Whatsapp, RATE_LIMITED, deferred("WHATSAPP_RATE_LIMITED", Some(time::Duration::seconds(7)))),
        (DeliveryChannel::Sms, DOWN, deferred("SMS_UNAVAILABLE", None)),
        (DeliveryChannel::Whatsapp, DOWN, deferred("WHATSAPP_UNAVAILABLE", None)),
        (DeliveryChannel::Sms, INVALID, rejected("SMS_REJECTED_21211")),
        (DeliveryChannel::Whatsapp, INVALID, rejected("WHATSAPP_REJECTED_21211")),
        (DeliveryChannel::Sms, UNSUBSCRIBED, rejected("SMS_REJECTED_21610")),
    ];
    for (channel, to, expected) in cases {
        let outcome = sender.send(&text(channel, to)).await;
        assert_eq!(outcome, expected, "{channel:?} to {to}");
        assert_clean(&outcome, to);
    }
    let mut no_text = text(DeliveryChannel::Sms, ACCEPTED);
    no_text.text = None;
    assert_eq!(sender.send(&no_text).await, rejected("SMS_CONTENT_MISSING"));
}

#[tokio::test]
async fn refused_credentials_defer_until_an_operator_fixes_them() {
    let (base, provider) = start_provider();
    let mut settings = settings(base);
    settings.auth_token = SecretString::from("a-stale-token".to_owned());
    let sender = SmsSender::new(settings).expect("the settings are valid");
    assert!(!format!("{sender:?}").contains("a-stale-token"), "the token is never printed");
    for channel in [DeliveryChannel::Sms, DeliveryChannel::Whatsapp] {
        let outcome = sender.send(&text(channel, ACCEPTED)).await;
        let prefix = if channel == DeliveryChannel::Sms { "SMS" } else { "WHATSAPP" };
        assert_eq!(outcome, SendOutcome::Deferred { code: format!("{prefix}_AUTH_FAILED"), retry_after: None });
    }
    assert!(provider.forms.lock().expect("the record is not poisoned").is_empty(), "nothing was accepted");
}

#[tokio::test]
async fn an_unreachable_or_silent_provider_defers() {
    let closed = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    let port = closed.local_addr().expect("the listener has an address").port();
    drop(closed);
    let base = Url::parse(&format!("http://127.0.0.1:{port}")).expect("a URL");
    let outcome = sms_sender(base).send(&text(DeliveryChannel::Sms, ACCEPTED)).await;
    assert_eq!(outcome, SendOutcome::Deferred { code: "SMS_UNAVAILABLE".to_owned(), retry_after: None });

    // Accepts the connection and never answers.
    let silent = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    let base = Url::parse(&format!("http://{}", silent.local_addr().expect("an address"))).expect("a URL");
    let held = tokio::spawn(async move {
        let (stream, _) = silent.accept().await.expect("the sender connects");
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(stream);
    });
    let mut settings = settings(base);
    settings.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let outcome = SmsSender::new(settings).expect("valid").send(&text(DeliveryChannel::Whatsapp, ACCEPTED)).await;
    assert_eq!(outcome, SendOutcome::Deferred { code: "WHATSAPP_UNAVAILABLE".to_owned(), retry_after: None });
    assert!(started.elapsed() < Duration::from_secs(5), "the timeout held: {:?}", started.elapsed());
    held.abort();
}

#[tokio::test]
async fn senders_route_by_channel_and_send_only_what_is_configured() {
    let (base, provider) = start_provider();
    let mut settings = settings(base);
    settings.whatsapp_from = None;
    let sms = SmsSender::new(settings).expect("the settings are valid");
    let closed = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    let smtp_port = closed.local_addr().expect("the listener has an address").port();
    drop(closed);
    let email = SmtpSender::new(SmtpSettings {
        url: format!("smtp://127.0.0.1:{smtp_port}?tls=none"),
        from_address: "surveys@pulse.example.org".to_owned(),
        username: None,
        password: None,
        timeout: Duration::from_secs(5),
    })
    .expect("the settings are valid");

    let senders = Senders::new(Some(email), Some(sms));
    assert!(senders.can_send(DeliveryChannel::Email));
    assert!(senders.can_send(DeliveryChannel::Sms));
    assert!(!senders.can_send(DeliveryChannel::Whatsapp), "no WhatsApp sender is set");
    assert!(!senders.can_send(DeliveryChannel::Telephony));

    let not_configured = SendOutcome::Rejected { code: "CHANNEL_NOT_CONFIGURED".to_owned() };
    assert!(matches!(senders.send(&text(DeliveryChannel::Sms, ACCEPTED)).await, SendOutcome::Accepted { .. }));
    assert_eq!(senders.send(&text(DeliveryChannel::Whatsapp, ACCEPTED)).await, not_configured);
    assert_eq!(senders.send(&text(DeliveryChannel::Telephony, ACCEPTED)).await, not_configured);
    let mut email = text(DeliveryChannel::Email, "ada@example.com");
    email.email = Some(EmailContent { subject: "s".to_owned(), text: "t".to_owned(), html: "<p>h</p>".to_owned() });
    // The email went to the SMTP sender (whose server is not there), not to Twilio.
    assert_eq!(
        senders.send(&email).await,
        SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None }
    );
    assert_eq!(provider.forms.lock().expect("the record is not poisoned").len(), 1, "only the SMS reached Twilio");

    let nothing = Senders::new(None, None);
    for channel in DeliveryChannel::ALL {
        assert!(!nothing.can_send(channel), "{channel:?}");
    }
    assert_eq!(nothing.send(&email).await, not_configured);
    assert_eq!(nothing.send(&text(DeliveryChannel::Sms, ACCEPTED)).await, not_configured);
}

#[tokio::test]
async fn a_reply_is_read_only_when_twilio_signed_it() {
    // The signature was computed independently with Python's hmac module, over the URL followed
    // by the parameters sorted by name:
    //   python3 -c 'import hmac, hashlib, base64; print(base64.b64encode(hmac.new(
    //     b"test-auth-token", b"https://pulse.example.org/v1/outreach/replies" b"Body Stop "
    //     b"Fromwhatsapp:+15005550006" b"MessageSidSMfedcba9876543210fedcba9876543210"
    //     b"Towhatsapp:+14155238886", hashlib.sha1).digest()).decode())'
    const SIGNATURE: &str = "UKiBsQlrTwNXtlqXGHfnfLbsykI=";
    const URL: &str = "https://pulse.example.org/v1/outreach/replies";
    let params: Vec<(String, String)> = [
        ("MessageSid", "SMfedcba9876543210fedcba9876543210"),
        ("From", "whatsapp:+15005550006"),
        ("To", "whatsapp:+14155238886"),
        ("Body", " Stop "),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value.to_owned()))
    .collect();
    let base = Url::parse("http://127.0.0.1:9").expect("a URL");
    let sms = sms_sender(base.clone());

    let reply = sms.read_reply(URL, &params, Some(SIGNATURE)).expect("a signed reply is read");
    assert_eq!((reply.from.as_str(), reply.body.as_str()), ("+15005550006", " Stop "));
    assert!(sms.read_reply(URL, &params, None).is_none(), "unsigned");
    assert!(sms.read_reply(&format!("{URL}?x=1"), &params, Some(SIGNATURE)).is_none(), "signed for another URL");
    let mut other_token = settings(base);
    other_token.auth_token = SecretString::from("another-token".to_owned());
    let other = SmsSender::new(other_token).expect("the settings are valid");
    assert!(other.read_reply(URL, &params, Some(SIGNATURE)).is_none(), "signed with another token");

    let senders = Senders::new(None, Some(sms));
    assert_eq!(senders.read_reply(URL, &params, Some(SIGNATURE)), Some(reply));
    assert!(Senders::new(None, None).read_reply(URL, &params, Some(SIGNATURE)).is_none(), "no provider, no replies");
}
