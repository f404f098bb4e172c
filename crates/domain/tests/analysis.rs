//! The analysis worker: once per session, reuse of unchanged results, quality rules and redaction.

use crate::common::lab::*;
use crate::common::*;
use futures_executor::block_on;
use pulse_domain::analysis::models::{AnalysisOutcome, Rejection, judge, redact_contacts};
use pulse_domain::analysis::service::Analysis;
use pulse_domain::campaigns::models::QualityInput;
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::CampaignId;
use pulse_domain::webhooks::models::EventType;
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};
use serde_json::{Value, json};
use time::Duration;

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

/// After an upgrade, re-reading waits behind new sessions: a round full of them reads nothing
/// again, and a round reads at most a batch again.
#[test]
fn sessions_are_read_again_after_new_ones_and_a_batch_at_a_time() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for _ in 0..40 {
        respond(&l.w, &p, &campaign, 5, "great food", 60);
    }
    while !block_on(l.analysis.run_due()).expect("ran").is_empty() {}
    block_on(l.analysis.announce()).expect("announced");
    assert!(block_on(l.analysis.run_due()).expect("ran").is_empty(), "v1 read everything");

    l.w.clock.advance(Duration::minutes(1));
    let upgraded =
        Analysis::new(l.w.store.clone(), FakeAnalyzer { version: "2" }, TestCrypto::default(), l.w.clock.clone());
    block_on(upgraded.announce()).expect("announced");
    assert_eq!(results_of(&l, &p, campaign.id, &[]).metrics.pending_reanalysis, 40);
    let fresh: Vec<_> = (0..16).map(|_| respond(&l.w, &p, &campaign, 4, "good driver", 60)).collect();
    let rounds: Vec<Vec<(bool, bool)>> = (0..4)
        .map(|_| {
            let round = block_on(upgraded.run_due()).expect("ran");
            round.iter().map(|s| (fresh.contains(&s.session), s.reanalysis)).collect()
        })
        .collect();
    assert_eq!(rounds[0], vec![(true, false); 16], "a full round of new sessions reads nothing again");
    assert_eq!(rounds[1], vec![(false, true); 32]);
    assert_eq!(rounds[2], vec![(false, true); 8]);
    assert!(rounds[3].is_empty());
    assert_eq!(results_of(&l, &p, campaign.id, &[]).metrics.pending_reanalysis, 0);
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
            "answers": 2, "exchanges": 2, "analyzersRun": 2, "analyzersReused": 0})
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
        require_challenge: None,
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
    let input = block_on(pulse_domain::analysis::ports::AnalysisRepository::analysis_input(&l.w.store, session))
        .expect("read")
        .expect("finished");
    let quality = |q: QualityInput| pulse_domain::campaigns::models::Quality {
        min_duration_secs: q.min_duration_secs.map(|v| u32::try_from(v).expect("small")),
        min_coverage_ratio: q.min_coverage_ratio,
        min_answer_words: q.min_answer_words.map(|v| u32::try_from(v).expect("small")),
        ..pulse_domain::campaigns::models::Quality::default()
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

/// An analyzer whose every call fails with `code`, as a model behind an unreachable service, or a
/// database gone, would.
#[derive(Clone, Copy)]
struct Failing(ErrorCode);

impl pulse_domain::analysis::ports::Analyzer for Failing {
    fn info(&self) -> pulse_domain::analysis::models::AnalyzerInfo {
        FakeAnalyzer::default().info()
    }

    async fn sentiment(
        &self,
        _: &str,
        _: &pulse_domain::campaigns::models::LanguageTag,
    ) -> pulse_domain::Result<Option<f64>> {
        Err(match self.0 {
            ErrorCode::Unavailable => pulse_domain::Error::Unavailable("the database went away".into()),
            _ => pulse_domain::Error::internal("the model failed"),
        })
    }

    async fn key_phrases(
        &self,
        text: &str,
        language: &pulse_domain::campaigns::models::LanguageTag,
    ) -> pulse_domain::Result<Option<Vec<pulse_domain::analysis::models::KeyPhrase>>> {
        FakeAnalyzer::default().key_phrases(text, language).await
    }
}

#[test]
fn an_unreachable_database_is_tried_again_in_seconds_and_a_failing_analysis_on_the_schedule() {
    use pulse_domain::analysis::models::{UNAVAILABLE_RETRY, retry_delay};
    for (code, delay) in [(ErrorCode::Unavailable, UNAVAILABLE_RETRY), (ErrorCode::Internal, retry_delay(0))] {
        let l = lab();
        let p = partner(&l.w, true);
        let campaign = campaign_with(&l.w, &p, QualityInput::default());
        respond(&l.w, &p, &campaign, 5, "great food, good driver", 60);
        let failing = Analysis::new(l.w.store.clone(), Failing(code), TestCrypto::default(), l.w.clock.clone());
        let now = pulse_domain::shared::clock::Clock::now(&l.w.clock);
        let round = block_on(failing.run_due()).expect("ran");
        assert_eq!(
            round[0].outcome,
            AnalysisOutcome::Failed { code, retry_at: now + delay, released: true },
            "{code:?}"
        );
        l.w.clock.advance(delay);
        assert_eq!(block_on(l.analysis.run_due()).expect("ran").len(), 1, "{code:?}: due again after {delay}");
    }
}
