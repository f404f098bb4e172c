//! The share of the machine's CPU time the hypervisor gave to other guests while a phase ran
//! (`steal` in `/proc/stat`): on a shared virtual machine a stolen slice stalls whatever was
//! running on that core, so a run with much of it measured the neighbours as well as Pulse.

/// The machine's CPU counters at one moment, in clock ticks summed over its cores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuTimes {
    steal: u64,
    total: u64,
}

impl CpuTimes {
    /// Now; none where `/proc/stat` cannot be read (not Linux).
    pub fn now() -> Option<Self> {
        parse(&std::fs::read_to_string("/proc/stat").ok()?)
    }

    /// The percentage of the CPU time since `earlier` that was stolen.
    pub fn stolen_since(&self, earlier: &Self) -> Option<f64> {
        let total = self.total.checked_sub(earlier.total).filter(|t| *t > 0)?;
        Some(self.steal.saturating_sub(earlier.steal) as f64 * 100.0 / total as f64)
    }
}

/// The stolen share of the time between two readings, either of which may be missing.
pub fn stolen(before: Option<CpuTimes>, after: Option<CpuTimes>) -> Option<f64> {
    after?.stolen_since(&before?)
}

/// The `cpu` line: user, nice, system, idle, iowait, irq, softirq and steal ticks (guest time is
/// already counted in user).
fn parse(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let ticks: Vec<u64> = line.split_whitespace().skip(1).take(8).map(str::parse).collect::<Result<_, _>>().ok()?;
    let [_, _, _, _, _, _, _, steal] = ticks.as_slice() else { return None };
    Some(CpuTimes { steal: *steal, total: ticks.iter().sum() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_whole_machines_line() {
        let text = "cpu  100 0 50 800 10 0 5 35 20 0\ncpu0 50 0 25 400 5 0 2 18 10 0\nintr 1\n";
        assert_eq!(parse(text), Some(CpuTimes { steal: 35, total: 1000 }));
        assert_eq!(parse("cpu0 1 2 3\n"), None);
        assert_eq!(parse("cpu  1 2 3\n"), None, "an older kernel without steal");
    }

    #[test]
    fn the_stolen_share_is_of_the_time_between() {
        let before = CpuTimes { steal: 35, total: 1000 };
        let after = CpuTimes { steal: 85, total: 1200 };
        assert_eq!(after.stolen_since(&before), Some(25.0));
        assert_eq!(before.stolen_since(&before), None, "no time passed");
        assert_eq!(stolen(Some(before), None), None);
    }
}
