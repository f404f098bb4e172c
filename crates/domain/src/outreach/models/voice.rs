//! What a survey call says, and how what the person says back is read: consent, a request to stop
//! being called, a number on a rating scale.
//!
//! The words live in one table per language and register, like the messages' (see `wording`), so a
//! translator can review a table without reading code. Recognised speech is compared word by word
//! after [`words`] has lower-cased it and dropped accents and punctuation; the word lists go through
//! the same reading, so they are written as people spell them.

use crate::campaigns::models::Register;

/// What is said on a call, in one language and register. Slots: `{sender}` (the workspace's display
/// name), `{campaign}` (the campaign's name), `{count}` (number of questions), `{min}`, `{max}` (a
/// rating scale's ends), `{days}` (how long recordings are kept).
#[derive(Debug, PartialEq, Eq)]
pub struct VoicePhrases {
    /// Opens the call: who asks, and about what (`{sender}`, `{campaign}`).
    pub greeting: &'static str,
    /// How long it is (`{count}`), how to begin (1 or yes) and how never to be called again (9 or
    /// stop).
    pub consent: &'static str,
    /// Said before the consent question when the operator records spoken answers: that the
    /// answers given aloud are recorded, and the recordings deleted after `{days}` days.
    pub recorded: &'static str,
    /// Asks for a rating (`{min}`, `{max}`).
    pub rating: &'static str,
    /// Follows an answer that was not a number on the scale (`{min}`, `{max}`).
    pub invalid: &'static str,
    /// Asks for an answer in words.
    pub speak: &'static str,
    /// Said when a question got no usable answer twice, before the call goes on.
    pub no_answer: &'static str,
    /// Ends a completed call (`{sender}`).
    pub thanks: &'static str,
    /// Ends the call when the person does not consent.
    pub declined: &'static str,
    /// Ends the call after a request to stop (`{sender}`).
    pub stopped: &'static str,
    /// Ends a call Pulse cannot go on with (a fault on its side), before the line is hung up.
    pub interrupted: &'static str,
}

/// The phrases of `language` (a BCP 47 tag; primary subtag decides, English otherwise) in
/// `register`.
#[must_use]
pub fn voice_phrases(language: &str, register: Register) -> &'static VoicePhrases {
    let language = language_of(language);
    match register {
        Register::Formal => language.formal,
        Register::Informal => language.informal,
    }
}

/// The locale the provider speaks and recognises speech in for `language`: en → "en-US", fr →
/// "fr-FR", es → "es-ES", de → "de-DE", pt → "pt-BR", it → "it-IT", nl → "nl-NL", hi → "hi-IN"; a
/// tag with a region the provider supports for that language (e.g. "fr-CA", "en-GB", "es-MX",
/// "pt-PT", "en-IN") keeps its region; anything else falls back to the language's default above,
/// and an unknown language to "en-US".
#[must_use]
pub fn voice_locale(language: &str) -> &'static str {
    let Some(spoken) = find_language(language) else { return ENGLISH.locale };
    // The region is the subtag of two letters: a script ("Latn") may come before it.
    let region = language
        .trim()
        .split('-')
        .skip(1)
        .find(|subtag| subtag.len() == 2 && subtag.bytes().all(|b| b.is_ascii_alphabetic()));
    region
        .and_then(|region| {
            spoken.regional.iter().copied().find(|locale| {
                locale.rsplit_once('-').is_some_and(|(_, supported)| supported.eq_ignore_ascii_case(region))
            })
        })
        .unwrap_or(spoken.locale)
}

/// Fills the slots of a phrase. Values are inserted as given (the adapter XML-escapes the whole
/// text), in one left-to-right pass: a value is never read again, so a sender named "{campaign}"
/// stays as written. Unknown `{...}` stay as they are.
#[must_use]
pub fn say(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        out.push_str(before);
        let filled = after
            .split_once('}')
            .and_then(|(key, tail)| slots.iter().find(|(slot, _)| *slot == key).map(|(_, value)| (*value, tail)));
        match filled {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether recognised speech (any case, punctuation, surrounding words) consents: "yes", "yeah",
/// "sure", "okay" and the equivalents in the language, the English words in every language since
/// people mix. The first word that decides wins, and a refusal is looked for first at each word, so
/// "not sure", "claro que no" and "जी नहीं" do not consent while "sure, no problem" does.
#[must_use]
pub fn is_yes(language: &str, speech: &str) -> bool {
    let said = words(speech);
    let lexicons = [&language_of(language).lexicon, &ENGLISH.lexicon];
    for start in 0..said.len() {
        let opens_with = |pick: fn(&Lexicon) -> &'static [&'static str]| {
            lexicons.into_iter().flat_map(pick).any(|phrase| said_at(&said, start, phrase).is_some())
        };
        if opens_with(|lexicon| lexicon.no) {
            return false;
        }
        if opens_with(|lexicon| lexicon.yes) {
            return true;
        }
    }
    false
}

/// Whether recognised speech asks to stop being called: "stop", "unsubscribe", "don't call" and the
/// language's equivalents (the English ones in every language). A stop word or phrase counts in a
/// short utterance only, so that an answer such as "it stopped working" never opts anyone out: at
/// most two other words, courtesy ("please", "bitte", "por favor") aside, and none of them a "not"
/// right next to it ("don't stop"). Words that also mean something else ("para" is "for", "basta
/// così" is "that's all") count only alone.
#[must_use]
pub fn is_stop(language: &str, speech: &str) -> bool {
    let said = words(speech);
    let lexicons = [&language_of(language).lexicon, &ENGLISH.lexicon];
    let courtesy: Vec<String> = COURTESY.into_iter().flat_map(words).collect();
    let negates = |word: Option<&String>| {
        word.is_some_and(|word| lexicons.iter().flat_map(|lexicon| lexicon.not).any(|not| normal(not) == *word))
    };
    for phrase in lexicons.iter().flat_map(|lexicon| lexicon.stop) {
        for start in 0..said.len() {
            let Some(end) = said_at(&said, start, phrase) else { continue };
            if negates(start.checked_sub(1).and_then(|before| said.get(before))) || negates(said.get(end)) {
                continue;
            }
            let others = said
                .iter()
                .enumerate()
                .filter(|(index, word)| !(start..end).contains(index) && !courtesy.contains(word))
                .count();
            if others <= MAX_WORDS_BESIDE_STOP {
                return true;
            }
        }
    }
    let meant: Vec<&String> = said.iter().filter(|word| !courtesy.contains(word)).collect();
    !meant.is_empty()
        && lexicons
            .iter()
            .flat_map(|lexicon| lexicon.stop_alone)
            .any(|alone| meant.iter().all(|word| normal(alone) == **word))
}

/// A number from 0 to 10 in recognised speech: digits ("4", "10", "4.") or the number words of the
/// language, case- and accent-insensitive, the first number in the utterance. None when there is
/// none, or when the first is not a whole number from 0 to 10: "onze" (11), "dix-sept", "vingt et
/// un", "one hundred" and "4.5" are not read as a smaller number. Words for one that are also
/// articles ("un", "ein", "een") count only when no other number is said ("une note de sept" is 7).
#[must_use]
pub fn spoken_number(language: &str, speech: &str) -> Option<u8> {
    let spoken = language_of(language);
    let lexicons: Vec<&Lexicon> =
        std::iter::once(&spoken.lexicon).chain(spoken.lexicon.counts_in_english.then_some(&ENGLISH.lexicon)).collect();
    let readings: Vec<Option<Reading>> = words(speech).iter().map(|word| read(word, &lexicons)).collect();
    let mut article = None;
    for (index, reading) in readings.iter().enumerate() {
        let next = readings.get(index + 1).copied().flatten();
        // A number word followed by another makes a larger number: "dix sept", "deux cents".
        let compound = matches!(next, Some(Reading::Word(_) | Reading::Beyond));
        match *reading {
            Some(Reading::Digits(number)) => return number,
            Some(Reading::Beyond) => return None,
            Some(Reading::Word(number)) => return (!compound).then_some(number),
            Some(Reading::Article) if next == Some(Reading::Beyond) => return None,
            Some(Reading::Article) if !compound => article = article.or(Some(1)),
            Some(Reading::Article) | None => {}
        }
    }
    article
}

/// The highest number a rating is read as.
const HIGHEST: u8 = 10;

/// The most words a stop word or phrase may come with, courtesy aside.
const MAX_WORDS_BESIDE_STOP: usize = 2;

/// Words that soften a request without changing it, in every language.
const COURTESY: [&str; 22] = [
    "please",
    "thanks",
    "thank you",
    "s'il vous plaît",
    "s'il te plaît",
    "merci",
    "por favor",
    "ya",
    "gracias",
    "bitte",
    "danke",
    "obrigado",
    "obrigada",
    "per favore",
    "grazie",
    "alsjeblieft",
    "alstublieft",
    "bedankt",
    "कृपया",
    "प्लीज़",
    "धन्यवाद",
    "शुक्रिया",
];

/// What a word of an utterance says about the number in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// Digits: the number when it is on the scale.
    Digits(Option<u8>),
    /// A number word on the scale.
    Word(u8),
    /// A word for one that is also an article.
    Article,
    /// A number past the scale ("onze", "twenty", "hundred") or not whole ("4.5").
    Beyond,
}

fn read(word: &str, lexicons: &[&Lexicon]) -> Option<Reading> {
    // A point or comma survives `words` only between digits.
    if word.contains(['.', ',']) {
        return Some(Reading::Beyond);
    }
    if word.bytes().all(|b| b.is_ascii_digit()) {
        return Some(Reading::Digits(word.parse().ok().filter(|number| *number <= HIGHEST)));
    }
    lexicons.iter().find_map(|lexicon| {
        if let Some((_, number)) = lexicon.numbers.iter().find(|(spelled, _)| normal(spelled) == word) {
            Some(Reading::Word(*number))
        } else if lexicon.articles.iter().any(|spelled| normal(spelled) == word) {
            Some(Reading::Article)
        } else {
            lexicon.beyond.iter().any(|spelled| normal(spelled) == word).then_some(Reading::Beyond)
        }
    })
}

/// Where `phrase` (as a list spells it) ends when it is said from word `start` on.
fn said_at(said: &[String], start: usize, phrase: &str) -> Option<usize> {
    let phrase = words(phrase);
    let end = start + phrase.len();
    (!phrase.is_empty() && said.get(start..end) == Some(phrase.as_slice())).then_some(end)
}

/// A single word of a list, read as speech is.
fn normal(word: &str) -> String {
    words(word).join(" ")
}

/// `text` as words: lower-cased, accents and punctuation dropped, so that speech and the lists
/// compare however the recogniser spelled them. Apostrophes join ("d'accord" is "daccord", "don't"
/// is "dont"), which also keeps "n'arrêtez pas" from reading as "arrêtez"; a point or comma between
/// digits stays, so that "4.5" is not read as 4 and 5.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '’' | '‘' | 'ʼ') {
            continue;
        }
        let in_number = matches!(c, '.' | ',')
            && word.ends_with(|before: char| before.is_ascii_digit())
            && chars.peek().is_some_and(|after| after.is_numeric());
        if in_number {
            word.push(c);
        } else if is_letter(c) {
            c.to_lowercase().for_each(|lower| fold(lower, &mut word));
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Letters and digits, with the combining accents and the Devanagari vowel signs `char` does not
/// count as alphanumeric; the danda ends a sentence.
fn is_letter(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c, '\u{0300}'..='\u{036F}')
        || (matches!(c, '\u{0900}'..='\u{097F}') && !matches!(c, '।' | '॥'))
}

/// Appends `c` (lower case) without its accent.
fn fold(c: char, word: &mut String) {
    let plain = match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
        'ç' => 'c',
        'è' | 'é' | 'ê' | 'ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' => 'i',
        'ñ' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
        'ù' | 'ú' | 'û' | 'ü' => 'u',
        'ý' | 'ÿ' => 'y',
        'ß' => {
            word.push_str("ss");
            return;
        }
        'œ' => {
            word.push_str("oe");
            return;
        }
        // Decomposed accents, and the nukta that "ज़रूर" is written with or without.
        '\u{0300}'..='\u{036F}' | '\u{093C}' => return,
        // "हाँ" and "हां" are the same word: chandrabindu and anusvara are written interchangeably.
        'ँ' => 'ं',
        '०'..='९' => char::from_digit(u32::from(c) - u32::from('०'), 10).unwrap_or(c),
        _ => c,
    };
    word.push(plain);
}

/// A language a call can be made in.
struct Language {
    /// The primary subtag.
    code: &'static str,
    formal: &'static VoicePhrases,
    informal: &'static VoicePhrases,
    /// The locale spoken when the tag names no supported region.
    locale: &'static str,
    /// Other locales the provider both speaks and recognises.
    regional: &'static [&'static str],
    lexicon: Lexicon,
}

/// The words a language's callers answer with. Entries may be phrases of several words. English
/// words count in every language, so other lists leave them out.
struct Lexicon {
    yes: &'static [&'static str],
    /// Refusals, looked for before `yes` at each word: some open like a yes ("claro que no").
    no: &'static [&'static str],
    stop: &'static [&'static str],
    /// Stop words that also mean something else, so count only alone.
    stop_alone: &'static [&'static str],
    /// Words that turn a stop word around when right next to it ("don't stop", "रुको मत").
    not: &'static [&'static str],
    /// Number words from 0 to 10.
    numbers: &'static [(&'static str, u8)],
    /// Words for one that are also articles ("un", "ein", "een").
    articles: &'static [&'static str],
    /// Words of numbers past 10, so that "onze" or "twenty one" is not read as a smaller number.
    beyond: &'static [&'static str],
    /// Whether the language's speakers often count in English, as Hindi speakers do.
    counts_in_english: bool,
}

static LANGUAGES: [&Language; 8] = [&ENGLISH, &FRENCH, &SPANISH, &GERMAN, &PORTUGUESE, &ITALIAN, &DUTCH, &HINDI];

/// The language of a BCP 47 tag (its primary subtag), when calls are made in it.
fn find_language(tag: &str) -> Option<&'static Language> {
    let tag = tag.trim();
    let primary = tag.split_once('-').map_or(tag, |(primary, _)| primary);
    LANGUAGES.iter().copied().find(|language| language.code.eq_ignore_ascii_case(primary))
}

/// The language of a BCP 47 tag, or English when calls are not made in it.
fn language_of(tag: &str) -> &'static Language {
    find_language(tag).unwrap_or(&ENGLISH)
}

// English: no pronoun to change, so the informal register is a friendlier tone.

static ENGLISH: Language = Language {
    code: "en",
    formal: &EN_FORMAL,
    informal: &EN_INFORMAL,
    locale: "en-US",
    regional: &["en-GB", "en-AU", "en-IN", "en-IE", "en-NZ", "en-ZA"],
    lexicon: Lexicon {
        yes: &[
            "yes",
            "yeah",
            "yep",
            "yup",
            "sure",
            "okay",
            "ok",
            "alright",
            "all right",
            "of course",
            "certainly",
            "absolutely",
            "go ahead",
            "why not",
        ],
        no: &["no", "nope", "nah", "not", "don't", "never", "of course not"],
        stop: &[
            "stop",
            "unsubscribe",
            "opt out",
            "don't call",
            "do not call",
            "stop calling",
            "remove me",
            "take me off",
            "no more calls",
            "leave me alone",
        ],
        stop_alone: &[],
        not: &["not", "don't", "can't", "won't", "never", "didn't", "doesn't"],
        numbers: &[
            ("zero", 0),
            ("one", 1),
            ("two", 2),
            ("three", 3),
            ("four", 4),
            ("five", 5),
            ("six", 6),
            ("seven", 7),
            ("eight", 8),
            ("nine", 9),
            ("ten", 10),
        ],
        articles: &[],
        beyond: &[
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
            "thirty",
            "forty",
            "fifty",
            "sixty",
            "seventy",
            "eighty",
            "ninety",
            "hundred",
            "thousand",
            "million",
        ],
        counts_in_english: false,
    },
};

static EN_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hello, this is an automated call from {sender} with a short survey about {campaign}.",
    consent: "It has {count} questions and takes only a few minutes. To begin, press 1 or say yes. To never be called again, press 9 or say stop.",
    recorded: "Please note that your spoken answers are recorded, and the recordings are deleted after {days} days.",
    rating: "Please press or say a number from {min} to {max}.",
    invalid: "Sorry, that was not a number from {min} to {max}.",
    speak: "Please answer in a few words after the tone, then stay silent.",
    no_answer: "Let's move on.",
    thanks: "Thank you for your answers; they are valuable to {sender}. Goodbye.",
    declined: "No problem. Thank you, and goodbye.",
    stopped: "Understood. You will not be called again about surveys from {sender}. Goodbye.",
    interrupted: "We are sorry, but we cannot continue this call right now. Goodbye.",
};

static EN_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hi, this is an automated call from {sender} with a quick survey about {campaign}.",
    consent: "It's just {count} questions and only takes a few minutes. To start, press 1 or say yes. If you'd rather we never call again, press 9 or say stop.",
    recorded: "Just so you know, your spoken answers are recorded, and we delete the recordings after {days} days.",
    rating: "Press or say a number from {min} to {max}.",
    invalid: "Sorry, that wasn't a number from {min} to {max}.",
    speak: "Just answer in a few words after the tone, then stay quiet.",
    no_answer: "No worries, let's move on.",
    thanks: "Thanks so much for your answers! {sender} really appreciates it. Bye!",
    declined: "No problem at all. Bye!",
    stopped: "Got it. {sender} won't call you about surveys again. Bye!",
    interrupted: "Sorry, we can't continue this call right now. Bye!",
};

// French: vous and tu. "de {sender}" would need an elision before a vowel ("d’Acme"), and an
// adjective agreeing with the sender its gender, so the sender is only ever a subject or after
// "pour". A spoken text has no high punctuation to space.

static FRENCH: Language = Language {
    code: "fr",
    formal: &FR_FORMAL,
    informal: &FR_INFORMAL,
    locale: "fr-FR",
    regional: &["fr-CA", "fr-BE"],
    lexicon: Lexicon {
        yes: &[
            "oui",
            "ouais",
            "d'accord",
            "bien sûr",
            "volontiers",
            "entendu",
            "allez-y",
            "vas-y",
            "c'est parti",
            "avec plaisir",
            "pourquoi pas",
        ],
        no: &["non", "pas", "jamais", "bien sûr que non"],
        stop: &[
            "arrêtez",
            "stoppez",
            "arrête de m'appeler",
            "ne m'appelez plus",
            "ne m'appelle plus",
            "ne me rappelez plus",
            "ne me rappelle plus",
            "plus d'appels",
            "désinscrivez-moi",
            "désinscris-moi",
        ],
        // Without its accent, as a recogniser may drop it, "arrête" is also "arrêté" (stopped).
        stop_alone: &["arrête"],
        not: &["pas", "jamais"],
        numbers: &[
            ("zéro", 0),
            ("deux", 2),
            ("trois", 3),
            ("quatre", 4),
            ("cinq", 5),
            ("six", 6),
            ("sept", 7),
            ("huit", 8),
            ("neuf", 9),
            ("dix", 10),
        ],
        articles: &["un", "une"],
        beyond: &[
            "onze",
            "douze",
            "treize",
            "quatorze",
            "quinze",
            "seize",
            "vingt",
            "vingts",
            "trente",
            "quarante",
            "cinquante",
            "soixante",
            "septante",
            "huitante",
            "octante",
            "nonante",
            "cent",
            "cents",
            "mille",
            "million",
        ],
        counts_in_english: false,
    },
};

static FR_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Bonjour, ceci est un appel automatique. {sender} vous propose un court questionnaire sur {campaign}.",
    consent: "Il comporte {count} questions et ne prend que quelques minutes. Pour commencer, appuyez sur 1 ou dites oui. Pour ne plus recevoir d’appels, appuyez sur 9 ou dites stop.",
    recorded: "Vos réponses orales sont enregistrées et les enregistrements sont supprimés au bout de {days} jours.",
    rating: "Veuillez taper ou dire un nombre de {min} à {max}.",
    invalid: "Pardon, ce n’était pas un nombre de {min} à {max}.",
    speak: "Veuillez répondre en quelques mots après le bip, puis marquer une pause.",
    no_answer: "Passons à la suite.",
    thanks: "Merci pour vos réponses, elles sont précieuses pour {sender}. Au revoir.",
    declined: "Entendu, merci. Au revoir.",
    stopped: "C’est noté. {sender} ne vous appellera plus pour des questionnaires. Au revoir.",
    interrupted: "Veuillez nous excuser, nous ne pouvons pas poursuivre cet appel pour le moment. Au revoir.",
};

static FR_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Bonjour, c’est un appel automatique. {sender} te propose un petit questionnaire sur {campaign}.",
    consent: "Il y a {count} questions, ça ne prend que quelques minutes. Pour commencer, appuie sur 1 ou dis oui. Pour ne plus recevoir d’appels, appuie sur 9 ou dis stop.",
    recorded: "Tes réponses orales sont enregistrées et on supprime les enregistrements au bout de {days} jours.",
    rating: "Tape ou dis un nombre de {min} à {max}.",
    invalid: "Oups, ce n’était pas un nombre de {min} à {max}.",
    speak: "Réponds en quelques mots après le bip, puis fais une petite pause.",
    no_answer: "Pas de souci, on passe à la suite.",
    thanks: "Merci pour tes réponses, elles comptent beaucoup pour {sender}. Au revoir.",
    declined: "Pas de souci. Au revoir.",
    stopped: "C’est noté. {sender} ne t’appellera plus pour des questionnaires. Au revoir.",
    interrupted: "Désolé, on ne peut pas continuer l’appel pour le moment. Au revoir.",
};

// Spanish: usted and tú. "Marcar" is the keypad verb on both sides of the Atlantic; "basta" is the
// stop word offered, since "para" is also "for".

static SPANISH: Language = Language {
    code: "es",
    formal: &ES_FORMAL,
    informal: &ES_INFORMAL,
    locale: "es-ES",
    regional: &["es-MX", "es-US"],
    lexicon: Lexicon {
        yes: &[
            "sí",
            "claro",
            "vale",
            "dale",
            "okey",
            "de acuerdo",
            "por supuesto",
            "adelante",
            "está bien",
            "con gusto",
        ],
        no: &["no", "nunca", "claro que no", "por supuesto que no"],
        stop: &[
            "no me llame",
            "no me llames",
            "no me llamen",
            "no vuelva a llamar",
            "no vuelvas a llamar",
            "deje de llamar",
            "deja de llamar",
            "dejen de llamar",
            "darme de baja",
            "no más llamadas",
        ],
        stop_alone: &["basta", "para", "pare"],
        not: &["nunca"],
        numbers: &[
            ("cero", 0),
            ("uno", 1),
            ("dos", 2),
            ("tres", 3),
            ("cuatro", 4),
            ("cinco", 5),
            ("seis", 6),
            ("siete", 7),
            ("ocho", 8),
            ("nueve", 9),
            ("diez", 10),
        ],
        articles: &["un", "una"],
        beyond: &[
            "once",
            "doce",
            "trece",
            "catorce",
            "quince",
            "dieciséis",
            "diecisiete",
            "dieciocho",
            "diecinueve",
            "veinte",
            "veintiuno",
            "treinta",
            "cuarenta",
            "cincuenta",
            "sesenta",
            "setenta",
            "ochenta",
            "noventa",
            "cien",
            "ciento",
            "mil",
            "millón",
        ],
        counts_in_english: false,
    },
};

static ES_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hola, esta es una llamada automática de {sender} con una breve encuesta sobre {campaign}.",
    consent: "Son {count} preguntas y solo le llevará unos minutos. Para empezar, marque 1 o diga sí. Si no desea recibir más llamadas, marque 9 o diga basta.",
    recorded: "Le informamos de que sus respuestas de voz se graban y las grabaciones se eliminan a los {days} días.",
    rating: "Por favor, marque o diga un número del {min} al {max}.",
    invalid: "Disculpe, ese no es un número del {min} al {max}.",
    speak: "Responda en pocas palabras después del tono y luego guarde silencio.",
    no_answer: "Continuemos.",
    thanks: "Muchas gracias por sus respuestas, son muy valiosas para {sender}. Adiós.",
    declined: "Entendido, muchas gracias. Adiós.",
    stopped: "Entendido. {sender} no volverá a llamarle para encuestas. Adiós.",
    interrupted: "Disculpe, en este momento no podemos continuar con esta llamada. Adiós.",
};

static ES_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hola, esta es una llamada automática de {sender} con una encuesta rápida sobre {campaign}.",
    consent: "Son {count} preguntas y solo te llevará unos minutos. Para empezar, marca 1 o di sí. Si no quieres recibir más llamadas, marca 9 o di basta.",
    recorded: "Ten en cuenta que tus respuestas de voz se graban y las grabaciones se borran a los {days} días.",
    rating: "Marca o di un número del {min} al {max}.",
    invalid: "Perdona, ese no es un número del {min} al {max}.",
    speak: "Responde en pocas palabras después del tono y luego quédate en silencio.",
    no_answer: "No pasa nada, sigamos.",
    thanks: "¡Muchas gracias por tus respuestas! Son muy valiosas para {sender}. ¡Adiós!",
    declined: "No pasa nada. ¡Adiós!",
    stopped: "Entendido. {sender} no volverá a llamarte para encuestas. ¡Adiós!",
    interrupted: "Perdona, ahora mismo no podemos seguir con la llamada. ¡Adiós!",
};

// German: Sie and du. "Auf Wiederhören" is the goodbye of a phone call.

static GERMAN: Language = Language {
    code: "de",
    formal: &DE_FORMAL,
    informal: &DE_INFORMAL,
    locale: "de-DE",
    regional: &["de-AT", "de-CH"],
    lexicon: Lexicon {
        yes: &[
            "ja",
            "jawohl",
            "jo",
            "gern",
            "gerne",
            "klar",
            "natürlich",
            "sicher",
            "einverstanden",
            "in Ordnung",
            "auf jeden Fall",
            "warum nicht",
        ],
        no: &["nein", "nee", "nicht", "kein", "keine", "keinen", "nie", "natürlich nicht", "sicher nicht"],
        stop: &[
            "stopp",
            "aufhören",
            "abmelden",
            "hören Sie auf",
            "hör auf",
            "nicht mehr anrufen",
            "rufen Sie mich nicht mehr an",
            "ruf mich nicht mehr an",
            "keine Anrufe mehr",
        ],
        stop_alone: &[],
        not: &["nicht", "nie"],
        numbers: &[
            ("null", 0),
            ("eins", 1),
            ("zwei", 2),
            ("zwo", 2),
            ("drei", 3),
            ("vier", 4),
            ("fünf", 5),
            ("sechs", 6),
            ("sieben", 7),
            ("acht", 8),
            ("neun", 9),
            ("zehn", 10),
        ],
        articles: &["ein", "eine", "einen", "einem", "einer"],
        beyond: &[
            "elf",
            "zwölf",
            "dreizehn",
            "vierzehn",
            "fünfzehn",
            "sechzehn",
            "siebzehn",
            "achtzehn",
            "neunzehn",
            "zwanzig",
            "dreißig",
            "vierzig",
            "fünfzig",
            "sechzig",
            "siebzig",
            "achtzig",
            "neunzig",
            "hundert",
            "tausend",
            "Million",
        ],
        counts_in_english: false,
    },
};

static DE_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Guten Tag, dies ist ein automatischer Anruf von {sender} mit einer kurzen Umfrage zum Thema {campaign}.",
    consent: "Die Umfrage hat {count} Fragen und dauert nur wenige Minuten. Drücken Sie zum Start die 1 oder sagen Sie Ja. Möchten Sie nicht mehr angerufen werden, drücken Sie die 9 oder sagen Sie Stopp.",
    recorded: "Ihre gesprochenen Antworten werden aufgezeichnet und die Aufnahmen nach {days} Tagen gelöscht.",
    rating: "Bitte sagen oder tippen Sie eine Zahl von {min} bis {max}.",
    invalid: "Entschuldigung, das war keine Zahl von {min} bis {max}.",
    speak: "Bitte antworten Sie nach dem Signalton in wenigen Worten und bleiben Sie danach kurz still.",
    no_answer: "Wir machen weiter.",
    thanks: "Vielen Dank für Ihre Antworten, sie helfen {sender} sehr. Auf Wiederhören.",
    declined: "Kein Problem, vielen Dank. Auf Wiederhören.",
    stopped: "Verstanden. {sender} wird Sie nicht mehr wegen Umfragen anrufen. Auf Wiederhören.",
    interrupted: "Es tut uns leid, aber wir können diesen Anruf im Moment nicht fortsetzen. Auf Wiederhören.",
};

static DE_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hallo, das ist ein automatischer Anruf von {sender} mit einer kurzen Umfrage zum Thema {campaign}.",
    consent: "Die Umfrage hat {count} Fragen und dauert nur ein paar Minuten. Zum Starten drück die 1 oder sag Ja. Wenn du nicht mehr angerufen werden möchtest, drück die 9 oder sag Stopp.",
    recorded: "Kurz zur Info: Deine gesprochenen Antworten werden aufgezeichnet, die Aufnahmen löschen wir nach {days} Tagen.",
    rating: "Sag oder tippe eine Zahl von {min} bis {max}.",
    invalid: "Das war leider keine Zahl von {min} bis {max}.",
    speak: "Antworte nach dem Signalton in ein paar Worten und sei danach kurz still.",
    no_answer: "Kein Problem, wir machen weiter.",
    thanks: "Danke für deine Antworten! Damit hilfst du {sender} sehr. Tschüss!",
    declined: "Kein Problem. Tschüss!",
    stopped: "Alles klar. {sender} ruft dich nicht mehr wegen Umfragen an. Tschüss!",
    interrupted: "Tut uns leid, wir können den Anruf gerade nicht fortsetzen. Tschüss!",
};

// Portuguese, for Brazil and Portugal alike, as in the messages: both registers use the third-person
// forms, the formal one impersonal where it can be and the informal one warmer, with "você".
// "Chamada" and "pressionar" are the words both countries use on the phone.

static PORTUGUESE: Language = Language {
    code: "pt",
    formal: &PT_FORMAL,
    informal: &PT_INFORMAL,
    locale: "pt-BR",
    regional: &["pt-PT"],
    lexicon: Lexicon {
        yes: &[
            "sim",
            "claro",
            "pode",
            "pode ser",
            "com certeza",
            "certo",
            "tá bom",
            "está bem",
            "tudo bem",
            "beleza",
            "vamos",
            "bora",
            "quero",
        ],
        no: &["não", "nunca", "claro que não"],
        stop: &[
            "parar",
            "pare de ligar",
            "para de ligar",
            "parem de ligar",
            "não me ligue",
            "não me liga",
            "não ligue mais",
            "descadastrar",
            "me tire da lista",
            "não quero mais chamadas",
            "não quero mais ligações",
        ],
        stop_alone: &["pare", "para", "chega"],
        not: &["nunca"],
        numbers: &[
            ("zero", 0),
            ("dois", 2),
            ("duas", 2),
            ("três", 3),
            ("quatro", 4),
            ("cinco", 5),
            ("seis", 6),
            ("sete", 7),
            ("oito", 8),
            ("nove", 9),
            ("dez", 10),
        ],
        articles: &["um", "uma"],
        beyond: &[
            "onze",
            "doze",
            "treze",
            "catorze",
            "quatorze",
            "quinze",
            "dezesseis",
            "dezasseis",
            "dezessete",
            "dezassete",
            "dezoito",
            "dezenove",
            "dezanove",
            "vinte",
            "trinta",
            "quarenta",
            "cinquenta",
            "sessenta",
            "setenta",
            "oitenta",
            "noventa",
            "cem",
            "cento",
            "mil",
            "milhão",
        ],
        counts_in_english: false,
    },
};

static PT_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Olá, esta é uma chamada automática de {sender}, com um breve questionário sobre {campaign}.",
    consent: "São {count} perguntas e leva apenas alguns minutos. Para começar, pressione 1 ou diga sim. Para não receber mais chamadas, pressione 9 ou diga parar.",
    recorded: "Informamos que suas respostas faladas são gravadas e as gravações são excluídas após {days} dias.",
    rating: "Por favor, pressione ou diga um número de {min} a {max}.",
    invalid: "Desculpe, esse não é um número de {min} a {max}.",
    speak: "Responda em poucas palavras após o sinal e depois aguarde em silêncio.",
    no_answer: "Vamos continuar.",
    thanks: "Muito obrigado pelas respostas, são muito importantes para {sender}. Até logo.",
    declined: "Tudo bem, obrigado. Até logo.",
    stopped: "Entendido. Não receberá mais chamadas de {sender} sobre questionários. Até logo.",
    interrupted: "Pedimos desculpas, mas não é possível continuar esta chamada no momento. Até logo.",
};

static PT_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Olá! Esta é uma chamada automática de {sender}, com um questionário rápido sobre {campaign}.",
    consent: "São só {count} perguntas, coisa de poucos minutos. Para começar, é só pressionar 1 ou dizer sim. Se não quiser mais receber chamadas, pressione 9 ou diga parar.",
    recorded: "Só para você saber: suas respostas faladas são gravadas, e a gente apaga as gravações depois de {days} dias.",
    rating: "É só dizer ou pressionar um número de {min} a {max}.",
    invalid: "Ops, esse não é um número de {min} a {max}.",
    speak: "Responda com poucas palavras após o sinal e depois fique em silêncio.",
    no_answer: "Sem problema, vamos em frente.",
    thanks: "Muito obrigado pelas respostas! Elas fazem toda a diferença para {sender}. Até mais!",
    declined: "Sem problema. Até mais!",
    stopped: "Tudo certo. Você não vai mais receber chamadas de {sender} sobre questionários. Até mais!",
    interrupted: "Desculpa, não dá para continuar a chamada agora. Até mais!",
};

// Italian: Lei (in the modern lower-case style) and tu. "Basta" counts only alone: "basta così"
// answers "anything else?".

static ITALIAN: Language = Language {
    code: "it",
    formal: &IT_FORMAL,
    informal: &IT_INFORMAL,
    locale: "it-IT",
    regional: &[],
    lexicon: Lexicon {
        yes: &[
            "sì",
            "certo",
            "certamente",
            "va bene",
            "d'accordo",
            "volentieri",
            "sicuro",
            "ovviamente",
            "vai",
            "perché no",
        ],
        no: &["no", "non", "mai", "certo che no"],
        stop: &[
            "smettila",
            "smettetela",
            "la smetta",
            "non mi chiami più",
            "non mi chiamate più",
            "non chiamarmi più",
            "non chiamatemi più",
            "smetta di chiamare",
            "smetti di chiamare",
            "smettete di chiamare",
            "cancellatemi",
        ],
        stop_alone: &["basta"],
        not: &["non", "mai"],
        numbers: &[
            ("zero", 0),
            ("uno", 1),
            ("due", 2),
            ("tre", 3),
            ("quattro", 4),
            ("cinque", 5),
            ("sei", 6),
            ("sette", 7),
            ("otto", 8),
            ("nove", 9),
            ("dieci", 10),
        ],
        articles: &["un", "una"],
        beyond: &[
            "undici",
            "dodici",
            "tredici",
            "quattordici",
            "quindici",
            "sedici",
            "diciassette",
            "diciotto",
            "diciannove",
            "venti",
            "ventuno",
            "trenta",
            "quaranta",
            "cinquanta",
            "sessanta",
            "settanta",
            "ottanta",
            "novanta",
            "cento",
            "mille",
            "milione",
        ],
        counts_in_english: false,
    },
};

static IT_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Buongiorno, questa è una chiamata automatica da parte di {sender} per un breve questionario su {campaign}.",
    consent: "Sono {count} domande e bastano pochi minuti. Per iniziare, prema 1 o dica sì. Per non ricevere più chiamate, prema 9 o dica stop.",
    recorded: "Le sue risposte a voce vengono registrate e le registrazioni vengono cancellate dopo {days} giorni.",
    rating: "Prema o dica un numero da {min} a {max}.",
    invalid: "Mi scusi, non era un numero da {min} a {max}.",
    speak: "Risponda in poche parole dopo il segnale acustico, poi resti in silenzio.",
    no_answer: "Andiamo avanti.",
    thanks: "Grazie per le sue risposte, sono preziose per {sender}. Arrivederci.",
    declined: "Va bene, grazie. Arrivederci.",
    stopped: "D’accordo. {sender} non la chiamerà più per questionari. Arrivederci.",
    interrupted: "Ci scusi, al momento non possiamo proseguire questa chiamata. Arrivederci.",
};

static IT_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Ciao, questa è una chiamata automatica da parte di {sender} per un breve questionario su {campaign}.",
    consent: "Sono {count} domande e bastano pochi minuti. Per iniziare, premi 1 o di’ sì. Per non ricevere più chiamate, premi 9 o di’ stop.",
    recorded: "Le tue risposte a voce vengono registrate e le registrazioni vengono cancellate dopo {days} giorni.",
    rating: "Premi o di’ un numero da {min} a {max}.",
    invalid: "Scusa, non era un numero da {min} a {max}.",
    speak: "Rispondi in poche parole dopo il segnale acustico, poi resta in silenzio.",
    no_answer: "Nessun problema, andiamo avanti.",
    thanks: "Grazie per le tue risposte, sono preziose per {sender}. Ciao!",
    declined: "Nessun problema. Ciao!",
    stopped: "D’accordo. {sender} non ti chiamerà più per questionari. Ciao!",
    interrupted: "Scusa, al momento non possiamo andare avanti con la chiamata. Ciao!",
};

// Dutch: u and je. "Ja nee" is a no.

static DUTCH: Language = Language {
    code: "nl",
    formal: &NL_FORMAL,
    informal: &NL_INFORMAL,
    locale: "nl-NL",
    regional: &["nl-BE"],
    lexicon: Lexicon {
        yes: &[
            "ja",
            "jazeker",
            "jawel",
            "zeker",
            "prima",
            "goed",
            "oké",
            "akkoord",
            "graag",
            "natuurlijk",
            "tuurlijk",
            "doe maar",
            "waarom niet",
        ],
        no: &["nee", "niet", "geen", "nooit", "ja nee", "zeker niet", "natuurlijk niet"],
        stop: &[
            "stoppen",
            "afmelden",
            "uitschrijven",
            "hou op",
            "houd op",
            "niet meer bellen",
            "bel me niet meer",
            "bel mij niet meer",
            "belt u mij niet meer",
            "geen telefoontjes meer",
        ],
        stop_alone: &[],
        not: &["niet", "nooit"],
        numbers: &[
            ("nul", 0),
            ("twee", 2),
            ("drie", 3),
            ("vier", 4),
            ("vijf", 5),
            ("zes", 6),
            ("zeven", 7),
            ("acht", 8),
            ("negen", 9),
            ("tien", 10),
        ],
        // "één" loses its accents to "een".
        articles: &["een"],
        beyond: &[
            "elf",
            "twaalf",
            "dertien",
            "veertien",
            "vijftien",
            "zestien",
            "zeventien",
            "achttien",
            "negentien",
            "twintig",
            "dertig",
            "veertig",
            "vijftig",
            "zestig",
            "zeventig",
            "tachtig",
            "negentig",
            "honderd",
            "duizend",
            "miljoen",
        ],
        counts_in_english: false,
    },
};

static NL_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "Goedendag, dit is een automatische oproep van {sender} met een korte vragenlijst over {campaign}.",
    consent: "Het zijn {count} vragen en het duurt maar een paar minuten. Druk op 1 of zeg ja om te beginnen. Wilt u niet meer gebeld worden? Druk dan op 9 of zeg stop.",
    recorded: "Uw gesproken antwoorden worden opgenomen en de opnames worden na {days} dagen verwijderd.",
    rating: "Wilt u een getal van {min} tot en met {max} zeggen of intoetsen?",
    invalid: "Helaas, dat was geen getal van {min} tot en met {max}.",
    speak: "Wilt u na de pieptoon in een paar woorden antwoorden en daarna even stil zijn?",
    no_answer: "We gaan verder.",
    thanks: "Hartelijk dank voor uw antwoorden, ze zijn waardevol voor {sender}. Tot ziens.",
    declined: "Geen probleem, dank u wel. Tot ziens.",
    stopped: "Begrepen. {sender} belt u niet meer voor vragenlijsten. Tot ziens.",
    interrupted: "Onze excuses, we kunnen dit gesprek op dit moment niet voortzetten. Tot ziens.",
};

static NL_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "Hoi, dit is een automatische oproep van {sender} met een korte vragenlijst over {campaign}.",
    consent: "Het zijn {count} vragen en het duurt maar een paar minuten. Druk op 1 of zeg ja om te beginnen. Wil je niet meer gebeld worden? Druk dan op 9 of zeg stop.",
    recorded: "Goed om te weten: je gesproken antwoorden worden opgenomen en we verwijderen de opnames na {days} dagen.",
    rating: "Zeg of toets een getal van {min} tot en met {max}.",
    invalid: "Sorry, dat was geen getal van {min} tot en met {max}.",
    speak: "Antwoord na de pieptoon in een paar woorden en wees daarna even stil.",
    no_answer: "Geeft niks, we gaan verder.",
    thanks: "Bedankt voor je antwoorden, {sender} heeft er veel aan. Fijne dag nog!",
    declined: "Geen probleem. Fijne dag nog!",
    stopped: "Helder. {sender} belt je niet meer voor vragenlijsten. Fijne dag nog!",
    interrupted: "Sorry, we kunnen dit gesprek nu helaas niet voortzetten. Fijne dag nog!",
};

// Hindi: आप and तुम. As in the messages, the sender only appears where no verb agrees with its
// gender ("{sender} की ओर से", "{sender} के लिए"). People answer in Devanagari, in Latin letters
// and in English numbers alike.

static HINDI: Language = Language {
    code: "hi",
    formal: &HI_FORMAL,
    informal: &HI_INFORMAL,
    locale: "hi-IN",
    regional: &[],
    lexicon: Lexicon {
        yes: &[
            "हाँ",
            "जी",
            "ठीक है",
            "ठीक",
            "बिल्कुल",
            "बिलकुल",
            "ज़रूर",
            "अच्छा",
            "चलो",
            "ओके",
            "यस",
            "haan",
            "han",
            "ji",
            "theek",
            "thik",
            "bilkul",
            "zaroor",
            "achha",
            "accha",
        ],
        no: &[
            "नहीं",
            "नही",
            "ना",
            "मत",
            "नो",
            "जी नहीं",
            "बिल्कुल नहीं",
            "बिलकुल नहीं",
            "ठीक नहीं",
            "nahi",
            "nahin",
            "na",
            "ji nahi",
            "bilkul nahi",
        ],
        stop: &[
            "स्टॉप",
            "बंद करो",
            "बंद करें",
            "बंद कीजिए",
            "बंद कर दो",
            "बंद कर दीजिए",
            "कॉल मत करो",
            "कॉल मत करें",
            "कॉल मत कीजिए",
            "कॉल मत करना",
            "फ़ोन मत करो",
            "फ़ोन मत करें",
            "band karo",
            "band kar do",
            "call mat karo",
            "phone mat karo",
        ],
        // "रुको" is also "wait" ("रुको, एक मिनट").
        stop_alone: &["रुको", "रुकिए", "ruko"],
        not: &["मत", "नहीं", "नही", "mat", "nahi"],
        numbers: &[
            ("शून्य", 0),
            ("दो", 2),
            ("तीन", 3),
            ("चार", 4),
            ("पाँच", 5),
            ("छह", 6),
            ("छः", 6),
            ("छे", 6),
            ("सात", 7),
            ("आठ", 8),
            ("नौ", 9),
            ("दस", 10),
            ("shunya", 0),
            ("do", 2),
            ("teen", 3),
            ("char", 4),
            ("chaar", 4),
            ("paanch", 5),
            ("panch", 5),
            ("chhe", 6),
            ("chhah", 6),
            ("saat", 7),
            ("aath", 8),
            ("nau", 9),
            ("das", 10),
        ],
        articles: &["एक", "ek"],
        beyond: &[
            "ग्यारह",
            "बारह",
            "तेरह",
            "चौदह",
            "पंद्रह",
            "पन्द्रह",
            "सोलह",
            "सत्रह",
            "अठारह",
            "उन्नीस",
            "बीस",
            "तीस",
            "चालीस",
            "पचास",
            "सौ",
            "हज़ार",
            "लाख",
            "gyarah",
            "barah",
            "bees",
            "sau",
            "hazaar",
            "hazar",
        ],
        counts_in_english: true,
    },
};

static HI_FORMAL: VoicePhrases = VoicePhrases {
    greeting: "नमस्ते, यह {sender} की ओर से {campaign} के बारे में एक छोटे सर्वेक्षण के लिए स्वचालित कॉल है।",
    consent: "इसमें {count} प्रश्न हैं और बस कुछ मिनट लगेंगे। शुरू करने के लिए 1 दबाएँ या हाँ बोलें। अगर आपको आगे कोई कॉल नहीं चाहिए, तो 9 दबाएँ या स्टॉप बोलें।",
    recorded: "आपके बोले गए जवाब रिकॉर्ड किए जाते हैं, और ये रिकॉर्डिंग {days} दिन बाद हटा दी जाती हैं।",
    rating: "कृपया {min} से {max} तक कोई संख्या दबाएँ या बोलें।",
    invalid: "क्षमा करें, यह {min} से {max} तक की संख्या नहीं थी।",
    speak: "कृपया बीप के बाद कुछ शब्दों में जवाब दें, फिर कुछ पल चुप रहें।",
    no_answer: "कोई बात नहीं, हम आगे बढ़ते हैं।",
    thanks: "आपके जवाबों के लिए धन्यवाद। ये {sender} के लिए बहुत मूल्यवान हैं। नमस्ते।",
    declined: "कोई बात नहीं, धन्यवाद। नमस्ते।",
    stopped: "ठीक है। अब आपको {sender} की ओर से सर्वेक्षण के लिए कोई कॉल नहीं आएगी। नमस्ते।",
    interrupted: "क्षमा करें, हम अभी यह कॉल जारी नहीं रख सकते। नमस्ते।",
};

static HI_INFORMAL: VoicePhrases = VoicePhrases {
    greeting: "नमस्ते, यह {sender} की ओर से {campaign} के बारे में एक छोटे-से सर्वे के लिए ऑटोमेटेड कॉल है।",
    consent: "इसमें {count} सवाल हैं, बस कुछ मिनट लगेंगे। शुरू करने के लिए 1 दबाओ या हाँ बोलो। अगर तुम्हें आगे कोई कॉल नहीं चाहिए, तो 9 दबाओ या स्टॉप बोलो।",
    recorded: "तुम्हारे बोले गए जवाब रिकॉर्ड होते हैं, और ये रिकॉर्डिंग {days} दिन बाद डिलीट कर दी जाती हैं।",
    rating: "{min} से {max} तक कोई नंबर दबाओ या बोलो।",
    invalid: "माफ़ करना, यह {min} से {max} तक का नंबर नहीं था।",
    speak: "बीप के बाद कुछ शब्दों में जवाब दो, फिर थोड़ी देर चुप रहो।",
    no_answer: "कोई बात नहीं, आगे बढ़ते हैं।",
    thanks: "तुम्हारे जवाबों के लिए शुक्रिया! ये {sender} के लिए बहुत मायने रखते हैं। नमस्ते!",
    declined: "कोई बात नहीं। नमस्ते!",
    stopped: "ठीक है। अब तुम्हें {sender} की ओर से सर्वे के लिए कोई कॉल नहीं आएगी। नमस्ते!",
    interrupted: "माफ़ करना, हम अभी ये कॉल आगे नहीं बढ़ा सकते। नमस्ते!",
};

#[cfg(test)]
mod tests {
    use super::*;

    const REGISTERS: [Register; 2] = [Register::Formal, Register::Informal];

    /// Each phrase with its name and the slots it must have.
    fn every_phrase(phrases: &VoicePhrases) -> [(&'static str, &'static str, &'static [&'static str]); 11] {
        [
            ("greeting", phrases.greeting, &["sender", "campaign"]),
            ("consent", phrases.consent, &["count"]),
            ("recorded", phrases.recorded, &["days"]),
            ("rating", phrases.rating, &["min", "max"]),
            ("invalid", phrases.invalid, &["min", "max"]),
            ("speak", phrases.speak, &[]),
            ("no_answer", phrases.no_answer, &[]),
            ("thanks", phrases.thanks, &["sender"]),
            ("declined", phrases.declined, &[]),
            ("stopped", phrases.stopped, &["sender"]),
            ("interrupted", phrases.interrupted, &[]),
        ]
    }

    #[test]
    fn every_language_and_register_says_everything_with_its_slots() {
        let slots =
            [("sender", "Acme"), ("campaign", "Delivery"), ("count", "5"), ("min", "0"), ("max", "10"), ("days", "30")];
        for language in LANGUAGES {
            for register in REGISTERS {
                let phrases = voice_phrases(language.code, register);
                for (name, text, needs) in every_phrase(phrases) {
                    let which = format!("{} {register:?} {name}", language.code);
                    assert!(!text.trim().is_empty(), "{which}");
                    for slot in needs {
                        assert!(text.contains(&format!("{{{slot}}}")), "{which} lacks {{{slot}}}");
                    }
                    // The retention is said once, and only where recording is announced.
                    assert_eq!(text.matches("{days}").count(), usize::from(name == "recorded"), "{which}: {{days}}");
                    let said = say(text, &slots);
                    assert!(!said.contains('{') && !said.contains('}'), "{which}: {said}");
                    assert!(text.chars().count() <= 200, "{which} is long to hear");
                }
            }
        }
    }

    #[test]
    fn the_consent_offers_words_the_call_understands() {
        // (language, the yes word offered, the stop word offered)
        let offered = [
            ("en", "yes", "stop"),
            ("fr", "oui", "stop"),
            ("es", "sí", "basta"),
            ("de", "Ja", "Stopp"),
            ("pt", "sim", "parar"),
            ("it", "sì", "stop"),
            ("nl", "ja", "stop"),
            ("hi", "हाँ", "स्टॉप"),
        ];
        for (language, yes, stop) in offered {
            for register in REGISTERS {
                let consent = voice_phrases(language, register).consent;
                for offer in ["1", "9", yes, stop] {
                    assert!(consent.contains(offer), "{language} {register:?}: {offer}");
                }
            }
            assert!(is_yes(language, yes) && is_yes(language, &format!("{yes}.")), "{language}");
            assert!(is_stop(language, stop) && is_stop(language, &format!("{stop}!")), "{language}");
            assert!(!is_yes(language, stop) && !is_stop(language, yes), "{language}");
        }
    }

    /// A phrase table's words, lower-cased.
    fn words_of(phrases: &VoicePhrases) -> Vec<String> {
        every_phrase(phrases)
            .iter()
            .flat_map(|(_, text, _)| text.split(|c: char| !c.is_alphanumeric()).map(str::to_lowercase))
            .collect()
    }

    #[test]
    fn each_table_keeps_to_its_register() {
        // (language, words a formal table never uses, words an informal one never uses)
        let cases: [(&str, &[&str], &[&str]); 6] = [
            (
                "fr",
                &["tu", "te", "t", "ton", "ta", "tes", "toi", "appuie", "dis"],
                &["vous", "votre", "vos", "appuyez", "dites", "veuillez"],
            ),
            ("es", &["tú", "tu", "tus", "te", "ti", "marca", "di"], &["usted", "su", "sus", "le", "marque", "diga"]),
            ("de", &["du", "dich", "dir", "dein", "deine", "deinen"], &["sie", "ihr", "ihre", "ihren", "ihnen"]),
            (
                "it",
                &["tu", "ti", "tuo", "tua", "tue", "tuoi", "premi", "rispondi"],
                &["lei", "sua", "sue", "suo", "prema", "dica", "risponda"],
            ),
            ("nl", &["je", "jij", "jou", "jouw"], &["u", "uw", "wilt"]),
            // Portuguese uses the third-person forms in both registers; "você" is the informal one.
            ("pt", &["tu", "te", "teu", "tua", "você"], &["tu", "te", "teu", "tua"]),
        ];
        for (language, not_formal, not_informal) in cases {
            let formal = words_of(voice_phrases(language, Register::Formal));
            let informal = words_of(voice_phrases(language, Register::Informal));
            for word in not_formal {
                assert!(!formal.iter().any(|w| w == word), "{language} formal: {word}");
            }
            for word in not_informal {
                assert!(!informal.iter().any(|w| w == word), "{language} informal: {word}");
            }
        }
        for language in ["fr", "es", "de", "pt", "it", "nl", "hi"] {
            let formal = voice_phrases(language, Register::Formal);
            let informal = voice_phrases(language, Register::Informal);
            assert_ne!(formal, informal, "{language}");
            assert_ne!(formal.consent, informal.consent, "{language}");
            assert_ne!(formal.recorded, informal.recorded, "{language}");
        }
        // Devanagari vowel signs are not alphanumeric, so Hindi is checked on the whole text.
        let text = |register| every_phrase(voice_phrases("hi", register)).map(|(_, text, _)| text).concat();
        let (formal, informal) = (text(Register::Formal), text(Register::Informal));
        assert!(formal.contains("आप") && !formal.contains("तुम"));
        assert!(informal.contains("तुम") && !informal.contains("आप"));
    }

    #[test]
    fn the_primary_subtag_picks_the_table_and_anything_else_is_english() {
        assert_eq!(voice_phrases("pt-BR", Register::Formal), &PT_FORMAL);
        assert_eq!(voice_phrases("FR-ca", Register::Informal), &FR_INFORMAL);
        assert_eq!(voice_phrases("hi", Register::Informal), &HI_INFORMAL);
        assert_eq!(voice_phrases("xx", Register::Formal), &EN_FORMAL);
        assert_eq!(voice_phrases("", Register::Informal), &EN_INFORMAL);
    }

    #[test]
    fn the_locale_keeps_a_supported_region_and_falls_back_to_the_language() {
        let cases = [
            ("en", "en-US"),
            ("fr", "fr-FR"),
            ("es", "es-ES"),
            ("de", "de-DE"),
            ("pt", "pt-BR"),
            ("it", "it-IT"),
            ("nl", "nl-NL"),
            ("hi", "hi-IN"),
            ("fr-CA", "fr-CA"),
            ("en-GB", "en-GB"),
            ("en-gb", "en-GB"),
            ("es-MX", "es-MX"),
            ("pt-PT", "pt-PT"),
            ("en-IN", "en-IN"),
            ("nl-BE", "nl-BE"),
            ("de-AT", "de-AT"),
            ("pt-Latn-PT", "pt-PT"),
            ("fr-SN", "fr-FR"),
            ("es-419", "es-ES"),
            ("it-CH", "it-IT"),
            ("hi-Latn", "hi-IN"),
            ("xx-GB", "en-US"),
            ("", "en-US"),
        ];
        for (tag, locale) in cases {
            assert_eq!(voice_locale(tag), locale, "{tag}");
        }
    }

    #[test]
    fn say_fills_every_slot_once_and_leaves_the_rest() {
        let slots = [("sender", "Acme"), ("campaign", "{sender} {x}")];
        assert_eq!(say("{sender}, {sender}: {campaign}", &slots), "Acme, Acme: {sender} {x}");
        assert_eq!(say("{unknown} {sender} {", &slots), "{unknown} Acme {");
        assert_eq!(say("{{sender}}", &slots), "{Acme}");
        assert_eq!(say("", &slots), "");
    }

    #[test]
    fn consent_is_read_in_the_language_and_in_english() {
        let yes = [
            ("en", "Yes."),
            ("en", "yeah sure"),
            ("en", "Okay, go ahead!"),
            ("en", "Sure, no problem."),
            ("fr", "Oui"),
            ("fr", "D’accord."),
            ("fr", "ouais bien sûr"),
            ("fr", "yes"),
            ("es", "Sí, claro."),
            ("es", "si"),
            ("es", "vale"),
            ("de", "Ja, gerne."),
            ("de", "okay"),
            ("de", "In Ordnung"),
            ("pt", "Sim"),
            ("pt", "pode ser"),
            ("pt", "Tá bom"),
            ("it", "Sì, va bene"),
            ("it", "d'accordo"),
            ("nl", "Ja hoor"),
            ("nl", "Oké"),
            ("hi", "हाँ"),
            ("hi", "हां जी"),
            ("hi", "जी"),
            ("hi", "ठीक है।"),
            ("hi", "haan ji"),
            ("hi", "yes"),
            ("xx", "yes"),
        ];
        for (language, speech) in yes {
            assert!(is_yes(language, speech), "{language}: {speech}");
        }
        let not_yes = [
            ("en", "no"),
            ("en", "No thanks."),
            ("en", "not sure"),
            ("en", "of course not"),
            ("en", "who is this?"),
            ("en", ""),
            ("fr", "non"),
            ("fr", "pas sûr"),
            ("fr", "bien sûr que non"),
            ("es", "no"),
            ("es", "claro que no"),
            ("de", "Nein, danke."),
            ("de", "natürlich nicht"),
            ("pt", "não"),
            ("it", "no grazie"),
            ("nl", "zeker niet"),
            ("nl", "ja nee"),
            ("hi", "नहीं"),
            ("hi", "जी नहीं"),
            ("hi", "nahi"),
        ];
        for (language, speech) in not_yes {
            assert!(!is_yes(language, speech), "{language}: {speech}");
        }
    }

    #[test]
    fn a_stop_is_heard_in_short_requests_only() {
        let stop = [
            ("en", "stop"),
            ("en", "STOP!"),
            ("en", "Stop calling me."),
            ("en", "Please don't call me again."),
            ("en", "unsubscribe"),
            ("fr", "Arrêtez."),
            ("fr", "arrête"),
            ("fr", "Ne m’appelez plus, s'il vous plaît."),
            ("fr", "stop"),
            ("es", "Para."),
            ("es", "Ya basta, por favor"),
            ("es", "No me llame más."),
            ("de", "Stopp"),
            ("de", "aufhören"),
            ("de", "Bitte rufen Sie mich nicht mehr an."),
            ("pt", "pare"),
            ("pt", "Quero parar"),
            ("pt", "Não me ligue mais."),
            ("it", "Basta!"),
            ("it", "stop"),
            ("it", "Non mi chiami più."),
            ("nl", "stoppen"),
            ("nl", "Bel me niet meer."),
            ("hi", "बंद करो"),
            ("hi", "रुको"),
            ("hi", "स्टॉप"),
            ("hi", "कृपया कॉल मत करो।"),
            ("hi", "stop"),
        ];
        for (language, speech) in stop {
            assert!(is_stop(language, speech), "{language}: {speech}");
        }
        let not_stop = [
            ("en", "it stopped working yesterday"),
            ("en", "I stop by the shop every week, it is fine"),
            ("en", "don't stop"),
            ("en", "yes"),
            ("en", ""),
            ("fr", "il s'est arrêté hier soir"),
            ("fr", "n'arrêtez pas"),
            ("es", "para mí un ocho"),
            ("es", "es bueno para la familia"),
            ("de", "nicht aufhören"),
            ("pt", "para mim está bom"),
            ("it", "basta così"),
            ("nl", "niet stoppen"),
            ("hi", "रुको, एक मिनट"),
            ("hi", "रुको मत"),
        ];
        for (language, speech) in not_stop {
            assert!(!is_stop(language, speech), "{language}: {speech}");
        }
    }

    #[test]
    fn a_number_is_read_from_digits_or_words_and_never_from_a_larger_one() {
        let cases = [
            ("en", "4", Some(4)),
            ("en", "10", Some(10)),
            ("en", "4.", Some(4)),
            ("en", "Four", Some(4)),
            ("en", "I'd say 7 out of 10", Some(7)),
            ("en", "zero", Some(0)),
            ("en", "ten", Some(10)),
            ("en", "eleven", None),
            ("en", "twenty one", None),
            ("en", "one hundred", None),
            ("en", "11", None),
            ("en", "4.5", None),
            ("en", "no idea", None),
            ("en", "", None),
            ("fr", "quatre", Some(4)),
            ("fr", "Je dirais un huit.", Some(8)),
            ("fr", "un", Some(1)),
            ("fr", "Zéro", Some(0)),
            ("fr", "onze", None),
            ("fr", "dix-sept", None),
            ("fr", "dix sept", None),
            ("fr", "vingt et un", None),
            ("fr", "quatre-vingts", None),
            ("es", "cuatro", Some(4)),
            ("es", "ocho de diez", Some(8)),
            ("es", "once", None),
            ("es", "dos mil", None),
            ("de", "vier", Some(4)),
            ("de", "FÜNF", Some(5)),
            ("de", "eine Sieben", Some(7)),
            ("de", "elf", None),
            ("pt", "quatro", Some(4)),
            ("pt", "uma", Some(1)),
            ("pt", "Três", Some(3)),
            ("pt", "onze", None),
            ("pt", "dezesseis", None),
            ("it", "quattro", Some(4)),
            ("it", "direi un otto", Some(8)),
            ("it", "undici", None),
            ("nl", "vier", Some(4)),
            ("nl", "een acht", Some(8)),
            ("nl", "één", Some(1)),
            ("nl", "onze score is zeven", Some(7)),
            ("nl", "elf", None),
            ("hi", "चार", Some(4)),
            ("hi", "char", Some(4)),
            ("hi", "मैं आठ दूँगा", Some(8)),
            ("hi", "पाँच", Some(5)),
            ("hi", "पांच", Some(5)),
            ("hi", "एक", Some(1)),
            ("hi", "eight", Some(8)),
            ("hi", "४", Some(4)),
            ("hi", "ग्यारह", None),
            ("hi", "दस हज़ार", None),
            ("xx", "seven", Some(7)),
        ];
        for (language, speech, number) in cases {
            assert_eq!(spoken_number(language, speech), number, "{language}: {speech}");
        }
    }
}
