//! Dutch. Aspects carry their possessive (`onze` for de-words and plurals, `ons` for het-words);
//! Dutch prepositions never change them, and frames keep them out of the subject position so no
//! verb has to agree with a plural such as "onze prijzen". Formal uses u, informal uses je.

use super::{Language, Wording};

pub(super) const DUTCH: Language = Language {
    code: "nl",
    aspects: [
        "onze service",
        "ons personeel",
        "onze snelheid",
        "onze prijzen",
        "onze communicatie",
        "de kwaliteit van onze producten",
        "onze klantenondersteuning",
        "onze bezorging",
        "onze website",
        "onze bereikbaarheid",
    ],
    formal: Wording {
        title: ["Tevredenheidsonderzoek", "Klantenonderzoek", "Uw mening"],
        csat: [
            "Hoe tevreden bent u in het algemeen over onze service?",
            "Hoe beoordeelt u uw ervaring met ons in het algemeen?",
            "Alles bij elkaar genomen: hoeveel sterren zou u ons geven?",
        ],
        ratings: [
            "Hoe waarschijnlijk is het dat u ons aanbeveelt bij vrienden of collega's?",
            "Hoe gemakkelijk was het om te krijgen wat u nodig had?",
            "Hoe beoordeelt u de vriendelijkheid en professionaliteit van ons personeel?",
            "Hoe beoordeelt u de prijs-kwaliteitverhouding van ons aanbod?",
            "Hoe beoordeelt u onze snelheid en ons reactievermogen?",
            "Hoe waarschijnlijk is het dat u opnieuw voor ons kiest?",
        ],
        standalones: [
            "Wat is de belangrijkste reden voor uw beoordeling?",
            "Als u één ding aan ons zou kunnen veranderen, wat zou dat zijn?",
            "Wat waardeert u het meest aan ons?",
        ],
        closing: "Is er nog iets anders dat u ons wilt vertellen?",
        frames: [
            "Wat vond u het beste aan {aspect}?",
            "Wat kunnen we verbeteren aan {aspect}?",
            "Wat betreft {aspect}: in hoeverre zijn uw verwachtingen waargemaakt?",
            "Kunt u een recente ervaring met {aspect} beschrijven?",
            "Was er iets aan {aspect} dat u onduidelijk of frustrerend vond?",
            "Welke verandering aan {aspect} zou voor u het grootste verschil maken?",
            "Wat doen we volgens u bijzonder goed als het gaat om {aspect}?",
            "Heeft iets aan {aspect} u teleurgesteld?",
        ],
    },
    informal: Wording {
        title: ["Even je mening", "Korte enquête", "Wat vind je ervan?"],
        csat: [
            "Hoe tevreden ben je al met al over onze service?",
            "Hoe vond je je ervaring met ons, alles bij elkaar?",
            "Als je alles meetelt: hoeveel sterren zou je ons geven?",
        ],
        ratings: [
            "Hoe waarschijnlijk is het dat je ons aanraadt aan een vriend?",
            "Hoe makkelijk was het om te krijgen wat je nodig had?",
            "Hoe vriendelijk en behulpzaam was ons team?",
            "Hoe eerlijk vind je onze prijzen voor wat je krijgt?",
            "Hoe snel hebben we op je gereageerd?",
            "Hoe waarschijnlijk is het dat je nog eens bij ons terugkomt?",
        ],
        standalones: [
            "Wat is de belangrijkste reden voor je beoordeling?",
            "Als je één ding aan ons kon veranderen, wat zou dat zijn?",
            "Wat vind je het fijnst aan ons?",
        ],
        closing: "Wil je ons nog iets anders vertellen?",
        frames: [
            "Wat vond je het leukst aan {aspect}?",
            "Wat kunnen we beter doen als het gaat om {aspect}?",
            "Wat betreft {aspect}: was het zoals je had gehoopt?",
            "Vertel eens over een recente ervaring met {aspect}.",
            "Was er iets aan {aspect} dat je verwarrend of irritant vond?",
            "Als je één ding aan {aspect} kon veranderen, wat zou dat zijn?",
            "Wat doen we echt goed als het gaat om {aspect}?",
            "Viel er iets tegen aan {aspect}?",
        ],
    },
};
