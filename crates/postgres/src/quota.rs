//! Quota windows: one counter per subject, family and window.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::ports::QuotaCounter;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;

use crate::error::from_diesel;
use crate::schema::quota_windows;
use crate::store::PgStore;

impl QuotaCounter for PgStore {
    async fn hit(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        use quota_windows as q;
        let count: i32 = diesel::insert_into(q::table)
            .values((
                q::subject.eq(subject),
                q::family.eq(family.as_str()),
                q::window_start.eq(window_start),
                q::count.eq(1),
            ))
            .on_conflict((q::subject, q::family, q::window_start))
            .do_update()
            .set(q::count.eq(q::count + 1))
            .returning(q::count)
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        u32::try_from(count).map_err(Error::internal)
    }

    async fn count(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        use quota_windows as q;
        let count: Option<i32> = q::table
            .filter(q::subject.eq(subject))
            .filter(q::family.eq(family.as_str()))
            .filter(q::window_start.eq(window_start))
            .select(q::count)
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        u32::try_from(count.unwrap_or(0)).map_err(Error::internal)
    }

    async fn purge_quota_windows(&self, before: OffsetDateTime) -> Result<u64> {
        use quota_windows as q;
        let deleted = diesel::delete(q::table.filter(q::window_start.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(deleted as u64)
    }
}
