//! An analyzer whose answers are easy to predict: English only, `good`/`great` count +1 and
//! `bad`/`late` -1, and every word of four letters or more is a key phrase (a trailing `s` dropped
//! from its key). A word `lang:xx` says the text is written in `xx`; without one, a text is read
//! in its session's language.

use pulse_domain::Result;
use pulse_domain::analysis::models::{AnalyzerInfo, KeyPhrase, MAX_PHRASES_PER_ANSWER, ModelInfo};
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::campaigns::models::LanguageTag;

#[derive(Clone, Copy, Debug)]
pub struct FakeAnalyzer {
    /// The sentiment model's version: change it to see stored results computed again.
    pub version: &'static str,
}

impl Default for FakeAnalyzer {
    fn default() -> Self {
        Self { version: "1" }
    }
}

fn model(name: &str, version: &str) -> ModelInfo {
    ModelInfo { name: name.into(), version: version.into(), languages: vec!["en".into()], description: "fake".into() }
}

impl Analyzer for FakeAnalyzer {
    fn info(&self) -> AnalyzerInfo {
        AnalyzerInfo { sentiment: model("fake-sentiment", self.version), themes: model("fake-themes", "1") }
    }

    fn language_of(&self, text: &str, asked_in: &LanguageTag) -> LanguageTag {
        text.split_whitespace()
            .find_map(|word| LanguageTag::parse("language", word.strip_prefix("lang:")?).ok())
            .unwrap_or_else(|| asked_in.clone())
    }

    async fn sentiment(&self, text: &str, language: &LanguageTag) -> Result<Option<f64>> {
        if language.primary() != "en" {
            return Ok(None);
        }
        let words: Vec<String> = text.split_whitespace().map(|w| w.to_lowercase()).collect();
        let good = words.iter().filter(|w| w.starts_with("good") || w.starts_with("great")).count();
        let bad = words.iter().filter(|w| w.starts_with("bad") || w.starts_with("late")).count();
        #[allow(clippy::cast_precision_loss)]
        Ok(Some(((good as f64 - bad as f64) / 2.0).clamp(-1.0, 1.0)))
    }

    async fn key_phrases(&self, text: &str, language: &LanguageTag) -> Result<Option<Vec<KeyPhrase>>> {
        if language.primary() != "en" {
            return Ok(None);
        }
        let mut phrases: Vec<KeyPhrase> = text
            .split(|c: char| !c.is_alphanumeric() && c != '[' && c != ']')
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() >= 4 && !w.starts_with('['))
            .map(|w| KeyPhrase { key: w.trim_end_matches('s').to_owned(), label: w })
            .collect();
        phrases.dedup();
        phrases.truncate(MAX_PHRASES_PER_ANSWER);
        Ok(Some(phrases))
    }
}
