//! `POST /campaigns` and `GET /campaigns/{id}`: provisioning, the generated survey, scopes,
//! tenancy, quotas and replays.

use std::collections::BTreeSet;

use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Value, json};

use crate::helpers::campaigns::{CAMPAIGN_SCOPES, id_of};
use crate::helpers::{envelope, spawn_app, spawn_app_with, unreachable_senders};

const INTENT: &str = "How was your last delivery with us?";

/// A brief-based provision body with `constraints`.
fn brief_with(constraints: Value) -> Value {
    json!({"brief": {"intentText": INTENT, "constraints": constraints}})
}

/// A brief-based provision body with `extra` top-level properties.
fn plus(extra: Value) -> Value {
    let mut body = json!({"brief": {"intentText": INTENT}});
    if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
        body.extend(extra.clone());
    }
    body
}

async fn created(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["created"], json!(true));
    body["campaign"].clone()
}

/// Every text of every question, in every language.
fn texts(campaign: &Value) -> Vec<String> {
    campaign["survey"]["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .flat_map(|q| q["texts"].as_object().expect("texts").values())
        .map(|t| t.as_str().expect("text").to_owned())
        .collect()
}

#[tokio::test]
async fn provisioning_answers_201_with_a_draft_campaign_and_its_survey() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let response = app.provision(&partner.key.key, &brief_with(json!({"questionCount": 4, "languages": ["en"]}))).await;
    assert_eq!(response.status(), 201);
    assert!(response.headers().get("idempotency-replayed").is_none());
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["created"], json!(true));
    let campaign = &body["campaign"];
    assert!(id_of(campaign).parse::<uuid::Uuid>().is_ok());
    let code = campaign["code"].as_str().expect("code");
    assert!(!code.is_empty() && code.chars().all(|c| c.is_ascii_alphanumeric()), "{code}");
    assert_eq!(campaign["status"], json!("DRAFT"));
    assert_eq!(campaign["audience"], json!("OPEN"));
    assert_eq!(campaign["workspaceId"], json!(partner.workspace.to_string()));
    assert_eq!(campaign["publicUrl"], json!(format!("{}/p/{code}", app.settings.survey_url)));
    assert_eq!(campaign["readiness"], json!({"launchReady": true, "blockers": []}));
    assert_eq!(
        campaign["counts"],
        json!({"invited": 0, "responded": 0, "started": 0, "completed": 0, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );
    assert_eq!(campaign["survey"]["languages"], json!(["en"]));
    assert_eq!(campaign["survey"]["defaultLanguage"], json!("en"));
    assert_eq!(campaign["survey"]["questions"].as_array().map(Vec::len), Some(4));
    assert!(campaign["createdAt"].as_str().is_some_and(|s| s.starts_with("2026-03-02T10:00:00")));

    // GET shows the same campaign.
    let read = app.get_campaign(&partner.key.key, id_of(campaign)).await;
    assert_eq!(read.status(), 200);
    let read: Value = read.json().await.expect("json");
    assert_eq!(&read, campaign);
}

#[tokio::test]
async fn every_field_rule_is_enforced_naming_the_field_and_creates_nothing() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let languages: Vec<&str> = vec![
        "en", "fr", "de", "es", "pt", "hi", "it", "nl", "ja", "ko", "zh", "ru", "ar", "sv", "da", "fi", "pl", "cs",
        "tr", "el", "he",
    ];
    assert_eq!(languages.len(), 21);
    let topics: Vec<String> = (0..51).map(|i| format!("topic{i}")).collect();
    let cases = [
        (json!({"brief": {"intentText": "123456789"}}), "brief.intentText"),
        (json!({"brief": {"intentText": "x".repeat(4001)}}), "brief.intentText"),
        (brief_with(json!({"questionCount": 0})), "brief.constraints.questionCount"),
        (brief_with(json!({"questionCount": 51})), "brief.constraints.questionCount"),
        (brief_with(json!({"languages": languages})), "brief.constraints.languages"),
        (brief_with(json!({"languages": ["en", "xx"]})), "brief.constraints.languages"),
        (brief_with(json!({"tone": "t".repeat(121)})), "brief.constraints.tone"),
        (brief_with(json!({"bannedTopics": topics})), "brief.constraints.bannedTopics"),
        (plus(json!({"name": "n".repeat(121)})), "name"),
        (plus(json!({"quality": {"targetCount": 0}})), "quality.targetCount"),
        (plus(json!({"quality": {"maxResponses": 0}})), "quality.maxResponses"),
        (plus(json!({"quality": {"minDurationSecs": -1}})), "quality.minDurationSecs"),
        (plus(json!({"quality": {"minCoverageRatio": -0.1}})), "quality.minCoverageRatio"),
        (plus(json!({"quality": {"minCoverageRatio": 1.01}})), "quality.minCoverageRatio"),
        (plus(json!({"quality": {"minAnswerWords": -1}})), "quality.minAnswerWords"),
        (plus(json!({"delivery": {"reminderCount": 5}})), "delivery.reminderCount"),
        (plus(json!({"delivery": {"audioRetentionDays": 0}})), "delivery.audioRetentionDays"),
        (plus(json!({"delivery": {"audioRetentionDays": 91}})), "delivery.audioRetentionDays"),
        (plus(json!({"delivery": {"channels": ["FAX"]}})), "delivery.channels"),
        (plus(json!({"order": {"quotedPriceInr": -1}})), "order.quotedPriceInr"),
        (plus(json!({"order": {"acceptedResponsesCommitted": 0}})), "order.acceptedResponsesCommitted"),
        (json!({"name": "Neither brief nor survey"}), "brief"),
        (plus(json!({"surveyId": uuid::Uuid::new_v4()})), "brief"),
        (plus(json!({"extra": true})), "extra"),
    ];
    for (body, field) in cases {
        let (status, code, description) = envelope(app.provision(&partner.key.key, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{field}");
        assert!(description.contains(&format!("`{field}")), "{field}: {description}");
    }
    let (_, _, neither) = envelope(app.provision(&partner.key.key, &json!({"name": "n"})).await).await;
    assert!(neither.contains("surveyId"), "{neither}");
    let (_, _, both) =
        envelope(app.provision(&partner.key.key, &plus(json!({"surveyId": uuid::Uuid::new_v4()}))).await).await;
    assert!(both.contains("surveyId") && both.contains("both"), "{both}");
    assert_eq!(app.count_rows("campaigns").await, 0, "no refused call created a campaign");
    assert_eq!(app.count_rows("surveys").await, 0, "no refused call created a survey");

    // The limits themselves are allowed.
    let topics: Vec<String> = (0..50).map(|i| format!("zqx{i}")).collect();
    let low = json!({
        "brief": {"intentText": "abcdefghij", "constraints": {"questionCount": 1, "tone": "t".repeat(120), "bannedTopics": topics}},
        "name": "n".repeat(120),
        "quality": {"targetCount": 1, "maxResponses": 1, "minDurationSecs": 0, "minCoverageRatio": 0, "minAnswerWords": 0},
        "delivery": {"reminderCount": 0, "audioRetentionDays": 1, "greetByName": true},
        "order": {"packageType": "starter", "quotedPriceInr": 0, "acceptedResponsesCommitted": 1},
    });
    let low = created(app.provision(&partner.key.key, &low).await).await;
    assert_eq!(low["name"], json!("n".repeat(120)));
    assert_eq!(low["survey"]["questions"].as_array().map(Vec::len), Some(1));
    // The terms come back as sent, in the shapes the document gives them; an unset one is left out.
    assert_eq!(
        low["quality"],
        json!({"targetCount": 1, "maxResponses": 1, "minDurationSecs": 0, "minCoverageRatio": 0.0, "minAnswerWords": 0})
    );
    assert_eq!(low["delivery"], json!({"reminderCount": 0, "audioRetentionDays": 1, "greetByName": true}));
    assert_eq!(low["order"], json!({"packageType": "starter", "quotedPriceInr": 0, "acceptedResponsesCommitted": 1}));
    let high = json!({
        "brief": {"intentText": "x".repeat(4000), "constraints": {"questionCount": 50}},
        "quality": {"minCoverageRatio": 1},
        "delivery": {"reminderCount": 4, "audioRetentionDays": 90, "channels": ["EMAIL", "WHATSAPP", "SMS", "TELEPHONY"]},
    });
    let high = created(app.provision(&partner.key.key, &high).await).await;
    assert_eq!(high["survey"]["questions"].as_array().map(Vec::len), Some(50));
    assert_eq!(high["quality"], json!({"minCoverageRatio": 1.0}));
    assert_eq!(
        high["delivery"],
        json!({"channels": ["EMAIL", "SMS", "TELEPHONY", "WHATSAPP"], "reminderCount": 4, "audioRetentionDays": 90})
    );
    assert_eq!(high["order"], json!({}));
    assert_eq!(app.count_rows("campaigns").await, 2);
}

#[tokio::test]
async fn the_generated_survey_honours_count_and_languages() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let languages = ["en", "hi", "fr", "es", "de", "pt"];
    let campaign = created(
        app.provision(&partner.key.key, &brief_with(json!({"questionCount": 7, "languages": languages}))).await,
    )
    .await;
    let survey = &campaign["survey"];
    assert_eq!(survey["languages"], json!(languages));
    assert_eq!(survey["defaultLanguage"], json!("en"));
    let questions = survey["questions"].as_array().expect("questions");
    assert_eq!(questions.len(), 7);
    let ids: Vec<&str> = questions.iter().filter_map(|q| q["id"].as_str()).collect();
    assert_eq!(ids, ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]);

    let first = &questions[0];
    assert_eq!(first["type"], json!("rating"));
    assert_eq!(first["required"], json!(true));
    assert_eq!(first["scale"], json!({"min": 1, "max": 5}));

    let wanted: BTreeSet<&str> = languages.into_iter().collect();
    for question in questions {
        match question["type"].as_str() {
            Some("rating") => assert!(question["scale"]["min"].is_i64() && question["scale"]["max"].is_i64()),
            Some("text") => assert_eq!(question["scale"], Value::Null),
            other => panic!("unexpected question type {other:?}"),
        }
        let texts = question["texts"].as_object().expect("texts");
        let present: BTreeSet<&str> = texts.keys().map(String::as_str).collect();
        assert_eq!(present, wanted, "{question}");
        let distinct: BTreeSet<&str> = texts.values().filter_map(Value::as_str).collect();
        assert_eq!(distinct.len(), languages.len(), "each language has its own text: {question}");
        assert!(distinct.iter().all(|t| !t.trim().is_empty()));
        let hindi = texts["hi"].as_str().expect("hi");
        assert!(hindi.chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c)), "Devanagari: {hindi}");
        assert!(!texts["en"].as_str().expect("en").chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c)));
    }
    let all = texts(&campaign);
    assert_eq!(all.iter().collect::<BTreeSet<_>>().len(), all.len(), "no text repeats");
}

#[tokio::test]
async fn banned_topics_appear_in_no_question_in_any_language() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let banned = ["service", "staff", "pricing"];
    let constraints = json!({"questionCount": 12, "languages": ["en", "fr", "es"]});
    let free = created(app.provision(&partner.key.key, &brief_with(constraints.clone())).await).await;
    let free_texts: Vec<String> = texts(&free).iter().map(|t| t.to_lowercase()).collect();
    for word in banned {
        assert!(free_texts.iter().any(|t| t.contains(word)), "without a ban some question mentions {word}");
    }

    let mut constraints = constraints;
    constraints["bannedTopics"] = json!(["SERVICE", "Staff", "pricing"]);
    let campaign = created(app.provision(&partner.key.key, &brief_with(constraints)).await).await;
    assert_eq!(campaign["survey"]["questions"].as_array().map(Vec::len), Some(12));
    assert_eq!(campaign["survey"]["questions"][0]["scale"], json!({"min": 1, "max": 5}));
    for text in texts(&campaign) {
        let lower = text.to_lowercase();
        for word in banned {
            assert!(!lower.contains(word), "`{text}` mentions the banned topic {word}");
        }
    }
}

#[tokio::test]
async fn a_survey_is_reused_by_id_within_its_workspace_only() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let first = app.provisioned(&partner.key.key).await;
    let survey_id = first["survey"]["id"].as_str().expect("survey id").to_owned();

    let again = created(app.provision(&partner.key.key, &json!({"surveyId": survey_id, "name": "Wave 2"})).await).await;
    assert_ne!(again["id"], first["id"]);
    assert_ne!(again["code"], first["code"]);
    assert_eq!(again["name"], json!("Wave 2"));
    assert_eq!(again["survey"], first["survey"]);
    assert_eq!(app.count_rows("surveys").await, 1, "the survey was reused, not copied");
    let (status, code, _) =
        envelope(app.provision(&partner.key.key, &json!({"surveyId": uuid::Uuid::new_v4()})).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));

    // Another workspace of the same key, and another business, do not see it.
    let other_workspace = app.workspace(&partner.key.key, "client-2").await;
    let response = app
        .client
        .post(app.url("/api/v1/channel/campaigns"))
        .bearer_auth(&partner.key.key)
        .header("X-SVC-Workspace", other_workspace.to_string())
        .json(&json!({"surveyId": survey_id}))
        .send()
        .await
        .expect("request");
    let (status, code, _) = envelope(response).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));
    let stranger = app.campaign_partner().await;
    let (status, code, _) = envelope(app.provision(&stranger.key.key, &json!({"surveyId": survey_id})).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));
    assert_eq!(app.count_rows("campaigns").await, 2);
}

#[tokio::test]
async fn provisioning_needs_the_provision_scope() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let scopes: Vec<&str> = CAMPAIGN_SCOPES.iter().copied().filter(|s| *s != "channel:provision").collect();
    let without = app.create_key_with(Some(partner.business), &scopes, &[partner.workspace], None).await;
    let (status, code, description) = envelope(app.provision(&without.key, &brief_with(json!({}))).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:provision"), "{description}");
    assert_eq!(app.count_rows("campaigns").await, 0);
}

#[tokio::test]
async fn reading_needs_provision_or_results() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);

    let reader = app.create_key_with(Some(partner.business), &["channel:results"], &[partner.workspace], None).await;
    let response = app.get_campaign(&reader.key, id).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["id"], campaign["id"]);

    let provisioner =
        app.create_key_with(Some(partner.business), &["channel:provision"], &[partner.workspace], None).await;
    assert_eq!(app.get_campaign(&provisioner.key, id).await.status(), 200);

    let neither = app
        .create_key_with(Some(partner.business), &["channel:audience", "sessions:launch"], &[partner.workspace], None)
        .await;
    let (status, code, description) = envelope(app.get_campaign(&neither.key, id).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:results") && description.contains("channel:provision"), "{description}");

    let response = app.client.get(app.url(&format!("/api/v1/channel/campaigns/{id}"))).send().await.expect("request");
    let (status, code, _) = envelope(response).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
}

#[tokio::test]
async fn another_tenants_campaign_is_404_exactly_like_an_unknown_one() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let stranger = app.campaign_partner().await;

    let foreign = envelope(app.get_campaign(&stranger.key.key, id_of(&campaign)).await).await;
    let unknown = envelope(app.get_campaign(&stranger.key.key, &uuid::Uuid::new_v4().to_string()).await).await;
    assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));
    assert_eq!(foreign, unknown, "nothing tells a foreign campaign from an unknown one");

    // Also within one business: a campaign of another workspace is not found through this one.
    let sibling = app.workspace(&partner.key.key, "client-2").await;
    let response = app
        .client
        .get(app.url(&format!("/api/v1/channel/campaigns/{}", id_of(&campaign))))
        .bearer_auth(&partner.key.key)
        .header("X-SVC-Workspace", sibling.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(envelope(response).await, foreign);

    // An id that is not a uuid names no campaign either.
    assert_eq!(envelope(app.get_campaign(&partner.key.key, "not-a-uuid").await).await, foreign);
}

#[tokio::test]
async fn a_key_reaching_two_workspaces_must_name_one() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let second = app.workspace(&partner.key.key, "client-2").await;
    let body = brief_with(json!({"questionCount": 2}));

    let (status, code, _) = envelope(app.provision(&partner.key.key, &body).await).await;
    assert_eq!((status, code.as_str()), (400, "WORKSPACE_REQUIRED"));
    assert_eq!(app.count_rows("campaigns").await, 0);

    let response = app
        .client
        .post(app.url("/api/v1/channel/campaigns"))
        .bearer_auth(&partner.key.key)
        .header("X-SVC-Workspace", second.to_string())
        .json(&body)
        .send()
        .await
        .expect("request");
    let campaign = created(response).await;
    assert_eq!(campaign["workspaceId"], json!(second.to_string()));
    // Not approved yet: the readiness says so.
    assert_eq!(campaign["readiness"]["launchReady"], json!(false));

    let (status, code, _) = envelope(app.get_campaign(&partner.key.key, id_of(&campaign)).await).await;
    assert_eq!((status, code.as_str()), (400, "WORKSPACE_REQUIRED"));
    let read = app
        .client
        .get(app.url(&format!("/api/v1/channel/campaigns/{}", id_of(&campaign))))
        .bearer_auth(&partner.key.key)
        .header("X-SVC-Workspace", second.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(read.status(), 200);
}

#[tokio::test]
async fn the_provision_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::Provision, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let refused = app.provision(&partner.key.key, &brief_with(json!({}))).await;
    let retry_after = refused.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(retry_after.as_deref(), Some("3600"), "the hour started with the test clock");
    let (status, code, description) = envelope(refused).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("provision"), "{description}");
    assert_eq!(app.count_rows("campaigns").await, 1);

    // Reads have their own quota, and other keys their own count.
    assert_eq!(app.get_campaign(&partner.key.key, id_of(&campaign)).await.status(), 200);
    let other = app.campaign_partner().await;
    assert_eq!(app.provision(&other.key.key, &brief_with(json!({}))).await.status(), 201, "quotas are per key");
}

#[tokio::test]
async fn an_idempotent_replay_answers_200_with_the_same_campaign() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let body = brief_with(json!({"questionCount": 3}));
    let send = |key: &'static str, body: Value| {
        app.client
            .post(app.url("/api/v1/channel/campaigns"))
            .bearer_auth(&partner.key.key)
            .header("Idempotency-Key", key)
            .json(&body)
            .send()
    };
    let first = send("prov-1", body.clone()).await.expect("first");
    let first = created(first).await;

    let replay = send("prov-1", body.clone()).await.expect("replay");
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.headers().get("idempotency-replayed").map(|v| v.as_bytes()), Some(&b"true"[..]));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay["created"], json!(false));
    assert_eq!(replay["campaign"]["id"], first["id"]);
    assert_eq!(replay["campaign"], first);
    assert_eq!(app.count_rows("campaigns").await, 1);

    let (status, code, _) = envelope(send("prov-1", brief_with(json!({"questionCount": 4}))).await.expect("r")).await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
    assert_eq!(created(send("prov-2", body).await.expect("other key")).await["survey"]["questions"][0]["id"], "q1");
    assert_eq!(app.count_rows("campaigns").await, 2);
}

#[tokio::test]
async fn reading_shows_readiness_blockers_and_counts() {
    let app = spawn_app_with(unreachable_senders).await;
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &CAMPAIGN_SCOPES).await;
    let workspace = app.workspace(&key.key, "pending").await;
    let body = plus(json!({"delivery": {"channels": ["EMAIL", "SMS"]}}));
    let campaign = created(app.provision(&key.key, &body).await).await;
    let id = id_of(&campaign);

    let read: Value = app.get_campaign(&key.key, id).await.json().await.expect("json");
    assert_eq!(read["readiness"]["launchReady"], json!(false));
    let codes: Vec<&str> =
        read["readiness"]["blockers"].as_array().expect("blockers").iter().filter_map(|b| b["code"].as_str()).collect();
    assert_eq!(codes, ["WORKSPACE_NOT_APPROVED", "NO_EMAIL_RECIPIENTS", "NO_PHONE_RECIPIENTS"]);
    assert!(
        read["readiness"]["blockers"]
            .as_array()
            .expect("blockers")
            .iter()
            .all(|b| b["description"].as_str().is_some_and(|d| !d.is_empty()))
    );
    assert_eq!(
        read["counts"],
        json!({"invited": 0, "responded": 0, "started": 0, "completed": 0, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );

    let rows = json!({"rows": [
        {"externalRef": "r1", "email": "first.person@example.com"},
        {"externalRef": "r2", "phone": "+91 98765 43210"},
        {"externalRef": "r3"},
    ]});
    assert_eq!(app.attach_respondents(&key.key, id, &rows).await.status(), 200);
    app.approve_workspace(workspace).await;
    let read: Value = app.get_campaign(&key.key, id).await.json().await.expect("json");
    assert_eq!(read["readiness"], json!({"launchReady": true, "blockers": []}));
    assert_eq!(
        read["counts"],
        json!({"invited": 3, "responded": 0, "started": 0, "completed": 0, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );
    assert_eq!(read["audience"], json!("CLOSED"), "respondents attached before launch close the audience");
}

#[tokio::test]
async fn an_idempotency_key_replays_only_into_the_same_workspace() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let second = app.workspace(&partner.key.key, "client-2").await;
    let body = brief_with(json!({"questionCount": 2}));
    let send = |workspace: String| {
        app.client
            .post(app.url("/api/v1/channel/campaigns"))
            .bearer_auth(&partner.key.key)
            .header("Idempotency-Key", "prov-ws")
            .header("X-SVC-Workspace", workspace)
            .json(&body)
            .send()
    };
    let first = created(send(partner.workspace.to_string()).await.expect("first")).await;
    assert_eq!(first["workspaceId"], json!(partner.workspace.to_string()));

    // The same key and body for another workspace is another request, never a replay of the first
    // workspace's campaign.
    let (status, code, _) = envelope(send(second.to_string()).await.expect("other workspace")).await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
    assert_eq!(app.count_rows("campaigns").await, 1);
    let replay = send(partner.workspace.to_string()).await.expect("replay");
    assert_eq!(replay.status(), 200);
    assert_eq!(replay.json::<Value>().await.expect("json")["campaign"], first);
}
