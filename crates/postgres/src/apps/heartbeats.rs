//! v2 heartbeats, written in groups (see `batch`): one statement checks every beat's proof and
//! rate and counts the admitted ones on their devices and latest installs.

use diesel::result::Error as DieselError;
use diesel::sql_query;
use diesel::sql_types::{Array, Bytea, Double, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::apps::models::{APP_SESSION_GAP, BeatOutcome, DeviceBeat};
use std::collections::{HashMap, HashSet};
use uuid::Uuid;

use crate::apps::statements::{BeatRow, rate_params, seen_sql};
use crate::batch::{Flush, GroupCommit, SMALL_ROWS};
use crate::error::{from_diesel, from_pool};
use crate::statement::Cached as _;

/// Writes groups of v2 heartbeats.
pub(crate) struct DeviceBeats {
    pool: Pool<AsyncPgConnection>,
}

/// The group writer, on `pool`.
pub(crate) fn writer(pool: Pool<AsyncPgConnection>) -> GroupCommit<DeviceBeats> {
    GroupCommit::new(DeviceBeats { pool }, SMALL_ROWS)
}

impl Flush for DeviceBeats {
    type Item = DeviceBeat;
    type Output = BeatOutcome;

    async fn flush(&self, beats: &[DeviceBeat]) -> Result<Vec<BeatOutcome>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        let rounds = rounds(beats);
        let mut outcomes = vec![BeatOutcome::Refused; beats.len()];
        if let [only] = rounds.as_slice() {
            // One statement is its own transaction.
            beat_round(&mut conn, beats, only, &mut outcomes).await.map_err(from_diesel)?;
        } else {
            conn.transaction::<_, DieselError, _>(async |conn| {
                for round in &rounds {
                    beat_round(conn, beats, round, &mut outcomes).await?;
                }
                Ok(())
            })
            .await
            .map_err(from_diesel)?;
        }
        Ok(outcomes)
    }
}

/// Splits the beats into rounds in which every device appears once, keeping each device's beats
/// in arrival order: a device that beats twice in one group is rated twice, one after the other.
fn rounds(beats: &[DeviceBeat]) -> Vec<Vec<usize>> {
    let mut rounds: Vec<(HashSet<Uuid>, Vec<usize>)> = Vec::new();
    for (index, beat) in beats.iter().enumerate() {
        let device = beat.device_id.0;
        let later = rounds.iter().rposition(|(devices, _)| devices.contains(&device)).map_or(0, |last| last + 1);
        if later == rounds.len() {
            rounds.push((HashSet::new(), Vec::new()));
        }
        let (devices, members) = &mut rounds[later];
        devices.insert(device);
        members.push(index);
    }
    rounds.into_iter().map(|(_, members)| members).collect()
}

/// One round. Each device is looked up by its primary key on its own (`LATERAL … LIMIT 1`, which
/// the planner cannot turn into a join): a plan cached while `app_devices` was small or not yet
/// analyzed otherwise scans the whole table once per group. The lookups run in the order of the
/// input, sorted here by device id, so devices are locked in id order and groups written at once
/// (by other replicas, or other slots of this one) never wait for each other in a circle.
async fn beat_round(
    conn: &mut AsyncPgConnection,
    beats: &[DeviceBeat],
    round: &[usize],
    outcomes: &mut [BeatOutcome],
) -> std::result::Result<(), DieselError> {
    let mut round = round.to_vec();
    round.sort_by_key(|i| beats[*i].device_id.0);
    let members: Vec<&DeviceBeat> = round.iter().map(|i| &beats[*i]).collect();
    let rates: Vec<_> = members.iter().map(|b| rate_params(b.rate, b.now)).collect();
    let rows: Vec<BeatRow> = sql_query(concat!(
        "WITH input AS (SELECT * FROM unnest($1::uuid[], $2::bytea[], $3::timestamptz[], $4::timestamptz[], ",
        "$5::float8[], $6::timestamptz[], $7::text[], $8::text[], $9::text[], $10::timestamptz[]) ",
        "AS t(id, digest, now, limit_at, secs, gap_start, app_version, os_version, locale, expires_at)), ",
        "cur AS (SELECT d.id, d.workspace_id, d.latest_install_id, input.now, input.limit_at, input.secs, ",
        "input.gap_start, input.app_version, input.os_version, input.locale, input.expires_at, ",
        "GREATEST(COALESCE(d.heartbeat_tat, input.now), input.now) AS start, ",
        "(input.limit_at IS NULL OR GREATEST(COALESCE(d.heartbeat_tat, input.now), input.now) <= input.limit_at) ",
        "AS allowed ",
        "FROM input CROSS JOIN LATERAL (SELECT d.id, d.workspace_id, d.latest_install_id, d.heartbeat_tat ",
        "FROM app_devices d WHERE d.id = input.id AND d.refresh_digest = input.digest ",
        "AND d.status = 'ACTIVE' AND d.refresh_expires_at > input.now LIMIT 1 FOR NO KEY UPDATE) d), ",
        "d AS (UPDATE app_devices AS d SET heartbeat_tat = CASE WHEN cur.limit_at IS NULL THEN d.heartbeat_tat ",
        "ELSE cur.start + make_interval(secs => cur.secs) END, ",
        "heartbeat_count = d.heartbeat_count + 1, app_version = COALESCE(cur.app_version, d.app_version), ",
        "os_version = COALESCE(cur.os_version, d.os_version), locale = COALESCE(cur.locale, d.locale), ",
        "refresh_expires_at = cur.expires_at, ",
        seen_sql!("d", "cur.now", "cur.gap_start"),
        " FROM cur WHERE d.id = cur.id AND cur.allowed RETURNING d.id), ",
        "i AS (UPDATE app_installs AS i SET heartbeat_count = i.heartbeat_count + 1, ",
        "app_version = COALESCE(cur.app_version, i.app_version), os_version = COALESCE(cur.os_version, i.os_version), ",
        "locale = COALESCE(cur.locale, i.locale), ",
        seen_sql!("i", "cur.now", "cur.gap_start"),
        " FROM cur WHERE i.id = cur.latest_install_id AND cur.allowed RETURNING i.id, i.campaign_id) ",
        "SELECT cur.id AS device_id, cur.workspace_id, cur.expires_at AS refresh_expires_at, cur.start, cur.allowed, ",
        "i.id AS install_id, i.campaign_id FROM cur LEFT JOIN i ON i.id = cur.latest_install_id"
    ))
    .bind::<Array<SqlUuid>, _>(members.iter().map(|b| b.device_id.0).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(members.iter().map(|b| b.refresh_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(members.iter().map(|b| b.now).collect::<Vec<_>>())
    .bind::<Array<Nullable<Timestamptz>>, _>(rates.iter().map(|(limit_at, _)| *limit_at).collect::<Vec<_>>())
    .bind::<Array<Double>, _>(rates.iter().map(|(_, secs)| *secs).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(members.iter().map(|b| b.now - APP_SESSION_GAP).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(members.iter().map(|b| b.facts.app_version.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(members.iter().map(|b| b.facts.os_version.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(members.iter().map(|b| b.facts.locale.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(members.iter().map(|b| b.refresh_expires_at).collect::<Vec<_>>())
    .cached()
    .load(conn)
    .await?;
    let mut rows: HashMap<Uuid, BeatRow> = rows.into_iter().map(|r| (r.device_id, r)).collect();
    for (index, beat) in round.iter().zip(&members) {
        outcomes[*index] = BeatRow::outcome(rows.remove(&beat.device_id.0), beat.now, beat.rate);
    }
    Ok(())
}
