//! App install identity: a mobile app with no secret registers against a campaign's public code,
//! keeps its device alive with heartbeats, and proves the device to the respondent page with a
//! short-lived access token. The model is Firebase Installations': a server-issued device id, a
//! rotating refresh token the app stores, an access token it holds in memory, and (v1) a signed
//! install id.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use secrecy::SecretString;
use serde_json::{Map, Value};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::audience::is_email;
use crate::campaign::{Campaign, CampaignStatus};
use crate::clock::Clock;
use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, WorkspaceId};
use crate::launch::launch_key_seal_context;
use crate::paging::{Cursors, Page, PageKey};
use crate::ports::{AppRepository, CampaignRepository, Crypto, DigestPurpose, LaunchRepository};
use crate::studio::{PERMISSION_VIEW, StudioClaims};
use crate::survey::LanguageTag;
use crate::tenancy::{Principal, Scope};

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

const ACCESS_TOKEN_PREFIX: &str = "dt1.";
const INSTALL_ID_PREFIX: &str = "in1.";
const ACCESS_TOKEN_CONTEXT: &[u8] = b"pulse/device-access-token/v1";
const INSTALL_ID_CONTEXT: &[u8] = b"pulse/install-id/v1";
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

/// What a sealed token carries: two ids and an expiry.
struct TokenBody {
    first: Uuid,
    second: Uuid,
    expires_at: OffsetDateTime,
}

fn seal_token<C: Crypto>(crypto: &C, prefix: &str, context: &[u8], body: &TokenBody) -> SecretString {
    let mut plain = Vec::with_capacity(40);
    plain.extend_from_slice(body.first.as_bytes());
    plain.extend_from_slice(body.second.as_bytes());
    plain.extend_from_slice(&body.expires_at.unix_timestamp().to_be_bytes());
    SecretString::from(format!("{prefix}{}", URL_SAFE_NO_PAD.encode(crypto.seal(context, &plain))))
}

/// The body of a token this service sealed, if it is one and unaltered (expiry unchecked).
fn open_token<C: Crypto>(crypto: &C, prefix: &str, context: &[u8], token: &str) -> Option<TokenBody> {
    if token.len() > MAX_TOKEN_CHARS {
        return None;
    }
    let sealed = URL_SAFE_NO_PAD.decode(token.strip_prefix(prefix)?).ok()?;
    let plain = crypto.open(context, &sealed).ok()?;
    if plain.len() != 40 {
        return None;
    }
    Some(TokenBody {
        first: Uuid::from_slice(&plain[..16]).ok()?,
        second: Uuid::from_slice(&plain[16..32]).ok()?,
        expires_at: OffsetDateTime::from_unix_timestamp(i64::from_be_bytes(plain[32..].try_into().ok()?)).ok()?,
    })
}

/// Reads a session's device proof: a valid access token or install id of the campaign names a
/// device; anything else names none (the feedback stays anonymous).
pub(crate) fn attribution_key<C: Crypto>(
    crypto: &C,
    now: OffsetDateTime,
    campaign: &Campaign,
    device_token: Option<&str>,
    install_id: Option<&str>,
) -> Option<AttributionKey> {
    let by_token = device_token
        .and_then(|t| open_token(crypto, ACCESS_TOKEN_PREFIX, ACCESS_TOKEN_CONTEXT, t))
        .filter(|b| b.expires_at > now && WorkspaceId(b.second) == campaign.workspace_id)
        .map(|b| AttributionKey::Device(DeviceId(b.first)));
    by_token.or_else(|| {
        install_id
            .and_then(|t| open_token(crypto, INSTALL_ID_PREFIX, INSTALL_ID_CONTEXT, t))
            .filter(|b| b.expires_at > now && CampaignId(b.second) == campaign.id)
            .map(|b| AttributionKey::Install(AppInstallId(b.first)))
    })
}

fn text_field(field: &str, value: Option<String>, max: usize) -> Result<Option<String>> {
    match value {
        None => Ok(None),
        Some(v) if v.trim().is_empty() || v.chars().count() > max || v.chars().any(char::is_control) => {
            Err(Error::validation(field, format!("must be 1 to {max} printable characters")))
        }
        Some(v) => Ok(Some(v.trim().to_owned())),
    }
}

fn required_text(field: &str, value: String, max: usize) -> Result<String> {
    text_field(field, Some(value), max).map(Option::unwrap_or_default)
}

fn locale_field(field: &str, value: Option<String>) -> Result<Option<String>> {
    // Android reports `en_US`; BCP-47 writes `en-US`.
    value.map(|v| LanguageTag::parse(field, &v.replace('_', "-")).map(|t| t.as_str().to_owned())).transpose()
}

fn is_e164(phone: &str) -> bool {
    let digits = phone.strip_prefix('+').unwrap_or("");
    (2..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) && !digits.starts_with('0')
}

fn metadata_field(metadata: Option<Map<String, Value>>) -> Result<Option<Map<String, Value>>> {
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

fn user_hash_invalid(description: &str) -> Error {
    Error::refused(ErrorCode::UserHashInvalid, description)
}

/// A validated register's user block.
struct ParsedUser {
    external_id: Option<String>,
    email: Option<String>,
    phone: Option<String>,
    user_hash: Option<String>,
}

fn parse_user(user: UserInput) -> Result<ParsedUser> {
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

pub struct Apps<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    heartbeat_rate: Option<HeartbeatRate>,
}

impl<R, C, K> Apps<R, C, K>
where
    R: AppRepository + CampaignRepository + LaunchRepository,
    C: Crypto,
    K: Clock,
{
    /// `heartbeat_rate` is [`HEARTBEAT_RATE`] in production; `None` lifts it (load tests only).
    pub fn new(repo: R, crypto: C, clock: K, heartbeat_rate: Option<HeartbeatRate>) -> Self {
        Self { repo, crypto, clock, heartbeat_rate }
    }

    /// Registers (or re-registers) a device against a campaign; a new refresh token replaces the
    /// old one at once.
    ///
    /// # Errors
    /// `ValidationFailed` naming the field; `NotFound` for an unknown code; `CampaignNotCollecting`;
    /// `UserHashInvalid`; `InstallBlocked`; `Conflict` when a concurrent register of the same
    /// device won; port errors.
    pub async fn register(&self, input: RegisterInput) -> Result<Registration> {
        let app = AppFacts {
            app_id: required_text("appId", input.app_id, 128)?,
            platform: AppPlatform::parse(&input.platform)
                .ok_or_else(|| Error::validation("platform", "must be one of ios, android, web, other"))?,
            app_version: required_text("appVersion", input.app_version, 32)?,
            device_model: text_field("deviceModel", input.device_model, 64)?,
            os_version: text_field("osVersion", input.os_version, 32)?,
            locale: match locale_field("locale", input.locale)? {
                Some(locale) => Some(locale),
                None => locale_field("language", input.language)?,
            },
            metadata: metadata_field(input.metadata)?,
        };
        let claimed_device = input
            .device_id
            .map(|d| d.parse::<DeviceId>().map_err(|_| Error::validation("deviceId", "must be a uuid")))
            .transpose()?;
        if input.refresh_token.as_ref().is_some_and(|t| t.len() > MAX_TOKEN_CHARS) {
            return Err(Error::validation("refreshToken", format!("must be at most {MAX_TOKEN_CHARS} characters")));
        }
        let vendor = text_field("vendorDeviceId", input.vendor_device_id, 128)?;
        let user = input.user.map(parse_user).transpose()?;

        if input.campaign_code.is_empty() || input.campaign_code.len() > 64 {
            return Err(Error::not_found("campaign"));
        }
        let (campaign, _) =
            self.repo.find_campaign_by_code(&input.campaign_code).await?.ok_or_else(|| Error::not_found("campaign"))?;
        if campaign.status != CampaignStatus::Active {
            return Err(Error::refused(
                ErrorCode::CampaignNotCollecting,
                "the campaign is not collecting feedback, so apps cannot register against it",
            ));
        }
        let now = self.clock.now();
        let vendor_digest = vendor.map(|v| self.vendor_digest(&app.app_id, &v));
        let device = self
            .existing_device(
                campaign.workspace_id,
                claimed_device,
                input.refresh_token.as_deref(),
                vendor_digest.as_deref(),
                &app.app_id,
                now,
            )
            .await?;
        if device.as_ref().is_some_and(|d| d.status == DeviceStatus::Blocked) {
            return Err(Error::refused(ErrorCode::InstallBlocked, "this device is blocked by the workspace"));
        }
        let (identity, user) = match user {
            None => (Identity::Anonymous, None),
            Some(user) => {
                let registration = self.user_registration(&campaign, device.as_ref(), user).await?;
                (if registration.verified { Identity::Verified } else { Identity::SelfDeclared }, Some(registration))
            }
        };
        let refresh_token = self.crypto.random_base62(REFRESH_TOKEN_LEN);
        let refresh_expires_at = now + REFRESH_TOKEN_IDLE_LIFETIME;
        let device_id = device.as_ref().map_or_else(DeviceId::new_random, |d| d.id);
        let user_id = user.as_ref().map(|u| u.id);
        let registration = DeviceRegistration {
            workspace_id: campaign.workspace_id,
            campaign_id: campaign.id,
            device_id,
            replaces_refresh_digest: device.map(|d| d.refresh_digest),
            new_install_id: AppInstallId::new_random(),
            vendor_digest,
            app,
            user,
            identity,
            refresh_digest: self.crypto.keyed_digest(DigestPurpose::RefreshToken, refresh_token.as_bytes()),
            refresh_expires_at,
            now,
        };
        let install = self.repo.save_registration(&registration).await?;
        Ok(Registration {
            device_id,
            user_id,
            identity,
            tokens: self.tokens(device_id, campaign.workspace_id, Some((install, campaign.id)), true, now),
            refresh_token: SecretString::from(refresh_token),
            refresh_expires_at,
        })
    }

    fn vendor_digest(&self, app_id: &str, vendor: &str) -> Vec<u8> {
        let mut input = app_id.as_bytes().to_vec();
        input.push(0);
        input.extend_from_slice(vendor.as_bytes());
        self.crypto.keyed_digest(DigestPurpose::VendorDevice, &input)
    }

    /// The device this register is about: the claimed one when its refresh token is right (an id
    /// alone is ignored), else the one with this vendor id, else none (a new device).
    async fn existing_device(
        &self,
        workspace: WorkspaceId,
        claimed: Option<DeviceId>,
        refresh_token: Option<&str>,
        vendor_digest: Option<&[u8]>,
        app_id: &str,
        now: OffsetDateTime,
    ) -> Result<Option<DeviceRecord>> {
        if let (Some(id), Some(token)) = (claimed, refresh_token) {
            let owned = self.repo.find_device(workspace, id).await?.filter(|d| {
                d.refresh_expires_at > now
                    && self.crypto.verify_keyed_digest(DigestPurpose::RefreshToken, token.as_bytes(), &d.refresh_digest)
            });
            if owned.is_some() {
                return Ok(owned);
            }
        }
        match vendor_digest {
            Some(digest) => self.repo.find_device_by_vendor(workspace, app_id, digest).await,
            None => Ok(None),
        }
    }

    async fn user_registration(
        &self,
        campaign: &Campaign,
        device: Option<&DeviceRecord>,
        user: ParsedUser,
    ) -> Result<UserRegistration> {
        let id = match &user.external_id {
            Some(external_id) => {
                let mut input = campaign.workspace_id.0.as_bytes().to_vec();
                input.extend_from_slice(external_id.as_bytes());
                let digest = self.crypto.keyed_digest(DigestPurpose::AppUser, &input);
                let mut bytes = [0_u8; 16];
                bytes.copy_from_slice(&digest[..16]);
                AppUserId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
            }
            // Without an externalId the person is the device's own, unless the device was last
            // registered with a named person.
            None => device
                .and_then(|d| d.user)
                .filter(|(_, has_external_id)| !has_external_id)
                .map_or_else(AppUserId::new_random, |(id, _)| id),
        };
        let verified = match (&user.external_id, &user.user_hash) {
            (Some(external_id), Some(hash)) => {
                self.verify_user_hash(campaign, external_id, hash).await?;
                true
            }
            (Some(_), None) => {
                if self.repo.find_app_user(campaign.workspace_id, id).await?.is_some_and(|u| u.verified) {
                    return Err(user_hash_invalid(
                        "this person was verified before; send user.userHash with every register",
                    ));
                }
                false
            }
            _ => false,
        };
        let seal = |field: &str, value: Option<String>| {
            value.map(|v| self.crypto.seal(&app_user_seal_context(id, field), v.as_bytes()))
        };
        Ok(UserRegistration {
            id,
            has_external_id: user.external_id.is_some(),
            email_sealed: seal("email", user.email),
            phone_sealed: seal("phone", user.phone),
            verified,
        })
    }

    async fn verify_user_hash(&self, campaign: &Campaign, external_id: &str, hash: &str) -> Result<()> {
        let invalid = || user_hash_invalid("user.userHash did not verify against an active launch key of the campaign");
        let expected = crate::hex::decode(hash).filter(|h| h.len() == 32).ok_or_else(invalid)?;
        for key in self.repo.active_launch_keys(campaign.id).await? {
            let secret = self.crypto.open(&launch_key_seal_context(key.id), &key.secret_sealed)?;
            if self.crypto.verify_hmac_sha256(&secret, external_id.as_bytes(), &expected) {
                return Ok(());
            }
        }
        Err(invalid())
    }

    fn tokens(
        &self,
        device: DeviceId,
        workspace: WorkspaceId,
        install: Option<(AppInstallId, CampaignId)>,
        with_access: bool,
        now: OffsetDateTime,
    ) -> DeviceTokens {
        // Tokens carry whole seconds; the expiries shown say the same.
        let now = now.replace_nanosecond(0).unwrap_or(now);
        let access_expires_at = with_access.then_some(now + ACCESS_TOKEN_LIFETIME);
        let install_expires_at = install.map(|_| now + INSTALL_ID_LIFETIME);
        DeviceTokens {
            access_token: access_expires_at.map(|expires_at| {
                let body = TokenBody { first: device.0, second: workspace.0, expires_at };
                seal_token(&self.crypto, ACCESS_TOKEN_PREFIX, ACCESS_TOKEN_CONTEXT, &body)
            }),
            access_expires_at,
            install_id: install.zip(install_expires_at).map(|((id, campaign), expires_at)| {
                let body = TokenBody { first: id.0, second: campaign.0, expires_at };
                seal_token(&self.crypto, INSTALL_ID_PREFIX, INSTALL_ID_CONTEXT, &body)
            }),
            install_expires_at,
        }
    }

    /// A heartbeat, v2 or v1 by the fields sent.
    ///
    /// # Errors
    /// `ValidationFailed` for a request that is neither (or both); `DeviceAuthInvalid` (v2) or
    /// `InstallInvalid` (v1) when the proof fails; `RateLimited` when the device or install beats
    /// too often; port errors.
    pub async fn heartbeat(&self, input: HeartbeatInput) -> Result<Heartbeat> {
        let v2 = input.device_id.is_some() || input.refresh_token.is_some();
        if v2 && input.install_id.is_some() {
            return Err(Error::validation(
                "installId",
                "send either deviceId and refreshToken (v2) or installId and appVersion (v1), not both",
            ));
        }
        let facts = BeatFacts {
            app_version: text_field("appVersion", input.app_version, 32)?,
            os_version: text_field("osVersion", input.os_version, 32)?,
            locale: locale_field("locale", input.locale)?,
        };
        let now = self.clock.now();
        if v2 {
            let device_text =
                input.device_id.ok_or_else(|| Error::validation("deviceId", "is required with refreshToken"))?;
            let token =
                input.refresh_token.ok_or_else(|| Error::validation("refreshToken", "is required with deviceId"))?;
            let refused = || {
                Error::refused(
                    ErrorCode::DeviceAuthInvalid,
                    "unknown or blocked device, or a wrong, expired or replaced refresh token; register again",
                )
            };
            let device_id = device_text.parse::<DeviceId>().map_err(|_| refused())?;
            if token.len() > MAX_TOKEN_CHARS {
                return Err(refused());
            }
            let beat = DeviceBeat {
                device_id,
                refresh_digest: self.crypto.keyed_digest(DigestPurpose::RefreshToken, token.as_bytes()),
                facts,
                now,
                refresh_expires_at: now + REFRESH_TOKEN_IDLE_LIFETIME,
                rate: self.heartbeat_rate,
            };
            let record = admitted(self.repo.beat_device(&beat).await?, refused)?;
            let tokens = self.tokens(record.device_id, record.workspace_id, record.install, true, now);
            let install_expires_at = tokens.install_expires_at;
            return Ok(Heartbeat { tokens, refresh_expires_at: Some(record.refresh_expires_at), install_expires_at });
        }
        let install_text = input.install_id.ok_or_else(|| {
            Error::validation("installId", "send deviceId and refreshToken (v2) or installId and appVersion (v1)")
        })?;
        if facts.app_version.is_none() {
            return Err(Error::validation("appVersion", "is required with installId"));
        }
        let refused = || {
            Error::refused(
                ErrorCode::InstallInvalid,
                "the install id is not valid (forged, expired, unknown or blocked); register again",
            )
        };
        let body = open_token(&self.crypto, INSTALL_ID_PREFIX, INSTALL_ID_CONTEXT, &install_text)
            .filter(|b| b.expires_at > now)
            .ok_or_else(refused)?;
        let beat = InstallBeat {
            install_id: AppInstallId(body.first),
            campaign_id: CampaignId(body.second),
            facts,
            now,
            rate: self.heartbeat_rate,
        };
        let record = admitted(self.repo.beat_install(&beat).await?, refused)?;
        let renew = body.expires_at - now <= INSTALL_ID_RENEW_WITHIN;
        let mut tokens = self.tokens(
            record.device_id,
            record.workspace_id,
            renew.then_some((beat.install_id, beat.campaign_id)),
            false,
            now,
        );
        let install_expires_at = tokens.install_expires_at.or(Some(body.expires_at));
        tokens.install_expires_at = install_expires_at;
        Ok(Heartbeat { tokens, refresh_expires_at: None, install_expires_at })
    }

    /// A page of the workspace's devices in the order they were created, optionally of one app.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:results`; workspace resolution errors;
    /// `ValidationFailed` for a bad `limit` or `cursor`; port errors.
    pub async fn devices(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        app_id: Option<&str>,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<DeviceView>> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let app_id = text_field("appId", app_id.map(str::to_owned), 128)?;
        let cursors = Cursors::new(&self.crypto, format!("devices/{workspace}/{}", app_id.as_deref().unwrap_or("")));
        let request = cursors.request(limit, cursor)?;
        let rows = self.repo.list_devices(workspace, app_id.as_deref(), &request).await?;
        Ok(cursors.page(&request, rows, |d| PageKey { position: d.position }))
    }

    /// A page of a campaign's installs in the order they were created.
    ///
    /// # Errors
    /// As [`Apps::devices`], and `NotFound` for a campaign outside the workspace.
    pub async fn installs(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        campaign: CampaignId,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<InstallView>> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        self.repo.campaign_overview(workspace, campaign).await?.ok_or_else(|| Error::not_found("campaign"))?;
        self.install_page(campaign, limit, cursor).await
    }

    /// The Studio's view of a campaign's installs.
    ///
    /// # Errors
    /// `InsufficientPermission` without `campaign:view`; `NotFound` outside the session's business;
    /// `ValidationFailed` for a bad `limit` or `cursor`; port errors.
    pub async fn studio_installs(
        &self,
        session: &StudioClaims,
        campaign: CampaignId,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<InstallView>> {
        session.require_permission(PERMISSION_VIEW)?;
        self.repo
            .find_campaign_in_business(session.business_id, campaign)
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        self.install_page(campaign, limit, cursor).await
    }

    async fn install_page(
        &self,
        campaign: CampaignId,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<InstallView>> {
        let cursors = Cursors::new(&self.crypto, format!("installs/{campaign}"));
        let request = cursors.request(limit, cursor)?;
        let rows = self.repo.list_installs(campaign, &request).await?;
        Ok(cursors.page(&request, rows, |i| PageKey { position: i.position }))
    }

    /// Blocks or unblocks a device (operator command). A blocked device is refused at register,
    /// its heartbeats fail and its feedback is no longer attributed.
    ///
    /// # Errors
    /// `NotFound` for an unknown device; port errors.
    pub async fn set_device_status(&self, device: DeviceId, status: DeviceStatus) -> Result<DeviceStatus> {
        if self.repo.set_device_status(device, status).await? { Ok(status) } else { Err(Error::not_found("device")) }
    }
}

fn admitted(outcome: BeatOutcome, refused: impl Fn() -> Error) -> Result<BeatRecord> {
    match outcome {
        BeatOutcome::Beat(record) => Ok(record),
        BeatOutcome::Refused => Err(refused()),
        BeatOutcome::RateLimited { retry_after } => Err(Error::Refused(Refusal {
            code: ErrorCode::RateLimited,
            description: format!(
                "this device beats too often: at most one heartbeat every {} s, with a burst of {}",
                HEARTBEAT_RATE.interval.whole_seconds(),
                HEARTBEAT_RATE.burst
            ),
            rate_limit: Some(RateLimitState {
                limit: HEARTBEAT_RATE.burst,
                remaining: 0,
                // Rounded up: a client that waits exactly this long is admitted.
                reset_secs: u64::try_from((retry_after.whole_milliseconds() + 999) / 1000).unwrap_or(0).max(1),
            }),
        })),
    }
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
