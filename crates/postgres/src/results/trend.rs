//! The accepted sessions of a campaign by the local day they were completed on, for trends: the
//! whole campaign from its quarter-hour sums (migration `000030_result_slots`), a filter's group
//! from the tallies it selects.

use diesel::QueryableByName;
use diesel::sql_query;
use diesel::sql_types::{Array, BigInt, Integer, Jsonb, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::campaigns::ports::CampaignRepository as _;
use pulse_domain::ids::{CampaignId, WorkspaceId};
use pulse_domain::results::models::{
    ConditionCells, Count, DayTally, Metric, ResultsFilter, TREND_SLOT_SECS, TrendInput, trend_metrics,
};
use pulse_domain::shared::time_zone::{ZoneOffsets, epoch_day};
use std::collections::BTreeMap;

use crate::results::filters::{bind_filter, cell_mask, selected};
use crate::results::groups::condition_columns;
use crate::results::read::filter_binds;
use crate::results::rows::corrupt;
use crate::rows::count_of;
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};

#[derive(QueryableByName)]
struct DayCellRow {
    #[diesel(sql_type = BigInt)]
    day: i64,
    #[diesel(sql_type = BigInt)]
    cell: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct DayCountRow {
    #[diesel(sql_type = BigInt)]
    day: i64,
    #[diesel(sql_type = Text)]
    metric: String,
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = BigInt)]
    value: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// Table `z(start, until, off)` of a zone's offsets from `$starts` and `$offsets`: from `start`
/// until `until` (seconds since the epoch) the zone is `off` seconds ahead of UTC. A slot joins the
/// one row it falls in (a range join on a handful of rows), and its local day is then arithmetic.
macro_rules! zone {
    ($starts:literal, $offsets:literal) => {
        concat!(
            "z AS (SELECT start, lead(start, 1, 9223372036854775807) OVER (ORDER BY start) AS until, off
                   FROM unnest(",
            $starts,
            "::bigint[], ",
            $offsets,
            "::int[]) AS z(start, off))"
        )
    };
}

/// The join of slot column `$slot` (slots `$secs` long) to its row of [`zone`], and its local day
/// (days since the epoch).
macro_rules! in_zone {
    ($slot:literal, $secs:literal) => {
        concat!("JOIN z ON ", $slot, " * ", $secs, " >= z.start AND ", $slot, " * ", $secs, " < z.until")
    };
}

macro_rules! local_day {
    ($slot:literal, $secs:literal) => {
        concat!("(", $slot, " * ", $secs, " + z.off) / 86400")
    };
}

fn day_of(days_since_epoch: i64) -> std::result::Result<jiff::civil::Date, TxError> {
    epoch_day(days_since_epoch).ok_or_else(|| TxError::Domain(corrupt("day")))
}

fn tallies_of(cells: Vec<DayCellRow>, counts: Vec<DayCountRow>) -> std::result::Result<Vec<DayTally>, TxError> {
    let mut days: BTreeMap<i64, (ConditionCells, Vec<Count>)> = BTreeMap::new();
    for row in cells {
        *days.entry(row.day).or_default().0.entry(u64::try_from(row.cell).unwrap_or(0)).or_default() += count_of(row.n);
    }
    for row in counts {
        let metric = Metric::parse(&row.metric).ok_or_else(|| TxError::Domain(corrupt("metric")))?;
        days.entry(row.day).or_default().1.push(Count {
            metric,
            question_id: row.question_id,
            value: row.value,
            n: row.n,
        });
    }
    days.into_iter().map(|(day, (cells, counts))| Ok(DayTally { day: day_of(day)?, cells, counts })).collect()
}

impl PgStore {
    pub(super) async fn trend_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        offsets: &ZoneOffsets,
    ) -> Result<Option<TrendInput>> {
        let Some(overview) = self.campaign_overview(workspace, campaign).await? else { return Ok(None) };
        let mut conn = self.read_conn().await?;
        // One snapshot: the cells and the counters agree.
        let days = conn
            .build_transaction()
            .read_only()
            .repeatable_read()
            .run::<_, TxError, _>(async |conn| match filter {
                None => Self::campaign_days(conn, campaign, offsets).await,
                Some(filter) => Self::group_days(conn, campaign, filter, offsets).await,
            })
            .await?;
        Ok(Some(TrendInput { campaign: overview.campaign, survey: overview.survey, days }))
    }

    /// The campaign's days from its quarter-hour sums: a few rows per quarter hour answered in.
    async fn campaign_days(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        offsets: &ZoneOffsets,
    ) -> std::result::Result<Vec<DayTally>, TxError> {
        let counts: Vec<DayCountRow> = sql_query(concat!(
            "WITH ",
            zone!("$2", "$3"),
            " SELECT ",
            local_day!("c.slot", "$4"),
            " AS day, c.metric, c.question_id, c.value, sum(c.n)::bigint AS n
              FROM result_slot_counts c ",
            in_zone!("c.slot", "$4"),
            " WHERE c.campaign_id = $1 AND c.n <> 0 GROUP BY 1, 2, 3, 4"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<BigInt>, _>(offsets.pairs().iter().map(|p| p.0).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(offsets.pairs().iter().map(|p| p.1).collect::<Vec<_>>())
        .bind::<BigInt, _>(TREND_SLOT_SECS)
        .cached()
        .load(conn)
        .await?;
        // Without a filter, the campaign's accepted sessions are the one cell.
        let cells = counts
            .iter()
            .filter(|c| c.metric == Metric::Accepted.code())
            .map(|c| DayCellRow { day: c.day, cell: 0, n: c.n })
            .collect();
        tallies_of(cells, counts)
    }

    /// A filter's days from the tallies of the campaign's accepted sessions: linear in them.
    async fn group_days(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: &ResultsFilter,
        offsets: &ZoneOffsets,
    ) -> std::result::Result<Vec<DayTally>, TxError> {
        let conditions = filter.conditions();
        let columns: Vec<(&str, &str, &str)> = conditions.iter().map(condition_columns).collect();
        let starts: Vec<i64> = offsets.pairs().iter().map(|p| p.0).collect();
        let zone_offsets: Vec<i32> = offsets.pairs().iter().map(|p| p.1).collect();
        let cells: Vec<DayCellRow> = sql_query(concat!(
            "WITH f AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY
                        AS f(kind, name, value, i)),
                  u AS (SELECT r.completed_slot AS slot, COALESCE(r.platform, v.platform) AS platform,
                               COALESCE(r.app_version, v.app_version) AS app_version, r.tags, r.attributes
                        FROM result_sessions r LEFT JOIN app_devices v ON v.id = r.device_id
                        WHERE r.campaign_id = $1 AND r.accepted AND r.completed_slot IS NOT NULL), ",
            zone!("$5", "$6"),
            " SELECT ",
            local_day!("u.slot", "$7"),
            " AS day, ",
            cell_mask!(),
            " AS cell, count(*)::bigint AS n FROM u ",
            in_zone!("u.slot", "$7"),
            " GROUP BY 1, 2"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.0).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.1).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.2).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(&starts)
        .bind::<Array<Integer>, _>(&zone_offsets)
        .bind::<BigInt, _>(TREND_SLOT_SECS)
        .cached()
        .load(conn)
        .await?;
        let binds = filter_binds(filter);
        let metrics: Vec<String> = trend_metrics().into_iter().map(Metric::code).collect();
        let counts: Vec<DayCountRow> = bind_filter!(
            sql_query(concat!(
                "WITH ",
                zone!("$7", "$8"),
                " SELECT ",
                local_day!("r.completed_slot", "$9"),
                " AS day, e.metric, e.question_id, e.value, sum(e.n)::bigint AS n
                  FROM result_sessions r
                       CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n) ",
                in_zone!("r.completed_slot", "$9"),
                " WHERE r.campaign_id = $1 AND r.accepted AND r.completed_slot IS NOT NULL
                    AND e.metric = ANY ($6::text[]) AND ",
                selected!(),
                " GROUP BY 1, 2, 3, 4"
            )),
            campaign,
            binds
        )
        .bind::<Array<Text>, _>(&metrics)
        .bind::<Array<BigInt>, _>(&starts)
        .bind::<Array<Integer>, _>(&zone_offsets)
        .bind::<BigInt, _>(TREND_SLOT_SECS)
        .cached()
        .load(conn)
        .await?;
        tallies_of(cells, counts)
    }
}
