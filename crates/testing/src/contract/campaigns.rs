//! `CampaignRepository`: public codes are unique, every read stays in its workspace or business, the
//! overview's counts follow every write of the audience and its sessions, and a campaign that is not
//! collecting takes no link, start or register however old the copy a service decided on.

use futures_util::future::join_all;
use pulse_domain::ErrorCode;
use pulse_domain::apps::models::RegisterInput;
use pulse_domain::audit::models::{AuditAction, AuditActor, AuditEntry, AuditQuery};
use pulse_domain::campaigns::models::{
    AudienceRowInput, Campaign, CampaignCounts, CampaignOverview, CampaignStatus, LaunchContext, LaunchInput,
    LaunchLink, ListedCampaign, ProvisionInput, Transition, not_collecting,
};
use pulse_domain::ids::{CampaignId, LaunchLinkId};
use pulse_domain::sessions::models::{AnswerInput, NotStarted, StartInput, StartOutcome, Visit};
use pulse_domain::shared::clock::Clock;
use pulse_domain::shared::paging::PageRequest;
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
    let unknown = w.store.change_campaign_status(
        CampaignId::new_random(),
        &[CampaignStatus::Draft],
        CampaignStatus::Active,
        w.clock.now(),
        None,
    );
    assert!(unknown.await.expect("changed nothing").is_none());
}

async fn stored_campaign<S: Store>(w: &World<S>, partner: &Partner, id: CampaignId) -> Campaign {
    w.store.campaign_overview(partner.workspace, id).await.expect("read").expect("found").campaign
}

/// The entries the partner's key wrote to its workspace's trail, in the order written (the
/// operator's, from setting the partner up, left out).
pub(super) async fn audited<S: Store>(w: &World<S>, partner: &Partner) -> Vec<AuditEntry> {
    let page = PageRequest { limit: 50, after: None };
    let events = w.store.list_audit_events(partner.workspace, &AuditQuery::default(), &page).await.expect("trail");
    events.into_iter().map(|e| e.entry).filter(|e| e.actor != AuditActor::Operator).collect()
}

pub(super) async fn counts_of<S: Store>(
    w: &World<S>,
    partner: &Partner,
    campaign: &CampaignOverview,
) -> CampaignCounts {
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
            time_zone: None,
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

/// The services read campaigns from copies up to a second old; the clock stands still here, so
/// every copy predates the change, and only the store's own check at write time can refuse.
pub async fn a_paused_or_closed_campaign_takes_no_link_start_or_register_even_from_an_old_copy<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let overview = w.open_campaign(&partner).await;
    let campaign = &overview.campaign;
    let unsigned = || StartInput { consent_given: Some(true), ..StartInput::default() };
    let register = || RegisterInput {
        campaign_code: campaign.code.clone(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        ..RegisterInput::default()
    };
    // Warm every copy while the campaign collects.
    assert!(matches!(w.respondents.start(&campaign.code, unsigned()).await, Ok(StartOutcome::Started(_))));
    w.apps.register(register()).await.expect("registered while collecting");

    for transition in [Transition::Pause, Transition::Close] {
        let token = w.minted_token(&partner, &overview).await;
        let changed = w.campaigns.change_status(&partner.principal, None, campaign.id, transition).await;
        let status = changed.expect("changed").overview.campaign.status;
        assert_eq!(status, transition.target(CampaignStatus::Active).expect("a target"));
        let mint = w.campaigns.mint_link(&partner.principal, None, launch_input(campaign.id)).await;
        assert_eq!(mint.expect_err("not collecting").code(), ErrorCode::CampaignNotCollecting, "{status:?}");
        let start = w.respondents.start(&campaign.code, unsigned()).await.expect("answered");
        assert!(matches!(start, StartOutcome::NotStarted(NotStarted::CampaignNotOpen)), "{status:?}: {start:?}");
        let visit = Visit { launch_token: Some(token.clone()), ..Visit::default() };
        let start = w.respondents.start(&campaign.code, StartInput { visit, ..unsigned() }).await.expect("answered");
        assert!(matches!(start, StartOutcome::NotStarted(NotStarted::CampaignNotOpen)), "{status:?}: {start:?}");
        let refused = w.apps.register(register()).await.expect_err("not collecting");
        assert_eq!(refused.code(), ErrorCode::CampaignNotCollecting, "{status:?}");
        if transition == Transition::Pause {
            // Resumed, it collects again, and the link minted before the pause still works once.
            w.campaigns
                .change_status(&partner.principal, None, campaign.id, Transition::Resume)
                .await
                .expect("resumed");
            w.start(&campaign.code, &token).await.expect("the old link works again");
            w.apps.register(register()).await.expect("registered again");
        }
    }
    let counts = w.store.campaign_overview(partner.workspace, campaign.id).await.expect("read").expect("found").counts;
    assert_eq!(counts.started, 2, "one start before the pause, one after the resume");
    let devices = w.apps.devices(&partner.principal, None, None, Some("10"), None).await.expect("a page");
    assert_eq!(devices.items.len(), 2, "one register before the pause, one after the resume");
}

/// Links written together, of a campaign still collecting, of one paused and of one gone since the
/// service read it: each is answered by its own campaign (the gone one as closed), and only those
/// of the collecting one are stored.
pub async fn links_written_together_are_each_answered_by_their_own_campaign<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let open = w.open_campaign(&partner).await.campaign.id;
    let paused = w.open_campaign(&partner).await.campaign.id;
    w.campaigns.change_status(&partner.principal, None, paused, Transition::Pause).await.expect("paused");
    let link = |campaign_id| LaunchLink {
        id: LaunchLinkId::new_random(),
        campaign_id,
        nonce_digest: None,
        respondent_id: None,
        language: None,
        external_user_digest: None,
        context: LaunchContext::default(),
        expires_at: None,
        spent_at: None,
        created_at: w.clock.now(),
    };
    let links = [link(open), link(paused), link(open), link(paused), link(CampaignId::new_random())];
    let results = join_all(links.iter().map(|l| w.store.insert_launch_link(l))).await;
    for (l, result) in links.iter().zip(&results) {
        let stored = w.store.find_launch_link(l.campaign_id, l.id).await.expect("a read");
        if l.campaign_id == open {
            result.as_ref().expect("a link of a collecting campaign is written");
            assert_eq!(stored.map(|s| s.id), Some(l.id));
        } else {
            let status = if l.campaign_id == paused { CampaignStatus::Paused } else { CampaignStatus::Closed };
            let refusal = result.as_ref().err().map(ToString::to_string);
            assert_eq!(refusal, Some(not_collecting(status).to_string()), "answered by its own campaign");
            assert_eq!(stored, None, "a refused link is not stored");
        }
    }
}

/// A change its status does not allow is refused and changes nothing; asking for the status a
/// campaign is in answers it as it is; the list pages every status and filters by one.
pub async fn campaign_status_changes_follow_the_lifecycle_and_the_list_follows_them<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let change = |id: CampaignId, t: Transition| w.campaigns.change_status(&partner.principal, None, id, t);
    let live = w.open_campaign(&partner).await.campaign;
    let draft_input = ProvisionInput { survey_id: Some(live.survey_id), ..ProvisionInput::default() };
    let draft = w.campaigns.provision(&partner.principal, None, draft_input).await.expect("provisioned").campaign;

    for refused in [Transition::Pause, Transition::Resume] {
        let error = change(draft.id, refused).await.expect_err("a draft is launched, not paused or resumed");
        assert_eq!(error.code(), ErrorCode::Conflict);
    }
    assert_eq!(
        change(live.id, Transition::Resume).await.expect("as it is").overview.campaign.status,
        CampaignStatus::Active
    );
    let paused = change(live.id, Transition::Pause).await.expect("paused").overview.campaign;
    assert_eq!(
        (paused.status, &paused),
        (CampaignStatus::Paused, &stored_campaign(&w, &partner, live.id).await),
        "answered as stored"
    );
    let resumed = change(live.id, Transition::Resume).await.expect("resumed").overview.campaign;
    assert_eq!((resumed.status, resumed.launched_at), (CampaignStatus::Active, live.launched_at));
    assert!(live.launched_at.is_some(), "resuming keeps the first launch's time");
    change(live.id, Transition::Pause).await.expect("paused again");
    assert_eq!(
        change(live.id, Transition::Pause).await.expect("as it is").overview.campaign.status,
        CampaignStatus::Paused
    );
    let relaunch = w.campaigns.launch(&partner.principal, None, live.id).await.expect_err("paused, not a draft");
    assert_eq!(relaunch.code(), ErrorCode::Conflict);
    let closed = change(draft.id, Transition::Close).await.expect("a draft can be closed").overview.campaign;
    assert_eq!(
        (closed.status, closed.closed_at, closed.launched_at),
        (CampaignStatus::Closed, Some(w.clock.now()), None)
    );
    assert_eq!(closed, stored_campaign(&w, &partner, draft.id).await, "answered as stored");
    for refused in [Transition::Pause, Transition::Resume] {
        assert_eq!(change(draft.id, refused).await.expect_err("closing is final").code(), ErrorCode::Conflict);
    }
    let relaunch = w.campaigns.launch(&partner.principal, None, draft.id).await.expect_err("closed");
    assert_eq!(relaunch.code(), ErrorCode::Conflict);
    assert_eq!(
        change(draft.id, Transition::Close).await.expect("as it is").overview.campaign.closed_at,
        closed.closed_at
    );

    let ids = |page: &pulse_domain::shared::paging::Page<ListedCampaign>| -> Vec<CampaignId> {
        page.items.iter().map(|c| c.campaign.id).collect()
    };
    let first = w.campaigns.list(&partner.principal, None, None, Some("1"), None).await.expect("a page");
    assert_eq!(ids(&first), vec![live.id], "oldest first");
    let second = w.campaigns.list(&partner.principal, None, None, Some("1"), first.next_cursor.as_deref()).await;
    let second = second.expect("a page");
    assert_eq!((ids(&second), second.next_cursor), (vec![draft.id], None));
    let closed_only = w.campaigns.list(&partner.principal, None, Some("CLOSED"), None, None).await.expect("a page");
    assert_eq!(ids(&closed_only), vec![draft.id]);
    let other_list =
        w.campaigns.list(&partner.principal, None, Some("PAUSED"), Some("1"), first.next_cursor.as_deref());
    assert_eq!(other_list.await.expect_err("another list's cursor").code(), ErrorCode::ValidationFailed);
    let unknown = w.campaigns.list(&partner.principal, None, Some("ARCHIVED"), None, None).await;
    assert_eq!(unknown.expect_err("no such status").code(), ErrorCode::ValidationFailed);
    let stranger = w.partner("Globex").await;
    let theirs = w.campaigns.list(&stranger.principal, None, None, None, None).await.expect("a page");
    assert!(theirs.items.is_empty(), "another workspace's campaigns are not listed");
    let foreign = w.campaigns.change_status(&stranger.principal, None, live.id, Transition::Close).await;
    assert_eq!(foreign.expect_err("another workspace's").code(), ErrorCode::NotFound);
}

fn launch_input(campaign_id: CampaignId) -> LaunchInput {
    LaunchInput { campaign_id, external_user_ref: None, language: None, device: None, attributes: None }
}

pub async fn each_status_change_and_audience_upload_is_audited_once_and_a_change_to_nothing_not_at_all<S: Store>(
    store: S,
) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let entry = |action: AuditAction, id: CampaignId| {
        AuditEntry::by_key(&partner.principal, partner.workspace, action, id, w.clock.now())
    };
    let change = |id: CampaignId, t: Transition| w.campaigns.change_status(&partner.principal, None, id, t);
    // One upload of two rows, then the launch.
    let (campaign, _) =
        invited_campaign(&w, &partner, &[("a", Some("a@example.com"), None), ("b", Some("b@example.com"), None)]).await;
    let id = campaign.campaign.id;
    w.campaigns.launch(&partner.principal, None, id).await.expect("launched already");
    change(id, Transition::Pause).await.expect("paused");
    change(id, Transition::Pause).await.expect("paused already");
    change(id, Transition::Resume).await.expect("resumed");
    change(id, Transition::Close).await.expect("closed");
    change(id, Transition::Close).await.expect("closed already");
    // A change the store finds made meanwhile writes its entry no more than its status.
    let late = entry(AuditAction::CampaignPaused, id);
    let stale = w.store.change_campaign_status(
        id,
        &[CampaignStatus::Active],
        CampaignStatus::Paused,
        w.clock.now(),
        Some(&late),
    );
    assert!(stale.await.expect("changed nothing").is_none());
    // A change of the service's own writes none.
    let input = ProvisionInput { survey_id: Some(campaign.survey.id), ..ProvisionInput::default() };
    let draft = w.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
    let closed = w.store.change_campaign_status(
        draft.campaign.id,
        &[CampaignStatus::Draft],
        CampaignStatus::Closed,
        w.clock.now(),
        None,
    );
    assert!(closed.await.expect("closed").is_some());

    assert_eq!(
        audited(&w, &partner).await,
        [
            entry(AuditAction::AudienceAttached, id),
            entry(AuditAction::CampaignLaunched, id),
            entry(AuditAction::CampaignPaused, id),
            entry(AuditAction::CampaignResumed, id),
            entry(AuditAction::CampaignClosed, id),
        ]
    );
    assert!(audited(&w, &w.partner("Globex").await).await.is_empty(), "another workspace's trail");
}
