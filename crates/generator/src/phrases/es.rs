//! Spanish. Aspects start with a possessive or `la` ("nuestros precios", "la calidad de nuestros
//! productos"), so `de`/`a` never contract with them (no `del`/`al`), and frames take them after a
//! preposition, never as a subject that a verb must agree with in number. Frames avoid adjectives
//! that agree with the respondent's gender. Formal uses usted, informal uses tú.

use super::{Language, Wording};

pub(super) const SPANISH: Language = Language {
    code: "es",
    aspects: [
        "nuestro servicio",
        "nuestro personal",
        "nuestra rapidez de respuesta",
        "nuestros precios",
        "nuestra comunicación",
        "la calidad de nuestros productos",
        "nuestra atención al cliente",
        "nuestras entregas",
        "nuestro sitio web",
        "nuestra disponibilidad",
    ],
    formal: Wording {
        title: ["Encuesta de satisfacción", "Encuesta para clientes", "Su opinión"],
        csat: [
            "En general, ¿cuál es su grado de satisfacción con nuestro servicio?",
            "En general, ¿cómo valoraría su experiencia con nosotros?",
            "Considerándolo todo, ¿qué puntuación nos daría?",
        ],
        ratings: [
            "¿Qué probabilidad hay de que nos recomiende a un amigo o colega?",
            "¿En qué medida le resultó fácil conseguir lo que necesitaba?",
            "¿Cómo valoraría la amabilidad y la profesionalidad de nuestro personal?",
            "¿Cómo valoraría la relación calidad-precio de nuestra oferta?",
            "¿Cómo valoraría nuestra rapidez y nuestra capacidad de respuesta?",
            "¿Qué probabilidad hay de que vuelva a elegirnos?",
        ],
        standalones: [
            "¿Cuál es el motivo principal de su puntuación?",
            "Si pudiera cambiar una sola cosa de nosotros, ¿cuál sería?",
            "¿Qué es lo que más aprecia de nosotros?",
        ],
        closing: "¿Hay algo más que le gustaría contarnos?",
        frames: [
            "¿Qué es lo que más le gustó de {aspect}?",
            "¿Qué deberíamos mejorar en {aspect}?",
            "Sobre {aspect}, ¿en qué medida se cumplieron sus expectativas?",
            "¿Podría describir una experiencia reciente con {aspect}?",
            "¿Hubo algo de {aspect} que le resultara confuso o frustrante?",
            "¿Qué cambio en {aspect} marcaría la mayor diferencia para usted?",
            "¿Qué hacemos especialmente bien en cuanto a {aspect}?",
            "Sobre {aspect}, ¿hubo algo que le decepcionara?",
        ],
    },
    informal: Wording {
        title: ["Tu opinión en un minuto", "Encuesta rápida", "¿Qué te pareció?"],
        csat: [
            "En general, ¿cuál es tu grado de satisfacción con nuestro servicio?",
            "En general, ¿cómo valorarías tu experiencia con nosotros?",
            "Considerándolo todo, ¿qué nota nos pondrías?",
        ],
        ratings: [
            "¿Qué probabilidad hay de que nos recomiendes a un amigo?",
            "¿En qué medida te resultó fácil conseguir lo que necesitabas?",
            "¿Qué tal te trató nuestro equipo?",
            "¿Cómo valoras nuestros precios para lo que recibes?",
            "¿Qué tal nuestra rapidez para responderte?",
            "¿Qué probabilidad hay de que vuelvas a elegirnos?",
        ],
        standalones: [
            "¿Cuál es el motivo principal de tu puntuación?",
            "Si pudieras cambiar una sola cosa de nosotros, ¿cuál sería?",
            "¿Qué es lo que más te gusta de nosotros?",
        ],
        closing: "¿Algo más que quieras contarnos?",
        frames: [
            "¿Qué es lo que más te gustó de {aspect}?",
            "¿Qué podríamos hacer mejor en {aspect}?",
            "Sobre {aspect}, ¿se cumplió lo que esperabas?",
            "¿Nos cuentas alguna experiencia reciente con {aspect}?",
            "¿Hubo algo de {aspect} que te pareciera confuso o molesto?",
            "Si pudieras cambiar una sola cosa de {aspect}, ¿cuál sería?",
            "¿Qué hacemos realmente bien en cuanto a {aspect}?",
            "Sobre {aspect}, ¿hubo algo que te decepcionara?",
        ],
    },
};
