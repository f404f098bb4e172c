//! The report in Portuguese.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

// Words Brazil and Portugal read alike, as the narrative's.
pub(super) const WORDS: Words = Words {
    report: "Relatório de resultados",
    campaign: "Campanha",
    page: "Página {page} de {pages}",
    summary: "Resumo",
    about: "Sobre este estudo",
    questions_asked: "Perguntas apresentadas",
    analyzers: "Modelos de análise",
    funnel: "Funil de respostas",
    csat: "Satisfação (CSAT)",
    sentiment: "Sentimento das respostas escritas",
    per_question: "Resultados por pergunta",
    themes: "Temas",
    leaves_out: "O que este relatório não inclui",
    period: "Período",
    invited: "Convidados",
    responded: "Responderam",
    started: "Iniciados",
    completed: "Concluídos",
    accepted: "Válidos",
    rejected: "Rejeitados",
    languages_scored: "Idiomas analisados",
    none_yet: "ainda nenhum",
    anonymity_floor: "Limiar de anonimato",
    floor: counted("{n} resposta válida", "{n} respostas válidas"),
    floor_applied: "aplicado: resultados detalhados não apresentados",
    kinds: Kinds { rating: "avaliação", text: "texto livre" },
    colon: ": ",
    rejections: [
        (TooFast, "muito rápido"),
        (LowCoverage, "poucas perguntas respondidas"),
        (TooFewWords, "poucas palavras"),
        (OverCapacity, "acima do limite de respostas"),
    ],
    of_started: "{percent} dos iniciados",
    funnel_note: "Os números de convidados e de quem respondeu dizem respeito ao público associado; os de \
                  iniciados, concluídos e válidos contam sessões, incluindo as de links abertos.",
    no_rating: "Não foi dada nenhuma avaliação de 1 a 5.",
    csat_share: counted(
        "{percent} de {n} avaliação nos dois pontos mais altos",
        "{percent} das {n} avaliações nos dois pontos mais altos",
    ),
    satisfied: "Satisfeitos (4 ou 5)",
    other_ratings: "Outras avaliações",
    nps: "Net Promoter Score (NPS)",
    nps_score: counted("{score} com base em {n} avaliação", "{score} com base em {n} avaliações"),
    promoters: "Promotores (9 ou 10)",
    passives: "Passivos (7 ou 8)",
    detractors: "Detratores (0 a 6)",
    nps_note: "O índice é a proporção de promotores menos a proporção de detratores, de -100 a +100.",
    trend: "Evolução ao longo do tempo",
    trend_accepted: "Respostas válidas (eixo esquerdo)",
    trend_csat: "CSAT: proporção de satisfeitos (eixo direito)",
    trend_note: counted(
        "Cada ponto reúne pelo menos {n} resposta válida; uma semana com menos respostas é agrupada com uma semana \
         vizinha.",
        "Cada ponto reúne pelo menos {n} respostas válidas; uma semana com menos respostas é agrupada com uma semana \
         vizinha.",
    ),
    sentiments: [(Positive, "Positivo"), (Neutral, "Neutro"), (Negative, "Negativo")],
    not_scored: "Nenhuma resposta escrita foi analisada ainda: consulte os idiomas analisados acima.",
    withheld: counted(
        "Não apresentado: menos de {n} resposta foi considerada válida; por isso, os resultados detalhados não \
         são apresentados, para proteger os participantes.",
        "Não apresentado: menos de {n} respostas foram consideradas válidas; por isso, os resultados detalhados \
         não são apresentados, para proteger os participantes.",
    ),
    answers: counted("{n} resposta", "{n} respostas"),
    mean: "Média de {mean} numa escala de {min} a {max}",
    question_themes: "Temas:",
    no_theme: "Nenhum tema foi mencionado.",
    themes_note: "Respostas que mencionam cada tema.",
    exclusions: &[
        (
            SIGNATURES,
            "Os padrões de resposta individuais poderiam identificar um participante; apenas são exportados dados \
             agregados.",
        ),
        (
            CROSS,
            "O cruzamento de respostas entre campanhas ou com os usuários da app não faz parte de uma exportação \
             agregada.",
        ),
        (
            INDEX,
            "O índice composto não é calculado; seus componentes são apresentados separadamente em “Sobre este \
             estudo”.",
        ),
    ],
    date: "{day} de {month} de {year}",
    first_day: "1",
    short_date: "{day} {month}",
    months: ["jan.", "fev.", "mar.", "abr.", "mai.", "jun.", "jul.", "ago.", "set.", "out.", "nov.", "dez."],
    not_launched: "não lançada; situação em {end}",
    statuses: ["rascunho, não lançada", "em curso", "em pausa", "encerrada"],
};
