//! The access check, starts by every kind of launch, answers and completion.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::campaigns::models::{LINK_LIFETIME, RowOutcome};
use pulse_domain::campaigns::ports::LaunchRepository;
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::SessionId;
use pulse_domain::sessions::models::{
    AccessState, AnswerInput, NotStarted, Progress, SessionStatus, StartInput, StartOutcome, Visit,
};
use pulse_domain::shared::clock::Clock;
use secrecy::ExposeSecret;
use serde_json::json;
use time::Duration;

// Access and start.

#[test]
fn a_campaign_requiring_signatures_refuses_a_start_without_a_token() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    assert!(block_on(w.keys.set_require_signed(&builder(&p), campaign.id, true)).expect("set"));

    let access = block_on(w.respondents.access(&campaign.code, &Visit::default(), None)).expect("access");
    assert!(access.require_signed);
    assert_eq!(access.state, AccessState::Missing);
    assert_eq!(access.refusal.map(|(code, _)| code), Some(ErrorCode::LaunchSignatureRequired));
    assert_eq!(code_of(start(&w, &campaign.code, Visit::default())), ErrorCode::LaunchSignatureRequired);
    assert_eq!(counts(&w, &p, campaign.id).started, 0);
}

#[test]
fn without_consent_nothing_is_created() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    assert_eq!(access_state(&w, &campaign.code, &Visit::default()), AccessState::NotRequired);
    for consent in [None, Some(false)] {
        let input = StartInput { consent_given: consent, ..StartInput::default() };
        let outcome = block_on(w.respondents.start(&campaign.code, input)).expect("answered");
        assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::ConsentRequired)), "{outcome:?}");
    }
    assert_eq!(counts(&w, &p, campaign.id).started, 0);

    let session = started(start(&w, &campaign.code, Visit::default()));
    assert_eq!(session.questions.len(), 3);
    assert_eq!(counts(&w, &p, campaign.id).started, 1);
}

#[test]
fn a_draft_campaign_does_not_start_and_an_unknown_code_is_not_found() {
    let w = world();
    let p = partner(&w, true);
    let draft = provision(&w, &p, brief()).campaign;
    let outcome = start(&w, &draft.code, Visit::default()).expect("answered");
    assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::CampaignNotOpen)), "{outcome:?}");
    assert_eq!(code_of(start(&w, "nope", Visit::default())), ErrorCode::NotFound);
}

#[test]
fn a_minted_link_starts_one_session() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    let session = started(start(&w, &campaign.code, token_visit(&token)));
    assert_eq!(session.language.as_str(), "en");
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 1);

    // Another campaign's minted link does not open this one.
    let other = active_open(&w, &p).campaign;
    let foreign = lt_of(&mint(&w, &p, other.id).expect("minted").url);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&foreign))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn a_minted_link_expires_after_its_lifetime() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    w.clock.advance(LINK_LIFETIME - Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    w.clock.advance(Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn access_checks_never_spend() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    for _ in 0..2 {
        assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    }
    started(start(&w, &campaign.code, token_visit(&token)));

    let (key, secret) = create_key(&w, &p, campaign.id);
    let signed = partner_token(&w, &key, &secret, &campaign.code, "jti-access-1", Duration::minutes(10));
    for _ in 0..2 {
        assert_eq!(access_state(&w, &campaign.code, &token_visit(&signed)), AccessState::Valid);
    }
    started(start(&w, &campaign.code, token_visit(&signed)));
}

#[test]
fn a_partner_token_of_an_active_key_starts_one_session() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    block_on(w.keys.set_require_signed(&builder(&p), campaign.id, true)).expect("set");
    let (key, secret) = create_key(&w, &p, campaign.id);
    assert_eq!(key.slot, 1);
    assert!(key.last_used_at.is_none());

    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-00000001", Duration::minutes(10));
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    w.clock.advance(Duration::MINUTE);
    started(start(&w, &campaign.code, token_visit(&token)));
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
    assert!(block_on(w.store.token_spent(campaign.id, "jti-00000001")).expect("spent"));
    let listed = block_on(w.keys.list(&builder(&p), campaign.id)).expect("list");
    assert!(listed.require_signed);
    assert_eq!(listed.keys[0].last_used_at, Some(w.clock.now()));

    // The campaign may also be named by id; a fresh jti is a fresh token.
    let by_id = partner_token(&w, &key, &secret, &campaign.id.to_string(), "jti-00000002", Duration::minutes(10));
    started(start(&w, &campaign.code, token_visit(&by_id)));
    // A wrong secret with a real key id is not a token.
    let forged = partner_token(&w, &key, "not-the-secret", &campaign.code, "jti-00000003", Duration::minutes(10));
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&forged))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 2);
}

#[test]
fn tokens_of_revoked_keys_are_invalid() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-revoked", Duration::minutes(10));
    block_on(w.keys.revoke(&builder(&p), campaign.id, key.id)).expect("revoked");
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn tokens_signed_with_another_campaigns_key_or_naming_another_campaign_are_invalid() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let other = active_open(&w, &p).campaign;
    let (own_key, own_secret) = create_key(&w, &p, campaign.id);
    let (other_key, other_secret) = create_key(&w, &p, other.id);

    let foreign_key = partner_token(&w, &other_key, &other_secret, &campaign.code, "jti-foreign-1", Duration::MINUTE);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&foreign_key))), ErrorCode::LaunchTokenInvalid);
    let names_other = partner_token(&w, &own_key, &own_secret, &other.code, "jti-foreign-2", Duration::MINUTE);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&names_other))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 0);
}

#[test]
fn tokens_must_expire_within_thirty_minutes() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = |jti: &str, exp_in: Duration| partner_token(&w, &key, &secret, &campaign.code, jti, exp_in);

    let too_far = token("jti-too-far", Duration::minutes(30) + Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&too_far)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&too_far))), ErrorCode::LaunchTokenInvalid);
    let expired = token("jti-expired", Duration::ZERO);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&expired))), ErrorCode::LaunchTokenInvalid);
    let at_the_limit = token("jti-at-limit", Duration::minutes(30));
    started(start(&w, &campaign.code, token_visit(&at_the_limit)));
}

#[test]
fn an_invitation_starts_one_session_and_marks_its_respondent() {
    let w = world();
    let p = partner(&w, true);
    let id = provision(&w, &p, brief()).campaign.id;
    let invited = attach(&w, &p, id, vec![row("r1", None)]);
    let campaign = launch(&w, &p, id).expect("launched").campaign;

    let outcome = start(&w, &campaign.code, Visit::default()).expect("answered");
    assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::InvitationRequired)), "{outcome:?}");
    let nonce = nonce_of(&invited[0].invitation_url);
    assert_eq!(access_state(&w, &campaign.code, &invitation_visit(&nonce)), AccessState::Valid);
    started(start(&w, &campaign.code, invitation_visit(&nonce)));
    assert_eq!(code_of(start(&w, &campaign.code, invitation_visit(&nonce))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(access_state(&w, &campaign.code, &invitation_visit(&nonce)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, invitation_visit("unknown-nonce"))), ErrorCode::LaunchTokenInvalid);

    let again = attach(&w, &p, id, vec![row("r1", None)]);
    assert_eq!(again[0].outcome, RowOutcome::Updated);
    assert!(again[0].responded);
    assert_eq!(again[0].invitation_url, invited[0].invitation_url);
    assert_eq!(counts(&w, &p, id).started, 1);
}

// Answers and completion.

#[test]
fn answers_are_checked_and_completion_is_final() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let other = active_open(&w, &p).campaign;
    let session = started(start(&w, &campaign.code, Visit::default()));
    let token = session.token.expose_secret().to_owned();
    let send = |code: &str, id: SessionId, token: Option<&str>, answers: Vec<AnswerInput>| {
        block_on(w.respondents.answer(code, id, token, answers))
    };

    assert_eq!(
        code_of(send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(6))])),
        ErrorCode::ValidationFailed
    );
    assert_eq!(
        code_of(send(&campaign.code, session.id, Some("wrong"), vec![answer("q1", json!(4))])),
        ErrorCode::Unauthenticated
    );
    assert_eq!(
        code_of(send(&campaign.code, session.id, None, vec![answer("q1", json!(4))])),
        ErrorCode::Unauthenticated
    );
    assert_eq!(code_of(send(&other.code, session.id, Some(&token), vec![answer("q1", json!(4))])), ErrorCode::NotFound);
    assert_eq!(code_of(send(&campaign.code, SessionId::new_random(), Some(&token), vec![])), ErrorCode::NotFound);

    let complete = |token: &str| block_on(w.respondents.complete(&campaign.code, session.id, Some(token)));
    let progress = send(&campaign.code, session.id, Some(&token), vec![answer("q2", json!("Quick and friendly"))]);
    assert_eq!(progress.expect("stored"), Progress { status: SessionStatus::Started, answered: 1, total: 3 });
    send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(2))]).expect("stored");
    let progress = send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(4))]).expect("replaced");
    assert_eq!(progress.answered, 2, "answering a question again replaces its answer");

    let done = complete(&token).expect("completed");
    assert_eq!(done, Progress { status: SessionStatus::Completed, answered: 2, total: 3 });
    w.clock.advance(Duration::MINUTE);
    assert_eq!(complete(&token).expect("completed again"), done);
    assert_eq!(code_of(complete("wrong")), ErrorCode::Unauthenticated);
    assert_eq!(
        code_of(send(&campaign.code, session.id, Some(&token), vec![answer("q3", json!("late"))])),
        ErrorCode::Conflict
    );
    let counts = counts(&w, &p, campaign.id);
    assert_eq!((counts.started, counts.completed), (1, 1));
}
