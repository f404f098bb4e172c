//! App devices, installs and app users. The heartbeats are the hottest statements of the
//! service, so each is one SQL statement: the proof, the rate and the counting in one round trip.
//! Heartbeats and registers are written in groups by `heartbeats` and `registrations`.

pub(crate) mod heartbeats;
pub(crate) mod registrations;
pub(crate) mod statements;

use diesel::sql_types::{Array, BigInt, Bool, Bytea, Double, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::apps::models::{
    APP_SESSION_GAP, Activity, AppPlatform, AppUserRecord, Attribution, AttributionKey, BeatOutcome, DeviceBeat,
    DeviceRecord, DeviceRegistration, DeviceStatus, DeviceView, Identity, InstallBeat, InstallView,
};
use pulse_domain::apps::ports::AppRepository;
use pulse_domain::ids::{AppInstallId, AppUserId, CampaignId, DeviceId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::apps::heartbeats::DeviceBeats;
use crate::apps::registrations::Registrations;
use crate::apps::statements::{BeatRow, rate_params, seen_sql};
use crate::error::from_diesel;
use crate::rows::{self, count_of as count};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};

fn corrupt(what: &str) -> Error {
    rows::corrupt("app", what)
}

fn status(text: &str) -> Result<DeviceStatus> {
    DeviceStatus::parse(text).ok_or_else(|| corrupt("status"))
}

fn identity(text: &str) -> Result<Identity> {
    Identity::parse(text).ok_or_else(|| corrupt("identity"))
}

#[derive(QueryableByName)]
struct DeviceRecordRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    workspace_id: Uuid,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(sql_type = Bytea)]
    refresh_digest: Vec<u8>,
    #[diesel(sql_type = Timestamptz)]
    refresh_expires_at: OffsetDateTime,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    user_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<Bool>)]
    user_has_external_id: Option<bool>,
}

impl DeviceRecordRow {
    fn into_domain(self) -> Result<DeviceRecord> {
        Ok(DeviceRecord {
            id: DeviceId(self.id),
            workspace_id: WorkspaceId(self.workspace_id),
            status: status(&self.status)?,
            refresh_digest: self.refresh_digest,
            refresh_expires_at: self.refresh_expires_at,
            user: self.user_id.map(|u| (AppUserId(u), self.user_has_external_id.unwrap_or(false))),
        })
    }
}

const DEVICE_RECORD_SQL: &str = "SELECT d.id, d.workspace_id, d.status, d.refresh_digest, d.refresh_expires_at, \
     d.user_id, u.has_external_id AS user_has_external_id \
     FROM app_devices d LEFT JOIN app_users u ON u.id = d.user_id";

/// The device with a vendor id (`$3`) in an app (`$2`) of a workspace (`$1`).
///
/// The workspace is compared with `IS NOT DISTINCT FROM`, which no index serves, so that the
/// vendor index is the only one that can answer: a plan cached while the table was small and had
/// no statistics otherwise walked the workspace's devices (migration `…000018_app_devices_vendor_first`).
pub(crate) fn device_by_vendor_sql() -> String {
    format!(
        "{DEVICE_RECORD_SQL} WHERE d.vendor_digest = $3 AND d.app_id = $2 AND d.workspace_id IS NOT DISTINCT FROM $1"
    )
}

#[derive(QueryableByName)]
struct VerifiedRow {
    #[diesel(sql_type = Bool)]
    verified: bool,
}

#[derive(QueryableByName)]
struct AttributionRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    user_id: Option<Uuid>,
    #[diesel(sql_type = Text)]
    identity: String,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    install_id: Option<Uuid>,
}

/// The activity columns, alike in `app_devices` and `app_installs`.
#[derive(QueryableByName)]
struct ActivityRow {
    #[diesel(sql_type = Timestamptz)]
    first_seen_at: OffsetDateTime,
    #[diesel(sql_type = Timestamptz)]
    last_seen_at: OffsetDateTime,
    #[diesel(sql_type = BigInt)]
    heartbeat_count: i64,
    #[diesel(sql_type = BigInt)]
    feedback_count: i64,
    #[diesel(sql_type = BigInt)]
    session_count: i64,
    #[diesel(sql_type = Array<Timestamptz>)]
    recent_sessions: Vec<OffsetDateTime>,
}

impl ActivityRow {
    fn into_domain(self) -> Activity {
        Activity {
            first_seen_at: self.first_seen_at,
            last_seen_at: self.last_seen_at,
            heartbeat_count: count(self.heartbeat_count),
            feedback_count: count(self.feedback_count),
            session_count: count(self.session_count),
            recent_sessions: self.recent_sessions,
        }
    }
}

#[derive(QueryableByName)]
struct DeviceViewRow {
    #[diesel(sql_type = BigInt)]
    position: i64,
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    user_id: Option<Uuid>,
    #[diesel(sql_type = Text)]
    identity: String,
    #[diesel(sql_type = Bool)]
    has_email: bool,
    #[diesel(sql_type = Bool)]
    has_phone: bool,
    #[diesel(sql_type = Text)]
    app_id: String,
    #[diesel(sql_type = Text)]
    app_version: String,
    #[diesel(sql_type = Text)]
    platform: String,
    #[diesel(sql_type = Nullable<Text>)]
    device_model: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    os_version: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    locale: Option<String>,
    #[diesel(sql_type = Nullable<Jsonb>)]
    metadata: Option<serde_json::Value>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(embed)]
    activity: ActivityRow,
}

impl DeviceViewRow {
    fn into_domain(self) -> Result<DeviceView> {
        Ok(DeviceView {
            position: self.position,
            device_id: DeviceId(self.id),
            user_id: self.user_id.map(AppUserId),
            identity: identity(&self.identity)?,
            has_email: self.has_email,
            has_phone: self.has_phone,
            app_id: self.app_id,
            app_version: self.app_version,
            platform: AppPlatform::parse(&self.platform).ok_or_else(|| corrupt("platform"))?,
            device_model: self.device_model,
            os_version: self.os_version,
            locale: self.locale,
            metadata: match self.metadata {
                Some(serde_json::Value::Object(map)) => Some(map),
                _ => None,
            },
            status: status(&self.status)?,
            activity: self.activity.into_domain(),
        })
    }
}

#[derive(QueryableByName)]
struct InstallViewRow {
    #[diesel(sql_type = BigInt)]
    position: i64,
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    campaign_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    device_id: Uuid,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    user_id: Option<Uuid>,
    #[diesel(sql_type = Text)]
    identity: String,
    #[diesel(sql_type = Bool)]
    has_email: bool,
    #[diesel(sql_type = Bool)]
    has_phone: bool,
    #[diesel(sql_type = Text)]
    app_id: String,
    #[diesel(sql_type = Text)]
    platform: String,
    #[diesel(sql_type = Text)]
    app_version: String,
    #[diesel(sql_type = Nullable<Text>)]
    device_model: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    os_version: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    locale: Option<String>,
    #[diesel(sql_type = Text)]
    status: String,
    #[diesel(embed)]
    activity: ActivityRow,
}

impl InstallViewRow {
    fn into_domain(self) -> Result<InstallView> {
        Ok(InstallView {
            position: self.position,
            id: AppInstallId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            device_id: DeviceId(self.device_id),
            user_id: self.user_id.map(AppUserId),
            identity: identity(&self.identity)?,
            has_email: self.has_email,
            has_phone: self.has_phone,
            app_id: self.app_id,
            platform: AppPlatform::parse(&self.platform).ok_or_else(|| corrupt("platform"))?,
            app_version: self.app_version,
            device_model: self.device_model,
            os_version: self.os_version,
            locale: self.locale,
            status: status(&self.status)?,
            activity: self.activity.into_domain(),
        })
    }
}

/// Two registers claiming one vendor id at once: the later one is told to register again.
impl AppRepository for PgStore {
    async fn find_device(&self, workspace: WorkspaceId, id: DeviceId) -> Result<Option<DeviceRecord>> {
        let rows: Vec<DeviceRecordRow> =
            sql_query(format!("{DEVICE_RECORD_SQL} WHERE d.id = $1 AND d.workspace_id = $2"))
                .bind::<SqlUuid, _>(id.0)
                .bind::<SqlUuid, _>(workspace.0)
                .cached()
                .load(&mut self.conn().await?)
                .await
                .map_err(from_diesel)?;
        rows.into_iter().next().map(DeviceRecordRow::into_domain).transpose()
    }

    async fn find_device_by_vendor(
        &self,
        workspace: WorkspaceId,
        app_id: &str,
        vendor_digest: &[u8],
    ) -> Result<Option<DeviceRecord>> {
        let rows: Vec<DeviceRecordRow> = sql_query(device_by_vendor_sql())
            .bind::<SqlUuid, _>(workspace.0)
            .bind::<Text, _>(app_id)
            .bind::<Bytea, _>(vendor_digest)
            .cached()
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().next().map(DeviceRecordRow::into_domain).transpose()
    }

    async fn find_app_user(&self, workspace: WorkspaceId, id: AppUserId) -> Result<Option<AppUserRecord>> {
        let rows: Vec<VerifiedRow> = sql_query("SELECT verified FROM app_users WHERE id = $1 AND workspace_id = $2")
            .bind::<SqlUuid, _>(id.0)
            .bind::<SqlUuid, _>(workspace.0)
            .cached()
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().next().map(|r| AppUserRecord { id, verified: r.verified }))
    }

    async fn save_registration(&self, r: &DeviceRegistration) -> Result<AppInstallId> {
        self.writer::<Registrations>()?.submit(r.clone()).await?
    }

    async fn beat_device(&self, beat: &DeviceBeat) -> Result<BeatOutcome> {
        self.writer::<DeviceBeats>()?.submit(beat.clone()).await
    }

    async fn beat_install(&self, beat: &InstallBeat) -> Result<BeatOutcome> {
        let (limit_at, interval) = rate_params(beat.rate, beat.now);
        let mut conn = self.conn().await?;
        let result = conn
            .transaction::<_, TxError, _>(async |conn| {
        // Devices are locked before their installs everywhere (register, v2), so a v1 beat locks
        // the device first: the price of v1 is a second statement.
        sql_query(
            "SELECT id FROM app_devices WHERE id = (SELECT device_id FROM app_installs WHERE id = $1) \
             FOR NO KEY UPDATE",
        )
        .bind::<SqlUuid, _>(beat.install_id.0).cached()
        .execute(conn)
        .await?;
        let rows: Vec<BeatRow> = sql_query(concat!(
            "WITH cur AS (SELECT i.id, i.device_id, i.campaign_id, dev.workspace_id, dev.refresh_expires_at, ",
            "GREATEST(COALESCE(i.heartbeat_tat, $3), $3) AS start, ",
            "($4::timestamptz IS NULL OR GREATEST(COALESCE(i.heartbeat_tat, $3), $3) <= $4) AS allowed ",
            "FROM app_installs i JOIN app_devices dev ON dev.id = i.device_id ",
            "WHERE i.id = $1 AND i.campaign_id = $2 AND dev.status = 'ACTIVE' FOR NO KEY UPDATE OF i), ",
            "i AS (UPDATE app_installs AS i SET heartbeat_tat = CASE WHEN $4::timestamptz IS NULL THEN i.heartbeat_tat ",
            "ELSE cur.start + make_interval(secs => $5) END, ",
            "heartbeat_count = i.heartbeat_count + 1, app_version = COALESCE($7, i.app_version), ",
            "os_version = COALESCE($8, i.os_version), locale = COALESCE($9, i.locale), ",
            seen_sql!("i", "$3", "$6"),
            " FROM cur WHERE i.id = cur.id AND cur.allowed RETURNING i.id), ",
            "d AS (UPDATE app_devices AS d SET heartbeat_count = d.heartbeat_count + 1, ",
            "app_version = COALESCE($7, d.app_version), os_version = COALESCE($8, d.os_version), ",
            "locale = COALESCE($9, d.locale), ",
            seen_sql!("d", "$3", "$6"),
            " FROM cur WHERE d.id = cur.device_id AND cur.allowed RETURNING d.id) ",
            "SELECT cur.device_id, cur.workspace_id, cur.refresh_expires_at, cur.start, cur.allowed, ",
            "cur.id AS install_id, cur.campaign_id FROM cur"
        ))
        .bind::<SqlUuid, _>(beat.install_id.0)
        .bind::<SqlUuid, _>(beat.campaign_id.0)
        .bind::<Timestamptz, _>(beat.now)
        .bind::<Nullable<Timestamptz>, _>(limit_at)
        .bind::<Double, _>(interval)
        .bind::<Timestamptz, _>(beat.now - APP_SESSION_GAP)
        .bind::<Nullable<Text>, _>(beat.facts.app_version.as_deref())
        .bind::<Nullable<Text>, _>(beat.facts.os_version.as_deref())
        .bind::<Nullable<Text>, _>(beat.facts.locale.as_deref()).cached()
        .load(conn)
        .await?;
        Ok(BeatRow::outcome(rows.into_iter().next(), beat.now, beat.rate))
            })
            .await;
        Ok(result?)
    }

    async fn attribution(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        key: AttributionKey,
    ) -> Result<Option<Attribution>> {
        let (device_sql, id) = match key {
            AttributionKey::Device(id) => ("$3", id.0),
            AttributionKey::Install(id) => {
                ("(SELECT device_id FROM app_installs WHERE id = $3 AND campaign_id = $2)", id.0)
            }
        };
        let rows: Vec<AttributionRow> = sql_query(format!(
            "SELECT d.id, d.user_id, d.identity, i.id AS install_id FROM app_devices d \
             LEFT JOIN app_installs i ON i.device_id = d.id AND i.campaign_id = $2 \
             WHERE d.workspace_id = $1 AND d.status = 'ACTIVE' AND d.id = {device_sql}"
        ))
        .bind::<SqlUuid, _>(workspace.0)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<SqlUuid, _>(id)
        .cached()
        .load(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        rows.into_iter()
            .next()
            .map(|r| {
                Ok(Attribution {
                    device_id: DeviceId(r.id),
                    user_id: r.user_id.map(AppUserId),
                    identity: identity(&r.identity)?,
                    install_id: r.install_id.map(AppInstallId),
                })
            })
            .transpose()
    }

    async fn list_devices(
        &self,
        workspace: WorkspaceId,
        app_id: Option<&str>,
        page: &PageRequest,
    ) -> Result<Vec<DeviceView>> {
        let rows: Vec<DeviceViewRow> = sql_query(
            "SELECT d.position, d.id, d.user_id, d.identity, u.email_sealed IS NOT NULL AS has_email, \
             u.phone_sealed IS NOT NULL AS has_phone, d.app_id, d.app_version, d.platform, d.device_model, \
             d.os_version, d.locale, d.metadata, d.status, d.first_seen_at, d.last_seen_at, d.heartbeat_count, \
             d.feedback_count, d.session_count, d.recent_sessions \
             FROM app_devices d LEFT JOIN app_users u ON u.id = d.user_id \
             WHERE d.workspace_id = $1 AND ($2::text IS NULL OR d.app_id = $2) \
             AND d.position > $3 ORDER BY d.position LIMIT $4",
        )
        .bind::<SqlUuid, _>(workspace.0)
        .bind::<Nullable<Text>, _>(app_id)
        .bind::<BigInt, _>(page.after.map_or(0, |k| k.position))
        .bind::<BigInt, _>(i64::from(page.limit) + 1)
        .cached()
        .load(&mut self.read_conn().await?)
        .await
        .map_err(from_diesel)?;
        rows.into_iter().map(DeviceViewRow::into_domain).collect()
    }

    async fn list_installs(&self, campaign: CampaignId, page: &PageRequest) -> Result<Vec<InstallView>> {
        let rows: Vec<InstallViewRow> = sql_query(
            "SELECT i.position, i.id, i.campaign_id, i.device_id, d.user_id, d.identity, \
             u.email_sealed IS NOT NULL AS has_email, u.phone_sealed IS NOT NULL AS has_phone, i.app_id, \
             i.platform, i.app_version, i.device_model, i.os_version, i.locale, d.status, i.first_seen_at, \
             i.last_seen_at, i.heartbeat_count, i.feedback_count, i.session_count, i.recent_sessions \
             FROM app_installs i JOIN app_devices d ON d.id = i.device_id \
             LEFT JOIN app_users u ON u.id = d.user_id \
             WHERE i.campaign_id = $1 AND i.position > $2 ORDER BY i.position LIMIT $3",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<BigInt, _>(page.after.map_or(0, |k| k.position))
        .bind::<BigInt, _>(i64::from(page.limit) + 1)
        .cached()
        .load(&mut self.read_conn().await?)
        .await
        .map_err(from_diesel)?;
        rows.into_iter().map(InstallViewRow::into_domain).collect()
    }

    async fn set_device_status(&self, id: DeviceId, status: DeviceStatus) -> Result<bool> {
        let updated = sql_query("UPDATE app_devices SET status = $2 WHERE id = $1")
            .bind::<SqlUuid, _>(id.0)
            .bind::<Text, _>(status.as_str())
            .cached()
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(updated == 1)
    }
}

#[cfg(test)]
mod tests {
    use diesel::sql_types::Text;
    use diesel::{QueryableByName, sql_query};
    use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection as _};

    use super::device_by_vendor_sql;
    use crate::apps::registrations::RELEASE_VENDOR_SQL;
    use crate::test_db::{ONE_WORKSPACE, TestDatabase};

    #[derive(QueryableByName)]
    struct PlanLine {
        #[diesel(sql_type = Text, column_name = "QUERY PLAN")]
        line: String,
    }

    /// Fifty devices of one app in [`ONE_WORKSPACE`], and no statistics: the state in which a cached
    /// plan of the vendor lookups walked the workspace's devices in position order.
    const FEW_DEVICES_NO_STATISTICS: &str = "\
        INSERT INTO app_devices (id, workspace_id, app_id, platform, app_version, status, refresh_digest, \
        refresh_expires_at, identity, latest_install_id, first_seen_at, last_seen_at, heartbeat_count, \
        feedback_count, session_count, recent_sessions, vendor_digest) \
        SELECT gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'com.example', 'ios', '1', 'ACTIVE', \
        sha256(i::text::bytea), now() + interval '1 day', 'anonymous', gen_random_uuid(), now(), now(), 0, 0, 1, \
        ARRAY[now()], sha256(('vendor' || i)::bytea) FROM generate_series(1, 50) AS i;";

    /// The plan a connection caches for `statement` after its fifth run (a generic plan).
    async fn generic_plan(conn: &mut AsyncPgConnection, statement: &str, types: &str, args: &str) -> String {
        conn.batch_execute(&format!(
            "SET plan_cache_mode = force_generic_plan; PREPARE under_test ({types}) AS {statement}"
        ))
        .await
        .expect("prepared");
        let plan: Vec<PlanLine> =
            sql_query(format!("EXPLAIN EXECUTE under_test ({args})")).load(conn).await.expect("a plan");
        conn.batch_execute("DEALLOCATE under_test").await.expect("deallocated");
        plan.into_iter().map(|p| p.line).collect::<Vec<_>>().join("\n")
    }

    #[tokio::test]
    async fn the_vendor_lookups_use_the_vendor_index_before_the_table_has_statistics() {
        let database = TestDatabase::create().await;
        let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        conn.batch_execute(ONE_WORKSPACE).await.expect("a workspace");
        conn.batch_execute(FEW_DEVICES_NO_STATISTICS).await.expect("seeded");
        let workspace = "'00000000-0000-0000-0000-00000000000a'";
        let lookup = generic_plan(
            &mut conn,
            &device_by_vendor_sql(),
            "uuid, text, bytea",
            &format!("{workspace}, 'com.example', sha256('vendor7')"),
        )
        .await;
        assert!(lookup.contains("Index Scan using app_devices_vendor on app_devices"), "{lookup}");
        let release = generic_plan(
            &mut conn,
            RELEASE_VENDOR_SQL,
            "uuid, text, bytea, uuid",
            &format!("{workspace}, 'com.example', sha256('vendor7'), gen_random_uuid()"),
        )
        .await;
        assert!(release.contains("Index Scan using app_devices_vendor on app_devices"), "{release}");
    }
}
