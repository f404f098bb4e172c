//! `GET /channel/whoami` and `/channel/orgs` (the partner's workspaces).

use pulse_domain::ids::WorkspaceId;
use serde_json::Value;

use super::TestApp;

impl TestApp {
    pub async fn whoami(&self, key: &str) -> reqwest::Response {
        self.client.get(self.url("/api/v1/channel/whoami")).bearer_auth(key).send().await.expect("request")
    }

    pub async fn list_orgs(&self, key: &str) -> reqwest::Response {
        self.client.get(self.url("/api/v1/channel/orgs")).bearer_auth(key).send().await.expect("request")
    }

    pub async fn create_org(&self, key: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url("/api/v1/channel/orgs")).bearer_auth(key).json(body).send().await.expect("request")
    }

    pub async fn create_org_idempotent(&self, key: &str, idempotency_key: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/v1/channel/orgs"))
            .bearer_auth(key)
            .header("Idempotency-Key", idempotency_key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    /// Creates a workspace and returns its id.
    pub async fn workspace(&self, key: &str, external_ref: &str) -> WorkspaceId {
        let response = self.create_org(key, &serde_json::json!({"externalRef": external_ref, "name": "Client"})).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        body["workspace"]["id"].as_str().expect("id").parse().expect("uuid")
    }
}
