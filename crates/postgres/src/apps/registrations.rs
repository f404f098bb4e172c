//! App registrations, written in groups (see `batch`): every register that arrives while the
//! database is busy is written in one transaction with the others, so the group shares one commit.
//! The group's new devices, and their first installs, are inserted by one statement; a group of
//! only new devices naming nobody is that one statement in all.

use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, Bool, Bytea, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{OptionalExtension as _, QueryDsl as _, QueryableByName, sql_query};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join_all;
use pulse_domain::apps::models::{APP_SESSION_GAP, DeviceRegistration, DeviceStatus, UserRegistration};
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting as campaign_not_collecting};
use pulse_domain::ids::AppInstallId;
use pulse_domain::{Error, ErrorCode, Result};
use uuid::Uuid;

use crate::apps::statements::seen_sql;
use crate::batch::{Flush, GroupCommit, SMALL_ROWS};
use crate::campaigns::state::{CampaignState, campaign_states, stopped};
use crate::error::{from_pool, violated_constraint};
use crate::rows::IdRow;
use crate::schema::app_devices;
use crate::statement::Cached as _;

pub(crate) struct Registrations {
    pool: Pool<AsyncPgConnection>,
}

/// The group writer, on `pool`.
pub(crate) fn writer(pool: Pool<AsyncPgConnection>) -> GroupCommit<Registrations> {
    GroupCommit::new(Registrations { pool }, SMALL_ROWS)
}

impl Flush for Registrations {
    type Item = DeviceRegistration;
    type Output = Result<AppInstallId>;

    async fn flush(&self, registrations: &[DeviceRegistration]) -> Result<Vec<Result<AppInstallId>>> {
        let mut conn = self.pool.get().await.map_err(from_pool)?;
        // Devices are locked in one order in every group (and before their installs, as
        // heartbeats do), so two groups never wait for each other in a circle.
        let mut order: Vec<usize> = (0..registrations.len()).collect();
        order.sort_by_key(|i| registrations[*i].device_id.0);
        // New devices are created together, in one statement. Registers of distinct known devices
        // are independent: their statements are sent without waiting for each other's answers
        // (pipelined), each register's own still in turn. Two registers of one device are written
        // one after the other, so the second sees the refresh token the first renewed.
        let mut devices: Vec<_> = registrations.iter().map(|r| r.device_id.0).collect();
        devices.sort_unstable();
        devices.dedup();
        let independent = devices.len() == registrations.len();
        let written = if registrations.iter().all(|r| r.replaces_refresh_digest.is_none() && r.user.is_none()) {
            // Nothing to check under a lock and nobody to write first: one statement, its own
            // transaction.
            let all: Vec<&DeviceRegistration> = registrations.iter().collect();
            create_devices(&conn, &all)
                .await
                .map(|made| registrations.iter().map(|r| Some(made.outcome(r))).collect::<Vec<_>>())
        } else {
            conn.transaction::<_, DieselError, _>(async |conn| {
                let mut written: Vec<Option<Result<AppInstallId>>> = registrations.iter().map(|_| None).collect();
                let states = campaign_states(conn, registrations.iter().map(|r| r.campaign_id.0)).await?;
                for (index, r) in registrations.iter().enumerate() {
                    if let Some(status) = stopped(&states, r.campaign_id.0) {
                        written[index] = Some(Err(campaign_not_collecting(status)));
                    }
                }
                let (mut new, mut known) = (Vec::new(), Vec::new());
                for index in order.into_iter().filter(|i| written[*i].is_none()) {
                    match &registrations[index].replaces_refresh_digest {
                        None => new.push(index),
                        Some(expected) => known.push((index, expected.as_slice())),
                    }
                }
                let conn: &AsyncPgConnection = conn;
                if !new.is_empty() {
                    let devices: Vec<&DeviceRegistration> = new.iter().map(|i| &registrations[*i]).collect();
                    let people = devices.iter().filter_map(|r| r.user.as_ref().map(|user| upsert_user(conn, r, user)));
                    try_join_all(people).await?;
                    let made = create_devices(conn, &devices).await?;
                    // A person is written before the device naming them. A device left out for its
                    // taken vendor id must not leave its person behind: the group is undone, and
                    // its registers are written again one by one.
                    if devices.iter().any(|r| r.user.is_some() && made.vendor_taken(r)) {
                        return Err(DieselError::RollbackTransaction);
                    }
                    for index in new {
                        written[index] = Some(made.outcome(&registrations[index]));
                    }
                }
                if independent {
                    let writes =
                        known.iter().map(|(index, expected)| renew_device(conn, &registrations[*index], expected));
                    for ((index, _), one) in known.iter().zip(try_join_all(writes).await?) {
                        written[*index] = Some(one);
                    }
                } else {
                    for (index, expected) in &known {
                        written[*index] = Some(renew_device(conn, &registrations[*index], expected).await?);
                    }
                }
                Ok(written)
            })
            .await
        };
        match written {
            Ok(written) => Ok(written
                .into_iter()
                .map(|w| w.unwrap_or_else(|| Err(Error::internal("a registration of the group was not written"))))
                .collect()),
            Err(DieselError::RollbackTransaction) if registrations.len() == 1 => Ok(vec![Err(vendor_taken_error())]),
            Err(e) if registrations.len() == 1 => Ok(vec![Err(concurrent_vendor_claim(e))]),
            // Nothing of the group was written: each is written again alone (see `batch`), so a
            // register the database refuses fails by itself.
            Err(e) => Err(Error::internal(e)),
        }
    }
}

/// A row of [`create_devices`]'s answer: a campaign's state, and the ids of every device created.
#[derive(QueryableByName)]
struct CreatedRow {
    #[diesel(embed)]
    state: CampaignState,
    #[diesel(sql_type = Array<SqlUuid>)]
    devices: Vec<Uuid>,
}

/// What [`create_devices`] read and wrote.
struct Made {
    states: Vec<CampaignState>,
    devices: Vec<Uuid>,
}

impl Made {
    fn from_rows(mut rows: Vec<CreatedRow>) -> Self {
        let devices = rows.first_mut().map(|row| std::mem::take(&mut row.devices)).unwrap_or_default();
        Self { states: rows.into_iter().map(|row| row.state).collect(), devices }
    }

    /// What became of the new device of `r`: created, refused by its campaign's state, or not
    /// created because its vendor id is taken.
    fn outcome(&self, r: &DeviceRegistration) -> Result<AppInstallId> {
        if let Some(status) = stopped(&self.states, r.campaign_id.0) {
            Err(campaign_not_collecting(status))
        } else if self.vendor_taken(r) {
            Err(vendor_taken_error())
        } else {
            Ok(r.new_install_id)
        }
    }

    /// Whether the new device of `r` was left out because its vendor id is taken.
    fn vendor_taken(&self, r: &DeviceRegistration) -> bool {
        stopped(&self.states, r.campaign_id.0).is_none() && !self.devices.contains(&r.device_id.0)
    }
}

fn vendor_taken_error() -> Error {
    Error::refused(ErrorCode::Conflict, "a concurrent register of this device went first; register again")
}

/// A vendor id taken by a concurrent register of the same device is that register's conflict.
fn concurrent_vendor_claim(e: DieselError) -> Error {
    match violated_constraint(&e) {
        Some((_, c)) if c == "app_devices_vendor" => vendor_taken_error(),
        _ => crate::error::from_diesel(e),
    }
}

/// Takes a vendor id (`$3`) of an app (`$2`) in a workspace (`$1`) from every device but `$4`. The
/// workspace is compared so that only the vendor index can answer (see `device_by_vendor_sql`).
pub(crate) const RELEASE_VENDOR_SQL: &str = "UPDATE app_devices SET vendor_digest = NULL \
     WHERE vendor_digest = $3 AND app_id = $2 AND workspace_id IS NOT DISTINCT FROM $1 AND id <> $4";

/// Creates the new devices whose campaign still collects and whose vendor id is free, and their
/// first installs, with one statement however many there are, and returns the campaigns' states it
/// read and the devices it created (the people the devices name are written before). A device whose
/// vendor id is taken is left out, and so is its install; the others stand. Devices are inserted in
/// vendor digest order, so two groups claiming the same vendor ids wait for each other in one order.
/// A device's workspace is read from its campaign's row here, in the statement that inserts it:
/// the tables have no foreign keys to check it (migration 000021). An install is inserted only with
/// the device this statement inserted, which is all that keeps it from naming a missing device
/// (migration 000023 dropped that foreign key too).
async fn create_devices(conn: &AsyncPgConnection, new: &[&DeviceRegistration]) -> Result<Made, DieselError> {
    let mut new = new.to_vec();
    new.sort_by(|a, b| a.vendor_digest.cmp(&b.vendor_digest));
    let metadata: Vec<Option<serde_json::Value>> =
        new.iter().map(|r| r.app.metadata.clone().map(serde_json::Value::Object)).collect();
    sql_query(concat!(
        "WITH states AS (SELECT id, workspace_id, status, require_signed FROM campaigns WHERE id = ANY($2::uuid[])), ",
        "input AS (SELECT t.*, states.workspace_id FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], ",
        "$5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::jsonb[], $11::bytea[], $12::bytea[], ",
        "$13::timestamptz[], $14::uuid[], $15::text[], $16::timestamptz[]) AS t(id, campaign_id, install_id, app_id, ",
        "platform, app_version, device_model, os_version, locale, metadata, vendor_digest, refresh_digest, ",
        "refresh_expires_at, user_id, identity, now) ",
        "JOIN states ON states.id = t.campaign_id WHERE states.status = $17), ",
        "devices AS (INSERT INTO app_devices (id, workspace_id, app_id, platform, app_version, device_model, ",
        "os_version, locale, metadata, vendor_digest, status, refresh_digest, refresh_expires_at, user_id, ",
        "identity, latest_install_id, first_seen_at, last_seen_at, heartbeat_count, feedback_count, ",
        "session_count, recent_sessions) SELECT id, workspace_id, app_id, platform, app_version, device_model, ",
        "os_version, locale, metadata, vendor_digest, 'ACTIVE', refresh_digest, refresh_expires_at, user_id, ",
        "identity, install_id, now, now, 0, 0, 1, ARRAY[now] FROM input ",
        "ON CONFLICT (vendor_digest, app_id, workspace_id) WHERE vendor_digest IS NOT NULL DO NOTHING RETURNING id), ",
        "installs AS (INSERT INTO app_installs (id, campaign_id, device_id, app_id, platform, app_version, device_model, ",
        "os_version, locale, first_seen_at, last_seen_at, heartbeat_count, feedback_count, session_count, ",
        "recent_sessions) SELECT install_id, campaign_id, id, app_id, platform, app_version, device_model, ",
        "os_version, locale, now, now, 0, 0, 1, ARRAY[now] FROM input WHERE id IN (SELECT id FROM devices)) ",
        "SELECT id, status, require_signed, ARRAY(SELECT id FROM devices) AS devices FROM states"
    ))
    .bind::<Array<SqlUuid>, _>(new.iter().map(|r| r.device_id.0).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(new.iter().map(|r| r.campaign_id.0).collect::<Vec<_>>())
    .bind::<Array<SqlUuid>, _>(new.iter().map(|r| r.new_install_id.0).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(new.iter().map(|r| r.app.app_id.as_str()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(new.iter().map(|r| r.app.platform.as_str()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(new.iter().map(|r| r.app.app_version.as_str()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(new.iter().map(|r| r.app.device_model.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(new.iter().map(|r| r.app.os_version.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Text>>, _>(new.iter().map(|r| r.app.locale.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Nullable<Jsonb>>, _>(metadata)
    .bind::<Array<Nullable<Bytea>>, _>(new.iter().map(|r| r.vendor_digest.as_deref()).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(new.iter().map(|r| r.refresh_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(new.iter().map(|r| r.refresh_expires_at).collect::<Vec<_>>())
    .bind::<Array<Nullable<SqlUuid>>, _>(new.iter().map(|r| r.user.as_ref().map(|u| u.id.0)).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(new.iter().map(|r| r.identity.as_str()).collect::<Vec<_>>())
    .bind::<Array<Timestamptz>, _>(new.iter().map(|r| r.now).collect::<Vec<_>>())
    .bind::<Text, _>(CampaignStatus::Active.as_str())
    .cached()
    .load(&mut { conn })
    .await
    .map(Made::from_rows)
}

/// Writes the person a register names, keeping what is stored where the register brings nothing.
async fn upsert_user(
    mut conn: &AsyncPgConnection,
    r: &DeviceRegistration,
    user: &UserRegistration,
) -> Result<(), DieselError> {
    sql_query(
        "INSERT INTO app_users (id, workspace_id, has_external_id, email_sealed, phone_sealed, verified, \
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) \
         ON CONFLICT (id) DO UPDATE SET \
         email_sealed = CASE WHEN EXCLUDED.verified \
         THEN COALESCE(EXCLUDED.email_sealed, app_users.email_sealed) \
         ELSE COALESCE(app_users.email_sealed, EXCLUDED.email_sealed) END, \
         phone_sealed = CASE WHEN EXCLUDED.verified \
         THEN COALESCE(EXCLUDED.phone_sealed, app_users.phone_sealed) \
         ELSE COALESCE(app_users.phone_sealed, EXCLUDED.phone_sealed) END, \
         verified = app_users.verified OR EXCLUDED.verified, updated_at = EXCLUDED.updated_at",
    )
    .bind::<SqlUuid, _>(user.id.0)
    .bind::<SqlUuid, _>(r.workspace_id.0)
    .bind::<Bool, _>(user.has_external_id)
    .bind::<Nullable<Bytea>, _>(user.email_sealed.as_deref())
    .bind::<Nullable<Bytea>, _>(user.phone_sealed.as_deref())
    .bind::<Bool, _>(user.verified)
    .bind::<Timestamptz, _>(r.now)
    .cached()
    .execute(&mut conn)
    .await?;
    Ok(())
}

/// Registers a known device again inside the group's transaction. `Ok(Err(refusal))`: the
/// device's own checks refused it before anything of it was written, so the others go on; `Err`:
/// a statement failed and the whole transaction is lost.
async fn renew_device(
    mut conn: &AsyncPgConnection,
    r: &DeviceRegistration,
    expected: &[u8],
) -> Result<Result<AppInstallId>, DieselError> {
    let gap_start = r.now - APP_SESSION_GAP;
    let metadata = r.app.metadata.clone().map(serde_json::Value::Object);
    // The lock also keeps the install written below from naming a device deleted meanwhile: no
    // foreign key checks it (migration 000023), and a delete waits for the lock.
    let locked: Option<(String, Vec<u8>)> = app_devices::table
        .find(r.device_id.0)
        .select((app_devices::status, app_devices::refresh_digest))
        .for_no_key_update()
        .get_result(&mut conn)
        .await
        .optional()?;
    let Some((status, refresh_digest)) = locked else {
        return Ok(Err(Error::refused(ErrorCode::Conflict, "the device was removed meanwhile")));
    };
    if status == DeviceStatus::Blocked.as_str() {
        return Ok(Err(Error::refused(ErrorCode::InstallBlocked, "this device is blocked by the workspace")));
    }
    if refresh_digest != expected {
        return Ok(Err(Error::refused(
            ErrorCode::Conflict,
            "a concurrent register of this device went first; register again",
        )));
    }
    if let Some(user) = &r.user {
        upsert_user(conn, r, user).await?;
    }
    // A vendor id moves to the device that proved itself last.
    if let Some(vendor) = &r.vendor_digest {
        sql_query(RELEASE_VENDOR_SQL)
            .bind::<SqlUuid, _>(r.workspace_id.0)
            .bind::<Text, _>(&r.app.app_id)
            .bind::<Bytea, _>(vendor)
            .bind::<SqlUuid, _>(r.device_id.0)
            .cached()
            .execute(&mut conn)
            .await?;
    }
    let installs: Vec<IdRow> = sql_query(concat!(
        "INSERT INTO app_installs AS i (id, campaign_id, device_id, app_id, platform, app_version, ",
        "device_model, os_version, locale, first_seen_at, last_seen_at, heartbeat_count, feedback_count, ",
        "session_count, recent_sessions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 0, 0, 1, ",
        "ARRAY[$10::timestamptz]) ON CONFLICT (campaign_id, device_id) DO UPDATE SET ",
        "app_id = EXCLUDED.app_id, platform = EXCLUDED.platform, app_version = EXCLUDED.app_version, ",
        "device_model = EXCLUDED.device_model, os_version = EXCLUDED.os_version, locale = EXCLUDED.locale, ",
        seen_sql!("i", "$10", "$11"),
        " RETURNING i.id"
    ))
    .bind::<SqlUuid, _>(r.new_install_id.0)
    .bind::<SqlUuid, _>(r.campaign_id.0)
    .bind::<SqlUuid, _>(r.device_id.0)
    .bind::<Text, _>(&r.app.app_id)
    .bind::<Text, _>(r.app.platform.as_str())
    .bind::<Text, _>(&r.app.app_version)
    .bind::<Nullable<Text>, _>(r.app.device_model.as_deref())
    .bind::<Nullable<Text>, _>(r.app.os_version.as_deref())
    .bind::<Nullable<Text>, _>(r.app.locale.as_deref())
    .bind::<Timestamptz, _>(r.now)
    .bind::<Timestamptz, _>(gap_start)
    .cached()
    .load(&mut conn)
    .await?;
    let Some(install) = installs.into_iter().next().map(|row| AppInstallId(row.id)) else {
        return Err(DieselError::NotFound);
    };
    let user_id = r.user.as_ref().map(|u| u.id.0);
    sql_query(concat!(
        "UPDATE app_devices AS d SET app_id = $2, platform = $3, app_version = $4, device_model = $5, ",
        "os_version = $6, locale = $7, metadata = $8, vendor_digest = COALESCE($9, d.vendor_digest), ",
        "refresh_digest = $10, refresh_expires_at = $11, user_id = $12, identity = $13, ",
        "latest_install_id = $14, ",
        seen_sql!("d", "$15", "$16"),
        " WHERE d.id = $1"
    ))
    .bind::<SqlUuid, _>(r.device_id.0)
    .bind::<Text, _>(&r.app.app_id)
    .bind::<Text, _>(r.app.platform.as_str())
    .bind::<Text, _>(&r.app.app_version)
    .bind::<Nullable<Text>, _>(r.app.device_model.as_deref())
    .bind::<Nullable<Text>, _>(r.app.os_version.as_deref())
    .bind::<Nullable<Text>, _>(r.app.locale.as_deref())
    .bind::<Nullable<Jsonb>, _>(metadata.as_ref())
    .bind::<Nullable<Bytea>, _>(r.vendor_digest.as_deref())
    .bind::<Bytea, _>(&r.refresh_digest)
    .bind::<Timestamptz, _>(r.refresh_expires_at)
    .bind::<Nullable<SqlUuid>, _>(user_id)
    .bind::<Text, _>(r.identity.as_str())
    .bind::<SqlUuid, _>(install.0)
    .bind::<Timestamptz, _>(r.now)
    .bind::<Timestamptz, _>(gap_start)
    .cached()
    .execute(&mut conn)
    .await?;
    Ok(Ok(install))
}
