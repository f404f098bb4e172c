//! Phone surveys (TELEPHONY) against a local server in the voice provider's place: Pulse places
//! each call there, and the test then plays the provider and the callee, requesting Pulse's TwiML
//! as Twilio does (the keys pressed, the words recognised, each request signed as Twilio signs),
//! following each `<Gather>` to its action.

use serde_json::{Value, json};

use crate::helpers::campaigns::id_of;
use crate::helpers::{TestApp, captured_logs};
use crate::outreach::{MailServer, eventually, no_attempt_in_flight, outreach_app_with, provider_signature};
use crate::receiver::{Receiver, Reply};

const VOICE_FROM: &str = "+15550002222";

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
    let brief = json!({
        "name": format!("Appel {language}"),
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 2, "languages": [language]}},
        "delivery": {"channels": ["TELEPHONY"], "reminderCount": 1},
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
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app_with(&mail, &provider, |settings| {
        settings.outreach.voice_from = Some(VOICE_FROM.into());
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
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app =
        outreach_app_with(&mail, &provider, |settings| settings.outreach.voice_from = Some(VOICE_FROM.into())).await;
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
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app_with(&mail, &provider, |settings| {
        settings.outreach.voice_from = Some(VOICE_FROM.into());
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
