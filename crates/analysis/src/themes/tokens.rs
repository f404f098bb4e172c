//! The words of an answer, and where a phrase must end.
//!
//! No theme may carry contact data. `redact_contacts` (pulse-domain) has already put placeholders
//! in its place, and whatever still looks like an address, a handle or a number is dropped here
//! along with the placeholders. Each ends a phrase like punctuation does, so that the words on
//! either side never join: "[email] support" gives "support", not "email support".

/// The placeholders that `redact_contacts` writes.
const PLACEHOLDERS: [&str; 3] = ["[email]", "[phone]", "[link]"];

/// Whether `word` is a placeholder's name without its brackets, which alone could only stand for
/// a redacted detail.
pub(super) fn is_placeholder_name(word: &str) -> bool {
    PLACEHOLDERS.iter().any(|placeholder| placeholder.trim_matches(['[', ']']) == word)
}

/// The words of `text` in lower case and in order, with `None` wherever a phrase must end:
/// punctuation (the danda too), a placeholder, contact data or a number.
pub(super) fn words(text: &str) -> Vec<Option<String>> {
    let mut words = Vec::new();
    for chunk in text.split_whitespace() {
        let chunk = chunk.to_lowercase();
        for (i, piece) in around_placeholders(&chunk).into_iter().enumerate() {
            let dropped = is_contact_or_number(piece);
            if i > 0 || dropped {
                words.push(None);
            }
            if dropped {
                continue;
            }
            for (j, part) in piece.split(|c| !is_word_char(c)).enumerate() {
                if j > 0 {
                    words.push(None);
                }
                // Joiners only choose how a Devanagari conjunct is drawn.
                let word: String = part.trim_matches('-').chars().filter(|&c| !is_joiner(c)).collect();
                words.push((!word.is_empty() && !is_number(&word)).then_some(word));
            }
        }
    }
    words
}

/// The parts of `chunk` between its placeholders.
fn around_placeholders(chunk: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = chunk;
    while let Some((at, placeholder)) = PLACEHOLDERS.iter().filter_map(|p| rest.find(p).map(|at| (at, p))).min() {
        pieces.push(&rest[..at]);
        rest = &rest[at + placeholder.len()..];
    }
    pieces.push(rest);
    pieces
}

/// Letters, digits, an inner hyphen ("e-mail"), and the combining marks (Unicode Mn, Mc) that
/// `char::is_alphanumeric` leaves out although they belong to the word they mark.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
        || c == '-'
        || is_joiner(c)
        || matches!(
            c,
            // Devanagari nukta, virama and accents: its vowel signs and anusvara are alphabetic
            // already, while the danda and double danda stay punctuation.
            '\u{093C}' | '\u{094D}' | '\u{0951}'..='\u{0954}' | '\u{A8E0}'..='\u{A8F1}'
            // Combining diacritics, as in decomposed Latin text ("e" and U+0301 for "é").
            | '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
            | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}'
        )
}

/// Zero-width (non-)joiners, which sit inside Devanagari words.
fn is_joiner(c: char) -> bool {
    matches!(c, '\u{200C}' | '\u{200D}')
}

/// Emails, handles, web addresses and domains, phone and order numbers. A hashtag is not: its
/// `#` is punctuation and its word names a topic.
fn is_contact_or_number(piece: &str) -> bool {
    let start = piece.trim_start_matches(|c: char| !c.is_alphanumeric());
    let chars: Vec<char> = piece.chars().collect();
    piece.contains('@')
        || piece.contains("://")
        || start.starts_with("http")
        || start.starts_with("www")
        // A dot inside a word, as in a domain: "example.com".
        || chars.windows(3).any(|w| matches!(w, [a, '.', b] if a.is_alphanumeric() && b.is_alphanumeric()))
        || is_mostly_digits(piece)
}

/// Digits in any script ("12", "१२"), also with an ordinal or a unit of up to three letters after
/// them ("2nd", "1er", "3ème", "10वां", "5kg").
fn is_number(word: &str) -> bool {
    let suffix = word.trim_start_matches(char::is_numeric);
    (suffix.len() < word.len() && suffix.chars().filter(|c| c.is_alphabetic()).count() <= 3) || is_mostly_digits(word)
}

fn is_mostly_digits(text: &str) -> bool {
    let digits = text.chars().filter(|c| c.is_numeric()).count();
    digits > text.chars().filter(|c| c.is_alphabetic()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The runs of words between the places where a phrase must end.
    fn runs(text: &str) -> Vec<Vec<String>> {
        words(text)
            .split(Option::is_none)
            .filter(|run| !run.is_empty())
            .map(|run| run.iter().flatten().cloned().collect())
            .collect()
    }

    #[test]
    fn devanagari_signs_belong_to_the_word_and_dandas_end_a_sentence() {
        for c in '\u{0900}'..='\u{097F}' {
            assert_eq!(is_word_char(c), !matches!(c, '।' | '॥' | '॰'), "U+{:04X}", c as u32);
        }
        assert_eq!(runs("क्या बात है। ठीक॥ हां"), [vec!["क्या", "बात", "है"], vec!["ठीक"], vec!["हां"]]);
        assert_eq!(runs("ज़्यादा गड़बड़"), [vec!["ज़्यादा", "गड़बड़"]]);
        assert_eq!(runs("क्\u{200D}ष"), [vec!["क्ष"]]);
    }

    #[test]
    fn placeholders_end_a_phrase_wherever_they_stand() {
        let found = runs("mail [email] support ([phone]), call:[phone]now see [LINK]. ok [email]/[link]");
        assert_eq!(found, [vec!["mail"], vec!["support"], vec!["call"], vec!["now", "see"], vec!["ok"]]);
        assert!(is_placeholder_name("email") && is_placeholder_name("phone") && is_placeholder_name("link"));
        assert!(!is_placeholder_name("[email]") && !is_placeholder_name("emails"));
    }

    #[test]
    fn numbers_in_any_script_and_with_ordinals_end_a_phrase() {
        for number in
            ["12", "1,234.50", "+44", "24/7", "2nd", "3rd", "21st", "1er", "2e", "3ème", "4.", "१२", "10वां", "#123"]
        {
            assert_eq!(runs(&format!("cold {number} fries")), [vec!["cold"], vec!["fries"]], "{number}");
        }
        assert_eq!(runs("covid19 rules"), [vec!["covid19", "rules"]]);
    }

    #[test]
    fn addresses_domains_and_handles_end_a_phrase() {
        for token in [
            "http://example.com/x",
            "https://shop.example/orders/1",
            "www.example.org",
            "http//shop",
            "www-pulse-de",
            "(www.example.de)",
            "example.com",
            "amazon.in,",
            "@pulse_support",
            "jane@example.com",
            "#",
        ] {
            assert_eq!(runs(&format!("cold {token} fries")), [vec!["cold"], vec!["fries"]], "{token}");
        }
        assert_eq!(runs("cold #latedelivery again"), [vec!["cold"], vec!["latedelivery", "again"]]);
    }
}
