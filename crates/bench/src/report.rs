//! The Markdown table.

use std::fmt::Write as _;
use std::path::Path;

use crate::Plan;
use crate::postgres::PGBENCH_SCALE;
use crate::workloads::Measured;

/// One workload's line.
pub struct Row {
    pub name: &'static str,
    /// The target for the ratio to pgbench's TPS.
    pub target: f64,
    pub measured: Measured,
}

/// Everything the table shows.
pub struct Run<'a> {
    pub pulse: &'a Path,
    pub plan: Plan,
    /// pgbench's one-row UPDATE, transactions per second.
    pub tps: f64,
    pub rows: Vec<Row>,
}

impl Run<'_> {
    fn ratio(&self, row: &Row) -> f64 {
        if self.tps > 0.0 { row.measured.per_second / self.tps } else { 0.0 }
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
        out.push_str("| workload | req/s | p50 ms | p99 ms | non-2xx | ratio to pgbench TPS | target | met |\n");
        out.push_str("|---|---:|---:|---:|---:|---:|---:|---|\n");
        for row in &self.rows {
            let m = &row.measured;
            let ratio = self.ratio(row);
            let _ = writeln!(
                out,
                "| {} | {} | {:.1} | {:.1} | {} | {:.2} | >= {:.1} | {} |",
                row.name,
                thousands(m.per_second),
                m.p50_ms,
                m.p99_ms,
                thousands(m.non_2xx as f64),
                ratio,
                row.target,
                if ratio >= row.target { "yes" } else { "no" },
            );
        }
        let _ = writeln!(
            out,
            "\npgbench one-row UPDATE: {} TPS (scale {PGBENCH_SCALE}, {} clients, {} threads, {} s)",
            thousands(self.tps),
            plan.connections,
            plan.threads,
            plan.duration,
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
        out
    }

    /// The workloads that answered no 2xx at all.
    pub fn without_2xx(&self) -> Vec<&'static str> {
        self.rows.iter().filter(|row| row.measured.answered_2xx() == 0).map(|row| row.name).collect()
    }
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

    #[test]
    fn the_table_shows_ratios_targets_and_errors() {
        let plan = Plan { duration: 15, connections: 32, threads: 2, devices: 256, smoke: false };
        let measured = Measured {
            requests: 18_750,
            per_second: 1250.0,
            p50_ms: 25.04,
            p99_ms: 44.0,
            non_2xx: 0,
            socket_errors: [0, 0, 0, 2],
        };
        let broken = Measured { requests: 10, non_2xx: 10, ..Measured::default() };
        let run = Run {
            pulse: Path::new("target/release/pulse"),
            plan,
            tps: 6250.0,
            rows: vec![
                Row { name: "heartbeat v2", target: 1.5, measured },
                Row { name: "register (new device)", target: 1.0, measured: broken },
            ],
        };
        let table = run.render();
        assert!(table.contains("| heartbeat v2 | 1,250 | 25.0 | 44.0 | 0 | 0.20 | >= 1.5 | no |"), "{table}");
        assert!(table.contains("| register (new device) | 0 | 0.0 | 0.0 | 10 | 0.00 | >= 1.0 | no |"), "{table}");
        assert!(table.contains("pgbench one-row UPDATE: 6,250 TPS (scale 10, 32 clients, 2 threads, 15 s)"), "{table}");
        assert!(table.contains("wrk socket errors, heartbeat v2: connect 0, read 0, write 0, timeout 2"), "{table}");
        assert_eq!(run.without_2xx(), ["register (new device)"]);
    }
}
