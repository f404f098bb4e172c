//! A renderer that writes a short, predictable file, and can be told to fail or to have no PDF.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use pulse_domain::exports::models::{ExportDocument, ExportFormat};
use pulse_domain::exports::ports::ExportRenderer;
use pulse_domain::{Error, Result};

#[derive(Clone, Debug, Default)]
pub struct FakeRenderer {
    /// PDF files cannot be made while set.
    pdf_unavailable: Arc<AtomicBool>,
    /// Renderings still to fail.
    failures: Arc<AtomicU32>,
}

impl FakeRenderer {
    /// Makes PDF files impossible (or possible again), as a renderer that cannot start.
    pub fn set_pdf_unavailable(&self, unavailable: bool) {
        self.pdf_unavailable.store(unavailable, Ordering::SeqCst);
    }

    /// Makes the next `count` renderings fail.
    pub fn fail_next(&self, count: u32) {
        self.failures.store(count, Ordering::SeqCst);
    }
}

impl ExportRenderer for FakeRenderer {
    fn can_render(&self, format: ExportFormat) -> bool {
        format == ExportFormat::Json || !self.pdf_unavailable.load(Ordering::SeqCst)
    }

    async fn render(&self, document: &ExportDocument, format: ExportFormat) -> Result<Vec<u8>> {
        if self.failures.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)).is_ok() {
            return Err(Error::internal("the fake renderer was told to fail"));
        }
        let transcripts = document.transcripts.as_ref().map_or(0, Vec::len);
        Ok(format!(
            "{} {} accepted={} floor={} transcripts={} language={}",
            format.as_str(),
            document.campaign.code,
            document.funnel.accepted,
            document.study.floor_applied,
            transcripts,
            document.language.code()
        )
        .into_bytes())
    }
}
