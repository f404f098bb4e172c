//! `AnalysisRepository`: a finished session's job is claimed by one worker at a time, held by its
//! lease, and given back by its holder only; `Backlogs` counts the work waiting in each queue;
//! analyses an older analyzer read are claimed again for the analyzer in charge.

use futures_util::future::join;
use pulse_domain::sessions::models::AnswerInput;
use pulse_domain::shared::clock::Clock;
use pulse_domain::webhooks::models::{SubscriptionInput, SubscriptionPatch};
use secrecy::ExposeSecret;
use serde_json::json;
use time::Duration;
use uuid::Uuid;

use super::results::{ScoreMarks, analyze_all, quoting_campaign, respond, respond_all};
use super::{Store, World};
use crate::fakes::{FakeAnalyzer, TestCrypto};
use pulse_domain::analysis::models::AnalysisOutcome;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::analysis::service::Analysis;
use pulse_domain::results::service::Results;

pub async fn a_finished_sessions_job_is_claimed_once_per_lease_and_released_by_its_holder<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await;
    let code = &campaign.campaign.code;
    let token = w.minted_token(&partner, &campaign).await;
    let session = w.start(code, &token).await.expect("started");
    let rating = AnswerInput { question_id: "q1".into(), value: json!(4) };
    w.respondents.answer(code, session.id, Some(session.token.expose_secret()), vec![rating]).await.expect("answered");
    w.respondents.complete(code, session.id, Some(session.token.expose_secret())).await.expect("completed");

    let now = w.clock.now();
    let lease = now + Duration::minutes(5);
    let (a, b) = join(w.store.claim_analyses(now, lease, 8), w.store.claim_analyses(now, lease, 8)).await;
    let mut claimed = a.expect("claimed");
    claimed.extend(b.expect("claimed"));
    assert_eq!(claimed.len(), 1, "one job, claimed once");
    let job = claimed.remove(0);
    assert_eq!((job.session, job.attempts), (session.id, 0));
    assert!(w.store.claim_analyses(now, lease, 8).await.expect("claimed").is_empty(), "held by its lease");

    let retry_at = now + Duration::minutes(1);
    w.store.release_analysis(session.id, Uuid::new_v4(), retry_at).await.expect("a stranger's release");
    assert!(
        w.store.claim_analyses(retry_at, lease, 8).await.expect("claimed").is_empty(),
        "a stranger released nothing"
    );
    w.store.release_analysis(session.id, job.claim_token, retry_at).await.expect("released");
    let again = w.store.claim_analyses(retry_at, retry_at + Duration::minutes(5), 8).await.expect("claimed");
    assert_eq!(again.iter().map(|j| (j.session, j.attempts)).collect::<Vec<_>>(), [(session.id, 1)]);
}

/// The metrics endpoint's backlog: due work per queue and how long the oldest has waited.
pub async fn the_backlog_counts_due_work_and_the_age_of_the_oldest<S: Store>(store: S) {
    let w = World::new(store);
    let empty = w.store.backlog(w.clock.now()).await.expect("read");
    assert_eq!((empty.analyses.due, empty.webhook_deliveries.due, empty.exports.due), (0, 0, 0));
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await;
    let code = &campaign.campaign.code;
    let token = w.minted_token(&partner, &campaign).await;
    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    let session = w.start(code, &token).await.expect("started");
    let rating = AnswerInput { question_id: "q1".into(), value: json!(4) };
    w.respondents.answer(code, session.id, Some(session.token.expose_secret()), vec![rating]).await.expect("answered");
    w.respondents.complete(code, session.id, Some(session.token.expose_secret())).await.expect("completed");
    w.webhooks.simulate(&partner.principal, None, subscription.id).await.expect("queued");
    // Paused, the endpoint's feedback.received waits for it to resume: not work due. Its test
    // event is sent all the same.
    let pause = SubscriptionPatch { is_active: Some(false), ..SubscriptionPatch::default() };
    w.webhooks.update(&partner.principal, None, subscription.id, pause).await.expect("paused");

    w.clock.advance(Duration::seconds(30));
    let backlog = w.store.backlog(w.clock.now()).await.expect("read");
    assert_eq!(backlog.analyses.due, 1, "the finished session waits for its analysis");
    assert_eq!(
        backlog.webhook_deliveries.due, 1,
        "the test event waits for its attempt; the paused endpoint's feedback is not due"
    );
    for oldest in [backlog.analyses.oldest_secs, backlog.webhook_deliveries.oldest_secs] {
        assert!((29.0..=31.0).contains(&oldest), "waited about 30 s: {oldest}");
    }
    assert_eq!((backlog.exports.due, backlog.outreach_messages.due), (0, 0));
}

/// After an analyzer upgrade, the analyzer in charge (announced with the latest start) reads again
/// every analysis another analyzer read, in claims that never overlap and never take a session
/// with no text; results count what is left. A replica still on the older analyzer reads nothing
/// again, until it starts later than the newer one.
pub async fn analyses_an_older_analyzer_read_are_read_again_by_the_one_in_charge<S: Store>(store: S) {
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    respond_all(&w, &p, &campaign).await;
    respond(&w, &p, &campaign, &[("ios", "2.1.0", "pro", 3, "en", 4, " ", " ", 30)]).await;
    analyze_all(&w, "1").await;
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let metrics = async || results.results(&p.principal, None, id, None).await.expect("results").metrics;
    let first = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!((first.metrics.pending_analysis, first.metrics.pending_reanalysis), (0, 0), "no analyzer in charge");

    let older =
        Analysis::new(w.store.clone(), ScoreMarks(FakeAnalyzer { version: "1" }), w.crypto.clone(), w.clock.clone());
    let newer =
        Analysis::new(w.store.clone(), ScoreMarks(FakeAnalyzer { version: "2" }), w.crypto.clone(), w.clock.clone());
    let (v1, v2) =
        (FakeAnalyzer { version: "1" }.info().fingerprint(), FakeAnalyzer { version: "2" }.info().fingerprint());
    older.announce().await.expect("announced");
    assert_eq!(metrics().await.pending_reanalysis, 0, "everything was read by the analyzer in charge");
    w.clock.advance(Duration::minutes(1));
    newer.announce().await.expect("announced");
    assert_eq!(metrics().await.pending_reanalysis, 16, "the session without text is not read again");
    let lease = w.clock.now() + Duration::minutes(5);
    assert!(w.store.claim_reanalyses(&v1, lease, 8).await.expect("claimed").is_empty(), "v1 is not in charge");

    let (a, b) = join(w.store.claim_reanalyses(&v2, lease, 5), w.store.claim_reanalyses(&v2, lease, 5)).await;
    let mut claimed: Vec<_> = a.expect("claimed").into_iter().chain(b.expect("claimed")).map(|j| j.session).collect();
    claimed.sort();
    claimed.dedup();
    assert_eq!(claimed.len(), 10, "two claims of five, none taken twice");
    assert_eq!(metrics().await.pending_reanalysis, 6, "claimed sessions are no longer waiting");
    let rest = w.store.claim_reanalyses(&v2, lease, 32).await.expect("claimed");
    assert_eq!(rest.len(), 6);
    for job in rest {
        w.store.release_analysis(job.session, job.claim_token, w.clock.now()).await.expect("released");
    }
    // The six released are due now; the ten claimed above come back when their lease ends.
    let mut rounds = newer.run_due().await.expect("a round");
    w.clock.advance(Duration::minutes(6));
    rounds.extend(newer.run_due().await.expect("a round"));
    assert_eq!(rounds.len(), 16);
    for summary in &rounds {
        assert!(
            matches!(summary.outcome, AnalysisOutcome::Recorded { run: 1.., reused: 1.., announced: false, .. }),
            "sentiment read again, themes reused, no second feedback.analyzed: {summary:?}"
        );
    }
    let after = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!(after.metrics.pending_reanalysis, 0);
    assert_eq!((after.accepted_count, after.themes.clone()), (first.accepted_count, first.themes.clone()));
    assert!(newer.run_due().await.expect("a round").is_empty(), "nothing left to read again");

    // The older replica restarts: started last, it is in charge again, and the newer one waits.
    w.clock.advance(Duration::minutes(1));
    older.announce().await.expect("announced");
    assert_eq!(metrics().await.pending_reanalysis, 16);
    assert!(newer.run_due().await.expect("a round").is_empty(), "v2 is no longer in charge");
    let back = older.run_due().await.expect("a round");
    assert!(back.len() == 16 && back.iter().all(|s| s.reanalysis), "{back:?}");
    assert_eq!(metrics().await.pending_reanalysis, 0);
}
