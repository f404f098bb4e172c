//! The Studio's launch keys and signing setting of a campaign.

use crate::campaigns::models::{Campaign, LAUNCH_KEY_SECRET_LEN, LaunchKey, launch_key_seal_context};
use crate::campaigns::ports::{CampaignRepository, LaunchRepository};
use crate::error::{Error, Result};
use crate::ids::{CampaignId, LaunchKeyId};
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW, StudioClaims};
use secrecy::SecretString;

/// The keys of a campaign and whether it requires signed launches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchKeyList {
    pub keys: Vec<LaunchKey>,
    pub require_signed: bool,
}

pub struct LaunchKeys<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
}

impl<R: CampaignRepository + LaunchRepository, C: Crypto, K: Clock> LaunchKeys<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K) -> Self {
        Self { repo, crypto, clock }
    }

    async fn campaign(&self, session: &StudioClaims, id: CampaignId) -> Result<Campaign> {
        self.repo.find_campaign_in_business(session.business_id, id).await?.ok_or_else(|| Error::not_found("campaign"))
    }

    /// # Errors
    /// `InsufficientPermission` without `campaign:view`; `NotFound` for a campaign outside the
    /// session's business; port errors.
    pub async fn list(&self, session: &StudioClaims, campaign: CampaignId) -> Result<LaunchKeyList> {
        session.require_permission(PERMISSION_VIEW)?;
        let campaign = self.campaign(session, campaign).await?;
        let keys = self.repo.active_launch_keys(campaign.id).await?;
        Ok(LaunchKeyList { keys, require_signed: campaign.require_signed })
    }

    /// Creates a key in a free slot; the secret is returned here and never again.
    ///
    /// # Errors
    /// `InsufficientPermission` without `campaign:build`; `NotFound`; `LaunchKeySlotsFull`; port errors.
    pub async fn create(&self, session: &StudioClaims, campaign: CampaignId) -> Result<(LaunchKey, SecretString)> {
        session.require_permission(PERMISSION_BUILD)?;
        let campaign = self.campaign(session, campaign).await?;
        let secret = self.crypto.random_base62(LAUNCH_KEY_SECRET_LEN);
        let id = LaunchKeyId::new_random();
        let key = LaunchKey {
            id,
            campaign_id: campaign.id,
            slot: 0,
            fingerprint: fingerprint(&self.crypto.sha256(secret.as_bytes())),
            secret_sealed: self.crypto.seal(&launch_key_seal_context(id), secret.as_bytes()),
            created_at: self.clock.now(),
            last_used_at: None,
            revoked_at: None,
        };
        let stored = self.repo.insert_launch_key(&key).await?;
        Ok((stored, SecretString::from(secret)))
    }

    /// Revokes a key at once.
    ///
    /// # Errors
    /// `InsufficientPermission` without `campaign:build`; `NotFound` for an unknown campaign or
    /// key (or one already revoked); port errors.
    pub async fn revoke(&self, session: &StudioClaims, campaign: CampaignId, key: LaunchKeyId) -> Result<()> {
        session.require_permission(PERMISSION_BUILD)?;
        let campaign = self.campaign(session, campaign).await?;
        if self.repo.revoke_launch_key(campaign.id, key, self.clock.now()).await? {
            Ok(())
        } else {
            Err(Error::not_found("launch key"))
        }
    }

    /// # Errors
    /// `InsufficientPermission` without `campaign:build`; `NotFound`; port errors.
    pub async fn set_require_signed(
        &self,
        session: &StudioClaims,
        campaign: CampaignId,
        required: bool,
    ) -> Result<bool> {
        session.require_permission(PERMISSION_BUILD)?;
        let campaign = self.campaign(session, campaign).await?;
        self.repo.set_require_signed(campaign.id, required).await?;
        Ok(required)
    }
}

/// The first 8 hex characters of the secret's SHA-256.
fn fingerprint(digest: &[u8; 32]) -> String {
    crate::shared::hex::encode(&digest[..4])
}

#[cfg(test)]
mod tests {
    use super::fingerprint;

    #[test]
    fn fingerprints_are_eight_lower_hex() {
        let mut digest = [0_u8; 32];
        digest[..4].copy_from_slice(&[0xab, 0x01, 0xff, 0x10]);
        assert_eq!(fingerprint(&digest), "ab01ff10");
    }
}
