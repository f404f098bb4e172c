//! The operator interface, run as operators run it: the `pulse` binary with environment variables.

use std::process::Output;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use secrecy::ExposeSecret;
use serde_json::{Value, json};

use pulse_domain::tenancy::models::Scope;
use pulse_postgres::test_db::TestDatabase;

use crate::helpers::{TestApp, envelope, free_port, spawn_app};

pub(crate) fn pulse(app: &TestApp, args: &[&str]) -> Output {
    let master = app.settings.master_key.as_ref().expect("master key").expose_secret().to_owned();
    std::process::Command::new(env!("CARGO_BIN_EXE_pulse"))
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DATABASE_URL", app.db.url())
        .env("PULSE_MASTER_KEY", master)
        .env("PULSE_STUDIO_JWT_SECRET", "cli-studio-secret")
        .current_dir(scratch_dir())
        .output()
        .expect("run pulse")
}

/// A working directory with no `.pulse-dev/`, so no development secrets are picked up.
fn scratch_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// A successful command's JSON; it says nothing else, on either stream.
pub(crate) fn json_out(output: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stderr: {stderr}");
    assert!(stderr.is_empty(), "quiet on success, but stderr said: {stderr}");
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

pub(crate) fn one_line_error(output: &Output) -> String {
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "nothing on stdout when failing");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    stderr
}

#[tokio::test]
async fn an_operator_sets_up_a_partner_end_to_end() {
    let app = spawn_app().await;
    let business = json_out(&pulse(&app, &["admin", "business", "create", "--name", "Acme"]));
    let business_id = business["id"].as_str().expect("id").to_owned();

    let created = json_out(&pulse(
        &app,
        &["admin", "key", "create", "--business", &business_id, "--scopes", "channel:workspaces,channel:results"],
    ));
    let key = created["key"].as_str().expect("key").to_owned();
    assert!(key.starts_with(&format!("svc_{}_", created["keyPrefix"].as_str().expect("prefix"))));
    assert!(created["serviceAccountId"].as_str().is_some());

    let whoami: Value = app.whoami(&key).await.json().await.expect("json");
    assert_eq!(whoami["accountId"], json!(business_id));
    let workspace = app.workspace(&key, "client").await.to_string();

    let approved = json_out(&pulse(&app, &["admin", "workspace", "approve", &workspace]));
    assert_eq!(approved, json!({"id": workspace, "status": "ACTIVE"}));
    let list: Value = app.list_orgs(&key).await.json().await.expect("json");
    assert_eq!(list["workspaces"][0]["status"], json!("ACTIVE"));

    let scoped = json_out(&pulse(
        &app,
        &[
            "admin",
            "key",
            "create",
            "--business",
            &business_id,
            "--scopes",
            "channel:results",
            "--workspace",
            &workspace,
            "--expires-in",
            "60",
        ],
    ));
    let scoped_key = scoped["key"].as_str().expect("key");
    let whoami: Value = app.whoami(scoped_key).await.json().await.expect("json");
    assert_eq!(whoami["defaultWorkspaceId"], json!(workspace));
    // The CLI stamps the expiry from the real clock: move the service's clock past it.
    app.clock.set(time::OffsetDateTime::now_utc() + time::Duration::seconds(61));
    assert_eq!(app.whoami(scoped_key).await.status(), 401, "--expires-in 60 expired");

    let revoked =
        json_out(&pulse(&app, &["admin", "key", "revoke", "--prefix", created["keyPrefix"].as_str().expect("p")]));
    assert_eq!(revoked, json!({"revoked": true}));
    assert_eq!(app.whoami(&key).await.status(), 401);
}

#[tokio::test]
async fn keys_without_a_business_and_studio_tokens() {
    let app = spawn_app().await;
    let orphan = json_out(&pulse(&app, &["admin", "key", "create", "--no-business", "--scopes", "channel:results"]));
    let response = app.list_orgs(orphan["key"].as_str().expect("key")).await;
    assert_eq!(envelope(response).await.1, "NO_ORG");

    let business = uuid::Uuid::new_v4().to_string();
    let user = uuid::Uuid::new_v4().to_string();
    let token = json_out(&pulse(
        &app,
        &[
            "admin",
            "studio-token",
            "--business",
            &business,
            "--user",
            &user,
            "--perm",
            "campaign:view",
            "--perm",
            "campaign:build",
            "--ttl",
            "120",
        ],
    ));
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_audience(&["pulse-studio"]);
    let claims = jsonwebtoken::decode::<Value>(
        token["token"].as_str().expect("token"),
        &DecodingKey::from_secret(b"cli-studio-secret"),
        &validation,
    )
    .expect("a valid HS256 token for pulse-studio")
    .claims;
    assert_eq!(claims["sub"], json!(user));
    assert_eq!(claims["business"], json!(business));
    assert_eq!(claims["perms"], json!(["campaign:view", "campaign:build"]));
    assert_eq!(claims["exp"].as_i64().zip(claims["iat"].as_i64()).map(|(e, i)| e - i), Some(120));
}

#[tokio::test]
async fn failures_are_one_line_on_stderr() {
    let app = spawn_app().await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let cases: Vec<Vec<&str>> = vec![
        vec!["admin", "key", "create", "--business", &unknown, "--scopes", "channel:results"],
        vec!["admin", "key", "create", "--no-business", "--scopes", "Not A Scope"],
        vec!["admin", "key", "revoke", "--prefix", "nope"],
        vec!["admin", "workspace", "approve", &unknown],
        vec!["admin", "key", "create", "--scopes", "channel:results"],
        vec!["admin", "business", "create"],
        vec![
            "admin",
            "studio-token",
            "--business",
            &unknown,
            "--user",
            &unknown,
            "--perm",
            "campaign:view",
            "--ttl",
            "999999",
        ],
    ];
    for args in cases {
        let stderr = one_line_error(&pulse(&app, &args));
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}

#[tokio::test]
async fn migrate_reports_what_it_applied_and_is_idempotent() {
    let app = spawn_app().await;
    let empty = TestDatabase::create_empty().await;
    let migrate = |url: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pulse"))
            .arg("migrate")
            .env_clear()
            .env("DATABASE_URL", url)
            .current_dir(scratch_dir())
            .output()
            .expect("run")
    };
    // Every migration in the repository, in order.
    let mut migrations: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations"))
        .expect("the migrations directory")
        .map(|entry| entry.expect("an entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("20"))
        .collect();
    migrations.sort();
    assert!(migrations.len() >= 14, "{migrations:?}");
    assert_eq!(json_out(&migrate(empty.url())), json!({ "applied": migrations }));
    assert_eq!(json_out(&migrate(empty.url())), json!({"applied": []}));
    // The test database is cloned from a migrated template: nothing is pending there either.
    assert_eq!(json_out(&pulse(&app, &["migrate"])), json!({"applied": []}));
}

#[tokio::test]
async fn commands_refuse_to_run_without_the_master_key() {
    let app = spawn_app().await;
    let without_key = std::process::Command::new(env!("CARGO_BIN_EXE_pulse"))
        .args(["admin", "key", "revoke", "--prefix", "x"])
        .env_clear()
        .env("DATABASE_URL", app.db.url())
        .current_dir(scratch_dir())
        .output()
        .expect("run");
    assert!(one_line_error(&without_key).contains("PULSE_MASTER_KEY"));
}

#[tokio::test]
async fn an_unknown_scope_is_refused_with_the_known_ones_and_issues_nothing() {
    let app = spawn_app().await;
    let business = json_out(&pulse(&app, &["admin", "business", "create", "--name", "Acme"]));
    let business = business["id"].as_str().expect("id");
    let (accounts, keys) = (app.count_rows("service_accounts").await, app.count_rows("api_keys").await);

    let stderr = one_line_error(&pulse(
        &app,
        &["admin", "key", "create", "--business", business, "--scopes", "channel:workspaces,channel:resluts"],
    ));
    assert!(stderr.contains("`channel:resluts` is not a known scope"), "{stderr}");
    for known in Scope::KNOWN {
        assert!(stderr.contains(known), "lists {known}: {stderr}");
    }
    assert_eq!(app.count_rows("service_accounts").await, accounts, "no service account made");
    assert_eq!(app.count_rows("api_keys").await, keys, "no key issued");
}

#[tokio::test]
async fn help_lists_the_known_scopes_and_says_ids_are_uuids() {
    let app = spawn_app().await;
    let help = |args: &[&str]| {
        let output = pulse(&app, args);
        assert!(output.status.success(), "{args:?}");
        String::from_utf8(output.stdout).expect("utf-8").split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let key_create = help(&["admin", "key", "create", "--help"]);
    for known in Scope::KNOWN {
        assert!(key_create.contains(known), "key create --help lists {known}: {key_create}");
    }
    assert!(
        key_create.contains("--business <BUSINESS> The business the key acts for: its id (a UUID)"),
        "{key_create}"
    );
    let studio = help(&["admin", "studio-token", "--help"]);
    assert!(studio.contains("--user <USER> The Studio user's id: a UUID"), "{studio}");
}

/// On a development machine, operator commands take the secrets `pulse serve --dev` kept in
/// `.pulse-dev/` and still print only their JSON.
#[tokio::test]
async fn commands_using_the_development_secrets_are_quiet() {
    let app = spawn_app().await;
    let workdir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-dev-{}", uuid::Uuid::new_v4()));
    let secrets = workdir.join(".pulse-dev");
    std::fs::create_dir_all(&secrets).expect("dev dir");
    let master = app.settings.master_key.as_ref().expect("master key").expose_secret().to_owned();
    std::fs::write(secrets.join("master.key"), master).expect("master key file");
    std::fs::write(secrets.join("studio-jwt.secret"), "dev-studio-secret").expect("studio secret file");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pulse"))
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("DATABASE_URL", app.db.url())
            .current_dir(&workdir)
            .output()
            .expect("run pulse")
    };
    let business = json_out(&run(&["admin", "business", "create", "--name", "Acme"]));
    let business = business["id"].as_str().expect("id").to_owned();
    let key = json_out(&run(&["admin", "key", "create", "--business", &business, "--scopes", "channel:results"]));
    assert!(key["key"].as_str().is_some_and(|k| k.starts_with("svc_")));
    let user = uuid::Uuid::new_v4().to_string();
    let token =
        json_out(&run(&["admin", "studio-token", "--business", &business, "--user", &user, "--perm", "campaign:view"]));
    assert!(token["token"].as_str().is_some());
    std::fs::remove_dir_all(&workdir).expect("clean up");
}

/// On SIGTERM the process first answers readiness with 503 (balancers stop sending here) while
/// still serving, then drains and exits 0.
#[tokio::test]
async fn a_stop_signal_turns_readiness_off_before_the_server_drains() {
    let app = spawn_app().await;
    let master = app.settings.master_key.as_ref().expect("master key").expose_secret().to_owned();
    let port = free_port();
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_pulse"))
        .arg("serve")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DATABASE_URL", app.db.url())
        .env("PULSE_MASTER_KEY", master)
        .env("PULSE_BIND", format!("127.0.0.1:{port}"))
        .env("PULSE_DRAIN_SECS", "2")
        .current_dir(scratch_dir())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("pulse serve");
    let base = format!("http://127.0.0.1:{port}");
    let ready = || app.client.get(format!("{base}/readyz")).send();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !ready().await.is_ok_and(|r| r.status() == 200) {
        assert!(std::time::Instant::now() < deadline, "the server came up");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let pid = serve.id().to_string();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill").success());
    // The signal reaches the process in its own time: wait for readiness to turn, within the grace.
    let mut answer = ready().await.expect("still serving");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while answer.status() == 200 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        answer = ready().await.expect("still serving");
    }
    let (status, code, description) = envelope(answer).await;
    assert_eq!((status, code.as_str()), (503, "UNAVAILABLE"));
    assert!(description.contains("shutting down"), "{description}");
    let live = app.client.get(format!("{base}/healthz")).send().await.expect("still serving during the grace");
    assert_eq!(live.status(), 200);
    let exit = tokio::task::spawn_blocking(move || serve.wait()).await.expect("joined").expect("exit status");
    assert!(exit.success(), "{exit}");
}
