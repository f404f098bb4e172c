//! TLS to PostgreSQL, against a real server with TLS switched on and certificates from a
//! certificate authority this test makes: `sslmode` and `sslrootcert` act as in libpq, for the
//! primary and the read replica, for `pulse migrate` and `pulse serve`, and every refusal is a
//! start-up error that names its cause and never the password.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Output;

use pulse_crypto::MasterKey;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair, KeyUsagePurpose};

use crate::helpers::campaigns::id_of;
use crate::helpers::cluster::Cluster;
use crate::helpers::{free_port, spawn_app_with};

const PASSWORD: &str = "Tr0ub4dor-and-3";

/// A certificate authority's certificate, in PEM.
fn authority(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("parameters");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    CertifiedIssuer::self_signed(params, KeyPair::generate().expect("a key")).expect("a CA")
}

/// What the tests need: the server's CA and another, their PEM files, and a folder to drop.
struct Certificates {
    folder: PathBuf,
    trusted: PathBuf,
    unknown: PathBuf,
}

impl Certificates {
    /// Writes the server's certificate (issued to `localhost` only) and key into `data`, and
    /// both authorities' certificates into a scratch folder.
    fn issue(data: &Path) -> Self {
        let ca = authority("Pulse test CA");
        let key = KeyPair::generate().expect("a key");
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("parameters");
        params.distinguished_name.push(DnType::CommonName, "localhost");
        let server = params.signed_by(&key, &ca).expect("a server certificate");
        std::fs::write(data.join("server.crt"), server.pem()).expect("written");
        std::fs::write(data.join("server.key"), key.serialize_pem()).expect("written");
        // PostgreSQL refuses a key others may read.
        let private = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(data.join("server.key"), private).expect("key made private");

        let folder = std::env::temp_dir().join(format!("pulse-tls-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&folder).expect("a folder");
        let (trusted, unknown) = (folder.join("ca.pem"), folder.join("other-ca.pem"));
        std::fs::write(&trusted, ca.pem()).expect("written");
        std::fs::write(&unknown, authority("Someone else's CA").pem()).expect("written");
        Self { folder, trusted, unknown }
    }
}

impl Drop for Certificates {
    fn drop(&mut self) {
        let _removed = std::fs::remove_dir_all(&self.folder);
    }
}

/// A server with TLS on, where the role `pulse` may connect only over TLS, with its password.
fn server_with_tls() -> (Cluster, Certificates) {
    let mut certificates = None;
    let cluster = Cluster::prepared("tls", |data| {
        certificates = Some(Certificates::issue(data));
        let mut conf = std::fs::read_to_string(data.join("postgresql.conf")).expect("postgresql.conf");
        conf.push_str("\nssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n");
        std::fs::write(data.join("postgresql.conf"), conf).expect("written");
        std::fs::write(
            data.join("pg_hba.conf"),
            "local all all trust\n\
             hostssl all pulse 127.0.0.1/32 scram-sha-256\n\
             hostnossl all pulse 127.0.0.1/32 reject\n\
             host all postgres 127.0.0.1/32 trust\n",
        )
        .expect("written");
    });
    cluster.sql_on("postgres", &format!("CREATE ROLE pulse LOGIN PASSWORD '{PASSWORD}'"));
    cluster.sql_on("postgres", "CREATE DATABASE pulse OWNER pulse");
    (cluster, certificates.expect("issued"))
}

/// `pulse`'s URL on `host`, with `parameters` after `?`.
fn url(cluster: &Cluster, host: &str, parameters: &str) -> String {
    format!("postgres://pulse:{PASSWORD}@{host}:{}/pulse?{parameters}", cluster.port)
}

fn verify_full(cluster: &Cluster, roots: &Path) -> String {
    url(cluster, "localhost", &format!("sslmode=verify-full&sslrootcert={}", roots.display()))
}

/// `pulse <args>` as an operator runs it, with the given database URLs. A command meant to stop
/// at start-up that does not is stopped after 30 s.
async fn pulse(args: &[&str], database_url: &str, read_url: Option<&str>) -> Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_pulse"));
    command
        .args(args)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("DATABASE_URL", database_url)
        .env("PULSE_MASTER_KEY", MasterKey::generate_base64())
        .env("PULSE_BIND", format!("127.0.0.1:{}", free_port()))
        .current_dir(std::env::temp_dir())
        .kill_on_drop(true);
    if let Some(read_url) = read_url {
        command.env("DATABASE_READ_URL", read_url);
    }
    let finished = tokio::time::timeout(std::time::Duration::from_secs(30), command.output()).await;
    finished.expect("pulse stopped within 30 s").expect("run pulse")
}

/// A command that failed at start-up, its one-line error naming `cause` and not the password.
fn refused(output: &Output, cause: &str) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(!output.status.success(), "refused, but it succeeded: {stderr}");
    assert!(stderr.contains(cause), "the error should name {cause:?}: {stderr}");
    assert!(!stderr.contains(PASSWORD), "the error shows the password: {stderr}");
    stderr
}

/// Connections `pulse` holds now, and how many of them are encrypted.
fn sessions_of_pulse(cluster: &Cluster) -> (i64, i64) {
    let counts = cluster.sql_on(
        "postgres",
        "SELECT count(*), count(*) FILTER (WHERE s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) \
         WHERE a.usename = 'pulse'",
    );
    let (all, encrypted) = counts.split_once('|').expect("two counts");
    (all.parse().expect("a count"), encrypted.parse().expect("a count"))
}

#[tokio::test]
async fn verify_full_migrates_and_serves_from_the_primary_and_the_read_replica() {
    let (cluster, certificates) = server_with_tls();
    let database_url = verify_full(&cluster, &certificates.trusted);

    let migrated = pulse(&["migrate"], &database_url, None).await;
    assert!(migrated.status.success(), "{}", String::from_utf8_lossy(&migrated.stderr));
    let applied: serde_json::Value = serde_json::from_slice(&migrated.stdout).expect("JSON");
    assert!(!applied["applied"].as_array().expect("applied").is_empty(), "{applied}");

    // The same server stands in for the replica: what matters is that both pools verify.
    let (write_url, read_url) = (database_url.clone(), database_url.clone());
    let app = spawn_app_with(move |s| {
        s.database_url = write_url;
        s.database_read_url = Some(read_url);
    })
    .await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let listed = app.client.get(app.url("/api/v1/channel/campaigns")).bearer_auth(&partner.key.key).send().await;
    let listed: serde_json::Value = listed.expect("sent").json().await.expect("JSON");
    assert_eq!(listed["items"][0]["id"], id_of(&campaign), "read back through the replica's pool");
    let (all, encrypted) = sessions_of_pulse(&cluster);
    assert!(all > 0 && encrypted == all, "{encrypted} of {all} connections encrypted");
}

#[tokio::test]
async fn the_modes_check_what_libpq_checks() {
    let (cluster, certificates) = server_with_tls();
    let (trusted, unknown) = (certificates.trusted.display(), certificates.unknown.display());
    let connects =
        |url: String| async move { pulse_postgres::check_connection(&url).await.map_err(|e| format!("{e:#}")) };

    // verify-ca checks the chain and not the name; require checks nothing unless given a root
    // file, and then the chain; prefer takes TLS when offered.
    for parameters in [
        format!("sslmode=verify-ca&sslrootcert={trusted}"),
        "sslmode=require".to_owned(),
        format!("sslmode=require&sslrootcert={trusted}"),
        "sslmode=prefer".to_owned(),
        String::new(),
    ] {
        let result = connects(url(&cluster, "127.0.0.1", &parameters)).await;
        assert!(result.is_ok(), "{parameters}: {result:?}");
    }
    for (parameters, cause) in [
        (format!("sslmode=verify-ca&sslrootcert={unknown}"), "UnknownIssuer"),
        (format!("sslmode=require&sslrootcert={unknown}"), "UnknownIssuer"),
        (format!("sslmode=verify-full&sslrootcert={trusted}"), "not valid for name"),
        // The platform's store does not know this test's authority.
        ("sslmode=verify-full".to_owned(), "UnknownIssuer"),
        // Plain connections are refused to this role by the server itself.
        ("sslmode=disable".to_owned(), "no encryption"),
    ] {
        let error = connects(url(&cluster, "127.0.0.1", &parameters)).await.expect_err(&parameters);
        assert!(error.contains(cause) && !error.contains(PASSWORD), "{parameters}: {error}");
    }
}

#[tokio::test]
async fn a_wrong_host_name_an_unknown_authority_and_a_plain_server_each_stop_the_start() {
    let (cluster, certificates) = server_with_tls();
    let trusted = certificates.trusted.display().to_string();

    let by_address = url(&cluster, "127.0.0.1", &format!("sslmode=verify-full&sslrootcert={trusted}"));
    let stderr = refused(&pulse(&["migrate"], &by_address, None).await, "not valid for name");
    assert!(stderr.contains(&format!("127.0.0.1:{}/pulse (sslmode=verify-full)", cluster.port)), "{stderr}");

    let stranger = verify_full(&cluster, &certificates.unknown);
    let stderr = refused(&pulse(&["migrate"], &stranger, None).await, "UnknownIssuer");
    let unknown = certificates.unknown.display();
    assert!(stderr.contains(&format!("not issued by an authority in sslrootcert={unknown}")), "{stderr}");
    assert!(stderr.starts_with("error: DATABASE_URL: connecting to localhost"), "{stderr}");

    let plain = Cluster::primary();
    plain.sql_on("postgres", "CREATE DATABASE pulse");
    let without_tls = format!("postgres://postgres:{PASSWORD}@localhost:{}/pulse?sslmode=require", plain.port);
    refused(&pulse(&["migrate"], &without_tls, None).await, "server does not support TLS");

    // serve checks its primary before it listens, and its read replica too.
    let trusted_primary = verify_full(&cluster, &certificates.trusted);
    assert!(pulse(&["migrate"], &trusted_primary, None).await.status.success());
    refused(&pulse(&["serve"], &stranger, None).await, "UnknownIssuer");
    let stderr = refused(&pulse(&["serve"], &trusted_primary, Some(&by_address)).await, "not valid for name");
    assert!(stderr.contains("DATABASE_READ_URL"), "{stderr}");
    refused(&pulse(&["serve"], &trusted_primary, Some(&without_tls)).await, "server does not support TLS");
}

#[tokio::test]
async fn a_tls_setting_that_cannot_work_is_named_before_any_connection() {
    let (cluster, _certificates) = server_with_tls();
    for (parameters, cause) in [
        ("sslmode=verify_full", "sslmode=verify_full is not one of"),
        ("sslmode=require&sslrootcert=system", "sslrootcert=system needs sslmode=verify-full"),
        ("sslmode=verify-full&sslrootcert=/nowhere/ca.pem", "sslrootcert=/nowhere/ca.pem"),
    ] {
        refused(&pulse(&["migrate"], &url(&cluster, "localhost", parameters), None).await, cause);
    }
}
