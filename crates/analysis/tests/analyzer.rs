use futures_executor::block_on;
use pulse_analysis::BuiltinAnalyzer;
use pulse_domain::analysis::models::{KeyPhrase, MAX_PHRASES_PER_ANSWER};
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::campaigns::models::LanguageTag;

fn tag(text: &str) -> LanguageTag {
    LanguageTag::parse("language", text).expect("a language tag")
}

fn sentiment(text: &str, language: &str) -> Option<f64> {
    block_on(BuiltinAnalyzer::new().sentiment(text, &tag(language))).expect("no error")
}

fn phrases(text: &str, language: &str) -> Option<Vec<KeyPhrase>> {
    block_on(BuiltinAnalyzer::new().key_phrases(text, &tag(language))).expect("no error")
}

fn english_phrases(text: &str) -> Vec<KeyPhrase> {
    phrases(text, "en").expect("English is covered")
}

fn labels(phrases: &[KeyPhrase]) -> Vec<&str> {
    phrases.iter().map(|p| p.label.as_str()).collect()
}

const POSITIVE: &str = "The driver was friendly and the food arrived hot and delicious. Great service!";
const NEGATIVE: &str = "The delivery was late, the food was cold and the support was rude. Terrible.";

#[test]
fn english_sentiment_follows_the_text() {
    let positive = sentiment(POSITIVE, "en").expect("a score");
    let negative = sentiment(NEGATIVE, "en").expect("a score");
    let mixed = sentiment("The food was great but the delivery was very late.", "en-GB").expect("a score");
    assert!(positive > 0.5, "{positive}");
    assert!(negative < -0.5, "{negative}");
    assert!(negative < mixed && mixed < positive, "{negative} < {mixed} < {positive}");
    let neutral = sentiment("I ordered on Tuesday.", "en").expect("a score");
    assert!(neutral.abs() < 0.05, "{neutral}");
}

#[test]
fn negation_turns_good_negative() {
    assert!(sentiment("good", "en").expect("a score") > 0.0);
    assert!(sentiment("not good", "en").expect("a score") < 0.0);
}

#[test]
fn empty_text_is_neutral_in_every_language() {
    for language in ["en", "en-US", "fr", "hi"] {
        assert_eq!(sentiment("", language), Some(0.0), "{language}");
        assert_eq!(sentiment("  \n\t", language), Some(0.0), "{language}");
    }
}

/// Clear answers in each survey language, as a respondent would write them.
const CLEAR: [(&str, &str, &str); 9] = [
    (
        "fr",
        "Livraison rapide et livreur très aimable, je suis ravi.",
        "Commande en retard, repas froid, service client injoignable. Très déçu.",
    ),
    (
        "de",
        "Super schnelle Lieferung, das Essen war lecker und warm.",
        "Die Lieferung kam viel zu spät und das Essen war kalt. Sehr enttäuschend.",
    ),
    ("es", "Excelente servicio, el repartidor fue muy amable.", "Pésimo servicio, el pedido llegó tarde y frío."),
    ("pt", "Adorei, entrega rápida e atendimento excelente.", "Péssimo atendimento, a comida chegou fria e atrasada."),
    (
        "it",
        "Servizio ottimo, consegna veloce e cibo buonissimo.",
        "Pessimo servizio, consegna in ritardo e cibo freddo.",
    ),
    (
        "nl",
        "Heel tevreden, snelle levering en vriendelijke bezorger.",
        "Slechte service, het eten was koud en te laat.",
    ),
    ("hi", "खाना बहुत अच्छा और स्वादिष्ट था, डिलीवरी भी जल्दी हुई।", "खाना ठंडा और बेकार था, डिलीवरी बहुत देर से आई।"),
    ("hi", "khana bahut accha tha, delivery boy bhi badhiya tha", "bahut bekar service, khana thanda aur ghatiya tha"),
    ("en", "Loved it, the staff were wonderful.", "Awful experience, never again."),
];

#[test]
fn every_survey_language_is_scored_by_its_words() {
    for (language, positive, negative) in CLEAR {
        let positive = sentiment(positive, language).expect("a covered language");
        let negative = sentiment(negative, language).expect("a covered language");
        assert!(positive >= 0.05, "{language}: {positive}");
        assert!(negative <= -0.05, "{language}: {negative}");
    }
}

#[test]
fn sentiment_is_never_guessed_for_other_languages() {
    assert_eq!(sentiment("Maten var mycket god", "sv"), None);
    assert_eq!(sentiment("食べ物はおいしかった", "ja"), None);
}

#[test]
fn an_answer_is_read_in_the_language_it_is_written_in() {
    let analyzer = BuiltinAnalyzer::new();
    let german = "Die Lieferung kam viel zu spät und das Essen war leider kalt.";
    assert_eq!(analyzer.language_of(german, &tag("en")), tag("de"));
    assert_eq!(analyzer.language_of("खाना ठंडा था", &tag("fr")), tag("hi"));
    assert_eq!(analyzer.language_of("ok", &tag("pt-BR")), tag("pt-BR"));
}

#[test]
fn german_and_hindi_get_key_phrases() {
    let german = phrases("Das Essen war sehr gut", "de").expect("German is covered");
    assert_eq!(labels(&german), ["essen", "gut"]);
    let hindi = phrases("खाना बहुत अच्छा था", "hi").expect("Hindi is covered");
    assert_eq!(labels(&hindi), ["अच्छा", "खाना"]);
    assert_eq!(phrases("食べ物はおいしかった", "ja"), None);
}

#[test]
fn variants_of_a_phrase_share_its_key() {
    let key = |text: &str| {
        let phrases = english_phrases(text);
        assert_eq!(phrases.len(), 1, "{phrases:?}");
        phrases[0].key.clone()
    };
    let late_delivery = key("late delivery");
    assert_eq!(key("deliveries late"), late_delivery);
    assert_eq!(key("Late deliveries!"), late_delivery);
    assert_ne!(key("late driver"), late_delivery);

    let found = english_phrases("The delivery was late again. Late deliveries every week.");
    let phrase = found.iter().find(|p| p.key == late_delivery).expect("the late deliveries");
    assert_eq!(phrase.label, "late deliveries");
}

#[test]
fn the_longest_scoring_phrase_comes_first() {
    let found = english_phrases(POSITIVE);
    assert_eq!(labels(&found), ["food arrived hot", "great service", "delicious", "driver", "friendly"]);
}

#[test]
fn stop_words_never_make_a_phrase() {
    let stop_words = stop_words::lookup("en").expect("the English list");
    let found = english_phrases("It was not what we wanted at all, and they did not answer us when we called them.");
    assert!(!found.is_empty());
    for phrase in &found {
        assert!(phrase.label.split(' ').all(|word| !stop_words.contains(&word)), "{phrase:?}");
    }
    assert_eq!(english_phrases("It was the one they had, and then it was not."), []);
}

#[test]
fn contact_data_never_reaches_a_label() {
    let found = english_phrases(
        "Call me on +44 20 7946 0958 or mail jane.doe@example.com about the refund, see \
         https://shop.example/orders/12345 or www.example.org for order 12345.",
    );
    assert_eq!(labels(&found), ["call", "mail", "order", "refund", "see"]);
    for phrase in &found {
        let label = &phrase.label;
        assert!(!label.chars().any(|c| c.is_ascii_digit()), "{label}");
        for part in ["@", "jane", "doe", "example", "http", "www", "shop"] {
            assert!(!label.contains(part), "{label}");
        }
    }
}

#[test]
fn at_most_five_phrases_in_a_stable_order() {
    let text = "Slow checkout page. Broken coupon code. Missing napkins. Wrong sauce. Cold fries. Rude courier. \
                Late delivery. Tiny portions.";
    let analyzer = BuiltinAnalyzer::new();
    let first = block_on(analyzer.key_phrases(text, &tag("en"))).expect("no error").expect("phrases");
    assert_eq!(first.len(), MAX_PHRASES_PER_ANSWER);
    let again = block_on(BuiltinAnalyzer::new().key_phrases(text, &tag("en"))).expect("no error");
    assert_eq!(again, Some(first.clone()));
    // Equal scores are ordered by label.
    assert_eq!(
        labels(&first),
        ["broken coupon code", "slow checkout page", "cold fries", "late delivery", "missing napkins"]
    );
}

#[test]
fn empty_text_has_no_phrases() {
    assert_eq!(english_phrases(""), []);
    assert_eq!(phrases("   ", "de"), Some(vec![]));
}

#[test]
fn info_names_the_languages_covered() {
    let info = BuiltinAnalyzer::new().info();
    assert_eq!(info.sentiment.name, "pulse-sentiment");
    assert_eq!(info.sentiment.languages, ["de", "en", "es", "fr", "hi", "it", "nl", "pt"]);
    assert_eq!(info.themes.name, "rake-snowball");
    assert_eq!(info.themes.languages, ["de", "en", "es", "fr", "hi", "it", "nl", "pt"]);
    // Every language listed is served, and one not listed is not.
    for language in &info.themes.languages {
        let found = phrases("delivery", language).expect("a covered language");
        assert_eq!(found.len(), 1, "{language}");
    }
    assert_eq!(phrases("leverans", "sv"), None);
}
