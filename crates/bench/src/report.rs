//! The Markdown tables.

use std::fmt::Write as _;
use std::path::Path;

use crate::Plan;
use crate::cpu::Contention;
use crate::paced::{IN_FLIGHT, P99_TARGET_MS, Paced, SMOKE_RATE};
use crate::postgres::PGBENCH_SCALE;
use crate::workloads::Measured;

/// One workload's line.
pub struct Row {
    pub name: &'static str,
    /// The target for the ratio to pgbench's TPS.
    pub target: f64,
    pub measured: Measured,
    /// The paced run at half wrk's rate; none when wrk reached no rate.
    pub paced: Option<Paced>,
    pub machine: Phases,
}

/// What the machine did during each phase (see `cpu`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Phases {
    /// During the run at full rate: wrk's, or pgbench's.
    pub full_rate: Contention,
    /// During the paced run.
    pub half_rate: Contention,
}

/// pgbench's one-row UPDATE: the database alone.
pub struct Pgbench {
    /// Transactions per second at full rate.
    pub tps: f64,
    /// The same UPDATE paced at half that rate.
    pub paced: Paced,
    pub machine: Phases,
}

/// The paced table's line of the database alone.
const PGBENCH_PACED: &str = "pgbench one-row UPDATE (the database alone)";

/// Everything the table shows.
pub struct Run<'a> {
    pub pulse: &'a Path,
    pub plan: Plan,
    pub pgbench: Pgbench,
    pub rows: Vec<Row>,
}

impl Run<'_> {
    fn ratio(&self, row: &Row) -> f64 {
        let tps = self.pgbench.tps;
        if tps > 0.0 { row.measured.per_second / tps } else { 0.0 }
    }

    /// Both targets: the ratio, and the p99 at half the rate.
    fn met(&self, row: &Row) -> bool {
        self.ratio(row) >= row.target && row.paced.as_ref().is_some_and(Paced::meets_target)
    }

    pub fn render(&self) -> String {
        let plan = &self.plan;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n{}{}, {} connections, {} s per workload, wrk with {} threads, rate limits off\n",
            if plan.smoke { "Smoke run (not a measurement): " } else { "" },
            self.pulse.display(),
            plan.connections,
            plan.duration,
            plan.threads,
        );
        out.push_str(
            "| workload | req/s | p50 ms | p99 ms | non-2xx | ratio to pgbench TPS | target \
             | p99 ms at half rate | target | met | CPU stolen % | CPU waited % |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for row in &self.rows {
            let m = &row.measured;
            let _ = writeln!(
                out,
                "| {} | {} | {:.1} | {:.1} | {} | {:.2} | >= {:.1} | {} | < {P99_TARGET_MS} | {} | {} | {} |",
                row.name,
                thousands(m.per_second),
                m.p50_ms,
                m.p99_ms,
                thousands(m.non_2xx as f64),
                self.ratio(row),
                row.target,
                milliseconds(row.paced.as_ref().and_then(|p| p.p99_ms)),
                if self.met(row) { "yes" } else { "no" },
                percent(row.machine.full_rate.stolen),
                percent(row.machine.full_rate.waited),
            );
        }
        let _ = writeln!(
            out,
            "\npgbench one-row UPDATE: {} TPS (scale {PGBENCH_SCALE}, {} clients, {} threads, {} s; \
             CPU stolen {} %, waited {} %)",
            thousands(self.pgbench.tps),
            plan.connections,
            plan.threads,
            plan.duration,
            percent(self.pgbench.machine.full_rate.stolen),
            percent(self.pgbench.machine.full_rate.waited),
        );
        for row in &self.rows {
            let [connect, read, write, timeout] = row.measured.socket_errors;
            if connect + read + write + timeout > 0 {
                let _ = writeln!(
                    out,
                    "wrk socket errors, {}: connect {connect}, read {read}, write {write}, timeout {timeout}",
                    row.name
                );
            }
        }
        self.render_paced(&mut out);
        out
    }

    /// The paced runs' own table.
    fn render_paced(&self, out: &mut String) {
        let plan = &self.plan;
        let rate = if plan.smoke { format!("{SMOKE_RATE} req/s") } else { "half the rate wrk reached".to_owned() };
        let _ = writeln!(
            out,
            "\nPaced, open loop at {rate}, {} s per workload: each request sent when due whether or not \
             earlier ones were answered (at most {IN_FLIGHT} in flight), its latency counted from when it was due\n",
            plan.duration,
        );
        out.push_str(
            "| workload | asked req/s | answered req/s | p50 ms | p99 ms | non-2xx | no answer | CPU stolen % \
             | CPU waited % |\n",
        );
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for row in &self.rows {
            match &row.paced {
                Some(paced) => paced_line(out, row.name, paced, row.machine.half_rate),
                None => {
                    let _ = writeln!(out, "| {} | not run: wrk reached no rate | | | | | | | |", row.name);
                }
            }
        }
        paced_line(out, PGBENCH_PACED, &self.pgbench.paced, self.pgbench.machine.half_rate);
    }

    /// The workloads that answered no 2xx at all, to wrk or to the paced run.
    pub fn without_2xx(&self) -> Vec<&'static str> {
        self.rows
            .iter()
            .filter(|row| row.measured.answered_2xx() == 0 || row.paced.as_ref().is_some_and(|p| p.answered_2xx() == 0))
            .map(|row| row.name)
            .collect()
    }
}

fn paced_line(out: &mut String, name: &str, paced: &Paced, machine: Contention) {
    let _ = writeln!(
        out,
        "| {name} | {} | {} | {} | {} | {} | {} | {} | {} |",
        thousands(paced.asked_per_second),
        thousands(paced.per_second),
        milliseconds(paced.p50_ms),
        milliseconds(paced.p99_ms),
        thousands(paced.non_2xx as f64),
        thousands(paced.no_answer as f64),
        percent(machine.stolen),
        percent(machine.waited),
    );
}

/// A whole number with thousands separators: `1,250`.
fn thousands(value: f64) -> String {
    let digits = format!("{:.0}", value.max(0.0));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A share in percent, one decimal; `–` where it could not be read.
fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |p| format!("{p:.1}"))
}

/// A latency of the paced run: two decimals, as the target is near; `–` when nothing was answered.
fn milliseconds(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_owned(), |ms| format!("{ms:.2}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1250.0), "1,250");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
    }

    fn plan() -> Plan {
        Plan { duration: 15, connections: 32, threads: 2, devices: 256, smoke: false }
    }

    fn measured(per_second: f64) -> Measured {
        Measured { requests: 18_750, per_second, p50_ms: 25.04, p99_ms: 44.0, non_2xx: 0, socket_errors: [0; 4] }
    }

    fn paced(p99_ms: f64) -> Paced {
        Paced {
            asked_per_second: 625.0,
            per_second: 624.6,
            p50_ms: Some(1.234),
            p99_ms: Some(p99_ms),
            answered: 9_369,
            non_2xx: 0,
            no_answer: 0,
        }
    }

    fn contention(stolen: f64, waited: f64) -> Contention {
        Contention { stolen: Some(stolen), waited: Some(waited) }
    }

    fn pgbench(tps: f64, machine: Contention) -> Pgbench {
        Pgbench {
            tps,
            paced: Paced { asked_per_second: tps / 2.0, per_second: tps / 2.0, p50_ms: Some(0.7), ..paced(3.555) },
            machine: Phases { full_rate: machine, half_rate: machine },
        }
    }

    #[test]
    fn the_table_shows_ratios_targets_and_errors() {
        let measured = Measured { socket_errors: [0, 0, 0, 2], ..measured(1250.0) };
        let broken = Measured { requests: 10, non_2xx: 10, ..Measured::default() };
        let run = Run {
            pulse: Path::new("target/release/pulse"),
            plan: plan(),
            pgbench: pgbench(6250.0, contention(7.5, 41.3)),
            rows: vec![
                Row {
                    name: "heartbeat v2",
                    target: 1.5,
                    measured,
                    paced: Some(paced(4.567)),
                    machine: Phases { full_rate: contention(12.34, 80.0), half_rate: contention(3.0, 0.2) },
                },
                Row {
                    name: "register (new device)",
                    target: 1.0,
                    measured: broken,
                    paced: None,
                    machine: Phases::default(),
                },
            ],
        };
        let table = run.render();
        assert!(
            table.contains("| workload | req/s | p50 ms | p99 ms | non-2xx | ratio to pgbench TPS | target | p99 ms at half rate | target | met | CPU stolen % | CPU waited % |\n|---|"),
            "{table}"
        );
        assert!(
            table.contains(
                "| heartbeat v2 | 1,250 | 25.0 | 44.0 | 0 | 0.20 | >= 1.5 | 4.57 | < 10 | no | 12.3 | 80.0 |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| register (new device) | 0 | 0.0 | 0.0 | 10 | 0.00 | >= 1.0 | – | < 10 | no | – | – |"),
            "{table}"
        );
        assert!(
            table.contains(
                "pgbench one-row UPDATE: 6,250 TPS (scale 10, 32 clients, 2 threads, 15 s; CPU stolen 7.5 %, waited 41.3 %)"
            ),
            "{table}"
        );
        assert!(table.contains("wrk socket errors, heartbeat v2: connect 0, read 0, write 0, timeout 2"), "{table}");
        assert!(table.contains("Paced, open loop at half the rate wrk reached, 15 s per workload"), "{table}");
        assert!(table.contains("| heartbeat v2 | 625 | 625 | 1.23 | 4.57 | 0 | 0 | 3.0 | 0.2 |"), "{table}");
        assert!(table.contains("| register (new device) | not run: wrk reached no rate | | | | | | | |"), "{table}");
        assert!(
            table.contains(
                "| pgbench one-row UPDATE (the database alone) | 3,125 | 3,125 | 0.70 | 3.56 | 0 | 0 | 7.5 | 41.3 |"
            ),
            "{table}"
        );
        assert_eq!(run.without_2xx(), ["register (new device)"]);
    }

    #[test]
    fn met_needs_the_ratio_and_the_p99_at_half_rate() {
        let row = |name, per_second, paced| Row {
            name,
            target: 1.0,
            measured: measured(per_second),
            paced,
            machine: Phases::default(),
        };
        let unanswered = Paced { no_answer: 3, ..paced(2.0) };
        let refused = Paced { non_2xx: 9_369, ..paced(2.0) };
        let run = Run {
            pulse: Path::new("target/release/pulse"),
            plan: Plan { smoke: true, duration: 1, ..plan() },
            pgbench: pgbench(1000.0, Contention::default()),
            rows: vec![
                row("both", 1000.0, Some(paced(9.99))),
                row("slow at half rate", 1000.0, Some(paced(10.0))),
                row("low ratio", 999.0, Some(paced(2.0))),
                row("not paced", 1000.0, None),
                row("unanswered", 1000.0, Some(unanswered)),
                row("refused", 1000.0, Some(refused)),
            ],
        };
        let table = run.render();
        for (name, met) in [
            ("both", "yes"),
            ("slow at half rate", "no"),
            ("low ratio", "no"),
            ("not paced", "no"),
            ("unanswered", "no"),
        ] {
            assert!(
                table
                    .lines()
                    .any(|l| l.starts_with(&format!("| {name} |")) && l.ends_with(&format!("| {met} | – | – |"))),
                "{name}: {table}"
            );
        }
        assert!(table.contains("| unanswered | 625 | 625 | 1.23 | 2.00 | 0 | 3 | – | – |"), "{table}");
        assert!(table.contains("Paced, open loop at 20 req/s, 1 s per workload"), "{table}");
        assert_eq!(run.without_2xx(), ["refused"]);
    }
}
