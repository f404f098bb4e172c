//! `AnalysisRepository`: a finished session's job is claimed by one worker at a time, held by its
//! lease, and given back by its holder only.

use futures_util::future::join;
use pulse_domain::sessions::models::AnswerInput;
use pulse_domain::shared::clock::Clock;
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
