//! The hand-written phrase tables, one module per language, and the English keywords that tie
//! every table entry to its meaning.
//!
//! Every language fills the same fixed-size arrays, so index `i` means the same question in every
//! language (the compiler checks the counts). Frames hold one `{aspect}` placeholder; each language
//! writes its frames so that its aspect phrases fit them without any change of gender, number,
//! case or contraction (see the note at the top of each language module).

mod de;
mod en;
mod es;
mod fr;
mod hi;
mod it;
mod nl;
mod pt;

/// Open question frames per register, each with one `{aspect}`.
pub(crate) const FRAMES: usize = 8;
/// Generic aspects of a business that frames ask about.
pub(crate) const ASPECTS: usize = 10;
/// Optional 1-to-5 ratings beyond the opening satisfaction question.
pub(crate) const RATINGS: usize = 6;
/// Alternative wordings of the title and of the satisfaction question, for when bans rule one out.
pub(crate) const ALTERNATIVES: usize = 3;
/// Open questions that stand alone (no aspect).
pub(crate) const STANDALONES: usize = 3;

/// The placeholder every frame holds once.
pub(crate) const ASPECT_SLOT: &str = "{aspect}";

/// Everything one language says in one register (formal or informal).
pub(crate) struct Wording {
    /// Survey titles.
    pub title: [&'static str; ALTERNATIVES],
    /// The opening overall-satisfaction question (a 1-to-5 rating).
    pub csat: [&'static str; ALTERNATIVES],
    /// Extra 1-to-5 ratings, in the order of [`RATING_KEYWORDS`].
    pub ratings: [&'static str; RATINGS],
    /// Open questions without an aspect, in the order of [`STANDALONE_KEYWORDS`].
    pub standalones: [&'static str; STANDALONES],
    /// The last open question of surveys of three questions or more.
    pub closing: &'static str,
    /// Open question frames, in the order of [`FRAME_KEYWORDS`].
    pub frames: [&'static str; FRAMES],
}

/// One language the generator can write.
pub(crate) struct Language {
    /// The primary subtag it serves (`pt` serves `pt-BR` and `pt-PT`).
    pub code: &'static str,
    /// Aspect phrases in the order of [`ASPECT_KEYWORDS`], in the form the frames expect.
    pub aspects: [&'static str; ASPECTS],
    pub formal: Wording,
    pub informal: Wording,
}

/// Every language, in the order error messages list them.
pub(crate) const LANGUAGES: [&Language; 8] =
    [&en::ENGLISH, &hi::HINDI, &fr::FRENCH, &es::SPANISH, &de::GERMAN, &pt::PORTUGUESE, &it::ITALIAN, &nl::DUTCH];

/// The language serving `primary` (a primary subtag), if any.
pub(crate) fn language(primary: &str) -> Option<&'static Language> {
    LANGUAGES.iter().copied().find(|l| l.code.eq_ignore_ascii_case(primary))
}

/// `en, hi, fr, ...` for error messages.
pub(crate) fn supported_codes() -> String {
    LANGUAGES.iter().map(|l| l.code).collect::<Vec<_>>().join(", ")
}

// English keywords, lower case, per table entry. A banned topic rules an entry out in every
// language when a keyword contains the topic or the topic holds the keyword as a word, so that a
// ban written in English ("price") also removes the entry where no language spells it that way
// ("nos prix", "हमारी क़ीमतों").

pub(crate) const ASPECT_KEYWORDS: [&[&str]; ASPECTS] = [
    &["service"],
    &["staff", "team", "employee", "employees", "personnel", "people", "friendliness", "professionalism"],
    &["speed", "fast", "quick", "quickly", "wait", "waiting", "time", "times", "delay", "delays", "responsiveness"],
    &["price", "prices", "pricing", "value", "cost", "costs", "money", "fee", "fees", "expensive", "cheap"],
    &["communication", "communications", "communicate", "email", "emails", "message", "messages", "information"],
    &["quality", "product", "products"],
    &["support", "help", "helpdesk", "assistance", "customer", "customers"],
    &["delivery", "deliveries", "shipping", "shipment", "courier", "parcel", "parcels"],
    &["website", "site", "web", "online", "app", "internet"],
    &["availability", "available", "reach", "contact", "hours", "opening"],
];

pub(crate) const FRAME_KEYWORDS: [&[&str]; FRAMES] = [
    &["like", "love", "best"],
    &["improve", "improvement", "improvements", "better"],
    &["expectation", "expectations"],
    &["experience", "story"],
    &["confusion", "confusing", "frustration", "frustrating", "annoying"],
    &["change", "changes"],
    &["best", "well"],
    &["disappointment", "disappointed", "disappointing"],
];

pub(crate) const TITLE_KEYWORDS: [&[&str]; ALTERNATIVES] =
    [&["feedback", "satisfaction"], &["survey", "customer", "customers"], &["opinion", "think"]];

pub(crate) const CSAT_KEYWORDS: [&[&str]; ALTERNATIVES] = [
    &["service", "satisfaction", "satisfied", "happy"],
    &["experience", "rating", "rate"],
    &["score", "stars", "rating", "grade"],
];

pub(crate) const RATING_KEYWORDS: [&[&str]; RATINGS] = [
    &["recommend", "recommendation", "referral", "friend", "friends", "colleague", "colleagues"],
    &["ease", "easy", "effort"],
    &["staff", "team", "employee", "employees", "personnel", "friendliness", "professionalism"],
    &["price", "prices", "pricing", "value", "cost", "costs", "money", "fee", "fees", "expensive", "cheap"],
    &["speed", "fast", "quick", "quickly", "wait", "waiting", "time", "delay", "responsiveness"],
    &["return", "again", "loyalty", "come back"],
];

pub(crate) const STANDALONE_KEYWORDS: [&[&str]; STANDALONES] =
    [&["reason", "score", "rating"], &["change", "changes"], &["appreciate", "like", "love"]];

pub(crate) const CLOSING_KEYWORDS: &[&str] = &[];

/// Words in an intent text that put an aspect first, in folded form (lower case, no accents, no
/// nukta; see `topics::fold`). They match at the start of a word, so stems such as `deliver` also
/// catch `delivery` and `delivered`.
pub(crate) const ASPECT_CUES: [&[&str]; ASPECTS] = [
    &["service", "servicio", "servico", "servizio", "dienstleistung", "सेवा"],
    &[
        "staff",
        "employee",
        "team",
        "waiter",
        "personnel",
        "equipe",
        "empleado",
        "funcionario",
        "mitarbeiter",
        "personale",
        "medewerker",
        "personeel",
        "कर्मचारी",
        "स्टाफ",
    ],
    &[
        "speed",
        "fast",
        "quick",
        "wait",
        "delay",
        "slow",
        "responsive",
        "rapidite",
        "attente",
        "rapidez",
        "espera",
        "demora",
        "schnell",
        "warte",
        "velocita",
        "attesa",
        "snelheid",
        "wachttijd",
        "रफ्तार",
        "इंतजार",
        "देरी",
    ],
    &[
        "price",
        "pricing",
        "cost",
        "value for money",
        "prix",
        "tarif",
        "precio",
        "preco",
        "preis",
        "prezz",
        "prijs",
        "कीमत",
        "दाम",
    ],
    &[
        "communicat",
        "email",
        "newsletter",
        "message",
        "comunicacion",
        "comunicacao",
        "kommunikation",
        "comunicazion",
        "communicatie",
        "संवाद",
        "बातचीत",
    ],
    &[
        "quality",
        "product",
        "qualite",
        "produit",
        "calidad",
        "producto",
        "qualidade",
        "produto",
        "qualitat",
        "produkt",
        "qualita",
        "prodott",
        "kwaliteit",
        "गुणवत्ता",
        "उत्पाद",
    ],
    &[
        "support",
        "help desk",
        "helpdesk",
        "assistance",
        "customer care",
        "soporte",
        "atencion al cliente",
        "suporte",
        "kundendienst",
        "kundensupport",
        "assistenza",
        "klantenservice",
        "सहायता",
    ],
    &[
        "deliver",
        "shipping",
        "shipment",
        "courier",
        "parcel",
        "livraison",
        "livrer",
        "entrega",
        "envio",
        "liefer",
        "versand",
        "consegn",
        "spedizion",
        "bezorg",
        "levering",
        "डिलीवरी",
    ],
    &["website", "web site", "online", "mobile app", "site web", "sitio web", "webseite", "sito web", "वेबसाइट"],
    &[
        "availab",
        "opening hours",
        "reachab",
        "disponibilit",
        "horario",
        "erreichbar",
        "offnungszeit",
        "bereikbaar",
        "उपलब्ध",
    ],
];
