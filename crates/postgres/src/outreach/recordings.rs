//! Recordings of spoken answers at the voice provider (`call_recordings`): kept sealed until the
//! provider confirms their deletion, then kept without the reference for the campaign's counts.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Integer, Timestamptz, Uuid as SqlUuid};
use diesel::{QueryableByName, sql_query};
use diesel_async::RunQueryDsl;
use pulse_domain::Result;
use pulse_domain::ids::{CampaignId, RecordingId};
use pulse_domain::outreach::models::{DueRecording, NewRecording, RecordingCounts, RecordingResult};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::schema::call_recordings;
use crate::statement::Cached as _;
use crate::store::PgStore;

/// Takes the due recordings no live lease holds, oldest attempt first; concurrent claims skip
/// each other's rows.
const CLAIM: &str = "WITH due AS (
    SELECT id FROM call_recordings
    WHERE deleted_at IS NULL AND delete_after <= $1 AND next_attempt_at <= $1
      AND (claimed_until IS NULL OR claimed_until <= $1)
    ORDER BY next_attempt_at, id
    LIMIT $3
    FOR UPDATE SKIP LOCKED
)
UPDATE call_recordings r SET claimed_until = $2
FROM due WHERE r.id = due.id
RETURNING r.id, r.reference_sealed, r.attempts";

const COUNTS: &str = "SELECT count(*) FILTER (WHERE deleted_at IS NULL AND delete_after > $2) AS held,
       count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
       count(*) FILTER (WHERE deleted_at IS NULL AND delete_after <= $2) AS overdue
FROM call_recordings WHERE campaign_id = $1";

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = BigInt)]
    held: i64,
    #[diesel(sql_type = BigInt)]
    deleted: i64,
    #[diesel(sql_type = BigInt)]
    overdue: i64,
}

#[derive(QueryableByName)]
struct DueRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Bytea)]
    reference_sealed: Vec<u8>,
    #[diesel(sql_type = Integer)]
    attempts: i32,
}

pub(super) async fn record(store: &PgStore, recording: &NewRecording) -> Result<()> {
    diesel::insert_into(call_recordings::table)
        .values((
            call_recordings::id.eq(recording.id.0),
            call_recordings::message_id.eq(recording.message_id.0),
            call_recordings::campaign_id.eq(recording.campaign_id.0),
            call_recordings::reference_digest.eq(&recording.reference_digest),
            call_recordings::reference_sealed.eq(&recording.reference_sealed),
            call_recordings::recorded_at.eq(recording.recorded_at),
            call_recordings::delete_after.eq(recording.delete_after),
            call_recordings::next_attempt_at.eq(recording.delete_after),
        ))
        .on_conflict((call_recordings::message_id, call_recordings::reference_digest))
        .do_nothing()
        .execute(&mut store.conn().await?)
        .await
        .map_err(from_diesel)?;
    Ok(())
}

pub(super) async fn claim(
    store: &PgStore,
    now: OffsetDateTime,
    lease_until: OffsetDateTime,
    limit: u32,
) -> Result<Vec<DueRecording>> {
    let rows: Vec<DueRow> = sql_query(CLAIM)
        .bind::<Timestamptz, _>(now)
        .bind::<Timestamptz, _>(lease_until)
        .bind::<BigInt, _>(i64::from(limit))
        .cached()
        .load(&mut store.conn().await?)
        .await
        .map_err(from_diesel)?;
    Ok(rows
        .into_iter()
        .map(|row| DueRecording {
            id: RecordingId(row.id),
            reference_sealed: row.reference_sealed,
            attempts: u32::try_from(row.attempts).unwrap_or(0),
        })
        .collect())
}

pub(super) async fn finish(store: &PgStore, recording: RecordingId, result: &RecordingResult) -> Result<()> {
    let held = call_recordings::table
        .filter(call_recordings::id.eq(recording.0))
        .filter(call_recordings::deleted_at.is_null());
    let mut conn = store.conn().await?;
    let updated = match result {
        RecordingResult::Deleted { at } => {
            diesel::update(held)
                .set((
                    call_recordings::deleted_at.eq(at),
                    call_recordings::reference_sealed.eq(None::<Vec<u8>>),
                    call_recordings::claimed_until.eq(None::<OffsetDateTime>),
                    call_recordings::last_failure.eq(None::<String>),
                ))
                .execute(&mut conn)
                .await
        }
        RecordingResult::Retry { next_at, code } => {
            diesel::update(held)
                .set((
                    call_recordings::attempts.eq(call_recordings::attempts + 1),
                    call_recordings::next_attempt_at.eq(next_at),
                    call_recordings::claimed_until.eq(None::<OffsetDateTime>),
                    call_recordings::last_failure.eq(code),
                ))
                .execute(&mut conn)
                .await
        }
    };
    updated.map_err(from_diesel)?;
    Ok(())
}

pub(super) async fn counts(store: &PgStore, campaign: CampaignId, now: OffsetDateTime) -> Result<RecordingCounts> {
    let row: CountsRow = sql_query(COUNTS)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Timestamptz, _>(now)
        .cached()
        .get_result(&mut store.conn().await?)
        .await
        .map_err(from_diesel)?;
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    Ok(RecordingCounts { held: count(row.held), deleted: count(row.deleted), overdue: count(row.overdue) })
}
