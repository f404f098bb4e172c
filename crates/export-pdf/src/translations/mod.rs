//! The report's words in the eight export languages, in a formal register (vous, Sie, usted, u,
//! Lei, आप, or impersonal). Terms agree with the narrative's (`pulse-domain`'s exports): the
//! same word for a response, a rating, a theme and accepted in both.
//!
//! One file per language, so a translator reviews a table without reading code.

use pulse_domain::exports::models::{EXCLUSIONS, ReportLanguage};

use crate::words::Words;

mod de;
mod en;
mod es;
mod fr;
mod hi;
mod it;
mod nl;
mod pt;

pub(crate) const fn words(language: ReportLanguage) -> &'static Words {
    match language {
        ReportLanguage::English => &en::WORDS,
        ReportLanguage::French => &fr::WORDS,
        ReportLanguage::Spanish => &es::WORDS,
        ReportLanguage::German => &de::WORDS,
        ReportLanguage::Portuguese => &pt::WORDS,
        ReportLanguage::Italian => &it::WORDS,
        ReportLanguage::Dutch => &nl::WORDS,
        ReportLanguage::Hindi => &hi::WORDS,
    }
}

// The exclusions' components, in the domain's order: each language gives their reasons.
const SIGNATURES: &str = EXCLUSIONS[0].component;
const CROSS: &str = EXCLUSIONS[1].component;
const INDEX: &str = EXCLUSIONS[2].component;
