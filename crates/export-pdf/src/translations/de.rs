//! The report in German.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "Feedback-Bericht",
    campaign: "Kampagne",
    page: "Seite {page} von {pages}",
    summary: "Zusammenfassung",
    about: "Über diese Erhebung",
    questions_asked: "Gestellte Fragen",
    analyzers: "Analysemodelle",
    funnel: "Rücklauf",
    csat: "Zufriedenheit (CSAT)",
    sentiment: "Stimmung der schriftlichen Antworten",
    per_question: "Ergebnisse je Frage",
    themes: "Themen",
    leaves_out: "Was dieser Bericht nicht enthält",
    period: "Zeitraum",
    invited: "Eingeladen",
    responded: "Geantwortet",
    started: "Begonnen",
    completed: "Abgeschlossen",
    accepted: "Akzeptiert",
    rejected: "Abgelehnt",
    languages_scored: "Ausgewertete Sprachen",
    none_yet: "noch keine",
    anonymity_floor: "Anonymitätsschwelle",
    floor: counted("{n} akzeptierte Antwort", "{n} akzeptierte Antworten"),
    floor_applied: "angewendet: Aufschlüsselungen ausgeblendet",
    kinds: Kinds { rating: "Bewertung", text: "Freitext" },
    colon: ": ",
    rejections: [
        (TooFast, "zu schnell"),
        (LowCoverage, "zu wenige Fragen beantwortet"),
        (TooFewWords, "zu wenige Wörter"),
        (OverCapacity, "über dem Antwortlimit"),
    ],
    of_started: "{percent} der begonnenen",
    funnel_note: "„Eingeladen“ und „Geantwortet“ beziehen sich auf die zugeordnete Zielgruppe; „Begonnen“, \
                  „Abgeschlossen“ und „Akzeptiert“ zählen Sitzungen, einschließlich offener Links.",
    no_rating: "Es wurde keine Bewertung von 1 bis 5 abgegeben.",
    csat_share: counted(
        "{percent} von {n} Bewertung in den beiden obersten Stufen",
        "{percent} der {n} Bewertungen in den beiden obersten Stufen",
    ),
    satisfied: "Zufrieden (4 oder 5)",
    other_ratings: "Andere Bewertungen",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} aus {n} Bewertung", "{score} aus {n} Bewertungen"),
    promoters: "Promotoren (9 oder 10)",
    passives: "Passive (7 oder 8)",
    detractors: "Detraktoren (0 bis 6)",
    nps_note: "Der Wert ist der Anteil der Promotoren abzüglich des Anteils der Detraktoren, von -100 bis +100.",
    trend: "Verlauf",
    trend_accepted: "Akzeptierte Antworten (linke Achse)",
    trend_csat: "CSAT: Anteil Zufriedener (rechte Achse)",
    trend_note: counted(
        "Jeder Punkt umfasst mindestens {n} akzeptierte Antwort; eine Woche mit weniger Antworten wird mit einer \
         benachbarten Woche zusammengefasst.",
        "Jeder Punkt umfasst mindestens {n} akzeptierte Antworten; eine Woche mit weniger Antworten wird mit einer \
         benachbarten Woche zusammengefasst.",
    ),
    sentiments: [(Positive, "Positiv"), (Neutral, "Neutral"), (Negative, "Negativ")],
    not_scored: "Es wurde noch keine schriftliche Antwort ausgewertet: siehe die ausgewerteten Sprachen oben.",
    withheld: counted(
        "Ausgeblendet: Es wurde weniger als {n} Antwort akzeptiert; zum Schutz der Befragten werden keine \
         Aufschlüsselungen angezeigt.",
        "Ausgeblendet: Es wurden weniger als {n} Antworten akzeptiert; zum Schutz der Befragten werden keine \
         Aufschlüsselungen angezeigt.",
    ),
    answers: counted("{n} Antwort", "{n} Antworten"),
    mean: "Mittelwert {mean} auf einer Skala von {min} bis {max}",
    question_themes: "Themen:",
    no_theme: "Es wurde kein Thema genannt.",
    themes_note: "Antworten, in denen das jeweilige Thema vorkommt.",
    exclusions: &[
        (
            SIGNATURES,
            "Individuelle Antwortmuster könnten Befragte identifizierbar machen; exportiert werden nur aggregierte \
             Daten.",
        ),
        (
            CROSS,
            "Die Verknüpfung von Antworten über Kampagnen hinweg oder mit App-Nutzern ist nicht Teil eines \
             aggregierten Exports.",
        ),
        (
            INDEX,
            "Der zusammengesetzte Index wird nicht berechnet; seine Bestandteile sind gesondert im Abschnitt \
             „Über diese Erhebung“ aufgeführt.",
        ),
    ],
    date: "{day}. {month} {year}",
    first_day: "1",
    short_date: "{day}. {month}",
    months: ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."],
    not_launched: "nicht gestartet; Stand {end}",
    statuses: ["Entwurf, nicht gestartet", "Erhebung läuft", "pausiert", "abgeschlossen"],
};
