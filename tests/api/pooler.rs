//! Pulse behind PgBouncer in session mode, the one pooling mode that keeps what Pulse holds per
//! connection: its prepared statements, the `jit` setting made at connect, and the migration's
//! advisory lock (docs/deploy.md, "Behind a connection pooler").

use std::os::unix::fs::PermissionsExt as _;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use pulse_postgres::test_db::test_server_url;
use serde_json::json;

use crate::helpers::campaigns::code_of;
use crate::helpers::{free_port, spawn_app_with};

/// Debian's PgBouncer, in front of the test PostgreSQL, for as long as this value lives.
struct PgBouncer {
    port: u16,
    folder: PathBuf,
    process: Child,
}

impl PgBouncer {
    /// Every database of the test server, pooled by session.
    async fn start() -> Self {
        let server = url::Url::parse(&test_server_url()).expect("the test server's URL");
        let (server_host, server_port) = (server.host_str().unwrap_or("127.0.0.1"), server.port().unwrap_or(5432));
        let port = free_port();
        let folder = std::env::temp_dir().join(format!("pulse-pgbouncer-{port}"));
        std::fs::create_dir_all(&folder).expect("a folder");
        let ini = folder.join("pgbouncer.ini");
        let users = folder.join("users.txt");
        std::fs::write(&users, "\"postgres\" \"\"\n").expect("users");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n* = host={server_host} port={server_port}\n\n[pgbouncer]\nlisten_addr = 127.0.0.1\n\
                 listen_port = {port}\nunix_socket_dir =\nauth_type = trust\nauth_file = {}\npool_mode = session\n\
                 max_client_conn = 200\ndefault_pool_size = 60\n",
                users.display()
            ),
        )
        .expect("ini");
        // PgBouncer refuses to run as root; it then runs as the server's own user, who must read
        // its files.
        let as_root = Command::new("id").arg("-u").output().is_ok_and(|out| out.stdout.starts_with(b"0\n"));
        for path in [&folder, &ini, &users] {
            let mode = if path.is_dir() { 0o755 } else { 0o644 };
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("readable");
        }
        let mut command = Command::new("pgbouncer");
        if as_root {
            command.args(["-u", "postgres"]);
        }
        let process = command
            .arg(&ini)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("pgbouncer: install Debian's pgbouncer package (.ci/run does)");
        let listening = async {
            while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(30), listening).await.expect("pgbouncer listens");
        Self { port, folder, process }
    }

    /// `url`, through the pooler.
    fn route(&self, url: &str) -> String {
        let mut url = url::Url::parse(url).expect("a database URL");
        url.set_port(Some(self.port)).expect("a port");
        url.to_string()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

#[tokio::test]
async fn a_partner_and_respondents_go_through_pgbouncer_in_session_mode() {
    let pooler = PgBouncer::start().await;
    let app = spawn_app_with(|s| s.database_url = pooler.route(&s.database_url)).await;
    assert!(app.settings.database_url.contains(&format!(":{}/", pooler.port)), "every connection goes through it");
    let applied = pulse_postgres::run_migrations(&app.settings.database_url).await.expect("migrations checked");
    assert!(applied.is_empty(), "the migration's advisory lock held across the pooler, nothing left to apply");

    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let question = campaign["survey"]["questions"][0]["id"].as_str().expect("a question").to_owned();
    for rating in [5, 4, 2] {
        app.respond(code_of(&campaign), &json!({}), &[(question.as_str(), json!(rating))]).await;
    }
    let results = app.analyzed_results(key, campaign["id"].as_str().expect("id"), 3).await;
    assert_eq!((&results["acceptedCount"], &results["questions"][0]["answered"]), (&3.into(), &3.into()));
}
