//! Operator commands, key authentication and workspaces.
use futures_executor::block_on;
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::tenancy::models::{KEY_CACHE_TTL, SECRET_RANDOM_LEN, WellFormedKey, WorkspaceInput};
use secrecy::ExposeSecret;
use time::Duration;
use time::macros::datetime;

use pulse_domain::shared::clock::SettableClock;
use pulse_domain::tenancy::models::WorkspaceStatus;
use pulse_domain::tenancy::service::*;
use pulse_testing::{MemoryStore, fakes::TestCrypto};

struct World {
    admin: Admin<MemoryStore, TestCrypto, SettableClock>,
    tenancy: Tenancy<MemoryStore, TestCrypto, SettableClock>,
    clock: SettableClock,
    store: MemoryStore,
}

fn world() -> World {
    let store = MemoryStore::default();
    let crypto = TestCrypto::default();
    let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
    World {
        admin: Admin::new(store.clone(), crypto.clone(), clock.clone()),
        tenancy: Tenancy::new(store.clone(), crypto, clock.clone(), 3),
        clock,
        store,
    }
}

fn key(w: &World, business: Option<BusinessId>, scopes: &[&str], expires_in: Option<Duration>) -> IssuedKey {
    let request = KeyRequest {
        business_id: business,
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        workspaces: vec![],
        expires_in,
    };
    block_on(w.admin.create_key(request)).expect("key")
}

fn details(r: &str, name: &str) -> WorkspaceInput {
    WorkspaceInput { external_ref: r.into(), name: name.into(), ..WorkspaceInput::default() }
}

#[test]
fn keys_authenticate_until_revoked_or_expired() {
    let w = world();
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let issued = key(&w, Some(business.id), &["channel:workspaces"], Some(Duration::HOUR));
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("valid");
    assert_eq!(principal.business_id, Some(business.id));
    assert_eq!(principal.key_prefix, issued.prefix);

    w.clock.advance(Duration::HOUR);
    let expired = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect_err("expired");
    assert!(expired.to_string().contains("expired"));

    let other = key(&w, Some(business.id), &["channel:results"], None);
    block_on(w.admin.revoke_key(&other.prefix)).expect("revoked");
    let revoked = block_on(w.tenancy.authenticate(Some(other.key.expose_secret()))).expect_err("revoked");
    assert!(revoked.to_string().contains("revoked"));
    assert_eq!(block_on(w.admin.revoke_key("nope")).expect_err("unknown").code(), ErrorCode::NotFound);
}

#[test]
fn a_wrong_secret_with_a_real_prefix_is_refused() {
    let w = world();
    let issued = key(&w, None, &["channel:results"], None);
    let forged = WellFormedKey::assemble(&issued.prefix, &"x".repeat(SECRET_RANDOM_LEN));
    let err = block_on(w.tenancy.authenticate(Some(forged.secret().expose_secret()))).expect_err("forged");
    assert_eq!(err.code(), ErrorCode::Unauthenticated);
    assert_eq!(block_on(w.tenancy.authenticate(None)).expect_err("none").code(), ErrorCode::Unauthenticated);
}

#[test]
fn creating_a_workspace_widens_only_the_creating_key() {
    let w = world();
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let creator = key(&w, Some(business.id), &["channel:workspaces"], None);
    let bystander = key(&w, Some(business.id), &["channel:workspaces"], None);
    let p = block_on(w.tenancy.authenticate(Some(creator.key.expose_secret()))).expect("p");
    let (ws, created) = block_on(w.tenancy.create_workspace(&p, &details("client-1", "Client"))).expect("created");
    assert!(created);
    assert_eq!(ws.status, WorkspaceStatus::PendingApproval);

    let p = block_on(w.tenancy.authenticate(Some(creator.key.expose_secret()))).expect("p");
    assert_eq!(p.workspace_allowlist, vec![ws.id]);
    let list = block_on(w.tenancy.list_workspaces(&p)).expect("list");
    assert_eq!(list.default_workspace_id, Some(ws.id));

    let b = block_on(w.tenancy.authenticate(Some(bystander.key.expose_secret()))).expect("b");
    assert!(b.workspace_allowlist.is_empty());
    let (same, created) = block_on(w.tenancy.create_workspace(&b, &details("client-1", "Client"))).expect("same");
    assert!(!created);
    assert_eq!(same.id, ws.id);
    let b = block_on(w.tenancy.authenticate(Some(bystander.key.expose_secret()))).expect("b");
    assert!(b.workspace_allowlist.is_empty(), "other keys are not widened");
}

#[test]
fn same_ref_with_other_details_conflicts_and_the_business_limit_holds() {
    let w = world();
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let issued = key(&w, Some(business.id), &["channel:workspaces"], None);
    let p = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("p");
    block_on(w.tenancy.create_workspace(&p, &details("r1", "One"))).expect("one");
    let conflict = block_on(w.tenancy.create_workspace(&p, &details("r1", "Renamed"))).expect_err("conflict");
    assert_eq!(conflict.code(), ErrorCode::RefConflict);
    block_on(w.tenancy.create_workspace(&p, &details("r2", "Two"))).expect("two");
    block_on(w.tenancy.create_workspace(&p, &details("r3", "Three"))).expect("three");
    let full = block_on(w.tenancy.create_workspace(&p, &details("r4", "Four"))).expect_err("limit");
    assert_eq!(full.code(), ErrorCode::RateLimited);
}

#[test]
fn workspace_routes_need_scope_and_business() {
    let w = world();
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let reader = key(&w, Some(business.id), &["channel:results"], None);
    let p = block_on(w.tenancy.authenticate(Some(reader.key.expose_secret()))).expect("p");
    let err = block_on(w.tenancy.create_workspace(&p, &details("r", "n"))).expect_err("scope");
    assert_eq!(err.code(), ErrorCode::InsufficientPermission);

    let orphan = key(&w, None, &["channel:workspaces"], None);
    let p = block_on(w.tenancy.authenticate(Some(orphan.key.expose_secret()))).expect("p");
    assert_eq!(
        block_on(w.tenancy.create_workspace(&p, &details("r", "n"))).expect_err("no org").code(),
        ErrorCode::NoOrg
    );
    assert_eq!(block_on(w.tenancy.list_workspaces(&p)).expect_err("no org").code(), ErrorCode::NoOrg);
}

#[test]
fn key_requests_are_validated() {
    let w = world();
    let bad_scope = KeyRequest { scopes: vec!["Channel".into()], ..KeyRequest::default() };
    assert_eq!(block_on(w.admin.create_key(bad_scope)).expect_err("scope").code(), ErrorCode::ValidationFailed);
    let unknown = KeyRequest {
        business_id: Some(BusinessId::new_random()),
        scopes: vec!["channel:results".into()],
        ..KeyRequest::default()
    };
    assert_eq!(block_on(w.admin.create_key(unknown)).expect_err("business").code(), ErrorCode::NotFound);
    let orphan_ws = KeyRequest {
        scopes: vec!["channel:results".into()],
        workspaces: vec![WorkspaceId::new_random()],
        ..KeyRequest::default()
    };
    assert_eq!(block_on(w.admin.create_key(orphan_ws)).expect_err("ws").code(), ErrorCode::ValidationFailed);
}

#[test]
fn a_key_copy_serves_for_a_second_and_never_hides_a_new_workspace() {
    let w = world();
    let other_replica = Tenancy::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), 3);
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let issued = key(&w, Some(business.id), &["channel:workspaces"], None);
    let secret = Some(issued.key.expose_secret());
    let p = block_on(w.tenancy.authenticate_for(secret, None)).expect("read and kept");
    assert!(p.workspace_allowlist.is_empty());

    // Created through another replica: this one's copy predates it, and is read again at once.
    let creator = block_on(other_replica.authenticate(secret)).expect("p");
    let (ws, _) = block_on(other_replica.create_workspace(&creator, &details("client-1", "Client"))).expect("created");
    let header = ws.id.to_string();
    let p = block_on(w.tenancy.authenticate_for(secret, Some(&header))).expect("the new workspace is reached");
    assert_eq!(p.resolve_workspace(Some(&header)).expect("resolved"), ws.id);
    assert_eq!(block_on(w.tenancy.authenticate_for(secret, None)).expect("p").default_workspace(), Some(ws.id));

    // A revocation elsewhere is honoured once the copy is a second old, at the latest.
    block_on(w.admin.revoke_key(&issued.prefix)).expect("revoked");
    assert!(block_on(w.tenancy.authenticate_for(secret, Some(&header))).is_ok(), "the copy is younger than a second");
    let fresh = block_on(w.tenancy.authenticate(secret)).expect_err("read from the store");
    assert_eq!(fresh.code(), ErrorCode::Unauthenticated);
    w.clock.advance(KEY_CACHE_TTL);
    let revoked = block_on(w.tenancy.authenticate_for(secret, Some(&header))).expect_err("revoked everywhere");
    assert!(revoked.to_string().contains("revoked"));
}
