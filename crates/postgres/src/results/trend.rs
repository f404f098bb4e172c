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
use pulse_domain::shared::time_zone::ZoneOffsets;
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

/// Table `z(start, off)` of a zone's offsets from `$starts` and `$offsets`, and table `d(slot, day)`
/// giving each slot of table `$from` its local day (days since the epoch), each slot `$secs` long.
macro_rules! local_days {
    ($starts:literal, $offsets:literal, $secs:literal, $from:literal) => {
        concat!(
            "z AS (SELECT * FROM unnest(",
            $starts,
            "::bigint[], ",
            $offsets,
            "::int[]) AS z(start, off)),
             d AS (SELECT s.slot, (s.slot * ",
            $secs,
            " + (SELECT z.off FROM z WHERE z.start <= s.slot * ",
            $secs,
            " ORDER BY z.start DESC LIMIT 1)) / 86400 AS day
                   FROM (SELECT DISTINCT slot FROM ",
            $from,
            ") s)"
        )
    };
}

fn day_of(days_since_epoch: i64) -> std::result::Result<jiff::civil::Date, TxError> {
    jiff::civil::date(1970, 1, 1)
        .checked_add(jiff::Span::new().days(days_since_epoch))
        .map_err(|_| TxError::Domain(corrupt("day")))
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
            "WITH c AS (SELECT slot, metric, question_id, value, n FROM result_slot_counts
                        WHERE campaign_id = $1 AND n <> 0), ",
            local_days!("$2", "$3", "$4", "c"),
            " SELECT d.day, c.metric, c.question_id, c.value, sum(c.n)::bigint AS n
              FROM c JOIN d USING (slot) GROUP BY 1, 2, 3, 4 ORDER BY 1"
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
                        WHERE r.campaign_id = $1 AND r.accepted AND r.completed_slot IS NOT NULL),
                  m AS (SELECT u.slot, ",
            cell_mask!(),
            " AS cell FROM u), ",
            local_days!("$5", "$6", "$7", "m"),
            " SELECT d.day, m.cell, count(*)::bigint AS n FROM m JOIN d USING (slot)
              GROUP BY 1, 2 ORDER BY 1, 2"
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
                "WITH c AS (SELECT r.completed_slot AS slot, e.metric, e.question_id, e.value, e.n
                            FROM result_sessions r
                                 CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns)
                                 AS e(metric, question_id, value, n)
                            WHERE r.campaign_id = $1 AND r.accepted AND r.completed_slot IS NOT NULL
                              AND e.metric = ANY ($6::text[]) AND ",
                selected!(),
                "), ",
                local_days!("$7", "$8", "$9", "c"),
                " SELECT d.day, c.metric, c.question_id, c.value, sum(c.n)::bigint AS n
                  FROM c JOIN d USING (slot) GROUP BY 1, 2, 3, 4 ORDER BY 1"
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
