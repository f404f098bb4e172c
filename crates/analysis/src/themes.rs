//! Key phrases: RAKE (Rose et al., 2010) over Snowball stop words, merged on Snowball stems.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulse_domain::analysis::models::{KeyPhrase, MAX_PHRASES_PER_ANSWER};
use rust_stemmers::{Algorithm, Stemmer};

/// Changes with every change of the extraction below; the crate versions are pinned in Cargo.toml.
pub(crate) const VERSION: &str = "rake-snowball-1+stop-words-0.10.1+rust-stemmers-1.2.0";

/// Longer runs of content words are cut: long phrases never recur across answers.
const MAX_WORDS: usize = 3;

/// A covered language: the Snowball stemmer, and the words added to its Snowball stop list.
struct Language {
    code: &'static str,
    stemmer: Algorithm,
    /// The Snowball lists hold function words only; feedback is full of frequency adverbs,
    /// quantifiers and intensifiers ("every", "always", "really") that would glue topics together.
    extra_stop_words: &'static [&'static str],
}

const LANGUAGES: [Language; 7] = [
    Language {
        code: "de",
        stemmer: Algorithm::German,
        extra_stop_words: &[
            "immer", "nie", "niemals", "oft", "wirklich", "schon", "ganz", "mal", "echt", "ziemlich", "mehr", "leider",
            "total",
        ],
    },
    Language {
        code: "en",
        stemmer: Algorithm::English,
        extra_stop_words: &[
            "every", "also", "always", "never", "ever", "really", "still", "even", "much", "many", "lot", "lots",
            "quite", "already", "yet", "would", "could", "might", "must", "one", "get", "got",
        ],
    },
    Language {
        code: "es",
        stemmer: Algorithm::Spanish,
        extra_stop_words: &[
            "siempre",
            "nunca",
            "cada",
            "realmente",
            "bastante",
            "demasiado",
            "todavía",
            "aún",
            "vez",
            "veces",
        ],
    },
    Language {
        code: "fr",
        stemmer: Algorithm::French,
        extra_stop_words: &[
            "très", "trop", "tout", "tous", "toute", "toutes", "toujours", "jamais", "chaque", "aussi", "encore",
            "vraiment", "bien", "déjà", "plus", "peu", "fois", "assez",
        ],
    },
    Language {
        code: "it",
        stemmer: Algorithm::Italian,
        extra_stop_words: &[
            "sempre", "mai", "ogni", "molto", "molti", "molta", "molte", "troppo", "davvero", "ancora", "già", "poco",
            "volta", "volte",
        ],
    },
    Language {
        code: "nl",
        stemmer: Algorithm::Dutch,
        extra_stop_words: &[
            "elke", "elk", "ieder", "iedere", "nooit", "vaak", "echt", "heel", "erg", "weer", "zeer", "steeds", "keer",
        ],
    },
    Language {
        code: "pt",
        stemmer: Algorithm::Portuguese,
        extra_stop_words: &[
            "sempre",
            "nunca",
            "cada",
            "realmente",
            "bastante",
            "demais",
            "ainda",
            "vez",
            "vezes",
            "muita",
            "muitos",
            "muitas",
            "pouco",
        ],
    },
];

static STOP_WORDS: LazyLock<HashMap<&'static str, HashSet<&'static str>>> = LazyLock::new(|| {
    LANGUAGES
        .iter()
        .map(|language| {
            let snowball = stop_words::lookup(language.code).unwrap_or_default();
            (language.code, snowball.iter().chain(language.extra_stop_words).copied().collect())
        })
        .collect()
});

/// The primary subtags covered, in the order of [`LANGUAGES`].
pub(crate) fn languages() -> Vec<String> {
    LANGUAGES.iter().map(|language| language.code.to_owned()).collect()
}

/// Builds the stop-word sets now rather than on the first answer.
pub(crate) fn load() {
    LazyLock::force(&STOP_WORDS);
}

/// The key phrases of `text`, most important first; `None` for a language not covered.
pub(crate) fn key_phrases(text: &str, language: &str) -> Option<Vec<KeyPhrase>> {
    let stemmer = Stemmer::create(LANGUAGES.iter().find(|l| l.code == language)?.stemmer);
    let stop_words = STOP_WORDS.get(language)?;
    let phrases: Vec<(String, Vec<String>)> = candidates(text, stop_words)
        .into_iter()
        .map(|words| {
            let stems = words.iter().map(|word| stemmer.stem(word).into_owned()).collect();
            (words.join(" "), stems)
        })
        .collect();

    // RAKE: a word scores its degree (the words of the phrases it stands in) over its frequency.
    let mut frequency: HashMap<&str, f64> = HashMap::new();
    let mut degree: HashMap<&str, f64> = HashMap::new();
    for (_, stems) in &phrases {
        for stem in stems {
            *frequency.entry(stem).or_default() += 1.0;
            *degree.entry(stem).or_default() += stems.len() as f64;
        }
    }
    let word_score = |stem: &str| degree.get(stem).unwrap_or(&0.0) / frequency.get(stem).unwrap_or(&1.0);

    // One entry per key, labelled as first written; the score is summed in key order so that all
    // variants score alike.
    let mut by_key: HashMap<String, (f64, String)> = HashMap::new();
    for (label, stems) in &phrases {
        let mut stems: Vec<&str> = stems.iter().map(String::as_str).collect();
        stems.sort_unstable();
        by_key
            .entry(stems.join(" "))
            .or_insert_with(|| (stems.iter().map(|stem| word_score(stem)).sum(), label.clone()));
    }
    let mut ranked: Vec<(f64, KeyPhrase)> =
        by_key.into_iter().map(|(key, (score, label))| (score, KeyPhrase { key, label })).collect();
    // A label has one key, so (score, label) orders every candidate, whatever the map's order.
    ranked.sort_by(|(a, a_phrase), (b, b_phrase)| b.total_cmp(a).then_with(|| a_phrase.label.cmp(&b_phrase.label)));
    Some(ranked.into_iter().take(MAX_PHRASES_PER_ANSWER).map(|(_, phrase)| phrase).collect())
}

/// Runs of lower-case content words between stop words, punctuation and dropped tokens, cut to
/// at most [`MAX_WORDS`] words each.
fn candidates(text: &str, stop_words: &HashSet<&str>) -> Vec<Vec<String>> {
    let mut phrases = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut end_run = |run: &mut Vec<String>| {
        phrases.extend(run.chunks(MAX_WORDS).map(<[String]>::to_vec));
        run.clear();
    };
    for chunk in text.split_whitespace() {
        if is_contact_or_number(chunk) {
            end_run(&mut run);
            continue;
        }
        // Any character but a letter, a digit or an inner hyphen ends a phrase: "late," "l'équipe".
        for (i, part) in chunk.split(|c: char| !(c.is_alphanumeric() || c == '-')).enumerate() {
            if i > 0 {
                end_run(&mut run);
            }
            let word = part.trim_matches('-').to_lowercase();
            if word.chars().count() > 1 && !is_mostly_digits(&word) && !stop_words.contains(word.as_str()) {
                run.push(word);
            } else {
                end_run(&mut run);
            }
        }
    }
    end_run(&mut run);
    phrases
}

/// Emails, web addresses, phone and order numbers: themes must never carry contact data.
fn is_contact_or_number(chunk: &str) -> bool {
    let start = chunk.trim_start_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
    let chars: Vec<char> = chunk.chars().collect();
    chunk.contains('@')
        || chunk.contains("://")
        || start.starts_with("http")
        || start.starts_with("www")
        // A dot inside a word, as in a domain: "example.com".
        || chars.windows(3).any(|w| matches!(w, [a, '.', b] if a.is_alphanumeric() && b.is_alphanumeric()))
        || is_mostly_digits(chunk)
}

fn is_mostly_digits(text: &str) -> bool {
    let digits = text.chars().filter(|c| c.is_numeric()).count();
    digits > text.chars().filter(|c| c.is_alphabetic()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_its_snowball_stop_list() {
        for language in &LANGUAGES {
            let snowball = stop_words::lookup(language.code).expect("a Snowball stop list");
            assert!(snowball.len() > 50, "{}", language.code);
            assert!(STOP_WORDS[language.code].len() > snowball.len() / 2, "{}", language.code);
        }
    }

    #[test]
    fn long_runs_are_cut_into_phrases_of_at_most_three_words() {
        let stop_words = HashSet::new();
        let phrases = candidates("driver left food outside door", &stop_words);
        assert_eq!(phrases, [vec!["driver", "left", "food"], vec!["outside", "door"]]);
    }

    #[test]
    fn contact_data_and_numbers_end_a_phrase_and_are_dropped() {
        let stop_words = HashSet::new();
        let phrases = candidates("refund jane@example.com late +44 20 7946 0958 parcel example.org box", &stop_words);
        assert_eq!(phrases, [vec!["refund"], vec!["late"], vec!["parcel"], vec!["box"]]);
    }
}
