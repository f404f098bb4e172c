//! App registrations, written in groups (see `batch`): every register that arrives while the
//! database is busy is written in one transaction with the others, each in the same statements as
//! alone, so the group shares one commit.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_query;
use diesel::sql_types::{Bool, Bytea, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::pooled_connection::deadpool::Pool;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use futures_util::future::try_join_all;
use pulse_domain::apps::models::{APP_SESSION_GAP, DeviceRegistration, DeviceStatus};
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting as campaign_not_collecting};
use pulse_domain::ids::AppInstallId;
use pulse_domain::{Error, ErrorCode, Result};
use uuid::Uuid;

use crate::apps::{IdRow, LockedDeviceRow, seen_sql};
use crate::batch::Flush;
use crate::error::{from_pool, violated_constraint};
use crate::schema::campaigns;
use crate::statement::Cached as _;

pub(crate) struct Registrations {
    pool: Pool<AsyncPgConnection>,
}

impl Registrations {
    pub(crate) fn new(pool: Pool<AsyncPgConnection>) -> Self {
        Self { pool }
    }
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
        // Registers of distinct devices are independent: their statements are sent without
        // waiting for each other's answers (pipelined), each register's own still in turn. Two
        // registers of one device are written one after the other, so the second sees the
        // refresh token the first renewed.
        let mut devices: Vec<_> = registrations.iter().map(|r| r.device_id.0).collect();
        devices.sort_unstable();
        devices.dedup();
        let independent = devices.len() == registrations.len();
        let written = conn
            .transaction::<_, DieselError, _>(async |conn| {
                let mut written: Vec<Option<Result<AppInstallId>>> = registrations.iter().map(|_| None).collect();
                // The service checked a copy of the campaign that may predate a pause or close; a
                // register written after one has committed finds the campaign so.
                for (index, status) in not_collecting(conn, registrations).await? {
                    written[index] = Some(Err(campaign_not_collecting(status)));
                }
                let order: Vec<usize> = order.into_iter().filter(|i| written[*i].is_none()).collect();
                let conn: &AsyncPgConnection = conn;
                if independent {
                    let writes = order.iter().map(|index| write_one(conn, &registrations[*index]));
                    for (index, one) in order.iter().zip(try_join_all(writes).await?) {
                        written[*index] = Some(one);
                    }
                } else {
                    for index in &order {
                        written[*index] = Some(write_one(conn, &registrations[*index]).await?);
                    }
                }
                Ok(written)
            })
            .await;
        match written {
            Ok(written) => Ok(written
                .into_iter()
                .map(|w| w.unwrap_or_else(|| Err(Error::internal("a registration of the group was not written"))))
                .collect()),
            Err(e) if registrations.len() == 1 => Ok(vec![Err(concurrent_vendor_claim(e))]),
            // Nothing of the group was written: each is written again alone (see `batch`), so a
            // register the database refuses fails by itself.
            Err(e) => Err(Error::internal(e)),
        }
    }
}

/// The registers of the group whose campaign is not `ACTIVE` now, with its status.
async fn not_collecting(
    conn: &mut AsyncPgConnection,
    registrations: &[DeviceRegistration],
) -> Result<Vec<(usize, CampaignStatus)>, DieselError> {
    let mut ids: Vec<Uuid> = registrations.iter().map(|r| r.campaign_id.0).collect();
    ids.sort_unstable();
    ids.dedup();
    let states: Vec<(Uuid, String)> = campaigns::table
        .filter(campaigns::id.eq_any(ids))
        .select((campaigns::id, campaigns::status))
        .load(conn)
        .await?;
    Ok(registrations
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            let status =
                states.iter().find(|(id, _)| *id == r.campaign_id.0).and_then(|(_, s)| CampaignStatus::parse(s));
            match status {
                Some(CampaignStatus::Active) => None,
                other => Some((index, other.unwrap_or(CampaignStatus::Closed))),
            }
        })
        .collect())
}

/// A vendor id taken by a concurrent register of the same device is that register's conflict.
fn concurrent_vendor_claim(e: DieselError) -> Error {
    match violated_constraint(&e) {
        Some((_, c)) if c == "app_devices_vendor" => {
            Error::refused(ErrorCode::Conflict, "a concurrent register of this device went first; register again")
        }
        _ => crate::error::from_diesel(e),
    }
}

/// Takes a vendor id (`$3`) of an app (`$2`) in a workspace (`$1`) from every device but `$4`. The
/// workspace is compared so that only the vendor index can answer (see `device_by_vendor_sql`).
pub(crate) const RELEASE_VENDOR_SQL: &str = "UPDATE app_devices SET vendor_digest = NULL \
     WHERE vendor_digest = $3 AND app_id = $2 AND workspace_id IS NOT DISTINCT FROM $1 AND id <> $4";

/// Writes one registration inside the group's transaction. `Ok(Err(refusal))`: the device's own
/// checks refused it before anything of it was written, so the others go on; `Err`: a statement
/// failed and the whole transaction is lost.
async fn write_one(mut conn: &AsyncPgConnection, r: &DeviceRegistration) -> Result<Result<AppInstallId>, DieselError> {
    let gap_start = r.now - APP_SESSION_GAP;
    let metadata = r.app.metadata.clone().map(serde_json::Value::Object);
    if let Some(expected) = &r.replaces_refresh_digest {
        let locked: Vec<LockedDeviceRow> =
            sql_query("SELECT status, refresh_digest FROM app_devices WHERE id = $1 FOR NO KEY UPDATE")
                .bind::<SqlUuid, _>(r.device_id.0)
                .cached()
                .load(&mut conn)
                .await?;
        let Some(current) = locked.into_iter().next() else {
            return Ok(Err(Error::refused(ErrorCode::Conflict, "the device was removed meanwhile")));
        };
        if current.status == DeviceStatus::Blocked.as_str() {
            return Ok(Err(Error::refused(ErrorCode::InstallBlocked, "this device is blocked by the workspace")));
        }
        if &current.refresh_digest != expected {
            return Ok(Err(Error::refused(
                ErrorCode::Conflict,
                "a concurrent register of this device went first; register again",
            )));
        }
    }
    if let Some(user) = &r.user {
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
    }
    let user_id = r.user.as_ref().map(|u| u.id.0);
    if r.replaces_refresh_digest.is_some() {
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
    } else {
        sql_query(
            "INSERT INTO app_devices (id, workspace_id, app_id, platform, app_version, device_model, \
             os_version, locale, metadata, vendor_digest, status, refresh_digest, refresh_expires_at, \
             user_id, identity, latest_install_id, first_seen_at, last_seen_at, heartbeat_count, \
             feedback_count, session_count, recent_sessions) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'ACTIVE', $11, $12, $13, $14, $15, $16, $16, \
             0, 0, 1, ARRAY[$16::timestamptz])",
        )
        .bind::<SqlUuid, _>(r.device_id.0)
        .bind::<SqlUuid, _>(r.workspace_id.0)
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
        .bind::<SqlUuid, _>(r.new_install_id.0)
        .bind::<Timestamptz, _>(r.now)
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
    if r.replaces_refresh_digest.is_some() {
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
    }
    Ok(Ok(install))
}
