//! An offline, deterministic [`SurveyGenerator`]: surveys assembled from hand-written question
//! templates in English (`en`), Hindi (`hi`), French (`fr`), Spanish (`es`), German (`de`),
//! Portuguese (`pt`, Brazilian usage), Italian (`it`) and Dutch (`nl`).
//!
//! How a brief is used:
//! - **Languages** match by primary subtag (`pt-BR` gets the Portuguese texts, `en-GB` the English
//!   ones) and keep the brief's tags and order. A language without built-in texts is refused;
//!   no language is ever filled with another's text.
//! - **Questions**: the first is always the required overall-satisfaction rating (1 to 5). The
//!   second asks for the main reason of that rating; then open questions follow, built from
//!   question frames × generic aspects (the service, the staff, speed, prices, communication,
//!   product quality, support, delivery, the website, availability) with a few standalone ones.
//!   Every 5th question is an optional 1-to-5 rating (likelihood to recommend, ease, ...) while
//!   those last, and surveys of three questions or more end with "anything else?". All texts of a
//!   survey are distinct in every language.
//! - **Intent text** never appears in a question: partner text cannot be inserted correctly into
//!   every language, so subjects are generic ("our service", "notre service"). It only orders the
//!   aspects: those it mentions (delivery, staff, prices... in any supported language) come first,
//!   in the order it mentions them.
//! - **Tone** picks the register: informal (tu, du, tú, तुम, friendlier English, colloquial
//!   Portuguese) when it holds a word such as "casual", "friendly", "informal", "playful" or
//!   "warm" and no word such as "formal" or "professional"; formal (vous, Sie, usted, आप) otherwise.
//! - **Banned topics** rule out every question whose text in any of the brief's languages contains
//!   a topic (case- and accent-insensitive), and every question whose English keywords stand for
//!   one, so that a ban on "price" removes the prices questions in every language. The title and
//!   the opening question fall back to alternative wordings. When too few questions remain the
//!   brief is refused naming `brief.constraints.bannedTopics`.

mod phrases;
mod topics;

use std::collections::HashSet;

use pulse_domain::campaigns::models::Register;
use pulse_domain::campaigns::models::{Brief, GeneratedSurvey, LanguageTag, NPS, QuestionDraft, QuestionKind};
use pulse_domain::campaigns::ports::SurveyGenerator;
use pulse_domain::error::{Error, Result};

use phrases::{
    ALTERNATIVES, ASPECT_KEYWORDS, ASPECT_SLOT, CLOSING_KEYWORDS, CSAT_KEYWORDS, FRAME_KEYWORDS, FRAMES, Language,
    RATING_KEYWORDS, RATINGS, STANDALONE_KEYWORDS, STANDALONES, TITLE_KEYWORDS, Wording,
};
use topics::{Bans, aspect_order, register_from_tone};

/// The most questions a brief may ask for.
const MAX_QUESTIONS: usize = 50;
/// Every `RATING_EVERY`-th question is an extra rating, while extra ratings last.
const RATING_EVERY: usize = 5;
/// The scale of every rating question (CSAT is 1 to 5).
const RATING: QuestionKind = QuestionKind::Rating { min: 1, max: 5 };

const LANGUAGES_FIELD: &str = "brief.constraints.languages";
const NPS_FIELD: &str = "brief.constraints.nps";
/// The extra rating that asks how likely the person is to recommend us: on 0 to 10, the NPS
/// question.
const RECOMMEND: usize = 0;
const BANNED_FIELD: &str = "brief.constraints.bannedTopics";

/// The built-in template generator. Offline and deterministic: the same brief always gives the
/// same survey.
#[derive(Clone, Copy, Debug, Default)]
pub struct TemplateGenerator;

impl SurveyGenerator for TemplateGenerator {
    async fn generate(&self, brief: &Brief) -> Result<GeneratedSurvey> {
        compose(brief)
    }
}

/// One question (or title) of the tables, independent of language and register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Title(usize),
    Csat(usize),
    Rating(usize),
    Standalone(usize),
    Closing,
    Framed { aspect: usize, frame: usize },
}

impl Item {
    fn text(self, language: &Language, register: Register) -> String {
        let wording: &Wording = match register {
            Register::Formal => &language.formal,
            Register::Informal => &language.informal,
        };
        match self {
            Item::Title(i) => wording.title[i].to_owned(),
            Item::Csat(i) => wording.csat[i].to_owned(),
            Item::Rating(i) => wording.ratings[i].to_owned(),
            Item::Standalone(i) => wording.standalones[i].to_owned(),
            Item::Closing => wording.closing.to_owned(),
            Item::Framed { aspect, frame } => wording.frames[frame].replace(ASPECT_SLOT, language.aspects[aspect]),
        }
    }

    /// The English keyword lists that stand for what the item asks about.
    fn keywords(self) -> [&'static [&'static str]; 2] {
        match self {
            Item::Title(i) => [TITLE_KEYWORDS[i], &[]],
            Item::Csat(i) => [CSAT_KEYWORDS[i], &[]],
            Item::Rating(i) => [RATING_KEYWORDS[i], &[]],
            Item::Standalone(i) => [STANDALONE_KEYWORDS[i], &[]],
            Item::Closing => [CLOSING_KEYWORDS, &[]],
            Item::Framed { aspect, frame } => [ASPECT_KEYWORDS[aspect], FRAME_KEYWORDS[frame]],
        }
    }
}

/// The survey being assembled: the brief's languages, and the texts used so far in each.
struct Draft<'a> {
    tags: &'a [LanguageTag],
    languages: Vec<&'static Language>,
    register: Register,
    bans: Bans,
    /// Per language (by position), the texts already in the survey.
    used: Vec<HashSet<String>>,
    questions: Vec<QuestionDraft>,
}

impl Draft<'_> {
    /// Whether a ban rules `item` out, given its texts in the languages checked.
    fn banned(&self, item: Item, texts: &[String]) -> bool {
        item.keywords().into_iter().flatten().any(|keyword| self.bans.matches_keyword(keyword))
            || texts.iter().any(|text| self.bans.mentioned_in(text))
    }

    /// Adds `item` as a question unless a ban rules it out or one of its texts is already used.
    fn add(&mut self, item: Item, kind: QuestionKind, required: bool) -> bool {
        let texts: Vec<String> = self.languages.iter().map(|language| item.text(language, self.register)).collect();
        if self.banned(item, &texts) || texts.iter().zip(&self.used).any(|(text, used)| used.contains(text)) {
            return false;
        }
        for (text, used) in texts.iter().zip(&mut self.used) {
            used.insert(text.clone());
        }
        let texts = self.tags.iter().cloned().zip(texts).collect();
        self.questions.push(QuestionDraft { kind, required, texts });
        true
    }

    /// Adds the first item of `pool` not yet tried that can be added.
    fn add_from(&mut self, pool: &mut Pool) -> bool {
        while let Some(&item) = pool.items.get(pool.next) {
            pool.next += 1;
            if self.add(item, pool.kind, false) {
                return true;
            }
        }
        false
    }

    /// The first title alternative no ban rules out, in the survey's first language.
    fn title(&self) -> Option<String> {
        let language = self.languages.first()?;
        (0..ALTERNATIVES).map(Item::Title).find_map(|item| {
            let text = item.text(language, self.register);
            (!self.banned(item, std::slice::from_ref(&text))).then_some(text)
        })
    }
}

/// Optional questions of one kind, taken in order.
struct Pool {
    items: Vec<Item>,
    next: usize,
    kind: QuestionKind,
}

/// The open questions in the order surveys use them: the reason for the rating, then each aspect
/// once (in intent order, each with another frame), a standalone question, the next round of
/// aspects with the frames shifted by one, and so on. Over all rounds every aspect meets every
/// frame exactly once.
fn open_questions(order: &[usize]) -> Vec<Item> {
    let mut items = vec![Item::Standalone(0)];
    for round in 0..FRAMES {
        for (position, &aspect) in order.iter().enumerate() {
            items.push(Item::Framed { aspect, frame: (position + round) % FRAMES });
        }
        if round + 1 < STANDALONES {
            items.push(Item::Standalone(round + 1));
        }
    }
    items
}

fn too_few() -> Error {
    Error::validation(
        BANNED_FIELD,
        "the banned topics leave too few questions for this survey; ban fewer topics or ask for fewer questions",
    )
}

fn compose(brief: &Brief) -> Result<GeneratedSurvey> {
    let count = usize::from(brief.question_count);
    if !(1..=MAX_QUESTIONS).contains(&count) {
        return Err(Error::validation("brief.constraints.questionCount", "must be from 1 to 50"));
    }
    if brief.languages.is_empty() {
        return Err(Error::validation(LANGUAGES_FIELD, "must list at least one language"));
    }
    let languages = brief
        .languages
        .iter()
        .map(|tag| {
            phrases::language(tag.primary()).ok_or_else(|| {
                Error::validation(
                    LANGUAGES_FIELD,
                    format!("no built-in texts for `{tag}`; supported: {}", phrases::supported_codes()),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;

    let mut draft = Draft {
        tags: &brief.languages,
        used: vec![HashSet::new(); languages.len()],
        languages,
        register: register_from_tone(brief.tone.as_deref()),
        bans: Bans::new(&brief.banned_topics),
        questions: Vec::with_capacity(count),
    };
    let title = draft.title().ok_or_else(too_few)?;

    // A one-question survey asked for NPS is that question alone.
    let csat = count >= 2 || !brief.nps;
    if csat && !(0..ALTERNATIVES).any(|i| draft.add(Item::Csat(i), RATING, true)) {
        return Err(too_few());
    }
    if brief.nps && !draft.add(Item::Rating(RECOMMEND), NPS, true) {
        return Err(Error::validation(
            NPS_FIELD,
            "a banned topic rules out the recommendation question; ban fewer topics or leave out nps",
        ));
    }
    let mut open = Pool { items: open_questions(&aspect_order(&brief.intent_text)), next: 0, kind: QuestionKind::Text };
    // The recommendation question, asked already on 0 to 10, is not asked again on 1 to 5.
    let extra_ratings = (0..RATINGS).filter(|i| !brief.nps || *i != RECOMMEND).map(Item::Rating).collect();
    let mut ratings = Pool { items: extra_ratings, next: 0, kind: RATING };
    for position in draft.questions.len() + 1..=count {
        let closing = count >= 3 && position == count;
        let rating_slot = position.is_multiple_of(RATING_EVERY);
        // The preferred question for the slot, then any open question, then any rating.
        let added = (closing && draft.add(Item::Closing, QuestionKind::Text, false))
            || (rating_slot && !closing && draft.add_from(&mut ratings))
            || draft.add_from(&mut open)
            || draft.add_from(&mut ratings);
        if !added {
            return Err(too_few());
        }
    }
    let ratings_first = 1 + usize::from(brief.nps);
    if count > ratings_first && !draft.questions.iter().any(|q| q.kind == QuestionKind::Text) {
        return Err(too_few());
    }
    Ok(GeneratedSurvey { title, register: draft.register, questions: draft.questions })
}

#[cfg(test)]
mod tests {
    use futures_executor::block_on;
    use pulse_domain::error::ErrorCode;

    use super::*;

    fn tag(text: &str) -> LanguageTag {
        LanguageTag::parse("language", text).expect("tag")
    }

    fn brief(languages: &[&str], count: u8) -> Brief {
        Brief {
            intent_text: "Learn how customers feel about their last visit.".into(),
            question_count: count,
            languages: languages.iter().copied().map(tag).collect(),
            tone: None,
            banned_topics: vec![],
            nps: false,
        }
    }

    fn generate(brief: &Brief) -> Result<GeneratedSurvey> {
        block_on(TemplateGenerator.generate(brief))
    }

    /// The texts of one language (by position in the brief), question by question.
    fn texts(survey: &GeneratedSurvey, language: usize) -> Vec<&str> {
        survey.questions.iter().map(|q| q.texts[language].1.as_str()).collect()
    }

    #[test]
    fn a_brief_asking_for_nps_gets_the_recommendation_question_on_0_to_10_in_every_language() {
        let codes = phrases::supported_codes();
        let all: Vec<&str> = codes.split(", ").collect();
        for tone in [None, Some("casual")] {
            let asked = Brief { nps: true, tone: tone.map(str::to_owned), ..brief(&all, 12) };
            let survey = generate(&asked).expect("survey");
            assert_eq!(survey.questions[0].kind, RATING, "CSAT first");
            assert_eq!(survey.questions[1].kind, NPS, "then NPS");
            assert_eq!(survey.questions.iter().filter(|q| q.kind == NPS).count(), 1);
            let english = &survey.questions[1].texts[0].1;
            assert!(english.contains("recommend"), "{english}");
            // Not asked again on 1 to 5.
            let recommends = survey.questions.iter().filter(|q| q.texts[0].1.contains("recommend")).count();
            assert_eq!(recommends, 1);
        }
        let alone = generate(&Brief { nps: true, ..brief(&["en"], 1) }).expect("survey");
        assert_eq!(alone.questions.iter().map(|q| q.kind).collect::<Vec<_>>(), [NPS]);
        let two = generate(&Brief { nps: true, ..brief(&["en"], 2) }).expect("survey");
        assert_eq!(two.questions.iter().map(|q| q.kind).collect::<Vec<_>>(), [RATING, NPS]);
        let banned = Brief { nps: true, banned_topics: vec!["friends".into()], ..brief(&["en"], 5) };
        assert!(refusal(generate(&banned)).contains("brief.constraints.nps"));
        let without = generate(&brief(&["en"], 12)).expect("survey");
        assert!(without.questions.iter().all(|q| q.kind != NPS), "only when asked");
    }

    fn refusal(result: Result<GeneratedSurvey>) -> String {
        let error = result.expect_err("refused");
        assert_eq!(error.code(), ErrorCode::ValidationFailed);
        error.to_string()
    }

    fn assert_well_formed(brief: &Brief, survey: &GeneratedSurvey) {
        assert_eq!(survey.questions.len(), usize::from(brief.question_count));
        assert!(!survey.title.is_empty());
        let first = &survey.questions[0];
        assert_eq!(first.kind, QuestionKind::Rating { min: 1, max: 5 });
        assert!(first.required);
        for question in &survey.questions {
            let tags: Vec<&LanguageTag> = question.texts.iter().map(|(l, _)| l).collect();
            assert_eq!(tags, brief.languages.iter().collect::<Vec<_>>());
            assert!(question.texts.iter().all(|(_, text)| !text.trim().is_empty() && !text.contains(ASPECT_SLOT)));
            if let QuestionKind::Rating { min, max } = question.kind {
                assert_eq!((min, max), (1, 5));
            }
        }
        for (language, tag) in brief.languages.iter().enumerate() {
            let texts = texts(survey, language);
            let distinct: HashSet<&str> = texts.iter().copied().collect();
            assert_eq!(distinct.len(), texts.len(), "repeated text in {tag}");
        }
        if brief.question_count >= 2 {
            assert!(survey.questions.iter().any(|q| q.kind == QuestionKind::Text));
        }
    }

    #[test]
    fn surveys_have_exactly_the_questions_asked_for() {
        for count in [1, 2, 3, 5, 7, 50] {
            let brief = brief(&["en"], count);
            let survey = generate(&brief).expect("survey");
            assert_well_formed(&brief, &survey);
        }
        let survey = generate(&brief(&["en"], 2)).expect("survey");
        assert_eq!(survey.questions[1].kind, QuestionKind::Text);
        assert!(!survey.questions[1].required);
        let survey = generate(&brief(&["en"], 7)).expect("survey");
        assert_eq!(survey.questions[4].kind, RATING);
        assert_eq!(texts(&survey, 0)[6], "Is there anything else you would like to tell us?");
    }

    #[test]
    fn every_language_and_register_fills_fifty_distinct_questions() {
        for language in phrases::LANGUAGES {
            for tone in [None, Some("casual")] {
                let brief = Brief { tone: tone.map(str::to_owned), ..brief(&[language.code], 50) };
                let survey = generate(&brief).expect("survey");
                assert_well_formed(&brief, &survey);
            }
        }
    }

    #[test]
    fn six_languages_are_written_in_their_own_words() {
        let brief = brief(&["en", "hi", "fr", "es", "de", "pt"], 12);
        let survey = generate(&brief).expect("survey");
        assert_well_formed(&brief, &survey);
        for question in &survey.questions {
            let english = &question.texts[0].1;
            for (tag, text) in &question.texts[1..] {
                assert_ne!(text, english, "{tag} copies English");
            }
            let hindi = &question.texts[1].1;
            assert!(hindi.chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c)), "{hindi}");
        }
    }

    #[test]
    fn regional_tags_use_their_primary_language() {
        let regional = generate(&brief(&["pt-BR", "en-GB"], 7)).expect("survey");
        let plain = generate(&brief(&["pt", "en"], 7)).expect("survey");
        assert_eq!(regional.questions[0].texts[0].0.as_str(), "pt-BR");
        assert_eq!(regional.questions[0].texts[1].0.as_str(), "en-GB");
        assert_eq!(texts(&regional, 0), texts(&plain, 0));
        assert_eq!(texts(&regional, 1), texts(&plain, 1));
    }

    #[test]
    fn unknown_languages_are_refused() {
        for languages in [&["xx"][..], &["tlh"], &["en", "xx"]] {
            let message = refusal(generate(&brief(languages, 5)));
            assert!(message.contains("brief.constraints.languages"), "{message}");
            assert!(message.contains("supported: en, hi"), "{message}");
        }
        assert!(refusal(generate(&brief(&["en", "tlh"], 5))).contains("`tlh`"));
    }

    #[test]
    fn a_banned_topic_leaves_every_language() {
        let all = ["en", "hi", "fr", "es", "de", "pt", "it", "nl"];
        let banned = Brief { banned_topics: vec!["Price".into()], ..brief(&all, 50) };
        let survey = generate(&banned).expect("survey");
        assert_well_formed(&banned, &survey);
        let forbidden = ["pric", "prix", "precio", "preço", "preis", "क़ीमत", "prezzi", "prezzo", "prijs"];
        for question in &survey.questions {
            for (tag, text) in &question.texts {
                let lower = topics::fold(text);
                for word in forbidden {
                    assert!(!lower.contains(&topics::fold(word)), "{tag}: {text}");
                }
            }
        }
        // Keywords carry the ban into languages that spell the topic otherwise.
        let french = generate(&Brief { banned_topics: vec!["price".into()], ..brief(&["fr"], 50) }).expect("survey");
        assert!(texts(&french, 0).iter().all(|text| !text.contains("prix")));
        // Unbanned, the same survey does ask about prices.
        let free = generate(&brief(&["en"], 50)).expect("survey");
        assert!(texts(&free, 0).iter().any(|text| text.contains("pric")));
    }

    #[test]
    fn bans_that_leave_too_little_are_refused() {
        let everything = Brief { banned_topics: vec!["e".into(), "a".into()], ..brief(&["en"], 5) };
        assert!(refusal(generate(&everything)).contains("brief.constraints.bannedTopics"));

        let aspects = [
            "service",
            "staff",
            "speed",
            "pricing",
            "communication",
            "quality",
            "support",
            "delivery",
            "website",
            "availability",
        ];
        let banned =
            |count| Brief { banned_topics: aspects.map(str::to_owned).to_vec(), ..brief(&["en", "de"], count) };
        let short = generate(&banned(3)).expect("a short survey still fits");
        assert_well_formed(&banned(3), &short);
        for text in texts(&short, 0) {
            assert!(aspects.iter().all(|aspect| !text.contains(aspect)), "{text}");
        }
        assert!(refusal(generate(&banned(50))).contains("brief.constraints.bannedTopics"));
    }

    #[test]
    fn the_opening_question_falls_back_when_its_subject_is_banned() {
        let banned = Brief { banned_topics: vec!["service".into()], ..brief(&["en", "fr"], 3) };
        let survey = generate(&banned).expect("survey");
        assert_well_formed(&banned, &survey);
        assert_eq!(survey.questions[0].texts[0].1, "Overall, how would you rate your experience with us?");
        assert!(survey.questions.iter().flat_map(|q| &q.texts).all(|(_, text)| !text.contains("service")));
    }

    #[test]
    fn tone_picks_the_register() {
        let formal = generate(&Brief { tone: Some("formal".into()), ..brief(&["de"], 20) }).expect("survey");
        let casual = generate(&Brief { tone: Some("Casual and warm".into()), ..brief(&["de"], 20) }).expect("survey");
        assert_ne!(formal, casual);
        let words = |survey: &GeneratedSurvey| -> HashSet<String> {
            texts(survey, 0)
                .iter()
                .flat_map(|text| text.split(|c: char| !c.is_alphanumeric()))
                .map(str::to_owned)
                .collect()
        };
        let (formal, casual) = (words(&formal), words(&casual));
        assert!(formal.contains("Sie") && formal.contains("Ihnen"));
        assert!(casual.contains("du") && casual.contains("dir"));
        for word in ["du", "dir", "dich", "dein", "deine"] {
            assert!(!formal.contains(word), "{word}");
        }
        for word in ["Sie", "Ihnen", "Ihr", "Ihre"] {
            assert!(!casual.contains(word), "{word}");
        }

        let french = |tone: &str| generate(&Brief { tone: Some(tone.into()), ..brief(&["fr"], 10) }).expect("survey");
        assert!(texts(&french("friendly"), 0).iter().any(|text| text.contains("tu ")));
        assert!(texts(&french("neutral"), 0).iter().all(|text| !text.contains("tu ")));
    }

    #[test]
    fn the_intent_orders_the_aspects() {
        let about = |intent: &str| {
            let brief = Brief { intent_text: intent.into(), ..brief(&["en", "es"], 4) };
            generate(&brief).expect("survey").questions[2].texts[0].1.clone()
        };
        assert!(about("We changed our delivery partner and want to know how it went.").contains("delivery"));
        assert!(about("How do guests find our staff at the front desk?").contains("staff"));
        assert!(about("Are our new prices acceptable?").contains("pricing"));
        assert!(about("Un sondage sur la livraison").contains("delivery"));
    }

    #[test]
    fn the_same_brief_gives_the_same_survey() {
        let brief = Brief {
            tone: Some("playful".into()),
            banned_topics: vec!["website".into()],
            ..brief(&["hi", "en", "es"], 23)
        };
        let first = generate(&brief).expect("survey");
        let generator = TemplateGenerator;
        let second = block_on(generator.generate(&brief)).expect("survey");
        assert_eq!(first, second);
        assert_well_formed(&brief, &first);
    }
}
