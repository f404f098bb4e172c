//! The report in Dutch.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "Feedbackrapport",
    campaign: "Campagne",
    page: "Pagina {page} van {pages}",
    summary: "Samenvatting",
    about: "Over dit onderzoek",
    questions_asked: "Gestelde vragen",
    analyzers: "Analysemodellen",
    funnel: "Responstrechter",
    csat: "Tevredenheid (CSAT)",
    sentiment: "Sentiment van schriftelijke antwoorden",
    per_question: "Resultaten per vraag",
    themes: "Thema’s",
    leaves_out: "Wat dit rapport niet bevat",
    period: "Periode",
    invited: "Uitgenodigd",
    responded: "Gereageerd",
    started: "Begonnen",
    completed: "Afgerond",
    accepted: "Geaccepteerd",
    rejected: "Afgewezen",
    languages_scored: "Geanalyseerde talen",
    none_yet: "nog geen",
    anonymity_floor: "Anonimiteitsdrempel",
    floor: counted("{n} geaccepteerd antwoord", "{n} geaccepteerde antwoorden"),
    floor_applied: "toegepast: uitsplitsingen niet getoond",
    kinds: Kinds { rating: "beoordeling", text: "open antwoord" },
    colon: ": ",
    rejections: [
        (TooFast, "te snel"),
        (LowCoverage, "te weinig vragen beantwoord"),
        (TooFewWords, "te weinig woorden"),
        (OverCapacity, "boven de responslimiet"),
    ],
    of_started: "{percent} van begonnen",
    funnel_note: "Uitgenodigd en gereageerd tellen de gekoppelde doelgroep; begonnen, afgerond en geaccepteerd \
                  tellen sessies, inclusief open links.",
    no_rating: "Er is geen beoordeling van 1 tot 5 gegeven.",
    csat_share: counted(
        "{percent} van {n} beoordeling in de twee hoogste punten",
        "{percent} van de {n} beoordelingen in de twee hoogste punten",
    ),
    satisfied: "Tevreden (4 of 5)",
    other_ratings: "Overige beoordelingen",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} op basis van {n} beoordeling", "{score} op basis van {n} beoordelingen"),
    promoters: "Promotors (9 of 10)",
    passives: "Passieven (7 of 8)",
    detractors: "Criticasters (0 tot en met 6)",
    nps_note: "De score is het aandeel promotors min het aandeel criticasters, van -100 tot +100.",
    trend: "Verloop in de tijd",
    trend_accepted: "Geaccepteerde antwoorden (linkeras)",
    trend_csat: "CSAT: aandeel tevreden (rechteras)",
    trend_note: counted(
        "Elk punt omvat ten minste {n} geaccepteerd antwoord; een week met minder antwoorden wordt samengevoegd met \
         een aangrenzende week.",
        "Elk punt omvat ten minste {n} geaccepteerde antwoorden; een week met minder antwoorden wordt samengevoegd \
         met een aangrenzende week.",
    ),
    sentiments: [(Positive, "Positief"), (Neutral, "Neutraal"), (Negative, "Negatief")],
    not_scored: "Er is nog geen schriftelijk antwoord geanalyseerd: zie de geanalyseerde talen hierboven.",
    withheld: counted(
        "Niet getoond: er is minder dan {n} antwoord geaccepteerd; ter bescherming van de respondenten worden \
         geen uitsplitsingen getoond.",
        "Niet getoond: er zijn minder dan {n} antwoorden geaccepteerd; ter bescherming van de respondenten \
         worden geen uitsplitsingen getoond.",
    ),
    answers: counted("{n} antwoord", "{n} antwoorden"),
    mean: "Gemiddelde {mean} op een schaal van {min} tot {max}",
    question_themes: "Thema’s:",
    no_theme: "Er is geen thema genoemd.",
    themes_note: "Antwoorden waarin elk thema voorkomt.",
    exclusions: &[
        (
            SIGNATURES,
            "Individuele antwoordpatronen zouden een respondent herkenbaar kunnen maken; alleen geaggregeerde \
             gegevens worden geëxporteerd.",
        ),
        (
            CROSS,
            "Het koppelen van antwoorden tussen campagnes of aan app-gebruikers maakt geen deel uit van een \
             geaggregeerde export.",
        ),
        (
            INDEX,
            "De samengestelde index wordt niet berekend; de onderdelen ervan staan afzonderlijk in het gedeelte \
             “Over dit onderzoek”.",
        ),
    ],
    date: "{day} {month} {year}",
    first_day: "1",
    short_date: "{day} {month}",
    months: ["jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"],
    not_launched: "niet gestart; stand per {end}",
    statuses: ["concept, niet gestart", "lopend", "gepauzeerd", "gesloten"],
};
