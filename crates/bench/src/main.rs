//! `pulse-bench`: the benchmark of the hot paths (docs/performance.md).
//!
//! One run: a fresh database, `pulse migrate`, `pulse serve` on a free loopback port, seeding
//! through the operator CLI and the HTTP API, each workload driven by wrk at its maximum rate and
//! then paced, open loop, at half the rate wrk reached, and pgbench's one-row UPDATE on a scratch
//! database of the same PostgreSQL as the database's own ceiling. It prints Markdown tables. Speed
//! is never asserted: the run fails only when a step cannot run or a workload answered no 2xx at
//! all. Databases and the server are cleaned up by guards, also on an error or Ctrl-C.

mod cpu;
mod dispatch;
mod paced;
mod postgres;
mod report;
mod seed;
mod server;
mod tools;
mod workloads;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Parser;

use crate::cpu::CpuTimes;
use crate::paced::Schedule;
use crate::postgres::Postgres;
use crate::report::{Pgbench, Phases, Row, Run};
use crate::seed::Http;
use crate::server::Pulse;
use crate::tools::say;

/// Benchmark the pulse server's hot paths against pgbench's one-row UPDATE, in one run.
#[derive(Debug, Parser)]
#[command(name = "pulse-bench", version)]
struct Args {
    /// The pulse binary to run (build it with `cargo build --release -p pulse`).
    #[arg(long, default_value = "target/release/pulse")]
    pulse: PathBuf,
    /// Seconds each workload runs under wrk, and again paced; and pgbench.
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..))]
    duration: u32,
    /// Concurrent connections of wrk and clients of pgbench; also the server's PULSE_DB_POOL_SIZE.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..))]
    connections: u32,
    /// Registered devices the heartbeat workload rotates through.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..))]
    devices: u32,
    /// A quick run so the harness cannot rot (CI): 1 second, 4 connections, 16 devices, paced runs
    /// at 20 requests per second.
    #[arg(long)]
    smoke: bool,
    /// Runs only these workloads (heartbeat, mint, register, start, dispatch), e.g. `--only mint,start`.
    #[arg(long, value_delimiter = ',', value_parser = ["heartbeat", "mint", "register", "start", "dispatch"])]
    only: Vec<String>,
    /// The maintenance database of the PostgreSQL to use; the benchmark's databases are created
    /// and dropped next to it.
    #[arg(long, default_value = "postgres://postgres@127.0.0.1:5432/postgres")]
    server: String,
}

/// What one run does, after `--smoke` is applied.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Seconds per workload.
    pub duration: u32,
    pub connections: u32,
    /// wrk's and pgbench's threads: 2, or fewer when there are fewer connections.
    pub threads: u32,
    pub devices: u32,
    pub smoke: bool,
}

impl Plan {
    fn from_args(args: &Args) -> Self {
        let (duration, connections, devices) =
            if args.smoke { (1, 4, args.devices.min(16)) } else { (args.duration, args.connections, args.devices) };
        Self { duration, connections, threads: connections.min(2), devices, smoke: args.smoke }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    // Dropping the run on Ctrl-C runs its guards: the server is killed and the databases dropped.
    let outcome = tokio::select! {
        outcome = Box::pin(run(args)) => outcome,
        _ = tokio::signal::ctrl_c() => Err(anyhow::anyhow!("interrupted")),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            say(format_args!("pulse-bench: {error:#}"));
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    let plan = Plan::from_args(&args);
    let bin = std::fs::canonicalize(&args.pulse).with_context(|| {
        format!(
            "no pulse binary at {} (build it with `cargo build --release -p pulse`, or pass --pulse)",
            args.pulse.display()
        )
    })?;
    for tool in ["wrk", "pgbench", "psql"] {
        tools::require(tool)?;
    }
    let work =
        tempfile::Builder::new().prefix("pulse-bench-").tempdir().context("cannot make a temporary directory")?;
    let postgres = Postgres::new(&args.server)?;
    let pid = std::process::id();

    // Guards drop in reverse order: the server goes before its database.
    say(format_args!("creating databases pulse_bench_{pid} and pulse_bench_{pid}_pgbench"));
    let database = postgres.create(&format!("pulse_bench_{pid}")).await?;
    let scratch = postgres.create(&format!("pulse_bench_{pid}_pgbench")).await?;

    let pulse = Pulse::new(bin, database.url().to_owned(), server::master_key()?, work.path().to_owned());
    say("pulse migrate");
    pulse.migrate().await?;

    say(format_args!("pgbench: initialising scale {}", postgres::PGBENCH_SCALE));
    // Before the initialisation rather than before each run: pgbench's rows are then all written
    // after the checkpoint, so its runs log no whole pages, as before the harness checkpointed.
    postgres.checkpoint().await;
    postgres::pgbench_init(&scratch).await?;
    say(format_args!(
        "pgbench: one-row UPDATE, {} clients, {} threads, {} s",
        plan.connections, plan.threads, plan.duration
    ));
    let before = CpuTimes::now();
    let tps = postgres::pgbench_run(&scratch, &plan, work.path()).await?;
    let full_rate = CpuTimes::now().since(&before);
    let half = if plan.smoke { paced::SMOKE_RATE } else { tps / 2.0 };
    say(format_args!("pgbench: the same UPDATE paced at {half:.0} per second, {} s", plan.duration));
    let before = CpuTimes::now();
    let database_paced = postgres::pgbench_paced(&scratch, &plan, work.path(), half).await?;
    let pgbench = Pgbench {
        tps,
        paced: database_paced,
        machine: Phases { full_rate, half_rate: CpuTimes::now().since(&before) },
    };
    drop(scratch);

    say(format_args!("pulse serve (PULSE_DB_POOL_SIZE={})", plan.connections));
    let serving = pulse.serve(plan.connections).await?;
    let http = Http::new(serving.base_url())?;
    say(format_args!("seeding: business, key, workspace, open campaign, {} devices", plan.devices));
    let seeded = seed::seed(&pulse, &http, plan.devices).await?;

    let mut rows = Vec::new();
    let chosen = workloads::all(&seeded)
        .into_iter()
        .filter(|w| args.only.is_empty() || args.only.iter().any(|slug| slug == w.slug));
    for workload in chosen {
        workload.probe(&http).await?;
        say(format_args!("wrk: {}, {} connections, {} s", workload.name, plan.connections, plan.duration));
        postgres.checkpoint().await;
        let before = CpuTimes::now();
        let measured = workload.run(serving.base_url(), &plan, work.path()).await?;
        let full_rate = CpuTimes::now().since(&before);
        postgres.checkpoint().await;
        let before = CpuTimes::now();
        let paced = match Schedule::half_of(&measured, &plan) {
            Some(schedule) => {
                say(format_args!("paced: {}, {:.0} req/s, {} s", workload.name, schedule.rate(), plan.duration));
                Some(paced::run(serving.base_url(), &workload.requests, &schedule).await?)
            }
            None => {
                say(format_args!("paced: {}, not run: wrk reached no rate to halve", workload.name));
                None
            }
        };
        let machine = Phases { full_rate, half_rate: CpuTimes::now().since(&before) };
        rows.push(Row { name: workload.name, target: workload.target, measured, paced, machine });
    }
    let log_tail = serving.log_tail();
    serving.stop().await;
    postgres.checkpoint().await;
    let dispatched = dispatch::run(&args.only, &pulse, &seeded, &plan, database.url()).await?;

    let run = Run { pulse: &args.pulse, plan, pgbench, rows };
    tools::print(&run.render())?;
    tools::print(&dispatched)?;

    let broken = run.without_2xx();
    if !broken.is_empty() {
        say(format_args!("the server's last log lines:\n{log_tail}"));
        anyhow::bail!("no 2xx answer at all from: {}", broken.join(", "));
    }
    Ok(())
}
