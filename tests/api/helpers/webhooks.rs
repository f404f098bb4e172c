//! `/channel/webhooks`: subscriptions, their simulation and their deliveries.

use serde_json::Value;

use super::TestApp;

impl TestApp {
    pub async fn create_webhook(&self, key: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/v1/channel/webhooks"))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn list_webhooks(&self, key: &str) -> reqwest::Response {
        self.client.get(self.url("/api/v1/channel/webhooks")).bearer_auth(key).send().await.expect("request")
    }

    pub async fn get_webhook(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/webhooks/{id}")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn patch_webhook(&self, key: &str, id: &str, body: &Value) -> reqwest::Response {
        self.client
            .patch(self.url(&format!("/api/v1/channel/webhooks/{id}")))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn delete_webhook(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .delete(self.url(&format!("/api/v1/channel/webhooks/{id}")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn simulate_webhook(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/webhooks/{id}/simulate")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn list_deliveries(&self, key: &str, id: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/webhooks/{id}/deliveries")))
            .bearer_auth(key)
            .query(query)
            .send()
            .await
            .expect("request")
    }
}
