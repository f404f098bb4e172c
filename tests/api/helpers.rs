//! `spawn_app` and one helper per endpoint.

use std::io::Write;
use std::sync::{Arc, Mutex, Once, OnceLock};

use pulse::settings::{LogFormat, Settings};
use pulse::startup::{AppClock, Application, crypto_from, store_from};
use pulse::telemetry::{build_subscriber, init_subscriber};
use pulse_crypto::MasterKey;
use pulse_domain::clock::SettableClock;
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::quota::QuotaPolicy;
use pulse_domain::services::{Admin, KeyRequest};
use pulse_postgres::test_db::TestDatabase;
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;
use time::OffsetDateTime;
use time::macros::datetime;

/// Everything every test logs, so tests can prove what never reaches a log line.
pub fn captured_logs() -> String {
    String::from_utf8_lossy(&log_buffer().lock().unwrap_or_else(std::sync::PoisonError::into_inner)).into_owned()
}

fn log_buffer() -> &'static Arc<Mutex<Vec<u8>>> {
    static BUFFER: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    BUFFER.get_or_init(Default::default)
}

#[derive(Clone)]
struct CaptureWriter;

impl Write for CaptureWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        log_buffer().lock().unwrap_or_else(std::sync::PoisonError::into_inner).extend_from_slice(buf);
        if std::env::var_os("TEST_LOG").is_some() {
            std::io::stderr().write_all(buf)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn init_logs() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // Debug for our crates: the strictest check that nothing secret is logged.
        let subscriber = build_subscriber("info,pulse=debug,pulse_api=debug", LogFormat::Json, || CaptureWriter);
        init_subscriber(subscriber).expect("one subscriber per test process");
    });
}

/// The start of every test's clock: a fixed instant, so windows and expiries are exact.
pub const START: OffsetDateTime = datetime!(2026-03-02 10:00:00 UTC);

pub struct TestApp {
    pub address: String,
    pub clock: SettableClock,
    pub client: reqwest::Client,
    pub settings: Settings,
    pub db: TestDatabase,
}

/// A key as the operator hands it out.
pub struct TestKey {
    pub key: String,
    pub prefix: String,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Starts the real application on a free port over its own database; `configure` may change the
/// settings first (quotas, for instance).
pub async fn spawn_app_with(configure: impl FnOnce(&mut Settings)) -> TestApp {
    init_logs();
    let db = TestDatabase::create().await;
    let mut settings = Settings::from_lookup(|_| None).expect("default settings");
    settings.database_url = db.url().to_owned();
    settings.bind = "127.0.0.1:0".parse().expect("address");
    settings.master_key = Some(SecretString::from(MasterKey::generate_base64()));
    settings.studio_jwt_secret = Some(SecretString::from("studio-secret-for-tests"));
    settings.quotas = QuotaPolicy::default();
    configure(&mut settings);
    let clock = SettableClock::new(START);
    let app = Application::build(&settings, AppClock::Settable(clock.clone())).expect("build the application");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    TestApp { address, clock, client, settings, db }
}

impl TestApp {
    fn admin(&self) -> Admin<pulse_postgres::PgStore, Arc<pulse_crypto::RingCrypto>, SettableClock> {
        Admin::new(
            store_from(&self.settings).expect("store"),
            crypto_from(&self.settings).expect("crypto"),
            self.clock.clone(),
        )
    }

    pub async fn create_business(&self) -> BusinessId {
        self.admin().create_business("Acme Partners").await.expect("business").id
    }

    pub async fn create_key(&self, business: Option<BusinessId>, scopes: &[&str]) -> TestKey {
        self.create_key_with(business, scopes, &[], None).await
    }

    pub async fn create_key_with(
        &self,
        business: Option<BusinessId>,
        scopes: &[&str],
        workspaces: &[WorkspaceId],
        expires_in: Option<time::Duration>,
    ) -> TestKey {
        let issued = self
            .admin()
            .create_key(KeyRequest {
                business_id: business,
                scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
                workspaces: workspaces.to_vec(),
                expires_in,
            })
            .await
            .expect("key");
        TestKey { key: issued.key.expose_secret().to_owned(), prefix: issued.prefix }
    }

    pub async fn revoke_key(&self, prefix: &str) {
        self.admin().revoke_key(prefix).await.expect("revoke");
    }

    /// A business with one key that may create workspaces.
    pub async fn partner(&self) -> (BusinessId, TestKey) {
        let business = self.create_business().await;
        let key = self.create_key(Some(business), &["channel:workspaces", "channel:results"]).await;
        (business, key)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

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

/// Reads an error envelope and checks it has exactly the three fields.
pub async fn envelope(response: reqwest::Response) -> (u16, String, String) {
    let status = response.status().as_u16();
    let body: Value = response.json().await.expect("error body is JSON");
    let object = body.as_object().expect("error body is an object");
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "description", "title"], "envelope fields of {body}");
    assert!(!body["title"].as_str().unwrap_or_default().is_empty());
    (status, body["code"].as_str().expect("code").to_owned(), body["description"].as_str().expect("d").to_owned())
}

impl TestApp {
    /// Another replica of the service over the same database (and clock), for tests of what
    /// replicas must share.
    pub fn second_instance(&self) -> String {
        let app = Application::build(&self.settings, AppClock::Settable(self.clock.clone())).expect("second replica");
        let address = format!("http://127.0.0.1:{}", app.port());
        tokio::spawn(app.run_until_stopped());
        address
    }
}
