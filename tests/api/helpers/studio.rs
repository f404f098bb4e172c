//! The Studio routes of a campaign's launch access (`/campaigns/{id}/launch-keys`,
//! `/launch-access`), the Studio session tokens they take, and the launch tokens a partner signs
//! with a launch key.

use pulse_domain::ids::BusinessId;
use serde_json::Value;

use super::TestApp;

/// Signs a launch token the way a partner's server does: HS256 with the launch-key secret's UTF-8
/// bytes, `kid` = the key id.
pub fn sign_launch_token(kid: Option<&str>, secret: &str, claims: &Value) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes())).expect("sign")
}

impl TestApp {
    /// A Studio session token for `business` with `perms`, signed as `pulse admin studio-token` does.
    pub async fn studio_token(&self, business: BusinessId, perms: &[&str]) -> String {
        let secret = self.settings.studio_jwt_secret.as_ref().expect("studio secret");
        pulse_domain::studio::service::issue_studio_token(
            &pulse_crypto::JwtStudioTokens::new(secret),
            &self.clock,
            business,
            uuid::Uuid::new_v4(),
            perms.iter().map(|p| (*p).to_owned()).collect(),
            None,
        )
        .await
        .expect("studio token")
    }

    pub async fn list_launch_keys(&self, token: &str, campaign: &str) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/campaigns/{campaign}/launch-keys")))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    pub async fn create_launch_key(
        &self,
        token: &str,
        campaign: &str,
        idempotency_key: Option<&str>,
    ) -> reqwest::Response {
        let mut request =
            self.client.post(self.url(&format!("/api/v1/campaigns/{campaign}/launch-keys"))).bearer_auth(token);
        if let Some(k) = idempotency_key {
            request = request.header("Idempotency-Key", k);
        }
        request.send().await.expect("request")
    }

    /// Creates a launch key; returns its id (the `kid`) and its secret.
    pub async fn launch_key(&self, token: &str, campaign: &str) -> (String, String) {
        let response = self.create_launch_key(token, campaign, None).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        (body["id"].as_str().expect("id").to_owned(), body["secret"].as_str().expect("secret").to_owned())
    }

    pub async fn revoke_launch_key(&self, token: &str, campaign: &str, key: &str) -> reqwest::Response {
        self.client
            .delete(self.url(&format!("/api/v1/campaigns/{campaign}/launch-keys/{key}")))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    pub async fn set_launch_access(&self, token: &str, campaign: &str, body: &Value) -> reqwest::Response {
        self.client
            .put(self.url(&format!("/api/v1/campaigns/{campaign}/launch-access")))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("request")
    }
}
