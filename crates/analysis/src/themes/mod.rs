//! Key phrases: RAKE (Rose et al., 2010) over Snowball stop words, merged on Snowball stems.
//! Hindi adds stop lists written here and a light stemmer for Devanagari ([`hindi`]).

mod hindi;
mod tokens;

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulse_domain::analysis::models::{KeyPhrase, MAX_PHRASES_PER_ANSWER};
use rust_stemmers::{Algorithm, Stemmer};

/// Changes with every change of the extraction below; the crate versions are pinned in Cargo.toml.
pub(crate) const VERSION: &str = "rake-snowball-2+stop-words-0.10.1+rust-stemmers-1.2.0+whatlang-0.18.0";

/// Longer runs of content words are cut: long phrases never recur across answers.
const MAX_WORDS: usize = 3;

/// A covered language: its Snowball stemmer and stop list, and the words added to that list.
struct Language {
    code: &'static str,
    /// The language whose Snowball stop list and stemmer serve Latin-script words: the language
    /// itself, or English for Hindi, whose answers in Latin script mix in English words. Devanagari
    /// words are stemmed by [`hindi::stem`] in any language.
    snowball: (&'static str, Algorithm),
    /// The Snowball lists hold function words only; feedback is full of frequency adverbs,
    /// quantifiers and intensifiers ("every", "always", "really") that would glue topics together.
    extra_stop_words: &'static [&'static str],
    /// Stop lists written here, for Hindi which has no Snowball list: whitespace-separated words,
    /// with `#` starting a comment line.
    stop_word_lists: &'static [&'static str],
}

const ENGLISH_EXTRA_STOP_WORDS: &[&str] = &[
    "every", "also", "always", "never", "ever", "really", "still", "even", "much", "many", "lot", "lots", "quite",
    "already", "yet", "would", "could", "might", "must", "one", "get", "got",
];

const LANGUAGES: [Language; 8] = [
    Language {
        code: "de",
        snowball: ("de", Algorithm::German),
        extra_stop_words: &[
            "immer", "nie", "niemals", "oft", "wirklich", "schon", "ganz", "mal", "echt", "ziemlich", "mehr", "leider",
            "total",
        ],
        stop_word_lists: &[],
    },
    Language {
        code: "en",
        snowball: ("en", Algorithm::English),
        extra_stop_words: ENGLISH_EXTRA_STOP_WORDS,
        stop_word_lists: &[],
    },
    Language {
        code: "es",
        snowball: ("es", Algorithm::Spanish),
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
        stop_word_lists: &[],
    },
    Language {
        code: "fr",
        snowball: ("fr", Algorithm::French),
        extra_stop_words: &[
            "très", "trop", "tout", "tous", "toute", "toutes", "toujours", "jamais", "chaque", "aussi", "encore",
            "vraiment", "bien", "déjà", "plus", "peu", "fois", "assez",
        ],
        stop_word_lists: &[],
    },
    Language {
        code: "hi",
        snowball: ("en", Algorithm::English),
        extra_stop_words: ENGLISH_EXTRA_STOP_WORDS,
        stop_word_lists: &[include_str!("hindi_stop_words.txt"), include_str!("romanised_hindi_stop_words.txt")],
    },
    Language {
        code: "it",
        snowball: ("it", Algorithm::Italian),
        extra_stop_words: &[
            "sempre", "mai", "ogni", "molto", "molti", "molta", "molte", "troppo", "davvero", "ancora", "già", "poco",
            "volta", "volte",
        ],
        stop_word_lists: &[],
    },
    Language {
        code: "nl",
        snowball: ("nl", Algorithm::Dutch),
        extra_stop_words: &[
            "elke", "elk", "ieder", "iedere", "nooit", "vaak", "echt", "heel", "erg", "weer", "zeer", "steeds", "keer",
        ],
        stop_word_lists: &[],
    },
    Language {
        code: "pt",
        snowball: ("pt", Algorithm::Portuguese),
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
        stop_word_lists: &[],
    },
];

/// Each language's stop words, folded as the words they are matched with.
static STOP_WORDS: LazyLock<HashMap<&'static str, HashSet<String>>> = LazyLock::new(|| {
    LANGUAGES
        .iter()
        .map(|language| {
            let snowball = stop_words::lookup(language.snowball.0).unwrap_or_default();
            let written = language.stop_word_lists.iter().flat_map(|list| listed_words(list));
            let words = snowball.iter().chain(language.extra_stop_words).copied().chain(written);
            (language.code, words.map(|word| hindi::fold(word).into_owned()).collect())
        })
        .collect()
});

/// The words of a stop list written here.
fn listed_words(list: &str) -> impl Iterator<Item = &str> {
    list.lines().filter(|line| !line.starts_with('#')).flat_map(str::split_whitespace)
}

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
    let language = LANGUAGES.iter().find(|l| l.code == language)?;
    let stemmer = Stemmer::create(language.snowball.1);
    let stop_words = &STOP_WORDS[language.code];
    let stem = |word: &str| {
        let word = hindi::fold(word);
        if hindi::is_devanagari(&word) { hindi::stem(&word).to_owned() } else { stemmer.stem(&word).into_owned() }
    };
    let phrases: Vec<(String, Vec<String>)> = candidates(text, |word| is_stop_word(stop_words, word))
        .into_iter()
        .map(|words| {
            let stems = words.iter().map(|word| stem(word)).collect();
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

fn is_stop_word(stop_words: &HashSet<String>, word: &str) -> bool {
    stop_words.contains(hindi::fold(word).as_ref())
}

/// Runs of lower-case content words between stop words, punctuation and dropped tokens, cut to
/// at most [`MAX_WORDS`] words each.
fn candidates(text: &str, is_stop_word: impl Fn(&str) -> bool) -> Vec<Vec<String>> {
    let mut phrases = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let mut end_run = |run: &mut Vec<String>| {
        // Alone, "email" or "link" may be a placeholder whose brackets were lost on the way.
        let kept = run.chunks(MAX_WORDS).filter(|words| !matches!(words, [word] if tokens::is_placeholder_name(word)));
        phrases.extend(kept.map(<[String]>::to_vec));
        run.clear();
    };
    for word in tokens::words(text) {
        match word {
            Some(word) if word.chars().count() > 1 && !is_stop_word(&word) => run.push(word),
            _ => end_run(&mut run),
        }
    }
    end_run(&mut run);
    phrases
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run of content words in `text`, before ranking, as labels.
    fn phrases(text: &str, language: &str) -> Vec<String> {
        let found = candidates(text, |word| is_stop_word(&STOP_WORDS[language], word));
        found.iter().map(|words| words.join(" ")).collect()
    }

    fn labels(text: &str, language: &str) -> Vec<String> {
        key_phrases(text, language).expect("a covered language").into_iter().map(|p| p.label).collect()
    }

    fn key(text: &str, language: &str) -> String {
        let found = key_phrases(text, language).expect("a covered language");
        assert_eq!(found.len(), 1, "{found:?}");
        found[0].key.clone()
    }

    #[test]
    fn every_language_has_its_snowball_stop_list() {
        for language in &LANGUAGES {
            let snowball = stop_words::lookup(language.snowball.0).expect("a Snowball stop list");
            assert!(snowball.len() > 50, "{}", language.code);
            assert!(STOP_WORDS[language.code].len() > snowball.len() / 2, "{}", language.code);
        }
        assert_eq!(languages(), ["de", "en", "es", "fr", "hi", "it", "nl", "pt"]);
    }

    #[test]
    fn the_hindi_stop_lists_are_written_in_their_scripts() {
        let devanagari: HashSet<&str> = listed_words(include_str!("hindi_stop_words.txt")).collect();
        assert!((150..=300).contains(&devanagari.len()), "{}", devanagari.len());
        assert!(devanagari.iter().all(|word| hindi::is_devanagari(word) && !word.contains(char::is_whitespace)));
        let romanised: HashSet<&str> = listed_words(include_str!("romanised_hindi_stop_words.txt")).collect();
        assert!(romanised.iter().all(|word| word.chars().all(|c| c.is_ascii_lowercase())), "{romanised:?}");
        for word in ["है", "का", "की", "में", "और", "नहीं", "भी", "हां", "ज्यादा", "hai", "ka", "mein", "aur", "nahin", "aap"]
        {
            assert!(STOP_WORDS["hi"].contains(word), "{word}");
        }
        // Hinglish mixes in English, and Devanagari stop words are Hindi's alone.
        assert!(STOP_WORDS["hi"].contains("the") && STOP_WORDS["hi"].contains("always"));
        assert!(!STOP_WORDS["en"].contains("है") && !STOP_WORDS["en"].contains("bahut"));
    }

    #[test]
    fn long_runs_are_cut_into_phrases_of_at_most_three_words() {
        let phrases = candidates("driver left food outside door", |_| false);
        assert_eq!(phrases, [vec!["driver", "left", "food"], vec!["outside", "door"]]);
    }

    #[test]
    fn contact_data_and_numbers_end_a_phrase_and_are_dropped() {
        let phrases = candidates("refund jane@example.com late +44 20 7946 0958 parcel example.org box", |_| false);
        assert_eq!(phrases, [vec!["refund"], vec!["late"], vec!["parcel"], vec!["box"]]);
    }

    #[test]
    fn hindi_phrases_end_at_stop_words_and_dandas() {
        assert_eq!(labels("खाना ठंडा था और डिलीवरी में बहुत देर हुई।", "hi"), ["खाना ठंडा", "डिलीवरी", "देर"]);
        assert_eq!(phrases("पैकिंग ख़राब। डिब्बा गीला॥ ठीक", "hi"), ["पैकिंग ख़राब", "डिब्बा गीला", "ठीक"]);
        assert_eq!(phrases("पैकिंग ख़राब डिब्बा गीला", "hi"), ["पैकिंग ख़राब डिब्बा", "गीला"]);
    }

    #[test]
    fn hindi_variants_share_a_key() {
        let cold_food = key("खाना ठंडा था", "hi");
        assert_eq!(key("खाने ठंडे थे", "hi"), cold_food);
        assert_eq!(key("ठंडा खाना!", "hi"), cold_food);
        assert_ne!(key("खाना गरम था", "hi"), cold_food);
        assert_eq!(key("समस्याओं", "hi"), key("समस्या", "hi"));
        assert_eq!(key("ख़राब पैकिंग", "hi"), key("खराब पैकिंग", "hi"));
        // The first spelling names the theme.
        let found = key_phrases("समस्याएं बहुत हैं। समस्या", "hi").expect("Hindi is covered");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].label, "समस्याएं");
    }

    #[test]
    fn romanised_hindi_uses_its_stop_words_and_the_english_ones() {
        assert_eq!(labels("delivery bahut late thi aur khana thanda tha", "hi"), ["khana thanda", "delivery", "late"]);
        assert_eq!(phrases("The order was late hai, mujhe refund nahi mila", "hi"), ["order", "late", "refund"]);
        // Latin-script words are stemmed as English.
        assert_eq!(key("deliveries late hai", "hi"), key("late delivery", "en"));
    }

    #[test]
    fn placeholders_addresses_handles_and_numbers_split_phrases_in_every_language() {
        for (language, text, expected) in [
            (
                "en",
                "Slow [email] support, rude [phone] agent, 2nd refund at example.com, @pulse_help #fail",
                &["slow", "support", "rude", "agent", "refund", "fail"][..],
            ),
            (
                "fr",
                "Service [email] client nul, appelez le [phone] livreur, la 1re commande sur www.exemple.fr ou \
                 https://exemple.fr/suivi",
                &["service", "client nul", "appelez", "livreur", "commande"],
            ),
            (
                "de",
                "Kundendienst [email] antwortet nie, Hotline [phone] besetzt, 3. Lieferung über shop.example.de \
                 und @pulse_hilfe",
                &["kundendienst", "antwortet", "hotline", "besetzt", "lieferung"],
            ),
            (
                "hi",
                "सपोर्ट [email] टीम ने जवाब नहीं दिया, [phone] पर कॉल किया, १२ बार ऑर्डर www.example.in पर",
                &["सपोर्ट", "टीम", "जवाब", "कॉल", "ऑर्डर"],
            ),
            (
                "hi",
                "mera [email] account band ho gaya, [phone] pe call kiya 3rd time, link [link] bhi kaam nahi karta",
                &["account band", "call", "time", "kaam"],
            ),
        ] {
            assert_eq!(phrases(text, language), expected, "{language}: {text}");
            for label in labels(text, language) {
                assert!(!tokens::is_placeholder_name(&label), "{label}");
                assert!(!label.contains(['[', ']', '@', '#', '.', '/', ':']), "{label}");
                assert!(!label.chars().any(char::is_numeric), "{label}");
                assert!(!["http", "www", "example", "exemple"].iter().any(|part| label.contains(part)), "{label}");
            }
        }
    }

    #[test]
    fn a_placeholder_name_alone_is_no_theme_but_may_start_one() {
        assert_eq!(labels("Email me the link.", "en"), Vec::<String>::new());
        assert_eq!(labels("Lien cassé: [link] email", "fr"), ["lien cassé"]);
        assert_eq!(labels("email support slow", "en"), ["email support slow"]);
    }
}
