//! What the apps' statements share: the app-session counting fragment, the rows a heartbeat or a
//! register reads back, the heartbeat rate's parameters, and the feedback count a start adds.

use diesel::sql_types::{Bool, Nullable, Timestamptz, Uuid as SqlUuid};
use diesel::{ExpressionMethods as _, QueryDsl as _, QueryableByName};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::apps::models::{Attribution, BeatOutcome, BeatRecord, HeartbeatRate};
use pulse_domain::ids::{AppInstallId, CampaignId, DeviceId, WorkspaceId};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::schema::{app_devices, app_installs};

/// Keeps the newest ten ([`pulse_domain::apps::models::RECENT_SESSIONS`]) app-session starts; `$now` and
/// `$gap_start` are the statement's parameters, `t` the row being counted.
macro_rules! seen_sql {
    ($t:literal, $now:literal, $gap_start:literal) => {
        concat!(
            "session_count = ",
            $t,
            ".session_count + CASE WHEN ",
            $t,
            ".last_seen_at < ",
            $gap_start,
            " THEN 1 ELSE 0 END, ",
            "recent_sessions = CASE WHEN ",
            $t,
            ".last_seen_at < ",
            $gap_start,
            " THEN (ARRAY[",
            $now,
            "::timestamptz] || ",
            $t,
            ".recent_sessions)[1:10] ELSE ",
            $t,
            ".recent_sessions END, ",
            "last_seen_at = GREATEST(",
            $t,
            ".last_seen_at, ",
            $now,
            ")"
        )
    };
}
pub(crate) use seen_sql;

#[derive(QueryableByName)]
pub(crate) struct BeatRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) device_id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    workspace_id: Uuid,
    #[diesel(sql_type = Timestamptz)]
    refresh_expires_at: OffsetDateTime,
    #[diesel(sql_type = Timestamptz)]
    start: OffsetDateTime,
    #[diesel(sql_type = Bool)]
    allowed: bool,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    install_id: Option<Uuid>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    campaign_id: Option<Uuid>,
}

impl BeatRow {
    pub(crate) fn outcome(row: Option<Self>, now: OffsetDateTime, rate: Option<HeartbeatRate>) -> BeatOutcome {
        let Some(row) = row else { return BeatOutcome::Refused };
        if let (false, Some(rate)) = (row.allowed, rate) {
            return BeatOutcome::RateLimited { retry_after: row.start - (now + rate.tolerance()) };
        }
        BeatOutcome::Beat(BeatRecord {
            device_id: DeviceId(row.device_id),
            workspace_id: WorkspaceId(row.workspace_id),
            install: row.install_id.zip(row.campaign_id).map(|(i, c)| (AppInstallId(i), CampaignId(c))),
            refresh_expires_at: row.refresh_expires_at,
        })
    }
}

// `seen_sql!` keeps ten app-session starts; the domain's constant must agree.
const _: () = assert!(pulse_domain::apps::models::RECENT_SESSIONS == 10);

/// Counts a started respondent session on its device and install (inside the start's transaction).
pub(crate) async fn count_feedback(
    conn: &mut AsyncPgConnection,
    attribution: &Attribution,
) -> std::result::Result<(), diesel::result::Error> {
    diesel::update(app_devices::table.find(attribution.device_id.0))
        .set(app_devices::feedback_count.eq(app_devices::feedback_count + 1))
        .execute(conn)
        .await?;
    if let Some(install) = attribution.install_id {
        diesel::update(app_installs::table.find(install.0))
            .set(app_installs::feedback_count.eq(app_installs::feedback_count + 1))
            .execute(conn)
            .await?;
    }
    Ok(())
}

/// The rate's parameters in SQL: the latest theoretical arrival time that still admits a beat
/// (null admits every beat) and the interval in seconds.
pub(crate) fn rate_params(rate: Option<HeartbeatRate>, now: OffsetDateTime) -> (Option<OffsetDateTime>, f64) {
    rate.map_or((None, 0.0), |r| (Some(now + r.tolerance()), r.interval.as_seconds_f64()))
}
