//! The export's narrative: a few sentences written from the numbers alone, in the report's
//! language. Every language's sentences are here, as data; `{name}` marks what is filled in. The
//! survey is named as the invitations name it (questionnaire, encuesta, Umfrage, vragenlijst…).

use crate::exports::models::{Plural, ReportLanguage, fill};
use crate::results::models::{Csat, Nps, SentimentLabel, ThemeCount};

/// What the narrative is written from: never a theme a person could be read from below the
/// floor, never a word of an answer.
pub(crate) struct Facts<'a> {
    pub started: u64,
    pub completed: u64,
    pub accepted: u64,
    /// The anonymity floor, when it applies.
    pub withheld_below: Option<u32>,
    pub csat: Option<Csat>,
    pub nps: Option<Nps>,
    pub dominant_sentiment: Option<SentimentLabel>,
    pub top_theme: Option<&'a ThemeCount>,
    pub negative_themes: &'a [String],
}

/// One language's sentences.
struct Phrases {
    /// `{started}`, `{completed}` and `{accepted}` are the three clauses below.
    funnel: &'static str,
    started: Plural,
    completed: Plural,
    accepted: Plural,
    /// `{n}` is the anonymity floor.
    withheld: Plural,
    /// `{percent}` of `{n}` ratings were in the top two points.
    csat: Plural,
    /// The Net Promoter Score `{score}`, signed, from `{n}` ratings, with `{promoters}` and
    /// `{detractors}` as counts (named with a colon, so they need no agreement of their own).
    nps: Plural,
    /// `{label}` is one of `labels` (positive, neutral, negative).
    sentiment: &'static str,
    labels: [&'static str; 3],
    /// `{theme}`, within `quotes`, was mentioned in `{n}` responses.
    top_theme: Plural,
    quotes: [&'static str; 2],
    /// `{themes}`, separated by commas.
    negative_themes: &'static str,
}

const fn plural(one: &'static str, other: &'static str) -> Plural {
    Plural { one, other }
}

const ENGLISH: Phrases = Phrases {
    funnel: "{started} and {completed}; {accepted}.",
    started: plural("{n} person started the survey", "{n} people started the survey"),
    completed: plural("{n} completed it", "{n} completed it"),
    accepted: plural("{n} response was accepted", "{n} responses were accepted"),
    withheld: plural(
        "Fewer than {n} response was accepted, so breakdowns are withheld to protect respondents.",
        "Fewer than {n} responses were accepted, so breakdowns are withheld to protect respondents.",
    ),
    csat: plural(
        "{percent} of {n} rating was in the top two points of the scale.",
        "{percent} of {n} ratings were in the top two points of the scale.",
    ),
    nps: plural(
        "The Net Promoter Score is {score}, from {n} rating (promoters: {promoters}, detractors: {detractors}).",
        "The Net Promoter Score is {score}, from {n} ratings (promoters: {promoters}, detractors: {detractors}).",
    ),
    sentiment: "The prevailing sentiment of written answers was {label}.",
    labels: ["positive", "neutral", "negative"],
    top_theme: plural(
        "The most mentioned theme was {theme}, in {n} response.",
        "The most mentioned theme was {theme}, in {n} responses.",
    ),
    quotes: ["\"", "\""],
    negative_themes: "Themes leaning negative: {themes}.",
};

// French typography: a narrow no-break space before `;`, a no-break space before `:` and inside
// guillemets.
const FRENCH: Phrases = Phrases {
    funnel: "{started} et {completed}\u{202f}; {accepted}.",
    started: plural("{n} personne a commencé le questionnaire", "{n} personnes ont commencé le questionnaire"),
    completed: plural("{n} l’a terminé", "{n} l’ont terminé"),
    accepted: plural("{n} réponse a été acceptée", "{n} réponses ont été acceptées"),
    withheld: plural(
        "Moins de {n} réponse a été acceptée\u{202f}; par conséquent, le détail des résultats n’est pas présenté \
         afin de protéger l’anonymat des répondants.",
        "Moins de {n} réponses ont été acceptées\u{202f}; par conséquent, le détail des résultats n’est pas \
         présenté afin de protéger l’anonymat des répondants.",
    ),
    csat: plural(
        "Sur {n} note attribuée, {percent} se situe dans les deux niveaux supérieurs de l’échelle.",
        "Sur {n} notes attribuées, {percent} se situent dans les deux niveaux supérieurs de l’échelle.",
    ),
    nps: plural(
        "Le Net Promoter Score (NPS) est de {score}, sur {n} note attribuée (promoteurs\u{a0}: {promoters}, \
         détracteurs\u{a0}: {detractors}).",
        "Le Net Promoter Score (NPS) est de {score}, sur {n} notes attribuées (promoteurs\u{a0}: {promoters}, \
         détracteurs\u{a0}: {detractors}).",
    ),
    sentiment: "Le sentiment dominant des réponses écrites est {label}.",
    labels: ["positif", "neutre", "négatif"],
    top_theme: plural(
        "Le thème le plus cité est {theme}, mentionné dans {n} réponse.",
        "Le thème le plus cité est {theme}, mentionné dans {n} réponses.",
    ),
    quotes: ["«\u{a0}", "\u{a0}»"],
    negative_themes: "Thèmes à tonalité plutôt négative\u{a0}: {themes}.",
};

const SPANISH: Phrases = Phrases {
    funnel: "{started} y {completed}; {accepted}.",
    started: plural("{n} persona comenzó la encuesta", "{n} personas comenzaron la encuesta"),
    completed: plural("{n} la completó", "{n} la completaron"),
    accepted: plural("se aceptó {n} respuesta", "se aceptaron {n} respuestas"),
    withheld: plural(
        "Se aceptó menos de {n} respuesta, por lo que no se muestran los resultados desglosados para proteger \
         la identidad de las personas encuestadas.",
        "Se aceptaron menos de {n} respuestas, por lo que no se muestran los resultados desglosados para \
         proteger la identidad de las personas encuestadas.",
    ),
    csat: plural(
        "El {percent} de {n} valoración se situó en los dos puntos más altos de la escala.",
        "El {percent} de las {n} valoraciones se situó en los dos puntos más altos de la escala.",
    ),
    nps: plural(
        "El Net Promoter Score (NPS) es de {score}, a partir de {n} valoración (promotores: {promoters}, \
         detractores: {detractors}).",
        "El Net Promoter Score (NPS) es de {score}, a partir de {n} valoraciones (promotores: {promoters}, \
         detractores: {detractors}).",
    ),
    sentiment: "El sentimiento predominante en las respuestas escritas fue {label}.",
    labels: ["positivo", "neutro", "negativo"],
    top_theme: plural(
        "El tema más mencionado fue {theme}, presente en {n} respuesta.",
        "El tema más mencionado fue {theme}, presente en {n} respuestas.",
    ),
    quotes: ["«", "»"],
    negative_themes: "Temas con tendencia negativa: {themes}.",
};

const GERMAN: Phrases = Phrases {
    funnel: "{started} und {completed}; {accepted}.",
    started: plural("{n} Person hat die Umfrage begonnen", "{n} Personen haben die Umfrage begonnen"),
    completed: plural("{n} hat sie abgeschlossen", "{n} haben sie abgeschlossen"),
    accepted: plural("{n} Antwort wurde akzeptiert", "{n} Antworten wurden akzeptiert"),
    withheld: plural(
        "Es wurde weniger als {n} Antwort akzeptiert; zum Schutz der Befragten werden daher keine \
         Aufschlüsselungen angezeigt.",
        "Es wurden weniger als {n} Antworten akzeptiert; zum Schutz der Befragten werden daher keine \
         Aufschlüsselungen angezeigt.",
    ),
    csat: plural(
        "{percent} von {n} Bewertung lag in den beiden obersten Stufen der Skala.",
        "{percent} der {n} Bewertungen lagen in den beiden obersten Stufen der Skala.",
    ),
    nps: plural(
        "Der Net Promoter Score (NPS) liegt bei {score}, auf Grundlage von {n} Bewertung (Promotoren: {promoters}, \
         Detraktoren: {detractors}).",
        "Der Net Promoter Score (NPS) liegt bei {score}, auf Grundlage von {n} Bewertungen (Promotoren: \
         {promoters}, Detraktoren: {detractors}).",
    ),
    sentiment: "Die vorherrschende Stimmung in den schriftlichen Antworten war {label}.",
    labels: ["positiv", "neutral", "negativ"],
    top_theme: plural(
        "Das am häufigsten genannte Thema war {theme}; es kam in {n} Antwort vor.",
        "Das am häufigsten genannte Thema war {theme}; es kam in {n} Antworten vor.",
    ),
    quotes: ["„", "“"],
    negative_themes: "Themen mit eher negativer Tendenz: {themes}.",
};

// Words both Brazil and Portugal read alike: "questionário", "participantes", no clitic pronouns.
const PORTUGUESE: Phrases = Phrases {
    funnel: "{started} e {completed}; {accepted}.",
    started: plural("{n} pessoa iniciou o questionário", "{n} pessoas iniciaram o questionário"),
    completed: plural("{n} concluiu", "{n} concluíram"),
    accepted: plural("{n} resposta foi considerada válida", "{n} respostas foram consideradas válidas"),
    withheld: plural(
        "Menos de {n} resposta foi considerada válida; por isso, os resultados detalhados não são apresentados, \
         para proteger o anonimato dos participantes.",
        "Menos de {n} respostas foram consideradas válidas; por isso, os resultados detalhados não são \
         apresentados, para proteger o anonimato dos participantes.",
    ),
    csat: plural(
        "{percent} de {n} avaliação ficou nos dois pontos mais altos da escala.",
        "{percent} das {n} avaliações ficaram nos dois pontos mais altos da escala.",
    ),
    nps: plural(
        "O Net Promoter Score (NPS) é de {score}, com base em {n} avaliação (promotores: {promoters}, \
         detratores: {detractors}).",
        "O Net Promoter Score (NPS) é de {score}, com base em {n} avaliações (promotores: {promoters}, \
         detratores: {detractors}).",
    ),
    sentiment: "O sentimento predominante nas respostas escritas foi {label}.",
    labels: ["positivo", "neutro", "negativo"],
    top_theme: plural(
        "O tema mais mencionado foi {theme}, presente em {n} resposta.",
        "O tema mais mencionado foi {theme}, presente em {n} respostas.",
    ),
    quotes: ["“", "”"],
    negative_themes: "Temas com tendência negativa: {themes}.",
};

// The CSAT sentence avoids an article before the percentage, which Italian elides by how the
// number is read ("il 71%", "l'80%").
const ITALIAN: Phrases = Phrases {
    funnel: "{started} e {completed}; {accepted}.",
    started: plural("{n} persona ha iniziato il questionario", "{n} persone hanno iniziato il questionario"),
    completed: plural("{n} lo ha completato", "{n} lo hanno completato"),
    accepted: plural("{n} risposta è stata accettata", "{n} risposte sono state accettate"),
    withheld: plural(
        "È stata accettata meno di {n} risposta, pertanto i dati disaggregati non vengono mostrati a tutela \
         dei rispondenti.",
        "Sono state accettate meno di {n} risposte, pertanto i dati disaggregati non vengono mostrati a tutela \
         dei rispondenti.",
    ),
    csat: plural(
        "Valutazioni nei due punti più alti della scala: {percent} su un totale di {n}.",
        "Valutazioni nei due punti più alti della scala: {percent} su un totale di {n}.",
    ),
    nps: plural(
        "Il Net Promoter Score (NPS) è pari a {score}, calcolato su {n} valutazione (promotori: {promoters}, \
         detrattori: {detractors}).",
        "Il Net Promoter Score (NPS) è pari a {score}, calcolato su {n} valutazioni (promotori: {promoters}, \
         detrattori: {detractors}).",
    ),
    sentiment: "Il sentiment prevalente nelle risposte scritte è stato {label}.",
    labels: ["positivo", "neutro", "negativo"],
    top_theme: plural(
        "Il tema più citato è stato {theme}, presente in {n} risposta.",
        "Il tema più citato è stato {theme}, presente in {n} risposte.",
    ),
    quotes: ["«", "»"],
    negative_themes: "Temi con tendenza negativa: {themes}.",
};

const DUTCH: Phrases = Phrases {
    funnel: "{started} en {completed}; {accepted}.",
    started: plural("{n} persoon is aan de vragenlijst begonnen", "{n} personen zijn aan de vragenlijst begonnen"),
    completed: plural("{n} heeft deze afgerond", "{n} hebben deze afgerond"),
    accepted: plural("{n} antwoord is geaccepteerd", "{n} antwoorden zijn geaccepteerd"),
    withheld: plural(
        "Er is minder dan {n} antwoord geaccepteerd; ter bescherming van de respondenten worden daarom geen \
         uitsplitsingen getoond.",
        "Er zijn minder dan {n} antwoorden geaccepteerd; ter bescherming van de respondenten worden daarom geen \
         uitsplitsingen getoond.",
    ),
    csat: plural(
        "{percent} van {n} beoordeling lag in de twee hoogste punten van de schaal.",
        "{percent} van de {n} beoordelingen lag in de twee hoogste punten van de schaal.",
    ),
    nps: plural(
        "De Net Promoter Score (NPS) is {score}, op basis van {n} beoordeling (promotors: {promoters}, \
         criticasters: {detractors}).",
        "De Net Promoter Score (NPS) is {score}, op basis van {n} beoordelingen (promotors: {promoters}, \
         criticasters: {detractors}).",
    ),
    sentiment: "Het overheersende sentiment in de schriftelijke antwoorden was {label}.",
    labels: ["positief", "neutraal", "negatief"],
    top_theme: plural(
        "Het vaakst genoemde thema was {theme}, dat in {n} antwoord voorkwam.",
        "Het vaakst genoemde thema was {theme}, dat in {n} antwoorden voorkwam.",
    ),
    quotes: ["“", "”"],
    negative_themes: "Thema’s met een negatieve tendens: {themes}.",
};

const HINDI: Phrases = Phrases {
    funnel: "{started} और {completed}; {accepted}।",
    started: plural("{n} व्यक्ति ने सर्वेक्षण शुरू किया", "{n} लोगों ने सर्वेक्षण शुरू किया"),
    completed: plural("{n} ने इसे पूरा किया", "{n} ने इसे पूरा किया"),
    accepted: plural("{n} प्रतिक्रिया स्वीकार की गई", "{n} प्रतिक्रियाएँ स्वीकार की गईं"),
    withheld: plural(
        "{n} से कम प्रतिक्रिया स्वीकार की गई, इसलिए उत्तरदाताओं की गोपनीयता की रक्षा के लिए विस्तृत आँकड़े नहीं \
         दिखाए गए हैं।",
        "{n} से कम प्रतिक्रियाएँ स्वीकार की गईं, इसलिए उत्तरदाताओं की गोपनीयता की रक्षा के लिए विस्तृत आँकड़े \
         नहीं दिखाए गए हैं।",
    ),
    csat: plural(
        "{n} रेटिंग में से {percent} पैमाने के दो उच्चतम अंकों में रही।",
        "{n} रेटिंगों में से {percent} पैमाने के दो उच्चतम अंकों में रहीं।",
    ),
    nps: plural(
        "नेट प्रमोटर स्कोर (NPS) {score} है, जो {n} रेटिंग पर आधारित है (प्रमोटर: {promoters}, डिट्रैक्टर: \
         {detractors})।",
        "नेट प्रमोटर स्कोर (NPS) {score} है, जो {n} रेटिंगों पर आधारित है (प्रमोटर: {promoters}, डिट्रैक्टर: \
         {detractors})।",
    ),
    sentiment: "लिखित उत्तरों में प्रमुख भावना {label} रही।",
    labels: ["सकारात्मक", "तटस्थ", "नकारात्मक"],
    top_theme: plural(
        "सबसे अधिक उल्लिखित विषय {theme} रहा, जिसका उल्लेख {n} प्रतिक्रिया में हुआ।",
        "सबसे अधिक उल्लिखित विषय {theme} रहा, जिसका उल्लेख {n} प्रतिक्रियाओं में हुआ।",
    ),
    quotes: ["“", "”"],
    negative_themes: "नकारात्मक झुकाव वाले विषय: {themes}।",
};

const fn phrases(language: ReportLanguage) -> &'static Phrases {
    match language {
        ReportLanguage::English => &ENGLISH,
        ReportLanguage::French => &FRENCH,
        ReportLanguage::Spanish => &SPANISH,
        ReportLanguage::German => &GERMAN,
        ReportLanguage::Portuguese => &PORTUGUESE,
        ReportLanguage::Italian => &ITALIAN,
        ReportLanguage::Dutch => &DUTCH,
        ReportLanguage::Hindi => &HINDI,
    }
}

/// The narrative of `facts` in `language`.
pub(crate) fn narrative(facts: &Facts<'_>, language: ReportLanguage) -> Vec<String> {
    let phrases = phrases(language);
    let clause = |forms: &Plural, n: u64| language.counted(forms, n, &[]);
    let mut lines = vec![fill(
        phrases.funnel,
        &[
            ("started", &clause(&phrases.started, facts.started)),
            ("completed", &clause(&phrases.completed, facts.completed)),
            ("accepted", &clause(&phrases.accepted, facts.accepted)),
        ],
    )];
    if let Some(floor) = facts.withheld_below {
        lines.push(clause(&phrases.withheld, u64::from(floor)));
        return lines;
    }
    if let Some(csat) = &facts.csat {
        lines.push(language.counted(&phrases.csat, csat.rated, &[("percent", &language.percent(csat.score))]));
    }
    if let Some(nps) = &facts.nps {
        let values = [
            ("score", signed(nps.score)),
            ("promoters", language.count(nps.promoters)),
            ("detractors", language.count(nps.detractors)),
        ];
        let values: Vec<(&str, &str)> = values.iter().map(|(name, value)| (*name, value.as_str())).collect();
        lines.push(language.counted(&phrases.nps, nps.rated, &values));
    }
    if let Some(dominant) = facts.dominant_sentiment {
        let [positive, neutral, negative] = phrases.labels;
        let label = match dominant {
            SentimentLabel::Positive => positive,
            SentimentLabel::Neutral => neutral,
            SentimentLabel::Negative => negative,
        };
        lines.push(fill(phrases.sentiment, &[("label", label)]));
    }
    if let Some(top) = facts.top_theme {
        let [open, close] = phrases.quotes;
        let theme = format!("{open}{}{close}", top.theme);
        lines.push(language.counted(&phrases.top_theme, top.count, &[("theme", &theme)]));
    }
    if !facts.negative_themes.is_empty() {
        lines.push(fill(phrases.negative_themes, &[("themes", &facts.negative_themes.join(", "))]));
    }
    lines
}

/// A Net Promoter Score as partners write it: `+8`, `0`, `-20`.
fn signed(score: i64) -> String {
    if score > 0 { format!("+{score}") } else { score.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaigns::models::LanguageTag;

    /// Words of the English sentences that no other language's sentences use.
    const ENGLISH_WORDS: [&str; 9] =
        ["the", "people", "survey", "were", "responses", "ratings", "prevailing", "fewer", "completed"];

    fn facts<'a>(top: &'a ThemeCount, negative: &'a [String]) -> Facts<'a> {
        Facts {
            started: 1_234,
            completed: 1_048,
            accepted: 1,
            withheld_below: None,
            csat: Some(Csat { score: 0.714, satisfied: 30, rated: 42 }),
            nps: Some(Nps { score: 8, promoters: 5, passives: 3, detractors: 4, rated: 12 }),
            dominant_sentiment: Some(SentimentLabel::Positive),
            top_theme: Some(top),
            negative_themes: negative,
        }
    }

    fn written(language: ReportLanguage) -> Vec<String> {
        let top = ThemeCount { theme: "late delivery {n}".into(), count: 11 };
        let negative = ["late delivery".to_owned(), "price".to_owned()];
        narrative(&facts(&top, &negative), language)
    }

    fn words(lines: &[String]) -> Vec<String> {
        lines.join(" ").split(|c: char| !c.is_alphabetic()).map(str::to_lowercase).collect()
    }

    /// One sentence per fact in `language`, holding `known` and no word of the English sentences,
    /// with its numbers and the theme filled in.
    fn assert_written_in(language: ReportLanguage, known: &str, count: &str) {
        let lines = written(language);
        assert_eq!(lines.len(), 6, "{lines:#?}");
        assert!(lines[0].contains(known), "{language:?}: {lines:#?}");
        let english: Vec<String> = words(&lines).into_iter().filter(|w| ENGLISH_WORDS.contains(&w.as_str())).collect();
        assert!(english.is_empty(), "{language:?} has English words {english:?}: {lines:#?}");
        assert!(lines[0].contains(count), "{language:?} groups the count as {count:?}: {lines:#?}");
        assert!(lines[2].contains("NPS") && lines[2].contains("+8"), "{language:?} gives the NPS: {lines:#?}");
        assert!(lines[4].contains("late delivery {n}"), "the theme is quoted as written: {lines:#?}");
        assert!(lines.iter().all(|l| !l.contains("{") || l.contains("{n}")), "every placeholder is filled");
    }

    #[test]
    fn every_sentence_holds_the_placeholders_it_is_filled_with() {
        for language in ReportLanguage::ALL {
            let p = phrases(language);
            let both = |forms: Plural| [forms.one, forms.other];
            let sentences: [(&[&str], &[&str]); 10] = [
                (&[p.funnel], &["{started}", "{completed}", "{accepted}"]),
                (&both(p.started), &["{n}"]),
                (&both(p.completed), &["{n}"]),
                (&both(p.accepted), &["{n}"]),
                (&both(p.withheld), &["{n}"]),
                (&both(p.csat), &["{n}", "{percent}"]),
                (&both(p.nps), &["{n}", "{score}", "{promoters}", "{detractors}"]),
                (&[p.sentiment], &["{label}"]),
                (&both(p.top_theme), &["{n}", "{theme}"]),
                (&[p.negative_themes], &["{themes}"]),
            ];
            for (texts, placeholders) in sentences {
                for text in texts {
                    for placeholder in placeholders {
                        assert_eq!(text.matches(placeholder).count(), 1, "{language:?}: {placeholder} in {text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn english_reads_as_before_with_grouped_counts_and_singular_forms() {
        assert_eq!(
            written(ReportLanguage::English),
            [
                "1,234 people started the survey and 1,048 completed it; 1 response was accepted.",
                "71% of 42 ratings were in the top two points of the scale.",
                "The Net Promoter Score is +8, from 12 ratings (promoters: 5, detractors: 4).",
                "The prevailing sentiment of written answers was positive.",
                "The most mentioned theme was \"late delivery {n}\", in 11 responses.",
                "Themes leaning negative: late delivery, price.",
            ]
        );
    }

    #[test]
    fn french_is_written_in_french() {
        assert_written_in(ReportLanguage::French, "questionnaire", "1\u{202f}234");
        let lines = written(ReportLanguage::French);
        assert!(lines[0].ends_with("1 réponse a été acceptée."), "singular: {lines:#?}");
        assert!(lines[1].contains("71\u{202f}%"), "{lines:#?}");
        assert!(
            lines[2].starts_with("Le Net Promoter Score (NPS) est de +8, sur 12 notes attribuées (promoteurs\u{a0}: 5"),
            "{lines:#?}"
        );
        assert!(lines[4].contains("«\u{a0}late delivery {n}\u{a0}»"), "{lines:#?}");
    }

    #[test]
    fn spanish_is_written_in_spanish() {
        assert_written_in(ReportLanguage::Spanish, "encuesta", "1234");
        assert!(written(ReportLanguage::Spanish)[0].ends_with("se aceptó 1 respuesta."));
    }

    #[test]
    fn german_is_written_in_german() {
        assert_written_in(ReportLanguage::German, "Umfrage", "1.234");
        let lines = written(ReportLanguage::German);
        assert!(lines[1].starts_with("71\u{a0}% der 42 Bewertungen"), "{lines:#?}");
        assert!(lines[2].starts_with("Der Net Promoter Score (NPS) liegt bei +8"), "{lines:#?}");
        assert!(lines[4].contains("„late delivery {n}“"), "{lines:#?}");
    }

    #[test]
    fn portuguese_is_written_in_portuguese() {
        assert_written_in(ReportLanguage::Portuguese, "questionário", "1.234");
    }

    #[test]
    fn italian_is_written_in_italian() {
        assert_written_in(ReportLanguage::Italian, "questionario", "1.234");
    }

    #[test]
    fn dutch_is_written_in_dutch() {
        assert_written_in(ReportLanguage::Dutch, "vragenlijst", "1.234");
        assert!(written(ReportLanguage::Dutch)[0].contains("personen zijn"));
    }

    #[test]
    fn hindi_is_written_in_hindi() {
        assert_written_in(ReportLanguage::Hindi, "सर्वेक्षण", "1,234");
        let lines = written(ReportLanguage::Hindi);
        assert!(lines.iter().all(|l| l.ends_with('।')), "{lines:#?}");
        assert!(lines[0].contains("1 प्रतिक्रिया स्वीकार की गई"), "singular: {lines:#?}");
    }

    #[test]
    fn an_unknown_language_is_written_in_english() {
        let swedish = LanguageTag::parse("language", "sv-SE").expect("a tag");
        assert_eq!(written(ReportLanguage::of(&swedish)), written(ReportLanguage::English));
    }

    #[test]
    fn below_the_floor_every_language_says_only_the_counts_and_why() {
        for language in ReportLanguage::ALL {
            let top = ThemeCount { theme: "secret".into(), count: 2 };
            let facts = Facts { withheld_below: Some(5), ..facts(&top, &[]) };
            let lines = narrative(&facts, language);
            assert_eq!(lines.len(), 2, "{language:?}: {lines:#?}");
            assert!(lines[1].contains('5') && !lines.join(" ").contains("secret"), "{language:?}: {lines:#?}");
            assert!(!lines.join(" ").contains("+8"), "no NPS below the floor: {lines:#?}");
        }
    }

    #[test]
    fn the_nps_is_written_with_its_sign_and_agrees_with_its_count() {
        let top = ThemeCount { theme: "delivery".into(), count: 3 };
        let nps_line = |score, promoters, detractors, rated| {
            let nps = Nps { score, promoters, passives: rated - promoters - detractors, detractors, rated };
            let lines = narrative(&Facts { nps: Some(nps), ..facts(&top, &[]) }, ReportLanguage::English);
            lines[2].clone()
        };
        assert_eq!(
            nps_line(-20, 2, 4, 10),
            "The Net Promoter Score is -20, from 10 ratings (promoters: 2, detractors: 4)."
        );
        assert_eq!(nps_line(0, 3, 3, 9), "The Net Promoter Score is 0, from 9 ratings (promoters: 3, detractors: 3).");
        assert_eq!(
            nps_line(100, 1, 0, 1),
            "The Net Promoter Score is +100, from 1 rating (promoters: 1, detractors: 0)."
        );
        let large = Facts {
            nps: Some(Nps { score: 8, promoters: 5_000, passives: 3, detractors: 4_000, rated: 9_003 }),
            ..facts(&top, &[])
        };
        let french = narrative(&large, ReportLanguage::French);
        assert!(french[2].contains("sur 9\u{202f}003 notes attribuées (promoteurs\u{a0}: 5\u{202f}000"), "{french:#?}");
        let without = narrative(&Facts { nps: None, ..large }, ReportLanguage::English);
        assert!(without.iter().all(|l| !l.contains("Net Promoter")), "{without:#?}");
    }
}
