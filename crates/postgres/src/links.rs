//! Minted launch links, written in groups (see `batch`): one statement and one commit for every
//! link minted while the previous group was being written.

use diesel::sql_query;
use diesel::sql_types::{Array, Bytea, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting};

use crate::batch::Flush;
use crate::campaigns::LaunchLinkRow;
use crate::error::{from_diesel, from_pool};
use crate::starts::{CampaignState, stopped};
use crate::statement::Cached as _;

pub(crate) struct LinkInserts {
    pool: Pool<AsyncPgConnection>,
}

impl LinkInserts {
    pub(crate) fn new(pool: Pool<AsyncPgConnection>) -> Self {
        Self { pool }
    }
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
