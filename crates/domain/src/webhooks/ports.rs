//! Where endpoints, events and deliveries live, and how a delivery is sent.
use crate::audit::models::AuditEntry;
use crate::error::Result;
use crate::ids::{DeliveryId, WebhookId, WorkspaceId};
use crate::shared::paging::PageRequest;
use crate::webhooks::models::{
    AttemptRecord, Claim, ClaimedDelivery, DeliveryView, NewEvent, NewSubscription, OutboundRequest, PostOutcome,
    RedeliveryRange, SecretRotation, Subscription, SubscriptionChanges, WebhookUrl,
};
use std::future::Future;
use time::OffsetDateTime;

/// Webhook endpoints, the event outbox and deliveries.
pub trait WebhookRepository: Send + Sync + 'static {
    /// Stores an endpoint unless the workspace already holds `max_per_workspace`, and `audit` with
    /// it in the same transaction.
    ///
    /// # Errors
    /// `Conflict` when the workspace is full, writing nothing; `Internal`/`Unavailable` otherwise.
    fn insert_subscription(
        &self,
        subscription: &NewSubscription,
        max_per_workspace: usize,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<()>> + Send;

    /// The workspace's endpoints, oldest first.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_subscriptions(&self, workspace: WorkspaceId) -> impl Future<Output = Result<Vec<Subscription>>> + Send;

    /// An endpoint of the workspace.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
    ) -> impl Future<Output = Result<Option<Subscription>>> + Send;

    /// Applies `changes` to an endpoint of the workspace; `None` when there is none with this id.
    /// Setting it active clears `disabled_at`, `disabled_reason` and the run of DEAD deliveries.
    /// `audit` is written in the same transaction, unless the answer is `None`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn update_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        changes: &SubscriptionChanges,
        at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<Option<Subscription>>> + Send;

    /// Gives an endpoint of the workspace a new sealed secret. The secret it replaces becomes the
    /// previous one until `rotation.previous_expires_at` (none: dropped at once), replacing any
    /// previous one still kept. `false` when there is no such endpoint. `audit` is written in the
    /// same transaction, unless the answer is `false`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn rotate_secret(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        rotation: &SecretRotation,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Deletes an endpoint with its deliveries and their attempts; `false` when there is none.
    /// `audit` is written in the same transaction, unless the answer is `false`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn delete_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// Writes `event` and one delivery of it to this endpoint only, due at once, whether the
    /// endpoint is active or not; `None` when the workspace has no such endpoint.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn queue_test_event(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        event: &NewEvent,
    ) -> impl Future<Output = Result<Option<DeliveryView>>> + Send;

    /// Up to `page.limit + 1` deliveries of the endpoint before `page.after`, newest first, each
    /// with its attempts.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_deliveries(
        &self,
        subscription: WebhookId,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<DeliveryView>>> + Send;

    /// Sends a delivery of the endpoint again, as of `at`, and returns it as it then is; `None`
    /// when the endpoint has no such delivery. A DEAD or DELIVERED one becomes PENDING, due at
    /// `at`, with a fresh attempt limit from its attempts so far, and the request is kept in its
    /// trail. A PENDING or FAILED one is made due at `at`, unless a worker holds it: a leased
    /// delivery is left to its lease, so an attempt is never sent twice at once. `audit` is
    /// written in the same transaction, unless the answer is `None`: a held delivery was asked for
    /// all the same.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn redeliver(
        &self,
        subscription: WebhookId,
        delivery: DeliveryId,
        at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<Option<DeliveryView>>> + Send;

    /// Sends again, as [`WebhookRepository::redeliver`] does and in one transaction, every
    /// delivery of the endpoint in `range`, and returns how many; `None`, changing nothing, when
    /// more than `max` match. `audit` is written in the same transaction when at least one is sent
    /// again: an unknown endpoint, like a range matching nothing, redelivers nothing.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn redeliver_range(
        &self,
        subscription: WebhookId,
        range: &RedeliveryRange,
        at: OffsetDateTime,
        max: u32,
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;

    /// Claims up to `claim.limit` deliveries that are PENDING or FAILED and due at `claim.now`,
    /// of active endpoints (a `webhook.test` whatever the endpoint's state), and not claimed by a
    /// live lease. Concurrent claims never return the same delivery: a claimed one is not due
    /// again until `claim.lease_until`. Each comes with its endpoint's previous secret when that
    /// has not expired at `claim.now`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn claim_deliveries(&self, claim: &Claim) -> impl Future<Output = Result<Vec<ClaimedDelivery>>> + Send;

    /// Records an attempt made under `attempt.claim_token`, in one transaction: the delivery's new
    /// state, the attempt in its history, and the endpoint's run of DEAD deliveries (reset by a
    /// delivered one; the fifth in a row disables the endpoint with `attempt.disable_reason`).
    /// Returns `false`, recording nothing, when the claim was lost (its lease ran out and another
    /// worker claimed the delivery).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn record_attempt(&self, attempt: &AttemptRecord) -> impl Future<Output = Result<bool>> + Send;

    /// Deletes up to `max` of the oldest events that occurred before `before` and have no delivery
    /// left to attempt, with their deliveries and attempts; returns how many events. A delivery
    /// redelivered meanwhile keeps its event: the redelivery and the purge never both succeed.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_webhook_events(&self, before: OffsetDateTime, max: u32) -> impl Future<Output = Result<u64>> + Send;
}

/// How webhooks leave the service: checking where a URL leads and posting to it.
pub trait WebhookTransport: Send + Sync + 'static {
    /// Resolves the URL's host and checks every address it resolves to (see
    /// [`crate::webhooks::models::address_refusal`]), unless private targets are allowed.
    ///
    /// # Errors
    /// `ValidationFailed` naming `url` when the host does not resolve or any address is refused.
    fn check_target(&self, url: &WebhookUrl) -> impl Future<Output = Result<()>> + Send;

    /// POSTs the request: resolves and checks the host again, connects only to the checked
    /// addresses, follows no redirect, uses no proxy, and gives up after its timeout. Every
    /// failure is an outcome to record, not an error.
    fn post(&self, request: &OutboundRequest) -> impl Future<Output = PostOutcome> + Send;
}
