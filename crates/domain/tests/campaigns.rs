//! Provisioning, audiences, minted links and launch keys.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::campaigns::models::{
    AudienceMode, CampaignCounts, CampaignOverview, CampaignStatus, DeliveryChannel, DeliveryInput, LINK_LIFETIME,
    ProvisionInput, QuestionKind, RowOutcome,
};
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::CampaignId;
use pulse_domain::outreach::models::MESSAGE_CHANNELS;
use pulse_domain::shared::clock::Clock;
use pulse_domain::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW};
use pulse_domain::tenancy::models::WorkspaceStatus;
use pulse_testing::MemoryStore;
use pulse_testing::fakes::RecordingSender;
use time::Duration;

// Provisioning and launch.

#[test]
fn a_campaign_stays_draft_until_its_workspace_is_approved() {
    let w = world();
    let p = partner(&w, false);
    let draft = provision(&w, &p, brief());
    assert_eq!(draft.campaign.status, CampaignStatus::Draft);
    assert_eq!(draft.campaign.audience, AudienceMode::Open);
    assert_eq!(draft.campaign.code.len(), pulse_domain::campaigns::service::CODE_LEN);
    assert_eq!(draft.campaign.name, "Delivery survey");
    assert_eq!(draft.survey.questions.len(), 3);
    assert_eq!(draft.survey.questions[0].kind, QuestionKind::Rating { min: 1, max: 5 });
    assert_eq!(draft.counts, CampaignCounts::default());
    let blockers: Vec<&str> = draft.blockers(&MESSAGE_CHANNELS).iter().map(|b| b.code).collect();
    assert_eq!(blockers, ["WORKSPACE_NOT_APPROVED"]);
    assert!(!draft.readiness(&MESSAGE_CHANNELS).launch_ready());
    assert_eq!(draft.readiness(&MESSAGE_CHANNELS).blockers, draft.blockers(&MESSAGE_CHANNELS));

    let refused = launch(&w, &p, draft.campaign.id).expect_err("not ready");
    assert_eq!(refused.code(), ErrorCode::NotLaunchReady);
    assert!(refused.to_string().contains("WORKSPACE_NOT_APPROVED"), "{refused}");
    assert_eq!(overview(&w, &p, draft.campaign.id).campaign.status, CampaignStatus::Draft);

    block_on(w.admin.approve_workspace(p.workspace)).expect("approved");
    let active = launch(&w, &p, draft.campaign.id).expect("launched");
    assert_eq!(active.campaign.status, CampaignStatus::Active);
    assert_eq!(active.campaign.launched_at, Some(w.clock.now()));
    assert!(active.blockers(&MESSAGE_CHANNELS).is_empty());
    assert!(active.readiness(&MESSAGE_CHANNELS).launch_ready());
    let suspended = CampaignOverview { workspace_status: WorkspaceStatus::Suspended, ..active.clone() };
    assert_eq!(suspended.blockers(&MESSAGE_CHANNELS).len(), 1);
    assert!(suspended.readiness(&MESSAGE_CHANNELS).launch_ready(), "a live campaign's blockers no longer matter");

    w.clock.advance(Duration::HOUR);
    let again = launch(&w, &p, draft.campaign.id).expect("launched again");
    assert_eq!(again.campaign, active.campaign, "launching an active campaign changes nothing");
}

#[test]
fn a_survey_is_reused_only_within_its_workspace() {
    let w = world();
    let owner = partner(&w, true);
    let first = provision(&w, &owner, brief());
    let reuse = ProvisionInput { survey_id: Some(first.survey.id), ..ProvisionInput::default() };
    let second = provision(&w, &owner, reuse.clone());
    assert_eq!(second.survey, first.survey);
    assert_ne!(second.campaign.id, first.campaign.id);
    assert_ne!(second.campaign.code, first.campaign.code);

    let stranger = partner(&w, true);
    assert_eq!(code_of(block_on(w.campaigns.provision(&stranger.principal, None, reuse))), ErrorCode::NotFound);
    let unknown =
        ProvisionInput { survey_id: Some(pulse_domain::ids::SurveyId::new_random()), ..ProvisionInput::default() };
    assert_eq!(code_of(block_on(w.campaigns.provision(&owner.principal, None, unknown))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.campaigns.get(&stranger.principal, None, first.campaign.id))), ErrorCode::NotFound);
}

#[test]
fn email_delivery_needs_a_respondent_with_an_email() {
    let w = world();
    let p = partner(&w, true);
    let input = ProvisionInput {
        delivery: Some(DeliveryInput { channels: Some(vec![DeliveryChannel::Email]), ..DeliveryInput::default() }),
        ..brief()
    };
    let draft = provision(&w, &p, input);
    let id = draft.campaign.id;
    let blockers: Vec<&str> = draft.blockers(&MESSAGE_CHANNELS).iter().map(|b| b.code).collect();
    assert_eq!(blockers, ["NO_EMAIL_RECIPIENTS"]);
    let refused = launch(&w, &p, id).expect_err("no recipients");
    assert_eq!(refused.code(), ErrorCode::NotLaunchReady);
    assert!(refused.to_string().contains("NO_EMAIL_RECIPIENTS"), "{refused}");

    attach(&w, &p, id, vec![row("no-email", None)]);
    assert_eq!(code_of(launch(&w, &p, id)), ErrorCode::NotLaunchReady);
    attach(&w, &p, id, vec![row("with-email", Some("ada@example.com"))]);
    let counts = counts(&w, &p, id);
    assert_eq!((counts.invited, counts.invited_with_email, counts.invited_with_phone), (2, 1, 0));
    assert_eq!(launch(&w, &p, id).expect("launched").campaign.status, CampaignStatus::Active);
}

#[test]
fn a_channel_without_a_sender_blocks_launch_and_says_which() {
    // A sender that places no calls.
    let w = World::with_sender(MemoryStore::default(), RecordingSender::default());
    let p = partner(&w, true);
    let channels = vec![DeliveryChannel::Email, DeliveryChannel::Telephony];
    let input = ProvisionInput {
        delivery: Some(DeliveryInput { channels: Some(channels), ..DeliveryInput::default() }),
        ..brief()
    };
    let draft = provision(&w, &p, input);
    attach(&w, &p, draft.campaign.id, vec![row("ada", Some("ada@example.com"))]);
    let refused = launch(&w, &p, draft.campaign.id).expect_err("no telephony sender");
    assert_eq!(refused.code(), ErrorCode::NotLaunchReady);
    let text = refused.to_string();
    assert!(text.contains("CHANNEL_UNAVAILABLE") && text.contains("TELEPHONY"), "{text}");
    assert!(!text.contains("EMAIL,"), "only the channel without a sender is named: {text}");
    let without_email = overview(&w, &p, draft.campaign.id).blockers(&[DeliveryChannel::Sms]);
    let codes: Vec<&str> = without_email.iter().map(|b| b.code).collect();
    assert_eq!(codes, ["CHANNEL_UNAVAILABLE", "CHANNEL_UNAVAILABLE", "NO_PHONE_RECIPIENTS"]);
}

#[test]
fn attaching_the_same_reference_twice_keeps_one_respondent_and_its_invitation() {
    let w = world();
    let p = partner(&w, true);
    let id = provision(&w, &p, brief()).campaign.id;
    let first = attach(&w, &p, id, vec![row("r1", None)]);
    assert_eq!(first[0].outcome, RowOutcome::Created);
    assert!(!first[0].responded);
    let code = overview(&w, &p, id).campaign.code;
    assert!(first[0].invitation_url.starts_with(&format!("{SURVEY_URL}/s/{code}/")), "{}", first[0].invitation_url);

    let second = attach(&w, &p, id, vec![row("r1", Some("ada@example.com"))]);
    assert_eq!(second[0].outcome, RowOutcome::Updated);
    assert_eq!(second[0].respondent_id, first[0].respondent_id);
    assert_eq!(second[0].invitation_url, first[0].invitation_url);
    let after = overview(&w, &p, id);
    assert_eq!((after.counts.invited, after.counts.invited_with_email), (1, 1));
    assert_eq!(after.campaign.audience, AudienceMode::Closed, "an audience before launch makes it closed-list");
}

// Minting links.

#[test]
fn links_are_minted_only_for_active_campaigns() {
    let w = world();
    let p = partner(&w, true);
    let draft = provision(&w, &p, brief());
    assert_eq!(code_of(mint(&w, &p, draft.campaign.id)), ErrorCode::CampaignNotCollecting);
    assert_eq!(code_of(mint(&w, &p, CampaignId::new_random())), ErrorCode::NotFound);
}

#[test]
fn open_campaigns_mint_token_links_and_closed_ones_mint_nonce_links() {
    let w = world();
    let p = partner(&w, true);
    let open = active_open(&w, &p).campaign;
    let minted = mint(&w, &p, open.id).expect("minted");
    assert!(minted.url.starts_with(&format!("{SURVEY_URL}/p/{}?lt=", open.code)), "{}", minted.url);
    assert!(minted.url.ends_with("&lang=en"), "{}", minted.url);
    assert_eq!(minted.expires_at, w.clock.now() + LINK_LIFETIME);

    let draft = provision(&w, &p, brief()).campaign;
    attach(&w, &p, draft.id, vec![row("r1", None)]);
    let closed = launch(&w, &p, draft.id).expect("launched").campaign;
    assert_eq!(closed.audience, AudienceMode::Closed);
    let minted = mint(&w, &p, closed.id).expect("minted");
    assert!(minted.url.starts_with(&format!("{SURVEY_URL}/s/{}/", closed.code)), "{}", minted.url);
    assert!(!minted.url.contains("lt="), "{}", minted.url);
    // The minted nonce starts a session of the closed campaign, once.
    let nonce = nonce_of(&minted.url);
    started(start(&w, &closed.code, invitation_visit(&nonce)));
    assert_eq!(code_of(start(&w, &closed.code, invitation_visit(&nonce))), ErrorCode::LaunchTokenInvalid);
}

// Launch keys.

#[test]
fn a_campaign_holds_two_launch_keys_and_revoking_frees_a_slot() {
    let w = world();
    let p = partner(&w, true);
    let campaign = provision(&w, &p, brief()).campaign;
    let (first, secret) = create_key(&w, &p, campaign.id);
    assert_eq!(first.fingerprint.len(), 8);
    assert!(first.fingerprint.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert!(!first.secret_sealed.windows(secret.len()).any(|part| part == secret.as_bytes()), "the secret is sealed");
    let (second, _) = create_key(&w, &p, campaign.id);
    assert_eq!((first.slot, second.slot), (1, 2));
    assert_eq!(code_of(block_on(w.keys.create(&builder(&p), campaign.id))), ErrorCode::LaunchKeySlotsFull);

    block_on(w.keys.revoke(&builder(&p), campaign.id, first.id)).expect("revoked");
    assert_eq!(code_of(block_on(w.keys.revoke(&builder(&p), campaign.id, first.id))), ErrorCode::NotFound);
    let (third, _) = create_key(&w, &p, campaign.id);
    assert_eq!(third.slot, 1);
    let listed = block_on(w.keys.list(&builder(&p), campaign.id)).expect("list");
    assert_eq!(listed.keys.iter().map(|k| k.id).collect::<Vec<_>>(), [third.id, second.id]);
    assert!(!listed.require_signed);
}

#[test]
fn launch_keys_need_the_permission_and_the_business() {
    let w = world();
    let p = partner(&w, true);
    let campaign = provision(&w, &p, brief()).campaign;
    let viewer = studio(p.business, &[PERMISSION_VIEW]);
    assert!(block_on(w.keys.list(&viewer, campaign.id)).expect("list").keys.is_empty());
    assert_eq!(code_of(block_on(w.keys.create(&viewer, campaign.id))), ErrorCode::InsufficientPermission);
    assert_eq!(
        code_of(block_on(w.keys.set_require_signed(&viewer, campaign.id, true))),
        ErrorCode::InsufficientPermission
    );
    let builder_only = studio(p.business, &[PERMISSION_BUILD]);
    assert_eq!(code_of(block_on(w.keys.list(&builder_only, campaign.id))), ErrorCode::InsufficientPermission);

    let outsider = partner(&w, true);
    let foreign = builder(&outsider);
    assert_eq!(code_of(block_on(w.keys.list(&foreign, campaign.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.create(&foreign, campaign.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.set_require_signed(&foreign, campaign.id, true))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.create(&builder(&p), CampaignId::new_random()))), ErrorCode::NotFound);
    assert!(!overview(&w, &p, campaign.id).campaign.require_signed);
}
