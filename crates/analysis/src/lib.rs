//! The built-in [`Analyzer`]: offline, in process, deterministic, and the same result for the
//! same text, language and version. docs/results.md gives its figures and sources.
//!
//! - **Language** of each answer from its text (`whatlang`), the session's standing when the text
//!   is short or the guess unsure ([`language`]).
//! - **Sentiment** in the eight survey languages (`de`, `en`, `es`, `fr`, `hi`, `it`, `nl`, `pt`;
//!   Hindi in Devanagari and romanised): a multinomial logistic regression over hashed words, word
//!   pairs, letter runs and spelling skeletons, with VADER 3.3.2 (`vader-parity`, which reproduces
//!   the Python reference exactly) and rated word lists as dense evidence ([`sentiment`]). It was
//!   trained by `pulse-sentiment train` on UMSAB's training tweets; its weights ship in
//!   `model/sentiment.bin`. Other languages get `None`: a score is never guessed.
//! - **Key phrases** are RAKE (Rose et al., 2010): runs of up to three content words between stop
//!   words and punctuation, scored by how often and in how long runs their words occur. Stop words
//!   are the Snowball lists as NLTK ships them (`stop-words`, feature `nltk`) with a few frequency
//!   adverbs and quantifiers added, and for Hindi our own Devanagari and romanised lists with a
//!   light stemmer. Variants ("late delivery", "Deliveries late!") share a key made of their
//!   sorted stems (`rust-stemmers`). The extraction is our own because the crates for it did not
//!   fit: `rake` ranks ties in hash order, has no length limit and splits an email into plain
//!   words; `yake-rust` ranks by position and capitals, which means little in an answer of one or
//!   two sentences; `keyword_extraction` is LGPL. Redaction placeholders, addresses, handles and
//!   numbers are never part of a phrase, so no theme carries contact data. Key phrases cover the
//!   eight survey languages; others get `None` rather than phrases split at the wrong words.
//!   Languages match on their primary subtag: `en-GB` is English.

pub mod language;
pub mod sentiment;
mod themes;

use std::collections::BTreeSet;
use std::future::{Future, ready};
use std::sync::LazyLock;

use pulse_domain::analysis::models::{AnalyzerInfo, KeyPhrase, ModelInfo};
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::error::Result;
use pulse_domain::results::models::SENTIMENT_THRESHOLD;
use sentiment::{Language, Lexicons};

/// The sentiment model's version: its name, a digest of everything its scores depend on (the
/// weights and the word lists), and the VADER and language-identification crates pinned in
/// Cargo.toml (a test keeps them in step). Retraining, editing a list or an upgrade changes it, so
/// stored scores are computed again.
static SENTIMENT_VERSION: LazyLock<String> = LazyLock::new(|| {
    let mut inputs = sentiment::builtin_bytes().to_vec();
    inputs.extend_from_slice(sentiment::Lexicons::sources().as_bytes());
    format!("pulse-sentiment-1+{:016x}+vader-parity-0.1.0+whatlang-0.18.0", xxhash_rust::xxh3::xxh3_64(&inputs))
});

static LEXICONS: LazyLock<Lexicons> = LazyLock::new(Lexicons::load);

/// Identifies each answer's language, reads its sentiment with the trained model and its key
/// phrases with RAKE, in eight languages, in process.
#[derive(Clone, Debug)]
pub struct BuiltinAnalyzer {
    _loaded: (),
}

impl BuiltinAnalyzer {
    /// Loads the model and the word lists, once per process, so that no answer waits for them.
    pub fn new() -> Self {
        LazyLock::force(&LEXICONS);
        LazyLock::force(&SENTIMENT_VERSION);
        language::load();
        sentiment::load_vader();
        sentiment::builtin();
        themes::load();
        Self { _loaded: () }
    }
}

impl Default for BuiltinAnalyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl Analyzer for BuiltinAnalyzer {
    fn info(&self) -> AnalyzerInfo {
        AnalyzerInfo {
            sentiment: ModelInfo {
                name: "pulse-sentiment".to_owned(),
                version: SENTIMENT_VERSION.clone(),
                languages: Language::ALL
                    .iter()
                    .map(|language| language.code().to_owned())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .collect(),
                description: "A linear model trained on labelled tweets in seven languages scores each answer from \
                              -1 to 1 in the language it is written in, from its words, word pairs and letter runs, \
                              with VADER and rated word lists as further evidence."
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

    fn language_of(&self, text: &str, asked_in: &LanguageTag) -> LanguageTag {
        language::language_of(text, asked_in)
    }

    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send {
        let score = Language::from_code(language.primary()).map(|language| {
            if text.trim().is_empty() {
                return 0.0;
            }
            let features = sentiment::features(text, language, &LEXICONS);
            sentiment::compound(sentiment::builtin().probabilities(&features), SENTIMENT_THRESHOLD)
        });
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
        let identified_by = format!("+whatlang-{}", pinned("whatlang"));
        assert!(SENTIMENT_VERSION.contains(&format!("+vader-parity-{}", pinned("vader-parity"))));
        assert!(SENTIMENT_VERSION.ends_with(&identified_by));
        assert!(themes::VERSION.ends_with(&identified_by));
        for name in ["stop-words", "rust-stemmers"] {
            assert!(themes::VERSION.contains(&format!("+{name}-{}", pinned(name))), "{name}");
        }
    }
}
