//! Italian. Aspects carry their article ("i nostri prezzi", "le nostre consegne"), so frames only
//! take them as the object of `per quanto riguarda` or after `con`, which never merge with the
//! article (unlike `di`, `a`, `su`, `in`). Frames avoid participles that agree with the
//! respondent's gender. Formal uses Lei (capitalised, as in business writing), informal uses tu.

use super::{Language, Wording};

pub(super) const ITALIAN: Language = Language {
    code: "it",
    aspects: [
        "il nostro servizio",
        "il nostro personale",
        "la nostra rapidità",
        "i nostri prezzi",
        "la nostra comunicazione",
        "la qualità dei nostri prodotti",
        "la nostra assistenza clienti",
        "le nostre consegne",
        "il nostro sito web",
        "la nostra disponibilità",
    ],
    formal: Wording {
        title: ["Questionario di soddisfazione", "Sondaggio clienti", "La Sua opinione"],
        csat: [
            "Nel complesso, qual è il Suo livello di soddisfazione per il nostro servizio?",
            "Nel complesso, come valuta la Sua esperienza con noi?",
            "Tutto considerato, che voto ci darebbe?",
        ],
        ratings: [
            "Con quale probabilità ci consiglierebbe a un amico o a un collega?",
            "Quanto è stato facile ottenere ciò di cui aveva bisogno?",
            "Come valuta la cortesia e la professionalità del nostro personale?",
            "Come valuta il rapporto qualità-prezzo della nostra offerta?",
            "Come valuta la nostra rapidità e la nostra prontezza di risposta?",
            "Con quale probabilità si rivolgerà di nuovo a noi?",
        ],
        standalones: [
            "Qual è il motivo principale del Suo voto?",
            "Se potesse cambiare una sola cosa del nostro modo di lavorare, quale sarebbe?",
            "Che cosa apprezza di più di noi?",
        ],
        closing: "C'è qualcos'altro che desidera comunicarci?",
        frames: [
            "Per quanto riguarda {aspect}, che cosa Le è piaciuto di più?",
            "Per quanto riguarda {aspect}, che cosa dovremmo migliorare?",
            "Per quanto riguarda {aspect}, in che misura sono state soddisfatte le Sue aspettative?",
            "Può descriverci un'esperienza recente con {aspect}?",
            "Per quanto riguarda {aspect}, c'è stato qualcosa di poco chiaro o frustrante?",
            "Per quanto riguarda {aspect}, quale cambiamento farebbe la differenza per Lei?",
            "Per quanto riguarda {aspect}, che cosa facciamo particolarmente bene?",
            "Per quanto riguarda {aspect}, c'è qualcosa che Le è mancato?",
        ],
    },
    informal: Wording {
        title: ["Il tuo parere in breve", "Un breve sondaggio", "Che ne pensi?"],
        csat: [
            "Nel complesso, qual è il tuo livello di soddisfazione per il nostro servizio?",
            "Nel complesso, come valuti la tua esperienza con noi?",
            "Tutto considerato, che voto ci daresti?",
        ],
        ratings: [
            "Con quale probabilità ci consiglieresti a un amico?",
            "Quanto è stato facile ottenere ciò di cui avevi bisogno?",
            "Quanto è stato gentile e disponibile con te il nostro personale?",
            "Come trovi i nostri prezzi rispetto a ciò che ricevi?",
            "Quanto siamo stati rapidi nel risponderti?",
            "Con quale probabilità torneresti da noi?",
        ],
        standalones: [
            "Qual è il motivo principale del tuo voto?",
            "Se potessi cambiare una sola cosa del nostro modo di lavorare, quale sarebbe?",
            "Che cosa ti piace di più di noi?",
        ],
        closing: "Vuoi dirci qualcos'altro?",
        frames: [
            "Per quanto riguarda {aspect}, che cosa ti è piaciuto di più?",
            "Per quanto riguarda {aspect}, che cosa potremmo fare meglio?",
            "Per quanto riguarda {aspect}, è andato tutto come speravi?",
            "Ci racconti un'esperienza recente con {aspect}?",
            "Per quanto riguarda {aspect}, c'è stato qualcosa di poco chiaro o fastidioso?",
            "Per quanto riguarda {aspect}, se potessi cambiare una sola cosa, quale sarebbe?",
            "Per quanto riguarda {aspect}, che cosa facciamo davvero bene?",
            "Per quanto riguarda {aspect}, c'è qualcosa che ti è mancato?",
        ],
    },
};
