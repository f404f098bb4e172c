//! The workloads: what each request is, the Lua script wrk runs from it, a probe that checks one
//! request answers as it should before wrk runs, and the reading of wrk's report.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, bail, ensure};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::Plan;
use crate::seed::{Http, Seeded, register_body};
use crate::tools::output;

const HEARTBEAT: &str = "/api/v1/apps/heartbeat";
const REGISTER: &str = "/api/v1/apps/register";
const MINT: &str = "/api/v1/channel/launch";

/// Every workload's method.
pub const METHOD: Method = Method::POST;

/// Stands for the per-request part of a register body in its template.
const VENDOR_ID_SLOT: &str = "@VENDOR_DEVICE_ID@";

/// How the `vendorDeviceId` of a new device begins, per sender, so that no two registers of a run
/// share one (seeding uses `seed-`).
const PROBE_VENDOR_ID: &str = "probe";
const WRK_VENDOR_IDS: &str = "bench-";
const PACED_VENDOR_IDS: &str = "paced-";

/// One workload: what it sends, and the issue's target for its ratio to pgbench's TPS.
pub struct Workload {
    pub name: &'static str,
    /// The file name of its script, and its name for `--only`.
    pub slug: &'static str,
    pub target: f64,
    pub requests: Requests,
    /// The status the probe must get.
    expect: StatusCode,
}

/// What every request of a workload is: a JSON body sent with [`METHOD`] to `path`, with the API
/// key when there is one. The wrk script, the probe and the paced run are all made
/// from it.
#[derive(Clone)]
pub struct Requests {
    pub path: String,
    bearer: Option<String>,
    bodies: Bodies,
}

#[derive(Clone)]
enum Bodies {
    /// The same body every time.
    Same(Value),
    /// Each request the next of these, round and round.
    Rotating(Vec<Value>),
    /// A register of a device no request used before, in the campaign of this code.
    NewDevice(String),
}

/// The four workloads: heartbeat, mint, register and start, in the order they run.
pub fn all(seeded: &Seeded) -> Vec<Workload> {
    let heartbeats = seeded
        .devices
        .iter()
        .map(|device| json!({ "deviceId": device.id, "refreshToken": device.refresh_token, "appVersion": "5.2.0" }));
    vec![
        Workload {
            name: "heartbeat v2",
            slug: "heartbeat",
            target: 1.5,
            requests: Requests {
                path: HEARTBEAT.to_owned(),
                bearer: None,
                bodies: Bodies::Rotating(heartbeats.collect()),
            },
            expect: StatusCode::OK,
        },
        Workload {
            name: "POST CH/launch (mint)",
            slug: "mint",
            target: 1.0,
            requests: Requests {
                path: MINT.to_owned(),
                bearer: Some(seeded.key.clone()),
                bodies: Bodies::Same(json!({ "campaignId": seeded.campaign_id, "language": "en" })),
            },
            expect: StatusCode::CREATED,
        },
        Workload {
            name: "register (new device)",
            slug: "register",
            target: 1.0,
            requests: Requests {
                path: REGISTER.to_owned(),
                bearer: None,
                bodies: Bodies::NewDevice(seeded.code.clone()),
            },
            expect: StatusCode::CREATED,
        },
        Workload {
            name: "public start (open campaign)",
            slug: "start",
            target: 1.0,
            requests: Requests {
                path: format!("/api/v1/public/pulse/{}/start", seeded.code),
                bearer: None,
                bodies: Bodies::Same(json!({ "consentGiven": true, "language": "en" })),
            },
            expect: StatusCode::CREATED,
        },
    ]
}

impl Requests {
    /// The headers of every request.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![("Content-Type", "application/json".to_owned())];
        if let Some(key) = &self.bearer {
            headers.push(("Authorization", format!("Bearer {key}")));
        }
        headers
    }

    /// The body of the paced run's request `index`: the next of the rotation, or a register of a
    /// device of its own.
    pub fn paced_body(&self, index: u64) -> String {
        match &self.bodies {
            Bodies::Same(body) => body.to_string(),
            Bodies::Rotating(bodies) => {
                let at = index % (bodies.len() as u64).max(1);
                bodies.get(at as usize).map(Value::to_string).unwrap_or_default()
            }
            Bodies::NewDevice(code) => register_body(code, &format!("{PACED_VENDOR_IDS}{index}")).to_string(),
        }
    }

    /// The body of the probe: the first of the rotation, or a register of its own device.
    fn probe_body(&self) -> Value {
        match &self.bodies {
            Bodies::Same(body) => body.clone(),
            Bodies::Rotating(bodies) => bodies.first().cloned().unwrap_or_default(),
            Bodies::NewDevice(code) => register_body(code, PROBE_VENDOR_ID),
        }
    }

    /// The Lua script that makes wrk send these requests with `threads` threads.
    pub fn wrk_script(&self, threads: u32) -> String {
        match &self.bodies {
            Bodies::Same(body) => self.static_script(body),
            Bodies::Rotating(bodies) => self.rotating_script(bodies, threads),
            Bodies::NewDevice(code) => self.register_script(code),
        }
    }

    /// The headers as a Lua table.
    fn lua_headers(&self) -> String {
        let pairs: Vec<String> = self
            .headers()
            .iter()
            .map(|(name, value)| format!("[{}] = {}", lua_string(name), lua_string(value)))
            .collect();
        format!("{{ {} }}", pairs.join(", "))
    }

    /// Every request the same: wrk builds it once.
    fn static_script(&self, body: &Value) -> String {
        let mut script = String::from("-- pulse-bench: the same request every time\n");
        let _ = writeln!(script, "wrk.method = {}", lua_string(METHOD.as_str()));
        let _ = writeln!(script, "wrk.body = {}", lua_string(&body.to_string()));
        for (name, value) in self.headers() {
            let _ = writeln!(script, "wrk.headers[{}] = {}", lua_string(name), lua_string(&value));
        }
        script
    }

    /// Rotates through the bodies: thread `t` of `T` sends bodies t, t+T, t+2T, … so the threads
    /// never share one (a heartbeat's device) and consecutive requests of a thread differ. The
    /// requests are formatted once, in `init`.
    fn rotating_script(&self, bodies: &[Value], threads: u32) -> String {
        let mut script = String::from("-- pulse-bench: rotating through the bodies\n");
        let _ = writeln!(script, "local THREADS = {threads}");
        script.push_str("local bodies = {\n");
        for body in bodies {
            let _ = writeln!(script, "  {},", lua_string(&body.to_string()));
        }
        script.push_str("}\n");
        script.push_str(THREAD_IDS);
        let _ = write!(
            script,
            "function init(args)\n\
             \x20 local headers = {headers}\n\
             \x20 requests = {{}}\n\
             \x20 for i, body in ipairs(bodies) do\n\
             \x20   requests[i] = wrk.format({method}, {path}, headers, body)\n\
             \x20 end\n\
             \x20 index = tid\n\
             end\n\
             function request()\n\
             \x20 local r = requests[(index % #requests) + 1]\n\
             \x20 index = index + THREADS\n\
             \x20 return r\n\
             end\n",
            headers = self.lua_headers(),
            method = lua_string(METHOD.as_str()),
            path = lua_string(&self.path),
        );
        script
    }

    /// A new device per request: its `vendorDeviceId` is `bench-<thread>-<count>`, unique in the
    /// run.
    fn register_script(&self, code: &str) -> String {
        let template = register_body(code, VENDOR_ID_SLOT).to_string();
        let (before, after) = template.split_once(VENDOR_ID_SLOT).unwrap_or((&template, ""));
        let mut script = String::from("-- pulse-bench: registers, each of a new device\n");
        let _ = writeln!(script, "local BEFORE = {}", lua_string(before));
        let _ = writeln!(script, "local AFTER = {}", lua_string(after));
        let _ = writeln!(script, "local PREFIX = {}", lua_string(WRK_VENDOR_IDS));
        script.push_str(THREAD_IDS);
        let _ = write!(
            script,
            "function init(args)\n\
             \x20 headers = {headers}\n\
             \x20 count = 0\n\
             end\n\
             function request()\n\
             \x20 count = count + 1\n\
             \x20 local body = BEFORE .. PREFIX .. tid .. \"-\" .. count .. AFTER\n\
             \x20 return wrk.format({method}, {path}, headers, body)\n\
             end\n",
            headers = self.lua_headers(),
            method = lua_string(METHOD.as_str()),
            path = lua_string(&self.path),
        );
        script
    }
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

/// Numbers wrk's threads 0, 1, … (`setup` runs in the main Lua state; `thread:set` makes `tid` a
/// global of the thread's own state before its `init`).
const THREAD_IDS: &str = "local created = 0\n\
function setup(thread)\n  thread:set(\"tid\", created)\n  created = created + 1\nend\n";

impl Workload {
    /// Sends one request like the script's and checks its status, so a workload that only
    /// answers refusals (or, for start, `200 started: false`) stops the run with the reason.
    pub async fn probe(&self, http: &Http) -> anyhow::Result<()> {
        let requests = &self.requests;
        http.post(&requests.path, requests.bearer.as_deref(), Some(&requests.probe_body()), self.expect)
            .await
            .with_context(|| format!("the {} workload does not work", self.name))?;
        Ok(())
    }

    /// Runs wrk with the script for the plan's duration.
    pub async fn run(&self, base_url: &str, plan: &Plan, dir: &Path) -> anyhow::Result<Measured> {
        let script = dir.join(format!("{}.lua", self.slug));
        tokio::fs::write(&script, self.requests.wrk_script(plan.threads)).await.context("cannot write a wrk script")?;
        let text = output(
            Command::new("wrk")
                .args(["-t", &plan.threads.to_string(), "-c", &plan.connections.to_string()])
                .args(["-d", &format!("{}s", plan.duration), "--latency", "-s"])
                .arg(&script)
                .arg(format!("{base_url}{}", self.requests.path)),
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
    use crate::seed::Device;

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

    fn seeded() -> Seeded {
        Seeded {
            key: "pk_test".to_owned(),
            campaign_id: "cmp-1".to_owned(),
            code: "CODE123".to_owned(),
            devices: (0..3).map(|i| Device { id: format!("id-{i}"), refresh_token: format!("rt-{i}") }).collect(),
        }
    }

    fn workload(slug: &str) -> Workload {
        all(&seeded()).into_iter().find(|w| w.slug == slug).expect(slug)
    }

    fn vendor_id(body: &str) -> String {
        let body: Value = serde_json::from_str(body).expect("JSON");
        body["vendorDeviceId"].as_str().expect("a vendorDeviceId").to_owned()
    }

    #[test]
    fn a_register_script_makes_a_new_vendor_device_id_per_request() {
        let requests = workload("register").requests;
        assert_eq!(requests.probe_body()["vendorDeviceId"], "probe");
        let script = requests.wrk_script(2);
        assert!(script.contains(r#""vendorDeviceId\":\""#), "{script}");
        assert!(!script.contains(VENDOR_ID_SLOT), "{script}");
        assert!(script.contains(r#"local PREFIX = "bench-""#), "{script}");
        assert!(script.contains(r#"BEFORE .. PREFIX .. tid .. "-" .. count .. AFTER"#), "{script}");
    }

    #[test]
    fn paced_registers_use_ids_that_neither_wrk_the_probe_nor_seeding_use() {
        let requests = workload("register").requests;
        let ids: Vec<String> = (0..3).map(|i| vendor_id(&requests.paced_body(i))).collect();
        assert_eq!(ids, ["paced-0", "paced-1", "paced-2"]);
        for other in [WRK_VENDOR_IDS, PROBE_VENDOR_ID, "seed-"] {
            assert!(!PACED_VENDOR_IDS.starts_with(other) && !other.starts_with(PACED_VENDOR_IDS), "{other}");
        }
    }

    #[test]
    fn heartbeats_rotate_through_every_device_in_wrk_and_in_the_paced_run() {
        let requests = workload("heartbeat").requests;
        let script = requests.wrk_script(2);
        assert!(script.contains("local THREADS = 2"));
        let devices: Vec<Value> = (0..4)
            .map(|i| serde_json::from_str::<Value>(&requests.paced_body(i)).expect("JSON")["deviceId"].clone())
            .collect();
        assert_eq!(devices, ["id-0", "id-1", "id-2", "id-0"]);
        for device in seeded().devices {
            assert!(script.contains(&format!(r#"\"deviceId\":\"{}\""#, device.id)), "{script}");
            assert!(script.contains(&format!(r#"\"refreshToken\":\"{}\""#, device.refresh_token)), "{script}");
        }
    }

    #[test]
    fn the_key_goes_with_mint_only_in_the_script_and_the_paced_headers() {
        let mint = workload("mint").requests;
        assert_eq!(mint.headers()[1], ("Authorization", "Bearer pk_test".to_owned()));
        let script = mint.wrk_script(2);
        assert!(script.contains(r#"wrk.headers["Authorization"] = "Bearer pk_test""#), "{script}");
        assert!(script.contains(r#"wrk.method = "POST""#), "{script}");
        assert!(script.contains(r#"wrk.body = "{\"campaignId\":\"cmp-1\",\"language\":\"en\"}""#), "{script}");
        assert_eq!(mint.paced_body(7), r#"{"campaignId":"cmp-1","language":"en"}"#);
        for slug in ["heartbeat", "register", "start"] {
            let requests = workload(slug).requests;
            assert_eq!(requests.headers(), [("Content-Type", "application/json".to_owned())], "{slug}");
            assert!(!requests.wrk_script(2).contains("Authorization"), "{slug}");
        }
        let start = workload("start").requests;
        assert_eq!(start.path, "/api/v1/public/pulse/CODE123/start");
        assert_eq!(start.paced_body(0), r#"{"consentGiven":true,"language":"en"}"#);
    }
}
