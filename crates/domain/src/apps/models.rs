//! App install identity: a mobile app with no secret registers against a campaign's public code,
//! keeps its device alive with heartbeats, and proves the device to the respondent page with a
//! short-lived access token. The model is Firebase Installations': a server-issued device id, a
//! rotating refresh token the app stores, an access token it holds in memory, and (v1) a signed
//! install id.
use crate::campaigns::models::{LanguageTag, is_email};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, WorkspaceId};
use secrecy::SecretString;
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};

/// How long an access token (`#dt=`) is accepted.
pub const ACCESS_TOKEN_LIFETIME: Duration = Duration::minutes(15);

/// A refresh token dies after this long unused; register and every v2 heartbeat extend it.
pub const REFRESH_TOKEN_IDLE_LIFETIME: Duration = Duration::days(90);

/// How long a v1 install id is accepted.
pub const INSTALL_ID_LIFETIME: Duration = Duration::days(30);

/// A v1 heartbeat renews an install id that expires within this.
pub const INSTALL_ID_RENEW_WITHIN: Duration = Duration::days(7);

/// How often apps should beat while open.
pub const HEARTBEAT_INTERVAL: Duration = Duration::minutes(5);

/// A heartbeat or register after this long without one starts a new app session.
pub const APP_SESSION_GAP: Duration = Duration::minutes(30);

/// How many app-session starts a device or install keeps.
pub const RECENT_SESSIONS: usize = 10;

/// At most one heartbeat per device (v2) or install (v1) every 10 s, with a burst of 3.
pub const HEARTBEAT_RATE: HeartbeatRate = HeartbeatRate { interval: Duration::seconds(10), burst: 3 };

/// Characters of base62 in a refresh token (about 256 bits).
pub const REFRESH_TOKEN_LEN: usize = 43;

const MAX_METADATA_KEYS: usize = 32;

const MAX_METADATA_BYTES: usize = 2048;

const MAX_METADATA_VALUE_CHARS: usize = 256;

/// Longer than any token we issue; longer ones are not even decoded.
pub const MAX_TOKEN_CHARS: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AppPlatform {
    Ios,
    Android,
    Web,
    Other,
}

impl AppPlatform {
    pub const ALL: [AppPlatform; 4] = [AppPlatform::Ios, AppPlatform::Android, AppPlatform::Web, AppPlatform::Other];

    pub const fn as_str(self) -> &'static str {
        match self {
            AppPlatform::Ios => "ios",
            AppPlatform::Android => "android",
            AppPlatform::Web => "web",
            AppPlatform::Other => "other",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

/// How well the app proved who uses the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Identity {
    Anonymous,
    SelfDeclared,
    Verified,
}

impl Identity {
    pub const ALL: [Identity; 3] = [Identity::Anonymous, Identity::SelfDeclared, Identity::Verified];

    pub const fn as_str(self) -> &'static str {
        match self {
            Identity::Anonymous => "anonymous",
            Identity::SelfDeclared => "self_declared",
            Identity::Verified => "verified",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|i| i.as_str() == text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceStatus {
    Active,
    Blocked,
}

impl DeviceStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            DeviceStatus::Active => "ACTIVE",
            DeviceStatus::Blocked => "BLOCKED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [DeviceStatus::Active, DeviceStatus::Blocked].into_iter().find(|s| s.as_str() == text)
    }
}

/// The heartbeat rate: a generic cell rate (GCRA) of one beat per `interval` with `burst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeartbeatRate {
    pub interval: Duration,
    pub burst: u32,
}

impl HeartbeatRate {
    /// How far ahead of `now` the theoretical arrival time may run and still admit a beat.
    pub fn tolerance(self) -> Duration {
        self.interval * (self.burst.saturating_sub(1))
    }

    /// Given the stored theoretical arrival time, the new one when a beat at `now` is admitted,
    /// or how long to wait when it is not. Adapters that compute this in their store must agree.
    ///
    /// # Errors
    /// The wait until a beat would be admitted.
    pub fn admit(
        self,
        tat: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> std::result::Result<OffsetDateTime, Duration> {
        let start = tat.map_or(now, |t| t.max(now));
        if start - now <= self.tolerance() { Ok(start + self.interval) } else { Err(start - now - self.tolerance()) }
    }

    /// [`HeartbeatRate::admit`] under an optional rate: without one every beat is admitted and
    /// the stored time stays as it was.
    ///
    /// # Errors
    /// The wait until a beat would be admitted.
    pub fn admit_under(
        rate: Option<Self>,
        tat: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> std::result::Result<Option<OffsetDateTime>, Duration> {
        match rate {
            Some(rate) => rate.admit(tat, now).map(Some),
            None => Ok(tat),
        }
    }
}

/// The user block of a register, as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UserInput {
    pub external_id: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub user_hash: Option<String>,
}

/// `POST /apps/register`, as sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegisterInput {
    pub campaign_code: String,
    pub app_id: String,
    pub platform: String,
    pub app_version: String,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
    pub language: Option<String>,
    pub device_id: Option<String>,
    pub refresh_token: Option<String>,
    pub vendor_device_id: Option<String>,
    pub user: Option<UserInput>,
    pub metadata: Option<Map<String, Value>>,
}

/// What the app says about itself, as validated.
#[derive(Clone, Debug, PartialEq)]
pub struct AppFacts {
    pub app_id: String,
    pub platform: AppPlatform,
    pub app_version: String,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    /// The app's UI locale, or the session language when no locale was sent.
    pub locale: Option<String>,
    pub metadata: Option<Map<String, Value>>,
}

/// A device as the domain reads it before a register or a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRecord {
    pub id: DeviceId,
    pub workspace_id: WorkspaceId,
    pub status: DeviceStatus,
    pub refresh_digest: Vec<u8>,
    pub refresh_expires_at: OffsetDateTime,
    /// The person the device was last registered with, and whether that person has an `externalId`.
    pub user: Option<(AppUserId, bool)>,
}

/// A person an app named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppUserRecord {
    pub id: AppUserId,
    pub verified: bool,
}

/// The person of a register as stored: a verified person stays verified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserRegistration {
    pub id: AppUserId,
    pub has_external_id: bool,
    /// Sealed under [`app_user_seal_context`]; `None` keeps what is stored.
    pub email_sealed: Option<Vec<u8>>,
    pub phone_sealed: Option<Vec<u8>>,
    pub verified: bool,
}

/// Everything a register stores, in one transaction.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceRegistration {
    pub workspace_id: WorkspaceId,
    pub campaign_id: CampaignId,
    pub device_id: DeviceId,
    /// For a known device, the refresh digest it must still hold (a concurrent register that
    /// rotated it first wins); `None` creates the device.
    pub replaces_refresh_digest: Option<Vec<u8>>,
    /// The id a new install of `(campaign, device)` takes; an existing install keeps its own.
    pub new_install_id: AppInstallId,
    pub vendor_digest: Option<Vec<u8>>,
    pub app: AppFacts,
    pub user: Option<UserRegistration>,
    pub identity: Identity,
    pub refresh_digest: Vec<u8>,
    pub refresh_expires_at: OffsetDateTime,
    pub now: OffsetDateTime,
}

/// What a heartbeat may update.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BeatFacts {
    pub app_version: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
}

/// A v2 heartbeat, proven by the refresh token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceBeat {
    pub device_id: DeviceId,
    pub refresh_digest: Vec<u8>,
    pub facts: BeatFacts,
    pub now: OffsetDateTime,
    /// The sliding expiry the refresh token gets.
    pub refresh_expires_at: OffsetDateTime,
    /// `None` when rate limits are lifted (`PULSE_RATE_LIMITS=off`).
    pub rate: Option<HeartbeatRate>,
}

/// A v1 heartbeat, proven by the signed install id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallBeat {
    pub install_id: AppInstallId,
    pub campaign_id: CampaignId,
    pub facts: BeatFacts,
    pub now: OffsetDateTime,
    /// `None` when rate limits are lifted.
    pub rate: Option<HeartbeatRate>,
}

/// What an admitted heartbeat touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeatRecord {
    pub device_id: DeviceId,
    pub workspace_id: WorkspaceId,
    /// The install beaten (v1) or the device's latest install (v2).
    pub install: Option<(AppInstallId, CampaignId)>,
    pub refresh_expires_at: OffsetDateTime,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BeatOutcome {
    /// No active device or install matched the proof.
    Refused,
    /// The proof matched but the rate is exceeded; nothing changed.
    RateLimited {
        retry_after: Duration,
    },
    Beat(BeatRecord),
}

/// How a respondent session names its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributionKey {
    Device(DeviceId),
    Install(AppInstallId),
}

/// The device and person a respondent session is attributed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribution {
    pub device_id: DeviceId,
    pub user_id: Option<AppUserId>,
    pub identity: Identity,
    /// The device's install for the session's campaign, when it registered against it.
    pub install_id: Option<AppInstallId>,
}

/// Signs of life, kept alike by a device and by each of its installs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activity {
    pub first_seen_at: OffsetDateTime,
    pub last_seen_at: OffsetDateTime,
    pub heartbeat_count: u64,
    /// Respondent sessions started with the device's proof.
    pub feedback_count: u64,
    /// App sessions: a register or heartbeat after [`APP_SESSION_GAP`] of silence starts one.
    pub session_count: u64,
    /// Starts of the latest [`RECENT_SESSIONS`] app sessions, newest first.
    pub recent_sessions: Vec<OffsetDateTime>,
}

impl Activity {
    /// A first register: one app session, starting now.
    pub fn new(now: OffsetDateTime) -> Self {
        Self {
            first_seen_at: now,
            last_seen_at: now,
            heartbeat_count: 0,
            feedback_count: 0,
            session_count: 1,
            recent_sessions: vec![now],
        }
    }

    /// A later register (`heartbeat` false) or an admitted heartbeat. Stores that count in SQL
    /// must agree with this.
    pub fn seen(&mut self, now: OffsetDateTime, heartbeat: bool) {
        if self.last_seen_at < now - APP_SESSION_GAP {
            self.session_count += 1;
            self.recent_sessions.insert(0, now);
            self.recent_sessions.truncate(RECENT_SESSIONS);
        }
        self.last_seen_at = self.last_seen_at.max(now);
        if heartbeat {
            self.heartbeat_count += 1;
        }
    }
}

/// An item of `GET CH/devices`: never an email or phone, only whether one is held.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceView {
    /// Where the device sits in the list: devices are listed in the order they were created.
    pub position: i64,
    pub device_id: DeviceId,
    pub user_id: Option<AppUserId>,
    pub identity: Identity,
    pub has_email: bool,
    pub has_phone: bool,
    pub app_id: String,
    pub app_version: String,
    pub platform: AppPlatform,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub status: DeviceStatus,
    pub activity: Activity,
}

/// An item of the install lists.
#[derive(Clone, Debug, PartialEq)]
pub struct InstallView {
    /// Where the install sits in the list, as [`DeviceView::position`].
    pub position: i64,
    pub id: AppInstallId,
    pub campaign_id: CampaignId,
    pub device_id: DeviceId,
    pub user_id: Option<AppUserId>,
    pub identity: Identity,
    pub has_email: bool,
    pub has_phone: bool,
    pub app_id: String,
    pub platform: AppPlatform,
    pub app_version: String,
    pub device_model: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
    pub status: DeviceStatus,
    pub activity: Activity,
}

/// A successful register, tokens included (shown to the app, never stored in clear).
#[derive(Debug)]
pub struct Registration {
    pub device_id: DeviceId,
    pub user_id: Option<AppUserId>,
    pub identity: Identity,
    pub tokens: DeviceTokens,
    pub refresh_token: SecretString,
    pub refresh_expires_at: OffsetDateTime,
}

/// The tokens a register or heartbeat hands out.
#[derive(Debug)]
pub struct DeviceTokens {
    /// Register and v2 only: a v1 install id travels in URLs, so it never mints a device proof
    /// that works across the workspace's campaigns.
    pub access_token: Option<SecretString>,
    pub access_expires_at: Option<OffsetDateTime>,
    pub install_id: Option<SecretString>,
    pub install_expires_at: Option<OffsetDateTime>,
}

/// `POST /apps/heartbeat`, as sent: v2 (`deviceId` + `refreshToken`) or v1 (`installId` + `appVersion`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeartbeatInput {
    pub device_id: Option<String>,
    pub refresh_token: Option<String>,
    pub install_id: Option<String>,
    pub app_version: Option<String>,
    pub os_version: Option<String>,
    pub locale: Option<String>,
}

/// An admitted heartbeat.
#[derive(Debug)]
pub struct Heartbeat {
    pub tokens: DeviceTokens,
    /// v2 only: the refresh token's new expiry.
    pub refresh_expires_at: Option<OffsetDateTime>,
    /// When the install id in force expires (the renewed one, or the one presented).
    pub install_expires_at: Option<OffsetDateTime>,
}

/// The associated data that binds a person's sealed contact detail to its row and field.
pub fn app_user_seal_context(user: AppUserId, field: &str) -> Vec<u8> {
    format!("pulse/app-user/{user}/{field}").into_bytes()
}

pub(crate) fn text_field(field: &str, value: Option<String>, max: usize) -> Result<Option<String>> {
    match value {
        None => Ok(None),
        Some(v) if v.trim().is_empty() || v.chars().count() > max || v.chars().any(char::is_control) => {
            Err(Error::validation(field, format!("must be 1 to {max} printable characters")))
        }
        Some(v) => Ok(Some(v.trim().to_owned())),
    }
}

pub(crate) fn required_text(field: &str, value: String, max: usize) -> Result<String> {
    text_field(field, Some(value), max).map(Option::unwrap_or_default)
}

pub(crate) fn locale_field(field: &str, value: Option<String>) -> Result<Option<String>> {
    // Android reports `en_US`; BCP-47 writes `en-US`.
    value.map(|v| LanguageTag::parse(field, &v.replace('_', "-")).map(|t| t.as_str().to_owned())).transpose()
}

pub(crate) fn is_e164(phone: &str) -> bool {
    let digits = phone.strip_prefix('+').unwrap_or("");
    (2..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0')
}

pub(crate) fn metadata_field(metadata: Option<Map<String, Value>>) -> Result<Option<Map<String, Value>>> {
    let Some(metadata) = metadata else { return Ok(None) };
    if metadata.len() > MAX_METADATA_KEYS {
        return Err(Error::validation("metadata", format!("may hold at most {MAX_METADATA_KEYS} keys")));
    }
    for (key, value) in &metadata {
        if key.is_empty() || key.chars().any(char::is_control) {
            return Err(Error::validation("metadata", "keys must be non-empty printable text"));
        }
        match value {
            Value::String(s) if s.chars().count() <= MAX_METADATA_VALUE_CHARS && !s.chars().any(char::is_control) => {}
            Value::String(_) => {
                return Err(Error::validation(
                    &format!("metadata.{key}"),
                    format!("must be at most {MAX_METADATA_VALUE_CHARS} printable characters"),
                ));
            }
            _ => {
                return Err(Error::validation(
                    &format!("metadata.{key}"),
                    "must be a string (flat string labels only)",
                ));
            }
        }
    }
    if Value::Object(metadata.clone()).to_string().len() > MAX_METADATA_BYTES {
        return Err(Error::validation("metadata", "must be at most 2 KB as JSON"));
    }
    Ok(Some(metadata))
}

pub(crate) fn user_hash_invalid(description: &str) -> Error {
    Error::refused(ErrorCode::UserHashInvalid, description)
}

/// A validated register's user block.
pub(crate) struct ParsedUser {
    pub(crate) external_id: Option<String>,
    pub(crate) email: Option<String>,
    pub(crate) phone: Option<String>,
    pub(crate) user_hash: Option<String>,
}

pub(crate) fn parse_user(user: UserInput) -> Result<ParsedUser> {
    // The partner's HMAC covers the exact bytes, so they are never trimmed.
    if user.external_id.as_ref().is_some_and(|e| e.trim() != e) {
        return Err(Error::validation("user.externalId", "must not start or end with whitespace"));
    }
    let external_id = text_field("user.externalId", user.external_id, 128)?;
    let email = user.email.map(|e| e.trim().to_owned());
    if email.as_deref().is_some_and(|e| !is_email(e)) {
        return Err(Error::validation("user.email", "must be an email address"));
    }
    let phone = user.phone.map(|p| p.trim().to_owned());
    if phone.as_deref().is_some_and(|p| !is_e164(p)) {
        return Err(Error::validation("user.phone", "must be an E.164 number such as +14155550123"));
    }
    if user.user_hash.is_some() && external_id.is_none() {
        return Err(Error::validation("user.userHash", "is the HMAC of user.externalId, which must be sent with it"));
    }
    if external_id.is_none() && email.is_none() && phone.is_none() {
        return Err(Error::validation(
            "user",
            "must carry externalId, email or phone; omit it for an anonymous device",
        ));
    }
    Ok(ParsedUser { external_id, email, phone, user_hash: user.user_hash })
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn the_heartbeat_rate_admits_a_burst_then_one_per_interval() {
        let rate = HEARTBEAT_RATE;
        let t0 = datetime!(2026-03-02 10:00 UTC);
        let mut tat = None;
        for _ in 0..3 {
            tat = Some(rate.admit(tat, t0).expect("within the burst"));
        }
        let wait = rate.admit(tat, t0).expect_err("the fourth at once is refused");
        assert_eq!(wait, Duration::seconds(10));
        assert!(rate.admit(tat, t0 + Duration::seconds(10)).is_ok());
        // A device quiet for a long time gets its whole burst back, no more.
        let later = t0 + Duration::hours(1);
        for _ in 0..3 {
            tat = Some(rate.admit(tat, later).expect("burst again"));
        }
        assert!(rate.admit(tat, later).is_err());
    }

    #[test]
    fn phones_must_be_e164() {
        for good in ["+14155550123", "+442071838750", "+12"] {
            assert!(is_e164(good), "{good}");
        }
        for bad in ["14155550123", "+0123", "+1 415 555", "+1234567890123456", "+"] {
            assert!(!is_e164(bad), "{bad}");
        }
    }

    #[test]
    fn metadata_is_flat_short_strings() {
        let ok: Map<String, Value> = serde_json::from_str(r#"{"plan":"pro","cohort":"b"}"#).expect("json");
        assert!(metadata_field(Some(ok)).is_ok());
        let nested: Map<String, Value> = serde_json::from_str(r#"{"plan":{"a":1}}"#).expect("json");
        assert_eq!(metadata_field(Some(nested)).expect_err("nested").code(), ErrorCode::ValidationFailed);
        let long: Map<String, Value> = [("k".to_owned(), Value::String("x".repeat(257)))].into_iter().collect();
        assert!(metadata_field(Some(long)).is_err());
        let edge: Map<String, Value> = [("k".to_owned(), Value::String("x".repeat(256)))].into_iter().collect();
        assert!(metadata_field(Some(edge)).is_ok());
        let many: Map<String, Value> = (0..33).map(|i| (format!("k{i}"), Value::String("v".into()))).collect();
        assert!(metadata_field(Some(many)).is_err());
        let big: Map<String, Value> = (0..10).map(|i| (format!("k{i}"), Value::String("v".repeat(250)))).collect();
        assert!(metadata_field(Some(big)).is_err());
    }
}
