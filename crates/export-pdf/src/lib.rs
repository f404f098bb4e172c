//! The PDF side of exports: a report a partner can forward to a client, typeset in-process by
//! typst with the fonts shipped in `fonts/` (Noto Sans and Noto Sans Devanagari, OFL), so it
//! renders the same everywhere and needs no network.
//!
//! The template (`report/report.typ`) is fixed; the document reaches it as a JSON file it reads
//! as data, so no campaign name or question text is ever evaluated as markup. Its headings and
//! labels come with the data, in the document's language: `words.rs` gives their shape,
//! `translations/` the tables, and `labels.rs` what the template reads.

mod labels;
mod renderers;
mod report;
mod translations;
mod words;
mod world;

pub use renderers::ExportRenderers;
pub use report::PdfReport;
