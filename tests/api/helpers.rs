//! `spawn_app` and one helper per endpoint.

use std::io::Write;
use std::sync::{Arc, Mutex, Once, OnceLock};

use pulse::settings::{LogFormat, Settings};
use pulse::startup::{AppClock, Application, crypto_from, store_from};
use pulse::telemetry::{build_subscriber, init_subscriber};
use pulse_crypto::MasterKey;
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::quota::models::QuotaPolicy;
use pulse_domain::shared::clock::SettableClock;
use pulse_domain::tenancy::service::Admin;
use pulse_domain::tenancy::service::KeyRequest;
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
    // The app's own analysis worker runs one round at start and then idles: tests analyze with
    // `analyze()`, so what is analyzed when is decided by the test, not by timing.
    settings.analysis_poll_every = std::time::Duration::from_secs(3600);
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

impl TestApp {
    pub async fn approve_workspace(&self, id: WorkspaceId) {
        self.admin().approve_workspace(id).await.expect("approve");
    }

    /// A business with an approved workspace and a key with every campaign scope.
    pub async fn campaign_partner(&self) -> CampaignPartner {
        let business = self.create_business().await;
        let key = self.create_key(Some(business), &CAMPAIGN_SCOPES).await;
        let workspace = self.workspace(&key.key, "client-1").await;
        self.approve_workspace(workspace).await;
        CampaignPartner { business, workspace, key }
    }

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

    /// `GET .../access` with query pairs such as `("lt", token)`.
    pub async fn access(&self, code: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/public/pulse/{code}/access")))
            .query(query)
            .send()
            .await
            .expect("request")
    }

    pub async fn start(&self, code: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/start")))
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn answer(&self, code: &str, session: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/answers")))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn complete(&self, code: &str, session: &str, token: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/complete")))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }
}

/// Signs a launch token the way a partner's server does: HS256 with the launch-key secret's UTF-8
/// bytes, `kid` = the key id.
pub fn sign_launch_token(kid: Option<&str>, secret: &str, claims: &Value) -> String {
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &jsonwebtoken::EncodingKey::from_secret(secret.as_bytes())).expect("sign")
}

/// What a test reads in the database behind the API: only to prove what was not stored (a refused
/// call leaves no row; personal data and partner ids never sit there in clear).
#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

#[derive(diesel::QueryableByName)]
struct TableName {
    #[diesel(sql_type = diesel::sql_types::Text)]
    name: String,
}

impl TestApp {
    async fn db_connection(&self) -> diesel_async::AsyncPgConnection {
        use diesel_async::AsyncConnection as _;
        diesel_async::AsyncPgConnection::establish(self.db.url()).await.expect("test database")
    }

    /// How many rows `table` holds.
    pub async fn count_rows(&self, table: &str) -> i64 {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let row: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM \"{table}\""))
            .get_result(&mut conn)
            .await
            .expect("count");
        row.n
    }

    /// How many rows `SELECT count(*) FROM <from_where>` counts, e.g. `jobs WHERE done`.
    pub async fn count_where(&self, from_where: &str) -> i64 {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let row: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM {from_where}"))
            .get_result(&mut conn)
            .await
            .expect("count");
        row.n
    }

    /// The tables with a row whose text form holds `needle` (bytea columns read as hex, so a sealed
    /// or digested value never matches).
    pub async fn tables_holding(&self, needle: &str) -> Vec<String> {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        let tables: Vec<TableName> = diesel::sql_query(
            "SELECT table_name::text AS name FROM information_schema.tables \
             WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
        )
        .load(&mut conn)
        .await
        .expect("tables");
        assert!(tables.iter().any(|t| t.name == "sessions"), "the schema is visible");
        let mut holding = Vec::new();
        for table in tables {
            let row: Count = diesel::sql_query(format!(
                "SELECT count(*) AS n FROM \"{}\" AS r WHERE strpos(r::text, $1) > 0",
                table.name
            ))
            .bind::<diesel::sql_types::Text, _>(needle)
            .get_result(&mut conn)
            .await
            .expect("scan");
            if row.n > 0 {
                holding.push(table.name);
            }
        }
        holding
    }
}

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
    /// The application's time.
    pub fn now(&self) -> OffsetDateTime {
        pulse_domain::shared::clock::Clock::now(&self.clock)
    }

    /// Mints a link for `campaign` and returns it parsed.
    pub async fn minted(&self, key: &str, campaign: &str) -> Link {
        let response = self.mint_link(key, &serde_json::json!({"campaignId": campaign})).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        Link::parse(body["url"].as_str().expect("url"))
    }

    /// Creates a launch key; returns its id (the `kid`) and its secret.
    pub async fn launch_key(&self, token: &str, campaign: &str) -> (String, String) {
        let response = self.create_launch_key(token, campaign, None).await;
        assert_eq!(response.status(), 201);
        let body: Value = response.json().await.expect("json");
        (body["id"].as_str().expect("id").to_owned(), body["secret"].as_str().expect("secret").to_owned())
    }

    /// Starts a session with consent and `extra` fields; returns the 201 body.
    pub async fn started(&self, code: &str, extra: &Value) -> Value {
        let mut body = serde_json::json!({"consentGiven": true});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let response = self.start(code, &body).await;
        assert_eq!(response.status(), 201);
        response.json().await.expect("json")
    }
}

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

impl TestApp {
    /// Runs one SQL statement against the test database (to stage what the API cannot, such as a
    /// host that resolves elsewhere after registration).
    pub async fn execute_sql(&self, sql: &str) {
        use diesel_async::RunQueryDsl as _;
        let mut conn = self.db_connection().await;
        diesel::sql_query(sql).execute(&mut conn).await.expect("statement");
    }

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

impl TestApp {
    pub async fn results(&self, key: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{campaign}/results")))
            .query(query)
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Analyzes every finished session that is due, as a replica's worker does; returns what it did.
    pub async fn analyze(&self) -> Vec<pulse_domain::analysis::models::AnalysisSummary> {
        let analysis = pulse::startup::analysis_from(
            store_from(&self.settings).expect("store"),
            crypto_from(&self.settings).expect("crypto"),
            AppClock::Settable(self.clock.clone()),
        );
        let mut done = Vec::new();
        loop {
            let round = analysis.run_due().await.expect("an analysis round");
            if round.is_empty() {
                return done;
            }
            done.extend(round);
        }
    }

    /// The campaign's results after analyzing what is due; `completed` finished sessions are
    /// expected, all of them analyzed.
    pub async fn analyzed_results(&self, key: &str, campaign: &str, completed: u64) -> Value {
        self.analyze().await;
        let response = self.results(key, campaign, &[]).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        assert_eq!(
            (&body["metrics"]["completed"], &body["metrics"]["pendingAnalysis"]),
            (&completed.into(), &0.into())
        );
        body
    }

    /// Starts a session (with `extra` start fields), answers `answers` (`[[questionId, value]]`)
    /// and completes it; returns the session id.
    pub async fn respond(&self, code: &str, extra: &Value, answers: &[(&str, Value)]) -> String {
        let started = self.started(code, extra).await;
        let session = started["sessionId"].as_str().expect("session").to_owned();
        let token = started["sessionToken"].as_str().expect("token").to_owned();
        let body = serde_json::json!({"answers": answers.iter()
            .map(|(q, v)| serde_json::json!({"questionId": q, "value": v})).collect::<Vec<_>>()});
        assert_eq!(self.answer(code, &session, &token, &body).await.status(), 200);
        self.clock.advance(time::Duration::seconds(90));
        assert_eq!(self.complete(code, &session, &token).await.status(), 200);
        session
    }
}
