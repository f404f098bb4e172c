//! `POST /campaigns/{id}/respondents`: respondents by the partner's reference, their invitation
//! links, and contact details that never come back.

use std::collections::BTreeSet;

use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::models::QuotaPolicy;
use serde_json::{Value, json};

use crate::helpers::campaigns::{CAMPAIGN_SCOPES, Link, code_of, id_of};
use crate::helpers::{captured_logs, envelope, spawn_app, spawn_app_with, unreachable_senders};

async fn attached(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(response.status(), 200);
    let cache = response.headers().get("cache-control").and_then(|v| v.to_str().ok());
    assert_eq!(cache, Some("no-store"), "invitation links are credentials");
    let body: Value = response.json().await.expect("json");
    body["rows"].as_array().expect("rows").clone()
}

async fn invited(app: &crate::helpers::TestApp, key: &str, id: &str) -> Value {
    let body: Value = app.get_campaign(key, id).await.json().await.expect("json");
    body["counts"]["invited"].clone()
}

#[tokio::test]
async fn attaching_answers_one_outcome_per_row_with_an_invitation_link() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let rows = json!({"rows": [
        {"externalRef": "crm-1", "name": "Ada", "email": "ada@example.com"},
        {"externalRef": "crm-2", "phone": "+91 98765 43210"},
        {"externalRef": "crm-3"},
    ]});
    let outcomes = attached(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows).await).await;
    assert_eq!(outcomes.len(), 3);
    let mut nonces = BTreeSet::new();
    for (i, outcome) in outcomes.iter().enumerate() {
        assert_eq!(outcome["index"], json!(i));
        assert_eq!(outcome["externalRef"], json!(format!("crm-{}", i + 1)));
        assert_eq!(outcome["outcome"], json!("CREATED"));
        assert_eq!(outcome["responded"], json!(false));
        assert!(outcome["respondentId"].as_str().is_some_and(|id| id.parse::<uuid::Uuid>().is_ok()));
        let link = Link::parse(outcome["invitationUrl"].as_str().expect("invitation url"));
        assert!(link.path.starts_with(&format!("/s/{}/", code_of(&campaign))), "{link:?}");
        let nonce = link.nonce().expect("nonce");
        assert!(nonce.len() >= 16 && nonce.chars().all(|c| c.is_ascii_alphanumeric()), "{nonce}");
        nonces.insert(nonce.to_owned());
    }
    assert_eq!(nonces.len(), 3, "every respondent has an own invitation");
    assert_eq!(invited(&app, &partner.key.key, id_of(&campaign)).await, json!(3));
}

#[tokio::test]
async fn sending_a_ref_again_updates_the_same_respondent_and_keeps_its_link() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let first = attached(
        app.attach_respondents(
            &partner.key.key,
            id,
            &json!({"rows": [{"externalRef": "a", "email": "a@example.com"}, {"externalRef": "b"}]}),
        )
        .await,
    )
    .await;

    let again = attached(
        app.attach_respondents(
            &partner.key.key,
            id,
            &json!({"rows": [{"externalRef": "c"}, {"externalRef": "a", "email": "new@example.com", "name": "A"}]}),
        )
        .await,
    )
    .await;
    assert_eq!(again[0]["outcome"], json!("CREATED"));
    assert_eq!(again[1]["index"], json!(1));
    assert_eq!(again[1]["outcome"], json!("UPDATED"));
    assert_eq!(again[1]["respondentId"], first[0]["respondentId"]);
    assert_eq!(again[1]["invitationUrl"], first[0]["invitationUrl"]);
    assert_eq!(invited(&app, &partner.key.key, id).await, json!(3), "an update adds nobody");

    let same =
        attached(app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "b"}]})).await).await;
    assert_eq!(same[0]["outcome"], json!("UPDATED"));
    assert_eq!(same[0]["invitationUrl"], first[1]["invitationUrl"]);
    assert_eq!(invited(&app, &partner.key.key, id).await, json!(3));
}

#[tokio::test]
async fn more_than_1000_rows_is_400_naming_rows() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let rows = |n: usize| json!({"rows": (0..n).map(|i| json!({"externalRef": format!("r{i}")})).collect::<Vec<_>>()});
    let (status, code, description) =
        envelope(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows(1001)).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("`rows`") && description.contains("1000"), "{description}");
    let (status, code, description) =
        envelope(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows(0)).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("`rows`"), "{description}");
    assert_eq!(invited(&app, &partner.key.key, id_of(&campaign)).await, json!(0));

    let outcomes = attached(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows(1000)).await).await;
    assert_eq!(outcomes.len(), 1000, "the limit itself is allowed");
    assert_eq!(invited(&app, &partner.key.key, id_of(&campaign)).await, json!(1000));
}

#[tokio::test]
async fn one_bad_row_refuses_the_call_naming_it_and_stores_nothing() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let good = json!({"externalRef": "good", "name": "Grace", "email": "grace@example.com"});
    let cases = [
        (json!({"externalRef": "bad", "email": "not-an-email@nowhere"}), "rows[1].email"),
        (json!({"externalRef": "bad", "email": "two words@example.com"}), "rows[1].email"),
        (json!({"externalRef": ""}), "rows[1].externalRef"),
        (json!({"externalRef": "r".repeat(201)}), "rows[1].externalRef"),
        (json!({"externalRef": "good"}), "rows[1].externalRef"),
        (json!({"externalRef": "bad", "name": "n".repeat(201)}), "rows[1].name"),
        (json!({"externalRef": "bad", "phone": "1".repeat(33)}), "rows[1].phone"),
        (json!({"externalRef": "bad", "phone": "call me"}), "rows[1].phone"),
        (json!({"name": "no ref"}), "rows[1]"),
        (json!({"externalRef": "bad", "age": 40}), "rows[1]"),
    ];
    for (row, field) in cases {
        let response = app.attach_respondents(&partner.key.key, id, &json!({"rows": [good, row]})).await;
        let (status, code, description) = envelope(response).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{row}");
        assert!(description.contains(field), "{field}: {description}");
        assert!(!description.contains("nowhere") && !description.contains("two words"), "{description}");
    }
    let read: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(read["counts"]["invited"], json!(0), "no row of a refused call was stored");
    assert_eq!(read["audience"], json!("OPEN"), "a refused call does not close the audience");
    assert_eq!(app.count_rows("respondents").await, 0);

    let limits = json!({"externalRef": "r".repeat(200), "name": "n".repeat(200), "phone": "+1 (555) 010-0000"});
    let outcomes = attached(app.attach_respondents(&partner.key.key, id, &json!({"rows": [good, limits]})).await).await;
    assert_eq!(outcomes[0]["outcome"], json!("CREATED"), "the good row was not stored before");
    assert_eq!(outcomes[1]["outcome"], json!("CREATED"));
}

#[tokio::test]
async fn attaching_needs_the_audience_scope() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let scopes: Vec<&str> = CAMPAIGN_SCOPES.iter().copied().filter(|s| *s != "channel:audience").collect();
    let without = app.create_key_with(Some(partner.business), &scopes, &[partner.workspace], None).await;
    let rows = json!({"rows": [{"externalRef": "a"}]});
    let (status, code, description) =
        envelope(app.attach_respondents(&without.key, id_of(&campaign), &rows).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:audience"), "{description}");
    assert_eq!(invited(&app, &partner.key.key, id_of(&campaign)).await, json!(0));
}

#[tokio::test]
async fn unknown_and_foreign_campaigns_are_404() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let stranger = app.campaign_partner().await;
    let theirs = app.provisioned(&stranger.key.key).await;
    let rows = json!({"rows": [{"externalRef": "a", "email": "a@example.com"}]});
    let foreign = envelope(app.attach_respondents(&partner.key.key, id_of(&theirs), &rows).await).await;
    assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));
    let unknown =
        envelope(app.attach_respondents(&partner.key.key, &uuid::Uuid::new_v4().to_string(), &rows).await).await;
    assert_eq!(foreign, unknown);
    assert_eq!(invited(&app, &stranger.key.key, id_of(&theirs)).await, json!(0));
}

#[tokio::test]
async fn the_audience_quota_is_429_with_retry_after() {
    let app = spawn_app_with(|s| s.quotas = QuotaPolicy::default().with_hourly(QuotaFamily::Audience, 1)).await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    attached(app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "a"}]})).await).await;
    let refused = app.attach_respondents(&partner.key.key, id, &json!({"rows": [{"externalRef": "b"}]})).await;
    assert!(refused.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(refused).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("audience"), "{description}");
    assert_eq!(invited(&app, &partner.key.key, id).await, json!(1));
}

#[tokio::test]
async fn contact_details_never_reach_a_response_a_log_line_or_a_clear_column() {
    let app = spawn_app_with(unreachable_senders).await;
    let partner = app.campaign_partner().await;
    let name = "Quintessa Marlowe-Zed";
    let email = "quintessa.marlowe@example.org";
    let phone = "+44 7700 900461";
    let personal = [name, email, phone, "7700 900461", "7700900461", "quintessa"];

    let mut bodies = Vec::new();
    let response = app
        .provision(
            &partner.key.key,
            &json!({"brief": {"intentText": "How was your last delivery with us?",
        "constraints": {"languages": ["en", "fr"]}}, "delivery": {"channels": ["EMAIL"], "greetByName": true}}),
        )
        .await;
    let campaign: Value = response.json().await.expect("json");
    bodies.push(campaign.to_string());
    let campaign = campaign["campaign"].clone();
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let rows = json!({"rows": [{"externalRef": "p-1", "name": name, "email": email, "phone": phone}]});
    let first = app.attach_respondents(&partner.key.key, id, &rows).await;
    assert_eq!(first.status(), 200);
    let first = first.text().await.expect("body");
    let outcome: Value = serde_json::from_str(&first).expect("json");
    bodies.push(first);
    bodies.push(app.attach_respondents(&partner.key.key, id, &rows).await.text().await.expect("body"));
    // A refused call that carries them too.
    let bad = json!({"rows": [{"externalRef": "p-2", "name": name, "email": email, "phone": "x"}]});
    bodies.push(app.attach_respondents(&partner.key.key, id, &bad).await.text().await.expect("body"));
    bodies.push(app.get_campaign(&partner.key.key, id).await.text().await.expect("body"));
    let launched = app.launch_campaign(&partner.key.key, id).await;
    assert_eq!(launched.status(), 200);
    bodies.push(launched.text().await.expect("body"));
    let link = Link::parse(outcome["rows"][0]["invitationUrl"].as_str().expect("url"));
    let nonce = link.nonce().expect("nonce");
    let access = app.access(code, &[("invitation", nonce)]).await;
    assert_eq!(access.status(), 200);
    bodies.push(access.text().await.expect("body"));
    let start = app.start(code, &json!({"consentGiven": true, "invitation": nonce})).await;
    assert_eq!(start.status(), 201);
    bodies.push(start.text().await.expect("body"));
    bodies.push(app.get_campaign(&partner.key.key, id).await.text().await.expect("body"));

    for body in &bodies {
        for value in personal {
            assert!(!body.to_lowercase().contains(&value.to_lowercase()), "a response carried `{value}`: {body}");
        }
    }
    let logs = captured_logs();
    assert!(logs.contains("request finished"), "the capture works");
    for value in personal {
        assert!(!logs.to_lowercase().contains(&value.to_lowercase()), "a log line carried `{value}`");
        assert_eq!(app.tables_holding(value).await, Vec::<String>::new(), "`{value}` is stored in clear");
    }
    assert_eq!(app.tables_holding("p-1").await, Vec::<String>::new(), "the reference is stored in clear");
    assert!(app.tables_holding(code).await.contains(&"campaigns".to_owned()), "the scan finds what is in clear");
}

#[tokio::test]
async fn a_reference_is_kept_as_a_digest_and_sealed_and_still_finds_its_respondent() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let other = app.provisioned(&partner.key.key).await;
    // Partners use emails as references although they should not: they are not stored in clear.
    let reference = "ref.holder@example.net";
    let rows = json!({"rows": [{"externalRef": reference, "name": "Ref Holder"}]});
    let first = attached(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows).await).await;
    assert_eq!(first[0]["externalRef"], json!(reference), "the answer names the row as sent");
    assert_eq!(app.tables_holding(reference).await, Vec::<String>::new(), "the reference is stored in clear");
    assert_eq!(app.tables_holding("ref.holder").await, Vec::<String>::new());
    assert_eq!(app.count_where("respondents WHERE external_ref IS NOT NULL OR ref_digest IS NULL").await, 0);

    let again = attached(app.attach_respondents(&partner.key.key, id_of(&campaign), &rows).await).await;
    assert_eq!(again[0]["outcome"], json!("UPDATED"), "the digest finds the respondent again");
    assert_eq!(again[0]["respondentId"], first[0]["respondentId"]);
    assert_eq!(again[0]["invitationUrl"], first[0]["invitationUrl"]);
    let twice = json!({"rows": [{"externalRef": reference}, {"externalRef": reference}]});
    let (status, code, description) =
        envelope(app.attach_respondents(&partner.key.key, id_of(&campaign), &twice).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("rows[1].externalRef") && !description.contains(reference), "{description}");

    // The same reference in another campaign is another respondent, under an unrelated digest.
    let elsewhere = attached(app.attach_respondents(&partner.key.key, id_of(&other), &rows).await).await;
    assert_eq!(elsewhere[0]["outcome"], json!("CREATED"));
    assert_eq!(app.count_where("(SELECT DISTINCT ref_digest FROM respondents) AS d").await, 2);
    assert_eq!(invited(&app, &partner.key.key, id_of(&campaign)).await, json!(1));
}

#[tokio::test]
async fn references_stored_in_clear_before_are_digested_and_sealed_at_start() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let rows = json!({"rows": [
        {"externalRef": "legacy-1", "name": "Old One", "email": "old.one@example.com"},
        {"externalRef": "legacy-2"},
        {"externalRef": "kept-3"},
    ]});
    let first = attached(app.attach_respondents(&partner.key.key, id, &rows).await).await;
    // Rows as the version before wrote them: the reference in clear, the sealed fields bound to it.
    for row in &first[..2] {
        app.execute_sql(&format!(
            "UPDATE respondents SET external_ref = '{}', ref_digest = NULL, ref_sealed = NULL WHERE id = '{}'",
            row["externalRef"].as_str().expect("ref"),
            row["respondentId"].as_str().expect("id"),
        ))
        .await;
    }
    assert_eq!(app.count_where("respondents WHERE external_ref IS NOT NULL").await, 2, "staged");

    // A replica converts them when it starts (and every five minutes after).
    let _replica = app.second_instance();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while app.count_where("respondents WHERE external_ref IS NOT NULL").await > 0 {
        assert!(std::time::Instant::now() < deadline, "the references were not converted");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(app.tables_holding("legacy-").await, Vec::<String>::new(), "a reference is still in clear");
    assert_eq!(app.count_where("respondents WHERE ref_digest IS NULL OR ref_sealed IS NULL").await, 0);

    // The partner sees nothing change: the same references find the same respondents and links.
    let again = attached(app.attach_respondents(&partner.key.key, id, &rows).await).await;
    for (before, after) in first.iter().zip(&again) {
        assert_eq!(after["outcome"], json!("UPDATED"), "{after}");
        assert_eq!(after["respondentId"], before["respondentId"]);
        assert_eq!(after["invitationUrl"], before["invitationUrl"], "the sealed invitation still opens");
    }
    assert_eq!(invited(&app, &partner.key.key, id).await, json!(3));
}

#[tokio::test]
async fn an_idempotency_key_replays_only_for_the_same_campaign() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let first = app.provisioned(&partner.key.key).await;
    let second = app.provisioned(&partner.key.key).await;
    let rows = json!({"rows": [{"externalRef": "a"}]});
    let send = |campaign: &Value| {
        app.client
            .post(app.url(&format!("/api/v1/channel/campaigns/{}/respondents", id_of(campaign))))
            .bearer_auth(&partner.key.key)
            .header("Idempotency-Key", "attach-1")
            .json(&rows)
            .send()
    };
    let original = attached(send(&first).await.expect("first")).await;
    let replay = send(&first).await.expect("replay");
    assert_eq!(replay.status(), 200);
    assert!(replay.headers().contains_key("idempotency-replayed"));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay["rows"].as_array(), Some(&original));

    // The same key and rows for another campaign is another request, never a replay of the first
    // campaign's links.
    let (status, code, _) = envelope(send(&second).await.expect("other campaign")).await;
    assert_eq!((status, code.as_str()), (409, "CONFLICT"));
    assert_eq!(invited(&app, &partner.key.key, id_of(&second)).await, json!(0));
    assert_eq!(invited(&app, &partner.key.key, id_of(&first)).await, json!(1));
}

#[tokio::test]
async fn a_closed_link_is_single_use_and_counts_its_respondent_as_responded() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let rows = json!({"rows": [{"externalRef": "r1"}, {"externalRef": "r2"}]});
    let attached: Value = app.attach_respondents(&partner.key.key, id, &rows).await.json().await.expect("json");
    assert_eq!(app.launch_campaign(&partner.key.key, id).await.status(), 200);
    let link = Link::parse(attached["rows"][0]["invitationUrl"].as_str().expect("invitation"));
    let nonce = link.nonce().expect("a /s/ link").to_owned();

    let code = code_of(&campaign);
    app.respond(code, &json!({"invitation": nonce}), &[("q1", json!(4))]).await;
    let read: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(
        read["counts"],
        json!({"invited": 2, "responded": 1, "started": 1, "completed": 1, "messages": [], "messageFailures": [], "recordings": {"held": 0, "deleted": 0, "overdue": 0}})
    );

    let reused = app.start(code, &json!({"consentGiven": true, "invitation": nonce})).await;
    let (status, code, _) = envelope(reused).await;
    assert_eq!((status, code.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
    let results = app.analyzed_results(&partner.key.key, id, 1).await;
    assert_eq!((&results["metrics"]["invited"], &results["metrics"]["responded"]), (&json!(2), &json!(1)));
    assert_eq!(results["campaign"]["respondentGroup"], "CLOSED");
    assert!(!results.to_string().contains("r1"), "no respondent reference in results");
}
