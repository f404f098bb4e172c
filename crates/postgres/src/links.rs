//! Minted launch links, written in groups (see `batch`): one multi-row insert and one commit for
//! every link minted while the previous group was being written.

use diesel::prelude::*;
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting};
use uuid::Uuid;

use crate::batch::Flush;
use crate::campaigns::LaunchLinkRow;
use crate::error::{from_diesel, from_pool};
use crate::schema::{campaigns, launch_links};

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

    async fn flush(&self, links: &[LaunchLinkRow]) -> Result<Vec<Result<()>>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        // The service minted on a copy of the campaign that may predate a pause or close; a link
        // written after one has committed finds the campaign so and is not stored.
        let mut ids: Vec<Uuid> = links.iter().map(|l| l.campaign_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let states: Vec<(Uuid, String)> = campaigns::table
            .filter(campaigns::id.eq_any(ids))
            .select((campaigns::id, campaigns::status))
            .load(&mut conn)
            .await
            .map_err(from_diesel)?;
        let status_of =
            |campaign: Uuid| states.iter().find(|(id, _)| *id == campaign).and_then(|(_, s)| CampaignStatus::parse(s));
        let outcomes: Vec<Result<()>> = links
            .iter()
            .map(|l| match status_of(l.campaign_id) {
                Some(CampaignStatus::Active) => Ok(()),
                other => Err(not_collecting(other.unwrap_or(CampaignStatus::Closed))),
            })
            .collect();
        let open: Vec<&LaunchLinkRow> =
            links.iter().zip(&outcomes).filter(|(_, o)| o.is_ok()).map(|(l, _)| l).collect();
        if !open.is_empty() {
            diesel::insert_into(launch_links::table).values(open).execute(&mut conn).await.map_err(from_diesel)?;
        }
        Ok(outcomes)
    }
}
