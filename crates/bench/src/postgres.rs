//! The benchmark's databases (created with psql, dropped by a guard) and pgbench.

use std::path::Path;

use anyhow::{Context as _, bail};
use tokio::process::Command;
use url::Url;

use crate::Plan;
use crate::paced::{self, Paced};
use crate::tools::{output, say};

/// pgbench's scale factor: 100,000 accounts per unit.
pub const PGBENCH_SCALE: u32 = 10;

/// The PostgreSQL the benchmark runs on, named by its maintenance database.
pub struct Postgres {
    maintenance: Url,
}

impl Postgres {
    pub fn new(maintenance: &str) -> anyhow::Result<Self> {
        let maintenance = Url::parse(maintenance).with_context(|| format!("--server `{maintenance}` is not a URL"))?;
        if !matches!(maintenance.scheme(), "postgres" | "postgresql") {
            bail!("--server must be a postgres:// URL");
        }
        Ok(Self { maintenance })
    }

    /// A fresh, empty database, dropped when the guard is.
    pub async fn create(&self, name: &str) -> anyhow::Result<Database> {
        let maintenance = self.maintenance.to_string();
        // A database of the same name can only be a leftover of a killed run with the same pid.
        psql(&maintenance, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await?;
        psql(&maintenance, &format!("CREATE DATABASE {name}")).await?;
        let mut url = self.maintenance.clone();
        url.set_path(&format!("/{name}"));
        Ok(Database { name: name.to_owned(), url: url.to_string(), maintenance })
    }

    /// Runs a checkpoint now, so that the phase after it meets none: phases back to back write
    /// hundreds of megabytes of WAL, and without this the checkpoint that volume sets off lands in
    /// the middle of whichever later phase reaches it, with the checkpointer's writes beside it.
    /// Needs a superuser or `pg_checkpoint`; without either the phase runs as it finds the
    /// database, and the run says so.
    pub async fn checkpoint(&self) {
        if let Err(error) = psql(self.maintenance.as_str(), "CHECKPOINT").await {
            say(format_args!("no CHECKPOINT before the next phase ({error:#}); it may meet one"));
        }
    }
}

async fn psql(url: &str, sql: &str) -> anyhow::Result<()> {
    output(Command::new("psql").args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql]), "psql").await?;
    Ok(())
}

/// A database of this run; dropping the guard drops the database (with `FORCE`, so connections
/// a killed server left behind do not stop it).
pub struct Database {
    name: String,
    url: String,
    maintenance: String,
}

impl Database {
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let dropped = std::process::Command::new("psql")
            .args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", &self.maintenance, "-c", &sql])
            .stdin(std::process::Stdio::null())
            .output();
        match dropped {
            Ok(out) if out.status.success() => {}
            Ok(out) => say(format_args!(
                "could not drop database {}: {}",
                self.name,
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(error) => say(format_args!("could not drop database {}: {error}", self.name)),
        }
    }
}

/// `pgbench -i -s 10` on the scratch database.
pub async fn pgbench_init(database: &Database) -> anyhow::Result<()> {
    let scale = PGBENCH_SCALE.to_string();
    output(Command::new("pgbench").args(["-i", "-q", "-s", &scale, database.url()]), "pgbench -i").await?;
    Ok(())
}

/// The script: one UPDATE of one random account row, in its own transaction.
pub fn update_script() -> String {
    let accounts = 100_000 * PGBENCH_SCALE;
    format!("\\set aid random(1, {accounts})\nUPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n")
}

/// Runs the one-row UPDATE for the plan's duration and answers its TPS.
pub async fn pgbench_run(database: &Database, plan: &Plan, dir: &Path) -> anyhow::Result<f64> {
    let text = output(pgbench(plan, dir).await?.arg(database.url()), "pgbench").await?;
    parse_tps(&text).with_context(|| format!("no `tps = ` in pgbench's output:\n{text}"))
}

/// The same UPDATE paced at `rate` transactions per second, open loop (`-R`), each latency counted
/// from when it was due, as the paced workloads are: the database's own p99 at that rate on this
/// machine, which no write path that commits can beat.
pub async fn pgbench_paced(database: &Database, plan: &Plan, dir: &Path, rate: f64) -> anyhow::Result<Paced> {
    let logs = dir.join("pgbench-paced");
    tokio::fs::create_dir_all(&logs).await.context("cannot make pgbench's log directory")?;
    let mut paced = pgbench(plan, dir).await?;
    paced.args(["-R", &format!("{rate:.1}"), "-l", "--log-prefix"]).arg(logs.join("log")).arg(database.url());
    output(&mut paced, "pgbench (paced)").await?;
    let mut latencies = paced::latencies()?;
    let mut files = tokio::fs::read_dir(&logs).await.context("cannot read pgbench's logs")?;
    while let Some(file) = files.next_entry().await.context("cannot read pgbench's logs")? {
        let text = tokio::fs::read_to_string(file.path()).await.context("cannot read a pgbench log")?;
        for micros in due_latencies(&text) {
            latencies.saturating_record(micros);
        }
    }
    Ok(Paced::of(rate, &latencies, f64::from(plan.duration), 0, 0))
}

/// pgbench running the script (written to `dir`) with the plan's clients, threads and duration;
/// the caller adds its own options, then the database.
async fn pgbench(plan: &Plan, dir: &Path) -> anyhow::Result<Command> {
    let script = dir.join("update.sql");
    tokio::fs::write(&script, update_script()).await.context("cannot write the pgbench script")?;
    let mut command = Command::new("pgbench");
    command
        .args(["-n", "-c", &plan.connections.to_string(), "-j", &plan.threads.to_string()])
        .args(["-T", &plan.duration.to_string(), "-f"])
        .arg(&script);
    Ok(command)
}

/// Each transaction's latency from when it was due, in microseconds, from a `-l` log of a `-R`
/// run: a line is `client transaction time script epoch micros lag`, and `time` runs from when
/// the transaction actually began, `lag` later than it was due.
fn due_latencies(text: &str) -> impl Iterator<Item = u64> + '_ {
    text.lines().filter_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let time: u64 = fields.get(2)?.parse().ok()?;
        let lag: u64 = fields.get(6)?.parse().ok()?;
        Some(time + lag)
    })
}

/// The TPS pgbench printed (without the initial connection time).
pub fn parse_tps(text: &str) -> Option<f64> {
    text.lines().find_map(|line| line.trim().strip_prefix("tps = ")?.split_whitespace().next()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tps() {
        let text = "pgbench (15.20 (Debian 15.20-0+deb12u1))\ntransaction type: /tmp/update.sql\n\
                    number of failed transactions: 0 (0.000%)\nlatency average = 6.343 ms\n\
                    initial connection time = 18.429 ms\ntps = 315.324358 (without initial connection time)\n";
        assert_eq!(parse_tps(text), Some(315.324358));
        assert_eq!(parse_tps("nothing here"), None);
    }

    #[test]
    fn a_paced_transaction_is_late_by_its_lag_and_its_time() {
        let log = "0 1 812 0 1764201600 123456 40\n1 1 3000 0 1764201600 123460 2500\nnot a line\n0 2 900 0 1764201600 200000\n";
        assert_eq!(due_latencies(log).collect::<Vec<_>>(), [852, 5500], "a line without a lag is not of a paced run");
    }

    #[test]
    fn the_script_updates_one_random_row_of_the_whole_table() {
        assert!(update_script().starts_with("\\set aid random(1, 1000000)\n"));
        assert!(update_script().contains("WHERE aid = :aid;"));
    }
}
