//! What the machine was doing besides serving while a phase ran, read from the kernel:
//! - the share of CPU time the hypervisor gave to other guests (`steal` in `/proc/stat`): on a
//!   shared virtual machine a stolen slice stalls whatever was running on that core;
//! - the share of wall time in which some runnable task waited for a core (the `some` line of
//!   `/proc/pressure/cpu`): the server, PostgreSQL and the load generator share the machine's
//!   cores, and a request whose thread waits for one is late by that wait.
//!
//! A run with much of either measured the machine as well as Pulse.

use std::time::{Duration, Instant};

/// The machine's CPU counters at one moment.
#[derive(Debug, Clone, Copy)]
pub struct CpuTimes {
    ticks: Option<Ticks>,
    /// Microseconds in which some task waited for a core, since boot; none without pressure
    /// stall information (a kernel built without it, or not Linux).
    waited_micros: Option<u64>,
    at: Instant,
}

/// The `cpu` line of `/proc/stat`, in clock ticks summed over the cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Ticks {
    steal: u64,
    total: u64,
}

/// What the machine did during one phase, in percent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Contention {
    /// Of the CPU time, the share stolen by the hypervisor.
    pub stolen: Option<f64>,
    /// Of the wall time, the share in which some task waited for a core.
    pub waited: Option<f64>,
}

impl CpuTimes {
    /// Now; the counters that cannot be read are missing.
    pub fn now() -> Self {
        Self {
            ticks: std::fs::read_to_string("/proc/stat").ok().as_deref().and_then(parse_stat),
            waited_micros: std::fs::read_to_string("/proc/pressure/cpu").ok().as_deref().and_then(parse_pressure),
            at: Instant::now(),
        }
    }

    /// What the machine did since `earlier`.
    pub fn since(&self, earlier: &Self) -> Contention {
        let stolen = self.ticks.zip(earlier.ticks).and_then(|(now, then)| {
            let total = now.total.checked_sub(then.total).filter(|t| *t > 0)?;
            Some(now.steal.saturating_sub(then.steal) as f64 * 100.0 / total as f64)
        });
        let elapsed = self.at.saturating_duration_since(earlier.at);
        // The counters and the clock are read one after the other, so a wholly busy phase can
        // read a little over its length.
        let waited = self.waited_micros.zip(earlier.waited_micros).and_then(|(now, then)| {
            (elapsed > Duration::ZERO)
                .then(|| (now.saturating_sub(then) as f64 * 100.0 / elapsed.as_micros() as f64).min(100.0))
        });
        Contention { stolen, waited }
    }
}

/// The `cpu` line: user, nice, system, idle, iowait, irq, softirq and steal ticks (guest time is
/// already counted in user).
fn parse_stat(text: &str) -> Option<Ticks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line.split_whitespace().skip(1).take(8).map(str::parse).collect::<Result<_, _>>().ok()?;
    let [_, _, _, _, _, _, _, steal] = ticks.as_slice() else { return None };
    Some(Ticks { steal: *steal, total: ticks.iter().sum() })
}

/// The `total=` of the `some` line, in microseconds.
fn parse_pressure(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("some "))?;
    line.split_whitespace().find_map(|field| field.strip_prefix("total="))?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_whole_machines_line() {
        let text = "cpu  100 0 50 800 10 0 5 35 20 0\ncpu0 50 0 25 400 5 0 2 18 10 0\nintr 1\n";
        assert_eq!(parse_stat(text), Some(Ticks { steal: 35, total: 1000 }));
        assert_eq!(parse_stat("cpu0 1 2 3\n"), None);
        assert_eq!(parse_stat("cpu  1 2 3\n"), None, "an older kernel without steal");
    }

    #[test]
    fn reads_the_time_some_task_waited() {
        let text = "some avg10=4.07 avg60=5.03 avg300=4.69 total=33362073\n\
                    full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(parse_pressure(text), Some(33_362_073));
        assert_eq!(parse_pressure("full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n"), None);
        assert_eq!(parse_pressure("some avg10=0.00\n"), None);
    }

    #[test]
    fn the_shares_are_of_the_time_between() {
        let then = Instant::now();
        let before = CpuTimes { ticks: Some(Ticks { steal: 35, total: 1000 }), waited_micros: Some(1_000), at: then };
        let after = CpuTimes {
            ticks: Some(Ticks { steal: 85, total: 1200 }),
            waited_micros: Some(501_000),
            at: then + Duration::from_secs(2),
        };
        assert_eq!(after.since(&before), Contention { stolen: Some(25.0), waited: Some(25.0) });
        assert_eq!(before.since(&before), Contention::default(), "no time passed");
        let overlong = CpuTimes { waited_micros: Some(2_100_000), ..after };
        assert_eq!(overlong.since(&before).waited, Some(100.0), "never more than the whole phase");
        let unreadable = CpuTimes { ticks: None, waited_micros: None, ..after };
        assert_eq!(unreadable.since(&before), Contention::default());
        assert_eq!(after.since(&unreadable), Contention::default());
    }
}
