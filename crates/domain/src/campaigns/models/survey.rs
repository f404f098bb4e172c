//! Surveys: languages, questions, briefs, and what a generator writes from a brief.

use crate::error::{Error, Result};
use crate::ids::{SurveyId, WorkspaceId};
use time::OffsetDateTime;

/// A BCP-47-like language tag as partners send it (`en`, `pt-BR`), kept in its canonical case:
/// primary subtag lower case, region upper case.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LanguageTag(String);

impl LanguageTag {
    /// # Errors
    /// `ValidationFailed` naming `field` for anything but 2 to 24 characters of letters, digits
    /// and `-`, starting with a 2 or 3 letter primary subtag.
    pub fn parse(field: &str, text: &str) -> Result<Self> {
        let bad = || Error::validation(field, "must be a language tag such as `en` or `pt-BR` (2 to 24 characters)");
        if text.len() < 2 || text.len() > 24 || !text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return Err(bad());
        }
        let mut parts = text.split('-');
        let primary = parts.next().unwrap_or_default();
        if !(2..=3).contains(&primary.len()) || !primary.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(bad());
        }
        let mut canonical = primary.to_ascii_lowercase();
        for part in parts {
            if part.is_empty() {
                return Err(bad());
            }
            canonical.push('-');
            if part.len() == 2 && part.bytes().all(|b| b.is_ascii_alphabetic()) {
                canonical.push_str(&part.to_ascii_uppercase());
            } else {
                canonical.push_str(&part.to_ascii_lowercase());
            }
        }
        Ok(Self(canonical))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The primary subtag: `pt` for `pt-BR`.
    pub fn primary(&self) -> &str {
        self.0.split('-').next().unwrap_or(&self.0)
    }
}

impl std::fmt::Display for LanguageTag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a question asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuestionKind {
    /// An integer from `min` to `max` inclusive (CSAT is 1 to 5).
    Rating { min: i16, max: i16 },
    /// Free text, at most [`MAX_TEXT_ANSWER_CHARS`] characters.
    Text,
}

pub const MAX_TEXT_ANSWER_CHARS: usize = 4000;

/// The scale of a CSAT question: 1 to 5.
pub const CSAT: QuestionKind = QuestionKind::Rating { min: 1, max: 5 };
/// The scale of a Net Promoter question ("how likely are you to recommend…"): 0 to 10.
pub const NPS: QuestionKind = QuestionKind::Rating { min: 0, max: 10 };

/// One question with its text in every language the survey offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    /// Stable within its survey: `q1`, `q2`...
    pub id: String,
    pub kind: QuestionKind,
    pub required: bool,
    /// `(language, text)` in the order of the survey's languages.
    pub texts: Vec<(LanguageTag, String)>,
}

impl Question {
    /// The text in `language`, or in the first language when it has none there.
    pub fn text_in(&self, language: &LanguageTag) -> &str {
        self.texts
            .iter()
            .find(|(l, _)| l == language)
            .or_else(|| self.texts.first())
            .map_or("", |(_, text)| text.as_str())
    }
}

/// The register a survey (and every message about it) is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Register {
    /// vous, Sie, usted, आप; the default.
    #[default]
    Formal,
    /// tu, du, tú, तुम; friendlier English.
    Informal,
}

impl Register {
    pub const fn as_str(self) -> &'static str {
        match self {
            Register::Formal => "FORMAL",
            Register::Informal => "INFORMAL",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Register::Formal, Register::Informal].into_iter().find(|r| r.as_str() == text)
    }
}

/// A published survey. Its languages are those every question has a text in; the first is the default.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Survey {
    pub id: SurveyId,
    pub workspace_id: WorkspaceId,
    pub title: String,
    pub languages: Vec<LanguageTag>,
    /// The register its questions use; messages about it use the same.
    pub register: Register,
    pub questions: Vec<Question>,
    pub created_at: OffsetDateTime,
}

impl Survey {
    pub fn default_language(&self) -> &LanguageTag {
        // A survey always has at least one language: the generator and the store guarantee it.
        &self.languages[0]
    }

    /// About how many minutes answering takes (at least one): a rating is quick, a written answer
    /// takes a while.
    pub fn estimated_minutes(&self) -> u32 {
        const RATING_SECS: u32 = 10;
        const TEXT_SECS: u32 = 45;
        let secs: u32 = self
            .questions
            .iter()
            .map(|q| match q.kind {
                QuestionKind::Rating { .. } => RATING_SECS,
                QuestionKind::Text => TEXT_SECS,
            })
            .sum();
        secs.div_ceil(60).max(1)
    }

    /// The offered language that best matches `wanted` (exact tag, then primary subtag), else the default.
    pub fn resolve_language(&self, wanted: Option<&str>) -> &LanguageTag {
        let Some(wanted) = wanted.and_then(|w| LanguageTag::parse("language", w).ok()) else {
            return self.default_language();
        };
        self.languages
            .iter()
            .find(|l| **l == wanted)
            .or_else(|| self.languages.iter().find(|l| l.primary() == wanted.primary()))
            .unwrap_or_else(|| self.default_language())
    }
}

/// A validated brief: what the partner wants to learn, and the generator's constraints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Brief {
    /// 10 to 4000 characters.
    pub intent_text: String,
    /// 1 to 50.
    pub question_count: u8,
    /// 1 to 20 distinct tags; the first is the survey's default language.
    pub languages: Vec<LanguageTag>,
    /// At most 120 characters, free text such as "friendly" or "formal".
    pub tone: Option<String>,
    /// At most 50 topics; no generated text may mention one.
    pub banned_topics: Vec<String>,
    /// Ask the Net Promoter question (0 to 10, "how likely are you to recommend us").
    pub nps: bool,
}

/// A question as a generator drafts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuestionDraft {
    pub kind: QuestionKind,
    pub required: bool,
    /// One text per language of the brief, in the brief's order.
    pub texts: Vec<(LanguageTag, String)>,
}

/// What a generator returns: exactly `question_count` questions, each with a text in every
/// language of the brief.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedSurvey {
    pub title: String,
    pub register: Register,
    pub questions: Vec<QuestionDraft>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_tags_are_canonicalised_and_bounded() {
        assert_eq!(LanguageTag::parse("l", "pt-br").expect("tag").as_str(), "pt-BR");
        assert_eq!(LanguageTag::parse("l", "EN").expect("tag").as_str(), "en");
        assert_eq!(LanguageTag::parse("l", "zh-Hant-TW").expect("tag").as_str(), "zh-hant-TW");
        assert_eq!(LanguageTag::parse("l", "pt-BR").expect("tag").primary(), "pt");
        for bad in ["", "e", "english-but-far-too-long-x", "en_US", "1a", "en-", "e n"] {
            assert!(LanguageTag::parse("l", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn languages_resolve_exactly_then_by_primary_then_to_the_default() {
        let tag = |t: &str| LanguageTag::parse("l", t).expect("tag");
        let survey = Survey {
            id: SurveyId::new_random(),
            workspace_id: WorkspaceId::new_random(),
            title: "t".into(),
            languages: vec![tag("hi"), tag("pt-BR"), tag("en")],
            register: Register::Formal,
            questions: vec![],
            created_at: OffsetDateTime::UNIX_EPOCH,
        };
        assert_eq!(survey.resolve_language(Some("en")).as_str(), "en");
        assert_eq!(survey.resolve_language(Some("pt-PT")).as_str(), "pt-BR");
        assert_eq!(survey.resolve_language(Some("fr")).as_str(), "hi");
        assert_eq!(survey.resolve_language(Some("!!")).as_str(), "hi");
        assert_eq!(survey.resolve_language(None).as_str(), "hi");
    }
}
