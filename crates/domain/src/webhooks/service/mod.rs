//! Endpoints and their delivery trail, as partners manage them.

mod dispatcher;

pub use dispatcher::*;

use crate::audit::models::{AuditAction, AuditEntry};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{DeliveryId, EventId, WebhookId, WorkspaceId};
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::shared::paging::{Cursors, Page, PageKey};
use crate::tenancy::models::{Principal, Scope};
use crate::webhooks::models::{
    DEFAULT_ROTATION_GRACE, DeliveryView, EVENT_PURGE_BATCH, EVENT_RETENTION, EventType, MAX_BULK_REDELIVERIES,
    MAX_ROTATION_GRACE, MAX_SUBSCRIPTIONS, NewEvent, NewSubscription, RedeliveryInput, SECRET_PREFIX,
    SECRET_RANDOM_CHARS, SecretRotation, Subscription, SubscriptionChanges, SubscriptionInput, SubscriptionPatch,
    WebhookUrl, description, event_types, redelivery_range, secret_seal_context,
};
use crate::webhooks::ports::{WebhookRepository, WebhookTransport};
use secrecy::SecretString;
use serde_json::{Map, json};
use time::{Duration, OffsetDateTime};

/// The partner routes of webhooks.
pub struct Webhooks<R, C, K, T> {
    repo: R,
    crypto: C,
    clock: K,
    transport: T,
    allow_private: bool,
}

impl<R, C, K, T> Webhooks<R, C, K, T>
where
    R: WebhookRepository,
    C: Crypto,
    K: Clock,
    T: WebhookTransport,
{
    /// `allow_private` lets URLs be `http://` (the transport lifts the address check itself).
    pub fn new(repo: R, crypto: C, clock: K, transport: T, allow_private: bool) -> Self {
        Self { repo, crypto, clock, transport, allow_private }
    }

    fn workspace(principal: &Principal, header: Option<&str>) -> Result<WorkspaceId> {
        principal.require_scope(Scope::WEBHOOKS)?;
        principal.resolve_workspace(header)
    }

    async fn checked_url(&self, text: &str) -> Result<WebhookUrl> {
        let url = WebhookUrl::parse(text, self.allow_private)?;
        self.transport.check_target(&url).await?;
        Ok(url)
    }

    /// Registers an endpoint and returns it with its signing secret, shown this once.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:webhooks`; workspace resolution errors;
    /// `ValidationFailed` for a bad or non-public `url`, an unknown event type or a long
    /// description; `Conflict` when the workspace holds [`MAX_SUBSCRIPTIONS`]; port errors.
    pub async fn create(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        input: SubscriptionInput,
    ) -> Result<(Subscription, SecretString)> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let description = description(input.description)?;
        let event_types = event_types(input.event_types.unwrap_or_default())?;
        let url = input.url.ok_or_else(|| Error::validation("url", "is required"))?;
        let url = self.checked_url(&url).await?;
        let id = WebhookId::new_random();
        let secret = self.new_secret();
        let now = self.clock.now();
        let subscription = Subscription {
            id,
            workspace_id: workspace,
            url: url.as_str().to_owned(),
            description,
            event_types,
            is_active: true,
            disabled_at: None,
            disabled_reason: None,
            created_at: now,
        };
        let new = NewSubscription {
            secret_sealed: self.crypto.seal(&secret_seal_context(id), secret.as_bytes()),
            subscription: subscription.clone(),
        };
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookCreated, id, now);
        self.repo.insert_subscription(&new, MAX_SUBSCRIPTIONS, &audit).await?;
        Ok((subscription, SecretString::from(secret)))
    }

    fn new_secret(&self) -> String {
        format!("{SECRET_PREFIX}{}", self.crypto.random_base62(SECRET_RANDOM_CHARS))
    }

    /// Gives an endpoint a new signing secret, shown this once. The secret it replaces goes on
    /// signing deliveries, next to the new one, for `grace_seconds` ([`DEFAULT_ROTATION_GRACE`]
    /// when `None`; 0 stops it at once), so a receiver can move to the new secret without
    /// refusing a delivery. Only one previous secret is kept: rotating again within a grace
    /// drops the older one. Returns the secret and when the replaced one stops signing.
    ///
    /// # Errors
    /// `ValidationFailed` naming `graceSeconds` outside 0 to [`MAX_ROTATION_GRACE`]; as
    /// [`Webhooks::get`].
    pub async fn rotate_secret(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        grace_seconds: Option<i64>,
    ) -> Result<(SecretString, Option<OffsetDateTime>)> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let grace = match grace_seconds {
            None => DEFAULT_ROTATION_GRACE,
            Some(seconds) if (0..=MAX_ROTATION_GRACE.whole_seconds()).contains(&seconds) => Duration::seconds(seconds),
            Some(_) => {
                let most = MAX_ROTATION_GRACE.whole_seconds();
                return Err(Error::validation("graceSeconds", format!("must be an integer from 0 to {most}")));
            }
        };
        let secret = self.new_secret();
        let now = self.clock.now();
        let rotation = SecretRotation {
            secret_sealed: self.crypto.seal(&secret_seal_context(id), secret.as_bytes()),
            previous_expires_at: grace.is_positive().then(|| now + grace),
            at: now,
        };
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookSecretRotated, id, now);
        if !self.repo.rotate_secret(workspace, id, &rotation, &audit).await? {
            return Err(Error::not_found("webhook"));
        }
        Ok((SecretString::from(secret), rotation.previous_expires_at))
    }

    /// The workspace's endpoints, oldest first.
    ///
    /// # Errors
    /// As [`Webhooks::create`], without the validation.
    pub async fn list(&self, principal: &Principal, workspace_header: Option<&str>) -> Result<Vec<Subscription>> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.list_subscriptions(workspace).await
    }

    /// # Errors
    /// `NotFound` for an unknown endpoint or another workspace's; as [`Webhooks::list`].
    pub async fn get(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
    ) -> Result<Subscription> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))
    }

    /// Changes an endpoint; `isActive: true` re-enables a disabled one.
    ///
    /// # Errors
    /// As [`Webhooks::create`] and [`Webhooks::get`].
    pub async fn update(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        patch: SubscriptionPatch,
    ) -> Result<Subscription> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let description = match patch.description {
            Some(text) => Some(description(text)?),
            None => None,
        };
        let event_types = patch.event_types.map(event_types).transpose()?;
        // An unknown endpoint is 404 before its new URL is resolved.
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))?;
        let url = match patch.url {
            Some(text) => Some(self.checked_url(&text).await?.as_str().to_owned()),
            None => None,
        };
        let changes = SubscriptionChanges { url, description, event_types, is_active: patch.is_active };
        let now = self.clock.now();
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookUpdated, id, now);
        self.repo
            .update_subscription(workspace, id, &changes, now, &audit)
            .await?
            .ok_or_else(|| Error::not_found("webhook"))
    }

    /// Deletes an endpoint with its deliveries.
    ///
    /// # Errors
    /// As [`Webhooks::get`].
    pub async fn delete(&self, principal: &Principal, workspace_header: Option<&str>, id: WebhookId) -> Result<()> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookDeleted, id, self.clock.now());
        if self.repo.delete_subscription(workspace, id, &audit).await? {
            Ok(())
        } else {
            Err(Error::not_found("webhook"))
        }
    }

    /// Queues a `webhook.test` event for this endpoint only, on the path real events take.
    ///
    /// # Errors
    /// As [`Webhooks::get`].
    pub async fn simulate(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
    ) -> Result<DeliveryView> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let mut payload = Map::new();
        payload.insert("webhookId".into(), json!(id));
        payload.insert("message".into(), json!("A test event sent by simulate; it reports no fact."));
        let event = NewEvent {
            id: EventId::new_random(),
            workspace_id: workspace,
            event_type: EventType::WebhookTest,
            aggregate: crate::webhooks::models::aggregate::WEBHOOK,
            aggregate_id: id.0,
            payload,
            occurred_at: self.clock.now(),
        };
        self.repo.queue_test_event(workspace, id, &event).await?.ok_or_else(|| Error::not_found("webhook"))
    }

    /// The endpoint, when it is active: a redelivery to an inactive one would wait unattempted.
    async fn active_endpoint(&self, workspace: WorkspaceId, id: WebhookId) -> Result<()> {
        let endpoint = self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))?;
        if !endpoint.is_active {
            return Err(Error::refused(
                ErrorCode::Conflict,
                "the endpoint is inactive and its waiting deliveries are not attempted; re-enable it with PATCH isActive true first",
            ));
        }
        Ok(())
    }

    /// Sends a delivery again, with the same event id and delivery id: a DEAD or DELIVERED one
    /// gets a fresh retry schedule, a waiting one is made due now.
    ///
    /// # Errors
    /// `NotFound` for an unknown endpoint or delivery (a purged one among them), or another
    /// workspace's; `Conflict` when the endpoint is inactive; as [`Webhooks::get`].
    pub async fn redeliver(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        delivery: DeliveryId,
    ) -> Result<DeliveryView> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.active_endpoint(workspace, id).await?;
        let now = self.clock.now();
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookRedelivered, id, now);
        self.repo.redeliver(id, delivery, now, &audit).await?.ok_or_else(|| Error::not_found("delivery"))
    }

    /// Sends again, as [`Webhooks::redeliver`] does, every FAILED or DEAD delivery (or those of
    /// the statuses named) of events that occurred in the range; returns how many.
    ///
    /// # Errors
    /// `ValidationFailed` naming the field for a bad range or status, or naming `to` when more
    /// than [`MAX_BULK_REDELIVERIES`] match; as [`Webhooks::redeliver`].
    pub async fn redeliver_range(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        input: RedeliveryInput,
    ) -> Result<u64> {
        let workspace = Self::workspace(principal, workspace_header)?;
        let range = redelivery_range(input)?;
        self.active_endpoint(workspace, id).await?;
        let now = self.clock.now();
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::WebhookRedelivered, id, now);
        self.repo.redeliver_range(id, &range, now, MAX_BULK_REDELIVERIES, &audit).await?.ok_or_else(|| {
            let problem =
                format!("the range holds more than {MAX_BULK_REDELIVERIES} deliveries to send; make it shorter");
            Error::validation("to", problem)
        })
    }

    /// Forgets events older than [`EVENT_RETENTION`] whose deliveries are all finished, oldest
    /// first, [`EVENT_PURGE_BATCH`] at a time until none is left or `go_on` says to stop (a
    /// backlog must not hold up a shutdown).
    ///
    /// # Errors
    /// Port errors.
    pub async fn purge_old_events(&self, go_on: impl Fn() -> bool) -> Result<u64> {
        let before = self.clock.now() - EVENT_RETENTION;
        let mut purged = 0;
        loop {
            let batch = self.repo.purge_webhook_events(before, EVENT_PURGE_BATCH).await?;
            purged += batch;
            if batch == 0 || !go_on() {
                return Ok(purged);
            }
        }
    }

    /// A page of an endpoint's deliveries, newest first.
    ///
    /// # Errors
    /// As [`Webhooks::get`]; `ValidationFailed` for a bad `limit` or `cursor`.
    pub async fn deliveries(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: WebhookId,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<DeliveryView>> {
        let workspace = Self::workspace(principal, workspace_header)?;
        self.repo.find_subscription(workspace, id).await?.ok_or_else(|| Error::not_found("webhook"))?;
        let cursors = Cursors::new(&self.crypto, format!("webhook-deliveries/{id}"));
        let request = cursors.request(limit, cursor)?;
        let rows = self.repo.list_deliveries(id, &request).await?;
        Ok(cursors.page(&request, rows, |d| PageKey { position: d.position }))
    }
}
