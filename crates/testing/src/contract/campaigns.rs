//! `CampaignRepository`: public codes are unique, every read stays in its workspace or business, and
//! the overview's counts follow every write of the audience and its sessions.

use pulse_domain::ErrorCode;
use pulse_domain::campaigns::models::{AudienceRowInput, Campaign, CampaignCounts, CampaignOverview, LaunchInput};
use pulse_domain::ids::CampaignId;
use pulse_domain::sessions::models::{AnswerInput, StartInput, StartOutcome, Visit};
use pulse_domain::shared::clock::Clock;
use secrecy::ExposeSecret;
use serde_json::json;

use super::outreach::{answer_invitation, invited_campaign};
use super::{Partner, Store, World};

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

async fn counts_of<S: Store>(w: &World<S>, partner: &Partner, campaign: &CampaignOverview) -> CampaignCounts {
    w.store.campaign_overview(partner.workspace, campaign.campaign.id).await.expect("read").expect("found").counts
}

pub async fn the_overview_counts_the_audience_and_its_sessions_as_they_are_written<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let people =
        [("a", Some("a@example.com"), Some("+91 98765 00001")), ("b", Some("b@example.com"), None), ("c", None, None)];
    let (campaign, nonces) = invited_campaign(&w, &partner, &people).await;
    let audience =
        CampaignCounts { invited: 3, invited_with_email: 2, invited_with_phone: 1, ..CampaignCounts::default() };
    assert_eq!(counts_of(&w, &partner, &campaign).await, audience);

    // Attached again: one person gains an email, one is new, one is unchanged.
    let rows = [("c", Some("c@example.com")), ("d", None), ("a", None)]
        .into_iter()
        .map(|(reference, email)| AudienceRowInput {
            external_ref: reference.into(),
            name: None,
            email: email.map(str::to_owned),
            phone: None,
        })
        .collect();
    w.campaigns.attach_audience(&partner.principal, None, campaign.campaign.id, rows).await.expect("attached");
    let audience = CampaignCounts { invited: 4, invited_with_email: 3, ..audience };
    assert_eq!(counts_of(&w, &partner, &campaign).await, audience);

    let code = &campaign.campaign.code;
    answer_invitation(&w, code, &nonces[0]).await;
    // A minted link of a closed campaign carries a nonce of its own and no respondent.
    let input = LaunchInput {
        campaign_id: campaign.campaign.id,
        external_user_ref: None,
        language: None,
        device: None,
        attributes: None,
    };
    let link = w.campaigns.mint_link(&partner.principal, None, input).await.expect("minted");
    let nonce = link.url.rsplit_once('/').and_then(|(_, rest)| rest.split('?').next()).expect("a nonce");
    let visit = Visit { invitation: Some(nonce.to_owned()), ..Visit::default() };
    let open = match w
        .respondents
        .start(code, StartInput { consent_given: Some(true), visit, ..StartInput::default() })
        .await
        .expect("started")
    {
        StartOutcome::Started(session) => session,
        StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
    };
    assert_eq!(
        counts_of(&w, &partner, &campaign).await,
        CampaignCounts { responded: 1, started: 2, completed: 1, ..audience }
    );
    let token = open.token.expose_secret();
    let answer = AnswerInput { question_id: "q1".into(), value: json!(4) };
    w.respondents.answer(code, open.id, Some(token), vec![answer]).await.expect("answered");
    w.respondents.complete(code, open.id, Some(token)).await.expect("completed");
    // A session of a link minted for no one is no response from the audience.
    assert_eq!(
        counts_of(&w, &partner, &campaign).await,
        CampaignCounts { responded: 1, started: 2, completed: 2, ..audience }
    );
    let other = w.open_campaign(&partner).await;
    assert_eq!(counts_of(&w, &partner, &other).await, CampaignCounts::default(), "another campaign's counts");
}
