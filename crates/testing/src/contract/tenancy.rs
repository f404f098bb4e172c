//! `TenancyRepository`: keys found by prefix, revocation, one workspace per reference, the
//! business's workspace limit, and the operator's actions in the audit trail.

use pulse_domain::ErrorCode;
use pulse_domain::audit::models::{AuditAction, AuditActor, AuditEntry, AuditQuery};
use pulse_domain::ids::{ApiKeyId, WorkspaceId};
use pulse_domain::shared::clock::Clock;
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::tenancy::models::{NewWorkspace, WorkspaceCreation, WorkspaceDetails, WorkspaceType, slug_for};
use pulse_domain::tenancy::service::KeyRequest;
use pulse_domain::webhooks::models::SubscriptionInput;
use time::Duration;

use super::{Store, World};

pub async fn a_key_is_found_by_its_prefix_and_a_revoked_key_stays_revoked<S: Store>(store: S) {
    let w = World::new(store);
    let business = w.admin.create_business("Acme").await.expect("business");
    let request =
        KeyRequest { business_id: Some(business.id), scopes: vec!["channel:results".into()], ..KeyRequest::default() };
    let issued = w.admin.create_key(request).await.expect("key");
    let found = w.store.find_api_key(&issued.prefix).await.expect("find").expect("the key");
    assert_eq!((found.business_id, found.revoked_at), (Some(business.id), None));
    assert!(w.store.find_api_key("unknown00").await.expect("find").is_none());

    assert!(w.store.revoke_api_key(&issued.prefix, w.clock.now(), None).await.expect("revoke"));
    let revoked = w.store.find_api_key(&issued.prefix).await.expect("find").expect("the key");
    assert_eq!(revoked.revoked_at, Some(w.clock.now()));
    assert!(!w.store.revoke_api_key("unknown00", w.clock.now(), None).await.expect("revoke"));
}

pub async fn the_operators_approvals_and_keys_are_audited_and_an_approval_announced_once<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner_with("Acme", false).await;
    let other = w.partner("Globex").await;
    let input = SubscriptionInput {
        url: Some("https://hooks.example.com/workspaces".into()),
        description: None,
        event_types: Some(vec!["workspace.approved".into()]),
    };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    w.admin.approve_workspace(partner.workspace).await.expect("approved");
    w.admin.approve_workspace(partner.workspace).await.expect("approved again");
    let page = w.webhooks.deliveries(&partner.principal, None, subscription.id, None, None).await.expect("read");
    let announced: Vec<&str> = page.items.iter().map(|d| d.event_type.as_str()).collect();
    assert_eq!(announced, ["workspace.approved"], "announced once, with the approval");
    let request = KeyRequest {
        business_id: Some(partner.business),
        scopes: vec!["channel:audit".into()],
        ..KeyRequest::default()
    };
    let issued = w.admin.create_key(request).await.expect("key");
    w.admin.revoke_key(&issued.prefix).await.expect("revoked");
    w.admin.revoke_key(&issued.prefix).await.expect("revoked again");

    let trail = |workspace: WorkspaceId| {
        let store = w.store.clone();
        async move {
            let page = PageRequest { limit: 50, after: None };
            let events = store.list_audit_events(workspace, &AuditQuery::default(), &page).await.expect("trail");
            assert!(events.windows(2).all(|pair| pair[0].position < pair[1].position), "in written order");
            events
                .into_iter()
                .filter(|e| e.entry.actor == AuditActor::Operator)
                .map(|e| (e.entry.action, e.entry.target, e.entry.actor))
                .collect::<Vec<_>>()
        }
    };
    let first_key = w.store.find_api_key(&partner.principal.key_prefix).await.expect("find").expect("key");
    assert_eq!(
        trail(partner.workspace).await,
        [
            (AuditAction::KeyCreated, first_key.prefix, AuditActor::Operator),
            (AuditAction::WorkspaceApproved, partner.workspace.to_string(), AuditActor::Operator),
            (AuditAction::KeyCreated, issued.prefix.clone(), AuditActor::Operator),
            (AuditAction::KeyRevoked, issued.prefix, AuditActor::Operator),
        ]
    );
    let others: Vec<AuditAction> = trail(other.workspace).await.into_iter().map(|(action, ..)| action).collect();
    assert_eq!(others, [AuditAction::KeyCreated, AuditAction::WorkspaceApproved], "its own business's only");
}

pub async fn audit_entries_past_the_retention_are_purged_and_the_rest_kept<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let start = w.clock.now() + Duration::DAY;
    for (day, target) in [(0, "first"), (1, "second"), (2, "third")] {
        let at = start + Duration::days(day);
        let entry = AuditEntry::by_key(&partner.principal, partner.workspace, AuditAction::ExportRequested, target, at);
        w.store.record_audit(&entry).await.expect("recorded");
    }
    let page = PageRequest { limit: 50, after: None };
    let query = AuditQuery { kinds: vec![AuditAction::ExportRequested], ..AuditQuery::default() };
    assert_eq!(
        w.store.purge_audit_events(start + Duration::days(1)).await.expect("purged"),
        3,
        "the first, and the setup's key and approval"
    );
    let left = w.store.list_audit_events(partner.workspace, &query, &page).await.expect("trail");
    let targets: Vec<&str> = left.iter().map(|e| e.entry.target.as_str()).collect();
    assert_eq!(targets, ["second", "third"]);
    assert_eq!(w.store.purge_audit_events(start).await.expect("purged"), 0, "nothing older left");
}

pub async fn a_key_is_usable_until_revoked_or_expired<S: Store>(store: S) {
    let w = World::new(store);
    let business = w.admin.create_business("Acme").await.expect("business");
    let now = w.clock.now();
    let request = |expires_in| KeyRequest {
        business_id: Some(business.id),
        scopes: vec!["channel:export".into()],
        expires_in,
        ..KeyRequest::default()
    };
    let lasting = w.admin.create_key(request(None)).await.expect("key");
    let brief = w.admin.create_key(request(Some(Duration::HOUR))).await.expect("key");
    let id_of = |prefix: &str| {
        let prefix = prefix.to_owned();
        let store = w.store.clone();
        async move { store.find_api_key(&prefix).await.expect("find").expect("the key").id }
    };
    let (lasting_id, brief_id) = (id_of(&lasting.prefix).await, id_of(&brief.prefix).await);
    assert_eq!(w.store.usable_key_prefix(lasting_id, now).await.expect("read"), Some(lasting.prefix.clone()));
    assert!(w.store.usable_key_prefix(brief_id, now + Duration::MINUTE).await.expect("read").is_some());
    assert!(w.store.usable_key_prefix(brief_id, now + Duration::HOUR).await.expect("read").is_none(), "expired");
    w.store.revoke_api_key(&lasting.prefix, now + Duration::MINUTE, None).await.expect("revoke");
    assert!(w.store.usable_key_prefix(lasting_id, now).await.expect("read").is_some(), "usable before its revocation");
    assert!(w.store.usable_key_prefix(lasting_id, now + Duration::MINUTE).await.expect("read").is_none(), "revoked");
    assert!(w.store.usable_key_prefix(ApiKeyId::new_random(), now).await.expect("read").is_none(), "unknown");
}

pub async fn one_reference_means_one_workspace_and_the_business_limit_holds<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let key = partner.principal.key_id;
    let new = |reference: &str| {
        let id = WorkspaceId::new_random();
        NewWorkspace {
            id,
            business_id: partner.business,
            slug: slug_for(reference, id),
            details: WorkspaceDetails {
                external_ref: reference.into(),
                name: reference.into(),
                kind: WorkspaceType::Company,
                team: None,
                location: None,
                time_zone: None,
            },
            created_at: w.clock.now(),
        }
    };
    match w.store.create_workspace(key, &new("client-1"), 3).await.expect("create") {
        WorkspaceCreation::Existing(existing) => assert_eq!(existing.id, partner.workspace),
        WorkspaceCreation::Created(_) => panic!("the reference already names a workspace"),
    }
    assert!(matches!(w.store.create_workspace(key, &new("client-2"), 3).await, Ok(WorkspaceCreation::Created(_))));
    assert!(matches!(w.store.create_workspace(key, &new("client-3"), 3).await, Ok(WorkspaceCreation::Created(_))));
    let refused = w.store.create_workspace(key, &new("client-4"), 3).await.expect_err("over the limit");
    assert_eq!(refused.code(), ErrorCode::RateLimited);
    let listed = w.store.list_workspaces(partner.business, &[partner.workspace]).await.expect("list");
    assert_eq!(listed.len(), 1, "only the workspaces asked for");
}
