//! Phone surveys (TELEPHONY) against a local server in the voice provider's place: Pulse places
//! each call there, and the test then plays the provider and the callee, requesting Pulse's TwiML
//! as Twilio does (the keys pressed, the words recognised, each request signed as Twilio signs),
//! following each `<Gather>` to its action.

use serde_json::{Value, json};

use crate::helpers::campaigns::id_of;
use crate::helpers::{TestApp, captured_logs};
use crate::outreach::{MailServer, eventually, no_attempt_in_flight, outreach_app_with, provider_signature};
use crate::receiver::{Receiver, Reply};
use pulse::settings::Settings;
use pulse_domain::outreach::models::{AnswerRecording, ReminderSchedule};

const VOICE_FROM: &str = "+15550002222";

/// A server that places calls through a local server in Twilio's place (which takes every call),
/// from [`VOICE_FROM`], with `configure` applied; the mail server lives as long as it.
struct Telephony {
    app: TestApp,
    provider: Receiver,
    _mail: MailServer,
}

async fn telephony_app(configure: impl FnOnce(&mut Settings) + Send + 'static) -> Telephony {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app_with(&mail, &provider, move |settings| {
        settings.outreach.voice_from = Some(VOICE_FROM.into());
        configure(settings);
    })
    .await;
    Telephony { app, provider, _mail: mail }
}

/// A call Pulse asked the provider to place.
#[derive(Clone, Debug)]
struct PlacedCall {
    to: String,
    answer_url: String,
    status_url: String,
}

fn placed_calls(provider: &Receiver) -> Vec<PlacedCall> {
    provider
        .received()
        .iter()
        .filter_map(|r| {
            let form: Vec<(String, String)> = url::form_urlencoded::parse(&r.body).into_owned().collect();
            let field = |name: &str| form.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
            (field("From")? == VOICE_FROM).then(|| PlacedCall {
                to: field("To").unwrap_or_default(),
                answer_url: field("Url").unwrap_or_default(),
                status_url: field("StatusCallback").unwrap_or_default(),
            })
        })
        .collect()
}

/// The provider's side of one call: each request signed, each answer TwiML.
struct Caller<'a> {
    app: &'a TestApp,
    call: PlacedCall,
    sid: &'static str,
}

impl Caller<'_> {
    /// Requests `url` as the provider does: signed over the public URL Pulse gave it, sent to the
    /// test server behind that origin.
    async fn post(&self, url: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let mut form = vec![("CallSid", self.sid), ("AccountSid", "AC0123456789")];
        form.extend_from_slice(fields);
        let response = self
            .app
            .client
            .post(self.app.url(behind(url)))
            .header("x-twilio-signature", provider_signature(url, &form))
            .form(&form)
            .send()
            .await
            .expect("a call request");
        (response.status().as_u16(), response.text().await.expect("a body"))
    }

    /// Picks up: the greeting, and where the consent goes.
    async fn answer(&self, answered_by: &str) -> String {
        let (status, twiml) = self
            .post(&self.call.answer_url.clone(), &[("CallStatus", "in-progress"), ("AnsweredBy", answered_by)])
            .await;
        assert_eq!(status, 200, "{twiml}");
        twiml
    }

    /// Answers the `<Gather>` of `twiml` with keys or words.
    async fn respond(&self, twiml: &str, fields: &[(&str, &str)]) -> String {
        let action = action_of(twiml).unwrap_or_else(|| panic!("no <Gather> to answer: {twiml}"));
        let (status, next) = self.post(&action, fields).await;
        assert_eq!(status, 200, "{next}");
        next
    }

    async fn hang_up(&self) {
        let (status, body) = self.post(&self.call.status_url.clone(), &[("CallStatus", "completed")]).await;
        assert_eq!(status, 204, "{body}");
    }
}

/// The path of a public URL Pulse gave the provider.
fn behind(url: &str) -> &str {
    url.find("/api/").map_or(url, |start| &url[start..])
}

/// The action URL of the turn's `<Gather>`, unescaped.
fn action_of(twiml: &str) -> Option<String> {
    let start = twiml.find("<Gather")?;
    let attribute = twiml[start..].find("action=\"")? + start + "action=\"".len();
    let end = twiml[attribute..].find('"')? + attribute;
    Some(twiml[attribute..end].replace("&amp;", "&"))
}

/// Everything said in a turn, unescaped.
fn said(twiml: &str) -> String {
    twiml
        .split("<Say")
        .skip(1)
        .filter_map(|part| part.split_once('>').map(|(_, rest)| rest.split("</Say>").next().unwrap_or_default()))
        .map(|text| text.replace("&apos;", "'").replace("&amp;", "&").replace("&quot;", "\""))
        .collect::<Vec<_>>()
        .join(" ")
}

async fn telephony_campaign(app: &TestApp, key: &str, language: &str, people: &[(&str, &str)]) -> Value {
    telephony_campaign_with(app, key, language, people, json!({"channels": ["TELEPHONY"], "reminderCount": 1})).await
}

async fn telephony_campaign_with(
    app: &TestApp,
    key: &str,
    language: &str,
    people: &[(&str, &str)],
    delivery: Value,
) -> Value {
    let brief = json!({
        "name": format!("Appel {language}"),
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 2, "languages": [language]}},
        "delivery": delivery,
    });
    let response = app.provision(key, &brief).await;
    assert_eq!(response.status(), 201);
    let campaign = response.json::<Value>().await.expect("json")["campaign"].clone();
    let rows: Vec<Value> =
        people.iter().map(|(reference, phone)| json!({"externalRef": reference, "phone": phone})).collect();
    assert_eq!(app.attach_respondents(key, id_of(&campaign), &json!({"rows": rows})).await.status(), 200);
    let launched = app.launch_campaign(key, id_of(&campaign)).await;
    assert_eq!(launched.status(), 200, "TELEPHONY is launch-ready with a voice number");
    campaign
}

/// A whole survey by phone: consent, a rating by key, the open question aloud, the thank-you.
async fn answered(caller: &Caller<'_>, consent: &[(&str, &str)], key: &str, words: &str) {
    let greeting = caller.answer("human").await;
    let rating = caller.respond(&greeting, consent).await;
    let open = caller.respond(&rating, &[("Digits", key)]).await;
    let thanks = caller.respond(&open, &[("SpeechResult", words), ("Confidence", "0.91")]).await;
    assert!(thanks.contains("<Hangup/>") && action_of(&thanks).is_none(), "thanked and done: {thanks}");
    caller.hang_up().await;
}

const FRENCH: [&str; 5] = [
    "Le livreur était très aimable et le colis est arrivé en parfait état, merci beaucoup",
    "Livraison rapide et soignée, je suis très satisfaite",
    "Excellent service, le livreur était ponctuel et souriant",
    "Tout s'est très bien passé, bravo à l'équipe",
    "Très bonne expérience, je recommande vivement",
];

const HINDI: [&str; 5] = [
    "डिलीवरी बहुत अच्छी थी और सामान समय पर पहुँचा, धन्यवाद",
    "सेवा बहुत बढ़िया थी, मैं बहुत खुश हूँ",
    "डिलीवरी वाला बहुत विनम्र था, बहुत अच्छा अनुभव",
    "सामान सही हालत में और जल्दी मिला, बहुत अच्छा",
    "शानदार सेवा, धन्यवाद",
];

#[tokio::test]
async fn a_french_and_a_hindi_survey_are_asked_and_answered_by_phone() {
    let Telephony { app, provider, _mail } = telephony_app(|settings| {
        // Every call of the test at once: pacing has its own test.
        settings.outreach.calls_at_once = 20;
    })
    .await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;

    let mut people: Vec<(String, String)> =
        (1..=5).map(|n| (format!("fr-{n}"), format!("+33 6 12 34 56 0{n}"))).collect();
    people.push(("hangs-up".into(), "+33 6 12 34 56 06".into()));
    people.push(("machine".into(), "+33 6 12 34 56 07".into()));
    let rows: Vec<(&str, &str)> = people.iter().map(|(r, p)| (r.as_str(), p.as_str())).collect();
    let french = telephony_campaign(&app, key, "fr", &rows).await;
    let calls = eventually("seven calls placed", || Some(placed_calls(&provider)).filter(|c| c.len() == 7)).await;
    let call = |to: &str| calls.iter().find(|c| c.to == to).cloned().unwrap_or_else(|| panic!("{to} called"));
    let sid = |n: usize| -> &'static str { format!("CA{n:032}").leak() };

    // The first: the greeting names who asks and the campaign, in French; an invalid key is
    // asked again once.
    let first = Caller { app: &app, call: call("+33612345601"), sid: sid(1) };
    let greeting = first.answer("human").await;
    let spoken = said(&greeting);
    assert!(spoken.contains("Client") && spoken.contains("Appel fr"), "names who asks and the campaign: {spoken}");
    assert!(greeting.contains("language=\"fr-FR\""), "{greeting}");
    let rating = first.respond(&greeting, &[("Digits", "1")]).await;
    let again = first.respond(&rating, &[("Digits", "7")]).await;
    assert!(action_of(&again).is_some_and(|a| a.ends_with("/q0-again")), "asked again: {again}");
    let open = first.respond(&again, &[("Digits", "4")]).await;
    assert!(!open.contains("<Recording"), "nothing is recorded unless the operator says so: {open}");
    let thanks = first.respond(&open, &[("SpeechResult", FRENCH[0])]).await;
    assert!(thanks.contains("<Hangup/>"), "{thanks}");
    first.hang_up().await;
    // Four more, consenting by voice.
    for (n, words) in FRENCH.iter().enumerate().skip(1) {
        let caller = Caller { app: &app, call: call(&format!("+3361234560{}", n + 1)), sid: sid(n + 1) };
        answered(&caller, &[("SpeechResult", "Oui, d'accord.")], "5", words).await;
    }
    // One hangs up after the first question: a partial session, judged as the page's are.
    let partial = Caller { app: &app, call: call("+33612345606"), sid: sid(6) };
    let greeting = partial.answer("human").await;
    let rating = partial.respond(&greeting, &[("Digits", "1")]).await;
    partial.respond(&rating, &[("Digits", "2")]).await;
    partial.hang_up().await;
    // A machine hears nothing: not reached.
    let machine = Caller { app: &app, call: call("+33612345607"), sid: sid(7) };
    let silence = machine.answer("machine_start").await;
    assert!(!silence.contains("<Say") && silence.contains("<Hangup/>"), "{silence}");
    machine.hang_up().await;

    // The Hindi survey: consent by "हाँ", keys, and words in Hindi.
    let hindi_people: Vec<(String, String)> =
        (1..=5).map(|n| (format!("hi-{n}"), format!("+91 98765 0001{n}"))).collect();
    let rows: Vec<(&str, &str)> = hindi_people.iter().map(|(r, p)| (r.as_str(), p.as_str())).collect();
    let hindi = telephony_campaign(&app, key, "hi", &rows).await;
    let calls = eventually("the Hindi calls", || Some(placed_calls(&provider)).filter(|c| c.len() == 12)).await;
    for (n, words) in HINDI.iter().enumerate() {
        let to = format!("+91987650001{}", n + 1);
        let placed = calls.iter().find(|c| c.to == to).cloned().unwrap_or_else(|| panic!("{to} called"));
        let caller = Caller { app: &app, call: placed, sid: sid(11 + n) };
        if n == 0 {
            let greeting = caller.answer("human").await;
            assert!(greeting.contains("language=\"hi-IN\""), "{greeting}");
        }
        answered(&caller, &[("SpeechResult", "हाँ")], "5", words).await;
    }

    no_attempt_in_flight(&app).await;
    let results = app.analyzed_results(key, id_of(&french), 6).await;
    assert_eq!(results["metrics"]["scoredAnswers"], 5, "the five spoken answers were scored: {results}");
    let positive = results["sentiment"].as_array().expect("sentiment").iter().find(|c| c["label"] == "POSITIVE");
    assert!(positive.is_some_and(|c| c["count"].as_u64() >= Some(4)), "{results}");
    let hindi_results = app.analyzed_results(key, id_of(&hindi), 5).await;
    assert_eq!(hindi_results["metrics"]["scoredAnswers"], 5, "{hindi_results}");
    assert!(hindi_results["overallSentimentScore"].as_f64() > Some(0.0), "{hindi_results}");

    let view: Value = app.get_campaign(key, id_of(&french)).await.json().await.expect("json");
    let calls = &view["counts"]["messages"][0];
    assert_eq!(calls["channel"], "TELEPHONY");
    assert_eq!((calls["sent"].as_u64(), calls["notReached"].as_u64()), (Some(7), Some(1)), "{calls}");
    let thanked = app.count_where("webhook_events WHERE event_type = 'respondent.acknowledged'").await;
    assert_eq!(thanked, 10, "one per call that ended with the spoken thank-you");

    let logs = captured_logs();
    for secret in ["+33612345601", "612345601", "9876500011", "livreur", "डिलीवरी", "Oui, d'accord"] {
        assert!(!logs.contains(secret), "a log line carries {secret}");
    }
}

#[tokio::test]
async fn a_call_request_the_provider_did_not_sign_is_refused() {
    let Telephony { app, provider, _mail } = telephony_app(|_| {}).await;
    let partner = app.campaign_partner().await;
    telephony_campaign(&app, &partner.key.key, "en", &[("a", "+44 7700 900111")]).await;
    let call = eventually("a call placed", || placed_calls(&provider).into_iter().next()).await;
    let form = [("CallSid", "CA1"), ("AnsweredBy", "human")];
    let other_url = provider_signature(&format!("{}x", call.answer_url), &form);
    for forged in [None, Some("bm90IHNpZ25lZA=="), Some(other_url.as_str())] {
        let mut request = app.client.post(app.url(behind(&call.answer_url))).form(&form);
        if let Some(forged) = forged {
            request = request.header("x-twilio-signature", forged);
        }
        let response = request.send().await.expect("sent");
        assert_eq!(response.status(), 401, "{forged:?}");
    }
    assert_eq!(app.count_where("outreach_calls").await, 0, "nothing recorded");
}

/// A morning's calls do not all ring at once: a workspace has at most
/// `PULSE_VOICE_CALLS_PER_WORKSPACE` under way, and the next waits for one to end.
#[tokio::test]
async fn a_workspace_has_at_most_its_number_of_calls_under_way() {
    let Telephony { app, provider, _mail } = telephony_app(|settings| {
        settings.outreach.calls_at_once = 2;
    })
    .await;
    let partner = app.campaign_partner().await;
    let people = [("a", "+44 7700 900201"), ("b", "+44 7700 900202"), ("c", "+44 7700 900203")];
    telephony_campaign(&app, &partner.key.key, "en", &people).await;
    let two = eventually("two calls placed", || Some(placed_calls(&provider)).filter(|c| c.len() == 2)).await;
    let waiting = "outreach_messages WHERE channel = 'TELEPHONY' AND status = 'QUEUED' AND attempts = 0 \
                   AND due_at = '2026-03-02 10:01:00+00' AND claim_token IS NULL";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while app.count_where(waiting).await != 1 {
        assert!(std::time::Instant::now() < deadline, "the third call held for a minute");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(placed_calls(&provider).len(), 2, "no third call while two ring");

    let busy = Caller { app: &app, call: two[0].clone(), sid: "CA00000000000000000000000000000b1" };
    let (status, _) = busy.post(&busy.call.status_url.clone(), &[("CallStatus", "busy")]).await;
    assert_eq!(status, 204);
    no_attempt_in_flight(&app).await;
    app.clock.advance(time::Duration::minutes(1));
    let three = eventually("the third call", || Some(placed_calls(&provider)).filter(|c| c.len() == 3)).await;
    assert!(two.iter().all(|call| call.to != three[2].to), "the one held calls now: {three:?}");
}

/// A person who answered on the page after their call was placed is thanked when they pick up,
/// and not asked again.
#[tokio::test]
async fn a_person_who_answered_on_the_page_meanwhile_is_thanked_not_asked_again() {
    let Telephony { app, provider, _mail } = telephony_app(|_| {}).await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "name": "Appel",
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"languages": ["en"]}},
        "delivery": {"channels": ["TELEPHONY"]},
    });
    let campaign = app.provision(key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let rows = json!({"rows": [{"externalRef": "a", "phone": "+44 7700 900411"}]});
    let attached: Value = app.attach_respondents(key, id_of(&campaign), &rows).await.json().await.expect("json");
    assert_eq!(app.launch_campaign(key, id_of(&campaign)).await.status(), 200);
    let placed = eventually("a call placed", || placed_calls(&provider).into_iter().next()).await;

    let link = crate::helpers::campaigns::Link::parse(attached["rows"][0]["invitationUrl"].as_str().expect("link"));
    let code = crate::helpers::campaigns::code_of(&campaign);
    app.respond(code, &json!({"invitation": link.nonce().expect("a nonce")}), &[("q1", json!(5))]).await;

    let caller = Caller { app: &app, call: placed, sid: "CA000000000000000000000000000000p1" };
    let picked_up = caller.answer("human").await;
    assert!(said(&picked_up).contains("Thank you for your answers"), "{picked_up}");
    assert!(picked_up.contains("<Hangup/>") && action_of(&picked_up).is_none(), "nothing asked: {picked_up}");
    assert_eq!(app.count_where("outreach_calls WHERE outcome = 'DECLINED'").await, 1);
}

/// A fault on Pulse's side in the middle of a call: the callee hears an apology in the survey's
/// language and the line is hung up, where Twilio would otherwise say "an application error has
/// occurred".
#[tokio::test]
async fn a_fault_during_a_call_is_a_polite_goodbye_not_an_application_error() {
    let Telephony { app, provider, _mail } = telephony_app(|_| {}).await;
    let partner = app.campaign_partner().await;
    telephony_campaign(&app, &partner.key.key, "fr", &[("a", "+33 6 12 34 56 31")]).await;
    let placed = eventually("a call placed", || placed_calls(&provider).into_iter().next()).await;
    let caller = Caller { app: &app, call: placed, sid: "CA000000000000000000000000000000f1" };
    let greeting = caller.answer("human").await;
    let rating = caller.respond(&greeting, &[("Digits", "1")]).await;
    // No answer can be written any more.
    app.execute_sql("ALTER TABLE answers ADD CONSTRAINT no_answer_can_be_written CHECK (false) NOT VALID").await;
    let goodbye = caller.respond(&rating, &[("Digits", "4")]).await;
    assert!(said(&goodbye).contains("Veuillez nous excuser"), "an apology in French: {goodbye}");
    assert!(goodbye.contains("<Hangup/>") && action_of(&goodbye).is_none(), "{goodbye}");
    // Logs are shared by every test: the constraint's name is this test's own.
    let logs = captured_logs();
    let logged = logs.lines().any(|line| line.contains("internal error") && line.contains("no_answer_can_be_written"));
    assert!(logged, "the fault is logged");
}

/// Quiet hours hold calls as they hold texts: 10:00 UTC at the start is 15:30 in Kolkata, and a
/// reminder 7½ hours after a call nobody took falls due at 23:00 there, so it rings at 09:00.
#[tokio::test]
async fn a_call_reminder_due_at_23_00_where_the_person_lives_rings_at_09_00_there() {
    let Telephony { app, provider, _mail } = telephony_app(|settings| {
        let wait = time::Duration::hours(7) + time::Duration::minutes(30);
        settings.outreach.reminders = ReminderSchedule::new(vec![wait]).expect("a schedule");
    })
    .await;
    let partner = app.campaign_partner().await;
    telephony_campaign(&app, &partner.key.key, "en", &[("night", "+91 98765 00021")]).await;
    let first = eventually("the invitation's call", || placed_calls(&provider).into_iter().next()).await;
    let busy = Caller { app: &app, call: first, sid: "CA000000000000000000000000000000q1" };
    let (status, _) = busy.post(&busy.call.status_url.clone(), &[("CallStatus", "busy")]).await;
    assert_eq!(status, 204);

    no_attempt_in_flight(&app).await;
    app.clock.advance(time::Duration::hours(7) + time::Duration::minutes(30));
    let held = "outreach_messages WHERE channel = 'TELEPHONY' AND kind = 'REMINDER' AND status = 'QUEUED' \
                AND attempts = 0 AND due_at = '2026-03-03 03:30:00+00' AND claim_token IS NULL";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while app.count_where(held).await != 1 {
        assert!(std::time::Instant::now() < deadline, "the reminder held until 09:00 in Kolkata");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(placed_calls(&provider).len(), 1, "no call at 23:00");

    app.clock.advance(time::Duration::hours(10));
    let calls =
        eventually("the reminder's call at 09:00", || Some(placed_calls(&provider)).filter(|c| c.len() == 2)).await;
    assert_eq!(calls[1].to, "+919876500021");
}

/// The attribute `name` of the first `<element` in `twiml`, unescaped.
fn attribute_of(twiml: &str, element: &str, name: &str) -> Option<String> {
    let start = twiml.find(&format!("<{element} "))?;
    let attribute = twiml[start..].find(&format!(" {name}=\""))? + start + name.len() + 3;
    let end = twiml[attribute..].find('"')? + attribute;
    Some(twiml[attribute..end].replace("&amp;", "&"))
}

/// The recording deletions the provider was asked for, by recording SID.
fn deletions(provider: &Receiver) -> Vec<String> {
    provider
        .received()
        .iter()
        .filter_map(|r| r.request_line.strip_prefix("DELETE "))
        .filter_map(|line| {
            line.split_once(".json").map(|(path, _)| path.rsplit('/').next().unwrap_or_default().to_owned())
        })
        .collect()
}

async fn recordings(app: &TestApp, key: &str, campaign: &str) -> Value {
    let view: Value = app.get_campaign(key, campaign).await.json().await.expect("json");
    view["counts"]["recordings"].clone()
}

async fn recordings_become(app: &TestApp, key: &str, campaign: &str, expected: Value) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let counts = recordings(app, key, campaign).await;
        if counts == expected {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "recordings {counts}, expected {expected}");
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
}

/// With recording on, the callee hears so before consenting, only the spoken answer is recorded
/// (their side, from the question to the next turn), and each recording is deleted at the
/// provider when the campaign's days have passed, or at once when its person is erased; a
/// deletion the provider fails is tried again until it confirms.
#[tokio::test]
async fn recorded_answers_are_deleted_at_the_provider_when_their_days_pass_or_their_person_is_erased() {
    let Telephony { app, provider, _mail } = telephony_app(|settings| {
        settings.outreach.answer_recording = AnswerRecording::On;
    })
    .await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let people = [("kept", "+44 7700 900301"), ("erased", "+44 7700 900302")];
    let delivery = json!({"channels": ["TELEPHONY"], "audioRetentionDays": 2});
    let campaign = telephony_campaign_with(&app, key, "en", &people, delivery).await;
    let id = id_of(&campaign);
    let calls = eventually("two calls placed", || Some(placed_calls(&provider)).filter(|c| c.len() == 2)).await;

    let mut recording_sids = Vec::new();
    for (n, (_, phone)) in people.iter().enumerate() {
        let to: String = phone.chars().filter(|c| *c == '+' || c.is_ascii_digit()).collect();
        let placed = calls.iter().find(|c| c.to == to).cloned().expect("called");
        let caller = Caller {
            app: &app,
            call: placed,
            sid: if n == 0 { "CA00000000000000000000000000000r1" } else { "CA00000000000000000000000000000r2" },
        };
        let greeting = caller.answer("human").await;
        assert!(said(&greeting).contains("recorded") && said(&greeting).contains("2 days"), "told first: {greeting}");
        let rating = caller.respond(&greeting, &[("Digits", "1")]).await;
        assert!(!rating.contains("<Recording"), "a keyed rating is not recorded: {rating}");
        let open = caller.respond(&rating, &[("Digits", "4")]).await;
        assert_eq!(attribute_of(&open, "Recording", "track").as_deref(), Some("inbound"), "the callee only: {open}");
        assert!(open.find("<Start>") < open.find("<Gather"), "from before the question: {open}");
        let report_url = attribute_of(&open, "Recording", "recordingStatusCallback").expect("reported back");
        let thanks = caller.respond(&open, &[("SpeechResult", "The courier was friendly and on time")]).await;
        assert!(thanks.contains("<Stop><Recording name=\"q1\"/></Stop>"), "ended with the answer: {thanks}");
        caller.hang_up().await;

        let sid = format!("RE{n:032}");
        let report = [("RecordingSid", sid.as_str()), ("RecordingStatus", "completed"), ("RecordingDuration", "4")];
        let (status, body) = caller.post(&report_url, &report).await;
        assert_eq!(status, 204, "{body}");
        // Twilio may report twice; the recording is kept once.
        assert_eq!(caller.post(&report_url, &report).await.0, 204);
        recording_sids.push(sid);
    }
    let forged =
        app.client.post(app.url(behind(&format!("{}/recording", calls[0].status_url.trim_end_matches("/status")))));
    let forged =
        forged.form(&[("RecordingSid", "RE9")]).header("x-twilio-signature", "Zm9yZ2Vk").send().await.expect("sent");
    assert_eq!(forged.status(), 401, "an unsigned report is refused");
    assert_eq!(recordings(&app, key, id).await, json!({"held": 2, "deleted": 0, "overdue": 0}));

    // Erasure: that person's recording goes at once.
    let erased = app.erase_respondent(key, id, &json!({"externalRef": "erased"})).await;
    assert_eq!(erased.status(), 200);
    recordings_become(&app, key, id, json!({"held": 1, "deleted": 1, "overdue": 0})).await;
    assert_eq!(deletions(&provider), [recording_sids[1].clone()]);

    // Two days on, the other is due; the provider fails the first attempt, and the count shows it.
    provider.reply(Reply::Status(500));
    app.clock.advance(time::Duration::days(2));
    eventually("a deletion tried", || Some(deletions(&provider)).filter(|d| d.len() == 2)).await;
    recordings_become(&app, key, id, json!({"held": 0, "deleted": 1, "overdue": 1})).await;
    provider.reply(Reply::Status(204));
    app.clock.advance(time::Duration::minutes(1));
    recordings_become(&app, key, id, json!({"held": 0, "deleted": 2, "overdue": 0})).await;
    assert_eq!(deletions(&provider), [recording_sids[1].clone(), recording_sids[0].clone(), recording_sids[0].clone()]);
    let deleted = provider.received().into_iter().find(|r| r.request_line.starts_with("DELETE ")).expect("a deletion");
    assert!(deleted.request_line.contains("/2010-04-01/Accounts/AC0123456789/Recordings/"), "{}", deleted.request_line);
    assert!(deleted.header("authorization").starts_with("Basic "), "with the account's credentials");
    assert_eq!(app.count_where("call_recordings WHERE reference_sealed IS NOT NULL").await, 0, "no reference kept");

    let logs = captured_logs();
    for secret in recording_sids.iter().map(String::as_str).chain(["+447700900301", "courier"]) {
        assert!(!logs.contains(secret), "a log line carries {secret}");
    }
}
