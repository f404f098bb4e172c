//! Proof of work at public start: an open campaign's starts need a solved ALTCHA challenge when
//! the campaign asks for one or its starts pass the operator's hourly rates.

use serde_json::{Value, json};
use time::Duration;

use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::{TestApp, envelope, spawn_app, spawn_app_with};

/// A launched open campaign that asks every open start for a solved challenge.
async fn asking_for_challenges(app: &TestApp, key: &str) -> Value {
    let body = json!({"brief": {"intentText": "How was your last delivery with us?",
        "constraints": {"questionCount": 3, "languages": ["en"]}}, "quality": {"requireChallenge": true}});
    let response = app.provision(key, &body).await;
    assert_eq!(response.status(), 201);
    let campaign: Value = response.json().await.expect("json");
    let id = id_of(&campaign["campaign"]).to_owned();
    assert_eq!(app.launch_campaign(key, &id).await.status(), 200);
    let read: Value = app.get_campaign(key, &id).await.json().await.expect("json");
    assert_eq!(read["quality"]["requireChallenge"], json!(true), "{read}");
    read
}

async fn started_count(app: &TestApp, key: &str, campaign: &Value) -> i64 {
    let body: Value = app.get_campaign(key, id_of(campaign)).await.json().await.expect("json");
    body["counts"]["started"].as_i64().expect("started")
}

/// The access check's challenge, from the network `forwarded` names when given.
async fn challenge_of(app: &TestApp, code: &str, forwarded: Option<&str>) -> Value {
    let mut request = app.client.get(app.url(&format!("/api/v1/public/pulse/{code}/access")));
    if let Some(client) = forwarded {
        request = request.header("X-Forwarded-For", client);
    }
    let response = request.send().await.expect("access");
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["challenge"].clone()
}

/// Solves it as a partner's native app does, with the partner crate.
fn solve(challenge: &Value) -> Value {
    pulse_partner::challenge::solve(challenge).expect("solved")
}

async fn start(app: &TestApp, code: &str, altcha: Option<&Value>, forwarded: Option<&str>) -> reqwest::Response {
    let mut body = json!({"consentGiven": true});
    if let Some(altcha) = altcha {
        body["altcha"] = altcha.clone();
    }
    let mut request = app.client.post(app.url(&format!("/api/v1/public/pulse/{code}/start"))).json(&body);
    if let Some(client) = forwarded {
        request = request.header("X-Forwarded-For", client);
    }
    request.send().await.expect("start")
}

async fn refused(response: reqwest::Response) -> String {
    let (status, code, description) = envelope(response).await;
    assert_eq!((status, code.as_str()), (403, "CHALLENGE_REQUIRED"), "{description}");
    description
}

#[tokio::test]
async fn a_flood_of_starts_without_solutions_is_refused_and_creates_nothing() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = asking_for_challenges(&app, &partner.key.key).await;
    let code = code_of(&campaign);
    let flood = (0..25).map(|_| start(&app, code, None, None));
    for response in futures_util::future::join_all(flood).await {
        let description = refused(response).await;
        assert!(description.contains("altcha"), "says what to send: {description}");
    }
    let garbage = json!({"challenge": {"parameters": {"algorithm": "PBKDF2/SHA-256", "cost": 1, "data": {"code": code},
        "expiresAt": 4_102_444_800_i64, "keyLength": 32, "keyPrefix": "00", "nonce": "00", "salt": "00"}, "signature": "00"},
        "solution": {"counter": 0, "derivedKey": "00"}});
    refused(start(&app, code, Some(&garbage), None).await).await;
    assert_eq!(started_count(&app, &partner.key.key, &campaign).await, 0);
}

#[tokio::test]
async fn a_solution_starts_once_and_an_expired_or_another_campaigns_is_refused() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let first = asking_for_challenges(&app, &partner.key.key).await;
    let second = asking_for_challenges(&app, &partner.key.key).await;
    let (first_code, second_code) = (code_of(&first), code_of(&second));

    let challenge = challenge_of(&app, first_code, None).await;
    assert_eq!(challenge["parameters"]["algorithm"], json!("PBKDF2/SHA-256"));
    assert_eq!(challenge["parameters"]["data"], json!({"code": first_code}));
    let solved = solve(&challenge);
    refused(start(&app, second_code, Some(&solved), None).await).await;
    assert_eq!(start(&app, first_code, Some(&solved), None).await.status(), 201);
    refused(start(&app, first_code, Some(&solved), None).await).await;
    // The same signature spelt in upper case is not a new challenge.
    let mut respelt = solved.clone();
    let upper = respelt["challenge"]["signature"].as_str().expect("signature").to_uppercase();
    respelt["challenge"]["signature"] = json!(upper);
    refused(start(&app, first_code, Some(&respelt), None).await).await;

    let late = solve(&challenge_of(&app, first_code, None).await);
    app.clock.advance(Duration::minutes(10));
    let description = refused(start(&app, first_code, Some(&late), None).await).await;
    assert!(description.contains("expired"), "{description}");
    assert_eq!(started_count(&app, &partner.key.key, &first).await, 1);
    assert_eq!(started_count(&app, &partner.key.key, &second).await, 0);
}

#[tokio::test]
async fn launch_links_start_without_a_challenge() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = asking_for_challenges(&app, &partner.key.key).await;
    let code = code_of(&campaign);
    let link = app.minted(&partner.key.key, id_of(&campaign)).await;
    let lt = link.lt.expect("an lt link");
    let access: Value = app.access(code, &[("lt", &lt)]).await.json().await.expect("json");
    assert_eq!((access["state"].as_str(), &access["challenge"]), (Some("VALID"), &Value::Null));
    let started = app.start(code, &json!({"consentGiven": true, "launchToken": lt})).await;
    assert_eq!(started.status(), 201);
}

/// Open starts from one network past the operator's rate need a challenge; other networks, as a
/// trusted proxy names them, do not until the campaign's own rate is passed.
#[tokio::test]
async fn open_starts_past_the_hourly_rates_need_a_challenge() {
    let app = spawn_app_with(|s| {
        s.trusted_proxies = vec!["127.0.0.0/8".parse().expect("a range")];
        s.challenges.network_starts_per_hour = Some(3);
        s.challenges.campaign_starts_per_hour = Some(6);
    })
    .await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let code = code_of(&campaign);
    let (crowded, quiet, third) = (Some("203.0.113.7"), Some("198.51.100.9"), Some("192.0.2.44"));

    for _ in 0..3 {
        assert_eq!(challenge_of(&app, code, crowded).await, Value::Null);
        assert_eq!(start(&app, code, None, crowded).await.status(), 201);
    }
    let challenge = challenge_of(&app, code, crowded).await;
    assert!(challenge.is_object(), "the fourth start from one network needs a challenge");
    for _ in 0..10 {
        refused(start(&app, code, None, crowded).await).await;
    }
    assert_eq!(started_count(&app, &partner.key.key, &campaign).await, 3, "the flood created nothing");
    assert_eq!(start(&app, code, Some(&solve(&challenge)), crowded).await.status(), 201);

    // The flood counted toward the campaign's rate too: past it, every network needs a challenge.
    assert!(challenge_of(&app, code, quiet).await.is_object());
    refused(start(&app, code, None, third).await).await;

    app.clock.advance(Duration::HOUR);
    assert_eq!(challenge_of(&app, code, crowded).await, Value::Null, "a new hour");
    assert_eq!(start(&app, code, None, quiet).await.status(), 201);
    assert_eq!(started_count(&app, &partner.key.key, &campaign).await, 5);
}
