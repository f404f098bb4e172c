//! `spawn_app`, the `TestApp` it returns and its request plumbing; the endpoint helpers live in
//! one module per route family, each adding its own `impl TestApp`.

pub mod admin;
pub mod apps;
pub mod campaigns;
pub mod cluster;
pub mod db;
pub mod exports;
pub mod identity;
pub mod public;
pub mod results;
pub mod studio;
pub mod webhooks;

use std::io::Write;
use std::sync::{Arc, Mutex, Once, OnceLock};

use pulse::platform::AppClock;
use pulse::settings::{LogFormat, Settings};
use pulse::startup::Application;
use pulse::telemetry::{build_subscriber, init_subscriber};
use pulse_crypto::MasterKey;
use pulse_domain::quota::models::QuotaPolicy;
use pulse_domain::shared::clock::SettableClock;
use pulse_postgres::test_db::TestDatabase;
use secrecy::SecretString;
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
    /// The metrics listener's address, when the settings gave it one.
    pub metrics_address: Option<String>,
    pub clock: SettableClock,
    pub client: reqwest::Client,
    pub settings: Settings,
    pub db: TestDatabase,
}

/// A port nothing listens on now, for a server a test starts that must be told its port first.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Senders for every message channel, at addresses nobody answers: campaigns on those channels
/// can launch, and every message is deferred.
pub fn unreachable_senders(settings: &mut Settings) {
    settings.outreach.smtp = Some(pulse_outreach_senders::SmtpSettings {
        url: "smtp://127.0.0.1:9?tls=none".into(),
        from_address: "surveys@pulse.test".into(),
        username: None,
        password: None,
        timeout: std::time::Duration::from_secs(2),
    });
    settings.outreach.twilio = Some(pulse_outreach_senders::TwilioSettings {
        api_base: "http://127.0.0.1:9".parse().expect("a URL"),
        account_sid: "AC0123456789".into(),
        auth_token: SecretString::from("unused"),
        sms_from: Some("+15550001111".into()),
        whatsapp_from: Some("+15550001111".into()),
        timeout: std::time::Duration::from_secs(2),
    });
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
    let metrics_address = app.metrics_port().map(|port| format!("http://127.0.0.1:{port}"));
    tokio::spawn(app.run_until_stopped());
    // The server closes a connection idle for 5 s (actix's keep-alive); a client that reused one
    // at that moment would see it cut mid-request, so the test client lets go of idle ones first.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("client");
    TestApp { address, metrics_address, clock, client, settings, db }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    /// The application's time.
    pub fn now(&self) -> OffsetDateTime {
        pulse_domain::shared::clock::Clock::now(&self.clock)
    }

    /// Another replica of the service over the same database (and clock), for tests of what
    /// replicas must share.
    pub fn second_instance(&self) -> String {
        let app = Application::build(&self.settings, AppClock::Settable(self.clock.clone())).expect("second replica");
        let address = format!("http://127.0.0.1:{}", app.port());
        tokio::spawn(app.run_until_stopped());
        address
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
