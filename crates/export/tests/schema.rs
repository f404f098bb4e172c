//! The committed schema is what the wire types generate, and each version only adds to the one
//! before it.

use std::path::PathBuf;

use serde_json::Value;

fn committed(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas").join(name)
}

#[test]
fn the_committed_schema_is_the_generated_one() {
    let generated = pulse_export::schema_json();
    let path = committed("svc.partner-export.v1.2.json");
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).expect("the schema file is writable");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    // Compared as JSON values, so a key order that another crate's serde_json features change
    // does not count as drift.
    let parse = |text: &str| serde_json::from_str::<Value>(text).ok();
    assert!(
        parse(&committed).is_some() && parse(&committed) == parse(&generated),
        "schemas/svc.partner-export.v1.2.json is not what the wire types of pulse-export generate; \
         regenerate it with `UPDATE_SCHEMA=1 cargo test -p pulse-export --test schema` and review the diff"
    );
}

/// Whether `new` keeps everything `old` says: every key with the same value, and every required
/// field still required; `path` names where the two are, for the message.
fn only_adds(old: &Value, new: &Value, path: &str, differences: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            for (key, value) in old {
                let here = format!("{path}/{key}");
                // The version's own name and address change with it.
                if matches!(
                    here.as_str(),
                    "/$id" | "/title" | "/properties/schema/const" | "/properties/schema/description"
                ) {
                    continue;
                }
                match new.get(key) {
                    Some(kept) => only_adds(value, kept, &here, differences),
                    None => differences.push(format!("{here} is gone")),
                }
            }
        }
        (Value::Array(old), Value::Array(new)) if path.ends_with("/required") => {
            differences.extend(old.iter().filter(|field| !new.contains(field)).map(|f| format!("{path}: {f} dropped")));
        }
        (old, new) if old != new => differences.push(format!("{path}: {old} became {new}")),
        _ => {}
    }
}

#[test]
fn each_version_only_adds_to_the_one_before() {
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(committed(name)).expect("committed")).expect("JSON")
    };
    for (old, new) in [("v1", "v1.1"), ("v1.1", "v1.2")] {
        let mut differences = Vec::new();
        let (before, after) =
            (read(&format!("svc.partner-export.{old}.json")), read(&format!("svc.partner-export.{new}.json")));
        only_adds(&before, &after, "", &mut differences);
        assert!(differences.is_empty(), "{new} changes what {old} said: {differences:#?}");
    }
}
