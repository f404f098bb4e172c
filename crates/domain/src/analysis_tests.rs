//! The analysis worker and results over the in-memory adapters, with a fake analyzer: English
//! only, `good`/`great` count +1 and `bad`/`late` -1, and every word of four letters or more is
//! a key phrase (a trailing `s` dropped from its key).

use super::*;
use crate::analysis::{
    Analysis, AnalysisOutcome, Analyzer, AnalyzerInfo, KeyPhrase, ModelInfo, Rejection, judge, redact_contacts,
};
use crate::campaign::QualityInput;
use crate::results::{QuotesState, Results, ResultsFilter, SentimentLabel, Suppression};
use crate::survey::LanguageTag;
use crate::webhooks::EventType;

struct FakeAnalyzer {
    version: &'static str,
}

fn model(name: &str, version: &str) -> ModelInfo {
    ModelInfo { name: name.into(), version: version.into(), languages: vec!["en".into()], description: "fake".into() }
}

impl Analyzer for FakeAnalyzer {
    fn info(&self) -> AnalyzerInfo {
        AnalyzerInfo { sentiment: model("fake-sentiment", self.version), themes: model("fake-themes", "1") }
    }

    async fn sentiment(&self, text: &str, language: &LanguageTag) -> Result<Option<f64>> {
        if language.primary() != "en" {
            return Ok(None);
        }
        let words: Vec<String> = text.split_whitespace().map(|w| w.to_lowercase()).collect();
        let good = words.iter().filter(|w| w.starts_with("good") || w.starts_with("great")).count();
        let bad = words.iter().filter(|w| w.starts_with("bad") || w.starts_with("late")).count();
        #[allow(clippy::cast_precision_loss)]
        Ok(Some(((good as f64 - bad as f64) / 2.0).clamp(-1.0, 1.0)))
    }

    async fn key_phrases(&self, text: &str, language: &LanguageTag) -> Result<Option<Vec<KeyPhrase>>> {
        if language.primary() != "en" {
            return Ok(None);
        }
        let mut phrases: Vec<KeyPhrase> = text
            .split(|c: char| !c.is_alphanumeric() && c != '[' && c != ']')
            .map(str::to_lowercase)
            .filter(|w| w.chars().count() >= 4 && !w.starts_with('['))
            .map(|w| KeyPhrase { key: w.trim_end_matches('s').to_owned(), label: w })
            .collect();
        phrases.dedup();
        phrases.truncate(crate::analysis::MAX_PHRASES_PER_ANSWER);
        Ok(Some(phrases))
    }
}

struct Lab {
    w: World,
    analysis: Analysis<MemoryStore, FakeAnalyzer, TestCrypto, SettableClock>,
    results: Results<MemoryStore, TestCrypto, SettableClock>,
}

fn lab() -> Lab {
    lab_with_version("1")
}

fn lab_with_version(version: &'static str) -> Lab {
    let w = world();
    let analyzer = FakeAnalyzer { version };
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), analyzer.info());
    let analysis = Analysis::new(w.store.clone(), analyzer, TestCrypto::default(), w.clock.clone());
    Lab { w, analysis, results }
}

/// A partner whose key also holds `channel:transcripts`.
fn quoting_partner(w: &World) -> Partner {
    let p = partner(w, true);
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: SCOPES.iter().map(|s| (*s).to_owned()).chain(["channel:transcripts".to_owned()]).collect(),
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = block_on(w.admin.create_key(request)).expect("key");
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    Partner { principal, ..p }
}

fn campaign_with(w: &World, p: &Partner, quality: QualityInput) -> crate::campaign::Campaign {
    let draft = provision(w, p, ProvisionInput { quality: Some(quality), ..brief() });
    launch(w, p, draft.campaign.id).expect("launched").campaign
}

/// Starts a session from a minted link carrying `attributes`, answers, waits `secs` and completes.
fn respond(
    w: &World,
    p: &Partner,
    campaign: &crate::campaign::Campaign,
    rating: i64,
    text: &str,
    secs: i64,
) -> SessionId {
    respond_with(w, p, campaign, &[("plan", "pro")], &[("q1", json!(rating)), ("q2", json!(text))], secs)
}

fn respond_with(
    w: &World,
    p: &Partner,
    campaign: &crate::campaign::Campaign,
    attributes: &[(&str, &str)],
    answers: &[(&str, Value)],
    secs: i64,
) -> SessionId {
    let begun = begin(w, p, campaign, attributes, answers);
    w.clock.advance(Duration::seconds(secs));
    finish(w, campaign, &begun)
}

fn begin(
    w: &World,
    p: &Partner,
    campaign: &crate::campaign::Campaign,
    attributes: &[(&str, &str)],
    answers: &[(&str, Value)],
) -> (SessionId, String) {
    let input = LaunchInput {
        campaign_id: campaign.id,
        external_user_ref: None,
        language: None,
        device: Some([("platform".to_owned(), json!("ios"))].into_iter().collect()),
        attributes: Some(attributes.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect()),
    };
    let link = block_on(w.campaigns.mint_link(&p.principal, None, input)).expect("minted");
    let session = started(start(w, &campaign.code, token_visit(&lt_of(&link.url))));
    let token = session.token.expose_secret().to_owned();
    let answers = answers.iter().map(|(q, v)| answer(q, v.clone())).collect();
    block_on(w.respondents.answer(&campaign.code, session.id, Some(&token), answers)).expect("answered");
    (session.id, token)
}

fn finish(w: &World, campaign: &crate::campaign::Campaign, (session, token): &(SessionId, String)) -> SessionId {
    block_on(w.respondents.complete(&campaign.code, *session, Some(token))).expect("completed");
    *session
}

fn results_of(l: &Lab, p: &Partner, id: CampaignId, filter: &[(&str, &str)]) -> crate::results::CampaignResults {
    let params: Vec<(String, String)> = filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let filter = ResultsFilter::parse(&params).expect("filter");
    block_on(l.results.results(&p.principal, None, id, filter)).expect("results")
}

#[test]
fn each_finished_session_is_analyzed_once_and_a_rerun_reuses_unchanged_results() {
    let l = lab();
    let p = partner(&l.w, true);
    let (subscription, _) = subscribe(&l.w, &p, &["feedback.analyzed"]);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let session = respond(&l.w, &p, &campaign, 5, "great food, good driver", 60);

    let summaries = block_on(l.analysis.run_due()).expect("ran");
    assert_eq!(summaries.len(), 1);
    assert_eq!(
        summaries[0].outcome,
        AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 2, reused: 0, announced: true }
    );
    assert!(block_on(l.analysis.run_due()).expect("ran").is_empty(), "nothing is due twice");
    let events = deliveries(&l.w, &p, &subscription);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].event_type, EventType::FeedbackAnalyzed);

    assert_eq!(block_on(l.analysis.rerun(campaign.id)).expect("queued"), 1);
    let again = block_on(l.analysis.run_due()).expect("ran");
    assert_eq!(
        again[0].outcome,
        AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 0, reused: 2, announced: false }
    );
    assert_eq!(deliveries(&l.w, &p, &subscription).len(), 1, "feedback.analyzed is emitted once per session");

    // A new sentiment model version runs again what it changed, and reuses the themes.
    let upgraded =
        Analysis::new(l.w.store.clone(), FakeAnalyzer { version: "2" }, TestCrypto::default(), l.w.clock.clone());
    block_on(upgraded.rerun(campaign.id)).expect("queued");
    let upgraded_run = block_on(upgraded.run_due()).expect("ran");
    assert_eq!(
        upgraded_run[0].outcome,
        AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 1, reused: 1, announced: false }
    );
    assert_eq!(upgraded_run[0].session, session);
    assert_eq!(code_of(block_on(l.analysis.rerun(CampaignId::new_random()))), ErrorCode::NotFound);
}

#[test]
fn the_analyzed_event_carries_ids_and_counts_only() {
    let l = lab();
    let p = partner(&l.w, true);
    let (subscription, _) = subscribe(&l.w, &p, &["feedback.analyzed"]);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let session = respond(&l.w, &p, &campaign, 2, "late and bad", 60);
    block_on(l.analysis.run_due()).expect("ran");
    block_on(l.w.dispatcher.deliver_due(10)).expect("sent");
    let sent = l.w.transport.sent();
    let body: Value = serde_json::from_slice(&sent.last().expect("a delivery").body).expect("json");
    assert_eq!(body["type"], "feedback.analyzed");
    assert_eq!(
        body["payload"],
        json!({
            "conversationId": session, "campaignId": campaign.id, "publicRef": campaign.code,
            "appInstallId": null, "deviceId": null, "userId": null,
            "answers": 2, "exchanges": 2, "analyzersRun": 2, "analyzersReused": 0,
        })
    );
    assert!(!String::from_utf8_lossy(&sent[0].body).contains("late"), "no word said travels in an event");
    assert_eq!(deliveries(&l.w, &p, &subscription).len(), 1);
}

#[test]
fn quality_rules_reject_sessions_and_count_them() {
    let l = lab();
    let p = partner(&l.w, true);
    let quality = QualityInput {
        min_duration_secs: Some(30),
        min_coverage_ratio: Some(0.6),
        min_answer_words: Some(3),
        max_responses: Some(2),
        target_count: Some(2),
    };
    let campaign = campaign_with(&l.w, &p, quality);
    // All start before the cap pauses new starts; they finish in this order.
    let pro = [("plan", "pro")];
    let sessions = [
        begin(&l.w, &p, &campaign, &pro, &[("q1", json!(4)), ("q2", json!("good food and service"))]),
        begin(&l.w, &p, &campaign, &[], &[("q1", json!(4))]),
        begin(&l.w, &p, &campaign, &pro, &[("q1", json!(4)), ("q2", json!("good"))]),
        begin(&l.w, &p, &campaign, &pro, &[("q1", json!(4)), ("q2", json!("good food and service"))]),
        begin(&l.w, &p, &campaign, &pro, &[("q1", json!(5)), ("q2", json!("great food and service"))]),
        begin(&l.w, &p, &campaign, &pro, &[("q1", json!(5)), ("q2", json!("great food and drinks"))]),
    ];
    l.w.clock.advance(Duration::seconds(10));
    finish(&l.w, &campaign, &sessions[0]);
    l.w.clock.advance(Duration::seconds(50));
    for session in &sessions[1..] {
        l.w.clock.advance(Duration::SECOND);
        finish(&l.w, &campaign, session);
    }
    let outcomes: Vec<Option<Rejection>> = block_on(l.analysis.run_due())
        .expect("ran")
        .into_iter()
        .map(|s| match s.outcome {
            AnalysisOutcome::Recorded { rejection, .. } => rejection,
            other => panic!("not recorded: {other:?}"),
        })
        .collect();
    assert_eq!(
        outcomes,
        vec![
            Some(Rejection::TooFast),
            Some(Rejection::LowCoverage),
            Some(Rejection::TooFewWords),
            None,
            None,
            Some(Rejection::OverCapacity)
        ]
    );
    let results = results_of(&l, &p, campaign.id, &[]);
    assert_eq!((results.acceptance.analyzed, results.acceptance.accepted, results.acceptance.rejected), (6, 2, 4));
    assert_eq!(results.accepted_count, 2);
    assert!(results.acceptance.rejections.iter().all(|(_, n)| *n == 1));
    assert_eq!((results.acceptance.target_reached, results.acceptance.capacity_reached), (Some(true), true));
    assert_eq!(results.metrics.completed, 6, "rejected sessions are counted, not deleted");
}

#[test]
fn the_floor_hides_breakdowns_of_small_groups_and_keeps_counts() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for _ in 0..4 {
        respond(&l.w, &p, &campaign, 5, "great delivery", 60);
    }
    block_on(l.analysis.run_due()).expect("ran");
    let hidden = results_of(&l, &p, campaign.id, &[]);
    assert!(hidden.floor_applied);
    assert_eq!(hidden.methodology.suppression, Some(Suppression::GroupBelowFloor));
    assert_eq!((hidden.accepted_count, hidden.anonymity_floor), (4, 5));
    assert!(hidden.sentiment.is_empty() && hidden.themes.is_empty() && hidden.csat.is_none());
    assert!(hidden.questions.iter().all(|q| q.rating.is_none() && q.sentiment.is_empty() && q.themes.is_empty()));
    assert_eq!(hidden.questions[0].answered, 4, "counts stay");
    assert_eq!(hidden.metrics.median_duration_secs, None);

    respond(&l.w, &p, &campaign, 2, "late delivery, bad", 60);
    block_on(l.analysis.run_due()).expect("ran");
    let shown = results_of(&l, &p, campaign.id, &[]);
    assert!(!shown.floor_applied);
    let count = |label| shown.sentiment.iter().find(|c| c.label == label).map(|c| c.count);
    assert_eq!(count(SentimentLabel::Positive), Some(4));
    assert_eq!(count(SentimentLabel::Negative), Some(1));
    assert_eq!(count(SentimentLabel::Neutral), Some(0));
    let csat = shown.csat.expect("csat");
    assert_eq!((csat.satisfied, csat.rated, csat.score), (4, 5, 0.8));
    assert_eq!(shown.themes[0].theme, "delivery");
    assert_eq!(shown.themes[0].count, 5);
    assert!(shown.themes.iter().all(|t| t.count >= 2), "a phrase of one session is not a theme");
    assert_eq!(shown.inferred.dominant_sentiment, Some(SentimentLabel::Positive));
    assert!(shown.inferred.positive_themes.contains(&"great".to_owned()));
    assert_eq!(shown.quotes, vec![], "no quotes without channel:transcripts");
    assert_eq!(shown.methodology.quotes, QuotesState::NotPermitted);
}

#[test]
fn a_filter_cannot_isolate_a_small_group_by_difference() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for _ in 0..6 {
        respond(&l.w, &p, &campaign, 5, "great", 60);
    }
    respond_with(&l.w, &p, &campaign, &[("plan", "free")], &[("q1", json!(1)), ("q2", json!("bad"))], 60);
    block_on(l.analysis.run_due()).expect("ran");

    let everyone = results_of(&l, &p, campaign.id, &[]);
    assert!(!everyone.floor_applied);
    let pro = results_of(&l, &p, campaign.id, &[("attribute.plan", "pro")]);
    assert_eq!(pro.accepted_count, 6);
    assert!(pro.floor_applied, "the one free respondent would show as the difference");
    assert_eq!(pro.methodology.suppression, Some(Suppression::ComplementBelowFloor));
    assert!(pro.sentiment.is_empty());
    let free = results_of(&l, &p, campaign.id, &[("attribute.plan", "free")]);
    assert_eq!((free.accepted_count, free.methodology.suppression), (1, Some(Suppression::GroupBelowFloor)));
    let ios = results_of(&l, &p, campaign.id, &[("platform", "IOS")]);
    assert_eq!((ios.accepted_count, ios.floor_applied), (7, false), "a filter that leaves nobody out shows all");
    assert!(ios.filter.is_some());
    let nobody = results_of(&l, &p, campaign.id, &[("appVersion", "9.9")]);
    assert_eq!((nobody.accepted_count, nobody.floor_applied), (0, true));
}

#[test]
fn quotes_need_the_transcripts_scope_and_are_redacted() {
    let l = lab();
    let p = quoting_partner(&l.w);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for text in ["great service", "good food", "great", "bad and late, mail me at ada@example.com", "good"] {
        respond(&l.w, &p, &campaign, 4, text, 60);
    }
    block_on(l.analysis.run_due()).expect("ran");
    let results = results_of(&l, &p, campaign.id, &[]);
    assert_eq!(results.methodology.quotes, QuotesState::Included);
    let texts: Vec<&str> = results.quotes.iter().map(|q| q.text.as_str()).collect();
    assert_eq!(texts.len(), 3);
    assert!(texts.contains(&"bad and late, mail me at [email]"), "{texts:?}");
    assert!(!format!("{results:?}").contains("ada@example.com"));
    assert!(results.quotes.iter().all(|q| q.question_id == "q2"));
}

#[test]
fn languages_the_model_does_not_cover_get_no_score() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let input = LaunchInput {
        campaign_id: campaign.id,
        external_user_ref: None,
        language: Some("hi".into()),
        device: None,
        attributes: None,
    };
    let link = block_on(l.w.campaigns.mint_link(&p.principal, None, input)).expect("minted");
    let session = started(start(&l.w, &campaign.code, token_visit(&lt_of(&link.url))));
    assert_eq!(session.language.as_str(), "hi");
    let token = session.token.expose_secret().to_owned();
    let answers = vec![answer("q1", json!(5)), answer("q2", json!("bahut accha"))];
    block_on(l.w.respondents.answer(&campaign.code, session.id, Some(&token), answers)).expect("answered");
    block_on(l.w.respondents.complete(&campaign.code, session.id, Some(&token))).expect("completed");
    block_on(l.analysis.run_due()).expect("ran");
    let results = results_of(&l, &p, campaign.id, &[]);
    assert_eq!((results.metrics.scored_answers, results.metrics.unscored_answers), (0, 1));
}

#[test]
fn closed_links_count_the_invited_respondent_as_responded() {
    let l = lab();
    let p = partner(&l.w, true);
    let draft = provision(&l.w, &p, brief());
    let invited = attach(&l.w, &p, draft.campaign.id, vec![row("r-1", None), row("r-2", None)]);
    let campaign = launch(&l.w, &p, draft.campaign.id).expect("launched").campaign;
    let session = started(start(&l.w, &campaign.code, invitation_visit(&nonce_of(&invited[0].invitation_url))));
    let token = session.token.expose_secret().to_owned();
    block_on(l.w.respondents.answer(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(3))]))
        .expect("answered");
    assert_eq!(counts(&l.w, &p, campaign.id).responded, 0, "started is not responded");
    block_on(l.w.respondents.complete(&campaign.code, session.id, Some(&token))).expect("completed");
    let counts = counts(&l.w, &p, campaign.id);
    assert_eq!((counts.invited, counts.responded, counts.started, counts.completed), (2, 1, 1, 1));
    assert_eq!(
        code_of(start(&l.w, &campaign.code, invitation_visit(&nonce_of(&invited[0].invitation_url)))),
        ErrorCode::LaunchTokenInvalid
    );
}

#[test]
fn results_are_for_the_campaigns_workspace_and_scope_only() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let stranger = partner(&l.w, true);
    assert_eq!(code_of(block_on(l.results.results(&stranger.principal, None, campaign.id, None))), ErrorCode::NotFound);
    assert_eq!(
        code_of(block_on(l.results.results(&p.principal, None, CampaignId::new_random(), None))),
        ErrorCode::NotFound
    );
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: vec!["channel:provision".into()],
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = block_on(l.w.admin.create_key(request)).expect("key");
    let narrow = block_on(l.w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    assert_eq!(
        code_of(block_on(l.results.results(&narrow, None, campaign.id, None))),
        ErrorCode::InsufficientPermission
    );
}

#[test]
fn filters_are_checked() {
    let parse = |pairs: &[(&str, &str)]| {
        let params: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ResultsFilter::parse(&params)
    };
    assert_eq!(parse(&[]).expect("none"), None);
    let filter = parse(&[("platform", "ios"), ("tag", "beta"), ("tag", "vip"), ("attribute.plan", "pro")])
        .expect("ok")
        .expect("some");
    assert_eq!(filter.tags, vec!["beta", "vip"]);
    for (bad, field) in [
        (vec![("colour", "red")], "colour"),
        (vec![("platform", "")], "platform"),
        (vec![("platform", "ios"), ("platform", "android")], "platform"),
        (vec![("attribute.", "x")], "attribute."),
        (vec![("appVersion", "x".repeat(201).leak() as &str)], "appVersion"),
    ] {
        let message = parse(&bad).expect_err("refused").to_string();
        assert!(message.contains(field), "{message} should name {field}");
    }
    let tags: Vec<(&str, String)> = (0..9).map(|i| ("tag", format!("t{i}"))).collect();
    let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert!(parse(&tags).is_err());
}

#[test]
fn contacts_are_redacted() {
    assert_eq!(redact_contacts("write to ada@example.com."), "write to [email].");
    assert_eq!(redact_contacts("call +44 20 7946 0958 today"), "call [phone] today");
    assert_eq!(redact_contacts("call (555) 123-4567, thanks"), "call [phone], thanks");
    assert_eq!(redact_contacts("see https://example.com/x?y=1 and www.example.org"), "see [link] and [link]");
    assert_eq!(redact_contacts("  3 stars, 10 minutes late\n"), "  3 stars, 10 minutes late\n");
    assert_eq!(redact_contacts("order 1234 arrived"), "order 1234 arrived");
}

#[test]
fn the_rules_judge_duration_coverage_and_words() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let session = respond(&l.w, &p, &campaign, 4, "good food here", 45);
    let input = block_on(crate::ports::AnalysisRepository::analysis_input(&l.w.store, session))
        .expect("read")
        .expect("finished");
    let quality = |q: QualityInput| crate::campaign::Quality {
        min_duration_secs: q.min_duration_secs.map(|v| u32::try_from(v).expect("small")),
        min_coverage_ratio: q.min_coverage_ratio,
        min_answer_words: q.min_answer_words.map(|v| u32::try_from(v).expect("small")),
        ..crate::campaign::Quality::default()
    };
    let verdict = judge(&quality(QualityInput::default()), &input, true);
    assert_eq!((verdict.duration_secs, verdict.words, verdict.rejection), (45, 3, None));
    assert!((verdict.coverage - 2.0 / 3.0).abs() < 1e-9);
    let edge = QualityInput { min_duration_secs: Some(45), min_answer_words: Some(3), ..QualityInput::default() };
    assert_eq!(judge(&quality(edge), &input, true).rejection, None, "limits are inclusive");
    let words = QualityInput { min_answer_words: Some(4), ..QualityInput::default() };
    assert_eq!(judge(&quality(words.clone()), &input, true).rejection, Some(Rejection::TooFewWords));
    assert_eq!(judge(&quality(words), &input, false).rejection, None, "no text question, no word rule");
    let coverage = QualityInput { min_coverage_ratio: Some(0.7), ..QualityInput::default() };
    assert_eq!(judge(&quality(coverage), &input, true).rejection, Some(Rejection::LowCoverage));
}
