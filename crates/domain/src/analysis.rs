//! Analysis of finished sessions: the port that reads text answers (sentiment and key phrases).

use std::future::Future;

use crate::error::Result;
use crate::survey::LanguageTag;

/// One model behind the [`Analyzer`] port, as the results' methodology block names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelInfo {
    /// A stable name, such as `vader`.
    pub name: String,
    /// Changes whenever the model could give another result for the same input: stored results
    /// of an older version are computed again, those of the same version are reused.
    pub version: String,
    /// Primary language subtags (`en`, `de`) the model truly covers; any other gets no result.
    pub languages: Vec<String>,
    /// One sentence for partners on how it works.
    pub description: String,
}

/// The two models of an analyzer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnalyzerInfo {
    pub sentiment: ModelInfo,
    pub themes: ModelInfo,
}

/// A key phrase of one answer.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyPhrase {
    /// Equal for variants of one phrase (inflections, word order): themes are merged on it.
    pub key: String,
    /// The phrase as people would read it, in lower case: `late delivery`.
    pub label: String,
}

/// Reads text answers. Results must depend only on the text, the language and the version.
pub trait Analyzer: Send + Sync + 'static {
    /// The models, their versions and the languages they cover.
    fn info(&self) -> AnalyzerInfo;

    /// The sentiment of `text` as a compound score from -1 (most negative) to 1 (most positive),
    /// or `None` when `language` is not one the sentiment model covers: a score is never guessed.
    ///
    /// # Errors
    /// `Unavailable` or `Internal` for a model behind a network; the built-in one never fails.
    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send;

    /// At most [`MAX_PHRASES_PER_ANSWER`] key phrases of `text`, most important first, none made of
    /// stop words only; `None` when `language` is not one the theme model covers.
    ///
    /// # Errors
    /// As [`Analyzer::sentiment`].
    fn key_phrases(
        &self,
        text: &str,
        language: &LanguageTag,
    ) -> impl Future<Output = Result<Option<Vec<KeyPhrase>>>> + Send;
}

impl<A: Analyzer> Analyzer for std::sync::Arc<A> {
    fn info(&self) -> AnalyzerInfo {
        (**self).info()
    }

    fn sentiment(&self, text: &str, language: &LanguageTag) -> impl Future<Output = Result<Option<f64>>> + Send {
        (**self).sentiment(text, language)
    }

    fn key_phrases(
        &self,
        text: &str,
        language: &LanguageTag,
    ) -> impl Future<Output = Result<Option<Vec<KeyPhrase>>>> + Send {
        (**self).key_phrases(text, language)
    }
}

pub const MAX_PHRASES_PER_ANSWER: usize = 5;
