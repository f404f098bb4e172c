//! Typesetting a document into the PDF report.

use std::collections::BTreeMap;
use std::sync::Arc;

use pulse_domain::exports::models::ExportDocument;
use pulse_domain::{Error, Result};
use pulse_export::ExportFile;
use serde::Serialize;
use typst_layout::PagedDocument;
use typst_pdf::PdfOptions;

use crate::labels::Labels;
use crate::world::{ReportWorld, Typesetting};

/// Memoised layouts kept between renderings, counted in renderings: enough for the template's
/// own work to be reused, little enough that a long-running worker does not grow.
const CACHE_ROUNDS: usize = 2;

/// What the template reads: the export file exactly as the JSON export has it, the report's
/// words in the document's language, and the few things it shows that are formatted here because
/// typst reads no dates.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportData<'a> {
    file: &'a ExportFile,
    /// The primary subtag the text is set in (hyphenation, the PDF's language).
    language: &'static str,
    labels: &'a Labels,
    period: String,
    generated: String,
    status: &'static str,
    /// Each trend bucket's period, in the buckets' order, as the chart's axis labels it.
    trend_periods: Vec<String>,
}

/// Renders PDF reports. Cheap to clone; every clone shares the fonts and the parsed template.
#[derive(Clone)]
pub struct PdfReport {
    typesetting: Arc<Typesetting>,
}

impl std::fmt::Debug for PdfReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PdfReport").finish_non_exhaustive()
    }
}

impl PdfReport {
    /// Loads the shipped fonts and parses the template.
    ///
    /// # Errors
    /// `Internal` when a shipped font does not load: such a build cannot make PDF files.
    pub fn new() -> Result<Self> {
        let typesetting = Typesetting::new().map_err(Error::internal)?;
        Ok(Self { typesetting: Arc::new(typesetting) })
    }

    /// Typesets `document` (CPU-bound: about a second for a large campaign; run it off the
    /// async threads).
    ///
    /// # Errors
    /// `Internal` when typst refuses the document; the message names the template's complaint.
    pub fn render(&self, document: &ExportDocument) -> Result<Vec<u8>> {
        let file = ExportFile::from(document);
        let labels = Labels::of(document.language);
        let data = ReportData {
            file: &file,
            language: document.language.code(),
            labels: &labels,
            period: labels.period(document.study.period_start, document.study.period_end),
            generated: labels.moment(document.generated_at),
            status: labels.status(document.campaign.status),
            // A date's day and month are never negative.
            trend_periods: document
                .trend
                .buckets
                .iter()
                .map(|bucket| {
                    labels.short_date(bucket.period.day().unsigned_abs(), bucket.period.month().unsigned_abs())
                })
                .collect(),
        };
        let data = serde_json::to_vec(&data).map_err(Error::internal)?;
        let world = ReportWorld::new(Arc::clone(&self.typesetting), data);
        let typeset = typst::compile::<PagedDocument>(&world).output.map_err(|errors| {
            let messages: BTreeMap<_, _> = errors.iter().map(|e| (e.message.to_string(), ())).collect();
            Error::internal(format!(
                "the report could not be typeset: {}",
                messages.into_keys().collect::<Vec<_>>().join("; ")
            ))
        });
        comemo::evict(CACHE_ROUNDS);
        let pdf = typst_pdf::pdf(&typeset?, &PdfOptions::default()).map_err(|errors| {
            Error::internal(format!("the report could not be written as PDF ({} errors)", errors.len()))
        })?;
        Ok(pdf)
    }
}
