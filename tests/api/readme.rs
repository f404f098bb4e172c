//! The README's walkthrough, run as a new partner runs it: `pulse serve --dev` in a directory of
//! its own, then every shell block of the README after the quick start, in order, in one shell.
//! Only the server's address and the binary's path are put in place of `127.0.0.1:8080` and
//! `cargo run -q -p pulse --`; the blocks need `bash`, `curl` and `jq`.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use pulse_postgres::test_db::TestDatabase;

use crate::helpers::free_port;

/// The server, stopped when the test ends, also when it fails.
struct DevServer(Child);

impl Drop for DevServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The shell blocks from the walkthrough's first line to the next section of the README.
fn walkthrough() -> String {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).expect("README.md");
    let start = readme.find("Then, in a second terminal").expect("the walkthrough's first line");
    let end = start + readme[start..].find("\n## Configuration").expect("the section after the walkthrough");
    let mut blocks = Vec::new();
    let mut rest = &readme[start..end];
    while let Some(open) = rest.find("```sh\n") {
        let body = &rest[open + 6..];
        let close = body.find("\n```").expect("a closed block");
        blocks.push(&body[..close]);
        rest = &body[close + 4..];
    }
    assert!(blocks.len() >= 5, "the walkthrough's blocks: {blocks:?}");
    blocks.join("\n")
}

/// Waits for the server's start-up line.
async fn listening(log: &Path, started: Instant) {
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let up = text
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .any(|line| line["message"] == "pulse is listening");
        if up {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "serve --dev did not start:\n{text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_readme_walkthrough_runs_as_written() {
    let db = TestDatabase::create().await;
    let workdir: PathBuf =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readme-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&workdir).expect("a working directory");
    let binary = env!("CARGO_BIN_EXE_pulse");
    let log = workdir.join("serve.log");
    let env = |command: &mut Command| {
        command
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &workdir)
            .env("DATABASE_URL", db.url())
            .current_dir(&workdir);
    };
    let port = free_port();
    let mut serve = Command::new(binary);
    env(&mut serve);
    serve
        .args(["serve", "--dev"])
        .env("PULSE_BIND", format!("127.0.0.1:{port}"))
        .stdout(std::fs::File::create(&log).expect("log file"))
        .stderr(Stdio::null());
    let _server = DevServer(serve.spawn().expect("pulse serve --dev"));
    listening(&log, Instant::now()).await;

    let results = workdir.join("results.json");
    let script = format!(
        "{}\nprintf '%s' \"$R\" > '{}'\n",
        walkthrough()
            .replace("cargo run -q -p pulse --", &format!("'{binary}'"))
            .replace("http://127.0.0.1:8080", &format!("http://127.0.0.1:{port}")),
        results.display()
    );
    let mut shell = Command::new("bash");
    env(&mut shell);
    let output = tokio::task::spawn_blocking(move || shell.args(["-euo", "pipefail", "-c", &script]).output())
        .await
        .expect("the shell ran")
        .expect("bash");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the walkthrough failed:\n{stdout}\n{stderr}");
    assert!(stderr.is_empty(), "the walkthrough wrote to stderr:\n{stderr}");

    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(&results).expect("results")).expect("results are JSON");
    assert_eq!(results["acceptedCount"], 5, "{results}");
    assert_eq!(results["floorApplied"], false, "five respondents reach the floor: {results}");
    assert_eq!(results["metrics"]["pendingAnalysis"], 0, "{results}");
    let _ = std::fs::remove_dir_all(&workdir);
}
