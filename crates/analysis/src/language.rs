//! The language an answer is written in, from its text: a respondent may answer an English survey
//! in German, or type Hindi in Devanagari into any survey. Identification is `whatlang`'s (trigram
//! profiles for the Latin scripts, the script itself for Devanagari); the survey's language stands
//! whenever the text is short or the guess unsure.

use std::sync::LazyLock;

use pulse_domain::campaigns::models::LanguageTag;
use whatlang::{Detector, Lang, Script};

use crate::sentiment::Language;

/// Compares a text with the survey languages' profiles only: the text is scored in one of them or
/// in its session's anyway, and comparing with all of whatlang's 69 took 55 µs an answer, more
/// than the sentiment model and the key phrases together.
static DETECTOR: LazyLock<Detector> = LazyLock::new(|| {
    Detector::with_allowlist(vec![
        Lang::Eng,
        Lang::Fra,
        Lang::Deu,
        Lang::Spa,
        Lang::Por,
        Lang::Ita,
        Lang::Nld,
        Lang::Hin,
    ])
});

/// Below this many letters a trigram guess is mostly noise ("ok", "super", "no gracias").
const MIN_LETTERS: usize = 16;

/// Builds the detector now rather than on the first answer.
pub fn load() {
    LazyLock::force(&DETECTOR);
}

/// The language `text` is read in, given the survey language it was `asked_in`.
pub fn language_of(text: &str, asked_in: &LanguageTag) -> LanguageTag {
    let asked = Language::from_code(asked_in.primary());
    let Some(found) = identify(text, asked) else { return asked_in.clone() };
    if Some(found) == asked {
        return asked_in.clone();
    }
    LanguageTag::parse("language", found.code()).unwrap_or_else(|_| asked_in.clone())
}

fn identify(text: &str, asked: Option<Language>) -> Option<Language> {
    let script = whatlang::detect_script(text)?;
    if script == Script::Devanagari {
        // Hindi is the only Devanagari language surveys are written in.
        return Some(Language::Hi);
    }
    if text.chars().filter(|c| c.is_alphabetic()).count() < MIN_LETTERS {
        return None;
    }
    let info = DETECTOR.detect(text).filter(whatlang::Info::is_reliable)?;
    let found = match info.lang() {
        Lang::Eng => Language::En,
        Lang::Fra => Language::Fr,
        Lang::Deu => Language::De,
        Lang::Spa => Language::Es,
        Lang::Por => Language::Pt,
        Lang::Ita => Language::It,
        Lang::Nld => Language::Nl,
        Lang::Hin => Language::Hi,
        _ => return None,
    };
    // Romanised Hindi mixes in English and has no profile of its own, so in a Hindi survey an
    // English guess is Hinglish: the Hindi model was trained on exactly such text.
    if asked == Some(Language::Hi) && found == Language::En {
        return None;
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(text: &str) -> LanguageTag {
        LanguageTag::parse("language", text).expect("a tag")
    }

    #[test]
    fn a_clear_text_is_read_in_its_own_language() {
        let german = "Die Lieferung kam viel zu spät und das Essen war leider kalt.";
        assert_eq!(language_of(german, &tag("en")), tag("de"));
        let french = "La livraison était rapide et le livreur très aimable, merci beaucoup.";
        assert_eq!(language_of(french, &tag("en-GB")), tag("fr"));
        assert_eq!(language_of("खाना ठंडा था", &tag("en")), tag("hi"));
    }

    #[test]
    fn the_survey_language_stands_when_the_text_says_little_or_agrees() {
        assert_eq!(language_of("ok merci", &tag("de")), tag("de"));
        assert_eq!(language_of("12345 !!!", &tag("fr")), tag("fr"));
        let canadian = "La livraison était rapide et le livreur très aimable, merci beaucoup.";
        assert_eq!(language_of(canadian, &tag("fr-CA")), tag("fr-CA"));
    }

    #[test]
    fn hinglish_in_a_hindi_survey_stays_hindi() {
        let hinglish = "delivery bahut late thi aur khana bilkul thanda tha, very bad experience";
        assert_eq!(language_of(hinglish, &tag("hi")), tag("hi"));
        let english = "The delivery was very late and the food was completely cold.";
        assert_eq!(language_of(english, &tag("hi")), tag("hi"));
    }
}
