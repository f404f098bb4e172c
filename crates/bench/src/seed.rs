//! Seeding through the real interfaces: the operator CLI for what only operators do, the HTTP API
//! for the rest.

use anyhow::{Context as _, ensure};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::task::JoinSet;

use crate::server::Pulse;
use crate::tools::clip;

/// How many devices are registered at once while seeding.
const REGISTER_AT_ONCE: usize = 8;

/// What the workloads need.
pub struct Seeded {
    /// An API key with `sessions:launch` and `channel:webhooks` (and what seeding needed).
    pub key: String,
    pub campaign_id: String,
    /// The public code of the open, launched campaign.
    pub code: String,
    pub devices: Vec<Device>,
}

/// A registered device and its (current) refresh token.
pub struct Device {
    pub id: String,
    pub refresh_token: String,
}

/// A JSON client of the server under test.
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
    base_url: String,
}

impl Http {
    pub fn new(base_url: &str) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build()?;
        Ok(Self { client, base_url: base_url.to_owned() })
    }

    /// POSTs `body` (none when `None`) and answers the JSON of the answer, which must have status
    /// `expect`.
    pub async fn post(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: Option<&Value>,
        expect: StatusCode,
    ) -> anyhow::Result<Value> {
        let mut request = self.client.post(format!("{}{path}", self.base_url));
        if let Some(key) = bearer {
            request = request.bearer_auth(key);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request.send().await.with_context(|| format!("POST {path}"))?;
        let status = response.status();
        let text = response.text().await.with_context(|| format!("POST {path}: reading the answer"))?;
        ensure!(status == expect, "POST {path} answered {status}, expected {expect}: {}", clip(&text, 400));
        serde_json::from_str(&text).with_context(|| format!("POST {path} answered no JSON: {}", clip(&text, 400)))
    }
}

/// The string at `pointer` in `value`.
pub fn text(value: &Value, pointer: &str) -> anyhow::Result<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .with_context(|| format!("no `{pointer}` in {}", clip(&value.to_string(), 400)))
}

/// The body of a register of a new device (a `vendorDeviceId` no other register used).
pub fn register_body(code: &str, vendor_device_id: &str) -> Value {
    json!({
        "campaignCode": code,
        "appId": "com.example.bench",
        "platform": "android",
        "appVersion": "5.2.0",
        "deviceModel": "Pixel 8",
        "osVersion": "14",
        "locale": "en_IN",
        "vendorDeviceId": vendor_device_id,
    })
}

/// A business, a key, an approved workspace, an open launched campaign, and `devices` devices.
pub async fn seed(pulse: &Pulse, http: &Http, devices: u32) -> anyhow::Result<Seeded> {
    let business = text(&pulse.admin(&["business", "create", "--name", "Bench Partners"]).await?, "/id")?;
    let created = pulse
        .admin(&[
            "key",
            "create",
            "--business",
            &business,
            "--scopes",
            "channel:workspaces,channel:provision,sessions:launch,channel:webhooks",
        ])
        .await?;
    let key = text(&created, "/key")?;

    let org = json!({ "externalRef": "bench-client", "name": "Bench Client" });
    let workspace = http.post("/api/v1/channel/orgs", Some(&key), Some(&org), StatusCode::CREATED).await?;
    let workspace = text(&workspace, "/workspace/id")?;
    pulse.admin(&["workspace", "approve", &workspace]).await?;

    let brief = json!({ "brief": {
        "intentText": "How was the delivery of your last order?",
        "constraints": { "questionCount": 3 },
    }});
    let campaign = http.post("/api/v1/channel/campaigns", Some(&key), Some(&brief), StatusCode::CREATED).await?;
    let campaign_id = text(&campaign, "/campaign/id")?;
    let launched =
        http.post(&format!("/api/v1/channel/campaigns/{campaign_id}/launch"), Some(&key), None, StatusCode::OK).await?;
    ensure!(
        text(&launched, "/status")? == "ACTIVE",
        "the campaign did not launch: {}",
        clip(&launched.to_string(), 400)
    );
    ensure!(text(&launched, "/audience")? == "OPEN", "the campaign is not open: {}", clip(&launched.to_string(), 400));
    let code = text(&launched, "/code")?;

    let devices = register_devices(http, &code, devices).await?;
    Ok(Seeded { key, campaign_id, code, devices })
}

async fn register_devices(http: &Http, code: &str, count: u32) -> anyhow::Result<Vec<Device>> {
    let mut devices = Vec::new();
    let mut pending = JoinSet::new();
    let mut next = 0;
    while next < count || !pending.is_empty() {
        while next < count && pending.len() < REGISTER_AT_ONCE {
            let (http, body) = (http.clone(), register_body(code, &format!("seed-{next}")));
            pending.spawn(async move {
                let answer = http.post("/api/v1/apps/register", None, Some(&body), StatusCode::CREATED).await?;
                anyhow::Ok(Device { id: text(&answer, "/deviceId")?, refresh_token: text(&answer, "/refreshToken")? })
            });
            next += 1;
        }
        if let Some(joined) = pending.join_next().await {
            devices.push(joined.context("a register task failed")??);
        }
    }
    Ok(devices)
}
