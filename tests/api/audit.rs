//! The audit trail: each partner action on a workspace's data, and the operator's, appears once
//! with the key's prefix, and never a secret or a person's data.

use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;

use crate::helpers::campaigns::{CampaignPartner, id_of};
use crate::helpers::{TestApp, envelope, spawn_app};
use crate::receiver::{Receiver, Reply};
use crate::webhooks::{id, replica, subscribed};
use crate::webhooks_redelivery::two_attempt_app;

/// Every text the actions below send that is secret or about a person: none may be in the trail.
const MARKER: &str = "zq7audit";

async fn trail(app: &TestApp, key: &str, query: &[(&str, &str)]) -> reqwest::Response {
    app.client.get(app.url("/api/v1/channel/audit-events")).bearer_auth(key).query(query).send().await.expect("request")
}

async fn items(app: &TestApp, key: &str, query: &[(&str, &str)]) -> Vec<Value> {
    let response = trail(app, key, query).await;
    assert_eq!(response.status(), 200);
    let page: Value = response.json().await.expect("json");
    page["items"].as_array().expect("items").clone()
}

fn kinds(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["kind"].as_str().expect("kind")).collect()
}

#[tokio::test]
async fn each_action_is_in_the_trail_once_by_its_key_and_without_secrets_or_personal_data() {
    let app = two_attempt_app().await;
    let partner: CampaignPartner = app.export_partner().await;
    let key = partner.key.key.clone();
    let hooks = app.key_of(&partner, &["channel:webhooks"]).await;
    let reader = app.key_of(&partner, &["channel:audit"]).await;
    let receiver = Receiver::start().await;
    receiver.reply(Reply::Status(500));

    let campaign = app.provisioned(&key).await;
    let campaign_id = id_of(&campaign).to_owned();
    let reference = format!("crm-{MARKER}");
    let email = format!("{MARKER}@example.com");
    let rows = json!({"rows": [{"externalRef": reference, "email": email, "name": format!("Ann {MARKER}")}]});
    assert_eq!(app.attach_respondents(&key, &campaign_id, &rows).await.status(), 200);
    assert_eq!(app.launch_campaign(&key, &campaign_id).await.status(), 200);
    for action in ["pause", "resume"] {
        let response = app
            .client
            .post(app.url(&format!("/api/v1/channel/campaigns/{campaign_id}/{action}")))
            .bearer_auth(&key)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 200, "{action}");
    }
    let export = app.queued_export(&key, &campaign_id, &json!({"format": "json"})).await;
    let export_id = id(&export).to_owned();
    let ready = app.ready_export(&key, &export_id).await;
    assert_eq!(app.download(ready["download"]["url"].as_str().expect("a link")).await.status(), 200);
    let erased = app.erase_respondent(&key, &campaign_id, &json!({"externalRef": reference})).await;
    assert_eq!(erased.status(), 200);

    let url = format!("{}/{MARKER}", receiver.url);
    let (hook, secret) = subscribed(&app, &hooks.key, &url, &[]).await;
    let hook_id = id(&hook).to_owned();
    let patched = app.patch_webhook(&hooks.key, &hook_id, &json!({"description": "orders"})).await;
    assert_eq!(patched.status(), 200);
    let rotated: Value = app.rotate_webhook_secret(&hooks.key, &hook_id, None).await.json().await.expect("json");
    let delivery: Value = app.simulate_webhook(&hooks.key, &hook_id).await.json().await.expect("json");
    let (_, worker) = replica(&app);
    let start = app.now();
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);
    app.clock.set(start + time::Duration::hours(1));
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1, "dead after its second attempt");
    assert_eq!(app.redeliver(&hooks.key, &hook_id, id(&delivery)).await.status(), 202);
    // Failing again, it is FAILED: a range redelivery then has something to queue.
    assert_eq!(worker.deliver_due(10).await.expect("round").len(), 1);
    let range = json!({"from": start.format(&Rfc3339).expect("time"), "to": app.now().format(&Rfc3339).expect("time")});
    assert_eq!(app.redeliver_range(&hooks.key, &hook_id, &range).await.status(), 202);
    assert_eq!(app.delete_webhook(&hooks.key, &hook_id).await.status(), 204);
    let close = app.client.post(app.url(&format!("/api/v1/channel/campaigns/{campaign_id}/close"))).bearer_auth(&key);
    assert_eq!(close.send().await.expect("request").status(), 200);

    let response = trail(&app, &reader.key, &[("limit", "200")]).await;
    assert_eq!(response.status(), 200);
    let text = response.text().await.expect("text");
    for secret in [key.as_str(), hooks.key.as_str(), reader.key.as_str(), secret.as_str(), MARKER] {
        assert!(!text.contains(secret), "the trail holds a secret or a person's data");
    }
    let rotated_secret = rotated["secret"].as_str().expect("the new secret");
    assert!(!text.contains(rotated_secret));
    let page: Value = serde_json::from_str(&text).expect("json");
    let items = page["items"].as_array().expect("items");
    let by_key: Vec<&Value> = items.iter().filter(|i| i["actor"]["kind"] == "key").collect();
    let actions: Vec<(&str, &str, &str)> = by_key
        .iter()
        .map(|i| {
            assert_eq!(i["actor"]["network"], json!("127.0.0.0/24"), "{i}");
            (
                i["kind"].as_str().expect("kind"),
                i["actor"]["keyPrefix"].as_str().expect("prefix"),
                i["targetId"].as_str().expect("target"),
            )
        })
        .collect();
    let (campaign_key, hook_key) = (partner.key.prefix.as_str(), hooks.prefix.as_str());
    let erasure = actions.iter().find(|a| a.0 == "respondent.erased").map_or("", |a| a.2);
    assert_eq!(
        actions,
        [
            ("audience.attached", campaign_key, campaign_id.as_str()),
            ("campaign.launched", campaign_key, campaign_id.as_str()),
            ("campaign.paused", campaign_key, campaign_id.as_str()),
            ("campaign.resumed", campaign_key, campaign_id.as_str()),
            ("export.requested", campaign_key, export_id.as_str()),
            ("export.downloaded", campaign_key, export_id.as_str()),
            ("respondent.erased", campaign_key, erasure),
            ("webhook.created", hook_key, hook_id.as_str()),
            ("webhook.updated", hook_key, hook_id.as_str()),
            ("webhook.secret_rotated", hook_key, hook_id.as_str()),
            ("webhook.redelivered", hook_key, hook_id.as_str()),
            ("webhook.redelivered", hook_key, hook_id.as_str()),
            ("webhook.deleted", hook_key, hook_id.as_str()),
            ("campaign.closed", campaign_key, campaign_id.as_str()),
        ]
    );
    assert!(uuid::Uuid::parse_str(erasure).is_ok(), "an erasure is named by id: {erasure}");
    let operator: Vec<&str> =
        items.iter().filter(|i| i["actor"]["kind"] == "operator").map(|i| i["kind"].as_str().expect("kind")).collect();
    assert_eq!(operator, ["key.created", "workspace.approved", "key.created", "key.created"], "the operator's");
}

#[tokio::test]
async fn the_trail_is_read_by_time_and_kind_a_page_at_a_time() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let reader = app.key_of(&partner, &["channel:audit"]).await;
    let first = app.now();
    let mut campaigns = Vec::new();
    for _ in 0..3 {
        app.clock.advance(time::Duration::minutes(10));
        let campaign = app.live_campaign(&partner.key.key).await;
        campaigns.push(id_of(&campaign).to_owned());
    }
    let launched = items(&app, &reader.key, &[("kind", "campaign.launched")]).await;
    let targets: Vec<&str> = launched.iter().map(|i| i["targetId"].as_str().expect("target")).collect();
    assert_eq!(targets, campaigns.iter().map(String::as_str).collect::<Vec<_>>());

    let at = |minutes: i64| (first + time::Duration::minutes(minutes)).format(&Rfc3339).expect("time");
    let middle = items(&app, &reader.key, &[("kind", "campaign.launched"), ("from", &at(15)), ("to", &at(25))]).await;
    assert_eq!(kinds(&middle), ["campaign.launched"]);
    assert_eq!(middle[0]["targetId"].as_str(), Some(campaigns[1].as_str()));
    let both = items(&app, &reader.key, &[("kind", "workspace.approved,campaign.launched"), ("to", &at(15))]).await;
    assert_eq!(kinds(&both), ["workspace.approved", "campaign.launched"]);

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut query = vec![("limit", "1".to_owned()), ("kind", "campaign.launched".to_owned())];
        if let Some(c) = &cursor {
            query.push(("cursor", c.clone()));
        }
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let response = trail(&app, &reader.key, &query).await;
        let page: Value = response.json().await.expect("json");
        seen.extend(page["items"].as_array().expect("items").iter().map(|i| i["targetId"].clone()));
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, campaigns.iter().map(|c| json!(c)).collect::<Vec<_>>(), "each once, in order");

    for (query, field) in [
        (vec![("from", "yesterday")], "from"),
        (vec![("to", "2026-13-01T00:00:00Z")], "to"),
        (vec![("from", at(20).as_str()), ("to", at(10).as_str())], "to"),
        (vec![("kind", "campaign.deleted")], "kind"),
        (vec![("limit", "0")], "limit"),
        (vec![("cursor", "not-a-cursor")], "cursor"),
    ] {
        let (status, code, description) = envelope(trail(&app, &reader.key, &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
        assert!(description.contains(&format!("`{field}`")), "{description}");
    }
    // A cursor of one filter is not one of another.
    let page: Value =
        trail(&app, &reader.key, &[("limit", "1"), ("kind", "campaign.launched")]).await.json().await.expect("json");
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let (status, _, _) = envelope(trail(&app, &reader.key, &[("limit", "1"), ("cursor", cursor)]).await).await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn another_workspaces_trail_is_not_found_and_reading_needs_its_scope() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let stranger = app.campaign_partner().await;
    let stranger_reader = app.key_of(&stranger, &["channel:audit"]).await;
    let response = app
        .client
        .get(app.url("/api/v1/channel/audit-events"))
        .bearer_auth(&stranger_reader.key)
        .header("X-SVC-Workspace", partner.workspace.to_string())
        .send()
        .await
        .expect("request");
    let (status, code, _) = envelope(response).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));

    let (status, code, description) = envelope(trail(&app, &partner.key.key, &[]).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:audit"), "{description}");
    let (status, _, _) = envelope(trail(&app, "svc_nope", &[]).await).await;
    assert_eq!(status, 401);
}
