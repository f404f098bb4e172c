//! Reading the partner's free text: banned topics, the tone, and the aspects the intent mentions.

use pulse_domain::campaigns::models::Register;

use crate::phrases::{ASPECT_CUES, ASPECTS};

/// Lower case, without Latin accents and without the Devanagari nukta, so that a ban on "preco" or
/// "कीमत" also catches "preço" or "क़ीमत". Folding only ever makes a ban catch more.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match c {
            // Combining accents (decomposed input) and the nukta carry no meaning for a match.
            '\u{0300}'..='\u{036F}' | '\u{093C}' => {}
            // Precomposed nukta letters, back to their base consonant.
            '\u{0958}' => out.push('\u{0915}'),
            '\u{0959}' => out.push('\u{0916}'),
            '\u{095A}' => out.push('\u{0917}'),
            '\u{095B}' => out.push('\u{091C}'),
            '\u{095C}' => out.push('\u{0921}'),
            '\u{095D}' => out.push('\u{0922}'),
            '\u{095E}' => out.push('\u{092B}'),
            '\u{095F}' => out.push('\u{092F}'),
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => out.push('a'),
            'ç' => out.push('c'),
            'è' | 'é' | 'ê' | 'ë' => out.push('e'),
            'ì' | 'í' | 'î' | 'ï' => out.push('i'),
            'ñ' => out.push('n'),
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => out.push('o'),
            'ù' | 'ú' | 'û' | 'ü' => out.push('u'),
            'ý' | 'ÿ' => out.push('y'),
            'ß' => out.push_str("ss"),
            'œ' => out.push_str("oe"),
            'æ' => out.push_str("ae"),
            '\u{a0}' | '\u{202F}' => out.push(' '),
            '\u{2019}' => out.push('\''),
            other => out.push(other),
        }
    }
    out
}

fn words(folded: &str) -> impl Iterator<Item = &str> {
    folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// The banned topics of a brief, folded once.
pub(crate) struct Bans {
    topics: Vec<Topic>,
}

struct Topic {
    folded: String,
    words: Vec<String>,
}

impl Bans {
    pub(crate) fn new(raw: &[String]) -> Self {
        let topics = raw
            .iter()
            .map(|t| fold(t.trim()))
            // An empty topic would match every text; the caller rejects them, this keeps us safe.
            .filter(|folded| !folded.trim().is_empty())
            .map(|folded| Topic { words: words(&folded).map(str::to_owned).collect(), folded })
            .collect();
        Self { topics }
    }

    /// Whether `text` mentions a topic (folded substring).
    pub(crate) fn mentioned_in(&self, text: &str) -> bool {
        if self.topics.is_empty() {
            return false;
        }
        let text = fold(text);
        self.topics.iter().any(|t| text.contains(&t.folded))
    }

    /// Whether an English keyword (lower case) stands for a topic: the keyword contains the topic
    /// ("pric" bans "pricing"), or the topic holds the keyword as a word ("price rises" bans
    /// "price"). Whole words, so that a ban on "disease" does not hit the keyword "ease".
    pub(crate) fn matches_keyword(&self, keyword: &str) -> bool {
        self.topics.iter().any(|t| keyword.contains(&t.folded) || t.words.iter().any(|w| w == keyword))
    }
}

/// Tone words (folded) that ask for the informal register.
const INFORMAL_CUES: &[&str] = &[
    "casual",
    "casually",
    "friendly",
    "friendlier",
    "informal",
    "playful",
    "warm",
    "warmer",
    "warmth",
    "relaxed",
    "fun",
    "funny",
    "chatty",
    "cheerful",
    "upbeat",
    "chill",
    "conversational",
    "laid",
    "easygoing",
    "lighthearted",
    "familiar",
    "informel",
    "decontracte",
    "informell",
    "locker",
    "amigable",
    "cercano",
    "informale",
    "amichevole",
    "descontraido",
    "informeel",
];

/// Tone words (folded) that keep the formal register even next to an informal cue, as in
/// "friendly but professional".
const FORMAL_CUES: &[&str] = &[
    "formal",
    "formally",
    "professional",
    "polite",
    "respectful",
    "serious",
    "corporate",
    "formel",
    "formell",
    "formale",
    "formeel",
    "professionnel",
    "profesional",
    "profissional",
    "professionell",
    "professionale",
];

/// The register the brief's tone asks for: informal when the tone holds an informal word and no
/// formal one; formal otherwise, which is the safe default for a business writing to its customers.
pub(crate) fn register_from_tone(tone: Option<&str>) -> Register {
    let Some(tone) = tone else { return Register::Formal };
    let folded = fold(tone);
    let mut informal = false;
    for word in words(&folded) {
        if FORMAL_CUES.contains(&word) {
            return Register::Formal;
        }
        informal |= INFORMAL_CUES.contains(&word);
    }
    if informal { Register::Informal } else { Register::Formal }
}

/// Aspect indexes, those the intent text mentions first (in the order it mentions them), then the
/// rest in table order. Cues match at the start of a word of the folded intent.
pub(crate) fn aspect_order(intent: &str) -> [usize; ASPECTS] {
    let text = fold(intent);
    let first_mention: [Option<usize>; ASPECTS] =
        std::array::from_fn(|aspect| ASPECT_CUES[aspect].iter().filter_map(|cue| word_start(&text, cue)).min());
    let mut order: [usize; ASPECTS] = std::array::from_fn(|aspect| aspect);
    // A stable sort: ties (and unmentioned aspects) keep table order.
    order.sort_by_key(|&aspect| first_mention[aspect].map_or((1, 0), |at| (0, at)));
    order
}

/// The first byte offset where `cue` starts a word of `text`.
fn word_start(text: &str, cue: &str) -> Option<usize> {
    text.match_indices(cue)
        .map(|(at, _)| at)
        .find(|&at| text[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_drops_case_accents_and_nukta() {
        assert_eq!(fold("Preço À LA Qualität"), "preco a la qualitat");
        assert_eq!(fold("क़ीमत"), fold("कीमत"));
        assert_eq!(fold("\u{0958}ीमत"), fold("कीमत"));
        assert_eq!(fold("Straße"), "strasse");
    }

    #[test]
    fn keywords_match_by_substring_or_whole_topic_word() {
        let bans = Bans::new(&["Price rises".to_owned(), "disease".to_owned(), "  ".to_owned()]);
        assert!(bans.matches_keyword("price"));
        assert!(!bans.matches_keyword("ease"));
        assert!(Bans::new(&["pric".to_owned()]).matches_keyword("pricing"));
        assert!(bans.mentioned_in("No PRICE RISES here"));
        assert!(!Bans::new(&["  ".to_owned()]).mentioned_in("anything"));
    }

    #[test]
    fn the_register_follows_the_tone() {
        assert_eq!(register_from_tone(None), Register::Formal);
        assert_eq!(register_from_tone(Some("formal")), Register::Formal);
        assert_eq!(register_from_tone(Some("Warm, playful")), Register::Informal);
        assert_eq!(register_from_tone(Some("informal")), Register::Informal);
        assert_eq!(register_from_tone(Some("laid-back")), Register::Informal);
        assert_eq!(register_from_tone(Some("friendly but professional")), Register::Formal);
        assert_eq!(register_from_tone(Some("neutral")), Register::Formal);
    }

    #[test]
    fn mentioned_aspects_come_first_in_mention_order() {
        let order = aspect_order("How was the DELIVERY, and were our prices fair?");
        assert_eq!(&order[..3], &[7, 3, 0]);
        let order = aspect_order("Nothing in particular");
        let table_order: [usize; ASPECTS] = std::array::from_fn(|i| i);
        assert_eq!(order, table_order);
        // "app" alone is no cue, so "happy" does not pull the website forward.
        assert_eq!(aspect_order("Are customers happy?")[0], 0);
    }
}
