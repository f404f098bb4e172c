//! The PDF report read back with poppler, as a partner's PDF reader would: the text it shows,
//! the fonts it embeds, and its pages as PNG files under `target/tmp/export-pdf/` to look at.

use std::path::{Path, PathBuf};
use std::process::Command;

use pulse_domain::analysis::models::{ModelInfo, Rejection};
use pulse_domain::campaigns::models::{CampaignStatus, QuestionKind};
use pulse_domain::exports::models::{
    AskedQuestion, EXCLUSIONS, ExportDocument, ExportFormat, ExportTrend, ExportedCampaign, Funnel, ReportLanguage,
    Study,
};
use pulse_domain::exports::ports::ExportRenderer;
use pulse_domain::ids::CampaignId;
use pulse_domain::results::models::{
    Csat, Interval, LabelCount, Nps, QuestionResult, RatingSummary, SentimentLabel, ThemeCount, TrendBucket,
};
use pulse_domain::shared::time_zone::TimeZoneName;
use pulse_export_pdf::{ExportRenderers, PdfReport};
use time::macros::datetime;

/// A campaign of two questions, a rating and a text, with `accepted` accepted responses, and no
/// recommendation question (so no NPS), as most campaigns; its trend is `weeks()` above the floor.
fn document(name: &str, rating_text: &str, text_question: &str, accepted: u64, floor_applied: bool) -> ExportDocument {
    let questions = vec![
        QuestionResult {
            question_id: "q1".into(),
            kind: QuestionKind::Rating { min: 1, max: 5 },
            text: rating_text.into(),
            answered: accepted,
            rating: (!floor_applied).then(|| RatingSummary {
                min: 1,
                max: 5,
                mean: 3.9,
                distribution: vec![(1, 3), (2, 5), (3, 20), (4, 57), (5, 42)],
            }),
            sentiment: vec![],
            themes: vec![],
        },
        QuestionResult {
            question_id: "q2".into(),
            kind: QuestionKind::Text,
            text: text_question.into(),
            answered: accepted - 4,
            rating: None,
            sentiment: if floor_applied { vec![] } else { sentiment() },
            themes: if floor_applied { vec![] } else { themes() },
        },
    ];
    let asked =
        questions.iter().map(|q| AskedQuestion { id: q.question_id.clone(), kind: q.kind, text: q.text.clone() });
    let model = |name: &str| ModelInfo {
        name: name.into(),
        version: "3.3.2".into(),
        languages: vec!["en".into()],
        description: "Scores words against a lexicon.".into(),
    };
    ExportDocument {
        language: ReportLanguage::English,
        generated_at: datetime!(2026-11-23 14:05 UTC),
        campaign: ExportedCampaign {
            id: CampaignId::new_random(),
            code: "spring-checkin".into(),
            name: name.into(),
            status: CampaignStatus::Active,
        },
        study: Study {
            questions: asked.collect(),
            period_start: Some(datetime!(2026-11-02 09:00 UTC)),
            period_end: datetime!(2026-11-23 14:05 UTC),
            invited: 250,
            started: 161,
            completed: 138,
            accepted,
            rejected: 11,
            rejections: vec![(Rejection::TooFast, 7), (Rejection::TooFewWords, 4)],
            analyzers: vec![model("vader"), model("keywords")],
            languages_scored: if floor_applied { vec![] } else { vec!["en".into()] },
            anonymity_floor: 5,
            floor_applied,
        },
        funnel: Funnel {
            invited: 250,
            responded: 119,
            started: 161,
            completed: 138,
            accepted,
            completion_rate: Some(138.0 / 161.0),
        },
        csat: (!floor_applied).then_some(Csat { score: 99.0 / 127.0, satisfied: 99, rated: 127 }),
        nps: None,
        sentiment: if floor_applied { vec![] } else { sentiment() },
        questions,
        themes: if floor_applied { vec![] } else { themes() },
        narrative: [
            format!("161 people started the survey and 138 completed it; {accepted} responses were accepted."),
            if floor_applied {
                "Fewer than 5 responses were accepted, so breakdowns are withheld to protect respondents.".into()
            } else {
                "78% of 127 ratings were in the top two points of the scale.".into()
            },
        ]
        .to_vec(),
        exclusions: EXCLUSIONS.to_vec(),
        trend: ExportTrend {
            interval: Interval::Week,
            zone: TimeZoneName::utc(),
            buckets: if floor_applied { vec![] } else { weeks() },
        },
        transcripts: None,
    }
}

/// A week's bucket: its period, the days its responses were completed on, how many were accepted
/// and how many of them rated 4 or 5.
fn bucket(period: &str, first_day: &str, last_day: &str, accepted: u64, satisfied: u64) -> TrendBucket {
    let day = |text: &str| text.parse().expect("a date");
    TrendBucket {
        period: day(period),
        first_day: day(first_day),
        last_day: day(last_day),
        accepted,
        overall_sentiment_score: Some(0.21),
        csat: Some(Csat { score: satisfied as f64 / accepted as f64, satisfied, rated: accepted }),
        nps: None,
    }
}

/// The campaign's 127 responses and 99 satisfied ratings week by week: the launch week was too
/// quiet on its own, so it is merged with the Monday after it; the reminder's last day stands alone.
fn weeks() -> Vec<TrendBucket> {
    vec![
        bucket("2026-11-02", "2026-11-02", "2026-11-09", 11, 8),
        bucket("2026-11-09", "2026-11-10", "2026-11-15", 41, 30),
        bucket("2026-11-16", "2026-11-16", "2026-11-22", 48, 39),
        bucket("2026-11-23", "2026-11-23", "2026-11-23", 27, 22),
    ]
}

/// A score of +8: 5 promoters, 3 passives and 4 detractors of 12.
const NPS: Nps = Nps { score: 8, promoters: 5, passives: 3, detractors: 4, rated: 12 };

fn sentiment() -> Vec<LabelCount> {
    [(SentimentLabel::Positive, 71), (SentimentLabel::Neutral, 30), (SentimentLabel::Negative, 22)]
        .map(|(label, count)| LabelCount { label, count })
        .to_vec()
}

fn themes() -> Vec<ThemeCount> {
    [("delivery", 41), ("price", 26), ("support", 12)]
        .map(|(theme, count)| ThemeCount { theme: theme.into(), count })
        .to_vec()
}

/// Renders `document` and keeps the file and its pages (as PNG) under `name` to be looked at.
fn render(document: &ExportDocument, name: &str) -> PathBuf {
    let bytes = PdfReport::new().expect("the shipped fonts load").render(document).expect("rendered");
    assert!(bytes.starts_with(b"%PDF-"), "a PDF file");
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-pdf");
    std::fs::create_dir_all(&directory).expect("artifact directory");
    let path = directory.join(format!("{name}.pdf"));
    std::fs::write(&path, bytes).expect("written");
    let pages = directory.join(name);
    poppler("pdftoppm", &["-png", "-r", "60", path.to_str().expect("utf-8 path"), pages.to_str().expect("utf-8 path")]);
    path
}

/// Runs a poppler tool; they are installed by `.ci/run` (Debian's poppler-utils).
fn poppler(tool: &str, args: &[&str]) -> String {
    let output = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} could not run ({e}): install poppler-utils, as .ci/run does"));
    assert!(output.status.success(), "{tool} failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8 output")
}

fn text_of(path: &Path) -> String {
    // Without layout mode each line of text comes out whole, in reading order.
    poppler("pdftotext", &[path.to_str().expect("utf-8 path"), "-"])
}

/// `text` without its whitespace: poppler breaks long lines, and reads a gap into Devanagari
/// words where a vowel sign sits above the letter (कैसी comes out as कै सी).
fn unspaced(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Every font `pdffonts` lists is embedded (the `emb` column says yes).
fn assert_fonts_embedded(path: &Path) -> Vec<String> {
    let listing = poppler("pdffonts", &[path.to_str().expect("utf-8 path")]);
    let fonts: Vec<&str> = listing.lines().skip(2).collect();
    assert!(!fonts.is_empty(), "fonts are listed: {listing}");
    for font in &fonts {
        let columns: Vec<&str> = font.split_whitespace().collect();
        // name type encoding emb sub uni object-id: read from the right, as types have spaces.
        let emb = columns[columns.len() - 5];
        assert_eq!(emb, "yes", "every font is embedded: {font}");
    }
    fonts.iter().map(|f| f.split_whitespace().next().unwrap_or_default().to_owned()).collect()
}

#[test]
fn an_english_report_shows_the_campaign_its_counts_and_every_section() {
    let path = render(
        &document(
            "Spring check-in",
            "How satisfied are you with your delivery?",
            "What should we improve?",
            127,
            false,
        ),
        "english",
    );
    let text = text_of(&path);
    for expected in [
        "Spring check-in",
        "Campaign spring-checkin · collecting · 2 Nov 2026 – 23 Nov 2026",
        "Summary",
        "161 people started the survey and 138 completed it; 127 responses were accepted.",
        "About this study",
        "How satisfied are you with your delivery?",
        "vader 3.3.2",
        "too fast: 7",
        "Response funnel",
        "Satisfaction (CSAT)",
        "78% of 127 ratings in the top two points",
        "Sentiment of written answers",
        "Per-question scores",
        "Mean 3.9 on a scale of 1 to 5",
        "Themes",
        "delivery",
        "What this report leaves out",
        "signature-visualisations",
        "Page 1 of",
    ] {
        assert!(text.contains(expected), "the report shows {expected:?}:\n{text}");
    }
    assert!(!text.contains("Net Promoter") && !text.contains("Promoters"), "no NPS question, no NPS section:\n{text}");
    for count in ["250", "119", "161", "138", "127"] {
        assert!(text.lines().any(|line| line.trim() == count), "the funnel shows {count}:\n{text}");
    }
    let fonts = assert_fonts_embedded(&path);
    assert!(fonts.iter().all(|f| f.contains("NotoSans")), "only the shipped fonts: {fonts:?}");
}

#[test]
fn a_hindi_survey_is_set_in_devanagari_with_its_font_embedded() {
    let question = "आपको हमारी सेवा कैसी लगी?";
    // No analyzer covers Hindi: its answers are counted but get no sentiment.
    let mut hindi = document("ग्राहक अनुभव", question, "हम क्या बेहतर कर सकते हैं?", 127, false);
    hindi.study.languages_scored.clear();
    let unscored = |counts: &mut Vec<LabelCount>| counts.iter_mut().for_each(|c| c.count = 0);
    unscored(&mut hindi.sentiment);
    unscored(&mut hindi.questions[1].sentiment);
    let path = render(&hindi, "hindi");
    let text = unspaced(&text_of(&path));
    assert!(text.contains(&unspaced("No written answer has been scored yet")), "{text}");
    assert!(!text.contains("Positive"), "no empty sentiment bars: {text}");
    assert!(text.contains(&unspaced(question)), "the Hindi question is there as text:\n{text}");
    assert!(text.contains("ग्राहकअनुभव"), "the Hindi title is there:\n{text}");
    let fonts = assert_fonts_embedded(&path);
    assert!(fonts.iter().any(|f| f.contains("NotoSansDevanagari")), "the Devanagari font is embedded: {fonts:?}");
}

/// `text` holds every one of `expected` and none of `absent`, whitespace aside.
fn assert_reads(text: &str, expected: &[&str], absent: &[&str]) {
    let text = unspaced(text);
    for expected in expected {
        assert!(text.contains(&unspaced(expected)), "the report shows {expected:?}:\n{text}");
    }
    for absent in absent {
        assert!(!text.contains(&unspaced(absent)), "the report shows no {absent:?}:\n{text}");
    }
}

/// The English report's headings and labels, none of which another language's report shows.
const ENGLISH_LABELS: [&str; 16] = [
    "Summary",
    "About this study",
    "Response funnel",
    "Sentiment of written answers",
    "Per-question scores",
    "What this report leaves out",
    "Page 1 of",
    "Mean 3",
    "too fast",
    "Satisfied (4 or 5)",
    "Promoters (9 or 10)",
    "from 12 ratings",
    "Withheld",
    "accepted responses",
    "Over time",
    "left axis",
];

/// The chart's heading and the start of its note (the floor being 5) in each other language.
const OVER_TIME_IN: [(ReportLanguage, &str, &str); 7] = [
    (ReportLanguage::French, "Évolution dans le temps", "Chaque point compte au moins 5 réponses acceptées"),
    (ReportLanguage::Spanish, "Evolución en el tiempo", "Cada punto reúne al menos 5 respuestas aceptadas"),
    (ReportLanguage::German, "Verlauf", "Jeder Punkt umfasst mindestens 5 akzeptierte Antworten"),
    (ReportLanguage::Portuguese, "Evolução ao longo do tempo", "Cada ponto reúne pelo menos 5 respostas válidas"),
    (ReportLanguage::Italian, "Andamento nel tempo", "Ogni punto comprende almeno 5 risposte accettate"),
    (ReportLanguage::Dutch, "Verloop in de tijd", "Elk punt omvat ten minste 5 geaccepteerde antwoorden"),
    (ReportLanguage::Hindi, "समय के साथ रुझान", "प्रत्येक बिंदु में कम से कम 5 स्वीकृत प्रतिक्रियाएँ हैं"),
];

#[test]
fn a_french_campaign_gets_a_report_headed_in_french() {
    let mut french = document(
        "Enquête de printemps",
        "Êtes-vous satisfait de votre livraison ?",
        "Que devrions-nous améliorer ?",
        127,
        false,
    );
    french.language = ReportLanguage::French;
    french.narrative = vec![
        "161 personnes ont commencé le questionnaire et 138 l’ont terminé\u{202f}; 127 réponses ont été acceptées."
            .into(),
    ];
    let path = render(&french, "french");
    assert_reads(
        &text_of(&path),
        &[
            "RAPPORT D’ENQUÊTE",
            "Campagne spring-checkin · collecte en cours · 2 nov. 2026 – 23 nov. 2026",
            "Synthèse",
            "161 personnes ont commencé le questionnaire",
            "À propos de cette étude",
            "trop rapide\u{a0}: 7",
            "Seuil d’anonymat",
            "Questions posées",
            "Entonnoir de réponse",
            "86\u{202f}% des questionnaires démarrés",
            "Satisfaction (CSAT)",
            "78\u{202f}% des 127 notes dans les deux niveaux supérieurs",
            "Sentiment des réponses écrites",
            "Positif",
            "Résultats par question",
            "Moyenne de 3,9 sur une échelle de 1 à 5",
            "Thèmes",
            "Ce que ce rapport ne contient pas",
            "seuls des agrégats sont exportés",
            "Page 1 sur",
        ],
        &ENGLISH_LABELS,
    );
}

#[test]
fn an_nps_is_shown_after_csat_with_its_sign_and_its_three_groups() {
    let mut report = document("Recommend us", "Rate us", "Tell us more", 127, false);
    report.nps = Some(NPS);
    let text = text_of(&render(&report, "nps"));
    assert_reads(
        &text,
        &[
            "Net Promoter Score (NPS)",
            "+8 from 12 ratings",
            "Promoters (9 or 10)",
            "Passives (7 or 8)",
            "Detractors (0 to 6)",
            "5 (42%)",
            "3 (25%)",
            "4 (33%)",
            "the share of promoters minus the share of detractors",
        ],
        &[],
    );
    let at = |heading: &str| text.find(heading).unwrap_or_else(|| panic!("{heading:?} in:\n{text}"));
    assert!(at("Satisfaction (CSAT)") < at("Net Promoter Score (NPS)"), "NPS comes after CSAT:\n{text}");
    assert!(at("Net Promoter Score (NPS)") < at("Sentiment of written answers"), "and before sentiment:\n{text}");

    report.nps = Some(Nps { score: -20, promoters: 2, passives: 4, detractors: 4, rated: 10 });
    report.language = ReportLanguage::German;
    assert_reads(
        &text_of(&render(&report, "nps-negative-german")),
        &["Net Promoter Score (NPS)", "-20 aus 10 Bewertungen", "Promotoren (9 oder 10)", "Detraktoren (0 bis 6)"],
        &ENGLISH_LABELS,
    );
    report.nps = Some(Nps { score: 0, promoters: 1, passives: 0, detractors: 1, rated: 2 });
    report.language = ReportLanguage::English;
    assert_reads(&text_of(&render(&report, "nps-zero")), &["0 from 2 ratings"], &["+0", "-0"]);
}

#[test]
fn without_an_nps_the_report_has_no_nps_section_in_any_language() {
    for language in ReportLanguage::ALL {
        let mut report = document("No recommendation question", "Rate us", "Tell us more", 127, false);
        report.language = language;
        let text = text_of(&render(&report, &format!("{}-no-nps", language.code())));
        assert_reads(&text, &["spring-checkin"], &["NPS", "Net Promoter", "नेट प्रमोटर"]);
    }
}

#[test]
fn a_hindi_campaign_gets_a_report_headed_in_hindi_in_devanagari() {
    let mut hindi = document("ग्राहक अनुभव", "आपको हमारी सेवा कैसी लगी?", "हम क्या बेहतर कर सकते हैं?", 127, false);
    hindi.language = ReportLanguage::Hindi;
    hindi.narrative = vec!["161 लोगों ने सर्वेक्षण शुरू किया और 138 ने इसे पूरा किया; 127 प्रतिक्रियाएँ स्वीकार की गईं।".into()];
    let path = render(&hindi, "hindi-labels");
    assert_reads(
        &text_of(&path),
        &[
            "फ़ीडबैक रिपोर्ट",
            "अभियान spring-checkin",
            "2 नवंबर 2026 – 23 नवंबर 2026",
            "सारांश",
            "161 लोगों ने सर्वेक्षण शुरू किया",
            "इस अध्ययन के बारे में",
            "पूछे गए प्रश्न",
            "विश्लेषण मॉडल",
            "प्रतिक्रिया फ़नल",
            "संतुष्टि (CSAT)",
            "लिखित उत्तरों की भावना",
            "सकारात्मक",
            "औसत 3.9, 1 से 5 के पैमाने पर",
            "इस रिपोर्ट में क्या शामिल नहीं है",
            "में से पृष्ठ 1",
        ],
        &ENGLISH_LABELS,
    );
    let fonts = assert_fonts_embedded(&path);
    assert!(
        fonts.iter().any(|f| f.contains("NotoSansDevanagari-Bold")),
        "headings are set in bold Devanagari: {fonts:?}"
    );
}

#[test]
fn every_language_renders_above_and_below_the_floor_without_an_english_label() {
    for (language, over_time, note) in OVER_TIME_IN {
        for (accepted, floor_applied) in [(127, false), (4, true)] {
            let mut report = document("Campaign", "Rate us", "Tell us more", accepted, floor_applied);
            report.language = language;
            report.narrative.clear();
            report.nps = (!floor_applied).then_some(NPS);
            let name = format!("{}-{}", language.code(), if floor_applied { "below-floor" } else { "above-floor" });
            let text = text_of(&render(&report, &name));
            assert_reads(&text, &["spring-checkin"], &ENGLISH_LABELS);
            let chart = [over_time, note];
            if floor_applied { assert_reads(&text, &[], &chart) } else { assert_reads(&text, &chart, &[]) }
        }
    }
}

/// The English chart's heading, legend and note, the floor being 5.
const OVER_TIME: [&str; 4] = [
    "Over time",
    "Accepted responses (left axis)",
    "CSAT: share satisfied (right axis)",
    "Each point counts at least 5 accepted responses; a week with fewer is merged into a neighbouring week.",
];

#[test]
fn the_campaign_over_time_is_drawn_after_csat_or_nps_with_its_axes_and_its_note() {
    let mut report = document("Four weeks", "Rate us", "Tell us more", 127, false);
    let text = text_of(&render(&report, "trend"));
    // Each week's Monday labels it, the merged launch week too.
    assert_reads(&text, &[&OVER_TIME[..], &["2 Nov", "9 Nov", "16 Nov", "23 Nov"]].concat(), &[]);
    for tick in ["0", "15", "30", "45", "60", "0%", "25%", "50%", "75%", "100%"] {
        assert!(text.lines().any(|line| line.trim() == tick), "the axes show {tick}:\n{text}");
    }
    let at = |text: &str, heading: &str| text.find(heading).unwrap_or_else(|| panic!("{heading:?} in:\n{text}"));
    assert!(at(&text, "Satisfaction (CSAT)") < at(&text, "Over time"), "the chart comes after CSAT:\n{text}");
    assert!(at(&text, "Over time") < at(&text, "Sentiment of written answers"), "and before sentiment:\n{text}");

    report.nps = Some(NPS);
    let text = text_of(&render(&report, "trend-nps"));
    assert!(at(&text, "Net Promoter Score (NPS)") < at(&text, "Over time"), "the chart comes after NPS:\n{text}");
}

#[test]
fn without_ratings_the_chart_has_one_line_and_one_axis() {
    let mut report = document("No rating", "Rate us", "Tell us more", 127, false);
    report.trend.buckets.iter_mut().for_each(|bucket| bucket.csat = None);
    let text = text_of(&render(&report, "trend-no-csat"));
    assert_reads(&text, &[OVER_TIME[0], OVER_TIME[1], OVER_TIME[3]], &[OVER_TIME[2], "100%"]);
}

#[test]
fn a_single_week_is_a_point_and_a_campaign_without_a_week_has_no_chart() {
    let mut report = document("One week", "Rate us", "Tell us more", 127, false);
    report.trend.buckets = vec![bucket("2026-11-02", "2026-11-02", "2026-11-23", 127, 99)];
    assert_reads(&text_of(&render(&report, "trend-one-week")), &[&OVER_TIME[..], &["2 Nov"]].concat(), &["9 Nov"]);

    report.trend.buckets.clear();
    assert_reads(&text_of(&render(&report, "trend-none")), &["Satisfaction (CSAT)"], &OVER_TIME);
}

#[test]
fn a_long_campaign_labels_as_many_weeks_as_fit_side_by_side() {
    let mut report = document("Half a year", "Rate us", "Tell us more", 127, false);
    report.study.period_start = Some(datetime!(2026-08-31 09:00 UTC));
    report.study.period_end = datetime!(2027-02-28 18:00 UTC);
    report.generated_at = datetime!(2027-03-01 08:00 UTC);
    report.trend.buckets = (0..26)
        .map(|week| {
            let monday = datetime!(2026-08-31 0:00 UTC).date() + time::Duration::weeks(week);
            let sunday = (monday + time::Duration::days(6)).to_string();
            // Responses rise and fall over eight weeks, between 30 and 50.
            let accepted = 30 + (week % 8).abs_diff(4) * 5;
            bucket(&monday.to_string(), &monday.to_string(), &sunday, accepted, accepted * 3 / 4)
        })
        .collect();
    // A week without a rating breaks the CSAT line.
    report.trend.buckets[9].csat = None;
    let text = text_of(&render(&report, "trend-half-a-year"));
    assert_reads(&text, &["31 Aug", "14 Sep"], &["7 Sep", "21 Sep"]);
}

#[test]
fn questions_in_every_survey_language_come_out_as_written() {
    let questions = [
        "How was your visit?",
        "Comment s'est passée votre visite ?",
        "¿Cómo fue su visita?",
        "Wie war Ihr Besuch?",
        "Como foi a sua visita?",
        "आपकी यात्रा कैसी रही?",
        "Com'è andata la sua visita?",
        "Hoe was uw bezoek?",
    ];
    let path = render(&document("Eight languages", questions[0], &questions[1..].join(" / "), 40, false), "languages");
    let text = unspaced(&text_of(&path));
    for question in questions {
        assert!(text.contains(&unspaced(question)), "{question:?} is in the report:\n{text}");
    }
}

#[test]
fn a_campaign_name_that_looks_like_markup_is_printed_as_it_is() {
    let name = r#"#panic("boom") *not bold* $x^2$ <tag> @ref // and \ more"#;
    let path = render(&document(name, "Rate us", "Tell us more", 40, false), "markup-name");
    let text = unspaced(&text_of(&path));
    assert!(text.contains(&unspaced(name)), "the name is shown literally:\n{text}");
}

#[test]
fn below_the_floor_the_report_keeps_the_counts_and_withholds_every_breakdown() {
    let path = render(&document("Small team", "Rate us", "Tell us more", 4, true), "below-floor");
    let text = text_of(&path);
    assert!(text.contains("Withheld: fewer than 5 responses were accepted"), "{text}");
    assert!(text.contains("(applied: breakdowns withheld)"), "{text}");
    assert!(!text.contains("Mean "), "no rating breakdown: {text}");
    assert!(!text.contains("delivery"), "no theme: {text}");
    assert!(!text.contains("Over time"), "no week to draw: {text}");
    assert!(text.lines().any(|line| line.trim() == "250"), "the invited count stays: {text}");
}

#[tokio::test]
async fn the_worker_renderer_makes_both_formats_and_refuses_pdf_without_a_report() {
    let document = document("Both formats", "Rate us", "Tell us more", 40, false);
    let renderers = ExportRenderers::new(Some(PdfReport::new().expect("fonts load")));
    assert!(renderers.can_render(ExportFormat::Pdf) && renderers.can_render(ExportFormat::Json));
    let pdf = renderers.render(&document, ExportFormat::Pdf).await.expect("pdf");
    assert!(pdf.starts_with(b"%PDF-"));
    let json = renderers.render(&document, ExportFormat::Json).await.expect("json");
    let json: serde_json::Value = serde_json::from_slice(&json).expect("a JSON file");
    assert_eq!(json["campaign"]["name"], "Both formats");

    let without = ExportRenderers::new(None);
    assert!(!without.can_render(ExportFormat::Pdf));
    assert!(without.can_render(ExportFormat::Json));
    assert!(without.render(&document, ExportFormat::Pdf).await.is_err());
}
