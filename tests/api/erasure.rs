//! Erasure (GDPR Article 17): an app user by `externalId`, a device, an audience respondent by
//! `externalRef`. What was theirs is gone from the database; counts and results stay; a second
//! erasure answers the same; other workspaces are untouched.

use serde_json::{Value, json};

use crate::helpers::campaigns::{Link, code_of, id_of};
use crate::helpers::{TestApp, captured_logs, envelope, spawn_app};

impl TestApp {
    pub(crate) async fn erase_respondent(&self, key: &str, campaign: &str, body: &Value) -> reqwest::Response {
        let path = format!("/api/v1/channel/campaigns/{campaign}/respondents/erase");
        self.client.post(self.url(&path)).bearer_auth(key).json(body).send().await.expect("request")
    }

    async fn erase_user(&self, key: &str, body: &Value) -> reqwest::Response {
        let request = self.client.post(self.url("/api/v1/channel/users/erase")).json(body);
        request.bearer_auth(key).send().await.expect("request")
    }

    async fn erase_device(&self, key: &str, device: &str) -> reqwest::Response {
        let request = self.client.delete(self.url(&format!("/api/v1/channel/devices/{device}")));
        request.bearer_auth(key).send().await.expect("request")
    }
}

async fn erased(response: reqwest::Response) -> bool {
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    body["erased"].as_bool().expect("erased")
}

/// Results without the moment they were computed.
async fn results_of(app: &TestApp, key: &str, campaign: &str) -> Value {
    let mut results: Value = app.results(key, campaign, &[]).await.json().await.expect("json");
    results.as_object_mut().expect("object").remove("generatedAt");
    results
}

async fn counts_of(app: &TestApp, key: &str, campaign: &str) -> Value {
    let body: Value = app.get_campaign(key, campaign).await.json().await.expect("json");
    let counts = &body["counts"];
    json!([counts["invited"], counts["responded"], counts["started"], counts["completed"]])
}

#[tokio::test]
async fn an_erased_respondent_leaves_nothing_of_them_and_results_and_counts_stay() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.provisioned(key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let reference = "ada.erasable@example.org";
    let rows = json!({"rows": [
        {"externalRef": reference, "name": "Ada Erasable", "email": "ada.erasable@example.org", "phone": "+44 7700 900999"},
        {"externalRef": "crm-2", "email": "two@example.org"},
    ]});
    let attached: Value = app.attach_respondents(key, id, &rows).await.json().await.expect("json");
    let ada = attached["rows"][0]["respondentId"].as_str().expect("id").to_owned();
    assert_eq!(app.launch_campaign(key, id).await.status(), 200);
    let link = Link::parse(attached["rows"][0]["invitationUrl"].as_str().expect("url"));
    app.respond(code, &json!({"invitation": link.nonce().expect("nonce")}), &[("q1", json!(4))]).await;
    let results = results_of(&app, key, id).await;
    let counts = counts_of(&app, key, id).await;
    assert_eq!(counts, json!([2, 1, 1, 1]));

    assert!(erased(app.erase_respondent(key, id, &json!({"externalRef": reference})).await).await);
    let theirs = format!("respondents WHERE id = '{ada}'");
    assert_eq!(
        app.count_where(&format!(
            "{theirs} AND ref_digest IS NULL AND ref_sealed IS NULL AND external_ref IS NULL AND name_sealed IS NULL \
             AND email_sealed IS NULL AND phone_sealed IS NULL AND invitation_sealed IS NULL"
        ))
        .await,
        1,
        "a tombstone without anything of the person"
    );
    assert_eq!(app.count_where(&format!("launch_links WHERE respondent_id = '{ada}'")).await, 0);
    assert_eq!(app.count_where(&format!("sessions WHERE respondent_id = '{ada}'")).await, 0);
    assert_eq!(app.count_where("sessions WHERE status = 'COMPLETED'").await, 1, "the session stays");
    assert_eq!(app.count_where("respondents WHERE email_sealed IS NOT NULL").await, 1, "crm-2 is untouched");
    assert_eq!(
        app.count_where(&format!(
            "erasures WHERE kind = 'RESPONDENT' AND subject_id = '{ada}' AND workspace_id = '{}'",
            partner.workspace
        ))
        .await,
        1
    );
    assert_eq!(results_of(&app, key, id).await, results, "results stay");
    assert_eq!(counts_of(&app, key, id).await, counts, "counts stay");

    // Again, or someone unknown: the same answer, and nothing more recorded.
    assert!(!erased(app.erase_respondent(key, id, &json!({"externalRef": reference})).await).await);
    assert!(!erased(app.erase_respondent(key, id, &json!({"externalRef": "nobody"})).await).await);
    assert_eq!(app.count_rows("erasures").await, 1);
    assert_eq!(results_of(&app, key, id).await, results);
    let logs = captured_logs();
    assert!(!logs.contains(reference) && !logs.contains("ada.erasable"), "a log line carried the reference");
}

#[tokio::test]
async fn erasing_respondents_refuses_bad_input_and_stays_in_the_workspace() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.provisioned(key).await;
    let id = id_of(&campaign);
    let rows = json!({"rows": [{"externalRef": "crm-1", "email": "one@example.org"}]});
    assert_eq!(app.attach_respondents(key, id, &rows).await.status(), 200);

    for (body, field) in [
        (json!({}), "externalRef"),
        (json!({"externalRef": ""}), "externalRef"),
        (json!({"externalRef": "x".repeat(201)}), "externalRef"),
        (json!({"externalRef": 7}), "externalRef"),
        (json!({"externalRef": "crm-1", "other": "secret-value"}), "other"),
    ] {
        let (status, code, description) = envelope(app.erase_respondent(key, id, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(field) && !description.contains("secret-value"), "{description}");
    }
    let anonymous = app.client.post(app.url(&format!("/api/v1/channel/campaigns/{id}/respondents/erase")));
    let response = anonymous.json(&json!({"externalRef": "crm-1"})).send().await.expect("request");
    assert_eq!(envelope(response).await.0, 401);
    let reader = app.create_key(Some(partner.business), &["channel:results"]).await;
    let (status, code, description) =
        envelope(app.erase_respondent(&reader.key, id, &json!({"externalRef": "crm-1"})).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:audience"), "{description}");

    let stranger = app.campaign_partner().await;
    let (status, code, _) =
        envelope(app.erase_respondent(&stranger.key.key, id, &json!({"externalRef": "crm-1"})).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "another workspace's campaign");
    assert_eq!(app.count_where("respondents WHERE email_sealed IS NOT NULL").await, 1, "untouched");
    assert_eq!(app.count_rows("erasures").await, 0);
}

#[tokio::test]
async fn an_erased_app_user_and_device_are_gone_and_their_sessions_still_count() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let stranger = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let other = app.live_campaign(&stranger.key.key).await;
    let register = |code: &str| {
        json!({"campaignCode": code, "appId": "com.acme.shop", "platform": "android", "appVersion": "1.0",
               "user": {"externalId": "user-42", "email": "user42@example.org", "phone": "+14155550142"}})
    };
    let device = app.registered(&register(code)).await;
    let theirs = app.registered(&register(code_of(&other))).await;
    let bystander = app
        .registered(&json!({"campaignCode": code, "appId": "com.acme.shop", "platform": "ios",
        "appVersion": "1.0", "user": {"externalId": "user-43", "email": "user43@example.org"}}))
        .await;
    let token = device["accessToken"].as_str().expect("token");
    app.respond(code, &json!({"deviceToken": token}), &[("q1", json!(5))]).await;
    let user = device["userId"].as_str().expect("user").to_owned();
    assert_eq!(app.count_where(&format!("sessions WHERE app_user_id = '{user}'")).await, 1);
    let results = results_of(&app, key, id).await;
    let counts = counts_of(&app, key, id).await;

    assert!(erased(app.erase_user(key, &json!({"externalId": "user-42"})).await).await);
    assert_eq!(app.count_where(&format!("app_users WHERE id = '{user}'")).await, 0, "contact details gone");
    assert_eq!(app.count_where(&format!("sessions WHERE app_user_id = '{user}'")).await, 0);
    let their_user = theirs["userId"].as_str().expect("user");
    assert_eq!(app.count_where(&format!("app_users WHERE id = '{their_user}'")).await, 1, "another workspace");
    let bystander_user = bystander["userId"].as_str().expect("user");
    assert_eq!(
        app.count_where(&format!("app_users WHERE id = '{bystander_user}' AND email_sealed IS NOT NULL")).await,
        1
    );
    assert!(!erased(app.erase_user(key, &json!({"externalId": "user-42"})).await).await, "again");
    assert!(!erased(app.erase_user(key, &json!({"externalId": "nobody"})).await).await, "unknown");

    let device_id = device["deviceId"].as_str().expect("device").to_owned();
    assert!(!erased(app.erase_device(&stranger.key.key, &device_id).await).await, "another workspace's");
    assert!(erased(app.erase_device(key, &device_id).await).await);
    assert_eq!(app.count_where(&format!("app_devices WHERE id = '{device_id}'")).await, 0);
    assert_eq!(app.count_where(&format!("app_installs WHERE device_id = '{device_id}'")).await, 0);
    assert_eq!(app.count_where(&format!("sessions WHERE device_id = '{device_id}'")).await, 0);
    assert_eq!(app.count_where("sessions WHERE status = 'COMPLETED'").await, 1, "the session stays");
    assert!(!erased(app.erase_device(key, &device_id).await).await, "again");
    assert_eq!(app.count_rows("app_devices").await, 2, "the others stay");

    assert_eq!(results_of(&app, key, id).await, results, "results stay");
    assert_eq!(counts_of(&app, key, id).await, counts, "counts stay");
    assert_eq!(
        app.count_where(&format!(
            "erasures WHERE workspace_id = '{}' AND ((kind = 'APP_USER' AND subject_id = '{user}') \
             OR (kind = 'DEVICE' AND subject_id = '{device_id}'))",
            partner.workspace
        ))
        .await,
        2
    );
    assert_eq!(app.count_rows("erasures").await, 2);

    for (body, field) in [(json!({}), "externalId"), (json!({"externalId": " user-43"}), "externalId")] {
        let (status, code, description) = envelope(app.erase_user(key, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
        assert!(description.contains(field) && !description.contains("user-43"), "{description}");
    }
    let (status, _, description) = envelope(app.erase_device(key, "not-a-uuid").await).await;
    assert_eq!(status, 400);
    assert!(description.contains("deviceId"), "{description}");
    let reader = app.create_key(Some(partner.business), &["channel:results"]).await;
    assert_eq!(envelope(app.erase_device(&reader.key, &device_id).await).await.0, 403);
    assert_eq!(envelope(app.erase_user(&reader.key, &json!({"externalId": "user-43"})).await).await.0, 403);
    let anonymous = app.client.delete(app.url(&format!("/api/v1/channel/devices/{device_id}")));
    assert_eq!(envelope(anonymous.send().await.expect("request")).await.0, 401);
}
