//! App devices, installs and app users. The heartbeats are the hottest statements of the
//! service, so each is one SQL statement: the proof, the rate and the counting in one round trip.
//! Heartbeats and registers are written in groups by `heartbeats` and `registrations`.

pub(crate) mod heartbeats;
pub(crate) mod registrations;
pub(crate) mod statements;

use diesel::pg::Pg;
use diesel::sql_types::{Bool, Bytea, Double, Nullable, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{
    BoolExpressionMethods as _, ExpressionMethods as _, IntoSql as _, JoinOnDsl as _, NullableExpressionMethods as _,
    OptionalExtension as _, QueryDsl as _, Queryable, QueryableByName, Selectable, SelectableHelper as _, dsl,
    sql_query,
};
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
use crate::schema::{app_devices, app_installs, app_users};
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

/// Read by the DSL, and by name from the raw vendor lookup ([`DEVICE_RECORD_SQL`]).
#[derive(Queryable, QueryableByName, Selectable)]
#[diesel(table_name = app_devices, check_for_backend(Pg))]
struct DeviceRecordRow {
    id: Uuid,
    workspace_id: Uuid,
    status: String,
    refresh_digest: Vec<u8>,
    refresh_expires_at: OffsetDateTime,
    user_id: Option<Uuid>,
    #[diesel(
        sql_type = Nullable<Bool>,
        select_expression = app_users::has_external_id.nullable(),
        select_expression_type = dsl::Nullable<app_users::has_external_id>
    )]
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

#[derive(Queryable)]
struct AttributionRow {
    id: Uuid,
    user_id: Option<Uuid>,
    identity: String,
    install_id: Option<Uuid>,
}

/// The activity columns, alike in `app_devices` and `app_installs`, selected as a nested tuple.
#[derive(Queryable)]
struct ActivityRow {
    first_seen_at: OffsetDateTime,
    last_seen_at: OffsetDateTime,
    heartbeat_count: i64,
    feedback_count: i64,
    session_count: i64,
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

#[derive(Queryable)]
struct DeviceViewRow {
    position: i64,
    id: Uuid,
    user_id: Option<Uuid>,
    identity: String,
    has_email: bool,
    has_phone: bool,
    app_id: String,
    app_version: String,
    platform: String,
    device_model: Option<String>,
    os_version: Option<String>,
    locale: Option<String>,
    metadata: Option<serde_json::Value>,
    status: String,
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

#[derive(Queryable)]
struct InstallViewRow {
    position: i64,
    id: Uuid,
    campaign_id: Uuid,
    device_id: Uuid,
    user_id: Option<Uuid>,
    identity: String,
    has_email: bool,
    has_phone: bool,
    app_id: String,
    platform: String,
    app_version: String,
    device_model: Option<String>,
    os_version: Option<String>,
    locale: Option<String>,
    status: String,
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
        let row: Option<DeviceRecordRow> = app_devices::table
            .left_join(app_users::table)
            .filter(app_devices::id.eq(id.0))
            .filter(app_devices::workspace_id.eq(workspace.0))
            .select(DeviceRecordRow::as_select())
            .get_result(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(DeviceRecordRow::into_domain).transpose()
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
        let verified: Option<bool> = app_users::table
            .filter(app_users::id.eq(id.0))
            .filter(app_users::workspace_id.eq(workspace.0))
            .select(app_users::verified)
            .get_result(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        Ok(verified.map(|verified| AppUserRecord { id, verified }))
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
        let device = app_installs::table.find(beat.install_id.0).select(app_installs::device_id);
        app_devices::table
            .filter(app_devices::id.nullable().eq(device.single_value()))
            .select(app_devices::id)
            .for_no_key_update()
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
        let active = app_devices::table
            .left_join(
                app_installs::table
                    .on(app_installs::device_id.eq(app_devices::id).and(app_installs::campaign_id.eq(campaign.0))),
            )
            .filter(app_devices::workspace_id.eq(workspace.0))
            .filter(app_devices::status.eq(DeviceStatus::Active.as_str()))
            .select((app_devices::id, app_devices::user_id, app_devices::identity, app_installs::id.nullable()));
        let mut conn = self.conn().await?;
        let row: Option<AttributionRow> = match key {
            AttributionKey::Device(id) => active.filter(app_devices::id.eq(id.0)).get_result(&mut conn).await,
            AttributionKey::Install(id) => {
                let install = diesel::alias!(app_installs as install);
                let device = install
                    .filter(install.field(app_installs::id).eq(id.0))
                    .filter(install.field(app_installs::campaign_id).eq(campaign.0))
                    .select(install.field(app_installs::device_id));
                active.filter(app_devices::id.nullable().eq(device.single_value())).get_result(&mut conn).await
            }
        }
        .optional()
        .map_err(from_diesel)?;
        row.map(|r| {
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
        let rows: Vec<DeviceViewRow> = app_devices::table
            .left_join(app_users::table)
            .filter(app_devices::workspace_id.eq(workspace.0))
            .filter(app_id.into_sql::<Nullable<Text>>().is_null().or(app_devices::app_id.nullable().eq(app_id)))
            .filter(app_devices::position.gt(page.after.map_or(0, |k| k.position)))
            .order(app_devices::position)
            .limit(i64::from(page.limit) + 1)
            .select((
                app_devices::position,
                app_devices::id,
                app_devices::user_id,
                app_devices::identity,
                app_users::email_sealed.nullable().is_not_null(),
                app_users::phone_sealed.nullable().is_not_null(),
                app_devices::app_id,
                app_devices::app_version,
                app_devices::platform,
                app_devices::device_model,
                app_devices::os_version,
                app_devices::locale,
                app_devices::metadata,
                app_devices::status,
                (
                    app_devices::first_seen_at,
                    app_devices::last_seen_at,
                    app_devices::heartbeat_count,
                    app_devices::feedback_count,
                    app_devices::session_count,
                    app_devices::recent_sessions,
                ),
            ))
            .load(&mut self.read_conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(DeviceViewRow::into_domain).collect()
    }

    async fn list_installs(&self, campaign: CampaignId, page: &PageRequest) -> Result<Vec<InstallView>> {
        // No foreign key declares an install's device (migration 000023 dropped it): the join names it.
        let rows: Vec<InstallViewRow> = app_installs::table
            .inner_join(app_devices::table.on(app_devices::id.eq(app_installs::device_id)))
            .left_join(app_users::table.on(app_users::id.nullable().eq(app_devices::user_id)))
            .filter(app_installs::campaign_id.eq(campaign.0))
            .filter(app_installs::position.gt(page.after.map_or(0, |k| k.position)))
            .order(app_installs::position)
            .limit(i64::from(page.limit) + 1)
            .select((
                app_installs::position,
                app_installs::id,
                app_installs::campaign_id,
                app_installs::device_id,
                app_devices::user_id,
                app_devices::identity,
                app_users::email_sealed.nullable().is_not_null(),
                app_users::phone_sealed.nullable().is_not_null(),
                app_installs::app_id,
                app_installs::platform,
                app_installs::app_version,
                app_installs::device_model,
                app_installs::os_version,
                app_installs::locale,
                app_devices::status,
                (
                    app_installs::first_seen_at,
                    app_installs::last_seen_at,
                    app_installs::heartbeat_count,
                    app_installs::feedback_count,
                    app_installs::session_count,
                    app_installs::recent_sessions,
                ),
            ))
            .load(&mut self.read_conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(InstallViewRow::into_domain).collect()
    }

    async fn set_device_status(&self, id: DeviceId, status: DeviceStatus) -> Result<bool> {
        let updated = diesel::update(app_devices::table.find(id.0))
            .set(app_devices::status.eq(status.as_str()))
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
