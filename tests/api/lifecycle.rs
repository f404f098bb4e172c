//! `GET CH/campaigns` and `POST CH/campaigns/{id}/pause`, `/resume` and `/close`: the list, the
//! effect of each status on links, starts and app registers, the refusals, scopes and tenancy; the
//! privacy notice and the finished-link state the page reads.

use serde_json::{Value, json};

use crate::helpers::campaigns::{Link, code_of, id_of};
use crate::helpers::{TestApp, envelope, spawn_app};

impl TestApp {
    async fn list_campaigns(&self, key: &str, query: &[(&str, &str)]) -> reqwest::Response {
        let request = self.client.get(self.url("/api/v1/channel/campaigns")).bearer_auth(key).query(query);
        request.send().await.expect("request")
    }

    async fn change_status(&self, key: &str, id: &str, change: &str) -> reqwest::Response {
        let url = self.url(&format!("/api/v1/channel/campaigns/{id}/{change}"));
        self.client.post(url).bearer_auth(key).send().await.expect("request")
    }

    /// Changes the status and returns the campaign's body, asserting 200.
    async fn changed(&self, key: &str, id: &str, change: &str) -> Value {
        let response = self.change_status(key, id, change).await;
        assert_eq!(response.status(), 200, "{change}");
        response.json().await.expect("json")
    }
}

fn register_body(code: &str) -> Value {
    json!({"campaignCode": code, "appId": "com.acme.shop", "platform": "ios", "appVersion": "5.2.0"})
}

/// One rating answer to the campaign's first question, as `respond` takes them.
fn a_rating(campaign: &Value) -> [(&str, Value); 1] {
    [(campaign["survey"]["questions"][0]["id"].as_str().expect("a question"), json!(4))]
}

fn ids(page: &Value) -> Vec<&str> {
    page["items"].as_array().expect("items").iter().map(|c| c["id"].as_str().expect("id")).collect()
}

#[tokio::test]
async fn a_partner_lists_its_campaigns_page_by_page_and_by_status() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let first = app.live_campaign(key).await;
    let second = app.provisioned(key).await;
    let third = app.provisioned(key).await;
    app.changed(key, id_of(&third), "close").await;

    let page: Value = app.list_campaigns(key, &[("limit", "2")]).await.json().await.expect("json");
    assert_eq!(ids(&page), [id_of(&first), id_of(&second)], "oldest first");
    let item = &page["items"][0];
    assert_eq!((item["status"].as_str(), item["code"].as_str()), (Some("ACTIVE"), Some(code_of(&first))));
    assert!(item.get("survey").is_none() && item.get("counts").is_none(), "a summary: {item}");
    let cursor = page["nextCursor"].as_str().expect("a next page");
    let rest: Value = app.list_campaigns(key, &[("limit", "2"), ("cursor", cursor)]).await.json().await.expect("json");
    assert_eq!((ids(&rest), &rest["nextCursor"]), (vec![id_of(&third)], &Value::Null));
    assert_eq!(rest["items"][0]["status"], "CLOSED");
    assert!(rest["items"][0]["closedAt"].is_string());

    for (status, expected) in [("ACTIVE", id_of(&first)), ("DRAFT", id_of(&second)), ("CLOSED", id_of(&third))] {
        let page: Value = app.list_campaigns(key, &[("status", status)]).await.json().await.expect("json");
        assert_eq!(ids(&page), [expected], "{status}");
    }
    let paused: Value = app.list_campaigns(key, &[("status", "PAUSED")]).await.json().await.expect("json");
    assert_eq!(paused, json!({"items": [], "nextCursor": null}));

    for (query, field) in [
        (vec![("status", "active")], "status"),
        (vec![("status", "ARCHIVED")], "status"),
        (vec![("limit", "0")], "limit"),
        (vec![("cursor", "not-a-cursor")], "cursor"),
        // A cursor of the whole list is refused by a list of one status.
        (vec![("status", "ACTIVE"), ("cursor", cursor)], "cursor"),
    ] {
        let (status, code, description) = envelope(app.list_campaigns(key, &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
        assert!(description.contains(field), "{description}");
    }

    let stranger = app.campaign_partner().await;
    let theirs: Value = app.list_campaigns(&stranger.key.key, &[]).await.json().await.expect("json");
    assert_eq!(theirs["items"], json!([]), "another workspace's campaigns are not listed");
    let launcher = app.create_key(Some(partner.business), &["sessions:launch"]).await;
    let (status, code, _) = envelope(app.list_campaigns(&launcher.key, &[]).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
}

#[tokio::test]
async fn pausing_stops_links_starts_and_registers_and_resuming_brings_them_back() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    // Warm the server's copies of the campaign while it collects: the refusals below must hold
    // although the copies still say ACTIVE (the test clock stands still).
    let earlier = app.minted(key, id).await;
    assert_eq!(app.register(&register_body(code)).await.status(), 201);
    let open = app.started(code, &json!({})).await;

    let paused = app.changed(key, id, "pause").await;
    assert_eq!(paused["status"], "PAUSED");
    let (status, error, description) = envelope(app.mint_link(key, &json!({"campaignId": id})).await).await;
    assert_eq!((status, error.as_str()), (409, "CAMPAIGN_NOT_COLLECTING"));
    assert!(description.contains("PAUSED") && description.contains("resume"), "{description}");
    let start = app.start(code, &json!({"consentGiven": true})).await;
    assert_eq!(start.status(), 200);
    assert_eq!(start.json::<Value>().await.expect("json"), json!({"started": false, "reason": "CAMPAIGN_NOT_OPEN"}));
    let with_link =
        app.start(code, &json!({"consentGiven": true, "launchToken": earlier.lt.as_deref().expect("lt")})).await;
    assert_eq!(with_link.status(), 200, "the earlier link is refused while paused, not spent");
    let (status, error, _) = envelope(app.register(&register_body(code)).await).await;
    assert_eq!((status, error.as_str()), (409, "CAMPAIGN_NOT_COLLECTING"));
    let access: Value = app.access(code, &[]).await.json().await.expect("json");
    assert_eq!(access["campaign"]["collecting"], json!(false));

    // A session started before the pause may still finish.
    let (session, token) = (open["sessionId"].as_str().expect("id"), open["sessionToken"].as_str().expect("token"));
    let question = open["questions"][0]["id"].as_str().expect("question");
    let answers = json!({"answers": [{"questionId": question, "value": 4}]});
    assert_eq!(app.answer(code, session, token, &answers).await.status(), 200);
    assert_eq!(app.complete(code, session, token).await.status(), 200);

    assert_eq!(app.changed(key, id, "pause").await["status"], "PAUSED", "pausing again answers it as it is");
    let resumed = app.changed(key, id, "resume").await;
    assert_eq!(resumed["status"], "ACTIVE");
    let restarted =
        app.start(code, &json!({"consentGiven": true, "launchToken": earlier.lt.as_deref().expect("lt")})).await;
    assert_eq!(restarted.status(), 201, "the link minted before the pause works again");
    assert_eq!(app.register(&register_body(code)).await.status(), 201);
    assert_eq!(app.mint_link(key, &json!({"campaignId": id})).await.status(), 201);
    let counts = app.get_campaign(key, id).await.json::<Value>().await.expect("json")["counts"].clone();
    assert_eq!((counts["started"].as_u64(), counts["completed"].as_u64()), (Some(2), Some(1)));
}

#[tokio::test]
async fn closing_is_final_and_a_draft_is_launched_not_resumed() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let draft = app.provisioned(key).await;
    let id = id_of(&draft);
    for change in ["pause", "resume"] {
        let (status, error, description) = envelope(app.change_status(key, id, change).await).await;
        assert_eq!((status, error.as_str()), (409, "CONFLICT"), "{change}");
        assert!(description.contains("DRAFT") && description.contains("launch it first"), "{description}");
    }
    let closed = app.changed(key, id, "close").await;
    assert_eq!(closed["status"], "CLOSED");
    let closed_at = closed["closedAt"].as_str().expect("closedAt").to_owned();
    for change in ["pause", "resume", "launch"] {
        let (status, error, description) = envelope(app.change_status(key, id, change).await).await;
        assert_eq!((status, error.as_str()), (409, "CONFLICT"), "{change}");
        assert!(description.contains("CLOSED"), "{description}");
    }
    let again = app.changed(key, id, "close").await;
    assert_eq!((again["status"].as_str(), again["closedAt"].as_str()), (Some("CLOSED"), Some(closed_at.as_str())));
    let (status, error, _) = envelope(app.mint_link(key, &json!({"campaignId": id})).await).await;
    assert_eq!((status, error.as_str()), (409, "CAMPAIGN_NOT_COLLECTING"));

    // A live campaign closed keeps its results readable.
    let live = app.live_campaign(key).await;
    app.respond(code_of(&live), &json!({}), &a_rating(&live)).await;
    app.changed(key, id_of(&live), "close").await;
    let results = app.client.get(app.url(&format!("/api/v1/channel/campaigns/{}/results", id_of(&live))));
    let results = results.bearer_auth(key).send().await.expect("request");
    assert_eq!(results.status(), 200);
    let results: Value = results.json().await.expect("json");
    assert_eq!(results["campaign"]["status"], "CLOSED");
    let paused = app.change_status(key, id_of(&live), "pause").await;
    assert_eq!(paused.status(), 409);
}

#[tokio::test]
async fn status_changes_need_the_provision_scope_and_stay_in_the_workspace() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let reader = app.create_key(Some(partner.business), &["channel:results"]).await;
    let stranger = app.campaign_partner().await;
    for change in ["pause", "resume", "close"] {
        let (status, error, description) = envelope(app.change_status(&reader.key, id, change).await).await;
        assert_eq!((status, error.as_str()), (403, "INSUFFICIENT_PERMISSION"), "{change}");
        assert!(description.contains("channel:provision"), "{description}");
        for (who, target) in [
            (&stranger.key.key, id.to_owned()),
            (&partner.key.key, uuid::Uuid::new_v4().to_string()),
            (&partner.key.key, "not-a-uuid".to_owned()),
        ] {
            let (status, error, _) = envelope(app.change_status(who, &target, change).await).await;
            assert_eq!((status, error.as_str()), (404, "NOT_FOUND"), "{change} {target}");
        }
        let (status, error, _) = envelope(app.change_status("svc_nope_nope", id, change).await).await;
        assert_eq!((status, error.as_str()), (401, "UNAUTHENTICATED"));
    }
    let body: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(body["status"], "ACTIVE", "nothing refused changed the campaign");
}

#[tokio::test]
async fn a_privacy_notice_is_an_https_address_the_page_links() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let with =
        |url: &str| json!({"brief": {"intentText": "How was your last delivery with us?"}, "privacyNoticeUrl": url});
    let long = format!("https://example.com/{}", "p".repeat(2048));
    for refused in ["http://example.com/privacy", "https://user:pw@example.com/privacy", "/privacy", "privacy", &long] {
        let (status, error, description) = envelope(app.provision(key, &with(refused)).await).await;
        assert_eq!((status, error.as_str()), (400, "VALIDATION_FAILED"), "{refused}");
        assert!(description.contains("privacyNoticeUrl"), "{description}");
    }
    let listed: Value = app.list_campaigns(key, &[]).await.json().await.expect("json");
    assert_eq!(listed["items"], json!([]), "nothing refused was created");

    let response = app.provision(key, &with("https://acme.example/privacy")).await;
    assert_eq!(response.status(), 201);
    let campaign = response.json::<Value>().await.expect("json")["campaign"].clone();
    assert_eq!(campaign["privacyNoticeUrl"], "https://acme.example/privacy");
    let access: Value = app.access(code_of(&campaign), &[]).await.json().await.expect("json");
    let intro = &access["campaign"];
    assert_eq!(intro["privacyNoticeUrl"], "https://acme.example/privacy");
    assert_eq!((intro["askedBy"].as_str(), intro["collecting"].as_bool()), (Some("Client"), Some(false)));
}

#[tokio::test]
async fn a_finished_link_is_invalid_and_answered_and_an_unfinished_one_only_invalid() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let code = code_of(&campaign);
    let finished: Link = app.minted(key, id_of(&campaign)).await;
    app.respond(code, &json!({"launchToken": finished.lt.as_deref().expect("lt")}), &a_rating(&campaign)).await;
    let unfinished: Link = app.minted(key, id_of(&campaign)).await;
    app.started(code, &json!({"launchToken": unfinished.lt.as_deref().expect("lt")})).await;

    let answered: Value =
        app.access(code, &[("lt", finished.lt.as_deref().expect("lt"))]).await.json().await.expect("json");
    assert_eq!(
        (answered["state"].as_str(), answered["refusal"]["code"].as_str(), &answered["answered"]),
        (Some("INVALID"), Some("LAUNCH_TOKEN_INVALID"), &json!(true)),
        "a spent link is invalid as the contract says; `answered` lets the page thank the person"
    );
    let invalid: Value =
        app.access(code, &[("lt", unfinished.lt.as_deref().expect("lt"))]).await.json().await.expect("json");
    assert_eq!(
        (invalid["state"].as_str(), invalid["refusal"]["code"].as_str(), &invalid["answered"]),
        (Some("INVALID"), Some("LAUNCH_TOKEN_INVALID"), &json!(false))
    );
    // A finished link is still spent: it starts nothing.
    let again =
        app.start(code, &json!({"consentGiven": true, "launchToken": finished.lt.as_deref().expect("lt")})).await;
    let (status, error, _) = envelope(again).await;
    assert_eq!((status, error.as_str()), (403, "LAUNCH_TOKEN_INVALID"));
}
