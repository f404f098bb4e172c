//! PostgreSQL servers of a test's own, made with `initdb` in a scratch folder and run as the
//! `postgres` user, for what the shared test server cannot be: a replica, a server with TLS.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::free_port;

/// A PostgreSQL server in a scratch folder, stopped and removed on drop.
pub struct Cluster {
    dir: PathBuf,
    pub port: u16,
}

fn pg_bin(tool: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL is installed")
        .flatten()
        .map(|e| e.path())
        .collect();
    versions.sort();
    versions.pop().expect("a PostgreSQL version").join("bin").join(tool)
}

/// Runs a PostgreSQL tool as the `postgres` user (the tools refuse root).
fn as_postgres(tool: &str, args: &[&str]) {
    let output = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(pg_bin(tool))
        .args(args)
        .output()
        .expect("run a PostgreSQL tool");
    assert!(output.status.success(), "{tool} {args:?}: {}", String::from_utf8_lossy(&output.stderr));
}

fn give_to_postgres(path: &Path) {
    let chown = Command::new("chown").args(["-R", "postgres:postgres", &path.to_string_lossy()]).status();
    assert!(chown.expect("chown").success());
}

impl Cluster {
    fn scratch(name: &str) -> (PathBuf, u16) {
        let dir = std::env::temp_dir().join(format!("pulse-{name}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        give_to_postgres(&dir);
        (dir, free_port())
    }

    /// A new server, every local and loopback connection trusted.
    pub fn primary() -> Self {
        Self::prepared("primary", |_| {})
    }

    /// A new server whose data folder `prepare` changes (its configuration, certificates, who
    /// may connect how) after `initdb` and before it starts.
    pub fn prepared(name: &str, prepare: impl FnOnce(&Path)) -> Self {
        let (dir, port) = Self::scratch(name);
        let data = dir.join("data");
        as_postgres("initdb", &["-D", &data.to_string_lossy(), "-A", "trust", "-U", "postgres"]);
        prepare(&data);
        give_to_postgres(&data);
        let cluster = Self { dir, port };
        cluster.start();
        cluster
    }

    /// A hot standby of `primary`, streaming from it.
    pub fn replica_of(primary: &Cluster) -> Self {
        let (dir, port) = Self::scratch("replica");
        let data = dir.join("data").to_string_lossy().into_owned();
        let source = primary.port.to_string();
        as_postgres(
            "pg_basebackup",
            &["-h", "127.0.0.1", "-p", &source, "-U", "postgres", "-D", &data, "-R", "-X", "stream", "-c", "fast"],
        );
        let cluster = Self { dir, port };
        cluster.start();
        cluster
    }

    fn start(&self) {
        let options = format!("-p {} -c listen_addresses=127.0.0.1 -k {}", self.port, self.dir.to_string_lossy());
        let log = self.dir.join("log").to_string_lossy().into_owned();
        as_postgres("pg_ctl", &["-D", &self.data(), "-o", &options, "-l", &log, "-w", "start"]);
    }

    fn data(&self) -> String {
        self.dir.join("data").to_string_lossy().into_owned()
    }

    /// The URL of `database` as `postgres`, trusted without a password.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Runs a statement as `postgres` on `database` and returns what it printed.
    pub fn sql_on(&self, database: &str, statement: &str) -> String {
        let output = Command::new("psql")
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", "-d", database])
            .args(["-v", "ON_ERROR_STOP=1", "-tAc", statement])
            .output()
            .expect("psql");
        assert!(output.status.success(), "{statement}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    pub fn sql(&self, statement: &str) -> String {
        self.sql_on("pulse", statement)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _stopped = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("pg_ctl"))
            .args(["-D", &self.data(), "-m", "immediate", "stop"])
            .output();
        let _removed = std::fs::remove_dir_all(Path::new(&self.dir));
    }
}
