//! The workloads: a Lua script for wrk each, a probe that checks one request answers as it should
//! before wrk runs, and the reading of wrk's report.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, bail, ensure};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::process::Command;

use crate::Plan;
use crate::seed::{Device, Http, Seeded, register_body};
use crate::tools::output;

const HEARTBEAT: &str = "/api/v1/apps/heartbeat";
const REGISTER: &str = "/api/v1/apps/register";
const MINT: &str = "/api/v1/channel/launch";

/// Stands for the per-request part of a register body in its template.
const VENDOR_ID_SLOT: &str = "@VENDOR_DEVICE_ID@";

/// One workload: what wrk sends, and the issue's target for its ratio to pgbench's TPS.
pub struct Workload {
    pub name: &'static str,
    /// The file name of its script, and its name for `--only`.
    pub slug: &'static str,
    pub target: f64,
    path: String,
    script: String,
    probe: Probe,
}

/// One request like those of the script, sent before wrk runs, and the status it must get.
struct Probe {
    bearer: Option<String>,
    body: Value,
    expect: StatusCode,
}

/// The four workloads of issue 15, in its order.
pub fn all(seeded: &Seeded, threads: u32) -> Vec<Workload> {
    let start = format!("/api/v1/public/pulse/{}/start", seeded.code);
    let mint = json!({ "campaignId": seeded.campaign_id, "language": "en" });
    let consent = json!({ "consentGiven": true, "language": "en" });
    vec![
        Workload {
            name: "heartbeat v2",
            slug: "heartbeat",
            target: 1.5,
            path: HEARTBEAT.to_owned(),
            script: heartbeat_script(&seeded.devices, threads),
            probe: Probe {
                bearer: None,
                body: seeded.devices.first().map(heartbeat_body).unwrap_or_default(),
                expect: StatusCode::OK,
            },
        },
        Workload {
            name: "POST CH/launch (mint)",
            slug: "mint",
            target: 1.0,
            path: MINT.to_owned(),
            script: static_script(&mint, Some(&seeded.key)),
            probe: Probe { bearer: Some(seeded.key.clone()), body: mint, expect: StatusCode::CREATED },
        },
        Workload {
            name: "register (new device)",
            slug: "register",
            target: 1.0,
            path: REGISTER.to_owned(),
            script: register_script(&seeded.code),
            probe: Probe { bearer: None, body: register_body(&seeded.code, "probe"), expect: StatusCode::CREATED },
        },
        Workload {
            name: "public start (open campaign)",
            slug: "start",
            target: 1.0,
            path: start,
            script: static_script(&consent, None),
            probe: Probe { bearer: None, body: consent, expect: StatusCode::CREATED },
        },
    ]
}

/// A v2 heartbeat of `device`.
fn heartbeat_body(device: &Device) -> Value {
    json!({ "deviceId": device.id, "refreshToken": device.refresh_token, "appVersion": "5.2.0" })
}

/// `text` as a Lua string literal.
fn lua_string(text: &str) -> String {
    let mut literal = String::with_capacity(text.len() + 2);
    literal.push('"');
    for c in text.chars() {
        match c {
            '\\' => literal.push_str("\\\\"),
            '"' => literal.push_str("\\\""),
            c if c.is_ascii_control() => {
                let _ = write!(literal, "\\{:03}", u32::from(c));
            }
            c => literal.push(c),
        }
    }
    literal.push('"');
    literal
}

/// Every request the same: wrk builds it once.
fn static_script(body: &Value, bearer: Option<&str>) -> String {
    let mut script = String::from("-- pulse-bench: the same POST every time\nwrk.method = \"POST\"\n");
    let _ = writeln!(script, "wrk.body = {}", lua_string(&body.to_string()));
    script.push_str("wrk.headers[\"Content-Type\"] = \"application/json\"\n");
    if let Some(key) = bearer {
        let _ = writeln!(script, "wrk.headers[\"Authorization\"] = {}", lua_string(&format!("Bearer {key}")));
    }
    script
}

/// Numbers wrk's threads 0, 1, … (`setup` runs in the main Lua state; `thread:set` makes `tid` a
/// global of the thread's own state before its `init`).
const THREAD_IDS: &str = "local created = 0\n\
function setup(thread)\n  thread:set(\"tid\", created)\n  created = created + 1\nend\n";

/// Rotates through the devices: thread `t` of `T` sends devices t, t+T, t+2T, … so the threads
/// never share a device and consecutive requests of a thread go to different devices. The
/// requests are formatted once, in `init`.
fn heartbeat_script(devices: &[Device], threads: u32) -> String {
    let mut script = String::from("-- pulse-bench: v2 heartbeats, rotating through registered devices\n");
    let _ = writeln!(script, "local THREADS = {threads}");
    script.push_str("local bodies = {\n");
    for device in devices {
        let _ = writeln!(script, "  {},", lua_string(&heartbeat_body(device).to_string()));
    }
    script.push_str("}\n");
    script.push_str(THREAD_IDS);
    let _ = write!(
        script,
        "function init(args)\n\
         \x20 local headers = {{ [\"Content-Type\"] = \"application/json\" }}\n\
         \x20 requests = {{}}\n\
         \x20 for i, body in ipairs(bodies) do\n\
         \x20   requests[i] = wrk.format(\"POST\", {path}, headers, body)\n\
         \x20 end\n\
         \x20 index = tid\n\
         end\n\
         function request()\n\
         \x20 local r = requests[(index % #requests) + 1]\n\
         \x20 index = index + THREADS\n\
         \x20 return r\n\
         end\n",
        path = lua_string(HEARTBEAT),
    );
    script
}

/// A new device per request: its `vendorDeviceId` is `bench-<thread>-<count>`, unique in the run.
fn register_script(code: &str) -> String {
    let template = register_body(code, VENDOR_ID_SLOT).to_string();
    let (before, after) = template.split_once(VENDOR_ID_SLOT).unwrap_or((&template, ""));
    let mut script = String::from("-- pulse-bench: registers, each of a new device\n");
    let _ = writeln!(script, "local BEFORE = {}", lua_string(before));
    let _ = writeln!(script, "local AFTER = {}", lua_string(after));
    script.push_str(THREAD_IDS);
    let _ = write!(
        script,
        "function init(args)\n\
         \x20 headers = {{ [\"Content-Type\"] = \"application/json\" }}\n\
         \x20 count = 0\n\
         end\n\
         function request()\n\
         \x20 count = count + 1\n\
         \x20 local body = BEFORE .. \"bench-\" .. tid .. \"-\" .. count .. AFTER\n\
         \x20 return wrk.format(\"POST\", {path}, headers, body)\n\
         end\n",
        path = lua_string(REGISTER),
    );
    script
}

impl Workload {
    /// Sends one request like the script's and checks its status, so a workload that only
    /// answers refusals (or, for start, `200 started: false`) stops the run with the reason.
    pub async fn probe(&self, http: &Http) -> anyhow::Result<()> {
        let probe = &self.probe;
        http.post(&self.path, probe.bearer.as_deref(), Some(&probe.body), probe.expect)
            .await
            .with_context(|| format!("the {} workload does not work", self.name))?;
        Ok(())
    }

    /// Runs wrk with the script for the plan's duration.
    pub async fn run(&self, base_url: &str, plan: &Plan, dir: &Path) -> anyhow::Result<Measured> {
        let script = dir.join(format!("{}.lua", self.slug));
        tokio::fs::write(&script, &self.script).await.context("cannot write a wrk script")?;
        let text = output(
            Command::new("wrk")
                .args(["-t", &plan.threads.to_string(), "-c", &plan.connections.to_string()])
                .args(["-d", &format!("{}s", plan.duration), "--latency", "-s"])
                .arg(&script)
                .arg(format!("{base_url}{}", self.path)),
            "wrk",
        )
        .await?;
        parse_wrk(&text).with_context(|| format!("cannot read wrk's report:\n{text}"))
    }
}

/// What wrk reported for one workload.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measured {
    /// Answers received.
    pub requests: u64,
    pub per_second: f64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Answers that were not 2xx or 3xx.
    pub non_2xx: u64,
    /// `connect, read, write, timeout`, as wrk counts them (no answer at all).
    pub socket_errors: [u64; 4],
}

impl Measured {
    pub fn answered_2xx(&self) -> u64 {
        self.requests.saturating_sub(self.non_2xx)
    }
}

/// Reads wrk's report (run with `--latency`).
pub fn parse_wrk(text: &str) -> anyhow::Result<Measured> {
    let mut measured = Measured::default();
    let (mut rate, mut count, mut p50, mut p99) = (false, false, false, false);
    for line in text.lines().map(str::trim) {
        if let Some(value) = line.strip_prefix("Requests/sec:") {
            measured.per_second = value.trim().parse().context("Requests/sec")?;
            rate = true;
        } else if let Some(value) = line.strip_prefix("Non-2xx or 3xx responses:") {
            measured.non_2xx = value.trim().parse().context("Non-2xx or 3xx responses")?;
        } else if let Some(value) = line.strip_prefix("Socket errors:") {
            for (slot, part) in measured.socket_errors.iter_mut().zip(value.split(',')) {
                *slot = part.split_whitespace().last().unwrap_or_default().parse().context("Socket errors")?;
            }
        } else if let Some(value) = line.strip_prefix("50%") {
            measured.p50_ms = duration_ms(value.trim())?;
            p50 = true;
        } else if let Some(value) = line.strip_prefix("99%") {
            measured.p99_ms = duration_ms(value.trim())?;
            p99 = true;
        } else if let Some((n, _)) = line.split_once(" requests in ") {
            measured.requests = n.trim().parse().context("requests in")?;
            count = true;
        }
    }
    ensure!(
        rate && count && p50 && p99,
        "the report lacks Requests/sec, the request count or the latency distribution"
    );
    Ok(measured)
}

/// A duration as wrk prints it (`812.00us`, `1.23ms`, `2.00s`, `1.50m`, `1.00h`), in milliseconds.
fn duration_ms(text: &str) -> anyhow::Result<f64> {
    let units = [("us", 0.001), ("ms", 1.0), ("s", 1_000.0), ("m", 60_000.0), ("h", 3_600_000.0)];
    for (suffix, scale) in units {
        if let Some(number) = text.strip_suffix(suffix) {
            let value: f64 = number.parse().with_context(|| format!("the duration `{text}`"))?;
            return Ok(value * scale);
        }
    }
    bail!("the duration `{text}` has no unit")
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "Running 1s test @ http://127.0.0.1:40123/api/v1/apps/heartbeat
  2 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     3.20ms    1.10ms  15.02ms   80.00%
    Req/Sec   620.00     40.00   700.00     70.00%
  Latency Distribution
     50%    2.95ms
     75%    3.60ms
     90%    4.40ms
     99%  812.00us
  1240 requests in 1.00s, 600.00KB read
  Socket errors: connect 0, read 1, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:   1238.50
Transfer/sec:    599.00KB
";

    #[test]
    fn reads_wrks_report() {
        let measured = parse_wrk(REPORT).expect("a report");
        assert_eq!(
            measured,
            Measured {
                requests: 1240,
                per_second: 1238.5,
                p50_ms: 2.95,
                p99_ms: 0.812,
                non_2xx: 7,
                socket_errors: [0, 1, 0, 3],
            }
        );
        assert_eq!(measured.answered_2xx(), 1233);
    }

    #[test]
    fn a_clean_report_has_no_errors_and_a_cut_one_is_refused() {
        let clean: String =
            REPORT.lines().filter(|l| !l.contains("errors") && !l.contains("Non-2xx")).collect::<Vec<_>>().join("\n");
        let measured = parse_wrk(&clean).expect("a report");
        assert_eq!((measured.non_2xx, measured.socket_errors), (0, [0; 4]));
        assert!(parse_wrk("Running 1s test @ http://127.0.0.1:1/\n").is_err());
    }

    #[test]
    fn reads_every_unit() {
        for (text, ms) in [("812.00us", 0.812), ("1.50ms", 1.5), ("2.00s", 2000.0), ("1.00m", 60_000.0)] {
            assert!((duration_ms(text).expect(text) - ms).abs() < 1e-9, "{text}");
        }
        assert!(duration_ms("12").is_err());
    }

    #[test]
    fn lua_strings_are_escaped() {
        assert_eq!(lua_string(r#"{"a":"b\c"}"#), r#""{\"a\":\"b\\c\"}""#);
        assert_eq!(lua_string("a\nb"), "\"a\\010b\"");
    }

    #[test]
    fn a_register_body_is_split_around_the_vendor_device_id() {
        let script = register_script("CODE123");
        assert!(script.contains(r#""vendorDeviceId\":\""#), "{script}");
        assert!(!script.contains(VENDOR_ID_SLOT), "{script}");
        assert!(script.contains(r#"BEFORE .. "bench-" .. tid .. "-" .. count .. AFTER"#), "{script}");
    }

    #[test]
    fn heartbeats_rotate_through_every_device() {
        let devices: Vec<Device> =
            (0..3).map(|i| Device { id: format!("id-{i}"), refresh_token: format!("rt-{i}") }).collect();
        let script = heartbeat_script(&devices, 2);
        assert!(script.contains("local THREADS = 2"));
        for device in &devices {
            assert!(script.contains(&format!(r#"\"deviceId\":\"{}\""#, device.id)), "{script}");
        }
    }
}
