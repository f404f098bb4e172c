//! Endpoints, events and deliveries in memory.
use super::*;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::error::{Error, ErrorCode, Result};
use pulse_domain::ids::{DeliveryId, EventId, WebhookId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::webhooks::models::{
    AttemptRecord, AttemptView, Claim, ClaimedDelivery, DeliveryStatus, DeliveryView, EventType, NewEvent,
    NewSubscription, PreviousSecret, RedeliveryRange, RedeliveryView, SecretRotation, Subscription,
    SubscriptionChanges,
};
use pulse_domain::webhooks::ports::WebhookRepository;
use time::OffsetDateTime;

impl State {
    fn new_delivery(&mut self, subscription: WebhookId, event: &NewEvent) -> DeliveryView {
        self.last_position += 1;
        let view = DeliveryView {
            id: DeliveryId::new_random(),
            event_id: event.id,
            event_type: event.event_type,
            status: DeliveryStatus::Pending,
            attempts: 0,
            next_attempt_at: Some(event.occurred_at),
            last_status_code: None,
            last_error: None,
            occurred_at: event.occurred_at,
            delivered_at: None,
            history: vec![],
            redeliveries: vec![],
            position: self.last_position,
        };
        self.deliveries.push(DeliveryRow {
            view: view.clone(),
            subscription,
            claim: None,
            attempts_before_redelivery: 0,
        });
        view
    }

    /// Writes the event and a delivery to every active endpoint of its workspace that wants it.
    pub(super) fn emit(&mut self, event: NewEvent) {
        let targets: Vec<WebhookId> = self
            .webhooks
            .iter()
            .map(|w| &w.subscription)
            .filter(|s| s.workspace_id == event.workspace_id && s.is_active)
            .filter(|s| s.event_types.is_empty() || s.event_types.contains(&event.event_type))
            .map(|s| s.id)
            .collect();
        for target in targets {
            self.new_delivery(target, &event);
        }
        self.events.insert(event.id, event);
    }
}

impl DeliveryRow {
    /// Sends the delivery again as of `at` (see `WebhookRepository::redeliver`).
    fn redeliver(&mut self, at: OffsetDateTime) {
        let view = &mut self.view;
        match view.status {
            DeliveryStatus::Dead | DeliveryStatus::Delivered => {
                view.redeliveries.push(RedeliveryView { requested_at: at, attempts_before: view.attempts });
                self.attempts_before_redelivery = view.attempts;
                view.status = DeliveryStatus::Pending;
                view.next_attempt_at = Some(at);
                view.delivered_at = None;
            }
            // A held delivery keeps its lease: another worker must not claim it while it is sent.
            DeliveryStatus::Pending | DeliveryStatus::Failed if self.claim.is_some() => {}
            DeliveryStatus::Pending | DeliveryStatus::Failed => {
                view.next_attempt_at = view.next_attempt_at.map(|due| due.min(at));
            }
        }
    }
}

impl WebhookRepository for MemoryStore {
    async fn insert_subscription(
        &self,
        new: &NewSubscription,
        max_per_workspace: usize,
        audit: &AuditEntry,
    ) -> Result<()> {
        let mut state = self.state();
        let workspace = new.subscription.workspace_id;
        if state.webhooks.iter().filter(|w| w.subscription.workspace_id == workspace).count() >= max_per_workspace {
            return Err(Error::refused(
                ErrorCode::Conflict,
                format!("a workspace holds at most {max_per_workspace} webhook endpoints; delete one first"),
            ));
        }
        state.webhooks.push(WebhookRow {
            subscription: new.subscription.clone(),
            secret_sealed: new.secret_sealed.clone(),
            previous_secret: None,
            dead_in_a_row: 0,
        });
        state.audit(audit);
        Ok(())
    }

    async fn list_subscriptions(&self, workspace: WorkspaceId) -> Result<Vec<Subscription>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .filter(|w| w.subscription.workspace_id == workspace)
            .map(|w| w.subscription.clone())
            .collect())
    }

    async fn find_subscription(&self, workspace: WorkspaceId, id: WebhookId) -> Result<Option<Subscription>> {
        Ok(self
            .state()
            .webhooks
            .iter()
            .find(|w| w.subscription.id == id && w.subscription.workspace_id == workspace)
            .map(|w| w.subscription.clone()))
    }

    async fn update_subscription(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        changes: &SubscriptionChanges,
        _at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> Result<Option<Subscription>> {
        let mut state = self.state();
        let Some(row) =
            state.webhooks.iter_mut().find(|w| w.subscription.id == id && w.subscription.workspace_id == workspace)
        else {
            return Ok(None);
        };
        let subscription = &mut row.subscription;
        if let Some(url) = &changes.url {
            subscription.url.clone_from(url);
        }
        if let Some(description) = &changes.description {
            subscription.description.clone_from(description);
        }
        if let Some(types) = &changes.event_types {
            subscription.event_types.clone_from(types);
        }
        match changes.is_active {
            Some(true) => {
                subscription.is_active = true;
                subscription.disabled_at = None;
                subscription.disabled_reason = None;
                row.dead_in_a_row = 0;
            }
            Some(false) => subscription.is_active = false,
            None => {}
        }
        let updated = row.subscription.clone();
        state.audit(audit);
        Ok(Some(updated))
    }

    async fn rotate_secret(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        rotation: &SecretRotation,
        audit: &AuditEntry,
    ) -> Result<bool> {
        let mut state = self.state();
        let Some(row) =
            state.webhooks.iter_mut().find(|w| w.subscription.id == id && w.subscription.workspace_id == workspace)
        else {
            return Ok(false);
        };
        let retired = std::mem::replace(&mut row.secret_sealed, rotation.secret_sealed.clone());
        row.previous_secret =
            rotation.previous_expires_at.map(|expires_at| PreviousSecret { sealed: retired, expires_at });
        state.audit(audit);
        Ok(true)
    }

    async fn delete_subscription(&self, workspace: WorkspaceId, id: WebhookId, audit: &AuditEntry) -> Result<bool> {
        let mut state = self.state();
        let before = state.webhooks.len();
        state.webhooks.retain(|w| !(w.subscription.id == id && w.subscription.workspace_id == workspace));
        if state.webhooks.len() == before {
            return Ok(false);
        }
        state.deliveries.retain(|d| d.subscription != id);
        state.audit(audit);
        Ok(true)
    }

    async fn queue_test_event(
        &self,
        workspace: WorkspaceId,
        id: WebhookId,
        event: &NewEvent,
    ) -> Result<Option<DeliveryView>> {
        let mut state = self.state();
        if !state.webhooks.iter().any(|w| w.subscription.id == id && w.subscription.workspace_id == workspace) {
            return Ok(None);
        }
        state.events.insert(event.id, event.clone());
        Ok(Some(state.new_delivery(id, event)))
    }

    async fn list_deliveries(&self, subscription: WebhookId, page: &PageRequest) -> Result<Vec<DeliveryView>> {
        let state = self.state();
        let mut rows: Vec<DeliveryView> = state
            .deliveries
            .iter()
            .filter(|d| d.subscription == subscription)
            .filter(|d| page.after.is_none_or(|after| d.view.position < after.position))
            .map(|d| d.view.clone())
            .collect();
        rows.sort_by_key(|d| std::cmp::Reverse(d.position));
        rows.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1);
        Ok(rows)
    }

    async fn redeliver(
        &self,
        subscription: WebhookId,
        delivery: DeliveryId,
        at: OffsetDateTime,
        audit: &AuditEntry,
    ) -> Result<Option<DeliveryView>> {
        let mut state = self.state();
        let Some(row) = state.deliveries.iter_mut().find(|d| d.view.id == delivery && d.subscription == subscription)
        else {
            return Ok(None);
        };
        row.redeliver(at);
        let view = row.view.clone();
        state.audit(audit);
        Ok(Some(view))
    }

    async fn redeliver_range(
        &self,
        subscription: WebhookId,
        range: &RedeliveryRange,
        at: OffsetDateTime,
        max: u32,
        audit: &AuditEntry,
    ) -> Result<Option<u64>> {
        let mut state = self.state();
        let State { events, deliveries, .. } = &mut *state;
        let mut matching: Vec<&mut DeliveryRow> = deliveries
            .iter_mut()
            .filter(|d| d.subscription == subscription && range.statuses.contains(&d.view.status))
            .filter(|d| {
                events.get(&d.view.event_id).is_some_and(|e| range.from <= e.occurred_at && e.occurred_at < range.to)
            })
            .collect();
        if matching.len() > usize::try_from(max).unwrap_or(usize::MAX) {
            return Ok(None);
        }
        for row in &mut matching {
            row.redeliver(at);
        }
        let requeued = matching.len() as u64;
        // None matched, none sent again: no redelivery to record.
        if requeued > 0 {
            state.audit(audit);
        }
        Ok(Some(requeued))
    }

    async fn claim_deliveries(&self, claim: &Claim) -> Result<Vec<ClaimedDelivery>> {
        let mut state = self.state();
        let State { webhooks, events, deliveries, .. } = &mut *state;
        let mut claimed = Vec::new();
        for row in deliveries.iter_mut() {
            if claimed.len() >= usize::try_from(claim.limit).unwrap_or(usize::MAX) {
                break;
            }
            let due = matches!(row.view.status, DeliveryStatus::Pending | DeliveryStatus::Failed)
                && row.view.next_attempt_at.is_some_and(|at| at <= claim.now);
            let Some(webhook) = webhooks.iter().find(|w| w.subscription.id == row.subscription) else { continue };
            let Some(event) = events.get(&row.view.event_id) else { continue };
            if !due || !(webhook.subscription.is_active || event.event_type == EventType::WebhookTest) {
                continue;
            }
            // The lease: not due again until it ends, when the claimer is presumed dead.
            row.view.next_attempt_at = Some(claim.lease_until);
            row.claim = Some(claim.token);
            claimed.push(ClaimedDelivery {
                id: row.view.id,
                claim_token: claim.token,
                attempts: row.view.attempts,
                attempts_before_redelivery: row.attempts_before_redelivery,
                subscription_id: row.subscription,
                url: webhook.subscription.url.clone(),
                secret_sealed: webhook.secret_sealed.clone(),
                previous_secret: webhook.previous_secret.clone().filter(|p| p.expires_at > claim.now),
                event: event.clone(),
            });
        }
        Ok(claimed)
    }

    async fn record_attempt(&self, attempt: &AttemptRecord) -> Result<bool> {
        let mut state = self.state();
        let Some(row) =
            state.deliveries.iter_mut().find(|d| d.view.id == attempt.delivery && d.claim == Some(attempt.claim_token))
        else {
            return Ok(false);
        };
        row.claim = None;
        let view = &mut row.view;
        view.status = attempt.status;
        view.attempts = attempt.attempt;
        view.next_attempt_at = attempt.next_attempt_at;
        view.last_status_code = attempt.status_code;
        view.last_error.clone_from(&attempt.error);
        if attempt.status == DeliveryStatus::Delivered {
            view.delivered_at = Some(attempt.attempted_at);
        }
        view.history.push(AttemptView {
            attempt: attempt.attempt,
            attempted_at: attempt.attempted_at,
            status_code: attempt.status_code,
            error: attempt.error.clone(),
            duration_ms: attempt.duration_ms,
        });
        let Some(webhook) = state.webhooks.iter_mut().find(|w| w.subscription.id == attempt.subscription) else {
            return Ok(true);
        };
        match attempt.status {
            DeliveryStatus::Delivered => webhook.dead_in_a_row = 0,
            DeliveryStatus::Dead => {
                webhook.dead_in_a_row += 1;
                if webhook.dead_in_a_row >= pulse_domain::webhooks::models::DISABLE_AFTER_DEAD
                    && webhook.subscription.is_active
                {
                    webhook.subscription.is_active = false;
                    webhook.subscription.disabled_at = Some(attempt.attempted_at);
                    webhook.subscription.disabled_reason = Some(attempt.disable_reason.clone());
                }
            }
            DeliveryStatus::Pending | DeliveryStatus::Failed => {}
        }
        Ok(true)
    }

    async fn purge_webhook_events(&self, before: OffsetDateTime, max: u32) -> Result<u64> {
        let mut state = self.state();
        let open: std::collections::HashSet<EventId> = state
            .deliveries
            .iter()
            .filter(|d| matches!(d.view.status, DeliveryStatus::Pending | DeliveryStatus::Failed))
            .map(|d| d.view.event_id)
            .collect();
        let mut purgeable: Vec<(OffsetDateTime, EventId)> = state
            .events
            .values()
            .filter(|e| e.occurred_at < before && !open.contains(&e.id))
            .map(|e| (e.occurred_at, e.id))
            .collect();
        purgeable.sort_unstable();
        let purged: std::collections::HashSet<EventId> =
            purgeable.into_iter().take(usize::try_from(max).unwrap_or(usize::MAX)).map(|(_, id)| id).collect();
        for id in &purged {
            state.events.remove(id);
        }
        state.deliveries.retain(|d| !purged.contains(&d.view.event_id));
        Ok(purged.len() as u64)
    }
}
