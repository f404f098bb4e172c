# Day-to-day recipes. The README's two quick-start commands do not need just.

default:
    @just --list

# Run the service against the local development database.
serve:
    cargo run -p pulse -- serve --dev

test:
    cargo test --workspace

# Format check and clippy with warnings denied, as CI runs them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

fmt:
    cargo fmt --all

# Drop and recreate the development database, then migrate it.
db-reset:
    psql -h 127.0.0.1 -U postgres -c 'DROP DATABASE IF EXISTS pulse WITH (FORCE)' -c 'CREATE DATABASE pulse'
    cargo run -p pulse -- migrate

# Write crates/postgres/src/schema.rs from the migrations (needs diesel's CLI; CI checks it matches).
schema:
    bash .ci/schema-check --write

# Accept a changed OpenAPI document after reviewing the diff.
openapi:
    INSTA_UPDATE=always cargo test -p pulse --test api openapi
    git diff --stat tests/api/snapshots

# Everything CI runs.
ci:
    bash .ci/run

# Train the sentiment model on UMSAB's training split (../shared/data/umsab) and write
# crates/analysis/model/sentiment.bin; deterministic, about four minutes on one core.
sentiment-train *args='':
    cargo run --release -p pulse-sentiment-lab -- train {{args}}

# Macro-F1 per language on the validation split and the Dutch check set, beside the published
# baselines, failing under the floors CI holds (docs/results.md, "Sentiment").
sentiment-eval *args='':
    cargo run --release -p pulse-sentiment-lab -- evaluate --check {{args}}

# The analyzer against its budget: size on disk, load time, answers a second on one core.
analyzer-bench:
    cargo bench -p pulse-analysis --bench analyzer

# Benchmark the hot paths against pgbench's one-row UPDATE, and their p99 paced at half that rate (docs/performance.md), e.g. `just bench --duration 30`.
bench *args='':
    cargo build --release -p pulse -p pulse-bench
    target/release/pulse-bench --pulse target/release/pulse {{args}}

# The benchmark's one-second smoke run on the debug build, so the harness cannot rot; speed is not judged.
bench-smoke:
    cargo build -p pulse -p pulse-bench
    target/debug/pulse-bench --pulse target/debug/pulse --smoke
