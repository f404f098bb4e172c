//! The query and response bodies of the device routes (the page query and installs also serve
//! the Studio and the webhook trail), and their conversions from the domain.

use pulse_domain::apps::models::{DeviceView, InstallView};
use pulse_domain::shared::paging::Page;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

/// `limit` and `cursor` are read as text so a bad one gets the error envelope naming it.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    /// 1 to 200; default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DeviceQuery {
    /// 1 to 200; default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// Only devices of this app (bundle id or package name).
    pub app_id: Option<String>,
}

fn rfc3339_list<S: serde::Serializer>(times: &[OffsetDateTime], serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq as _;
    let mut seq = serializer.serialize_seq(Some(times.len()))?;
    for t in times {
        seq.serialize_element(
            &t.format(&time::format_description::well_known::Rfc3339).map_err(serde::ser::Error::custom)?,
        )?;
    }
    seq.end()
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceBody {
    pub device_id: uuid::Uuid,
    pub user_id: Option<uuid::Uuid>,
    /// `anonymous`, `self_declared` or `verified`.
    pub identity: &'static str,
    /// Whether an email is held (never the value).
    pub has_email: bool,
    /// Whether a phone is held (never the value).
    pub has_phone: bool,
    pub app_id: String,
    pub app_version: String,
    /// `ios`, `android`, `web` or `other`.
    pub platform: &'static str,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// `ACTIVE` or `BLOCKED`.
    pub status: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    pub first_seen_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub last_seen_at: OffsetDateTime,
    pub heartbeat_count: u64,
    /// Respondent sessions started from the device.
    pub feedback_count: u64,
    /// App sessions: a heartbeat or register after 30 minutes without one starts a new one.
    pub session_count: u64,
    /// Starts of the latest app sessions (at most 10), newest first.
    #[schema(value_type = Vec<String>, format = DateTime)]
    #[serde(serialize_with = "rfc3339_list")]
    pub recent_sessions: Vec<OffsetDateTime>,
}

impl From<DeviceView> for DeviceBody {
    fn from(d: DeviceView) -> Self {
        Self {
            device_id: d.device_id.0,
            user_id: d.user_id.map(|u| u.0),
            identity: d.identity.as_str(),
            has_email: d.has_email,
            has_phone: d.has_phone,
            app_id: d.app_id,
            app_version: d.app_version,
            platform: d.platform.as_str(),
            device_model: d.device_model,
            os_version: d.os_version,
            locale: d.locale,
            metadata: d.metadata,
            status: d.status.as_str(),
            first_seen_at: d.activity.first_seen_at,
            last_seen_at: d.activity.last_seen_at,
            heartbeat_count: d.activity.heartbeat_count,
            feedback_count: d.activity.feedback_count,
            session_count: d.activity.session_count,
            recent_sessions: d.activity.recent_sessions,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevicePage {
    pub items: Vec<DeviceBody>,
    /// Pass back as `cursor` until it is null.
    pub next_cursor: Option<String>,
}

impl From<Page<DeviceView>> for DevicePage {
    fn from(page: Page<DeviceView>) -> Self {
        Self { items: page.items.into_iter().map(DeviceBody::from).collect(), next_cursor: page.next_cursor }
    }
}

/// A device's registration against one campaign.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallBody {
    pub id: uuid::Uuid,
    pub campaign_id: uuid::Uuid,
    pub app_id: String,
    /// `ios`, `android`, `web` or `other`.
    pub platform: &'static str,
    pub app_version: String,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
    /// The device's status: `ACTIVE` or `BLOCKED`.
    pub status: &'static str,
    #[serde(with = "time::serde::rfc3339")]
    pub first_seen_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub last_seen_at: OffsetDateTime,
    /// Heartbeats counted on this install.
    pub heartbeat_count: u64,
    /// App sessions of this install.
    pub session_count: u64,
    pub device_id: Option<uuid::Uuid>,
    pub user_id: Option<uuid::Uuid>,
    /// `anonymous`, `self_declared` or `verified`.
    pub identity: &'static str,
    pub has_email: bool,
    pub has_phone: bool,
    /// Respondent sessions of this campaign started from the device.
    pub feedback_count: u64,
    /// Starts of the install's latest app sessions (at most 10), newest first.
    #[schema(value_type = Vec<String>, format = DateTime)]
    #[serde(serialize_with = "rfc3339_list")]
    pub recent_sessions: Vec<OffsetDateTime>,
    /// An alias of `sessionCount`: the contract lists both names.
    pub app_session_count: u64,
}

impl From<InstallView> for InstallBody {
    fn from(i: InstallView) -> Self {
        Self {
            id: i.id.0,
            campaign_id: i.campaign_id.0,
            app_id: i.app_id,
            platform: i.platform.as_str(),
            app_version: i.app_version,
            device_model: i.device_model,
            os_version: i.os_version,
            locale: i.locale,
            status: i.status.as_str(),
            first_seen_at: i.activity.first_seen_at,
            last_seen_at: i.activity.last_seen_at,
            heartbeat_count: i.activity.heartbeat_count,
            session_count: i.activity.session_count,
            device_id: Some(i.device_id.0),
            user_id: i.user_id.map(|u| u.0),
            identity: i.identity.as_str(),
            has_email: i.has_email,
            has_phone: i.has_phone,
            feedback_count: i.activity.feedback_count,
            recent_sessions: i.activity.recent_sessions,
            app_session_count: i.activity.session_count,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallPage {
    pub items: Vec<InstallBody>,
    /// Pass back as `cursor` until it is null.
    pub next_cursor: Option<String>,
}

impl From<Page<InstallView>> for InstallPage {
    fn from(page: Page<InstallView>) -> Self {
        Self { items: page.items.into_iter().map(InstallBody::from).collect(), next_cursor: page.next_cursor }
    }
}
