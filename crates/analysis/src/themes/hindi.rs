//! Hindi in Devanagari: the spellings folded together, and a light stemmer.
//!
//! Snowball has no Hindi stemmer in `rust-stemmers`, so this one follows the lightweight stemmer of
//! Ramanathan & Rao (2003): remove the longest inflectional ending from a list, and nothing else.
//! Hindi inflects by suffix alone (no prefixes, no vowel changes inside the stem), so this merges
//! most variants of a noun or an adjective at a small cost: unrelated words that share a stem.

use std::borrow::Cow;

/// Whether `word` holds a Devanagari letter, so that it gets [`stem`] rather than Snowball.
pub(super) fn is_devanagari(word: &str) -> bool {
    word.chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c))
}

/// `word` with the spellings readers take for one word folded together: a nukta dropped
/// ("ख़राब", "खराब"), as many people type without one, and candrabindu written as anusvara
/// ("हाँ", "हां"), as most keyboards and writers do.
pub(super) fn fold(word: &str) -> Cow<'_, str> {
    if !word.chars().any(|c| folded(c) != Some(c)) {
        return Cow::Borrowed(word);
    }
    Cow::Owned(word.chars().filter_map(folded).collect())
}

/// The folded form of one character; `None` for a nukta, which is dropped.
fn folded(c: char) -> Option<char> {
    // The letters that Unicode also encodes precomposed with a nukta, from U+0958 on.
    const NUKTA_BASES: [char; 8] = ['क', 'ख', 'ग', 'ज', 'ड', 'ढ', 'फ', 'य'];
    match c {
        '\u{093C}' => None,
        '\u{0901}' => Some('\u{0902}'),
        '\u{0929}' => Some('न'),
        '\u{0931}' => Some('र'),
        '\u{0934}' => Some('ळ'),
        '\u{0958}'..='\u{095F}' => Some(NUKTA_BASES[c as usize - 0x0958]),
        _ => Some(c),
    }
}

/// Endings of Hindi nouns, adjectives and verbs, after Ramanathan & Rao's list, written folded
/// (anusvara for candrabindu). The longest that applies is removed.
// Grouped by hand, so that each comment names the endings below it.
#[rustfmt::skip]
const SUFFIXES: &[&str] = &[
    // Vowel endings of gender and number: कमरा, कमरे; अच्छा, अच्छी; and the oblique ि, ु, ू.
    "ा", "ी", "े", "ो", "ि", "ु", "ू",
    // Plural and oblique plural of nouns: बातें, कमरों, समस्याएं, गाड़ियां, गाड़ियों, समस्याओं, वस्तुएं.
    "ें", "ों", "ां", "ीं", "ाएं", "ाओं", "ियां", "ियों", "ुएं", "ुओं", "ाइयां", "ाइयों",
    "नाएं", "नाओं", "ताएं", "ताओं",
    // Infinitive and habitual forms of verbs: करना, करने, करता, करती.
    "ना", "ने", "नी", "ता", "ती", "ते", "तीं", "ाना", "ाने", "ाता", "ाती", "ाते", "ातीं",
    // Perfective, subjunctive and imperative forms: आया, आई, आए, बताओ, बताइए, लिए.
    "ाया", "ाई", "ाईं", "ाए", "ाओ", "ाइए", "िए",
    // Future forms: करेगा, करेंगे, बताएगी, बताऊंगा.
    "ेगा", "ेगी", "ेंगे", "ेंगी", "ोगे", "ोगी", "ूंगा", "ूंगी", "ाएगा", "ाएगी", "ाएंगे", "ाएंगी",
    "ाऊंगा", "ाऊंगी",
    // Conjunctive participle: देखकर, बताकर.
    "कर", "ाकर",
];

/// The stem of a folded Devanagari word: its longest listed ending removed, as long as two
/// characters remain, so that a short word ("पता", "खाना") keeps more than a lone consonant
/// that would merge it with unrelated words.
pub(super) fn stem(word: &str) -> &str {
    SUFFIXES
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .filter(|stem| stem.chars().count() >= 2)
        .min_by_key(|stem| stem.len())
        .unwrap_or(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stems(words: &[&str]) -> Vec<String> {
        words.iter().map(|word| stem(&fold(word)).to_owned()).collect()
    }

    #[test]
    fn variants_of_a_noun_or_an_adjective_share_a_stem() {
        for variants in [
            &["समस्या", "समस्याएं", "समस्याओं"][..],
            &["कमरा", "कमरे", "कमरों"],
            &["गाड़ी", "गाड़ियां", "गाड़ियों", "गाडी"],
            &["अच्छा", "अच्छी", "अच्छे"],
            &["दुकान", "दुकानें", "दुकानों"],
            &["घटना", "घटनाएं", "घटनाओं"],
            &["खाना", "खाने"],
        ] {
            let found = stems(variants);
            assert!(found.iter().all(|stem| *stem == found[0]), "{variants:?}: {found:?}");
        }
    }

    #[test]
    fn the_longest_ending_goes_but_two_characters_stay() {
        assert_eq!(stem("समस्याओं"), "समस्य");
        assert_eq!(stem("देखकर"), "देख");
        assert_eq!(stem("खाना"), "खा");
        assert_eq!(stem("पता"), "पत");
        assert_eq!(stem("देर"), "देर");
    }

    #[test]
    fn nukta_and_candrabindu_spellings_fold_together() {
        assert_eq!(fold("ख़राब"), "खराब");
        // U+0959 is ख़ precomposed, as some keyboards write it.
        assert_eq!(fold("\u{0959}राब"), "खराब");
        assert_eq!(fold("हाँ"), "हां");
        assert!(matches!(fold("delivery"), Cow::Borrowed(_)));
        assert!(matches!(fold("खराब"), Cow::Borrowed(_)));
    }

    #[test]
    fn every_ending_is_written_folded_and_in_devanagari() {
        for &suffix in SUFFIXES {
            assert_eq!(fold(suffix), suffix);
            assert!(suffix.chars().all(|c| ('\u{0900}'..='\u{097F}').contains(&c)), "{suffix}");
        }
    }
}
