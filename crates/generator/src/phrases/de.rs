//! German. Aspects are bare nouns without an article ("Lieferung", "Preise"), and every frame
//! names them as the apposition of `Thema` or `Stichwort` ("zum Thema Lieferung"), where a bare
//! noun needs no case ending and no article agreeing with its gender. Formal uses Sie, informal du.

use super::{Language, Wording};

pub(super) const GERMAN: Language = Language {
    code: "de",
    aspects: [
        "Service",
        "Personal",
        "Schnelligkeit",
        "Preise",
        "Kommunikation",
        "Produktqualität",
        "Kundensupport",
        "Lieferung",
        "Website",
        "Erreichbarkeit",
    ],
    formal: Wording {
        title: ["Feedback-Umfrage", "Kundenumfrage", "Ihre Meinung"],
        csat: [
            "Wie zufrieden sind Sie insgesamt mit unserem Service?",
            "Wie bewerten Sie Ihre Erfahrung mit uns insgesamt?",
            "Alles in allem: Wie gut haben wir Ihre Erwartungen erfüllt?",
        ],
        ratings: [
            "Wie wahrscheinlich ist es, dass Sie uns Freunden oder Kollegen weiterempfehlen?",
            "Wie einfach war es für Sie, das zu bekommen, was Sie brauchten?",
            "Wie bewerten Sie die Freundlichkeit und Professionalität unseres Personals?",
            "Wie bewerten Sie das Preis-Leistungs-Verhältnis unseres Angebots?",
            "Wie bewerten Sie unsere Schnelligkeit und Reaktionszeit?",
            "Wie wahrscheinlich ist es, dass Sie sich wieder für uns entscheiden?",
        ],
        standalones: [
            "Was ist der wichtigste Grund für Ihre Bewertung?",
            "Wenn Sie eine Sache bei uns ändern könnten, welche wäre das?",
            "Was schätzen Sie an uns am meisten?",
        ],
        closing: "Gibt es noch etwas, das Sie uns mitteilen möchten?",
        frames: [
            "Zum Thema {aspect}: Was hat Ihnen am besten gefallen?",
            "Zum Thema {aspect}: Was sollten wir verbessern?",
            "Mit Blick auf das Thema {aspect}: Inwieweit wurden Ihre Erwartungen erfüllt?",
            "Bitte beschreiben Sie ein aktuelles Erlebnis zum Thema {aspect}.",
            "Gab es beim Thema {aspect} etwas, das Sie verwirrend oder ärgerlich fanden?",
            "Welche Änderung beim Thema {aspect} würde für Sie den größten Unterschied machen?",
            "Wenn Sie an das Thema {aspect} denken: Was machen wir besonders gut?",
            "Hat Sie beim Thema {aspect} etwas enttäuscht?",
        ],
    },
    informal: Wording {
        title: ["Kurzes Feedback", "Kleine Umfrage", "Deine Meinung"],
        csat: [
            "Wie zufrieden bist du insgesamt mit unserem Service?",
            "Wie bewertest du deine Erfahrung mit uns insgesamt?",
            "Alles in allem: Wie gut haben wir deine Erwartungen erfüllt?",
        ],
        ratings: [
            "Wie wahrscheinlich ist es, dass du uns Freunden weiterempfiehlst?",
            "Wie einfach war es für dich, das zu bekommen, was du brauchtest?",
            "Wie freundlich und hilfsbereit war unser Team dir gegenüber?",
            "Wie fair findest du unsere Preise für das, was du bekommst?",
            "Wie zufrieden warst du damit, wie schnell wir reagiert haben?",
            "Wie wahrscheinlich ist es, dass du wieder zu uns kommst?",
        ],
        standalones: [
            "Was ist der wichtigste Grund für deine Bewertung?",
            "Wenn du eine Sache bei uns ändern könntest, welche wäre das?",
            "Was magst du an uns am meisten?",
        ],
        closing: "Möchtest du uns sonst noch etwas sagen?",
        frames: [
            "Zum Thema {aspect}: Was hat dir am besten gefallen?",
            "Zum Thema {aspect}: Was könnten wir besser machen?",
            "Stichwort {aspect}: Wurden deine Erwartungen erfüllt?",
            "Erzähl uns von einem aktuellen Erlebnis zum Thema {aspect}.",
            "Gab es beim Thema {aspect} etwas, das dich verwirrt oder genervt hat?",
            "Wenn du beim Thema {aspect} eine Sache ändern könntest, welche wäre das?",
            "Wenn du an das Thema {aspect} denkst: Was machen wir richtig gut?",
            "Hat dich beim Thema {aspect} etwas enttäuscht?",
        ],
    },
};
