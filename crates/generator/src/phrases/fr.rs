//! French. Aspects start with a possessive or `la` ("nos prix", "la qualité de nos produits"), so
//! no preposition contracts with them (no `du`/`au`), and frames take them as the object of
//! `concernant`, `avec` or `en ce qui concerne`, never as a subject that a verb must agree with.
//! Frames also avoid participles that agree with the respondent's gender. Formal uses vous,
//! informal uses tu. `\u{a0}` is the no-break space French puts before `?` and `:`.

use super::{Language, Wording};

pub(super) const FRENCH: Language = Language {
    code: "fr",
    aspects: [
        "notre service",
        "notre équipe",
        "notre réactivité",
        "nos prix",
        "notre communication",
        "la qualité de nos produits",
        "notre assistance client",
        "nos livraisons",
        "notre site web",
        "notre disponibilité",
    ],
    formal: Wording {
        title: ["Questionnaire de satisfaction", "Enquête client", "Votre avis"],
        csat: [
            "Dans l'ensemble, quel est votre niveau de satisfaction concernant notre service\u{a0}?",
            "Dans l'ensemble, comment évaluez-vous votre expérience avec nous\u{a0}?",
            "Tout bien considéré, quelle note nous donneriez-vous\u{a0}?",
        ],
        ratings: [
            "Quelle est la probabilité que vous nous recommandiez à un ami ou à un collègue\u{a0}?",
            "À quel point a-t-il été facile d'obtenir ce dont vous aviez besoin\u{a0}?",
            "Comment évaluez-vous l'amabilité et le professionnalisme de notre équipe\u{a0}?",
            "Comment évaluez-vous le rapport qualité-prix de nos offres\u{a0}?",
            "Comment évaluez-vous notre rapidité et notre réactivité\u{a0}?",
            "Quelle est la probabilité que vous fassiez de nouveau appel à nous\u{a0}?",
        ],
        standalones: [
            "Quelle est la principale raison de votre note\u{a0}?",
            "Si vous pouviez changer une seule chose chez nous, laquelle serait-ce\u{a0}?",
            "Qu'appréciez-vous le plus chez nous\u{a0}?",
        ],
        closing: "Y a-t-il autre chose dont vous aimeriez nous faire part\u{a0}?",
        frames: [
            "Qu'avez-vous le plus apprécié concernant {aspect}\u{a0}?",
            "Que devrions-nous améliorer concernant {aspect}\u{a0}?",
            "Concernant {aspect}, dans quelle mesure vos attentes ont-elles été satisfaites\u{a0}?",
            "Pourriez-vous décrire une expérience récente avec {aspect}\u{a0}?",
            "Y a-t-il quelque chose concernant {aspect} qui vous a semblé confus ou frustrant\u{a0}?",
            "Quel changement concernant {aspect} ferait la plus grande différence pour vous\u{a0}?",
            "Que faisons-nous particulièrement bien en ce qui concerne {aspect}\u{a0}?",
            "Concernant {aspect}, qu'est-ce qui a pu vous décevoir\u{a0}?",
        ],
    },
    informal: Wording {
        title: ["Ton avis en bref", "Petite enquête", "Qu'en penses-tu\u{a0}?"],
        csat: [
            "Globalement, quel est ton niveau de satisfaction concernant notre service\u{a0}?",
            "Dans l'ensemble, comment évalues-tu ton expérience avec nous\u{a0}?",
            "Tout compte fait, quelle note tu nous donnerais\u{a0}?",
        ],
        ratings: [
            "Quelle est la probabilité que tu nous recommandes à un ami\u{a0}?",
            "À quel point c'était facile d'obtenir ce dont tu avais besoin\u{a0}?",
            "Comment trouves-tu l'accueil de notre équipe\u{a0}?",
            "Comment trouves-tu nos prix par rapport à ce que tu obtiens\u{a0}?",
            "Comment trouves-tu notre rapidité à te répondre\u{a0}?",
            "Quelle est la probabilité que tu reviennes chez nous\u{a0}?",
        ],
        standalones: [
            "Quelle est la principale raison de ta note\u{a0}?",
            "Si tu pouvais changer une seule chose chez nous, ce serait quoi\u{a0}?",
            "Qu'est-ce que tu préfères chez nous\u{a0}?",
        ],
        closing: "Tu as autre chose à nous dire\u{a0}?",
        frames: [
            "Qu'est-ce que tu as le plus aimé concernant {aspect}\u{a0}?",
            "Qu'est-ce qu'on pourrait faire mieux concernant {aspect}\u{a0}?",
            "Concernant {aspect}, est-ce que c'était à la hauteur de ce que tu espérais\u{a0}?",
            "Tu peux nous raconter une expérience récente avec {aspect}\u{a0}?",
            "Quelque chose t'a semblé confus ou agaçant concernant {aspect}\u{a0}?",
            "Si tu pouvais changer une seule chose concernant {aspect}, ce serait quoi\u{a0}?",
            "Qu'est-ce qu'on fait vraiment bien en ce qui concerne {aspect}\u{a0}?",
            "Concernant {aspect}, qu'est-ce qui a pu te décevoir\u{a0}?",
        ],
    },
};
