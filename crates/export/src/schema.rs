//! The JSON Schema of the export file, generated from the wire types.

use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::wire::ExportFile;

/// Where the schema says it lives; partners' validators key on it.
pub const SCHEMA_ID: &str = "https://pulse.example/schemas/svc.partner-export.v1.2.json";

pub const SCHEMA_TITLE: &str = "Pulse partner export (svc.partner-export.v1.2)";

/// The schema of [`ExportFile`] as pretty-printed JSON, ending in a newline: exactly what is
/// committed at `schemas/svc.partner-export.v1.2.json`.
pub fn schema_json() -> String {
    // The file is only ever written, so the schema describes what serialization produces (a
    // field skipped when empty is optional, a nullable one is required).
    let mut schema =
        SchemaSettings::draft2020_12().for_serialize().into_generator().into_root_schema_for::<ExportFile>();
    schema.insert("$id".to_owned(), Value::from(SCHEMA_ID));
    schema.insert("title".to_owned(), Value::from(SCHEMA_TITLE));
    format!("{:#}\n", schema.as_value())
}
