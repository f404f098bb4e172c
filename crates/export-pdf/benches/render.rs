//! How long an export of a large campaign takes to render, and how big it is: `cargo bench -p
//! pulse-export-pdf`. The document holds aggregates only, so 10,000 sessions weigh no more than
//! ten; what grows the report is questions and themes, so this campaign has many of both.

#![allow(clippy::print_stdout)]

use std::time::{Duration, Instant};

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
use pulse_export_pdf::PdfReport;
use time::macros::datetime;

const SESSIONS: u64 = 10_000;
const RATING_QUESTIONS: usize = 6;
const TEXT_QUESTIONS: usize = 6;
const THEMES: usize = 20;
const ROUNDS: usize = 15;

fn themes(scale: u64) -> Vec<ThemeCount> {
    (0..THEMES).map(|i| ThemeCount { theme: format!("theme {i}"), count: scale / (i as u64 + 2) }).collect()
}

fn sentiment(total: u64) -> Vec<LabelCount> {
    [(SentimentLabel::Positive, 6), (SentimentLabel::Neutral, 2), (SentimentLabel::Negative, 2)]
        .map(|(label, tenths)| LabelCount { label, count: total * tenths / 10 })
        .to_vec()
}

/// The campaign's accepted sessions week by week, from the Monday before its first day, 1 September,
/// to its last, 23 November.
const WEEKLY_SESSIONS: [u64; 13] = [310, 980, 1040, 870, 820, 760, 900, 690, 720, 650, 810, 930, 520];

/// The campaign week by week, seven in ten ratings satisfied.
fn trend() -> ExportTrend {
    let (first_day, last_day) = (datetime!(2026-09-01 0:00 UTC).date(), datetime!(2026-11-23 0:00 UTC).date());
    let buckets = (0..)
        .zip(WEEKLY_SESSIONS)
        .map(|(week, accepted)| {
            let monday = datetime!(2026-08-31 0:00 UTC).date() + time::Duration::weeks(week);
            let day = |date: time::Date| date.to_string().parse().expect("a date");
            let satisfied = accepted * 7 / 10;
            TrendBucket {
                period: day(monday),
                first_day: day(monday.max(first_day)),
                last_day: day((monday + time::Duration::days(6)).min(last_day)),
                accepted,
                overall_sentiment_score: Some(0.31),
                csat: Some(Csat { score: satisfied as f64 / accepted as f64, satisfied, rated: accepted }),
                nps: None,
            }
        })
        .collect();
    ExportTrend { interval: Interval::Week, zone: TimeZoneName::utc(), buckets }
}

fn document() -> ExportDocument {
    let ratings = (0..RATING_QUESTIONS).map(|i| QuestionResult {
        question_id: format!("r{i}"),
        kind: QuestionKind::Rating { min: 1, max: 5 },
        text: format!("How would you rate part {i} of your visit?"),
        answered: SESSIONS,
        rating: Some(RatingSummary {
            min: 1,
            max: 5,
            mean: 3.8,
            distribution: vec![(1, 500), (2, 700), (3, 1800), (4, 4000), (5, 3000)],
        }),
        sentiment: vec![],
        themes: vec![],
    });
    let texts = (0..TEXT_QUESTIONS).map(|i| QuestionResult {
        question_id: format!("t{i}"),
        kind: QuestionKind::Text,
        text: format!("What would you tell us about part {i} of your visit?"),
        answered: SESSIONS - 300,
        rating: None,
        sentiment: sentiment(SESSIONS - 300),
        themes: themes(SESSIONS / 3),
    });
    let questions: Vec<QuestionResult> = ratings.chain(texts).collect();
    let model = ModelInfo {
        name: "vader".into(),
        version: "3.3.2".into(),
        languages: vec!["en".into()],
        description: "Scores words against a lexicon.".into(),
    };
    ExportDocument {
        language: ReportLanguage::English,
        generated_at: datetime!(2026-11-23 14:05 UTC),
        campaign: ExportedCampaign {
            id: CampaignId::new_random(),
            code: "large".into(),
            name: "A campaign of ten thousand sessions".into(),
            status: CampaignStatus::Active,
        },
        study: Study {
            questions: questions
                .iter()
                .map(|q| AskedQuestion { id: q.question_id.clone(), kind: q.kind, text: q.text.clone() })
                .collect(),
            period_start: Some(datetime!(2026-09-01 09:00 UTC)),
            period_end: datetime!(2026-11-23 14:05 UTC),
            invited: 14_000,
            started: SESSIONS + 800,
            completed: SESSIONS + 200,
            accepted: SESSIONS,
            rejected: 200,
            rejections: vec![(Rejection::TooFast, 120), (Rejection::LowCoverage, 80)],
            analyzers: vec![model.clone(), ModelInfo { name: "keywords".into(), ..model }],
            languages_scored: vec!["en".into()],
            anonymity_floor: 5,
            floor_applied: false,
        },
        funnel: Funnel {
            invited: 14_000,
            responded: 9_100,
            started: SESSIONS + 800,
            completed: SESSIONS + 200,
            accepted: SESSIONS,
            completion_rate: Some(0.98),
        },
        csat: Some(Csat { score: 0.7, satisfied: 7_000, rated: SESSIONS }),
        nps: Some(Nps { score: 17, promoters: 4_500, passives: 2_700, detractors: 2_800, rated: SESSIONS }),
        sentiment: sentiment(SESSIONS),
        questions,
        themes: themes(SESSIONS),
        narrative: vec![
            "10800 people started the survey and 10200 completed it; 10000 responses were accepted.".into(),
        ],
        exclusions: EXCLUSIONS.to_vec(),
        trend: trend(),
        transcripts: None,
    }
}

/// Every text question answered by every session, about twenty words each.
fn with_transcripts(mut document: ExportDocument) -> ExportDocument {
    let transcripts = (0..SESSIONS as usize * TEXT_QUESTIONS)
        .map(|i| Transcript {
            question_id: format!("t{}", i % TEXT_QUESTIONS),
            text: format!(
                "Answer {i}: the delivery was quick and the driver friendly, but the food was a little cold."
            ),
        })
        .collect();
    document.transcripts = Some(transcripts);
    document
}

/// The first run and the median of `ROUNDS` more, and the size of the file. Every run renders
/// another document (its campaign name carries the run's number) with typst's memo cache emptied
/// first, as a worker renders exports that differ: the same document again would cost nothing.
fn measure(document: &ExportDocument, render: impl Fn(&ExportDocument) -> Vec<u8>) -> (Duration, Duration, usize) {
    let numbered = |round: usize| {
        let mut numbered = document.clone();
        numbered.campaign.name = format!("{} ({round})", document.campaign.name);
        numbered
    };
    let timed = |document: &ExportDocument| {
        comemo::evict(0);
        let start = Instant::now();
        let size = std::hint::black_box(render(document)).len();
        (start.elapsed(), size)
    };
    let (cold, size) = timed(&numbered(0));
    let mut times: Vec<Duration> = (1..=ROUNDS).map(|round| timed(&numbered(round)).0).collect();
    times.sort_unstable();
    (cold, times[ROUNDS / 2], size)
}

fn main() {
    let document = document();
    let transcribed = with_transcripts(document.clone());
    let report = PdfReport::new().expect("the shipped fonts load");
    let rows = [
        ("PDF report", measure(&document, |d| report.render(d).expect("pdf"))),
        ("JSON", measure(&document, |d| JsonExportRenderer.json(d).expect("json"))),
        ("JSON with transcripts", measure(&transcribed, |d| JsonExportRenderer.json(d).expect("json"))),
    ];
    println!(
        "export of {SESSIONS} sessions, {RATING_QUESTIONS} rating and {TEXT_QUESTIONS} text questions, {THEMES} themes"
    );
    println!("{:<24} {:>10} {:>10} {:>12}", "file", "first ms", "median ms", "bytes");
    for (name, (cold, median, size)) in rows {
        println!("{name:<24} {:>10.1} {:>10.1} {size:>12}", cold.as_secs_f64() * 1000.0, median.as_secs_f64() * 1000.0);
    }
}
