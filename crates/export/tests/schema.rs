//! The committed schema is what the wire types generate.

use std::path::PathBuf;

use serde_json::Value;

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = pulse_export::schema_json();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/svc.partner-export.v1.json");
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).expect("the schema file is writable");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    // Compared as JSON values, so a key order that another crate's serde_json features change
    // does not count as drift.
    let parse = |text: &str| serde_json::from_str::<Value>(text).ok();
    assert!(
        parse(&committed).is_some() && parse(&committed) == parse(&generated),
        "schemas/svc.partner-export.v1.json is not what the wire types of pulse-export generate; \
         regenerate it with `UPDATE_SCHEMA=1 cargo test -p pulse-export --test schema` and review the diff"
    );
}
