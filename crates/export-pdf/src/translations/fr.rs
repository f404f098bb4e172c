//! The report in French.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

// French typography: a narrow no-break space before `;`, a no-break space before `:` and inside
// guillemets.
pub(super) const WORDS: Words = Words {
    report: "Rapport d’enquête",
    campaign: "Campagne",
    page: "Page {page} sur {pages}",
    summary: "Synthèse",
    about: "À propos de cette étude",
    questions_asked: "Questions posées",
    analyzers: "Modèles d’analyse",
    funnel: "Entonnoir de réponse",
    csat: "Satisfaction (CSAT)",
    sentiment: "Sentiment des réponses écrites",
    per_question: "Résultats par question",
    themes: "Thèmes",
    leaves_out: "Ce que ce rapport ne contient pas",
    period: "Période",
    invited: "Invités",
    responded: "Répondants",
    started: "Démarrés",
    completed: "Terminés",
    accepted: "Acceptés",
    rejected: "Rejetés",
    languages_scored: "Langues analysées",
    none_yet: "aucune pour l’instant",
    anonymity_floor: "Seuil d’anonymat",
    floor: counted("{n} réponse acceptée", "{n} réponses acceptées"),
    floor_applied: "appliqué\u{a0}: détail des résultats non présenté",
    kinds: Kinds { rating: "note", text: "texte libre" },
    colon: "\u{a0}: ",
    rejections: [
        (TooFast, "trop rapide"),
        (LowCoverage, "trop peu de questions renseignées"),
        (TooFewWords, "trop peu de mots"),
        (OverCapacity, "au-delà du nombre maximal de réponses"),
    ],
    of_started: "{percent} des questionnaires démarrés",
    funnel_note: "Les invités et les répondants correspondent à l’audience rattachée\u{202f}; les questionnaires \
                  démarrés, terminés et acceptés comptent les sessions, y compris celles des liens ouverts.",
    no_rating: "Aucune note de 1 à 5 n’a été attribuée.",
    csat_share: counted(
        "{percent} de {n} note dans les deux niveaux supérieurs",
        "{percent} des {n} notes dans les deux niveaux supérieurs",
    ),
    satisfied: "Satisfaits (4 ou 5)",
    other_ratings: "Autres notes",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} sur {n} note", "{score} sur {n} notes"),
    promoters: "Promoteurs (9 ou 10)",
    passives: "Passifs (7 ou 8)",
    detractors: "Détracteurs (0 à 6)",
    nps_note: "Le score est la part de promoteurs moins la part de détracteurs, de -100 à +100.",
    trend: "Évolution dans le temps",
    trend_accepted: "Réponses acceptées (axe de gauche)",
    trend_csat: "CSAT\u{a0}: part de satisfaits (axe de droite)",
    trend_note: counted(
        "Chaque point compte au moins {n} réponse acceptée\u{202f}; une semaine qui en compte moins est regroupée \
         avec une semaine voisine.",
        "Chaque point compte au moins {n} réponses acceptées\u{202f}; une semaine qui en compte moins est regroupée \
         avec une semaine voisine.",
    ),
    sentiments: [(Positive, "Positif"), (Neutral, "Neutre"), (Negative, "Négatif")],
    not_scored: "Aucune réponse écrite n’a encore été analysée\u{a0}: voir les langues analysées ci-dessus.",
    withheld: counted(
        "Non communiqué\u{a0}: moins de {n} réponse a été acceptée\u{202f}; le détail n’est donc pas présenté \
         afin de protéger les répondants.",
        "Non communiqué\u{a0}: moins de {n} réponses ont été acceptées\u{202f}; le détail n’est donc pas présenté \
         afin de protéger les répondants.",
    ),
    answers: counted("{n} réponse", "{n} réponses"),
    mean: "Moyenne de {mean} sur une échelle de {min} à {max}",
    question_themes: "Thèmes\u{a0}:",
    no_theme: "Aucun thème n’a été mentionné.",
    themes_note: "Nombre de réponses mentionnant chaque thème.",
    exclusions: &[
        (
            SIGNATURES,
            "Les profils de réponse individuels pourraient permettre d’identifier un répondant\u{202f}; seuls des \
             agrégats sont exportés.",
        ),
        (
            CROSS,
            "Le rapprochement des réponses entre campagnes ou avec les utilisateurs de l’application ne fait pas \
             partie d’un export agrégé.",
        ),
        (
            INDEX,
            "L’indice composite n’est pas calculé\u{202f}; ses composantes figurent séparément dans la section \
             «\u{a0}À propos de cette étude\u{a0}».",
        ),
    ],
    date: "{day} {month} {year}",
    first_day: "1er",
    short_date: "{day} {month}",
    months: ["janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."],
    not_launched: "non lancée\u{202f}; état au {end}",
    statuses: ["brouillon, non lancée", "collecte en cours", "en pause", "clôturée"],
};
