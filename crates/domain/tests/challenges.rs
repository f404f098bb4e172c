//! Proof of work at public start: when an open start needs a solved challenge, and which
//! solutions start a session.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::campaigns::models::{CampaignOverview, ProvisionInput, QualityInput};
use pulse_domain::challenges::models::{Challenge, ChallengePolicy, SolvedChallenge};
use pulse_domain::error::{ErrorCode, Result};
use pulse_domain::sessions::models::{StartInput, StartOutcome, Visit};
use pulse_domain::sessions::service::Respondents;
use pulse_domain::shared::clock::Clock;
use pulse_testing::fakes::{FakeTokens, TestCrypto};
use time::Duration;

fn asking_for_challenges(w: &World, p: &Partner) -> CampaignOverview {
    let quality = QualityInput { require_challenge: Some(true), ..QualityInput::default() };
    let draft = provision(w, p, ProvisionInput { quality: Some(quality), ..brief() });
    launch(w, p, draft.campaign.id).expect("launched")
}

fn challenge(w: &World, code: &str, network: Option<&str>) -> Option<Challenge> {
    block_on(w.respondents.access(code, &Visit::default(), network)).expect("access").challenge
}

fn start_solved(w: &World, code: &str, altcha: Option<SolvedChallenge>) -> Result<StartOutcome> {
    let input = StartInput { consent_given: Some(true), altcha, ..StartInput::default() };
    block_on(w.respondents.start(code, input))
}

#[test]
fn a_campaign_asking_for_a_challenge_starts_only_with_a_solution_and_each_solution_once() {
    let w = world();
    let p = partner(&w, true);
    let campaign = asking_for_challenges(&w, &p).campaign;
    assert!(campaign.quality.require_challenge);
    assert!(overview(&w, &p, campaign.id).campaign.quality.require_challenge, "stored");

    assert_eq!(code_of(start(&w, &campaign.code, Visit::default())), ErrorCode::ChallengeRequired);
    let issued = challenge(&w, &campaign.code, None).expect("a challenge at access");
    assert_eq!(issued.code(), Some(campaign.code.as_str()));
    assert_eq!(issued.parameters.expires_at, (w.clock.now() + Duration::minutes(10)).unix_timestamp());

    let solved = TestCrypto::solve(&issued);
    let mut wrong = solved.clone();
    wrong.solution.derived_key = "00".repeat(32);
    assert_eq!(code_of(start_solved(&w, &campaign.code, Some(wrong))), ErrorCode::ChallengeRequired);
    assert_eq!(counts(&w, &p, campaign.id).started, 0, "refusals create nothing");

    started(start_solved(&w, &campaign.code, Some(solved.clone())));
    assert_eq!(code_of(start_solved(&w, &campaign.code, Some(solved))), ErrorCode::ChallengeRequired, "replayed");
    assert_eq!(counts(&w, &p, campaign.id).started, 1);
}

#[test]
fn an_expired_solution_or_another_campaigns_is_refused() {
    let w = world();
    let p = partner(&w, true);
    let first = asking_for_challenges(&w, &p).campaign;
    let second = asking_for_challenges(&w, &p).campaign;
    let solved = TestCrypto::solve(&challenge(&w, &first.code, None).expect("challenge"));
    assert_eq!(code_of(start_solved(&w, &second.code, Some(solved.clone()))), ErrorCode::ChallengeRequired);

    w.clock.advance(Duration::minutes(10));
    assert_eq!(code_of(start_solved(&w, &first.code, Some(solved))), ErrorCode::ChallengeRequired, "expired");

    let fresh = TestCrypto::solve(&challenge(&w, &first.code, None).expect("challenge"));
    w.clock.advance(Duration::minutes(10) - Duration::SECOND);
    started(start_solved(&w, &first.code, Some(fresh)));
    assert_eq!(counts(&w, &p, first.id).started + counts(&w, &p, second.id).started, 1);
}

#[test]
fn links_and_signed_tokens_start_without_a_challenge() {
    let w = world();
    let p = partner(&w, true);
    let campaign = asking_for_challenges(&w, &p).campaign;
    let minted = mint(&w, &p, campaign.id).expect("minted");
    let visit = token_visit(&lt_of(&minted.url));
    let access = block_on(w.respondents.access(&campaign.code, &visit, None)).expect("access");
    assert_eq!(access.challenge, None);
    started(start(&w, &campaign.code, visit));
    assert_eq!(counts(&w, &p, campaign.id).started, 1);
}

#[test]
fn open_starts_past_the_hourly_rates_need_a_challenge_until_the_hour_ends() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let policy = ChallengePolicy {
        network_starts_per_hour: Some(2),
        campaign_starts_per_hour: Some(5),
        ..ChallengePolicy::default()
    };
    let respondents =
        Respondents::new(w.store.clone(), w.crypto.clone(), w.clock.clone(), FakeTokens).with_challenges(policy);
    let start_from = |network: &str, altcha: Option<SolvedChallenge>| {
        let input = StartInput {
            consent_given: Some(true),
            network: Some(network.to_owned()),
            altcha,
            ..StartInput::default()
        };
        block_on(respondents.start(&campaign.code, input))
    };
    let access_from = |network: &str| {
        block_on(respondents.access(&campaign.code, &Visit::default(), Some(network))).expect("access").challenge
    };
    w.clock.advance(Duration::minutes(59));

    for _ in 0..2 {
        assert_eq!(access_from("net:a"), None, "within the network's rate");
        started(start_from("net:a", None));
    }
    let issued = access_from("net:a").expect("the third start from one network needs a challenge");
    assert_eq!(code_of(start_from("net:a", None)), ErrorCode::ChallengeRequired);
    started(start_from("net:a", Some(TestCrypto::solve(&issued))));

    assert_eq!(access_from("net:b"), None, "another network, and the campaign's fifth start");
    started(start_from("net:b", None));
    // Past the campaign's rate, whatever the network.
    assert!(access_from("net:c").is_some());
    assert_eq!(code_of(start_from("net:c", None)), ErrorCode::ChallengeRequired);
    assert_eq!(counts(&w, &p, campaign.id).started, 4);

    w.clock.advance(Duration::MINUTE);
    assert_eq!(access_from("net:a"), None, "a new hour");
    started(start_from("net:a", None));
}

#[test]
fn an_operator_policy_without_rates_leaves_open_starts_free() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let respondents = Respondents::new(w.store.clone(), w.crypto.clone(), w.clock.clone(), FakeTokens)
        .with_challenges(ChallengePolicy::default().on_request_only());
    for _ in 0..30 {
        let input =
            StartInput { consent_given: Some(true), network: Some("net:a".to_owned()), ..StartInput::default() };
        started(block_on(respondents.start(&campaign.code, input)));
    }
    assert_eq!(counts(&w, &p, campaign.id).started, 30);
}
