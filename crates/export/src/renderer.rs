//! The JSON file of an export; `pulse-export-pdf`'s `ExportRenderers` hands it to the worker.

use pulse_domain::exports::models::ExportDocument;
use pulse_domain::{Error, Result};

use crate::wire::ExportFile;

/// Writes exports as pretty-printed UTF-8 JSON following `svc.partner-export.v1.2`.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonExportRenderer;

impl JsonExportRenderer {
    /// The JSON file of `document`; quick enough to make on the caller's thread.
    ///
    /// # Errors
    /// `Internal` if serialisation fails.
    pub fn json(self, document: &ExportDocument) -> Result<Vec<u8>> {
        serde_json::to_vec_pretty(&ExportFile::from(document)).map_err(Error::internal)
    }
}
