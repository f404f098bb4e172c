//! `ErasureRepository`: an erasure takes everything of its subject and nothing else, keeps the
//! campaign's counts, answers `false` for a subject unknown, erased already or another
//! workspace's, and touches no other workspace.

use pulse_domain::ErrorCode;
use pulse_domain::apps::models::{Identity, RegisterInput, UserInput};
use pulse_domain::audit::models::{AuditAction, AuditEntry};
use pulse_domain::campaigns::models::AudienceRowInput;
use pulse_domain::ids::DeviceId;
use pulse_domain::shared::clock::Clock;
use uuid::Uuid;

use super::campaigns::{audited, counts_of};
use super::outreach::{answer_invitation, invited_campaign};
use super::{Store, World};

fn register(code: &str, external_id: &str) -> RegisterInput {
    RegisterInput {
        campaign_code: code.to_owned(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        user: Some(UserInput {
            external_id: Some(external_id.to_owned()),
            email: Some(format!("{external_id}@example.com")),
            ..UserInput::default()
        }),
        ..RegisterInput::default()
    }
}

pub async fn an_erased_respondent_leaves_a_tombstone_that_keeps_the_counts<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let stranger = w.partner("Globex").await;
    let people = [("a", Some("a@example.com"), None), ("b", Some("b@example.com"), Some("+91 98765 00002"))];
    let (campaign, nonces) = invited_campaign(&w, &partner, &people).await;
    let id = campaign.campaign.id;
    answer_invitation(&w, &campaign.campaign.code, &nonces[0]).await;
    let before = counts_of(&w, &partner, &campaign).await;
    // Attached again unchanged (fields left out keep theirs), to learn the respondents' ids.
    let rows = ["a", "b"].map(|r| AudienceRowInput { external_ref: r.into(), ..AudienceRowInput::default() });
    let attached: Vec<_> = w
        .campaigns
        .attach_audience(&partner.principal, None, id, rows.to_vec())
        .await
        .expect("attached")
        .into_iter()
        .map(|a| a.respondent_id)
        .collect();
    assert_eq!(counts_of(&w, &partner, &campaign).await, before);

    let refused = w.erasures.erase_respondent(&stranger.principal, None, id, "a").await.expect_err("not theirs");
    assert_eq!(refused.code(), ErrorCode::NotFound);
    assert!(w.erasures.erase_respondent(&partner.principal, None, id, "a").await.expect("erased"));
    assert!(!w.erasures.erase_respondent(&partner.principal, None, id, "a").await.expect("again"), "erased already");
    assert!(!w.erasures.erase_respondent(&partner.principal, None, id, "nobody").await.expect("unknown"));

    let after = counts_of(&w, &partner, &campaign).await;
    assert_eq!(
        (after.invited, after.responded, after.started, after.completed),
        (before.invited, before.responded, before.started, before.completed),
        "the tombstone keeps its place in the counts and its session still counts"
    );
    assert_eq!(after.invited_with_email, before.invited_with_email - 1, "its email is gone");
    let mut tombstones = 0;
    for respondent in attached {
        let (_, _, recipient) = w.store.recipient(respondent).await.expect("read").expect("kept");
        if recipient.reference.is_none() {
            tombstones += 1;
            assert!(recipient.email_sealed.is_none() && recipient.name_sealed.is_none());
            assert!(recipient.invitation_sealed.is_none());
        } else {
            assert!(recipient.email_sealed.is_some() && recipient.phone_sealed.is_some(), "b is untouched");
        }
    }
    assert_eq!(tombstones, 1);

    // The same reference attached again is a new person, with a new invitation.
    let row = AudienceRowInput { external_ref: "a".into(), ..AudienceRowInput::default() };
    let again = w.campaigns.attach_audience(&partner.principal, None, id, vec![row]).await.expect("attached");
    assert_eq!(again[0].outcome.as_str(), "CREATED");
    assert_eq!(counts_of(&w, &partner, &campaign).await.invited, before.invited + 1);
}

pub async fn an_erased_app_user_or_device_is_gone_from_its_workspace_only<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let stranger = w.partner("Globex").await;
    let code = w.open_campaign(&partner).await.campaign.code;
    let other_code = w.open_campaign(&stranger).await.campaign.code;
    let ada = w.apps.register(register(&code, "user-42")).await.expect("registered");
    let bob = w.apps.register(register(&code, "user-43")).await.expect("registered");
    let theirs = w.apps.register(register(&other_code, "user-42")).await.expect("registered");
    let ada_user = ada.user_id.expect("a person");

    assert!(w.erasures.erase_app_user(&partner.principal, None, "user-42").await.expect("erased"));
    assert!(!w.erasures.erase_app_user(&partner.principal, None, "user-42").await.expect("again"));
    assert!(w.store.find_app_user(partner.workspace, ada_user).await.expect("read").is_none());
    let theirs_user = theirs.user_id.expect("a person");
    assert!(w.store.find_app_user(stranger.workspace, theirs_user).await.expect("read").is_some(), "another workspace");
    let devices = w.apps.devices(&partner.principal, None, None, None, None).await.expect("list").items;
    let ada_device = devices.iter().find(|d| d.device_id == ada.device_id).expect("the device stays");
    assert_eq!((ada_device.user_id, ada_device.identity, ada_device.has_email), (None, Identity::Anonymous, false));
    assert_eq!(devices.iter().find(|d| d.device_id == bob.device_id).expect("bob").user_id, bob.user_id);

    assert!(!w.erasures.erase_device(&stranger.principal, None, bob.device_id).await.expect("not theirs"));
    assert!(!w.erasures.erase_device(&partner.principal, None, DeviceId::new_random()).await.expect("unknown"));
    assert!(w.erasures.erase_device(&partner.principal, None, bob.device_id).await.expect("erased"));
    assert!(!w.erasures.erase_device(&partner.principal, None, bob.device_id).await.expect("again"));
    let devices = w.apps.devices(&partner.principal, None, None, None, None).await.expect("list").items;
    assert_eq!(devices.iter().map(|d| d.device_id).collect::<Vec<_>>(), [ada.device_id]);
    let theirs_devices = w.apps.devices(&stranger.principal, None, None, None, None).await.expect("list").items;
    assert_eq!(theirs_devices.len(), 1);
}

pub async fn each_erasure_is_audited_once_by_an_id_and_one_that_erases_nothing_not_at_all<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let (invited, _) = invited_campaign(&w, &partner, &[("crm-7", Some("a@example.com"), None)]).await;
    let campaign = invited.campaign.id;
    let code = w.open_campaign(&partner).await.campaign.code;
    let ada = w.apps.register(register(&code, "user-42")).await.expect("registered");
    let bob = w.apps.register(register(&code, "user-43")).await.expect("registered");
    let seen = audited(&w, &partner).await.len();
    let principal = &partner.principal;

    assert!(!w.erasures.erase_device(principal, None, DeviceId::new_random()).await.expect("unknown"));
    assert!(!w.erasures.erase_app_user(principal, None, "nobody").await.expect("unknown"));
    assert!(!w.erasures.erase_respondent(principal, None, campaign, "nobody").await.expect("unknown"));
    assert!(w.erasures.erase_respondent(principal, None, campaign, "crm-7").await.expect("erased"));
    assert!(w.erasures.erase_app_user(principal, None, "user-42").await.expect("erased"));
    assert!(w.erasures.erase_device(principal, None, bob.device_id).await.expect("erased"));
    assert!(!w.erasures.erase_respondent(principal, None, campaign, "crm-7").await.expect("again"));
    assert!(!w.erasures.erase_app_user(principal, None, "user-42").await.expect("again"));
    assert!(!w.erasures.erase_device(principal, None, bob.device_id).await.expect("again"));

    let erased = audited(&w, &partner).await[seen..].to_vec();
    let actions = [AuditAction::RespondentErased, AuditAction::AppUserErased, AuditAction::DeviceErased];
    assert_eq!(erased.iter().map(|e| e.action).collect::<Vec<_>>(), actions);
    for entry in &erased {
        let expected = AuditEntry::by_key(principal, partner.workspace, entry.action, &entry.target, w.clock.now());
        assert_eq!(entry, &expected);
    }
    assert_eq!(erased[2].target, bob.device_id.to_string());
    // The person and the respondent are named by their erasures' ids: fresh ones, neither the
    // reference asked by nor the person's id, which the `externalId` would name again.
    let (respondent, person) = (&erased[0].target, &erased[1].target);
    assert!(Uuid::parse_str(respondent).is_ok() && Uuid::parse_str(person).is_ok());
    assert_ne!(respondent, person);
    assert_ne!(person, &ada.user_id.expect("a person").to_string());
}
