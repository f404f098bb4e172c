//! `POST /channel/campaigns/{id}/exports`, `GET /channel/exports/{id}` and the keyless download
//! link it hands out. The application's own export worker renders; tests poll, never sleep a
//! fixed time.

use std::time::{Duration, Instant};

use pulse::startup::store_from;
use pulse_domain::exports::ports::WorkerPresence as _;
use serde_json::Value;

use super::TestApp;
use super::admin::TestKey;
use super::campaigns::{CAMPAIGN_SCOPES, CampaignPartner};

impl TestApp {
    /// A business with an approved workspace and a key with every campaign scope and
    /// `channel:export`.
    pub async fn export_partner(&self) -> CampaignPartner {
        let business = self.create_business().await;
        let scopes: Vec<&str> = CAMPAIGN_SCOPES.into_iter().chain(["channel:export"]).collect();
        let key = self.create_key(Some(business), &scopes).await;
        let workspace = self.workspace(&key.key, "client-1").await;
        self.approve_workspace(workspace).await;
        CampaignPartner { business, workspace, key }
    }

    /// A key of `partner`'s business and workspace with only `scopes`.
    pub async fn key_of(&self, partner: &CampaignPartner, scopes: &[&str]) -> TestKey {
        self.create_key_with(Some(partner.business), scopes, &[partner.workspace], None).await
    }

    /// Records an export worker's beat at the application's time, as the worker's next round
    /// would: after a test moves the clock on, the running worker looks silent until it beats
    /// again, and requests are refused meanwhile.
    pub async fn export_worker_beats(&self) {
        store_from(&self.settings)
            .expect("store")
            .export_worker_beat(uuid::Uuid::new_v4(), self.now())
            .await
            .expect("beat");
    }

    pub async fn request_export(&self, key: &str, campaign: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/campaigns/{campaign}/exports")))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn request_export_idempotent(
        &self,
        key: &str,
        idempotency_key: &str,
        campaign: &str,
        body: &Value,
    ) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/campaigns/{campaign}/exports")))
            .bearer_auth(key)
            .header("Idempotency-Key", idempotency_key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    /// Requests an export and returns the 202 body.
    pub async fn queued_export(&self, key: &str, campaign: &str, body: &Value) -> Value {
        let response = self.request_export(key, campaign, body).await;
        assert_eq!(response.status(), 202);
        response.json().await.expect("json")
    }

    pub async fn get_export(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/exports/{id}")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Reads the export until the worker has rendered it; returns the READY body.
    pub async fn ready_export(&self, key: &str, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let response = self.get_export(key, id).await;
            assert_eq!(response.status(), 200);
            let body: Value = response.json().await.expect("json");
            match body["status"].as_str() {
                Some("READY") => return body,
                Some("QUEUED" | "RUNNING") if Instant::now() < deadline => {
                    // A quarter second keeps the reads well inside the hourly `export` quota.
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                _ => panic!("the export did not become READY: {body}"),
            }
        }
    }

    /// Fetches a download link, given as the service wrote it, from this application.
    pub async fn download(&self, url: &str) -> reqwest::Response {
        self.client.get(self.url(&download_path(url))).send().await.expect("request")
    }
}

/// The path of a download URL (the service names its configured base URL, not the test's port).
pub fn download_path(url: &str) -> String {
    reqwest::Url::parse(url).expect("a download link is a URL").path().to_owned()
}

/// The token of a download URL: `…/downloads/{token}/{filename}`.
pub fn token_of(url: &str) -> String {
    let path = download_path(url);
    let tail = path.split_once("/downloads/").expect("a download path").1;
    tail.split_once('/').expect("token and file name").0.to_owned()
}
