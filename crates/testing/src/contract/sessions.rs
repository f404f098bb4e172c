//! `LaunchRepository` and `SessionStore`: a launch link or a partner token starts one session,
//! and spent tokens and challenges are remembered until they expire.

use pulse_domain::ErrorCode;
use pulse_domain::campaigns::models::{LINK_LIFETIME, LanguageTag, LaunchClaims, Transition};
use pulse_domain::campaigns::ports::LaunchTokenCodec;
use pulse_domain::challenges::models::SpentChallenge;
use pulse_domain::ids::{CampaignId, LaunchLinkId, SessionId};
use pulse_domain::sessions::models::{NewSession, Spend, StartInput, StartOutcome};
use pulse_domain::shared::clock::Clock;
use pulse_domain::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW, StudioClaims};
use secrecy::ExposeSecret;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::{Store, World};
use crate::fakes::{FakeTokens, fake_token};

pub async fn a_minted_link_starts_one_session<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await;
    let token = w.minted_token(&partner, &campaign).await;
    w.start(&campaign.campaign.code, &token).await.expect("the first start");
    let again = w.start(&campaign.campaign.code, &token).await.expect_err("single use");
    assert_eq!(again.code(), ErrorCode::LaunchTokenInvalid);
}

pub async fn spent_partner_tokens_are_forgotten_once_expired<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let now = w.clock.now();
    let builder = StudioClaims {
        user_id: Uuid::new_v4(),
        business_id: partner.business,
        permissions: vec![PERMISSION_VIEW.into(), PERMISSION_BUILD.into()],
        issued_at: now,
        not_before: None,
        expires_at: now + Duration::HOUR,
    };
    let (key, secret) = w.keys.create(&builder, campaign.id).await.expect("launch key");
    let expiry = now + Duration::minutes(10);
    let claims = LaunchClaims {
        campaign: campaign.code.clone(),
        exp: expiry.unix_timestamp(),
        jti: "jti-purge-1".into(),
        ..LaunchClaims::default()
    };
    let token = fake_token(&key.id.to_string(), secret.expose_secret(), &claims);
    w.start(&campaign.code, &token).await.expect("started");
    let reused = w.start(&campaign.code, &token).await.expect_err("spent");
    assert_eq!(reused.code(), ErrorCode::LaunchTokenInvalid);

    assert_eq!(w.store.purge_spent_tokens(expiry).await.expect("purge"), 0);
    assert!(w.store.token_spent(campaign.id, "jti-purge-1").await.expect("spent"));
    assert_eq!(w.store.purge_spent_tokens(expiry + Duration::SECOND).await.expect("purge"), 1);
    assert!(!w.store.token_spent(campaign.id, "jti-purge-1").await.expect("forgotten"));
}

pub async fn a_link_is_spent_once_and_never_after_it_expires<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let overview = w.open_campaign(&partner).await;
    let campaign = &overview.campaign;
    let link_of = |token: &str| -> LaunchLinkId {
        FakeTokens.verify_link(token).expect("a link token").jti.parse().expect("a link id")
    };
    let session = |at| plain_session(campaign.id, at);

    let fresh = link_of(&w.minted_token(&partner, &overview).await);
    let now = w.clock.now();
    w.store.start_session(&session(now), &Spend::Link(fresh)).await.expect("the first spend");
    let again = w.store.start_session(&session(now), &Spend::Link(fresh)).await.expect_err("spent");
    assert_eq!(again.code(), ErrorCode::LaunchTokenInvalid);

    let stale = link_of(&w.minted_token(&partner, &overview).await);
    let late = w.clock.now() + LINK_LIFETIME + Duration::SECOND;
    let expired = w.store.start_session(&session(late), &Spend::Link(stale)).await.expect_err("expired");
    assert_eq!(expired.code(), ErrorCode::LaunchTokenInvalid, "the store re-checks expiry as it spends");
}

pub async fn two_concurrent_starts_spend_a_link_once<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await;
    let token = w.minted_token(&partner, &campaign).await;
    let code = &campaign.campaign.code;
    let (first, second) = futures_util::future::join(w.start(code, &token), w.start(code, &token)).await;
    let refused: Vec<ErrorCode> = [first, second].into_iter().filter_map(|r| r.err().map(|e| e.code())).collect();
    assert_eq!(refused, [ErrorCode::LaunchTokenInvalid], "exactly one start wins");
}

pub async fn a_solved_challenge_starts_one_session_until_it_is_forgotten<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let now = w.clock.now();
    let expiry = now + Duration::minutes(10);
    let spend =
        |fingerprint: &[u8]| Spend::Challenge(SpentChallenge { fingerprint: fingerprint.to_vec(), expires_at: expiry });
    let session = || plain_session(campaign.id, now);

    // Two starts with one solution at once, and a third with another: one of the pair wins.
    let (first, second, other) = futures_util::future::join3(
        w.store.start_session(&session(), &spend(b"solution-1")),
        w.store.start_session(&session(), &spend(b"solution-1")),
        w.store.start_session(&session(), &spend(b"solution-2")),
    )
    .await;
    let refused: Vec<ErrorCode> = [first, second].into_iter().filter_map(|r| r.err().map(|e| e.code())).collect();
    assert_eq!(refused, [ErrorCode::ChallengeRequired], "exactly one start wins");
    other.expect("another solution");
    let replay = w.store.start_session(&session(), &spend(b"solution-2")).await.expect_err("spent");
    assert_eq!(replay.code(), ErrorCode::ChallengeRequired);

    assert_eq!(w.store.purge_spent_tokens(expiry).await.expect("purge"), 0, "kept while it can verify");
    assert_eq!(w.store.purge_spent_tokens(expiry + Duration::SECOND).await.expect("purge"), 2);
    w.store.start_session(&session(), &spend(b"solution-1")).await.expect("forgotten, though expired for the domain");
}

pub async fn a_start_the_store_cannot_write_fails_alone<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let session = || plain_session(campaign.id, w.clock.now());
    let taken = session();
    w.store.start_session(&taken, &Spend::Nothing).await.expect("the first start");

    // Starts arriving together may be written together; the one whose id is taken must not take
    // the others down with it.
    let others: Vec<NewSession> = (0..6).map(|_| session()).collect();
    let mut starts = vec![w.store.start_session(&taken, &Spend::Nothing)];
    starts.extend(others.iter().map(|s| w.store.start_session(s, &Spend::Nothing)));
    let results = futures_util::future::join_all(starts).await;
    assert!(results[0].is_err(), "a session id is used once");
    assert!(results[1..].iter().all(Result::is_ok), "{:?}", results.iter().map(Result::is_ok).collect::<Vec<_>>());
    for other in &others {
        assert!(w.store.find_session(campaign.id, other.id).await.expect("read").is_some());
    }
}

pub async fn starts_arriving_together_are_each_answered_by_their_own_campaign<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let open = w.open_campaign(&partner).await.campaign;
    let paused = w.open_campaign(&partner).await.campaign;
    w.campaigns.change_status(&partner.principal, None, paused.id, Transition::Pause).await.expect("paused");

    // Starts of both campaigns at once, as the service sends them after reading a copy of each
    // from before the pause: the stores may write them together.
    let sessions: Vec<NewSession> =
        (0..6).map(|i| plain_session(if i % 3 == 0 { paused.id } else { open.id }, w.clock.now())).collect();
    let results =
        futures_util::future::join_all(sessions.iter().map(|s| w.store.start_session(s, &Spend::Nothing))).await;
    for (session, result) in sessions.iter().zip(&results) {
        let stored = w.store.find_session(session.campaign_id, session.id).await.expect("read");
        if session.campaign_id == open.id {
            assert!(result.is_ok(), "{result:?}");
            assert!(stored.is_some(), "an open campaign's start is written");
        } else {
            assert_eq!(result.as_ref().map_err(|e| e.code()).expect_err("paused"), ErrorCode::CampaignNotCollecting);
            assert!(stored.is_none(), "a paused campaign's start is not written");
        }
    }
    let mut started = Vec::new();
    for campaign in [open.id, paused.id] {
        let overview = w.store.campaign_overview(partner.workspace, campaign).await.expect("read").expect("found");
        started.push(overview.counts.started);
    }
    assert_eq!(started, [4, 0], "the funnel counts what was written");
}

pub async fn a_start_without_a_token_is_refused_once_the_campaign_requires_signing<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let overview = w.open_campaign(&partner).await;
    let campaign = &overview.campaign;
    let unsigned = || StartInput { consent_given: Some(true), ..StartInput::default() };
    let first = w.respondents.start(&campaign.code, unsigned()).await.expect("an open campaign");
    assert!(matches!(first, StartOutcome::Started(_)), "{first:?}");

    // The clock stands still: the respondent service's copy of the campaign, read by the first
    // start, still says signing is not required. The store's own check must catch it.
    w.store.set_require_signed(campaign.id, true).await.expect("set");
    let refused = w.respondents.start(&campaign.code, unsigned()).await.expect_err("signing is required now");
    assert_eq!(refused.code(), ErrorCode::LaunchSignatureRequired);
    let direct = w.store.start_session(&plain_session(campaign.id, w.clock.now()), &Spend::Nothing).await;
    assert_eq!(direct.expect_err("refused by the store").code(), ErrorCode::LaunchSignatureRequired);

    let token = w.minted_token(&partner, &overview).await;
    w.start(&campaign.code, &token).await.expect("a minted link is a signed launch");
}

/// A session of `campaign` started at `at` with nothing spent and nothing attributed.
fn plain_session(campaign: CampaignId, at: OffsetDateTime) -> NewSession {
    NewSession {
        id: SessionId::new_random(),
        campaign_id: campaign,
        token_digest: SessionId::new_random().to_string().into_bytes(),
        language: LanguageTag::parse("language", "en").expect("a tag"),
        respondent_id: None,
        launch_link_id: None,
        launch_key_id: None,
        external_user_digest: None,
        tags: vec![],
        context: serde_json::Map::new(),
        attribution: None,
        total_questions: 2,
        started_at: at,
    }
}
