//! `CampaignRepository`: public codes are unique, and every read stays in its workspace or business.

use pulse_domain::ErrorCode;
use pulse_domain::campaigns::models::Campaign;
use pulse_domain::ids::CampaignId;
use pulse_domain::shared::clock::Clock;

use super::{Store, World};

pub async fn a_taken_code_is_refused_and_reads_stay_in_their_tenant<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let existing = w.open_campaign(&partner).await;
    let clash = Campaign { id: CampaignId::new_random(), ..existing.campaign.clone() };
    let refused = w.store.create_campaign(None, &clash).await.expect_err("the code is taken");
    assert_eq!(refused.code(), ErrorCode::Conflict);
    assert!(w.store.campaign_overview(partner.workspace, clash.id).await.expect("read").is_none());

    let stranger = w.partner("Globex").await;
    let id = existing.campaign.id;
    assert!(w.store.campaign_overview(stranger.workspace, id).await.expect("read").is_none());
    assert!(w.store.find_survey(stranger.workspace, existing.survey.id).await.expect("read").is_none());
    assert!(w.store.find_campaign_in_business(stranger.business, id).await.expect("read").is_none());
    assert!(w.store.find_campaign_in_business(partner.business, id).await.expect("read").is_some());
    let unknown = w.store.activate_campaign(CampaignId::new_random(), w.clock.now()).await.expect_err("unknown");
    assert_eq!(unknown.code(), ErrorCode::NotFound);
}
