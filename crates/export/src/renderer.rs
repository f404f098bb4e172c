//! The JSON half of the `ExportRenderer` port; PDF files are made elsewhere.

use pulse_domain::exports::models::{ExportDocument, ExportFormat};
use pulse_domain::exports::ports::ExportRenderer;
use pulse_domain::{Error, Result};

use crate::wire::ExportFile;

/// Renders exports as pretty-printed UTF-8 JSON following `svc.partner-export.v1`. It makes no
/// PDF, so the worker must be given another renderer for those.
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

impl ExportRenderer for JsonExportRenderer {
    fn can_render(&self, format: ExportFormat) -> bool {
        format == ExportFormat::Json
    }

    async fn render(&self, document: &ExportDocument, format: ExportFormat) -> Result<Vec<u8>> {
        if format != ExportFormat::Json {
            return Err(Error::internal(format!("the JSON renderer cannot make a {} file", format.as_str())));
        }
        self.json(document)
    }
}
