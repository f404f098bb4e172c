//! `/channel/campaigns` (provision, read, respondents, launch) and `POST /channel/launch` (minted
//! respondent links).

use pulse_domain::ids::{BusinessId, WorkspaceId};
use serde_json::Value;

use super::TestApp;
use super::admin::TestKey;

/// A partner set up to run campaigns: a business, an approved workspace, and a key with every
/// campaign scope that reaches it.
pub struct CampaignPartner {
    pub business: BusinessId,
    pub workspace: WorkspaceId,
    pub key: TestKey,
}

pub const CAMPAIGN_SCOPES: [&str; 6] = [
    "channel:workspaces",
    "channel:provision",
    "channel:audience",
    "channel:results",
    "sessions:launch",
    "channel:transcripts",
];

/// The id of a campaign body.
pub fn id_of(campaign: &Value) -> &str {
    campaign["id"].as_str().expect("campaign id")
}

/// The public code of a campaign body.
pub fn code_of(campaign: &Value) -> &str {
    campaign["code"].as_str().expect("campaign code")
}

/// A respondent link as the page reads it: the path and the query parameters that matter.
#[derive(Debug)]
pub struct Link {
    /// `/p/<code>` or `/s/<code>/<nonce>`.
    pub path: String,
    pub lt: Option<String>,
    pub lang: Option<String>,
}

impl Link {
    pub fn parse(url: &str) -> Self {
        let url = reqwest::Url::parse(url).expect("a link is a URL");
        let query = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
        Self { path: url.path().to_owned(), lt: query("lt"), lang: query("lang") }
    }

    /// The nonce of a `/s/<code>/<nonce>` link.
    pub fn nonce(&self) -> Option<&str> {
        let rest = self.path.strip_prefix("/s/")?;
        rest.split_once('/').map(|(_, nonce)| nonce)
    }
}

impl TestApp {
    /// A business with an approved workspace and a key with every campaign scope.
    pub async fn campaign_partner(&self) -> CampaignPartner {
        let business = self.create_business().await;
        let key = self.create_key(Some(business), &CAMPAIGN_SCOPES).await;
        let workspace = self.workspace(&key.key, "client-1").await;
        self.approve_workspace(workspace).await;
        CampaignPartner { business, workspace, key }
    }

    pub async fn provision(&self, key: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url("/api/v1/channel/campaigns"))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    /// Provisions a campaign from a short English brief and returns its body.
    pub async fn provisioned(&self, key: &str) -> Value {
        let brief = serde_json::json!({"brief": {"intentText": "How was your last delivery with us?",
            "constraints": {"questionCount": 3, "languages": ["en", "fr"]}}});
        let response = self.provision(key, &brief).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        body["campaign"].clone()
    }

    pub async fn get_campaign(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{id}")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn attach_respondents(&self, key: &str, id: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/campaigns/{id}/respondents")))
            .bearer_auth(key)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn launch_campaign(&self, key: &str, id: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/channel/campaigns/{id}/launch")))
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Provisions and launches a campaign; returns its body (status ACTIVE).
    pub async fn live_campaign(&self, key: &str) -> Value {
        let campaign = self.provisioned(key).await;
        let response = self.launch_campaign(key, campaign["id"].as_str().expect("id")).await;
        assert_eq!(response.status(), 200);
        response.json().await.expect("json")
    }

    pub async fn mint_link(&self, key: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url("/api/v1/channel/launch")).bearer_auth(key).json(body).send().await.expect("request")
    }

    /// Mints a link for `campaign` and returns it parsed.
    pub async fn minted(&self, key: &str, campaign: &str) -> Link {
        let response = self.mint_link(key, &serde_json::json!({"campaignId": campaign})).await;
        assert_eq!(response.status(), 201);
        let cache = response.headers().get("cache-control").and_then(|v| v.to_str().ok());
        assert_eq!(cache, Some("no-store"), "a minted link is a credential");
        let body: Value = response.json().await.expect("json");
        Link::parse(body["url"].as_str().expect("url"))
    }
}
