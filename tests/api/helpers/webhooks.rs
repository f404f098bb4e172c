//! `/channel/webhooks`: subscriptions, their secrets, their simulation, their deliveries and
//! redeliveries.

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

    /// `POST …/rotate-secret`, with `body` as JSON, or with no body at all when `None`.
    pub async fn rotate_webhook_secret(&self, key: &str, id: &str, body: Option<&Value>) -> reqwest::Response {
        let request =
            self.client.post(self.url(&format!("/api/v1/channel/webhooks/{id}/rotate-secret"))).bearer_auth(key);
        let request = match body {
            Some(body) => request.json(body),
            None => request,
        };
        request.send().await.expect("request")
    }

    pub async fn simulate_webhook(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/webhooks/{id}/simulate")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn redeliver(&self, key: &str, id: &str, delivery: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/webhooks/{id}/deliveries/{delivery}/redeliver")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn redeliver_range(&self, key: &str, id: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/webhooks/{id}/redeliver")))
            .bearer_auth(key)
            .json(body)
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
