//! Portuguese, in Brazilian usage (it also serves `pt-PT`). Aspects start with a possessive or `a`
//! ("nossos preços", "a qualidade dos nossos produtos"), and frames only put them after `sobre` or
//! `com`, which never contract with an article (unlike `de`, `em`, `a`). Frames avoid adjectives
//! and participles that agree with the respondent's gender. Both registers address the respondent
//! as você; the informal one speaks colloquially ("a gente", "pra").

use super::{Language, Wording};

pub(super) const PORTUGUESE: Language = Language {
    code: "pt",
    aspects: [
        "nosso serviço",
        "nossa equipe",
        "nossa rapidez",
        "nossos preços",
        "nossa comunicação",
        "a qualidade dos nossos produtos",
        "nosso suporte ao cliente",
        "nossas entregas",
        "nosso site",
        "nossa disponibilidade",
    ],
    formal: Wording {
        title: ["Pesquisa de satisfação", "Pesquisa com clientes", "Sua opinião"],
        csat: [
            "De modo geral, qual é o seu nível de satisfação com nosso serviço?",
            "De modo geral, como você avalia sua experiência conosco?",
            "Considerando tudo, que nota você nos daria?",
        ],
        ratings: [
            "Qual é a probabilidade de você nos recomendar a um amigo ou colega?",
            "Quão fácil foi conseguir o que você precisava?",
            "Como você avalia a cordialidade e o profissionalismo da nossa equipe?",
            "Como você avalia o custo-benefício da nossa oferta?",
            "Como você avalia nossa rapidez e nossa capacidade de resposta?",
            "Qual é a probabilidade de você voltar a nos escolher?",
        ],
        standalones: [
            "Qual é o principal motivo da sua nota?",
            "Se você pudesse mudar uma única coisa em nós, qual seria?",
            "O que você mais valoriza em nós?",
        ],
        closing: "Há mais alguma coisa que você gostaria de nos contar?",
        frames: [
            "Sobre {aspect}: do que você mais gostou?",
            "Sobre {aspect}: o que deveríamos melhorar?",
            "Sobre {aspect}: em que medida suas expectativas foram atendidas?",
            "Poderia descrever uma experiência recente com {aspect}?",
            "Houve algo sobre {aspect} que você achou confuso ou frustrante?",
            "Sobre {aspect}: que mudança faria a maior diferença para você?",
            "Sobre {aspect}: o que fazemos especialmente bem?",
            "Sobre {aspect}: houve algo que não correspondeu ao que você esperava?",
        ],
    },
    informal: Wording {
        title: ["Sua opinião em um minuto", "Pesquisa rápida", "O que você achou?"],
        csat: [
            "No geral, o quanto você curtiu nosso serviço?",
            "No geral, como foi sua experiência com a gente?",
            "Pensando em tudo, que nota você dá pra gente?",
        ],
        ratings: [
            "Qual a chance de você indicar a gente pra um amigo?",
            "O quanto foi fácil conseguir o que você precisava?",
            "O quanto nossa equipe foi simpática com você?",
            "Como você avalia nossos preços pelo que recebe?",
            "O quanto a gente foi rápido pra te responder?",
            "Qual a chance de você escolher a gente de novo?",
        ],
        standalones: [
            "Qual o principal motivo da sua nota?",
            "Se você pudesse mudar uma coisa na gente, o que seria?",
            "O que você mais curte na gente?",
        ],
        closing: "Quer contar mais alguma coisa pra gente?",
        frames: [
            "Sobre {aspect}: o que você mais curtiu?",
            "Sobre {aspect}: o que a gente pode fazer melhor?",
            "Sobre {aspect}: foi do jeito que você esperava?",
            "Conta pra gente como foi sua última experiência com {aspect}.",
            "Teve alguma coisa sobre {aspect} que foi confusa ou chata?",
            "Se você pudesse mudar uma coisa sobre {aspect}, o que seria?",
            "Sobre {aspect}: o que a gente faz muito bem?",
            "Sobre {aspect}: teve algo que te decepcionou?",
        ],
    },
};
