//! The Python and Node examples of `docs/webhooks.md`, run exactly as written against the shared
//! vectors: each block is copied from the page into a file, followed by a few lines that read
//! `vectors.json` and check every case. Needs `python3` and `node` (18 or newer). The README's
//! Rust example of solving a challenge is checked to be the doc example of `challenge::solve`,
//! which `cargo test` runs.

use std::path::{Path, PathBuf};
use std::process::Command;

fn docs() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/webhooks.md")).expect("docs/webhooks.md")
}

/// The first fenced block of `language` after `heading`.
fn block(docs: &str, heading: &str, language: &str) -> String {
    let from = docs.find(heading).unwrap_or_else(|| panic!("`{heading}` in the page"));
    let fence = format!("```{language}\n");
    let open = from + docs[from..].find(&fence).unwrap_or_else(|| panic!("a {language} block after {heading}"));
    let body = &docs[open + fence.len()..];
    body[..body.find("\n```").expect("a closed block")].to_owned()
}

fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors.json")
}

fn run(program: &str, source: &str, extension: &str) {
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("docs-example-{}.{extension}", std::process::id()));
    std::fs::write(&file, source).expect("write the example");
    let output = Command::new(program)
        .arg(&file)
        .arg(vectors())
        .output()
        .unwrap_or_else(|e| panic!("{program} is needed to run the docs' examples: {e}"));
    let _ = std::fs::remove_file(&file);
    assert!(
        output.status.success(),
        "the {program} example failed the vectors:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn the_python_example_passes_the_vectors() {
    let checks = r#"

import json
import sys

vectors = json.load(open(sys.argv[1], encoding="utf-8"))
failed = [c["externalId"] for c in vectors["userHash"] if user_hash(c["secret"], c["externalId"]) != c["userHash"]]
failed += [
    c["name"]
    for c in vectors["webhook"]
    if verify(c["body"].encode("utf-8"), c["header"], c["secrets"], now=c["now"]) != (c["outcome"] == "ok")
]
assert len(vectors["webhook"]) >= 10, "the vectors"
if failed:
    sys.exit(f"failed: {failed}")
"#;
    run("python3", &(block(&docs(), "**Python 3**", "python") + checks), "py");
}

#[test]
fn the_node_example_passes_the_vectors() {
    let checks = r#"

import { readFileSync } from "node:fs";

const vectors = JSON.parse(readFileSync(process.argv[2], "utf8"));
const failed = [
  ...vectors.userHash.filter((c) => userHash(c.secret, c.externalId) !== c.userHash).map((c) => c.externalId),
  ...vectors.webhook
    .filter((c) => verify(Buffer.from(c.body, "utf8"), c.header, c.secrets, c.now) !== (c.outcome === "ok"))
    .map((c) => c.name),
];
if (vectors.webhook.length < 10 || failed.length > 0) {
  console.error("failed:", failed);
  process.exit(1);
}
"#;
    run("node", &(block(&docs(), "**Node.js**", "js") + checks), "mjs");
}

#[test]
fn the_readmes_challenge_example_is_the_doc_example_that_runs() {
    let read = |path: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
            .unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let readme = block(&read("README.md"), "## Solving a start challenge", "rust");
    let doc_comments: String = read("src/challenge.rs")
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("///"))
        .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
        .collect();
    // What rustdoc shows: the example without its hidden lines.
    let example = block(&doc_comments, "# Example", "rust");
    let shown: Vec<&str> = example.lines().filter(|line| *line != "#" && !line.starts_with("# ")).collect();
    assert_eq!(readme, shown.join("\n"));
}
