//! The public respondent routes: the access check, start, answers and completion.

use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Value, json};
use time::Duration;

use crate::helpers::campaigns::{Link, code_of, id_of};
use crate::helpers::studio::sign_launch_token;
use crate::helpers::{TestApp, envelope, spawn_app, spawn_app_with};

async fn counts(app: &TestApp, key: &str, campaign: &Value) -> Value {
    let body: Value = app.get_campaign(key, id_of(campaign)).await.json().await.expect("json");
    body["counts"].clone()
}

async fn not_started(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["started"], json!(false));
    assert_eq!(body.as_object().map(serde_json::Map::len), Some(2), "{body}");
    body["reason"].clone()
}

/// A session's id and token.
fn session_of(started: &Value) -> (String, String) {
    (
        started["sessionId"].as_str().expect("session id").to_owned(),
        started["sessionToken"].as_str().expect("session token").to_owned(),
    )
}

async fn progress(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

#[tokio::test]
async fn unknown_codes_are_404() {
    let app = spawn_app().await;
    for code in ["nosuchcode12", "x"] {
        let (status, error, _) = envelope(app.access(code, &[]).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
        let (status, error, _) = envelope(app.start(code, &json!({"consentGiven": true})).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
        let session = uuid::Uuid::new_v4().to_string();
        let (status, error, _) = envelope(app.answer(code, &session, "t", &json!({"answers": []})).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
        let (status, error, _) = envelope(app.complete(code, &session, "t").await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
    }
}

#[tokio::test]
async fn an_open_campaign_needs_no_signature() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let response = app.access(code_of(&campaign), &[]).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    // About 10 s a rating and 45 s a written answer, rounded up to whole minutes.
    let questions = campaign["survey"]["questions"].as_array().expect("questions");
    let seconds: u64 = questions.iter().map(|q| if q["type"] == "rating" { 10 } else { 45 }).sum();
    let intro = json!({"name": campaign["name"], "askedBy": "Client", "privacyNoticeUrl": null,
        "questionCount": questions.len(), "estimatedMinutes": seconds.div_ceil(60), "register": "FORMAL",
        "collecting": true});
    assert_eq!(
        body,
        json!({"requireSigned": false, "state": "NOT_REQUIRED", "refusal": null, "answered": false, "challenge": null, "language": "en",
            "campaign": intro})
    );
    for (lang, expected) in [("fr", "fr"), ("de", "en")] {
        let body: Value = app.access(code_of(&campaign), &[("lang", lang)]).await.json().await.expect("json");
        assert_eq!(body["language"], json!(expected), "{lang}");
        assert_eq!(body["state"], json!("NOT_REQUIRED"));
    }
}

#[tokio::test]
async fn the_access_check_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::AccessCheck, 2)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    for _ in 0..2 {
        assert_eq!(app.access(code, &[]).await.status(), 200);
    }
    let response = app.access(code, &[]).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, error, description) = envelope(response).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("access_check"), "{description}");
    app.started(code, &json!({})).await;
}

#[tokio::test]
async fn without_consent_nothing_is_created_or_spent() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    assert_eq!(not_started(app.start(code, &json!({"consentGiven": false})).await).await, json!("CONSENT_REQUIRED"));
    assert_eq!(not_started(app.start(code, &json!({"language": "fr"})).await).await, json!("CONSENT_REQUIRED"));

    let token = app.minted(&partner.key.key, id_of(&campaign)).await.lt.expect("lt");
    let reason = not_started(app.start(code, &json!({"consentGiven": false, "launchToken": token})).await).await;
    assert_eq!(reason, json!("CONSENT_REQUIRED"));
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["started"], json!(0));
    assert_eq!(app.count_rows("sessions").await, 0);

    // The link was not used up by the refused start.
    app.started(code, &json!({"launchToken": token})).await;
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["started"], json!(1));
}

#[tokio::test]
async fn a_draft_campaign_is_not_open() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let reason = not_started(app.start(code_of(&campaign), &json!({"consentGiven": true})).await).await;
    assert_eq!(reason, json!("CAMPAIGN_NOT_OPEN"));
    assert_eq!(app.count_rows("sessions").await, 0);
}

#[tokio::test]
async fn a_closed_campaign_opens_only_with_an_invitation_once() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let rows = json!({"rows": [{"externalRef": "r1"}, {"externalRef": "r2"}]});
    let response = app.attach_respondents(&partner.key.key, id, &rows).await;
    assert_eq!(response.status(), 200);
    let attached: Value = response.json().await.expect("json");
    let nonce = |i: usize| {
        let link = Link::parse(attached["rows"][i]["invitationUrl"].as_str().expect("url"));
        link.nonce().expect("nonce").to_owned()
    };
    let launched = app.launch_campaign(&partner.key.key, id).await;
    assert_eq!(launched.status(), 200);
    assert_eq!(launched.json::<Value>().await.expect("json")["audience"], json!("CLOSED"));

    assert_eq!(not_started(app.start(code, &json!({"consentGiven": true})).await).await, json!("INVITATION_REQUIRED"));
    let without: Value = app.access(code, &[]).await.json().await.expect("json");
    assert_eq!(without["requireSigned"], json!(false));
    assert_eq!(without["state"], json!("NOT_REQUIRED"), "decisions §5: signing is not required and no lt was given");
    assert_eq!(without["refusal"], Value::Null);
    let access: Value = app.access(code, &[("invitation", &nonce(0))]).await.json().await.expect("json");
    assert_eq!(access["state"], json!("VALID"));
    assert_eq!(access["refusal"], Value::Null);
    app.started(code, &json!({"invitation": nonce(0)})).await;

    let again = app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "r1"}]})).await;
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["rows"][0]["outcome"], json!("UPDATED"));
    assert_eq!(again["rows"][0]["responded"], json!(true));
    assert_eq!(again["rows"][0]["invitationUrl"], attached["rows"][0]["invitationUrl"]);

    for invitation in [nonce(0), "not-an-invitation".to_owned()] {
        let (status, error, _) =
            envelope(app.start(code, &json!({"consentGiven": true, "invitation": invitation})).await).await;
        assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"), "{invitation}");
        let access: Value = app.access(code, &[("invitation", &invitation)]).await.json().await.expect("json");
        assert_eq!(access["state"], json!("INVALID"));
    }
    // An invitation opens its own campaign only.
    let open = app.live_campaign(&partner.key.key).await;
    let (status, error, _) =
        envelope(app.start(code_of(&open), &json!({"consentGiven": true, "invitation": nonce(1)})).await).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
    app.started(code, &json!({"invitation": nonce(1)})).await;
    let other = app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "r2"}]})).await;
    assert_eq!(other.json::<Value>().await.expect("json")["rows"][0]["responded"], json!(true));
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["started"], json!(2));
}

#[tokio::test]
async fn device_tokens_never_block_a_start_but_lengths_are_bounded() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let expired_looking = sign_launch_token(Some("device"), "whatever", &json!({"exp": 1, "sub": "d"}));
    for token in ["garbage".to_owned(), expired_looking, "d".repeat(1024)] {
        app.started(code, &json!({"deviceToken": token})).await;
    }
    // Unreadable client labels are ignored too.
    app.started(code, &json!({"client": {"nested": {"a": 1}, "list": [1], "ok": "web", "n": 3}})).await;
    app.started(code, &json!({"client": "not an object"})).await;

    for (body, field) in [
        (json!({"consentGiven": true, "deviceToken": "d".repeat(1025)}), "deviceToken"),
        (json!({"consentGiven": true, "launchToken": "l".repeat(4097)}), "launchToken"),
        (json!({"consentGiven": true, "language": "l".repeat(25)}), "language"),
        (json!({"consentGiven": "yes"}), "consentGiven"),
    ] {
        let (status, error, description) = envelope(app.start(code, &body).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{field}");
        assert!(description.contains(field), "{field}: {description}");
    }
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["started"], json!(5));
}

#[tokio::test]
async fn the_start_attempt_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::StartAttempt, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    app.started(code, &json!({})).await;
    let response = app.start(code, &json!({"consentGiven": true})).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, error, description) = envelope(response).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("start_attempt"), "{description}");
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["started"], json!(1));
    app.clock.advance(Duration::hours(1));
    app.started(code, &json!({})).await;
}

#[tokio::test]
async fn responses_pause_when_the_campaign_has_enough() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let body = json!({"brief": {"intentText": "How was your last delivery with us?",
        "constraints": {"questionCount": 1}}, "quality": {"maxResponses": 1}});
    let response = app.provision(&partner.key.key, &body).await;
    assert_eq!(response.status(), 201);
    let campaign = response.json::<Value>().await.expect("json")["campaign"].clone();
    assert_eq!(app.launch_campaign(&partner.key.key, id_of(&campaign)).await.status(), 200);
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let answers = json!({"answers": [{"questionId": "q1", "value": 5}]});
    progress(app.answer(code, &session, &token, &answers).await).await;
    progress(app.complete(code, &session, &token).await).await;
    let (status, error, _) = envelope(app.start(code, &json!({"consentGiven": true})).await).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
}

#[tokio::test]
async fn a_full_session_answers_every_question_and_completes() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let started = app.started(code, &json!({})).await;
    assert!(started["sessionId"].as_str().is_some_and(|id| id.parse::<uuid::Uuid>().is_ok()));
    assert_eq!(started["language"], json!("en"));
    let questions = started["questions"].as_array().expect("questions");
    let survey = campaign["survey"]["questions"].as_array().expect("survey");
    assert_eq!(questions.len(), survey.len());
    for (asked, planned) in questions.iter().zip(survey) {
        assert_eq!(asked["id"], planned["id"]);
        assert_eq!(asked["type"], planned["type"]);
        assert_eq!(asked["required"], planned["required"]);
        assert_eq!(asked["scale"], planned["scale"]);
        assert_eq!(asked["text"], planned["texts"]["en"]);
    }
    assert_eq!(
        counts(&app, &partner.key.key, &campaign).await,
        json!({"invited": 0, "responded": 0, "started": 1, "completed": 0, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );

    let (session, token) = session_of(&started);
    let total = questions.len();
    for (i, question) in questions.iter().enumerate() {
        let value = if question["type"] == json!("rating") { json!(4) } else { json!("Quick and friendly.") };
        let body = json!({"answers": [{"questionId": question["id"], "value": value}]});
        let answered = progress(app.answer(code, &session, &token, &body).await).await;
        assert_eq!(answered, json!({"answered": i + 1, "total": total}));
    }
    let done = progress(app.complete(code, &session, &token).await).await;
    assert_eq!(done, json!({"status": "COMPLETED", "answered": total, "total": total}));
    assert_eq!(
        counts(&app, &partner.key.key, &campaign).await,
        json!({"invited": 0, "responded": 0, "started": 1, "completed": 1, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );
}

#[tokio::test]
async fn answers_are_checked_against_their_question() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let one = |id: &str, value: Value| json!({"answers": [{"questionId": id, "value": value}]});
    let cases = [
        (one("q1", json!(0)), "answers[0].value"),
        (one("q1", json!(6)), "answers[0].value"),
        (one("q1", json!(4.5)), "answers[0].value"),
        (one("q1", json!("5")), "answers[0].value"),
        (one("q2", json!("x".repeat(4001))), "answers[0].value"),
        (one("q2", json!(3)), "answers[0].value"),
        (one("q99", json!(1)), "answers[0].questionId"),
        (
            json!({"answers": [{"questionId": "q1", "value": 3}, {"questionId": "q1", "value": 4}]}),
            "answers[1].questionId",
        ),
        (json!({"answers": []}), "answers"),
    ];
    for (body, field) in cases {
        let (status, error, description) = envelope(app.answer(code, &session, &token, &body).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(field), "{field}: {description}");
    }
    // Nothing of the refused calls was stored; the limits themselves are allowed, and fields this
    // fixed route does not know are ignored (SDKs may send more).
    let extra = json!({"answers": [{"questionId": "q1", "value": 5, "note": "x"}], "client": "sdk"});
    assert_eq!(progress(app.answer(code, &session, &token, &extra).await).await["answered"], json!(1));
    let first = progress(app.answer(code, &session, &token, &one("q1", json!(5))).await).await;
    assert_eq!(first["answered"], json!(1));
    let text = progress(app.answer(code, &session, &token, &one("q2", json!("x".repeat(4000)))).await).await;
    assert_eq!(text["answered"], json!(2));
    assert_eq!(progress(app.answer(code, &session, &token, &one("q1", json!(1))).await).await["answered"], json!(2));
}

#[tokio::test]
async fn the_session_token_gates_answers_and_completion() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let (_, other_token) = session_of(&app.started(code, &json!({})).await);
    let body = json!({"answers": [{"questionId": "q1", "value": 3}]});
    let url = app.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/answers"));
    let missing = app.client.post(&url).json(&body).send().await.expect("request");
    let (status, error, _) = envelope(missing).await;
    assert_eq!((status, error.as_str()), (401, "UNAUTHENTICATED"));
    for wrong in ["wrong-token", other_token.as_str()] {
        let (status, error, _) = envelope(app.answer(code, &session, wrong, &body).await).await;
        assert_eq!((status, error.as_str()), (401, "UNAUTHENTICATED"), "{wrong}");
        let (status, error, _) = envelope(app.complete(code, &session, wrong).await).await;
        assert_eq!((status, error.as_str()), (401, "UNAUTHENTICATED"), "{wrong}");
    }
    let url = app.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/complete"));
    let (status, error, _) = envelope(app.client.post(&url).send().await.expect("request")).await;
    assert_eq!((status, error.as_str()), (401, "UNAUTHENTICATED"));
    assert_eq!(progress(app.answer(code, &session, &token, &body).await).await["answered"], json!(1));
}

#[tokio::test]
async fn a_session_is_found_only_under_its_own_campaign() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let other = app.live_campaign(&partner.key.key).await;
    let (session, token) = session_of(&app.started(code_of(&campaign), &json!({})).await);
    let body = json!({"answers": [{"questionId": "q1", "value": 3}]});
    let (status, error, _) = envelope(app.answer(code_of(&other), &session, &token, &body).await).await;
    assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
    let (status, error, _) = envelope(app.complete(code_of(&other), &session, &token).await).await;
    assert_eq!((status, error.as_str()), (404, "NOT_FOUND"));
    for unknown in [uuid::Uuid::new_v4().to_string(), "not-a-session".to_owned()] {
        let (status, error, _) = envelope(app.answer(code_of(&campaign), &unknown, &token, &body).await).await;
        assert_eq!((status, error.as_str()), (404, "NOT_FOUND"), "{unknown}");
    }
    assert_eq!(progress(app.answer(code_of(&campaign), &session, &token, &body).await).await["answered"], json!(1));
}

#[tokio::test]
async fn answering_again_replaces_the_answer() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let total = campaign["survey"]["questions"].as_array().map(Vec::len).expect("questions");
    for value in [2, 5] {
        let body = json!({"answers": [{"questionId": "q1", "value": value}]});
        assert_eq!(
            progress(app.answer(code, &session, &token, &body).await).await,
            json!({"answered": 1, "total": total})
        );
    }
    let both = json!({"answers": [{"questionId": "q2", "value": "first"}, {"questionId": "q1", "value": 3}]});
    assert_eq!(progress(app.answer(code, &session, &token, &both).await).await["answered"], json!(2));
    let text = json!({"answers": [{"questionId": "q2", "value": "second thoughts"}]});
    assert_eq!(progress(app.answer(code, &session, &token, &text).await).await["answered"], json!(2));
    assert_eq!(app.count_rows("answers").await, 2);
}

#[tokio::test]
async fn completing_does_not_wait_for_unanswered_questions() {
    // The fixed complete route has no refusal for unanswered questions: `required` guides the
    // page, and the campaign's coverage rule judges the response.
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    assert_eq!(campaign["survey"]["questions"][0]["required"], json!(true));
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let optional = json!({"answers": [{"questionId": "q2", "value": "fine"}]});
    progress(app.answer(code, &session, &token, &optional).await).await;
    let done = progress(app.complete(code, &session, &token).await).await;
    assert_eq!(done["status"], json!("COMPLETED"));
    assert_eq!((done["answered"].clone(), done["total"].clone()), (json!(1), json!(3)));
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["completed"], json!(1));
}

#[tokio::test]
async fn completing_twice_answers_the_same_and_freezes_the_answers() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let answer = json!({"answers": [{"questionId": "q1", "value": 4}]});
    progress(app.answer(code, &session, &token, &answer).await).await;
    let first = progress(app.complete(code, &session, &token).await).await;
    app.clock.advance(Duration::minutes(1));
    let second = progress(app.complete(code, &session, &token).await).await;
    assert_eq!(first, second);
    assert_eq!(first["status"], json!("COMPLETED"));

    for body in [answer, json!({"answers": [{"questionId": "q2", "value": "late"}]})] {
        let (status, error, _) = envelope(app.answer(code, &session, &token, &body).await).await;
        assert_eq!((status, error.as_str()), (409, "CONFLICT"));
    }
    assert_eq!(progress(app.complete(code, &session, &token).await).await, first, "nothing changed");
    assert_eq!(counts(&app, &partner.key.key, &campaign).await["completed"], json!(1));
}

#[tokio::test]
async fn the_session_language_follows_the_page_then_the_token_then_the_default() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let studio = app.studio_token(partner.business, &["campaign:view", "campaign:build"]).await;
    let (kid, secret) = app.launch_key(&studio, id_of(&campaign)).await;
    let exp = (app.now() + Duration::minutes(5)).unix_timestamp();
    let signed = |jti: &str, lang: Option<&str>| {
        let mut claims = json!({"campaign": code, "exp": exp, "jti": jti});
        if let Some(lang) = lang {
            claims["lang"] = json!(lang);
        }
        sign_launch_token(Some(&kid), &secret, &claims)
    };
    let cases = [
        (json!({"language": "fr"}), "fr"),
        (json!({"language": "FR"}), "fr"),
        (json!({"language": "de"}), "en"),
        (json!({}), "en"),
        (json!({"launchToken": signed("lang-token-1", Some("fr"))}), "fr"),
        (json!({"launchToken": signed("lang-token-2", Some("de"))}), "en"),
        (json!({"launchToken": signed("lang-token-3", None)}), "en"),
    ];
    for (body, expected) in cases {
        let started = app.started(code, &body).await;
        assert_eq!(started["language"], json!(expected), "{body}");
        let q1 = &campaign["survey"]["questions"][0]["texts"][expected];
        assert_eq!(&started["questions"][0]["text"], q1, "{body}");
    }
    let access: Value =
        app.access(code, &[("lt", &signed("lang-token-4", Some("fr")))]).await.json().await.expect("json");
    assert_eq!(access["language"], json!("fr"));
}

#[tokio::test]
async fn the_session_write_quota_is_429() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::SessionWrite, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (session, token) = session_of(&app.started(code, &json!({})).await);
    let body = json!({"answers": [{"questionId": "q1", "value": 3}]});
    progress(app.answer(code, &session, &token, &body).await).await;
    let response = app.complete(code, &session, &token).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, error, _) = envelope(response).await;
    assert_eq!((status, error.as_str()), (429, "RATE_LIMITED"));
    // Another session has its own count.
    let (other, other_token) = session_of(&app.started(code, &json!({})).await);
    progress(app.answer(code, &other, &other_token, &body).await).await;
}

#[tokio::test]
async fn a_start_replays_under_its_idempotency_key_only_with_a_launch_token() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let start_with_key = |body: Value, key: &'static str| {
        app.client
            .post(app.url(&format!("/api/v1/public/pulse/{code}/start")))
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };

    // With a token: a lost answer is fetched again, the same session, not a spent-token refusal.
    let link = app.minted(&partner.key.key, id_of(&campaign)).await;
    let body = json!({"consentGiven": true, "launchToken": link.lt});
    let first = start_with_key(body.clone(), "retry-1").await.expect("request");
    assert_eq!(first.status(), 201);
    let first: Value = first.json().await.expect("json");
    let again = start_with_key(body, "retry-1").await.expect("request");
    assert_eq!(again.status(), 200);
    assert_eq!(again.headers().get("idempotency-replayed").and_then(|v| v.to_str().ok()), Some("true"));
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["sessionId"], first["sessionId"]);

    // Without one, anyone could repeat the key and body: the key is ignored and nobody else's
    // session token is handed out.
    let anonymous = json!({"consentGiven": true});
    let one: Value = start_with_key(anonymous.clone(), "guessable").await.expect("request").json().await.expect("json");
    let other = start_with_key(anonymous, "guessable").await.expect("request");
    assert_eq!(other.status(), 201);
    assert!(other.headers().get("idempotency-replayed").is_none());
    let other: Value = other.json().await.expect("json");
    assert_ne!(other["sessionId"], one["sessionId"]);
    assert_ne!(other["sessionToken"], one["sessionToken"]);
}
