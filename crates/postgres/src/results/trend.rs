//! The accepted sessions of a campaign by the quarter hour they were completed in, for trends.

use diesel::QueryableByName;
use diesel::sql_query;
use diesel::sql_types::{Array, BigInt, Jsonb, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::ids::CampaignId;
use pulse_domain::results::models::{
    Count, Metric, ResultsFilter, SlotTally, TREND_SLOT_SECS, TrendInput, trend_metrics,
};
use std::collections::BTreeMap;
use time::OffsetDateTime;

use crate::results::filters::{bind_filter, cell_mask, selected};
use crate::results::groups::condition_columns;
use crate::results::read::filter_binds;
use crate::results::rows::corrupt;
use crate::rows::count_of;
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use pulse_domain::campaigns::ports::CampaignRepository as _;

#[derive(QueryableByName)]
struct SlotCellRow {
    #[diesel(sql_type = BigInt)]
    slot: i64,
    #[diesel(sql_type = BigInt)]
    cell: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct SlotCountRow {
    #[diesel(sql_type = BigInt)]
    slot: i64,
    #[diesel(sql_type = Text)]
    metric: String,
    #[diesel(sql_type = Text)]
    question_id: String,
    #[diesel(sql_type = BigInt)]
    value: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The slot a session's completion falls in, as seconds since the epoch (`$slot` its length).
macro_rules! slot_of {
    ($slot:literal) => {
        concat!("floor(extract(epoch FROM s.completed_at) / ", $slot, ")::bigint * ", $slot)
    };
}

fn slot_at(slots: &mut BTreeMap<i64, SlotTally>, start: i64) -> std::result::Result<&mut SlotTally, TxError> {
    let at = OffsetDateTime::from_unix_timestamp(start).map_err(|_| TxError::Domain(corrupt("slot")))?;
    Ok(slots.entry(start).or_insert_with(|| SlotTally { start: at, cells: BTreeMap::new(), counts: Vec::new() }))
}

impl PgStore {
    /// See [`pulse_domain::results::ports::ResultsRepository::trend_slots`]. Linear in the
    /// campaign's accepted sessions.
    pub(super) async fn slots_of(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
    ) -> std::result::Result<Vec<SlotTally>, TxError> {
        let conditions = filter.map(ResultsFilter::conditions).unwrap_or_default();
        let columns: Vec<(&str, &str, &str)> = conditions.iter().map(condition_columns).collect();
        let cells: Vec<SlotCellRow> = sql_query(concat!(
            "WITH f AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY
                        AS f(kind, name, value, i)),
                  u AS (SELECT ",
            slot_of!("$5"),
            " AS slot, COALESCE(r.platform, d.platform) AS platform,
                               COALESCE(r.app_version, d.app_version) AS app_version, r.tags, r.attributes
                        FROM result_sessions r JOIN sessions s ON s.id = r.session_id
                             LEFT JOIN app_devices d ON d.id = r.device_id
                        WHERE r.campaign_id = $1 AND r.accepted AND s.completed_at IS NOT NULL)
             SELECT m.slot, m.cell, count(*)::bigint AS n FROM (SELECT u.slot, ",
            cell_mask!(),
            " AS cell FROM u) m
             GROUP BY m.slot, m.cell ORDER BY m.slot, m.cell"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.0).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.1).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.2).collect::<Vec<_>>())
        .bind::<BigInt, _>(TREND_SLOT_SECS)
        .cached()
        .load(conn)
        .await?;
        let binds = filter_binds(filter.unwrap_or(&ResultsFilter::default()));
        let metrics: Vec<String> = trend_metrics().into_iter().map(Metric::code).collect();
        let counts: Vec<SlotCountRow> = bind_filter!(
            sql_query(concat!(
                "SELECT ",
                slot_of!("$6"),
                " AS slot, e.metric, e.question_id, e.value, sum(e.n)::bigint AS n
                 FROM result_sessions r JOIN sessions s ON s.id = r.session_id
                      CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
                 WHERE r.campaign_id = $1 AND r.accepted AND s.completed_at IS NOT NULL AND e.metric = ANY ($7::text[])
                   AND ",
                selected!(),
                " GROUP BY 1, 2, 3, 4 ORDER BY 1"
            )),
            campaign,
            binds
        )
        .bind::<BigInt, _>(TREND_SLOT_SECS)
        .bind::<Array<Text>, _>(&metrics)
        .cached()
        .load(conn)
        .await?;
        let mut slots: BTreeMap<i64, SlotTally> = BTreeMap::new();
        for row in cells {
            *slot_at(&mut slots, row.slot)?.cells.entry(u64::try_from(row.cell).unwrap_or(0)).or_default() +=
                count_of(row.n);
        }
        for row in counts {
            let metric = Metric::parse(&row.metric).ok_or_else(|| TxError::Domain(corrupt("metric")))?;
            slot_at(&mut slots, row.slot)?.counts.push(Count {
                metric,
                question_id: row.question_id,
                value: row.value,
                n: row.n,
            });
        }
        Ok(slots.into_values().collect())
    }

    pub(super) async fn trend_input(
        &self,
        workspace: pulse_domain::ids::WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
    ) -> Result<Option<TrendInput>> {
        let Some(overview) = self.campaign_overview(workspace, campaign).await? else { return Ok(None) };
        let mut conn = self.read_conn().await?;
        // One snapshot: the cells and the counters agree.
        let slots = conn
            .build_transaction()
            .read_only()
            .repeatable_read()
            .run::<_, TxError, _>(async |conn| Self::slots_of(conn, campaign, filter).await)
            .await?;
        Ok(Some(TrendInput { campaign: overview.campaign, survey: overview.survey, slots }))
    }
}
