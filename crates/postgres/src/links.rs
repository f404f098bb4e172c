//! Minted launch links, written in groups (see `batch`): one multi-row insert and one commit for
//! every link minted while the previous group was being written.

use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;

use crate::batch::Flush;
use crate::campaigns::LaunchLinkRow;
use crate::error::{from_diesel, from_pool};
use crate::schema::launch_links;

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
    type Output = ();

    async fn flush(&self, links: &[LaunchLinkRow]) -> Result<Vec<()>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        let count = links.len();
        diesel::insert_into(launch_links::table).values(links).execute(&mut conn).await.map_err(from_diesel)?;
        Ok(vec![(); count])
    }
}
