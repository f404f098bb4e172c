//! The renderer the export worker is given: JSON here and now, PDF off the async threads.

use pulse_domain::exports::models::{ExportDocument, ExportFormat};
use pulse_domain::exports::ports::ExportRenderer;
use pulse_domain::{Error, Result};
use pulse_export::JsonExportRenderer;

use crate::PdfReport;

/// Both export formats. Without a PDF report (its fonts did not load) PDF requests are refused
/// with 503 before they are queued.
#[derive(Clone, Debug)]
pub struct ExportRenderers {
    json: JsonExportRenderer,
    pdf: Option<PdfReport>,
}

impl ExportRenderers {
    pub fn new(pdf: Option<PdfReport>) -> Self {
        Self { json: JsonExportRenderer, pdf }
    }
}

impl ExportRenderer for ExportRenderers {
    fn can_render(&self, format: ExportFormat) -> bool {
        match format {
            ExportFormat::Json => true,
            ExportFormat::Pdf => self.pdf.is_some(),
        }
    }

    async fn render(&self, document: &ExportDocument, format: ExportFormat) -> Result<Vec<u8>> {
        match format {
            ExportFormat::Json => self.json.json(document),
            ExportFormat::Pdf => {
                let report = self.pdf.clone().ok_or_else(|| Error::internal("this service cannot render PDF files"))?;
                let document = document.clone();
                tokio::task::spawn_blocking(move || report.render(&document))
                    .await
                    .map_err(|_| Error::internal("the PDF rendering stopped before it finished"))?
            }
        }
    }
}
