//! `/apps/register` and `/apps/heartbeat` (what an installed app calls), and the lists of devices
//! and installs that partners and Studio read.

use serde_json::Value;

use super::TestApp;

impl TestApp {
    pub async fn register(&self, body: &Value) -> reqwest::Response {
        self.client.post(self.url("/api/v1/apps/register")).json(body).send().await.expect("request")
    }

    pub async fn register_idempotent(&self, idempotency_key: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/v1/apps/register"))
            .header("Idempotency-Key", idempotency_key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    /// Registers and returns the 201 body.
    pub async fn registered(&self, body: &Value) -> Value {
        let response = self.register(body).await;
        assert_eq!(response.status(), 201);
        response.json().await.expect("json")
    }

    pub async fn heartbeat(&self, body: &Value) -> reqwest::Response {
        self.client.post(self.url("/api/v1/apps/heartbeat")).json(body).send().await.expect("request")
    }

    pub async fn list_devices(&self, key: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url("/api/v1/channel/devices"))
            .bearer_auth(key)
            .query(query)
            .send()
            .await
            .expect("request")
    }

    pub async fn list_installs(&self, key: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{campaign}/installs")))
            .bearer_auth(key)
            .query(query)
            .send()
            .await
            .expect("request")
    }

    pub async fn list_app_installs(&self, token: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/campaigns/{campaign}/app-installs")))
            .bearer_auth(token)
            .query(query)
            .send()
            .await
            .expect("request")
    }
}
