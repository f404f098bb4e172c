//! The operator's side, through the domain's `Admin` service rather than HTTP: businesses, keys
//! and workspace approval, which no partner route can do.

use std::sync::Arc;

use pulse::startup::{crypto_from, store_from};
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::shared::clock::SettableClock;
use pulse_domain::tenancy::service::Admin;
use pulse_domain::tenancy::service::KeyRequest;
use secrecy::ExposeSecret;

use super::TestApp;

/// A key as the operator hands it out.
pub struct TestKey {
    pub key: String,
    pub prefix: String,
}

impl TestApp {
    fn admin(&self) -> Admin<pulse_postgres::PgStore, Arc<pulse_crypto::RingCrypto>, SettableClock> {
        Admin::new(
            store_from(&self.settings).expect("store"),
            crypto_from(&self.settings).expect("crypto"),
            self.clock.clone(),
        )
    }

    pub async fn create_business(&self) -> BusinessId {
        self.admin().create_business("Acme Partners").await.expect("business").id
    }

    pub async fn create_key(&self, business: Option<BusinessId>, scopes: &[&str]) -> TestKey {
        self.create_key_with(business, scopes, &[], None).await
    }

    pub async fn create_key_with(
        &self,
        business: Option<BusinessId>,
        scopes: &[&str],
        workspaces: &[WorkspaceId],
        expires_in: Option<time::Duration>,
    ) -> TestKey {
        let issued = self
            .admin()
            .create_key(KeyRequest {
                business_id: business,
                scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
                workspaces: workspaces.to_vec(),
                expires_in,
            })
            .await
            .expect("key");
        TestKey { key: issued.key.expose_secret().to_owned(), prefix: issued.prefix }
    }

    pub async fn revoke_key(&self, prefix: &str) {
        self.admin().revoke_key(prefix).await.expect("revoke");
    }

    pub async fn approve_workspace(&self, id: WorkspaceId) {
        self.admin().approve_workspace(id).await.expect("approve");
    }

    /// A business with one key that may create workspaces.
    pub async fn partner(&self) -> (BusinessId, TestKey) {
        let business = self.create_business().await;
        let key = self.create_key(Some(business), &["channel:workspaces", "channel:results"]).await;
        (business, key)
    }
}
