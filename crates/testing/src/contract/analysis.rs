//! `AnalysisRepository`: a finished session's job is claimed by one worker at a time, held by its
//! lease, and given back by its holder only; `Backlogs` counts the work waiting in each queue.

use futures_util::future::join;
use pulse_domain::sessions::models::AnswerInput;
use pulse_domain::shared::clock::Clock;
use pulse_domain::webhooks::models::SubscriptionInput;
use secrecy::ExposeSecret;
use serde_json::json;
use time::Duration;
use uuid::Uuid;

use super::{Store, World};

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
    let session = w.start(code, &token).await.expect("started");
    let rating = AnswerInput { question_id: "q1".into(), value: json!(4) };
    w.respondents.answer(code, session.id, Some(session.token.expose_secret()), vec![rating]).await.expect("answered");
    w.respondents.complete(code, session.id, Some(session.token.expose_secret())).await.expect("completed");
    let input =
        SubscriptionInput { url: Some("https://hooks.example.com/pulse".into()), description: None, event_types: None };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    w.webhooks.simulate(&partner.principal, None, subscription.id).await.expect("queued");

    w.clock.advance(Duration::seconds(30));
    let backlog = w.store.backlog(w.clock.now()).await.expect("read");
    assert_eq!(backlog.analyses.due, 1, "the finished session waits for its analysis");
    assert_eq!(backlog.webhook_deliveries.due, 1, "the test event waits for its attempt");
    for oldest in [backlog.analyses.oldest_secs, backlog.webhook_deliveries.oldest_secs] {
        assert!((29.0..=31.0).contains(&oldest), "waited about 30 s: {oldest}");
    }
    assert_eq!((backlog.exports.due, backlog.outreach_messages.due), (0, 0));
}
