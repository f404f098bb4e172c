//! The built-in [`Analyzer`]: offline, deterministic, and the same result for the same text,
//! language and version.
//!
//! - **Sentiment** is VADER 3.3.2 (Hutto & Gilbert, 2014), a rated English lexicon with rules for
//!   negation, intensifiers, "but", punctuation and capitals, through the `vader-parity` crate: it
//!   reproduces the Python reference's scores exactly and tests that on every build, while the older
//!   `vader_sentiment` port differs from the reference on a third of those test sentences, with the
//!   sign reversed on some ("no problem", "at least terrible"). VADER is English only, so any
//!   other language gets `None`: a translated or guessed score would not be VADER's.
//! - **Key phrases** are RAKE (Rose et al., 2010): runs of up to three content words between stop
//!   words and punctuation, scored by how often and in how long runs their words occur. Stop words
//!   are the Snowball lists as NLTK ships them (`stop-words`, feature `nltk`) with a few frequency
//!   adverbs and quantifiers added; that crate's default ISO lists would drop topics such as "order",
//!   "problem" or "Zeit". Variants ("late delivery", "Deliveries late!") share a key made of their
//!   sorted Snowball stems (`rust-stemmers`). The extraction is our own because the crates for it
//!   did not fit: `rake` ranks ties in hash order, has no length limit and splits an email into
//!   plain words; `yake-rust` ranks by position and capitals, which means little in an answer of
//!   one or two sentences; `keyword_extraction` is LGPL. Emails, web addresses and numbers are
//!   dropped before anything else, so no theme carries contact data.
//! - **Languages**: sentiment covers `en`; key phrases cover `de`, `en`, `es`, `fr`, `it`, `nl` and
//!   `pt`: they have both a Snowball stemmer and a Snowball stop list, and their added stop words
//!   are written. Other languages get `None` rather than phrases split at the wrong words; Danish,
//!   Swedish, Russian and a few more have a stemmer and a list too, and need only their added
//!   words. Languages match on their primary subtag: `en-GB` is English.

mod themes;

use std::future::{Future, ready};
use std::sync::LazyLock;

use pulse_domain::analysis::models::{AnalyzerInfo, KeyPhrase, ModelInfo};
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::error::Result;
use vader_parity::SentimentIntensityAnalyzer;

/// The reference VADER version and the crate pinned in Cargo.toml (a test keeps them in step).
const SENTIMENT_VERSION: &str = "vader-3.3.2+vader-parity-0.1.0";

static VADER: LazyLock<SentimentIntensityAnalyzer> = LazyLock::new(SentimentIntensityAnalyzer::new);

/// VADER sentiment for English and RAKE key phrases for seven languages, computed in process.
#[derive(Clone, Debug)]
pub struct LexiconAnalyzer {
    _loaded: (),
}

impl LexiconAnalyzer {
    /// Loads the lexicons, once per process, so that no answer waits for it.
    pub fn new() -> Self {
        LazyLock::force(&VADER);
        themes::load();
        Self { _loaded: () }
    }
}

impl Default for LexiconAnalyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl Analyzer for LexiconAnalyzer {
    fn info(&self) -> AnalyzerInfo {
        AnalyzerInfo {
            sentiment: ModelInfo {
                name: "vader".to_owned(),
                version: SENTIMENT_VERSION.to_owned(),
                languages: vec!["en".to_owned()],
                description: "VADER scores English text from -1 to 1 with a lexicon of words rated by people and \
                              rules for negation, intensifiers, \"but\", punctuation and capitals."
                    .to_owned(),
            },
            themes: ModelInfo {
                name: "rake-snowball".to_owned(),
                version: themes::VERSION.to_owned(),
                languages: themes::languages(),
                description: "Key phrases are runs of up to three words between stop words and punctuation, ranked \
                              by how often and in how long runs their words occur, and merged when their word \
                              stems are the same."
                    .to_owned(),
            },
        }
    }

    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send {
        let score = (language.primary() == "en").then(|| VADER.polarity_scores(text).compound.clamp(-1.0, 1.0));
        ready(Ok(score))
    }

    fn key_phrases(
        &self,
        text: &str,
        language: &LanguageTag,
    ) -> impl Future<Output = Result<Option<Vec<KeyPhrase>>>> + Send {
        ready(Ok(themes::key_phrases(text, language.primary())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The version of `name` pinned (`= "=x.y.z"`) in this crate's Cargo.toml.
    fn pinned(name: &str) -> String {
        let manifest = include_str!("../Cargo.toml");
        let line = manifest.lines().find(|line| line.starts_with(&format!("{name} = "))).expect("a dependency line");
        let version = line.split("\"=").nth(1).expect("an exact version");
        version.split('"').next().expect("a closing quote").to_owned()
    }

    #[test]
    fn model_versions_name_the_pinned_crates() {
        assert!(SENTIMENT_VERSION.ends_with(&format!("+vader-parity-{}", pinned("vader-parity"))));
        for name in ["stop-words", "rust-stemmers"] {
            assert!(themes::VERSION.contains(&format!("+{name}-{}", pinned(name))), "{name}");
        }
    }
}
