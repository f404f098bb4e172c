//! Idempotency records: a claim per key and request, then the sealed response it replays.

use diesel::prelude::*;
use diesel::upsert::excluded;
use diesel_async::RunQueryDsl;
use pulse_domain::idempotency::models::{ClaimRequest, IdempotencyClaim};
use pulse_domain::idempotency::ports::IdempotencyStore;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::schema::idempotency_keys;
use crate::store::PgStore;

#[derive(Queryable, Selectable)]
#[diesel(table_name = idempotency_keys, check_for_backend(diesel::pg::Pg))]
struct IdempotencyRow {
    fingerprint: Vec<u8>,
    status: Option<i16>,
    sealed_body: Option<Vec<u8>>,
}

impl IdempotencyStore for PgStore {
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<IdempotencyClaim> {
        let ClaimRequest { scope, key, token, fingerprint, now, expired_before, stale_before } = *request;
        use idempotency_keys as k;
        let mut conn = self.conn().await?;
        // The record may be released between the failed claim and the read: then claim again.
        for _ in 0..3 {
            let upsert = diesel::insert_into(k::table)
                .values((
                    k::scope.eq(scope),
                    k::key.eq(key),
                    k::claim_token.eq(token),
                    k::fingerprint.eq(fingerprint),
                    k::created_at.eq(now),
                    k::locked_at.eq(now),
                ))
                .on_conflict((k::scope, k::key))
                .do_update()
                .set((
                    k::claim_token.eq(excluded(k::claim_token)),
                    k::fingerprint.eq(excluded(k::fingerprint)),
                    k::status.eq(None::<i16>),
                    k::sealed_body.eq(None::<Vec<u8>>),
                    k::created_at.eq(excluded(k::created_at)),
                    k::locked_at.eq(excluded(k::locked_at)),
                ));
            // Only an expired record, or an in-flight one whose request died, may be taken over.
            let takeover = k::created_at.lt(expired_before).or(k::status.is_null().and(k::locked_at.lt(stale_before)));
            let claimed = diesel::query_dsl::methods::FilterDsl::filter(upsert, takeover)
                .execute(&mut conn)
                .await
                .map_err(from_diesel)?;
            if claimed == 1 {
                return Ok(IdempotencyClaim::Claimed);
            }
            let existing: Option<IdempotencyRow> = k::table
                .find((scope, key))
                .select(IdempotencyRow::as_select())
                .first(&mut conn)
                .await
                .optional()
                .map_err(from_diesel)?;
            match existing {
                Some(IdempotencyRow { fingerprint, status: Some(status), sealed_body: Some(sealed_body) }) => {
                    let status = u16::try_from(status).map_err(Error::internal)?;
                    return Ok(IdempotencyClaim::Completed { fingerprint, status, sealed_body });
                }
                Some(IdempotencyRow { fingerprint, .. }) => return Ok(IdempotencyClaim::InFlight { fingerprint }),
                None => {}
            }
        }
        Err(Error::internal("idempotency record kept changing under the claim"))
    }

    async fn complete(&self, scope: &str, key: &str, token: Uuid, status: u16, sealed_body: &[u8]) -> Result<()> {
        use idempotency_keys as k;
        let status = i16::try_from(status).map_err(Error::internal)?;
        diesel::update(k::table.find((scope, key)).filter(k::claim_token.eq(token)))
            .set((k::status.eq(status), k::sealed_body.eq(sealed_body)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn release(&self, scope: &str, key: &str, token: Uuid) -> Result<()> {
        use idempotency_keys as k;
        diesel::delete(k::table.find((scope, key)).filter(k::claim_token.eq(token)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn purge_idempotency(&self, before: OffsetDateTime) -> Result<u64> {
        use idempotency_keys as k;
        let deleted = diesel::delete(k::table.filter(k::created_at.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(deleted as u64)
    }
}
