//! The accepted sessions of a campaign by the local day they were completed on, for trends: from
//! the quarter-hour sums kept per UTC day for the campaign and for each segment (migration
//! `000033_result_day_sums`), plus the sessions in no segment one by one.

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

use crate::results::filters::{bind_filter, cell_mask, segment_selected, selected, unsegmented};
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

/// The local days that row `$row` of day sums (columns `day`, days since the epoch, and `upto`,
/// the running sums of its 96 quarter hours) holds part of, as rows `p(day, n)`. The UTC day is cut
/// where the zone's offset changes ([`zone`]) and at the local midnight within each piece; a part's
/// sum is the difference of the running sums at its ends (a quarter hour belongs where it starts).
macro_rules! local_parts {
    ($row:literal) => {
        concat!(
            " JOIN z ON z.start < (",
            $row,
            ".day + 1) * 86400 AND z.until > ",
            $row,
            ".day * 86400
              CROSS JOIN LATERAL (SELECT greatest(",
            $row,
            ".day * 86400, z.start) AS lo,
                                         least((",
            $row,
            ".day + 1) * 86400, z.until) AS hi) b
              CROSS JOIN LATERAL (SELECT least(((b.lo + z.off) / 86400 + 1) * 86400 - z.off, b.hi) AS mid) m
              CROSS JOIN LATERAL (VALUES (b.lo, m.mid), (m.mid, b.hi)) AS part(a, e)
              CROSS JOIN LATERAL (SELECT (part.a + z.off) / 86400 AS day,
                  COALESCE(",
            $row,
            ".upto[((part.e - ",
            $row,
            ".day * 86400 + 899) / 900)::int], 0)
                  - COALESCE(",
            $row,
            ".upto[((part.a - ",
            $row,
            ".day * 86400 + 899) / 900)::int], 0) AS n) p"
        )
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

    /// The campaign's days from its day sums: a few rows per day answered on, whatever the
    /// sessions.
    async fn campaign_days(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        offsets: &ZoneOffsets,
    ) -> std::result::Result<Vec<DayTally>, TxError> {
        let counts: Vec<DayCountRow> = sql_query(concat!(
            "WITH ",
            zone!("$2", "$3"),
            " SELECT p.day, c.metric, c.question_id, c.value, sum(p.n)::bigint AS n
              FROM result_day_counts c ",
            local_parts!("c"),
            " WHERE c.campaign_id = $1 AND c.upto[96] <> 0 AND p.n <> 0 GROUP BY 1, 2, 3, 4"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<BigInt>, _>(offsets.pairs().iter().map(|p| p.0).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(offsets.pairs().iter().map(|p| p.1).collect::<Vec<_>>())
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

    /// A filter's days: the cells from every segment's day sums and the sessions in no segment, the
    /// counters from the day sums of the segments it selects and its sessions in no segment.
    /// Linear in the campaign's segments and days, and in its sessions in no segment.
    async fn group_days(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: &ResultsFilter,
        offsets: &ZoneOffsets,
    ) -> std::result::Result<Vec<DayTally>, TxError> {
        let conditions = filter.conditions();
        let columns: Vec<(&str, &str, &str)> = conditions.iter().map(condition_columns).collect();
        let kinds: Vec<&str> = columns.iter().map(|c| c.0).collect();
        let names: Vec<&str> = columns.iter().map(|c| c.1).collect();
        let values: Vec<&str> = columns.iter().map(|c| c.2).collect();
        let starts: Vec<i64> = offsets.pairs().iter().map(|p| p.0).collect();
        let zone_offsets: Vec<i32> = offsets.pairs().iter().map(|p| p.1).collect();
        let mut cells: Vec<DayCellRow> = sql_query(concat!(
            "WITH f AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY
                        AS f(kind, name, value, i)), ",
            zone!("$5", "$6"),
            ", u AS (SELECT s.language, s.platform, s.app_version, s.tags, s.attributes, c.day, c.upto
                     FROM result_segments s JOIN result_segment_day_counts c ON c.segment_id = s.id
                     WHERE s.campaign_id = $1 AND c.metric = 'accepted' AND c.question_id = '' AND c.value = 0
                       AND c.upto[96] <> 0)
             SELECT p.day, ",
            cell_mask!(),
            " AS cell, sum(p.n)::bigint AS n FROM u ",
            local_parts!("u"),
            " WHERE p.n <> 0 GROUP BY 1, 2"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(&kinds)
        .bind::<Array<Text>, _>(&names)
        .bind::<Array<Text>, _>(&values)
        .bind::<Array<BigInt>, _>(&starts)
        .bind::<Array<Integer>, _>(&zone_offsets)
        .cached()
        .load(conn)
        .await?;
        let everyone = filter_binds(&ResultsFilter::default());
        cells.extend(
            bind_filter!(
                sql_query(concat!(
                    "WITH f AS (SELECT * FROM unnest($7::text[], $8::text[], $9::text[]) WITH ORDINALITY
                                AS f(kind, name, value, i)),
                          u AS (SELECT r.completed_slot AS slot, r.language, COALESCE(r.platform, d.platform) AS platform,
                                       COALESCE(r.app_version, d.app_version) AS app_version, r.tags, r.attributes
                                FROM result_sessions r LEFT JOIN app_devices d ON d.id = r.device_id
                                WHERE r.accepted AND r.completed_slot IS NOT NULL AND ",
                    unsegmented!(),
                    "), ",
                    zone!("$10", "$11"),
                    " SELECT ",
                    local_day!("u.slot", "$12"),
                    " AS day, ",
                    cell_mask!(),
                    " AS cell, count(*)::bigint AS n FROM u ",
                    in_zone!("u.slot", "$12"),
                    " GROUP BY 1, 2"
                )),
                campaign,
                everyone
            )
            .bind::<Array<Text>, _>(&kinds)
            .bind::<Array<Text>, _>(&names)
            .bind::<Array<Text>, _>(&values)
            .bind::<Array<BigInt>, _>(&starts)
            .bind::<Array<Integer>, _>(&zone_offsets)
            .bind::<BigInt, _>(TREND_SLOT_SECS)
            .cached()
            .load::<DayCellRow>(conn)
            .await?,
        );
        let binds = filter_binds(filter);
        let metrics: Vec<String> = trend_metrics().into_iter().map(Metric::code).collect();
        let counts: Vec<DayCountRow> = bind_filter!(
            sql_query(concat!(
                "WITH ",
                zone!("$8", "$9"),
                " SELECT day, metric, question_id, value, sum(n)::bigint AS n FROM (
                    SELECT p.day, c.metric, c.question_id, c.value, p.n
                    FROM result_segments s JOIN result_segment_day_counts c ON c.segment_id = s.id ",
                local_parts!("c"),
                "   WHERE s.campaign_id = $1 AND ",
                segment_selected!(),
                "     AND c.upto[96] <> 0 AND p.n <> 0
                    UNION ALL
                    SELECT ",
                local_day!("r.completed_slot", "$10"),
                ", e.metric, e.question_id, e.value, e.n
                    FROM result_sessions r
                         CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n) ",
                in_zone!("r.completed_slot", "$10"),
                "   WHERE r.accepted AND r.completed_slot IS NOT NULL AND e.metric = ANY ($7::text[]) AND ",
                unsegmented!(),
                ") x GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0"
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
