//! `GET /orgs` and `POST /orgs`.

use pulse_domain::ids::WorkspaceId;
use serde_json::{Value, json};

use crate::helpers::{envelope, spawn_app, spawn_app_with};

#[tokio::test]
async fn creating_a_workspace_answers_201_with_the_summary() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let body =
        json!({"externalRef": "crm-42", "name": "Northwind", "type": "EDUCATIONAL", "team": "Ops", "location": "Pune"});
    let response = app.create_org(&key.key, &body).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["created"], json!(true));
    let workspace = &body["workspace"];
    assert_eq!(workspace["status"], json!("PENDING_APPROVAL"));
    assert_eq!(workspace["externalRef"], json!("crm-42"));
    assert_eq!(workspace["name"], json!("Northwind"));
    assert!(workspace["slug"].as_str().is_some_and(|s| s.starts_with("northwind-")));
    assert!(workspace["createdAt"].as_str().is_some_and(|s| s.starts_with("2026-03-02T10:00:00")));
    let id = workspace["id"].as_str().expect("id");

    // The creating key reaches it at once, without any header.
    let whoami: Value = app.whoami(&key.key).await.json().await.expect("json");
    assert_eq!(whoami["workspaceAllowlist"], json!([id]));
}

#[tokio::test]
async fn the_same_ref_again_is_200_and_other_details_are_409() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let body = json!({"externalRef": "crm-1", "name": "Client"});
    let first: Value = app.create_org(&key.key, &body).await.json().await.expect("json");

    let again = app.create_org(&key.key, &body).await;
    assert_eq!(again.status(), 200);
    assert!(again.headers().get("idempotency-replayed").is_none());
    let again: Value = again.json().await.expect("json");
    assert_eq!(again["created"], json!(false));
    assert_eq!(again["workspace"]["id"], first["workspace"]["id"]);

    // Sending the default type explicitly is the same details.
    let explicit =
        app.create_org(&key.key, &json!({"externalRef": "crm-1", "name": "Client", "type": "COMPANY"})).await;
    assert_eq!(explicit.status(), 200);

    for different in [
        json!({"externalRef": "crm-1", "name": "Renamed"}),
        json!({"externalRef": "crm-1", "name": "Client", "type": "OTHER"}),
        json!({"externalRef": "crm-1", "name": "Client", "team": "Sales"}),
        json!({"externalRef": "crm-1", "name": "Client", "location": "Lyon"}),
    ] {
        let (status, code, _) = envelope(app.create_org(&key.key, &different).await).await;
        assert_eq!((status, code.as_str()), (409, "REF_CONFLICT"), "{different}");
    }
    let list: Value = app.list_orgs(&key.key).await.json().await.expect("json");
    assert_eq!(list["total"], json!(1), "nothing changed");
}

#[tokio::test]
async fn other_keys_are_not_widened_and_other_businesses_are_apart() {
    let app = spawn_app().await;
    let (business, creator) = app.partner().await;
    let sibling = app.create_key(Some(business), &["channel:workspaces"]).await;
    let (_, stranger) = app.partner().await;
    let body = json!({"externalRef": "shared-ref", "name": "Client"});
    let created: Value = app.create_org(&creator.key, &body).await.json().await.expect("json");

    let sibling_list: Value = app.list_orgs(&sibling.key).await.json().await.expect("json");
    assert_eq!(sibling_list["total"], json!(0));

    // Another business's same ref is another workspace.
    let theirs = app.create_org(&stranger.key, &body).await;
    assert_eq!(theirs.status(), 201);
    let theirs: Value = theirs.json().await.expect("json");
    assert_ne!(theirs["workspace"]["id"], created["workspace"]["id"]);
    let stranger_list: Value = app.list_orgs(&stranger.key).await.json().await.expect("json");
    assert_eq!(stranger_list["workspaces"].as_array().map(Vec::len), Some(1));
    assert_eq!(stranger_list["workspaces"][0]["id"], theirs["workspace"]["id"]);
}

#[tokio::test]
async fn listing_shows_the_reachable_workspaces_oldest_first() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let a = app.workspace(&key.key, "a").await;
    app.clock.advance(time::Duration::SECOND);
    let b = app.workspace(&key.key, "b").await;
    let response = app.list_orgs(&key.key).await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.expect("json");
    assert_eq!(body["total"], json!(2));
    assert_eq!(body["defaultWorkspaceId"], Value::Null);
    let ids: Vec<&str> =
        body["workspaces"].as_array().expect("array").iter().filter_map(|w| w["id"].as_str()).collect();
    assert_eq!(ids, [a.to_string(), b.to_string()]);
}

#[tokio::test]
async fn keys_without_a_business_get_no_org() {
    let app = spawn_app().await;
    let orphan = app.create_key(None, &["channel:workspaces"]).await;
    let (status, code, _) = envelope(app.list_orgs(&orphan.key).await).await;
    assert_eq!((status, code.as_str()), (403, "NO_ORG"));
    let (status, code, _) =
        envelope(app.create_org(&orphan.key, &json!({"externalRef": "r", "name": "n"})).await).await;
    assert_eq!((status, code.as_str()), (403, "NO_ORG"));
}

#[tokio::test]
async fn creating_needs_the_workspaces_scope() {
    let app = spawn_app().await;
    let business = app.create_business().await;
    let reader = app.create_key(Some(business), &["channel:results"]).await;
    let (status, code, description) =
        envelope(app.create_org(&reader.key, &json!({"externalRef": "r", "name": "n"})).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:workspaces"), "names the scope: {description}");
    assert_eq!(app.list_orgs(&reader.key).await.status(), 200, "listing needs no scope");
}

#[tokio::test]
async fn every_field_rule_is_enforced_and_changes_nothing() {
    let app = spawn_app().await;
    let (_, key) = app.partner().await;
    let long = |n: usize| "x".repeat(n);
    let cases = [
        (json!({"name": "n"}), "externalRef"),
        (json!({"externalRef": "r"}), "name"),
        (json!({"externalRef": "", "name": "n"}), "externalRef"),
        (json!({"externalRef": long(201), "name": "n"}), "externalRef"),
        (json!({"externalRef": "r", "name": ""}), "name"),
        (json!({"externalRef": "r", "name": long(121)}), "name"),
        (json!({"externalRef": "r", "name": "n", "team": long(121)}), "team"),
        (json!({"externalRef": "r", "name": "n", "location": long(121)}), "location"),
        (json!({"externalRef": "r", "name": "n", "type": "company"}), "type"),
        (json!({"externalRef": "r", "name": "n", "extra": true}), "extra"),
        (json!({"externalRef": 42, "name": "n"}), "externalRef"),
        (json!(["not", "an", "object"]), "expected"),
    ];
    for (body, field) in cases {
        let (status, code, description) = envelope(app.create_org(&key.key, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(field), "{body}: {description}");
    }
    let ok = app
        .create_org(
            &key.key,
            &json!({"externalRef": long(200), "name": long(120), "team": long(120), "location": long(120)}),
        )
        .await;
    assert_eq!(ok.status(), 201, "the limits themselves are allowed");
    let list: Value = app.list_orgs(&key.key).await.json().await.expect("json");
    assert_eq!(list["total"], json!(1), "no refused request created anything");
}

#[tokio::test]
async fn the_business_workspace_limit_is_429() {
    let app = spawn_app_with(|s| s.quotas.workspaces_per_business = 2).await;
    let (business, key) = app.partner().await;
    app.workspace(&key.key, "one").await;
    let other_key = app.create_key(Some(business), &["channel:workspaces"]).await;
    app.workspace(&other_key.key, "two").await;
    let response = app.create_org(&key.key, &json!({"externalRef": "three", "name": "n"})).await;
    assert!(response.headers().contains_key("retry-after"));
    let (status, code, description) = envelope(response).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
    assert!(description.contains("limit of 2 workspaces"));
    // An existing ref is still answered: the limit only stops new workspaces.
    assert_eq!(app.create_org(&key.key, &json!({"externalRef": "one", "name": "Client"})).await.status(), 200);
}

#[tokio::test]
async fn allowlisted_keys_reach_only_their_business_workspaces() {
    let app = spawn_app().await;
    let (business, key) = app.partner().await;
    let workspace = app.workspace(&key.key, "client").await;
    let scoped = app.create_key_with(Some(business), &["channel:results"], &[workspace], None).await;
    let body: Value = app.whoami(&scoped.key).await.json().await.expect("json");
    assert_eq!(body["defaultWorkspaceId"], json!(workspace.to_string()));

    // An operator cannot hand a key another business's workspace, nor an unknown one.
    let other = app.create_business().await;
    for foreign in [workspace, WorkspaceId::new_random()] {
        let refused = pulse_domain::tenancy::service::Admin::new(
            pulse::startup::store_from(&app.settings).expect("store"),
            pulse::startup::crypto_from(&app.settings).expect("crypto"),
            app.clock.clone(),
        )
        .create_key(pulse_domain::tenancy::service::KeyRequest {
            business_id: Some(other),
            scopes: vec!["channel:results".into()],
            workspaces: vec![foreign],
            expires_in: None,
        })
        .await;
        assert_eq!(refused.expect_err("foreign workspace").code(), pulse_domain::ErrorCode::NotFound);
    }
}
