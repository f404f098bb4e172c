//! The JSON side of exports: the `svc.partner-export.v1.2` file as partners read it, the JSON
//! Schema generated from it, and the renderer that writes it.
//!
//! The domain's `ExportDocument` carries no serde: the file's field names and shapes are decided
//! here, once, and the committed schema (`schemas/svc.partner-export.v1.2.json`) is checked
//! against these types by a test, as is that it only adds to `v1`'s.

mod renderer;
mod schema;
mod wire;

pub use renderer::JsonExportRenderer;
pub use schema::{SCHEMA_ID, SCHEMA_TITLE, schema_json};
pub use wire::*;
