//! The pulse binary: `migrate`, `admin …` and `serve`, all with the same database and master key.

use std::io::Read as _;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tokio::process::{Child, Command};

use crate::tools::output;

/// How long `pulse serve` may take to answer `/readyz`.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// A master key as `PULSE_MASTER_KEY` takes it: 32 random bytes, standard base64 with padding.
pub fn master_key() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut bytes))
        .context("cannot read 32 random bytes from /dev/urandom")?;
    Ok(STANDARD.encode(bytes))
}

/// The binary under test and the environment every command of it gets.
pub struct Pulse {
    bin: PathBuf,
    database_url: String,
    master_key: String,
    /// The working directory: a temporary one, so no `.pulse-dev/` secrets are picked up.
    dir: PathBuf,
}

impl Pulse {
    pub fn new(bin: PathBuf, database_url: String, master_key: String, dir: PathBuf) -> Self {
        Self { bin, database_url, master_key, dir }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.bin);
        command
            .current_dir(&self.dir)
            .env("DATABASE_URL", &self.database_url)
            .env("PULSE_MASTER_KEY", &self.master_key)
            .env("PULSE_RATE_LIMITS", "off")
            .env("PULSE_LOG", "warn")
            .kill_on_drop(true);
        command
    }

    pub async fn migrate(&self) -> anyhow::Result<()> {
        output(self.command().arg("migrate"), "pulse migrate").await?;
        Ok(())
    }

    /// `pulse admin <args>`, answering the JSON it prints.
    pub async fn admin(&self, args: &[&str]) -> anyhow::Result<serde_json::Value> {
        let what = format!("pulse admin {}", args.iter().take(2).copied().collect::<Vec<_>>().join(" "));
        let text = output(self.command().arg("admin").args(args), &what).await?;
        serde_json::from_str(text.trim()).with_context(|| format!("{what} printed no JSON"))
    }

    /// Starts `pulse serve` on a free loopback port and waits until `/readyz` answers 200.
    pub async fn serve(&self, pool_size: u32) -> anyhow::Result<Server> {
        self.serve_with(pool_size, &[]).await
    }

    /// As [`Pulse::serve`], with more variables in the server's environment.
    pub async fn serve_with(&self, pool_size: u32, env: &[(&str, &str)]) -> anyhow::Result<Server> {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).context("no free port")?.port();
        let log = self.dir.join("server.log");
        let file = std::fs::File::create(&log).context("cannot create the server's log file")?;
        let child = self
            .command()
            .arg("serve")
            .env("PULSE_BIND", format!("127.0.0.1:{port}"))
            .env("PULSE_DB_POOL_SIZE", pool_size.to_string())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(file.try_clone()?)
            .stderr(file)
            .spawn()
            .with_context(|| format!("cannot start {} serve", self.bin.display()))?;
        let mut server = Server { child, base_url: format!("http://127.0.0.1:{port}"), log };
        server.wait_ready().await?;
        Ok(server)
    }
}

/// A running `pulse serve`; killed when dropped.
pub struct Server {
    child: Child,
    base_url: String,
    log: PathBuf,
}

impl Server {
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    async fn wait_ready(&mut self) -> anyhow::Result<()> {
        let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build()?;
        let url = format!("{}/readyz", self.base_url);
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait()? {
                bail!("pulse serve exited ({status}) before it was ready:\n{}", self.log_tail());
            }
            if client.get(&url).send().await.is_ok_and(|r| r.status().is_success()) {
                return Ok(());
            }
            if started.elapsed() > READY_WITHIN {
                bail!("pulse serve was not ready within {READY_WITHIN:?}:\n{}", self.log_tail());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The last lines the server logged (warnings and errors only: `PULSE_LOG=warn`).
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        if tail.is_empty() { "(nothing logged)".to_owned() } else { tail }
    }

    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}
