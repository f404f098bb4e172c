//! Outreach over real protocol peers: emails go to aiosmtpd (a real SMTP server) and texts to a
//! local server in the SMS provider's place; reminders are walked with the settable clock. A
//! partner provisions on EMAIL and SMS, attaches five people and launches; five emails and five
//! texts arrive, greeting by name; three answer through their links and are thanked; after the
//! wait the other two get one reminder each; one opts out and gets nothing more.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use pulse::settings::Settings;
use pulse_outreach_senders::{SmtpSettings, TwilioSettings};
use ring::hmac;
use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::campaigns::{Link, code_of, id_of};
use crate::helpers::{TestApp, captured_logs, free_port, spawn_app_with};
use crate::receiver::{Receiver, Reply};

const AUTH_TOKEN: &str = "twilio-auth-token-for-tests";
const SMS_FROM: &str = "+15550001111";

/// aiosmtpd on a free loopback port, keeping every message in a maildir; killed on drop.
pub(crate) struct MailServer {
    child: Child,
    port: u16,
    maildir: PathBuf,
}

impl MailServer {
    pub(crate) fn start() -> Self {
        let port = free_port();
        let maildir =
            Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("outreach-mail-{port}-{}", std::process::id()));
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}"), "-c", "aiosmtpd.handlers.Mailbox"])
            .arg(&maildir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 runs aiosmtpd (python3 -m pip install aiosmtpd, as .ci/run does)");
        let server = Self { child, port, maildir };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "aiosmtpd did not start listening (is it installed?)");
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }

    /// Every message received so far, parsed.
    pub(crate) fn messages(&self) -> Vec<Mail> {
        let Ok(entries) = std::fs::read_dir(self.maildir.join("new")) else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read(e.path()).ok())
            .map(|raw| Mail::parse(&raw))
            .collect()
    }
}

impl Drop for MailServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a test reads of an email.
#[derive(Clone, Debug)]
pub(crate) struct Mail {
    pub(crate) to: String,
    from: String,
    pub(crate) subject: String,
    text: String,
    list_unsubscribe: Option<String>,
    list_unsubscribe_post: Option<String>,
}

impl Mail {
    fn parse(raw: &[u8]) -> Self {
        let message = mail_parser::MessageParser::default().parse(raw).expect("an email");
        let address = |a: Option<&mail_parser::Address<'_>>| {
            let first = a.and_then(|a| a.first()).expect("an address");
            format!("{} <{}>", first.name().unwrap_or_default(), first.address().unwrap_or_default())
        };
        let header = |name: &str| message.header_raw(name).map(|v| v.trim().to_owned());
        Self {
            to: address(message.to()),
            from: address(message.from()),
            subject: message.subject().unwrap_or_default().to_owned(),
            text: message.body_text(0).map(|t| t.into_owned()).unwrap_or_default(),
            list_unsubscribe: header("List-Unsubscribe"),
            list_unsubscribe_post: header("List-Unsubscribe-Post"),
        }
    }

    /// The survey link in the text, on the test server's origin.
    pub(crate) fn survey_path(&self) -> Option<String> {
        let start = self.text.find("/s/")?;
        let path: String = self.text[start..].chars().take_while(|c| !c.is_whitespace()).collect();
        Some(path)
    }

    fn unsubscribe_path(&self) -> String {
        let header = self.list_unsubscribe.clone().expect("List-Unsubscribe");
        let url = header.trim_start_matches('<').trim_end_matches('>');
        url[url.find("/u/").expect("an unsubscribe path")..].to_owned()
    }
}

/// A text as the provider got it.
#[derive(Clone, Debug)]
pub(crate) struct Text {
    pub(crate) to: String,
    from: String,
    pub(crate) body: String,
}

pub(crate) fn texts(provider: &Receiver) -> Vec<Text> {
    provider
        .received()
        .iter()
        .map(|r| {
            let form: Vec<(String, String)> = url::form_urlencoded::parse(&r.body).into_owned().collect();
            let field = |name: &str| form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).unwrap_or_default();
            Text { to: field("To"), from: field("From"), body: field("Body") }
        })
        .collect()
}

/// Waits (in real time: the worker polls every 20 ms) until `ready` holds.
pub(crate) async fn eventually<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

pub(crate) async fn outreach_app(mail: &MailServer, provider: &Receiver) -> TestApp {
    outreach_app_with(mail, provider, |_| {}).await
}

/// As [`outreach_app`], with `configure` changing the settings last.
pub(crate) async fn outreach_app_with(
    mail: &MailServer,
    provider: &Receiver,
    configure: impl FnOnce(&mut Settings) + Send + 'static,
) -> TestApp {
    let smtp_port = mail.port;
    let api_base = url::Url::parse(&provider.url).expect("the provider's URL");
    spawn_app_with(move |settings: &mut Settings| {
        settings.outreach.smtp = Some(SmtpSettings {
            url: format!("smtp://127.0.0.1:{smtp_port}?tls=none"),
            from_address: "surveys@pulse.test".into(),
            username: None,
            password: None,
            timeout: Duration::from_secs(10),
        });
        settings.outreach.twilio = Some(TwilioSettings {
            api_base,
            account_sid: "AC0123456789".into(),
            auth_token: SecretString::from(AUTH_TOKEN),
            sms_from: Some(SMS_FROM.into()),
            whatsapp_from: None,
            timeout: Duration::from_secs(10),
        });
        settings.outreach.poll_every = Duration::from_millis(20);
        configure(settings);
    })
    .await
}

/// Twilio's signature of a form posted to `url`: HMAC-SHA1 over the URL and the sorted fields.
pub(crate) fn provider_signature(url: &str, form: &[(&str, &str)]) -> String {
    let mut sorted = form.to_vec();
    sorted.sort_unstable();
    let mut signed = url.to_owned();
    for (name, value) in sorted {
        signed.push_str(name);
        signed.push_str(value);
    }
    let key = hmac::Key::new(hmac::HMAC_SHA1_FOR_LEGACY_USE_ONLY, AUTH_TOKEN.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(hmac::sign(&key, signed.as_bytes()).as_ref())
}

/// The campaign once no message is queued or being sent: a provider takes a message a moment
/// before its outcome is recorded.
pub(crate) async fn no_attempt_in_flight(app: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while app.count_where("outreach_messages WHERE claim_token IS NOT NULL").await > 0 {
        assert!(Instant::now() < deadline, "an attempt is still in flight");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

async fn settled_view(app: &TestApp, key: &str, campaign: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let busy = app.count_where("outreach_messages WHERE status = 'QUEUED' OR claim_token IS NOT NULL").await;
        if busy == 0 {
            return app.get_campaign(key, campaign).await.json().await.expect("json");
        }
        assert!(Instant::now() < deadline, "{busy} messages still in flight");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

const PEOPLE: [(&str, &str, &str, &str); 5] = [
    ("p1", "Asha", "asha@example.com", "+91 98765 00001"),
    ("p2", "Bruno", "bruno@example.com", "+91 98765 00002"),
    ("p3", "Chen", "chen@example.com", "+91 98765 00003"),
    ("p4", "Dana", "dana@example.com", "+91 98765 00004"),
    ("p5", "Eli", "eli@example.com", "+91 98765 00005"),
];

#[tokio::test]
async fn invitations_reminders_thanks_and_opt_outs_reach_real_peers() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app(&mail, &provider).await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;

    let brief = json!({
        "name": "Delivery check-in",
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["en"]}},
        "delivery": {"channels": ["EMAIL", "SMS"], "reminderCount": 2, "greetByName": true},
    });
    let response = app.provision(key, &brief).await;
    assert_eq!(response.status(), 201);
    let campaign = response.json::<Value>().await.expect("json")["campaign"].clone();
    let rows: Vec<Value> = PEOPLE
        .iter()
        .map(|(reference, name, email, phone)| json!({"externalRef": reference, "name": name, "email": email, "phone": phone}))
        .collect();
    assert_eq!(app.attach_respondents(key, id_of(&campaign), &json!({"rows": rows})).await.status(), 200);
    assert_eq!(app.launch_campaign(key, id_of(&campaign)).await.status(), 200);

    // Five emails and five texts, each greeting its person and carrying their own link.
    let emails = eventually("five invitations by email", || Some(mail.messages()).filter(|m| m.len() == 5)).await;
    let sms = eventually("five invitations by SMS", || Some(texts(&provider)).filter(|t| t.len() == 5)).await;
    let mut links = Vec::new();
    for (reference, name, email, phone) in PEOPLE {
        let invitation = emails.iter().find(|m| m.to.contains(email)).unwrap_or_else(|| panic!("{reference} emailed"));
        assert!(invitation.text.starts_with(&format!("Hello {name},")), "greeted by name: {}", invitation.text);
        assert_eq!(invitation.from, "Client via Pulse <surveys@pulse.test>");
        assert!(invitation.subject.contains("Client"), "the subject names the sender: {}", invitation.subject);
        assert_eq!(invitation.list_unsubscribe_post.as_deref(), Some("List-Unsubscribe=One-Click"));
        let path = invitation.survey_path().expect("a survey link");
        assert!(path.starts_with(&format!("/s/{}/", code_of(&campaign))), "{path}");
        let e164: String = format!("+{}", phone.chars().filter(char::is_ascii_digit).collect::<String>());
        let text = sms.iter().find(|t| t.to == e164).unwrap_or_else(|| panic!("{reference} texted in E.164 form"));
        assert_eq!(text.from, SMS_FROM);
        assert!(text.body.contains(&path) && text.body.contains(name), "{}", text.body);
        assert!(text.body.trim_end().ends_with("Reply STOP to opt out."), "{}", text.body);
        links.push(path);
    }
    let page = app.client.get(app.url(&links[0])).send().await.expect("the invitation page");
    assert_eq!(page.status(), 200, "the emailed link opens the respondent page");

    // Three answer through their own links and are thanked on the channel they were invited by.
    for path in &links[..3] {
        let nonce = Link::parse(&app.url(path)).nonce().expect("a nonce").to_owned();
        app.respond(code_of(&campaign), &json!({"invitation": nonce}), &[("q1", json!(5))]).await;
    }
    let thanked = eventually("three thank-you emails", || Some(mail.messages()).filter(|m| m.len() == 8)).await;
    let thanks: Vec<&Mail> = thanked.iter().filter(|m| m.survey_path().is_none()).collect();
    assert_eq!(thanks.len(), 3);
    assert!(thanks.iter().all(|m| m.subject.starts_with("Thank you")), "{thanks:?}");
    assert_eq!(texts(&provider).len(), 5, "thanked by email only: it comes first in the campaign's channels");
    // The acceptance is recorded with its event just after the server took the mail.
    let acknowledged = || app.count_where("webhook_events WHERE event_type = 'respondent.acknowledged'");
    let deadline = Instant::now() + Duration::from_secs(30);
    while acknowledged().await < 3 {
        assert!(Instant::now() < deadline, "one respondent.acknowledged per thank-you the provider accepted");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(acknowledged().await, 3);

    // After two days the other two get one reminder each, by email and by SMS.
    no_attempt_in_flight(&app).await;
    app.clock.advance(time::Duration::days(2));
    let reminded = eventually("two reminder emails", || Some(mail.messages()).filter(|m| m.len() == 10)).await;
    eventually("two reminder texts", || Some(texts(&provider)).filter(|t| t.len() == 7)).await;
    let reminders: Vec<&Mail> = reminded.iter().filter(|m| m.subject.starts_with("A reminder")).collect();
    let mut reminded_to: Vec<&str> = reminders.iter().map(|m| m.to.as_str()).collect();
    reminded_to.sort_unstable();
    assert_eq!(reminded_to, [" <dana@example.com>", " <eli@example.com>"], "the envelope names no one");

    // Dana opts out by email (the link's page, then the one-click POST) and by replying STOP.
    let dana = reminders.iter().find(|m| m.to.contains("dana@")).expect("Dana's reminder");
    let unsubscribe = app.url(&dana.unsubscribe_path());
    let confirm = app.client.get(&unsubscribe).send().await.expect("the unsubscribe page");
    assert_eq!(confirm.status(), 200);
    assert!(confirm.text().await.expect("html").contains("<form method=\"post\">"), "opening the link changes nothing");
    let one_click = app
        .client
        .post(&unsubscribe)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("one-click");
    assert_eq!(one_click.status(), 200);
    let forged = app.client.post(format!("{unsubscribe}x")).send().await.expect("forged");
    assert_eq!(forged.status(), 404);

    let replies_url = format!("{}/api/v1/public/messages/replies", app.settings.base_url);
    let form = [("From", "+919876500004"), ("To", SMS_FROM), ("Body", "STOP")];
    let post_reply = |signature: String| {
        app.client
            .post(app.url("/api/v1/public/messages/replies"))
            .header("x-twilio-signature", signature)
            .form(&form)
            .send()
    };
    let unsigned = post_reply("bm90IHNpZ25lZA==".into()).await.expect("reply");
    assert_eq!(unsigned.status(), 401, "a reply the provider did not sign changes nothing");
    let stop = post_reply(provider_signature(&replies_url, &form)).await.expect("reply");
    assert_eq!(stop.status(), 200);
    assert!(stop.text().await.expect("xml").contains("<Response>"));

    // Four days on, only Eli gets the second reminder.
    no_attempt_in_flight(&app).await;
    app.clock.advance(time::Duration::days(4));
    eventually("Eli's second reminder email", || Some(mail.messages()).filter(|m| m.len() == 11)).await;
    eventually("Eli's second reminder text", || Some(texts(&provider)).filter(|t| t.len() == 8)).await;
    let view = settled_view(&app, key, id_of(&campaign)).await;
    let channel = |name: &str| {
        view["counts"]["messages"]
            .as_array()
            .and_then(|all| all.iter().find(|c| c["channel"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("{name} counts in {view}"))
    };
    assert_eq!(channel("EMAIL")["sent"], 11);
    assert_eq!(channel("EMAIL")["optedOut"], 1, "Dana's second email reminder was not sent");
    assert_eq!(channel("SMS")["sent"], 8);
    assert_eq!(channel("SMS")["optedOut"], 1, "nor her second text");
    assert!(mail.messages().iter().filter(|m| m.to.contains("dana@")).count() == 2, "Dana got nothing more");
    assert_eq!(view["counts"]["messageFailures"], json!([]));

    let logs = captured_logs();
    for (_, _, email, phone) in PEOPLE {
        for secret in [email, phone] {
            assert!(!logs.contains(secret), "{secret} reached a log line");
        }
    }
}

#[tokio::test]
async fn two_replicas_send_each_invitation_once() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app(&mail, &provider).await;
    app.second_instance();
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["en"]}},
        "delivery": {"channels": ["EMAIL"]},
    });
    let campaign = app.provision(key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let rows: Vec<Value> =
        (0..40).map(|i| json!({"externalRef": format!("p{i}"), "email": format!("person{i}@example.com")})).collect();
    assert_eq!(app.attach_respondents(key, id_of(&campaign), &json!({"rows": rows})).await.status(), 200);
    assert_eq!(app.launch_campaign(key, id_of(&campaign)).await.status(), 200);

    eventually("forty invitations", || Some(mail.messages()).filter(|m| m.len() >= 40)).await;
    settled_view(&app, key, id_of(&campaign)).await;
    let mut recipients: Vec<String> = mail.messages().into_iter().map(|m| m.to).collect();
    recipients.sort_unstable();
    recipients.dedup();
    assert_eq!((mail.messages().len(), recipients.len()), (40, 40), "each person got exactly one invitation");
}

#[tokio::test]
async fn a_provider_outage_is_retried_and_then_the_message_fails_with_a_code() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(503));
    let app = outreach_app(&mail, &provider).await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["fr"]}},
        "delivery": {"channels": ["SMS"]},
    });
    let campaign = app.provision(key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let row = json!({"rows": [{"externalRef": "p1", "phone": "+33 6 12 34 56 78"}]});
    assert_eq!(app.attach_respondents(key, id_of(&campaign), &row).await.status(), 200);
    assert_eq!(app.launch_campaign(key, id_of(&campaign)).await.status(), 200);

    eventually("the first attempt", || Some(texts(&provider)).filter(|t| t.len() == 1)).await;
    let first = &texts(&provider)[0];
    assert!(first.body.contains("STOP"), "{}", first.body);
    assert!(first.body.starts_with("Bonjour"), "in the survey's language: {}", first.body);
    // Retried after 1, 5, 30 and 120 minutes: five attempts in all, never two at once.
    for (wait, attempts) in [(1, 2), (5, 3), (30, 4), (120, 5)] {
        // The provider sees a request before the worker records its failure; the retry is
        // scheduled from that record, so the clock moves only once it is written.
        no_attempt_in_flight(&app).await;
        app.clock.advance(time::Duration::minutes(wait));
        eventually("the next attempt", || Some(texts(&provider)).filter(|t| t.len() == attempts)).await;
    }
    app.clock.advance(time::Duration::hours(12));
    let view = settled_view(&app, key, id_of(&campaign)).await;
    assert_eq!(texts(&provider).len(), 5, "nothing after the fifth attempt: the message is FAILED");
    assert_eq!(view["counts"]["messageFailures"], json!([{"code": "SMS_UNAVAILABLE", "count": 1}]), "{view}");
    let sms = &view["counts"]["messages"][0];
    assert_eq!((&sms["channel"], &sms["failed"], &sms["sent"]), (&json!("SMS"), &json!(1), &json!(0)));
}

#[tokio::test]
async fn a_campaign_asking_for_a_channel_without_a_sender_cannot_launch() {
    let app = crate::helpers::spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["en"]}},
        "delivery": {"channels": ["TELEPHONY"]},
    });
    let campaign = app.provision(key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let blockers: Vec<&str> = campaign["readiness"]["blockers"]
        .as_array()
        .expect("blockers")
        .iter()
        .filter_map(|b| b["code"].as_str())
        .collect();
    assert!(blockers.contains(&"CHANNEL_UNAVAILABLE"), "{blockers:?}");
    let response = app.launch_campaign(key, id_of(&campaign)).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["code"], "NOT_LAUNCH_READY");
    assert!(body["description"].as_str().is_some_and(|d| d.contains("TELEPHONY")), "{body}");
}
