//! App register, heartbeats, attribution and the device and install lists.

use crate::apps::models::{
    ACCESS_TOKEN_LIFETIME, AppFacts, AppPlatform, AttributionKey, BeatFacts, BeatOutcome, BeatRecord, DeviceBeat,
    DeviceRecord, DeviceRegistration, DeviceStatus, DeviceTokens, DeviceView, HEARTBEAT_RATE, Heartbeat,
    HeartbeatInput, HeartbeatRate, INSTALL_ID_LIFETIME, INSTALL_ID_RENEW_WITHIN, Identity, InstallBeat, InstallView,
    MAX_TOKEN_CHARS, ParsedUser, REFRESH_TOKEN_IDLE_LIFETIME, REFRESH_TOKEN_LEN, RegisterInput, Registration,
    UserRegistration, app_user_seal_context, locale_field, metadata_field, parse_user, required_text, text_field,
    user_hash_invalid,
};
use crate::apps::ports::AppRepository;
use crate::campaigns::models::{Campaign, CampaignCopies, CampaignStatus, launch_key_seal_context, not_collecting};
use crate::campaigns::ports::{CampaignRepository, LaunchRepository};
use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, WorkspaceId};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use crate::shared::paging::{Cursors, Page, PageKey};
use crate::studio::models::{PERMISSION_VIEW, StudioClaims};
use crate::tenancy::models::{Principal, Scope};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use secrecy::SecretString;
use time::OffsetDateTime;
use uuid::Uuid;

const ACCESS_TOKEN_PREFIX: &str = "dt1.";

const INSTALL_ID_PREFIX: &str = "in1.";

const ACCESS_TOKEN_CONTEXT: &[u8] = b"pulse/device-access-token/v1";

const INSTALL_ID_CONTEXT: &[u8] = b"pulse/install-id/v1";

/// Who a register is about: a known device (or a new one), and the person it names.
struct Registering {
    device: Option<DeviceRecord>,
    identity: Identity,
    user: Option<UserRegistration>,
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

/// The id of the person a workspace's apps name by `external_id`: a keyed digest of both, so the
/// same person is found again (and erased) without the `externalId` being stored.
pub(crate) fn app_user_id<C: Crypto>(crypto: &C, workspace: WorkspaceId, external_id: &str) -> AppUserId {
    let mut input = workspace.0.as_bytes().to_vec();
    input.extend_from_slice(external_id.as_bytes());
    let digest = crypto.keyed_digest(DigestPurpose::AppUser, &input);
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    AppUserId(uuid::Builder::from_custom_bytes(bytes).into_uuid())
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

pub struct Apps<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    heartbeat_rate: Option<HeartbeatRate>,
    copies: CampaignCopies,
}

impl<R, C, K> Apps<R, C, K>
where
    R: AppRepository + CampaignRepository + LaunchRepository,
    C: Crypto,
    K: Clock,
{
    /// `heartbeat_rate` is [`HEARTBEAT_RATE`] in production; `None` lifts it (load tests only).
    pub fn new(repo: R, crypto: C, clock: K, heartbeat_rate: Option<HeartbeatRate>) -> Self {
        Self { repo, crypto, clock, heartbeat_rate, copies: CampaignCopies::default() }
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
        let collecting = |c: &Campaign| c.status == CampaignStatus::Active;
        let (campaign, _) = self
            .copies
            .by_code(&input.campaign_code, self.clock.now(), collecting, async {
                self.repo.find_campaign_by_code(&input.campaign_code).await
            })
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        if !collecting(&campaign) {
            return Err(not_collecting(campaign.status));
        }
        let now = self.clock.now();
        let vendor_digest = vendor.map(|v| self.vendor_digest(&app.app_id, &v));
        let claims_device = claimed_device.is_some() && input.refresh_token.is_some();
        // An app's first register (a vendor id, no device claimed, nobody named) is written as a
        // new device at once, without looking its vendor id up first: one round trip fewer. Only
        // when the store finds the vendor id taken is the device looked up and registered again.
        if vendor_digest.is_some() && user.is_none() && !claims_device {
            let new_device = Registering { device: None, identity: Identity::Anonymous, user: None };
            match self.write_registration(&campaign, new_device, vendor_digest.clone(), app.clone(), now).await {
                Err(e) if e.code() == ErrorCode::Conflict => {}
                written => return written,
            }
        }
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
        self.write_registration(&campaign, Registering { device, identity, user }, vendor_digest, app, now).await
    }

    /// Stores a register of `campaign` with a new refresh token: of `registering.device`, or of a
    /// new device when that is `None`.
    async fn write_registration(
        &self,
        campaign: &Campaign,
        registering: Registering,
        vendor_digest: Option<Vec<u8>>,
        app: AppFacts,
        now: OffsetDateTime,
    ) -> Result<Registration> {
        let Registering { device, identity, user } = registering;
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
            Some(external_id) => app_user_id(&self.crypto, campaign.workspace_id, external_id),
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
        let expected = crate::shared::hex::decode(hash).filter(|h| h.len() == 32).ok_or_else(invalid)?;
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
                family: "heartbeat",
                limit: HEARTBEAT_RATE.burst,
                remaining: 0,
                // Rounded up: a client that waits exactly this long is admitted.
                reset_secs: u64::try_from((retry_after.whole_milliseconds() + 999) / 1000).unwrap_or(0).max(1),
            }),
        })),
    }
}
