//! The campaign's accepted sessions counted by group: by which conditions of a filter they meet
//! (the cells the differencing guard reads) and by their value of a breakdown's dimension.

use diesel::QueryableByName;
use diesel::sql_query;
use diesel::sql_types::{Array, BigInt, Jsonb, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::ids::{CampaignId, WorkspaceId};
use pulse_domain::results::models::{Condition, ConditionCells, Dimension, GroupSize, ResultsFilter};

use crate::error::from_diesel;
use crate::results::filters::{accepted_units, bind_filter, cell_mask, segment_selected, selected, unsegmented};
use crate::results::read::filter_binds;
use crate::rows::count_of;
use crate::statement::Cached as _;
use crate::store::PgStore;

#[derive(QueryableByName)]
struct CellRow {
    #[diesel(sql_type = BigInt)]
    cell: i64,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

#[derive(QueryableByName)]
struct GroupRow {
    #[diesel(sql_type = Nullable<Text>)]
    value: Option<String>,
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// A condition as [`cell_mask`] reads it: a kind, an attribute name (empty otherwise), a value.
pub(super) fn condition_columns(condition: &Condition) -> (&'static str, &str, &str) {
    match condition {
        Condition::Platform(value) => ("platform", "", value),
        Condition::AppVersion(value) => ("appVersion", "", value),
        Condition::Language(value) => ("language", "", value),
        Condition::Tag(value) => ("tag", "", value),
        Condition::Attribute(name, value) => ("attribute", name, value),
    }
}

/// A dimension as the groups query reads it: a kind and an attribute name (empty otherwise).
fn dimension_columns(by: &Dimension) -> (&'static str, &str) {
    match by {
        Dimension::Platform => ("platform", ""),
        Dimension::AppVersion => ("appVersion", ""),
        Dimension::Language => ("language", ""),
        Dimension::Tag => ("tag", ""),
        Dimension::Attribute(name) => ("attribute", name),
    }
}

impl PgStore {
    /// The campaign's accepted sessions by which of `filter`'s conditions they meet (bit `i` for
    /// condition `i`).
    pub(super) async fn condition_cells(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: &ResultsFilter,
    ) -> Result<ConditionCells> {
        let conditions = filter.conditions();
        let columns: Vec<(&str, &str, &str)> = conditions.iter().map(condition_columns).collect();
        let everyone = filter_binds(&ResultsFilter::default());
        let rows: Vec<CellRow> = bind_filter!(
            sql_query(concat!(
                "WITH f AS (SELECT * FROM unnest($7::text[], $8::text[], $9::text[]) WITH ORDINALITY
                            AS f(kind, name, value, i)),
                      u AS (",
                accepted_units!(),
                ")
                 SELECT m.cell, sum(m.n)::bigint AS n FROM (SELECT ",
                cell_mask!(),
                " AS cell, u.n FROM u) m
                 GROUP BY m.cell HAVING sum(m.n) > 0"
            )),
            campaign,
            everyone
        )
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.0).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.1).collect::<Vec<_>>())
        .bind::<Array<Text>, _>(columns.iter().map(|c| c.2).collect::<Vec<_>>())
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)?;
        Ok(rows.into_iter().map(|r| (u64::try_from(r.cell).unwrap_or(0), count_of(r.n))).collect())
    }

    /// See [`pulse_domain::results::ports::ResultsRepository::result_groups`].
    pub(super) async fn group_sizes(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        by: &Dimension,
        filter: Option<&ResultsFilter>,
    ) -> Result<Vec<GroupSize>> {
        let mut conn = self.read_conn().await?;
        let binds = filter_binds(filter.unwrap_or(&ResultsFilter::default()));
        let (kind, name) = dimension_columns(by);
        let rows: Vec<GroupRow> = bind_filter!(
            sql_query(concat!(
                "WITH u AS (",
                accepted_units!(),
                ")
                 SELECT g.value, sum(u.n)::bigint AS n
                 FROM u CROSS JOIN LATERAL unnest(CASE $7
                     WHEN 'platform' THEN ARRAY[u.platform]
                     WHEN 'appVersion' THEN ARRAY[u.app_version]
                     WHEN 'language' THEN ARRAY[u.language]
                     WHEN 'tag' THEN CASE WHEN cardinality(u.tags) = 0 THEN ARRAY[NULL::text]
                                          ELSE ARRAY(SELECT DISTINCT t FROM unnest(u.tags) AS t) END
                     ELSE ARRAY[u.attributes ->> $8] END) AS g(value)
                 WHERE EXISTS (SELECT 1 FROM campaigns k WHERE k.id = $1 AND k.workspace_id = $9)
                 GROUP BY g.value HAVING sum(u.n) > 0
                 ORDER BY n DESC, g.value IS NULL, g.value COLLATE \"C\""
            )),
            campaign,
            binds
        )
        .bind::<Text, _>(kind)
        .bind::<Text, _>(name)
        .bind::<SqlUuid, _>(workspace.0)
        .cached()
        .load(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(rows.into_iter().map(|r| GroupSize { value: r.value, accepted: count_of(r.n) }).collect())
    }
}
