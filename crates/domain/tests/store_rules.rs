//! Rules the in-memory store keeps (moving to the contract suite).

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::campaigns::ports::CampaignRepository;
use pulse_domain::campaigns::ports::LaunchRepository;
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::CampaignId;
use pulse_domain::shared::clock::Clock;
use time::{Duration, OffsetDateTime};

// The in-memory store's own contracts.

#[test]
fn the_store_refuses_a_taken_code_and_scopes_reads() {
    let w = world();
    let p = partner(&w, true);
    let existing = provision(&w, &p, brief());
    let clash = pulse_domain::campaigns::models::Campaign { id: CampaignId::new_random(), ..existing.campaign.clone() };
    assert_eq!(code_of(block_on(w.store.create_campaign(None, &clash))), ErrorCode::Conflict);
    assert!(block_on(w.store.campaign_overview(p.workspace, clash.id)).expect("read").is_none());

    let stranger = partner(&w, true);
    let id = existing.campaign.id;
    assert!(block_on(w.store.campaign_overview(stranger.workspace, id)).expect("read").is_none());
    assert!(block_on(w.store.find_survey(stranger.workspace, existing.survey.id)).expect("read").is_none());
    assert!(block_on(w.store.find_campaign_in_business(stranger.business, id)).expect("read").is_none());
    assert!(block_on(w.store.find_campaign_in_business(p.business, id)).expect("read").is_some());
    assert_eq!(
        code_of(block_on(w.store.activate_campaign(CampaignId::new_random(), w.clock.now()))),
        ErrorCode::NotFound
    );
}

#[test]
fn spent_tokens_are_forgotten_once_expired() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-purge-1", Duration::minutes(10));
    started(start(&w, &campaign.code, token_visit(&token)));
    let expiry: OffsetDateTime = w.clock.now() + Duration::minutes(10);
    assert_eq!(block_on(w.store.purge_spent_tokens(expiry)).expect("purge"), 0);
    assert!(block_on(w.store.token_spent(campaign.id, "jti-purge-1")).expect("spent"));
    assert_eq!(block_on(w.store.purge_spent_tokens(expiry + Duration::SECOND)).expect("purge"), 1);
    assert!(!block_on(w.store.token_spent(campaign.id, "jti-purge-1")).expect("forgotten"));
}
