//! The report in Spanish.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "Informe de la encuesta",
    campaign: "Campaña",
    page: "Página {page} de {pages}",
    summary: "Resumen",
    about: "Acerca de este estudio",
    questions_asked: "Preguntas formuladas",
    analyzers: "Modelos de análisis",
    funnel: "Embudo de respuesta",
    csat: "Satisfacción (CSAT)",
    sentiment: "Sentimiento de las respuestas escritas",
    per_question: "Resultados por pregunta",
    themes: "Temas",
    leaves_out: "Qué no incluye este informe",
    period: "Periodo",
    invited: "Invitados",
    responded: "Respondieron",
    started: "Iniciadas",
    completed: "Completadas",
    accepted: "Aceptadas",
    rejected: "Rechazadas",
    languages_scored: "Idiomas analizados",
    none_yet: "ninguno por ahora",
    anonymity_floor: "Umbral de anonimato",
    floor: counted("{n} respuesta aceptada", "{n} respuestas aceptadas"),
    floor_applied: "aplicado: no se muestran resultados desglosados",
    kinds: Kinds { rating: "valoración", text: "texto libre" },
    colon: ": ",
    rejections: [
        (TooFast, "demasiado rápida"),
        (LowCoverage, "muy pocas preguntas respondidas"),
        (TooFewWords, "muy pocas palabras"),
        (OverCapacity, "por encima del límite de respuestas"),
    ],
    of_started: "{percent} de las iniciadas",
    funnel_note: "Las cifras de invitados y de quienes respondieron se refieren a la audiencia asociada; las de \
                  encuestas iniciadas, completadas y aceptadas cuentan sesiones, incluidas las de enlaces abiertos.",
    no_rating: "No se registró ninguna valoración de 1 a 5.",
    csat_share: counted(
        "{percent} de {n} valoración en los dos puntos más altos",
        "{percent} de {n} valoraciones en los dos puntos más altos",
    ),
    satisfied: "Satisfechos (4 o 5)",
    other_ratings: "Otras valoraciones",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} a partir de {n} valoración", "{score} a partir de {n} valoraciones"),
    promoters: "Promotores (9 o 10)",
    passives: "Pasivos (7 u 8)",
    detractors: "Detractores (0 a 6)",
    nps_note: "La puntuación es el porcentaje de promotores menos el de detractores, de -100 a +100.",
    trend: "Evolución en el tiempo",
    trend_accepted: "Respuestas aceptadas (eje izquierdo)",
    trend_csat: "CSAT: porcentaje de satisfechos (eje derecho)",
    trend_note: counted(
        "Cada punto reúne al menos {n} respuesta aceptada; una semana con menos respuestas se agrupa con una semana \
         contigua.",
        "Cada punto reúne al menos {n} respuestas aceptadas; una semana con menos respuestas se agrupa con una semana \
         contigua.",
    ),
    sentiments: [(Positive, "Positivo"), (Neutral, "Neutro"), (Negative, "Negativo")],
    not_scored: "Todavía no se ha analizado ninguna respuesta escrita: consulte los idiomas analizados más arriba.",
    withheld: counted(
        "No se muestra: se aceptó menos de {n} respuesta, por lo que no se presentan resultados desglosados para \
         proteger la identidad de las personas encuestadas.",
        "No se muestra: se aceptaron menos de {n} respuestas, por lo que no se presentan resultados desglosados \
         para proteger la identidad de las personas encuestadas.",
    ),
    answers: counted("{n} respuesta", "{n} respuestas"),
    mean: "Media de {mean} en una escala de {min} a {max}",
    question_themes: "Temas:",
    no_theme: "No se mencionó ningún tema.",
    themes_note: "Respuestas que mencionan cada tema.",
    exclusions: &[
        (
            SIGNATURES,
            "Los patrones de respuesta individuales podrían identificar a una persona encuestada; solo se exportan \
             datos agregados.",
        ),
        (
            CROSS,
            "La vinculación de respuestas entre campañas o con usuarios de la aplicación no forma parte de una \
             exportación agregada.",
        ),
        (
            INDEX,
            "El índice compuesto no se calcula; sus componentes se presentan por separado en la sección «Acerca de \
             este estudio».",
        ),
    ],
    date: "{day} {month} {year}",
    first_day: "1",
    short_date: "{day} {month}",
    months: ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"],
    not_launched: "no lanzada; datos a {end}",
    statuses: ["borrador, no lanzada", "en curso", "en pausa", "cerrada"],
};
