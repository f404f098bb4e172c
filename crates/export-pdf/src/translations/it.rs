//! The report in Italian.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "Report dei risultati",
    campaign: "Campagna",
    page: "Pagina {page} di {pages}",
    summary: "Sintesi",
    about: "Informazioni sullo studio",
    questions_asked: "Domande poste",
    analyzers: "Modelli di analisi",
    funnel: "Funnel di risposta",
    csat: "Soddisfazione (CSAT)",
    sentiment: "Sentiment delle risposte scritte",
    per_question: "Risultati per domanda",
    themes: "Temi",
    leaves_out: "Cosa non include questo report",
    period: "Periodo",
    invited: "Invitati",
    responded: "Hanno risposto",
    started: "Iniziati",
    completed: "Completati",
    accepted: "Accettati",
    rejected: "Scartati",
    languages_scored: "Lingue analizzate",
    none_yet: "ancora nessuna",
    anonymity_floor: "Soglia di anonimato",
    floor: counted("{n} risposta accettata", "{n} risposte accettate"),
    floor_applied: "applicata: dati disaggregati non mostrati",
    kinds: Kinds { rating: "valutazione", text: "testo libero" },
    colon: ": ",
    rejections: [
        (TooFast, "troppo veloce"),
        (LowCoverage, "risposte a troppo poche domande"),
        (TooFewWords, "troppo poche parole"),
        (OverCapacity, "oltre il limite di risposte"),
    ],
    of_started: "{percent} degli iniziati",
    funnel_note: "I dati su invitati e su chi ha risposto si riferiscono al pubblico associato; quelli su \
                  iniziati, completati e accettati contano le sessioni, compresi i link aperti.",
    no_rating: "Non è stata espressa alcuna valutazione da 1 a 5.",
    csat_share: counted(
        "{percent} di {n} valutazione nei due punti più alti",
        "{percent} delle {n} valutazioni nei due punti più alti",
    ),
    satisfied: "Soddisfatti (4 o 5)",
    other_ratings: "Altre valutazioni",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} su {n} valutazione", "{score} su {n} valutazioni"),
    promoters: "Promotori (9 o 10)",
    passives: "Passivi (7 o 8)",
    detractors: "Detrattori (da 0 a 6)",
    nps_note: "Il punteggio è la quota di promotori meno la quota di detrattori, da -100 a +100.",
    trend: "Andamento nel tempo",
    trend_accepted: "Risposte accettate (asse sinistro)",
    trend_csat: "CSAT: quota di soddisfatti (asse destro)",
    trend_note: counted(
        "Ogni punto comprende almeno {n} risposta accettata; una settimana con meno risposte viene unita a una \
         settimana adiacente.",
        "Ogni punto comprende almeno {n} risposte accettate; una settimana con meno risposte viene unita a una \
         settimana adiacente.",
    ),
    sentiments: [(Positive, "Positivo"), (Neutral, "Neutro"), (Negative, "Negativo")],
    not_scored: "Nessuna risposta scritta è stata ancora analizzata: si vedano le lingue analizzate sopra.",
    withheld: counted(
        "Non mostrato: è stata accettata meno di {n} risposta, pertanto i dati disaggregati non vengono mostrati \
         a tutela dei rispondenti.",
        "Non mostrato: sono state accettate meno di {n} risposte, pertanto i dati disaggregati non vengono \
         mostrati a tutela dei rispondenti.",
    ),
    answers: counted("{n} risposta", "{n} risposte"),
    mean: "Media di {mean} su una scala da {min} a {max}",
    question_themes: "Temi:",
    no_theme: "Non è stato citato alcun tema.",
    themes_note: "Risposte che citano ciascun tema.",
    exclusions: &[
        (
            SIGNATURES,
            "I modelli di risposta individuali potrebbero rendere identificabile un rispondente; vengono esportati \
             solo dati aggregati.",
        ),
        (
            CROSS,
            "Il collegamento delle risposte tra campagne o con gli utenti dell’app non rientra in un’esportazione \
             aggregata.",
        ),
        (
            INDEX,
            "L’indice composito non viene calcolato; i suoi elementi sono riportati separatamente nella sezione \
             «Informazioni sullo studio».",
        ),
    ],
    date: "{day} {month} {year}",
    first_day: "1",
    short_date: "{day} {month}",
    months: ["gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"],
    not_launched: "non avviata; dati al {end}",
    statuses: ["bozza, non avviata", "raccolta in corso", "in pausa", "chiusa"],
};
