//! Launch keys and launch links: minted links are written in groups by `links`.

use diesel::prelude::*;
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::campaigns::models::{LAUNCH_KEY_SLOTS, LaunchKey, LaunchLink};
use pulse_domain::campaigns::ports::LaunchRepository;
use pulse_domain::ids::{CampaignId, LaunchKeyId, LaunchLinkId};
use pulse_domain::{Error, ErrorCode, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::campaigns::links::{LaunchLinkRow, LinkInserts};
use crate::error::from_diesel;
use crate::schema::{campaigns, launch_keys, launch_links, spent_challenges, spent_launch_tokens};
use crate::store::{PgStore, TxError};

#[derive(Queryable, Selectable)]
#[diesel(table_name = launch_keys, check_for_backend(diesel::pg::Pg))]
struct LaunchKeyRow {
    id: Uuid,
    campaign_id: Uuid,
    slot: i16,
    fingerprint: String,
    secret_sealed: Vec<u8>,
    created_at: OffsetDateTime,
    last_used_at: Option<OffsetDateTime>,
    revoked_at: Option<OffsetDateTime>,
}

impl LaunchKeyRow {
    fn into_domain(self) -> Result<LaunchKey> {
        Ok(LaunchKey {
            id: LaunchKeyId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            slot: u8::try_from(self.slot).map_err(Error::internal)?,
            fingerprint: self.fingerprint,
            secret_sealed: self.secret_sealed,
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            revoked_at: self.revoked_at,
        })
    }
}

impl LaunchRepository for PgStore {
    async fn active_launch_keys(&self, campaign: CampaignId) -> Result<Vec<LaunchKey>> {
        let rows: Vec<LaunchKeyRow> = launch_keys::table
            .filter(launch_keys::campaign_id.eq(campaign.0))
            .filter(launch_keys::revoked_at.is_null())
            .order(launch_keys::slot)
            .select(LaunchKeyRow::as_select())
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(LaunchKeyRow::into_domain).collect()
    }

    async fn find_launch_key(&self, campaign: CampaignId, id: LaunchKeyId) -> Result<Option<LaunchKey>> {
        let row: Option<LaunchKeyRow> = launch_keys::table
            .filter(launch_keys::id.eq(id.0))
            .filter(launch_keys::campaign_id.eq(campaign.0))
            .filter(launch_keys::revoked_at.is_null())
            .select(LaunchKeyRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchKeyRow::into_domain).transpose()
    }

    async fn insert_launch_key(&self, key: &LaunchKey) -> Result<LaunchKey> {
        let mut conn = self.conn().await?;
        let row = conn
            .transaction::<_, TxError, _>(async |conn| {
                // Serialises key creation per campaign, so two creations cannot take one slot.
                campaigns::table.find(key.campaign_id.0).select(campaigns::id).for_update().first::<Uuid>(conn).await?;
                let taken: Vec<i16> = launch_keys::table
                    .filter(launch_keys::campaign_id.eq(key.campaign_id.0))
                    .filter(launch_keys::revoked_at.is_null())
                    .select(launch_keys::slot)
                    .load(conn)
                    .await?;
                let slot = (1..=i16::from(LAUNCH_KEY_SLOTS)).find(|s| !taken.contains(s)).ok_or_else(|| {
                    TxError::Domain(Error::refused(
                        ErrorCode::LaunchKeySlotsFull,
                        "both launch-key slots hold an active key; revoke one before creating another",
                    ))
                })?;
                let row: LaunchKeyRow = diesel::insert_into(launch_keys::table)
                    .values((
                        launch_keys::id.eq(key.id.0),
                        launch_keys::campaign_id.eq(key.campaign_id.0),
                        launch_keys::slot.eq(slot),
                        launch_keys::fingerprint.eq(&key.fingerprint),
                        launch_keys::secret_sealed.eq(&key.secret_sealed),
                        launch_keys::created_at.eq(key.created_at),
                    ))
                    .returning(LaunchKeyRow::as_returning())
                    .get_result(conn)
                    .await?;
                Ok(row)
            })
            .await?;
        row.into_domain()
    }

    async fn revoke_launch_key(&self, campaign: CampaignId, id: LaunchKeyId, at: OffsetDateTime) -> Result<bool> {
        let revoked = diesel::update(
            launch_keys::table
                .filter(launch_keys::id.eq(id.0))
                .filter(launch_keys::campaign_id.eq(campaign.0))
                .filter(launch_keys::revoked_at.is_null()),
        )
        .set(launch_keys::revoked_at.eq(at))
        .execute(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        Ok(revoked == 1)
    }

    async fn set_require_signed(&self, campaign: CampaignId, required: bool) -> Result<()> {
        diesel::update(campaigns::table.find(campaign.0))
            .set(campaigns::require_signed.eq(required))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn insert_launch_link(&self, link: &LaunchLink) -> Result<()> {
        self.writer::<LinkInserts>()?.submit(LaunchLinkRow::from_domain(link)).await?
    }

    async fn find_launch_link(&self, campaign: CampaignId, id: LaunchLinkId) -> Result<Option<LaunchLink>> {
        let row: Option<LaunchLinkRow> = launch_links::table
            .filter(launch_links::id.eq(id.0))
            .filter(launch_links::campaign_id.eq(campaign.0))
            .select(LaunchLinkRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchLinkRow::into_domain).transpose()
    }

    async fn find_link_by_nonce(&self, campaign: CampaignId, nonce_digest: &[u8]) -> Result<Option<LaunchLink>> {
        let row: Option<LaunchLinkRow> = launch_links::table
            .filter(launch_links::nonce_digest.eq(nonce_digest))
            .filter(launch_links::campaign_id.eq(campaign.0))
            .select(LaunchLinkRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchLinkRow::into_domain).transpose()
    }

    async fn token_spent(&self, campaign: CampaignId, jti: &str) -> Result<bool> {
        diesel::select(diesel::dsl::exists(spent_launch_tokens::table.find((campaign.0, jti))))
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)
    }

    async fn purge_spent_tokens(&self, before: OffsetDateTime) -> Result<u64> {
        let mut conn = self.conn().await?;
        let tokens = diesel::delete(spent_launch_tokens::table.filter(spent_launch_tokens::expires_at.lt(before)))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        let challenges = diesel::delete(spent_challenges::table.filter(spent_challenges::expires_at.lt(before)))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        Ok((tokens + challenges) as u64)
    }
}
