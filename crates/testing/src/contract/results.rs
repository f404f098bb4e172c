//! `ResultsRepository`: the results the maintained tallies give are exactly those computed from
//! every analyzed answer, for the whole campaign and for every filter, with quotes, after a
//! re-analysis as after the first.

use pulse_domain::Result;
use pulse_domain::analysis::models::{AnalyzerInfo, KeyPhrase};
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::analysis::service::Analysis;
use pulse_domain::apps::models::RegisterInput;
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::campaigns::models::{BriefInput, CampaignOverview, LaunchInput, ProvisionInput, QualityInput};
use pulse_domain::ids::CampaignId;
use pulse_domain::results::models::{
    Dimension, Metric, ResultsFilter, Segment, Suppression, Trend, TrendRequest, group_sizes,
};
use pulse_domain::results::service::Results;
use pulse_domain::sessions::models::{AnswerInput, StartInput, StartOutcome, StartedSession, Visit};
use pulse_domain::shared::time_zone::{TimeZoneName, ZoneOffsets};
use pulse_domain::tenancy::service::KeyRequest;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use time::Duration;

use super::{Partner, SCOPES, Store, World};
use crate::fakes::{FakeAnalyzer, TestCrypto};
use pulse_domain::shared::clock::Clock as _;

/// One respondent: device platform, app version, plan, seats, language, rating, two texts, seconds.
pub type Person = (&'static str, &'static str, &'static str, i64, &'static str, i64, &'static str, &'static str, i64);

const PEOPLE: [Person; 16] = [
    ("ios", "2.1.0", "pro", 3, "en", 5, "great delivery, good driver", "great orders", 60),
    ("ios", "2.1.0", "pro", 3, "en", 4, "good delivery", "order was great", 45),
    ("iOS", "2.0.0", "pro", 1, "en", 2, "late delivery, bad packaging", "late order", 70),
    ("android", "2.1.0", "free", 1, "en", 1, "bad driver and late", "orders late again", 90),
    ("android", "2.1.0", "pro", 3, "en", 3, "delivery", "order", 50),
    ("android", "2.0.0", "pro", 5, "hi", 5, "bahut accha delivery", "lang:en order", 65),
    ("ios", "2.1.0", "free", 3, "en", 4, "good", "good", 40),
    ("ios", "2.1.0", "pro", 3, "en", 4, "good", "good", 40),
    ("web", "1.0", "pro", 3, "en", 5, "great great packaging, call me at +49 170 1234567", "great", 120),
    ("web", "1.0", "free", 2, "en", 1, "late late late", "bad", 33),
    ("ios", "2.1.0", "pro", 3, "en", 5, "fast delivery, great packaging", "   ", 5),
    ("android", "2.1.0", "pro", 3, "en", 2, "packaging was bad", "orders", 55),
    ("ios", "2.0.0", "pro", 3, "en", 3, "neutral delivery", "fine order", 60),
    ("ios", "2.1.0", "free", 3, "en", 5, "good driver", "great orders", 61),
    ("android", "2.1.0", "pro", 3, "en", 4, "drivers were good", "driver", 62),
    ("web", "1.0", "pro", 3, "en", 3, "packaging", "delivery", 58),
];

/// A launched campaign (a rating and two text questions, in English and Hindi, sessions under 10
/// seconds rejected) whose key also holds `channel:transcripts`.
///
/// # Panics
/// When the services refuse what a fresh store must accept.
pub async fn quoting_campaign<S: Store>(w: &World<S>) -> (Partner, CampaignOverview) {
    let p = w.partner("Acme").await;
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: SCOPES.iter().chain(&["channel:transcripts"]).map(|s| (*s).to_owned()).collect(),
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = w.admin.create_key(request).await.expect("key");
    let principal = w.tenancy.authenticate(Some(issued.key.expose_secret())).await.expect("principal");
    let p = Partner { principal, ..p };
    let input = ProvisionInput {
        brief: Some(BriefInput {
            intent_text: "How was the delivery today?".into(),
            question_count: Some(3),
            languages: Some(vec!["en".into(), "hi".into()]),
            ..BriefInput::default()
        }),
        quality: Some(QualityInput { min_duration_secs: Some(10), ..QualityInput::default() }),
        ..ProvisionInput::default()
    };
    let draft = w.campaigns.provision(&p.principal, None, input).await.expect("provisioned");
    let campaign = w.campaigns.launch(&p.principal, None, draft.campaign.id).await.expect("launched");
    (p, campaign)
}

/// The partner's principal through a key of the same workspace without `channel:transcripts`.
///
/// # Panics
/// When the services refuse what a fresh store must accept.
pub async fn without_transcripts<S: Store>(w: &World<S>, p: &Partner) -> pulse_domain::tenancy::models::Principal {
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: SCOPES.iter().map(|s| (*s).to_owned()).collect(),
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = w.admin.create_key(request).await.expect("key");
    w.tenancy.authenticate(Some(issued.key.expose_secret())).await.expect("principal")
}

/// Every person of the scene answers and finishes.
///
/// # Panics
/// When the services refuse what a fresh store must accept.
pub async fn respond_all<S: Store>(w: &World<S>, p: &Partner, campaign: &CampaignOverview) {
    respond(w, p, campaign, &PEOPLE).await;
}

/// Each of `people` answers and finishes.
///
/// # Panics
/// When the services refuse what a fresh store must accept.
pub async fn respond<S: Store>(w: &World<S>, p: &Partner, campaign: &CampaignOverview, people: &[Person]) {
    let code = &campaign.campaign.code;
    for &(platform, version, plan, seats, language, rating, first, second, secs) in people {
        let device = [("platform".to_owned(), json!(platform)), ("appVersion".to_owned(), json!(version))];
        let attributes = [("plan".to_owned(), json!(plan)), ("seats".to_owned(), json!(seats))];
        let input = LaunchInput {
            campaign_id: campaign.campaign.id,
            external_user_ref: None,
            language: Some(language.into()),
            device: Some(device.into_iter().collect()),
            attributes: Some(attributes.into_iter().collect()),
        };
        let token = minted_token(w, p, input).await;
        let session = w.start(code, &token).await.expect("started");
        finish(w, code, &session, rating, first, second, secs).await;
    }
}

async fn minted_token<S: Store>(w: &World<S>, p: &Partner, input: LaunchInput) -> String {
    let link = w.campaigns.mint_link(&p.principal, None, input).await.expect("minted");
    let (_, rest) = link.url.split_once("?lt=").expect("an lt link");
    rest.split('&').next().expect("a token").to_owned()
}

/// Answers the rating and the two texts (a blank one is skipped) and finishes `secs` later.
async fn finish<S: Store>(
    w: &World<S>,
    code: &str,
    session: &StartedSession,
    rating: i64,
    first: &str,
    second: &str,
    secs: i64,
) {
    let answers: Vec<AnswerInput> = [("q1", json!(rating)), ("q2", json!(first)), ("q3", json!(second))]
        .into_iter()
        .filter(|(_, v): &(&str, Value)| v.as_str().is_none_or(|t| !t.trim().is_empty()))
        .map(|(q, value)| AnswerInput { question_id: q.into(), value })
        .collect();
    let secret = session.token.expose_secret();
    w.respondents.answer(code, session.id, Some(secret), answers).await.expect("answered");
    w.clock.advance(Duration::seconds(secs));
    w.respondents.complete(code, session.id, Some(secret)).await.expect("completed");
}

/// Runs the analysis worker until nothing is due.
///
/// # Panics
/// When a round fails.
pub async fn analyze_all<S: Store>(w: &World<S>, version: &'static str) {
    let analysis =
        Analysis::new(w.store.clone(), ScoreMarks(FakeAnalyzer { version }), w.crypto.clone(), w.clock.clone());
    while !analysis.run_due().await.expect("a round").is_empty() {}
}

/// [`FakeAnalyzer`], except that a word `~0.0258` gives the answer's score itself (to four
/// decimals, as analyzers give them) and is no key phrase.
#[derive(Clone, Copy, Debug)]
pub struct ScoreMarks(pub FakeAnalyzer);

fn unmarked(text: &str) -> String {
    text.split_whitespace().filter(|w| !w.starts_with('~')).collect::<Vec<_>>().join(" ")
}

impl Analyzer for ScoreMarks {
    fn info(&self) -> AnalyzerInfo {
        self.0.info()
    }

    fn language_of(&self, text: &str, asked_in: &LanguageTag) -> LanguageTag {
        self.0.language_of(text, asked_in)
    }

    async fn sentiment(&self, text: &str, language: &LanguageTag) -> Result<Option<f64>> {
        let marked = text.split_whitespace().find_map(|w| w.strip_prefix('~')?.parse::<f64>().ok());
        match marked {
            Some(score) if language.primary() == "en" => Ok(Some(score)),
            _ => self.0.sentiment(&unmarked(text), language).await,
        }
    }

    async fn key_phrases(&self, text: &str, language: &LanguageTag) -> Result<Option<Vec<KeyPhrase>>> {
        self.0.key_phrases(&unmarked(text), language).await
    }
}

/// Sessions whose scores put means exactly on the boundaries that rounding and labels draw: the
/// themes `delivery` (mean 0.05) and `driver` (mean -0.05) lean exactly at the threshold, and the
/// overall score (0.0335) lies on a rounding boundary of its third decimal.
pub const BOUNDARY_PEOPLE: [Person; 6] = [
    ("ios", "2.1.0", "pro", 3, "en", 4, "~0.0258 delivery", "~0.0258 order", 60),
    ("ios", "2.1.0", "pro", 3, "en", 4, "~0.0742 delivery", "~0.0742 order", 60),
    ("android", "2.1.0", "pro", 3, "en", 4, "~0.1000 packaging", "~0.1000 order", 60),
    ("android", "2.1.0", "free", 3, "en", 4, "~0.1010 packaging", "~0.1010 order", 60),
    ("web", "1.0", "pro", 3, "en", 4, "~-0.0258 driver", "~-0.0258 order", 60),
    ("web", "1.0", "free", 3, "en", 4, "~-0.0742 driver", "~-0.0742 order", 60),
];

/// The filters the comparison reads the campaign through.
pub const FILTERS: [&[(&str, &str)]; 14] = [
    &[],
    &[("platform", "ios")],
    &[("platform", "IOS")],
    &[("platform", "android")],
    &[("appVersion", "2.1.0")],
    &[("platform", "iOS"), ("appVersion", "2.1.0")],
    &[("attribute.plan", "pro")],
    &[("attribute.plan", "free")],
    &[("attribute.seats", "3")],
    &[("attribute.seats", "3"), ("attribute.plan", "pro")],
    &[("tag", "beta")],
    &[("attribute.colour", "red")],
    &[("language", "HI")],
    &[("language", "en"), ("platform", "android")],
];

/// Holds the tallied results to those computed from every answer, for every filter in
/// [`FILTERS`], with and without quotes.
///
/// # Panics
/// When they differ.
pub async fn assert_tallies_agree<S: Store>(w: &World<S>, p: &Partner, campaign: CampaignId) {
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    for filter in FILTERS {
        let params: Vec<(String, String)> = filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let filter = ResultsFilter::parse(&params).expect("a filter");
        let tallied = results.results(&p.principal, None, campaign, filter.clone()).await.expect("tallied");
        let recomputed =
            results.results_from_answers(&p.principal, None, campaign, filter.clone()).await.expect("recomputed");
        assert_eq!(tallied, recomputed, "with quotes, filter {filter:?}");
    }
}

pub async fn tallied_means_on_rounding_boundaries_equal_those_computed_from_every_answer<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    respond(&w, &p, &campaign, &BOUNDARY_PEOPLE).await;
    analyze_all(&w, "1").await;
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let tallied = results.results(&p.principal, None, id, None).await.expect("results");
    let recomputed = results.results_from_answers(&p.principal, None, id, None).await.expect("recomputed");
    assert_eq!(tallied, recomputed);
    // Exact means: 0.05 and -0.05 are at the threshold, so the themes lean.
    assert_eq!(
        (tallied.inferred.positive_themes.clone(), tallied.inferred.negative_themes.clone()),
        (vec!["delivery".to_owned(), "packaging".to_owned()], vec!["driver".to_owned()]),
        "{tallied:#?}"
    );
    assert_eq!(tallied.overall_sentiment_score, 0.034);
    assert_tallies_agree(&w, &p, id).await;
}

pub async fn tallied_results_equal_results_computed_from_every_answer<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    respond_all(&w, &p, &campaign).await;
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let pending = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!((pending.metrics.pending_analysis, pending.acceptance.analyzed), (16, 0));

    analyze_all(&w, "1").await;
    let first = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!((first.metrics.pending_analysis, first.acceptance.analyzed, first.accepted_count), (0, 16, 15));
    assert!(!first.floor_applied && !first.themes.is_empty() && first.quotes.len() == 6, "{first:#?}");
    assert_tallies_agree(&w, &p, id).await;
    // The Hindi session's second answer is written in English: scored in English, and counted as
    // read in another language than its session's; its first answer stays unscored Hindi.
    let languages: Vec<&str> = first.methodology.languages_scored.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!((languages, first.methodology.answers_in_other_language), (vec!["en"], 1));

    // A re-analysis replaces each session's tally: nothing is counted twice.
    let analysis =
        Analysis::new(w.store.clone(), ScoreMarks(FakeAnalyzer { version: "2" }), w.crypto.clone(), w.clock.clone());
    assert_eq!(analysis.rerun(id).await.expect("requeued"), 16);
    analyze_all(&w, "2").await;
    let again = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!(
        (again.accepted_count, again.acceptance.analyzed, again.themes.clone(), again.quotes.clone()),
        (first.accepted_count, first.acceptance.analyzed, first.themes.clone(), first.quotes.clone())
    );
    assert_tallies_agree(&w, &p, id).await;
}

/// App users whose sessions carry no launch labels: filters read their device's platform and app
/// version as they are at the time of the read, so a device that updates its app moves its
/// sessions to the new version.
pub async fn sessions_without_launch_labels_are_filtered_by_their_devices_labels_now<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let (id, code) = (campaign.campaign.id, campaign.campaign.code.clone());
    respond_all(&w, &p, &campaign).await;
    let mut devices = Vec::new();
    for (platform, version, rating, text) in [
        ("ios", "2.0.0", 5, "great delivery, good driver"),
        ("ios", "2.0.0", 4, "good delivery"),
        ("android", "2.1.0", 2, "late delivery, bad packaging"),
        ("ios", "2.1.0", 3, "good packaging"),
    ] {
        let device = w
            .apps
            .register(RegisterInput {
                campaign_code: code.clone(),
                app_id: "com.acme.shop".into(),
                platform: platform.into(),
                app_version: version.into(),
                ..RegisterInput::default()
            })
            .await
            .expect("registered");
        let input = LaunchInput {
            campaign_id: id,
            external_user_ref: None,
            language: Some("en".into()),
            device: None,
            attributes: None,
        };
        let start = StartInput {
            consent_given: Some(true),
            visit: Visit { launch_token: Some(minted_token(&w, &p, input).await), ..Visit::default() },
            device_token: device.tokens.access_token.as_ref().map(|t| t.expose_secret().to_owned()),
            ..StartInput::default()
        };
        let StartOutcome::Started(session) = w.respondents.start(&code, start).await.expect("started") else {
            panic!("not started");
        };
        finish(&w, &code, &session, rating, text, "orders", 60).await;
        devices.push(device);
    }
    analyze_all(&w, "1").await;
    assert_tallies_agree(&w, &p, id).await;

    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let newest = ResultsFilter { app_version: Some("2.1.0".into()), ..ResultsFilter::default() };
    let before = results.results(&p.principal, None, id, Some(newest.clone())).await.expect("results");
    let updated = &devices[0];
    w.apps
        .register(RegisterInput {
            campaign_code: code.clone(),
            app_id: "com.acme.shop".into(),
            platform: "ios".into(),
            app_version: "2.1.0".into(),
            device_id: Some(updated.device_id.0.to_string()),
            refresh_token: Some(updated.refresh_token.expose_secret().to_owned()),
            ..RegisterInput::default()
        })
        .await
        .expect("registered again");
    let after = results.results(&p.principal, None, id, Some(newest)).await.expect("results");
    assert_eq!(after.accepted_count, before.accepted_count + 1, "the updated device's session moved to 2.1.0");
    assert_tallies_agree(&w, &p, id).await;
}

/// Groups for breakdowns are those every analyzed answer gives, for every dimension and filter,
/// and none for another workspace.
pub async fn groups_are_counted_as_from_every_answer<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    respond_all(&w, &p, &campaign).await;
    analyze_all(&w, "1").await;
    let platforms = w.store.result_groups(p.workspace, id, &Dimension::Platform, None).await.expect("groups");
    let sizes: Vec<(Option<&str>, u64)> = platforms.iter().map(|g| (g.value.as_deref(), g.accepted)).collect();
    assert_eq!(sizes, vec![(Some("ios"), 7), (Some("android"), 5), (Some("web"), 3)], "iOS is ios; one is too fast");

    let input = w.store.results_input(p.workspace, id, false).await.expect("input").expect("campaign");
    let dimensions = [
        Dimension::Platform,
        Dimension::AppVersion,
        Dimension::Language,
        Dimension::Tag,
        Dimension::Attribute("plan".into()),
        Dimension::Attribute("seats".into()),
        Dimension::Attribute("colour".into()),
    ];
    for filter in FILTERS {
        let params: Vec<(String, String)> = filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let filter = ResultsFilter::parse(&params).expect("a filter");
        let selected: Vec<&Segment> = input
            .sessions
            .iter()
            .filter(|s| s.rejection.is_none() && filter.as_ref().is_none_or(|f| f.matches(&s.segment)))
            .map(|s| &s.segment)
            .collect();
        for by in &dimensions {
            let stored = w.store.result_groups(p.workspace, id, by, filter.as_ref()).await.expect("groups");
            assert_eq!(stored, group_sizes(selected.iter().copied(), by), "by {by:?}, filter {filter:?}");
        }
    }
    let stranger = w.partner("Other").await;
    let foreign = w.store.result_groups(stranger.workspace, id, &Dimension::Platform, None).await.expect("groups");
    assert!(foreign.is_empty(), "another workspace's campaign has no groups");
}

/// Trends count accepted sessions by the day they were completed, in blocks of at least the
/// floor: a sparse day joins the block after it until the floor is reached, and a filter's
/// blocks are gathered until each of its cells passes.
pub async fn trends_count_sessions_by_the_day_they_were_completed<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    let monday = w.clock.now().date().next_occurrence(time::Weekday::Monday);
    w.clock.set(monday.with_hms(9, 0, 0).expect("a time").assume_utc());
    respond(&w, &p, &campaign, &PEOPLE[..6]).await;
    w.clock.set(monday.next_day().expect("a day").with_hms(9, 0, 0).expect("a time").assume_utc());
    respond(&w, &p, &campaign, &PEOPLE[6..8]).await;
    let next_wednesday = monday + Duration::days(9);
    w.clock.set(next_wednesday.with_hms(9, 0, 0).expect("a time").assume_utc());
    respond(&w, &p, &campaign, &PEOPLE[11..16]).await;
    analyze_all(&w, "1").await;

    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let trend = |params: &[(&str, &str)]| {
        let params: Vec<(String, String)> = params.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        let request = TrendRequest::parse(&params).expect("a request");
        let results = &results;
        let principal = &p.principal;
        async move { results.trend(principal, None, id, request).await.expect("a trend") }
    };
    let day = |d: time::Date| -> jiff::civil::Date { d.to_string().parse().expect("a date") };
    let spans = |trend: &Trend| -> Vec<(jiff::civil::Date, jiff::civil::Date, jiff::civil::Date, u64, Option<u64>)> {
        trend
            .buckets
            .iter()
            .map(|b| (b.period, b.first_day, b.last_day, b.accepted, b.csat.map(|c| c.satisfied)))
            .collect()
    };
    let (mon, tue, wed) = (day(monday), day(monday.next_day().expect("a day")), day(next_wednesday));
    let daily = trend(&[("interval", "day")]).await;
    assert_eq!(
        spans(&daily),
        vec![(mon, mon, mon, 6, Some(3)), (tue, tue, wed, 7, Some(4))],
        "Tuesday's two join the next Wednesday's five"
    );
    let weekly = trend(&[("interval", "week")]).await;
    assert_eq!(spans(&weekly), vec![(mon, mon, wed, 13, Some(7))], "the second week is merged into the first");
    let from_tuesday = trend(&[("interval", "day"), ("from", &tue.to_string())]).await;
    assert_eq!((from_tuesday.first_day, from_tuesday.last_day), (Some(tue), Some(wed)));
    let on_wednesday = trend(&[("interval", "day"), ("from", &wed.to_string()), ("to", &wed.to_string())]).await;
    assert_eq!(spans(&on_wednesday), vec![(tue, tue, wed, 7, Some(4))], "a range is widened to whole blocks");
    let ios = trend(&[("interval", "day"), ("platform", "ios")]).await;
    assert_eq!(
        spans(&ios),
        vec![(mon, mon, wed, 7, Some(5))],
        "Monday's three iOS sessions, beside three others, wait for the floor"
    );
    let web = trend(&[("platform", "web")]).await;
    assert_eq!((web.buckets.len(), web.suppression), (0, Some(Suppression::GroupBelowFloor)));
    let hindi = trend(&[("language", "hi")]).await;
    assert_eq!((hindi.buckets.len(), hindi.suppression), (0, Some(Suppression::GroupBelowFloor)));
    let english = trend(&[("language", "en")]).await;
    assert_eq!(
        (english.buckets.len(), english.suppression),
        (0, Some(Suppression::ComplementBelowFloor)),
        "the English sessions are all but the one Hindi session"
    );
    let stranger = w.partner("Other").await;
    let request = TrendRequest::parse(&[]).expect("a request");
    let refused = results.trend(&stranger.principal, None, id, request).await.expect_err("another workspace's");
    assert_eq!(refused.code(), pulse_domain::error::ErrorCode::NotFound);
}

/// A trend's days are the local days of each time zone, the way the domain reads an instant
/// (`ZoneOffsets::local_day`): sessions completed either side of local midnights at offsets of
/// whole, half and three-quarter hours, and either side of a summer time change, fall on the same
/// days in both stores, with and without a filter.
pub async fn trend_days_are_the_local_days_of_each_time_zone<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    // Paris leaves summer time at 01:00 UTC on 25 October 2026; St John's on 1 November.
    let instants = [
        "2026-10-24T18:14:00Z", // Kathmandu (+5:45) before its midnight
        "2026-10-24T18:16:00Z", // and after
        "2026-10-24T18:29:00Z", // Kolkata (+5:30) before its midnight
        "2026-10-24T18:31:00Z",
        "2026-10-24T21:59:00Z", // Paris (+2 in summer) before its midnight
        "2026-10-24T22:01:00Z",
        "2026-10-25T00:59:00Z", // Paris, either side of its change
        "2026-10-25T01:01:00Z",
        "2026-10-25T22:59:00Z", // Paris (+1 in winter) before its midnight
        "2026-10-25T23:01:00Z",
        "2026-11-01T02:29:00Z", // St John's (-2:30) before its midnight
        "2026-11-01T02:31:00Z",
        "2026-11-01T09:59:00Z", // Kiritimati (+14) before its midnight
        "2026-11-01T10:01:00Z",
        "2026-11-02T03:29:00Z", // St John's (-3:30) before its midnight
        "2026-11-02T03:31:00Z",
        "2026-11-02T23:45:00Z", // UTC's last quarter hour
    ];
    let people: Vec<&Person> = PEOPLE.iter().filter(|person| person.8 >= 10).collect();
    let mut completed = Vec::new();
    for (i, instant) in instants.iter().enumerate() {
        let person = people[i % people.len()];
        let at = time::OffsetDateTime::parse(instant, &time::format_description::well_known::Rfc3339).expect("a time");
        w.clock.set(at - Duration::seconds(person.8));
        respond(&w, &p, &campaign, std::slice::from_ref(person)).await;
        assert_eq!(w.clock.now(), at, "completed at the instant");
        completed.push((at.unix_timestamp(), person.0.eq_ignore_ascii_case("ios")));
    }
    analyze_all(&w, "1").await;
    let ios = ResultsFilter::parse(&[("platform".to_owned(), "ios".to_owned())]).expect("a filter");
    for zone in ["UTC", "Asia/Kathmandu", "Asia/Kolkata", "Europe/Paris", "America/St_Johns", "Pacific/Kiritimati"] {
        let name = TimeZoneName::parse("timeZone", zone).expect("a zone");
        let offsets = ZoneOffsets::of(&name, w.clock.now() + Duration::days(1));
        for filter in [None, ios.as_ref()] {
            let input = w.store.trend_days(p.workspace, id, filter, &offsets).await.expect("days").expect("campaign");
            let stored: Vec<(jiff::civil::Date, u64, i64)> = input
                .days
                .iter()
                .map(|d| {
                    let accepted = d.counts.iter().filter(|c| c.metric == Metric::Accepted).map(|c| c.n).sum();
                    (d.day, d.cells.values().sum(), accepted)
                })
                .collect();
            let mut expected: std::collections::BTreeMap<jiff::civil::Date, (u64, i64)> =
                std::collections::BTreeMap::new();
            for &(at, on_ios) in &completed {
                let day = expected.entry(offsets.local_day(at)).or_default();
                day.0 += 1;
                day.1 += i64::from(filter.is_none() || on_ios);
            }
            let expected: Vec<(jiff::civil::Date, u64, i64)> =
                expected.into_iter().map(|(day, (all, selected))| (day, all, selected)).collect();
            assert_eq!(stored, expected, "{zone}, filter {filter:?}");
        }
    }
}
