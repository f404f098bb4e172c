//! Hourly quotas per key (and, later, per network), counted in fixed windows that every replica
//! shares through the [`QuotaCounter`] port.

use std::collections::HashMap;

use time::{Duration, OffsetDateTime};

/// A family of routes that shares one hourly quota.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuotaFamily {
    /// `GET /whoami`.
    Identity,
    /// `GET /orgs`.
    WorkspaceRead,
    /// `POST /orgs`.
    WorkspaceCreate,
    /// `GET /campaigns/{id}`.
    CampaignRead,
    /// `POST /campaigns` and `POST /campaigns/{id}/launch`.
    Provision,
    /// `POST /campaigns/{id}/respondents`.
    Audience,
    /// `POST /launch`.
    Launch,
    /// Studio launch-key routes, per Studio user.
    Studio,
    /// `GET /public/pulse/{code}/access`, per network.
    AccessCheck,
    /// `POST /public/pulse/{code}/start`, per network.
    StartAttempt,
    /// Answers and completion of a respondent session, per session.
    SessionWrite,
    /// `POST /apps/register`, per network.
    Install,
    /// `GET /devices` and the install lists, per key.
    DeviceRead,
    /// The webhook routes but redelivery, per key.
    Webhook,
    /// `POST /webhooks/{id}/deliveries/{deliveryId}/redeliver`, per key.
    WebhookRedelivery,
    /// `POST /webhooks/{id}/redeliver`, per key: each call may queue thousands of sends.
    WebhookBulkRedelivery,
    /// `POST /campaigns/{id}/exports` and `GET /exports/{id}`, per key.
    Export,
    /// `GET /audit-events`, per key.
    AuditRead,
}

impl QuotaFamily {
    pub const ALL: [QuotaFamily; 18] = [
        QuotaFamily::Identity,
        QuotaFamily::WorkspaceRead,
        QuotaFamily::WorkspaceCreate,
        QuotaFamily::CampaignRead,
        QuotaFamily::Provision,
        QuotaFamily::Audience,
        QuotaFamily::Launch,
        QuotaFamily::Studio,
        QuotaFamily::AccessCheck,
        QuotaFamily::StartAttempt,
        QuotaFamily::SessionWrite,
        QuotaFamily::Install,
        QuotaFamily::DeviceRead,
        QuotaFamily::Webhook,
        QuotaFamily::WebhookRedelivery,
        QuotaFamily::WebhookBulkRedelivery,
        QuotaFamily::Export,
        QuotaFamily::AuditRead,
    ];

    /// The name used in storage, configuration and documentation.
    pub const fn as_str(self) -> &'static str {
        match self {
            QuotaFamily::Identity => "identity",
            QuotaFamily::WorkspaceRead => "workspace_read",
            QuotaFamily::WorkspaceCreate => "workspace_create",
            QuotaFamily::CampaignRead => "campaign_read",
            QuotaFamily::Provision => "provision",
            QuotaFamily::Audience => "audience",
            QuotaFamily::Launch => "launch",
            QuotaFamily::Studio => "studio",
            QuotaFamily::AccessCheck => "access_check",
            QuotaFamily::StartAttempt => "start_attempt",
            QuotaFamily::SessionWrite => "session_write",
            QuotaFamily::Install => "install",
            QuotaFamily::DeviceRead => "device_read",
            QuotaFamily::Webhook => "webhook",
            QuotaFamily::WebhookRedelivery => "webhook_redelivery",
            QuotaFamily::WebhookBulkRedelivery => "webhook_bulk_redelivery",
            QuotaFamily::Export => "export",
            QuotaFamily::AuditRead => "audit_read",
        }
    }

    pub const fn default_hourly_limit(self) -> u32 {
        match self {
            QuotaFamily::Identity
            | QuotaFamily::WorkspaceRead
            | QuotaFamily::CampaignRead
            | QuotaFamily::Studio
            | QuotaFamily::DeviceRead
            | QuotaFamily::AuditRead => 3600,
            QuotaFamily::WorkspaceCreate | QuotaFamily::Export => 100,
            QuotaFamily::Webhook => 1000,
            QuotaFamily::WebhookRedelivery => 600,
            QuotaFamily::WebhookBulkRedelivery => 60,
            QuotaFamily::Provision | QuotaFamily::Audience => 500,
            QuotaFamily::Launch => 20_000,
            QuotaFamily::AccessCheck => 2000,
            QuotaFamily::Install => 200,
            QuotaFamily::StartAttempt => 1000,
            // A survey of 50 questions answered one at a time, with retries.
            QuotaFamily::SessionWrite => 300,
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == text)
    }
}

/// The limits in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuotaPolicy {
    /// `false` lifts every quota (load tests only).
    pub enabled: bool,
    hourly: HashMap<QuotaFamily, u32>,
    /// How many workspaces one business may hold.
    pub workspaces_per_business: u32,
}

impl Default for QuotaPolicy {
    fn default() -> Self {
        Self {
            enabled: true,
            hourly: QuotaFamily::ALL.into_iter().map(|f| (f, f.default_hourly_limit())).collect(),
            workspaces_per_business: 1000,
        }
    }
}

impl QuotaPolicy {
    pub fn with_hourly(mut self, family: QuotaFamily, limit: u32) -> Self {
        self.hourly.insert(family, limit);
        self
    }

    /// The workspace limit in force: none while quotas are lifted.
    pub fn workspace_limit(&self) -> u32 {
        if self.enabled { self.workspaces_per_business } else { u32::MAX }
    }

    pub fn hourly(&self, family: QuotaFamily) -> u32 {
        self.hourly.get(&family).copied().unwrap_or_else(|| family.default_hourly_limit())
    }
}

/// Quotas are counted in fixed windows of an hour.
pub const WINDOW: Duration = Duration::HOUR;

/// The start of the window `now` falls in.
pub fn window_start(now: OffsetDateTime) -> OffsetDateTime {
    let into_window = i64::from(now.minute()) * 60 + i64::from(now.second());
    now.replace_nanosecond(0).unwrap_or(now) - Duration::seconds(into_window)
}
