//! Minted launch links, written in groups (see `batch`): one statement and one commit for every
//! link minted while the previous group was being written.

use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{Array, Bytea, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::campaigns::models::{CampaignStatus, LanguageTag, LaunchContext, LaunchLink, not_collecting};
use pulse_domain::ids::{CampaignId, LaunchLinkId, RespondentId};
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::batch::{Flush, GroupCommit, SMALL_ROWS};
use crate::campaigns::state::{CampaignState, stopped};
use crate::error::{from_diesel, from_pool};
use crate::schema::launch_links;
use crate::statement::Cached as _;

pub(crate) struct LinkInserts {
    pool: Pool<AsyncPgConnection>,
}

/// A launch link as stored.
#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = launch_links, check_for_backend(diesel::pg::Pg))]
pub(crate) struct LaunchLinkRow {
    pub(crate) id: Uuid,
    pub(crate) campaign_id: Uuid,
    pub(crate) nonce_digest: Option<Vec<u8>>,
    pub(crate) respondent_id: Option<Uuid>,
    pub(crate) language: Option<String>,
    pub(crate) external_user_digest: Option<Vec<u8>>,
    pub(crate) device: serde_json::Value,
    pub(crate) attributes: serde_json::Value,
    pub(crate) expires_at: Option<OffsetDateTime>,
    pub(crate) spent_at: Option<OffsetDateTime>,
    pub(crate) created_at: OffsetDateTime,
}

impl LaunchLinkRow {
    pub(crate) fn from_domain(l: &LaunchLink) -> Self {
        Self {
            id: l.id.0,
            campaign_id: l.campaign_id.0,
            nonce_digest: l.nonce_digest.clone(),
            respondent_id: l.respondent_id.map(|r| r.0),
            language: l.language.as_ref().map(|t| t.as_str().to_owned()),
            external_user_digest: l.external_user_digest.clone(),
            device: serde_json::Value::Object(l.context.device.clone()),
            attributes: serde_json::Value::Object(l.context.attributes.clone()),
            expires_at: l.expires_at,
            spent_at: l.spent_at,
            created_at: l.created_at,
        }
    }

    pub(crate) fn into_domain(self) -> Result<LaunchLink> {
        let corrupt = || Error::internal(format!("launch link {} is malformed", self.id));
        let object = |v: serde_json::Value| match v {
            serde_json::Value::Object(map) => Ok(map),
            _ => Err(corrupt()),
        };
        Ok(LaunchLink {
            id: LaunchLinkId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            nonce_digest: self.nonce_digest,
            respondent_id: self.respondent_id.map(RespondentId),
            language: self
                .language
                .as_deref()
                .map(|l| LanguageTag::parse("language", l))
                .transpose()
                .map_err(|_| corrupt())?,
            external_user_digest: self.external_user_digest,
            context: LaunchContext { device: object(self.device)?, attributes: object(self.attributes)? },
            expires_at: self.expires_at,
            spent_at: self.spent_at,
            created_at: self.created_at,
        })
    }
}

/// The group writer, on `pool`.
pub(crate) fn writer(pool: Pool<AsyncPgConnection>) -> GroupCommit<LinkInserts> {
    GroupCommit::new(LinkInserts { pool }, SMALL_ROWS)
}

impl Flush for LinkInserts {
    type Item = LaunchLinkRow;
    type Output = Result<()>;

    /// The service minted on a copy of the campaign that may predate a pause or close; the same
    /// statement that inserts the group reads its campaigns and stores only the links of those
    /// still collecting, so a link written after a pause has committed is not stored.
    async fn flush(&self, links: &[LaunchLinkRow]) -> Result<Vec<Result<()>>> {
        let states: Vec<CampaignState> = sql_query(concat!(
            "WITH states AS (SELECT id, status, require_signed FROM campaigns WHERE id = ANY($2::uuid[])), ",
            "inserted AS (INSERT INTO launch_links (id, campaign_id, nonce_digest, respondent_id, language, ",
            "external_user_digest, device, attributes, expires_at, spent_at, created_at) ",
            "SELECT t.* FROM unnest($1::uuid[], $2::uuid[], $3::bytea[], $4::uuid[], $5::text[], $6::bytea[], ",
            "$7::jsonb[], $8::jsonb[], $9::timestamptz[], $10::timestamptz[], $11::timestamptz[]) ",
            "AS t(id, campaign_id, nonce_digest, respondent_id, language, external_user_digest, device, ",
            "attributes, expires_at, spent_at, created_at) ",
            "JOIN states ON states.id = t.campaign_id WHERE states.status = $12) ",
            "SELECT id, status, require_signed FROM states"
        ))
        .bind::<Array<SqlUuid>, _>(links.iter().map(|l| l.id).collect::<Vec<_>>())
        .bind::<Array<SqlUuid>, _>(links.iter().map(|l| l.campaign_id).collect::<Vec<_>>())
        .bind::<Array<Nullable<Bytea>>, _>(links.iter().map(|l| l.nonce_digest.as_deref()).collect::<Vec<_>>())
        .bind::<Array<Nullable<SqlUuid>>, _>(links.iter().map(|l| l.respondent_id).collect::<Vec<_>>())
        .bind::<Array<Nullable<Text>>, _>(links.iter().map(|l| l.language.as_deref()).collect::<Vec<_>>())
        .bind::<Array<Nullable<Bytea>>, _>(links.iter().map(|l| l.external_user_digest.as_deref()).collect::<Vec<_>>())
        .bind::<Array<Jsonb>, _>(links.iter().map(|l| &l.device).collect::<Vec<_>>())
        .bind::<Array<Jsonb>, _>(links.iter().map(|l| &l.attributes).collect::<Vec<_>>())
        .bind::<Array<Nullable<Timestamptz>>, _>(links.iter().map(|l| l.expires_at).collect::<Vec<_>>())
        .bind::<Array<Nullable<Timestamptz>>, _>(links.iter().map(|l| l.spent_at).collect::<Vec<_>>())
        .bind::<Array<Timestamptz>, _>(links.iter().map(|l| l.created_at).collect::<Vec<_>>())
        .bind::<Text, _>(CampaignStatus::Active.as_str())
        .cached()
        .load(&mut self.pool.get().await.map_err(from_pool)?)
        .await
        .map_err(from_diesel)?;
        Ok(links
            .iter()
            .map(|l| stopped(&states, l.campaign_id).map_or(Ok(()), |status| Err(not_collecting(status))))
            .collect())
    }
}
