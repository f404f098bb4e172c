//! Finding or bringing up a local PostgreSQL, for `pulse serve --dev` and the test suite.
//!
//! Production never takes this path: there the database is the operator's and `pulse migrate`
//! is run against it explicitly.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, bail};
use diesel::sql_types::Text;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use tokio::process::Command;

use crate::connection::DatabaseTarget;

/// The parts of a `postgres://` URL this module needs. `Debug` leaves out the parts that may
/// carry a password.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerUrl {
    /// Everything before the database name, e.g. `postgres://postgres@127.0.0.1:5432`.
    pub server: String,
    pub database: String,
    /// `?…`, kept as given.
    pub params: String,
    pub host: String,
    pub port: u16,
}

impl std::fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerUrl")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("database", &self.database)
            .finish_non_exhaustive()
    }
}

impl ServerUrl {
    /// # Errors
    /// When the URL is not `postgres://` or `postgresql://` with a database name.
    pub fn parse(url: &str) -> anyhow::Result<Self> {
        let rest = url
            .strip_prefix("postgres://")
            .or_else(|| url.strip_prefix("postgresql://"))
            .context("the database URL must start with postgres://")?;
        let (rest, params) = match rest.split_once('?') {
            Some((r, p)) => (r, format!("?{p}")),
            None => (rest, String::new()),
        };
        let (authority, database) = rest.split_once('/').context("the database URL names no database")?;
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, hp)| hp);
        // `[v6]:port`, `[v6]`, `host:port` or `host`.
        let (host, port) = match host_port.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((v6, rest)) => (v6.to_owned(), rest.strip_prefix(':')),
            None => match host_port.rsplit_once(':') {
                Some((h, p)) => (h.to_owned(), Some(p)),
                None => (host_port.to_owned(), None),
            },
        };
        let port = port.map_or(Ok(5432), str::parse).context("bad port in the database URL")?;
        if database.is_empty() {
            bail!("the database URL names no database");
        }
        let server = format!("{}{}", &url[..url.len() - rest.len() - params.len()], authority);
        Ok(Self { server, database: database.to_owned(), params, host, port })
    }

    /// The URL of another database on the same server.
    pub fn with_database(&self, database: &str) -> String {
        format!("{}/{}{}", self.server, database, self.params)
    }

    fn is_local(&self) -> bool {
        matches!(self.host.as_str(), "127.0.0.1" | "localhost" | "::1" | "")
    }
}

/// Makes sure the server of `database_url` answers, starting a local one if it is down, and
/// that the database exists.
///
/// # Errors
/// When no server answers and none could be started, or the database cannot be created.
pub async fn ensure_database(database_url: &str) -> anyhow::Result<()> {
    let url = ServerUrl::parse(database_url)?;
    let mut conn = ensure_server(&url).await?;
    create_database_if_missing(&mut conn, &url.database).await
}

/// A connection to the server's `postgres` database, bringing a local server up when needed.
///
/// # Errors
/// When no server answers and none could be started.
pub async fn ensure_server(url: &ServerUrl) -> anyhow::Result<AsyncPgConnection> {
    let maintenance = DatabaseTarget::parse(&url.with_database("postgres"))?;
    if let Ok(conn) = maintenance.connect().await {
        return Ok(conn);
    }
    if !url.is_local() {
        bail!("PostgreSQL at {}:{} does not answer", url.host, url.port);
    }
    tracing::warn!(port = url.port, "no PostgreSQL answers locally; starting one");
    start_local_server(url.port).await?;
    for _ in 0..60 {
        if let Ok(conn) = maintenance.connect().await {
            return Ok(conn);
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    bail!("started PostgreSQL on port {} but it does not accept connections", url.port)
}

#[derive(diesel::QueryableByName)]
struct Exists {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    exists: bool,
}

/// # Errors
/// When the database cannot be created.
pub async fn create_database_if_missing(conn: &mut AsyncPgConnection, name: &str) -> anyhow::Result<()> {
    let found: Exists = diesel::sql_query("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1) AS exists")
        .bind::<Text, _>(name)
        .get_result(conn)
        .await?;
    if !found.exists {
        match diesel::sql_query(format!("CREATE DATABASE {}", quote_ident(name))).execute(conn).await {
            Ok(_) => tracing::info!(database = name, "created database"),
            // Another process created it between the check and ours.
            Err(diesel::result::Error::DatabaseError(diesel::result::DatabaseErrorKind::UniqueViolation, _)) => {}
            Err(e) if e.to_string().contains("already exists") => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Starts the machine's own clusters (Debian's `pg_ctlcluster`), or else a private cluster in
/// `.pulse-dev/postgres` made with `initdb`.
async fn start_local_server(port: u16) -> anyhow::Result<()> {
    let clusters = debian_clusters();
    if !clusters.is_empty() {
        for (version, name) in clusters {
            let status = Command::new("pg_ctlcluster")
                .args(["--skip-systemctl-redirect", &version, &name, "start"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .await;
            tracing::info!(%version, cluster = %name, ok = status.is_ok_and(|s| s.success()), "pg_ctlcluster start");
        }
        return Ok(());
    }
    let bin = postgres_bin_dir().context("PostgreSQL is not installed (no initdb found)")?;
    let data = std::env::current_dir()?.join(".pulse-dev").join("postgres");
    let as_postgres = running_as_root().await;
    if !data.join("PG_VERSION").exists() {
        std::fs::create_dir_all(&data)?;
        if as_postgres {
            run(Command::new("chown").args(["-R", "postgres:postgres"]).arg(&data)).await?;
        }
        let mut initdb = user_command(as_postgres, &bin.join("initdb"));
        initdb.arg("-D").arg(&data).args(["-U", "postgres", "--auth=trust", "-E", "UTF8"]);
        run(&mut initdb).await.context("initdb")?;
    }
    let mut pg_ctl = user_command(as_postgres, &bin.join("pg_ctl"));
    pg_ctl.arg("-D").arg(&data).arg("-l").arg(data.join("server.log")).args([
        "-o",
        &format!("-p {port} -k /tmp -c listen_addresses=127.0.0.1"),
        "-w",
        "start",
    ]);
    run(&mut pg_ctl).await.context("pg_ctl start")
}

fn debian_clusters() -> Vec<(String, String)> {
    let Ok(versions) = std::fs::read_dir("/etc/postgresql") else { return Vec::new() };
    let mut found = Vec::new();
    for version in versions.flatten() {
        if let Ok(clusters) = std::fs::read_dir(version.path()) {
            for cluster in clusters.flatten() {
                found.push((
                    version.file_name().to_string_lossy().into_owned(),
                    cluster.file_name().to_string_lossy().into_owned(),
                ));
            }
        }
    }
    found
}

fn postgres_bin_dir() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path.into_iter().chain(debian).find(|dir| dir.join("initdb").exists() && dir.join("pg_ctl").exists())
}

async fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().await.is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

/// PostgreSQL refuses to run as root, so root runs it as the `postgres` user.
fn user_command(as_postgres: bool, program: &Path) -> Command {
    if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

async fn run(command: &mut Command) -> anyhow::Result<()> {
    let output = command.stdin(Stdio::null()).output().await?;
    if output.status.success() { Ok(()) } else { bail!("{}", String::from_utf8_lossy(&output.stderr).trim()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_server_and_database() {
        let url = ServerUrl::parse("postgres://postgres@127.0.0.1:5432/pulse").expect("url");
        assert_eq!(url.server, "postgres://postgres@127.0.0.1:5432");
        assert_eq!(url.database, "pulse");
        assert_eq!(url.port, 5432);
        assert_eq!(url.with_database("postgres"), "postgres://postgres@127.0.0.1:5432/postgres");

        let url = ServerUrl::parse("postgresql://u:p@localhost/db?sslmode=disable").expect("url");
        assert_eq!((url.host.as_str(), url.port), ("localhost", 5432));
        assert_eq!(url.with_database("x"), "postgresql://u:p@localhost/x?sslmode=disable");

        let url = ServerUrl::parse("postgres://[::1]:6543/db").expect("ipv6");
        assert_eq!((url.host.as_str(), url.port), ("::1", 6543));
        let url = ServerUrl::parse("postgres://[::1]/db").expect("ipv6 without port");
        assert_eq!((url.host.as_str(), url.port), ("::1", 5432));

        assert!(ServerUrl::parse("mysql://x/y").is_err());
        assert!(ServerUrl::parse("postgres://host:5432").is_err());
    }

    #[test]
    fn debug_output_hides_the_password() {
        let url = ServerUrl::parse("postgres://pulse:hunter2@db:5432/pulse").expect("url");
        let shown = format!("{url:?}");
        assert!(shown.contains("db") && !shown.contains("hunter2"), "{shown}");
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(quote_ident("pulse"), "\"pulse\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
