//! What the JSON renderer writes: files that validate against the committed schema, with exactly
//! the documented top level, transcripts only when the document has them, and nothing that names
//! a person.

use std::collections::BTreeSet;

use pulse_domain::analysis::models::{ModelInfo, Rejection};
use pulse_domain::campaigns::models::{CampaignStatus, QuestionKind};
use pulse_domain::exports::models::{
    AskedQuestion, EXCLUSIONS, ExportDocument, ExportTrend, ExportedCampaign, Funnel, ReportLanguage, Study,
};
use pulse_domain::ids::CampaignId;
use pulse_domain::results::models::Transcript;
use pulse_domain::results::models::{
    Csat, Interval, LabelCount, Nps, QuestionResult, RatingSummary, SentimentLabel, ThemeCount, TrendBucket,
};
use pulse_domain::shared::time_zone::TimeZoneName;
use pulse_export::JsonExportRenderer;
use serde_json::Value;
use time::macros::datetime;

const TOP_LEVEL: [&str; 13] = [
    "schema",
    "generatedAt",
    "campaign",
    "study",
    "funnel",
    "csat",
    "nps",
    "sentiment",
    "questions",
    "themes",
    "narrative",
    "exclusions",
    "trend",
];

/// Words that would make a key a person's data; `name` alone is the campaign's or a model's.
const PERSONAL_KEY_PARTS: [&str; 9] =
    ["email", "phone", "respondent", "firstname", "lastname", "fullname", "user", "device", "session"];

fn model(name: &str, version: &str, description: &str) -> ModelInfo {
    ModelInfo {
        name: name.to_owned(),
        version: version.to_owned(),
        languages: vec!["en".to_owned()],
        description: description.to_owned(),
    }
}

fn labels(positive: u64, neutral: u64, negative: u64) -> Vec<LabelCount> {
    vec![
        LabelCount { label: SentimentLabel::Positive, count: positive },
        LabelCount { label: SentimentLabel::Neutral, count: neutral },
        LabelCount { label: SentimentLabel::Negative, count: negative },
    ]
}

fn theme(theme: &str, count: u64) -> ThemeCount {
    ThemeCount { theme: theme.to_owned(), count }
}

/// A week's bucket: its period, the days it covers, responses and satisfied ratings of them.
fn bucket(period: &str, first_day: &str, last_day: &str, accepted: u64, satisfied: u64) -> TrendBucket {
    let day = |text: &str| text.parse().expect("a date");
    TrendBucket {
        period: day(period),
        first_day: day(first_day),
        last_day: day(last_day),
        accepted,
        overall_sentiment_score: Some(0.125),
        csat: Some(Csat { score: (satisfied * 1000 / accepted) as f64 / 1000.0, satisfied, rated: accepted }),
        nps: None,
    }
}

/// A document as `ExportDocument::of` makes it: above the floor with breakdowns, or below it
/// with counts only, no CSAT, no theme and no transcript.
fn document(floor_applied: bool, transcripts: bool) -> ExportDocument {
    let rating = QuestionKind::Rating { min: 1, max: 5 };
    let asked =
        [(rating, "How satisfied are you with the delivery?"), (QuestionKind::Text, "What could we do better?")];
    let (accepted, rejected) = if floor_applied { (3, 1) } else { (42, 6) };
    let questions = asked
        .iter()
        .enumerate()
        .map(|(i, &(kind, text))| QuestionResult {
            question_id: format!("q{}", i + 1),
            kind,
            text: text.to_owned(),
            answered: accepted,
            rating: (kind == rating && !floor_applied).then(|| RatingSummary {
                min: 1,
                max: 5,
                mean: 3.9,
                distribution: vec![(1, 2), (2, 3), (3, 7), (4, 14), (5, 16)],
            }),
            sentiment: if kind == QuestionKind::Text && !floor_applied { labels(21, 12, 9) } else { vec![] },
            themes: if kind == QuestionKind::Text && !floor_applied {
                vec![theme("late delivery", 11), theme("friendly driver", 6)]
            } else {
                vec![]
            },
        })
        .collect();
    let narrative = if floor_applied {
        vec![
            "5 people started the survey and 4 completed it; 3 responses were accepted.".to_owned(),
            "Fewer than 5 responses were accepted, so breakdowns are withheld to protect respondents.".to_owned(),
        ]
    } else {
        vec![
            "61 people started the survey and 48 completed it; 42 responses were accepted.".to_owned(),
            "71% of 42 ratings were in the top two points of the scale.".to_owned(),
            "The most mentioned theme was \"late delivery\", in 11 responses.".to_owned(),
        ]
    };
    ExportDocument {
        language: ReportLanguage::English,
        generated_at: datetime!(2026-03-02 09:30:00 UTC),
        campaign: ExportedCampaign {
            id: CampaignId::new_random(),
            code: "spring-delivery".to_owned(),
            name: "Spring delivery survey".to_owned(),
            status: CampaignStatus::Active,
        },
        study: Study {
            questions: asked
                .iter()
                .enumerate()
                .map(|(i, &(kind, text))| AskedQuestion { id: format!("q{}", i + 1), kind, text: text.to_owned() })
                .collect(),
            period_start: (!floor_applied).then_some(datetime!(2026-02-16 08:00:00 UTC)),
            period_end: datetime!(2026-03-02 09:30:00 UTC),
            invited: 120,
            started: if floor_applied { 5 } else { 61 },
            completed: accepted + rejected,
            accepted,
            rejected,
            rejections: Rejection::ALL.iter().map(|&r| (r, u64::from(r == Rejection::TooFast) * rejected)).collect(),
            analyzers: vec![
                model("vader", "vader-parity-0.1.0", "Lexicon and rule based sentiment of English text."),
                model("rake", "rake-snowball-1", "Key phrases between stop words, merged on word stems."),
            ],
            languages_scored: if floor_applied { vec![] } else { vec!["en".to_owned()] },
            anonymity_floor: 5,
            floor_applied,
        },
        funnel: Funnel {
            invited: 120,
            responded: if floor_applied { 6 } else { 64 },
            started: if floor_applied { 5 } else { 61 },
            completed: accepted + rejected,
            accepted,
            completion_rate: Some(if floor_applied { 0.8 } else { 0.787 }),
        },
        csat: (!floor_applied).then_some(Csat { score: 0.714, satisfied: 30, rated: 42 }),
        nps: (!floor_applied).then_some(Nps { score: 8, promoters: 5, passives: 3, detractors: 4, rated: 12 }),
        sentiment: if floor_applied { vec![] } else { labels(21, 12, 9) },
        questions,
        themes: if floor_applied { vec![] } else { vec![theme("late delivery", 11), theme("friendly driver", 6)] },
        narrative,
        exclusions: EXCLUSIONS.to_vec(),
        trend: ExportTrend {
            interval: Interval::Week,
            zone: TimeZoneName::utc(),
            buckets: if floor_applied {
                vec![]
            } else {
                vec![
                    bucket("2026-02-16", "2026-02-16", "2026-02-22", 20, 14),
                    bucket("2026-02-23", "2026-02-24", "2026-03-02", 22, 16),
                ]
            },
        },
        transcripts: transcripts.then(|| {
            vec![
                Transcript { question_id: "q2".to_owned(), text: "Call me at [phone] about the parcel.".to_owned() },
                Transcript { question_id: "q2".to_owned(), text: "The driver was friendly.".to_owned() },
            ]
        }),
    }
}

fn render(document: &ExportDocument) -> Value {
    let bytes = JsonExportRenderer.json(document).expect("a JSON file");
    let text = String::from_utf8(bytes).expect("UTF-8");
    assert!(text.starts_with("{\n  \""), "pretty-printed: {text:.40}");
    serde_json::from_str(&text).expect("JSON")
}

fn committed_schema() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../schemas/svc.partner-export.v1.2.json"))
            .expect("the committed schema");
    serde_json::from_str(&text).expect("the schema is JSON")
}

fn keys(value: &Value, into: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                into.insert(key.clone());
                keys(value, into);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys(item, into)),
        _ => {}
    }
}

#[test]
fn every_kind_of_document_validates_against_the_committed_schema() {
    let schema = committed_schema();
    jsonschema::meta::validate(&schema).expect("a valid JSON Schema");
    let validator = jsonschema::options().should_validate_formats(true).build(&schema).expect("the schema compiles");
    for (floor_applied, transcripts) in [(false, false), (false, true), (true, false)] {
        let file = render(&document(floor_applied, transcripts));
        let errors: Vec<String> = validator.iter_errors(&file).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "floor {floor_applied}, transcripts {transcripts}: {errors:#?}");
    }
}

#[test]
fn the_schema_refuses_what_the_file_must_not_hold() {
    let validator =
        jsonschema::options().should_validate_formats(true).build(&committed_schema()).expect("the schema compiles");
    let file = render(&document(false, false));
    let changed = |change: &dyn Fn(&mut Value)| {
        let mut changed = file.clone();
        change(&mut changed);
        changed
    };
    assert!(validator.is_valid(&file));
    assert!(!validator.is_valid(&changed(&|f| f["respondentEmail"] = "someone@example.com".into())));
    assert!(!validator.is_valid(&changed(&|f| f["questions"][0]["deviceId"] = "d-1".into())));
    assert!(!validator.is_valid(&changed(&|f| f["schema"] = "svc.partner-export.v2".into())));
    assert!(!validator.is_valid(&changed(&|f| f["transcripts"] = Value::Null)));
    assert!(!validator.is_valid(&changed(&|f| f["study"]["rejections"][0]["reason"] = "TOO_SLOW".into())));
    assert!(!validator.is_valid(&changed(&|f| f["csat"]["method"] = "MEAN".into())));
    assert!(!validator.is_valid(&changed(&|f| f["nps"]["score"] = 101.into())));
    assert!(!validator.is_valid(&changed(&|f| f["nps"]["method"] = "MEAN".into())));
    assert!(!validator.is_valid(&changed(&|f| f["schema"] = "svc.partner-export.v1".into())));
    assert!(!validator.is_valid(&changed(&|f| f["trend"]["interval"] = "hour".into())));
    assert!(!validator.is_valid(&changed(&|f| f["trend"]["buckets"][0]["firstDay"] = "16/02/2026".into())));
}

#[test]
fn the_top_level_is_exactly_the_documented_one_and_transcripts_come_only_with_the_document() {
    for (floor_applied, transcripts) in [(false, false), (false, true), (true, false)] {
        let file = render(&document(floor_applied, transcripts));
        let top: BTreeSet<&str> = file.as_object().expect("an object").keys().map(String::as_str).collect();
        let mut expected: BTreeSet<&str> = TOP_LEVEL.into_iter().collect();
        if transcripts {
            expected.insert("transcripts");
        }
        assert_eq!(top, expected, "floor {floor_applied}, transcripts {transcripts}");
        assert_eq!(file["schema"], "svc.partner-export.v1.2");
        assert_eq!(file["study"]["floorApplied"], floor_applied);
    }
}

#[test]
fn the_file_reads_the_domain_strings_and_its_nullable_fields_are_null() {
    let file = render(&document(false, true));
    assert_eq!(file["generatedAt"], "2026-03-02T09:30:00Z");
    assert_eq!(file["campaign"]["status"], "ACTIVE");
    assert_eq!(file["study"]["questions"][0]["kind"], "rating");
    assert_eq!(file["study"]["period"]["start"], "2026-02-16T08:00:00Z");
    assert_eq!(file["study"]["rejections"][0], serde_json::json!({ "reason": "TOO_FAST", "count": 6 }));
    assert_eq!(file["csat"]["method"], "TOP_2_BOX_1_TO_5");
    assert_eq!(file["questions"][0]["rating"]["distribution"][4], serde_json::json!({ "value": 5, "count": 16 }));
    assert_eq!(file["questions"][1]["sentiment"][0], serde_json::json!({ "label": "POSITIVE", "count": 21 }));
    assert_eq!(
        file["transcripts"][0],
        serde_json::json!({ "questionId": "q2", "text": "Call me at [phone] about the parcel." })
    );

    assert_eq!(
        file["trend"]["buckets"][1],
        serde_json::json!({
            "period": "2026-02-23", "firstDay": "2026-02-24", "lastDay": "2026-03-02", "accepted": 22,
            "sentimentScore": 0.125, "nps": null,
            "csat": {"score": 0.727, "satisfied": 16, "rated": 22, "method": "TOP_2_BOX_1_TO_5"}
        })
    );
    assert_eq!((&file["trend"]["interval"], &file["trend"]["timeZone"]), (&"week".into(), &"UTC".into()));

    let below_floor = render(&document(true, false));
    assert_eq!(below_floor["trend"]["buckets"], serde_json::json!([]));
    assert_eq!(below_floor["csat"], Value::Null);
    assert_eq!(below_floor["study"]["period"]["start"], Value::Null);
    assert_eq!(below_floor["questions"][0]["rating"], Value::Null);
    assert_eq!(below_floor["themes"], serde_json::json!([]));
}

#[test]
fn no_key_names_a_persons_data() {
    for (floor_applied, transcripts) in [(false, true), (true, false)] {
        let mut found = BTreeSet::new();
        keys(&render(&document(floor_applied, transcripts)), &mut found);
        let personal: Vec<&String> = found
            .iter()
            .filter(|key| {
                let key = key.to_ascii_lowercase();
                key == "ip" || PERSONAL_KEY_PARTS.iter().any(|part| key.contains(part))
            })
            .collect();
        assert!(personal.is_empty(), "keys naming a person's data: {personal:?}");
    }
}
