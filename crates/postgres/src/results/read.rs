//! The tallied reads of results: the campaign's sums, or a filtered group's from its slices and
//! segments, with themes and quote candidates.

use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{Array, BigInt, Bool, Jsonb, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::ids::{CampaignId, SessionId};
use pulse_domain::results::models::{
    Count as TallyCount, GroupTally, LONGEST_QUOTE_CANDIDATES, MIN_THEME_SESSIONS, Metric, QUOTE_CANDIDATES, QuoteRow,
    ResultsFilter, ThemeTotal,
};
use serde_json::Value;

use crate::error::from_diesel;
use crate::results::filters::{
    bind_filter, device_labelled, filtered_sessions, pick_orders, ranked_candidates, segment_selected, selected,
    unsegmented,
};
use crate::results::rows::{CountRow, QuoteCandidateRow, ThemeRow, corrupt};
use crate::rows::{count_of, limit_of};
use crate::schema::result_counts;
use crate::statement::Cached as _;
use crate::store::PgStore;

/// A filter's values as bound to [`selected`].
pub(super) struct FilterBinds {
    pub(super) platform: Option<String>,
    pub(super) version: Option<String>,
    pub(super) tags: Vec<String>,
    pub(super) attributes: Value,
    pub(super) language: Option<String>,
}

pub(super) fn filter_binds(filter: &ResultsFilter) -> FilterBinds {
    let attributes: serde_json::Map<String, Value> =
        filter.attributes.iter().map(|(name, value)| (name.clone(), Value::String(value.clone()))).collect();
    FilterBinds {
        platform: filter.platform_folded(),
        version: filter.app_version.clone(),
        tags: filter.tags.clone(),
        attributes: Value::Object(attributes),
        language: filter.language.clone(),
    }
}

/// The slice (migration `000017_result_slices`) that holds a filter's group when it has a single
/// condition.
struct Slice {
    dimension: String,
    value: String,
    /// Whether sessions without this label, counted by their device's, may match too.
    device_labelled: bool,
}

impl Slice {
    fn of(filter: &ResultsFilter) -> Option<Self> {
        // The language has no slices: its segments hold it.
        let conditions = filter.conditions();
        if conditions.len() != 1 || filter.language.is_some() {
            return None;
        }
        let slice = |dimension: String, value: &str, device_labelled: bool| Slice {
            dimension,
            value: value.to_owned(),
            device_labelled,
        };
        if let Some(platform) = filter.platform_folded() {
            return Some(slice("platform".into(), &platform, true));
        }
        if let Some(version) = &filter.app_version {
            return Some(slice("appVersion".into(), version, true));
        }
        if let Some(tag) = filter.tags.as_slice().first() {
            return Some(slice("tag".into(), tag, false));
        }
        filter.attributes.iter().next().map(|(name, value)| slice(format!("attribute:{name}"), value, false))
    }
}

/// Rows a selected segment gives as quote candidates: its first in each pick order.
const CANDIDATES_PER_SEGMENT: u64 = 3 * QUOTE_CANDIDATES as u64 + LONGEST_QUOTE_CANDIDATES as u64;

/// Whether a group's quote candidates are cheaper picked per segment (a few rows per selected
/// segment, through its indexes) than by ranking every quote of the group (linear in the group):
/// unless the group's sessions are spread over nearly as many segments.
fn pick_per_segment(segments: u64, group_accepted: u64) -> bool {
    segments.saturating_mul(CANDIDATES_PER_SEGMENT) <= group_accepted
}

fn themes_of(rows: Vec<ThemeRow>) -> Vec<ThemeTotal> {
    let mut themes: Vec<ThemeTotal> = Vec::new();
    for row in rows {
        let same = themes.last().is_some_and(|t| t.scope == row.scope && t.key_digest == row.key_digest);
        if !same {
            themes.push(ThemeTotal {
                scope: row.scope,
                key_digest: row.key_digest,
                sessions: count_of(row.sessions),
                score_sum: row.score_sum,
                scores: count_of(row.scores),
                labels: Vec::new(),
            });
        }
        if let Some(theme) = themes.last_mut() {
            theme.labels.push((row.label_digest, count_of(row.mentions)));
        }
    }
    themes
}

fn counts_of(rows: Vec<CountRow>) -> Result<Vec<TallyCount>> {
    rows.into_iter()
        .map(|r| {
            Ok(TallyCount {
                metric: Metric::parse(&r.metric).ok_or_else(|| corrupt("metric"))?,
                question_id: r.question_id,
                value: r.value,
                n: r.n,
            })
        })
        .collect()
}

fn quotes_of(rows: Vec<QuoteCandidateRow>, tally: &mut GroupTally) {
    for row in rows {
        if row.scored {
            tally.scored_quotes.insert(row.question_id.clone());
        }
        tally.quotes.push(QuoteRow {
            question_id: row.question_id,
            session: SessionId(row.session_id),
            score: row.score,
            sealed: row.text_sealed,
        });
    }
}

impl PgStore {
    /// The campaign's maintained sums: no work grows with its sessions.
    pub(super) async fn campaign_tally(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        text_questions: &[String],
        with_quotes: bool,
    ) -> Result<GroupTally> {
        let counts: Vec<CountRow> = result_counts::table
            .filter(result_counts::campaign_id.eq(campaign.0))
            .filter(result_counts::n.ne(0))
            .select(CountRow::as_select())
            .load(conn)
            .await
            .map_err(from_diesel)?;
        let themes: Vec<ThemeRow> = sql_query(
            "SELECT t.scope, t.key_digest, t.sessions, t.score_sum, t.scores, l.label_digest, l.mentions
             FROM result_themes t
             JOIN result_theme_labels l
               ON l.campaign_id = t.campaign_id AND l.scope = t.scope AND l.key_digest = t.key_digest
             WHERE t.campaign_id = $1 AND t.sessions >= 2 AND t.sessions >= $2 AND l.mentions > 0 -- 2: the index
             ORDER BY t.scope, t.key_digest",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)?;
        let counts = counts_of(counts)?;
        let campaign_count = |metric: Metric| counts.iter().filter(|c| c.metric == metric).map(|c| count_of(c.n)).sum();
        let (all_accepted, all_analyzed) = (campaign_count(Metric::Accepted), campaign_count(Metric::Analyzed));
        let mut tally =
            GroupTally { all_accepted, all_analyzed, counts, themes: themes_of(themes), ..GroupTally::default() };
        if with_quotes && !text_questions.is_empty() {
            let quotes: Vec<QuoteCandidateRow> = sql_query(concat!(
                "SELECT x.question_id, x.session_id, x.score, x.text_sealed,
                        EXISTS (SELECT 1 FROM result_quotes s WHERE s.campaign_id = $1
                                AND s.question_id = qs.question_id AND s.score IS NOT NULL) AS scored
                 FROM unnest($2::text[]) AS qs(question_id), LATERAL (",
                pick_orders!("q.campaign_id = $1", "$3", "$4"),
                ") x"
            ))
            .bind::<SqlUuid, _>(campaign.0)
            .bind::<Array<Text>, _>(text_questions)
            .bind::<BigInt, _>(limit_of(QUOTE_CANDIDATES))
            .bind::<BigInt, _>(limit_of(LONGEST_QUOTE_CANDIDATES))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)?;
            quotes_of(quotes, &mut tally);
        }
        Ok(tally)
    }

    /// The sums of the sessions `filter` selects: from the slice of a single condition's value,
    /// else from the segments whose labels meet every condition; plus, either way, the selected
    /// sessions whose platform or app version is their device's, grouped from their tallies.
    pub(super) async fn filtered_tally(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        filter: &ResultsFilter,
        text_questions: &[String],
        with_quotes: bool,
    ) -> Result<GroupTally> {
        let binds = filter_binds(filter);
        let (counts, themes) = match Slice::of(filter) {
            Some(slice) => {
                (Self::slice_counts(conn, campaign, &slice).await?, Self::slice_themes(conn, campaign, &slice).await?)
            }
            None => (
                Self::segment_counts(conn, campaign, &binds).await?,
                Self::segment_themes(conn, campaign, &binds).await?,
            ),
        };
        let whole: Vec<CountRow> = result_counts::table
            .filter(result_counts::campaign_id.eq(campaign.0))
            .filter(result_counts::metric.eq_any([Metric::Accepted.code(), Metric::Analyzed.code()]))
            .filter(result_counts::question_id.eq(""))
            .filter(result_counts::value.eq(0))
            .select(CountRow::as_select())
            .load(conn)
            .await
            .map_err(from_diesel)?;
        let whole = |metric: Metric| {
            let code = metric.code();
            whole.iter().filter(|c| c.metric == code).map(|c| count_of(c.n)).sum::<u64>()
        };
        let mut tally = GroupTally {
            counts: counts_of(counts)?,
            all_accepted: whole(Metric::Accepted),
            all_analyzed: whole(Metric::Analyzed),
            cells: Self::condition_cells(conn, campaign, filter).await?,
            themes: themes_of(themes),
            ..GroupTally::default()
        };
        if with_quotes && !text_questions.is_empty() {
            let accepted: u64 =
                tally.counts.iter().filter(|c| c.metric == Metric::Accepted).map(|c| count_of(c.n)).sum();
            let segments = Self::selected_segments(conn, campaign, &binds).await?;
            let quotes = if pick_per_segment(segments, accepted) {
                Self::segment_quotes(conn, campaign, &binds, text_questions).await?
            } else {
                Self::group_quotes(conn, campaign, &binds, text_questions).await?
            };
            quotes_of(quotes, &mut tally);
        }
        Ok(tally)
    }

    /// A slice's counters, and those of its device-labelled sessions that match.
    async fn slice_counts(conn: &mut AsyncPgConnection, campaign: CampaignId, slice: &Slice) -> Result<Vec<CountRow>> {
        sql_query(concat!(
            "SELECT metric, question_id, value, sum(n)::bigint AS n FROM (
               SELECT c.metric, c.question_id, c.value, c.n FROM result_slice_counts c
               WHERE c.campaign_id = $1 AND c.dimension = $2 AND c.dimension_value = $3
               UNION ALL
               SELECT e.metric, e.question_id, e.value, e.n
               FROM result_sessions r, unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE ",
            device_labelled!(),
            ") x GROUP BY metric, question_id, value HAVING sum(n) <> 0"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Text, _>(slice.dimension.as_str())
        .bind::<Text, _>(slice.value.as_str())
        .bind::<Bool, _>(slice.device_labelled)
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)
    }

    /// A slice's themes, and those of its device-labelled sessions that match.
    async fn slice_themes(conn: &mut AsyncPgConnection, campaign: CampaignId, slice: &Slice) -> Result<Vec<ThemeRow>> {
        sql_query(concat!(
            "WITH d AS (
               SELECT t.session_id, t.scope, t.key_digest, t.label_digest, t.mentions, t.score_sum, t.scores
               FROM result_sessions r JOIN result_theme_shares t ON t.session_id = r.session_id
               WHERE r.accepted AND ",
            device_labelled!(),
            "),
             k AS (SELECT scope, key_digest, sum(sessions)::bigint AS sessions, sum(score_sum)::bigint AS score_sum,
                          sum(scores)::bigint AS scores
                   FROM (SELECT scope, key_digest, sessions, score_sum, scores FROM result_slice_themes
                         WHERE campaign_id = $1 AND dimension = $2 AND dimension_value = $3
                         UNION ALL
                         SELECT scope, key_digest, count(DISTINCT session_id), sum(score_sum), sum(scores)
                         FROM d GROUP BY scope, key_digest) x
                   GROUP BY scope, key_digest HAVING sum(sessions) >= $5),
             l AS (SELECT scope, key_digest, label_digest, sum(mentions)::bigint AS mentions
                   FROM (SELECT scope, key_digest, label_digest, mentions FROM result_slice_theme_labels
                         WHERE campaign_id = $1 AND dimension = $2 AND dimension_value = $3
                         UNION ALL
                         SELECT scope, key_digest, label_digest, mentions FROM d) y
                   GROUP BY scope, key_digest, label_digest HAVING sum(mentions) > 0)
             SELECT k.scope, k.key_digest, k.sessions, k.score_sum, k.scores, l.label_digest, l.mentions
             FROM k JOIN l ON l.scope = k.scope AND l.key_digest = k.key_digest
             ORDER BY k.scope, k.key_digest"
        ))
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Text, _>(slice.dimension.as_str())
        .bind::<Text, _>(slice.value.as_str())
        .bind::<Bool, _>(slice.device_labelled)
        .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
        .cached()
        .load(conn)
        .await
        .map_err(from_diesel)
    }

    /// The counters of the segments the filter selects, and those of its device-labelled sessions
    /// that match.
    async fn segment_counts(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
    ) -> Result<Vec<CountRow>> {
        const QUERY: &str = concat!(
            "SELECT metric, question_id, value, sum(n)::bigint AS n FROM (
               SELECT c.metric, c.question_id, c.value, c.n
               FROM result_segments s JOIN result_segment_counts c ON c.segment_id = s.id
               WHERE s.campaign_id = $1 AND ",
            segment_selected!(),
            "
               UNION ALL
               SELECT e.metric, e.question_id, e.value, e.n
               FROM result_sessions r, unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE ",
            unsegmented!(),
            ") x GROUP BY metric, question_id, value HAVING sum(n) <> 0"
        );
        bind_filter!(sql_query(QUERY), campaign, binds).cached().load(conn).await.map_err(from_diesel)
    }

    /// The themes of the segments the filter selects, and those of its device-labelled sessions
    /// that match.
    async fn segment_themes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
    ) -> Result<Vec<ThemeRow>> {
        const QUERY: &str = concat!(
            "WITH g AS (SELECT s.id FROM result_segments s WHERE s.campaign_id = $1 AND ",
            segment_selected!(),
            "),
             d AS (
               SELECT t.session_id, t.scope, t.key_digest, t.label_digest, t.mentions, t.score_sum, t.scores
               FROM result_sessions r JOIN result_theme_shares t ON t.session_id = r.session_id
               WHERE r.accepted AND ",
            unsegmented!(),
            "),
             k AS (SELECT scope, key_digest, sum(sessions)::bigint AS sessions, sum(score_sum)::bigint AS score_sum,
                          sum(scores)::bigint AS scores
                   FROM (SELECT t.scope, t.key_digest, t.sessions, t.score_sum, t.scores
                         FROM g JOIN result_segment_themes t ON t.segment_id = g.id
                         UNION ALL
                         SELECT scope, key_digest, count(DISTINCT session_id), sum(score_sum), sum(scores)
                         FROM d GROUP BY scope, key_digest) x
                   GROUP BY scope, key_digest HAVING sum(sessions) >= $7),
             l AS (SELECT scope, key_digest, label_digest, sum(mentions)::bigint AS mentions
                   FROM (SELECT l.scope, l.key_digest, l.label_digest, l.mentions
                         FROM g JOIN result_segment_theme_labels l ON l.segment_id = g.id
                         UNION ALL
                         SELECT scope, key_digest, label_digest, mentions FROM d) y
                   GROUP BY scope, key_digest, label_digest HAVING sum(mentions) > 0)
             SELECT k.scope, k.key_digest, k.sessions, k.score_sum, k.scores, l.label_digest, l.mentions
             FROM k JOIN l ON l.scope = k.scope AND l.key_digest = k.key_digest
             ORDER BY k.scope, k.key_digest"
        );
        bind_filter!(sql_query(QUERY), campaign, binds)
            .bind::<BigInt, _>(i64::try_from(MIN_THEME_SESSIONS).unwrap_or(i64::MAX))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)
    }

    /// The segments a filter selects.
    async fn selected_segments(conn: &mut AsyncPgConnection, campaign: CampaignId, binds: &FilterBinds) -> Result<u64> {
        #[derive(QueryableByName)]
        struct Segments {
            #[diesel(sql_type = BigInt)]
            n: i64,
        }
        const QUERY: &str =
            concat!("SELECT count(*) AS n FROM result_segments s WHERE s.campaign_id = $1 AND ", segment_selected!());
        let found: Segments =
            bind_filter!(sql_query(QUERY), campaign, binds).cached().get_result(conn).await.map_err(from_diesel)?;
        Ok(count_of(found.n))
    }

    /// Quote candidates ranked among every session the filter selects: linear in the group, for
    /// groups spread over too many segments for [`Self::segment_quotes`]. Every quote of the group
    /// is ranked, so whether a question is scored needs no other look (`zero` names none).
    async fn group_quotes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        const QUERY: &str = concat!(
            "WITH g AS (",
            filtered_sessions!(),
            "),
             c AS (SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed
                   FROM result_quotes q JOIN g ON g.session_id = q.session_id
                   WHERE q.campaign_id = $1 AND g.accepted AND q.question_id = ANY ($7::text[])),
             zero AS MATERIALIZED (SELECT NULL::text AS question_id WHERE false), ",
            ranked_candidates!()
        );
        Self::filtered_quote_candidates(conn, QUERY, campaign, binds, text_questions).await
    }

    /// Runs one of the two quote candidate queries of a filtered group: the filter is `$1` to `$6`,
    /// the text questions `$7`, the candidates per pick order `$8` and the longest's `$9`.
    async fn filtered_quote_candidates(
        conn: &mut AsyncPgConnection,
        query: &'static str,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        bind_filter!(sql_query(query), campaign, binds)
            .bind::<Array<Text>, _>(text_questions)
            .bind::<BigInt, _>(limit_of(QUOTE_CANDIDATES))
            .bind::<BigInt, _>(limit_of(LONGEST_QUOTE_CANDIDATES))
            .cached()
            .load(conn)
            .await
            .map_err(from_diesel)
    }

    /// Quote candidates picked per segment: each selected segment's first quotes in each pick order,
    /// through the indexes per segment (migration `000034_quote_segments`), and every quote of the
    /// group's sessions in no segment, ranked together. A read of a few rows per selected segment.
    ///
    /// Whether a question has a scored quote is read off the candidates, since a segment's most
    /// positive and most negative quotes are scored when any of its scores is not 0; only when
    /// none is are the segments' quotes scored exactly 0 looked for.
    async fn segment_quotes(
        conn: &mut AsyncPgConnection,
        campaign: CampaignId,
        binds: &FilterBinds,
        text_questions: &[String],
    ) -> Result<Vec<QuoteCandidateRow>> {
        const QUERY: &str = concat!(
            "WITH g AS MATERIALIZED (SELECT s.id FROM result_segments s WHERE s.campaign_id = $1 AND ",
            segment_selected!(),
            "),
             c AS (SELECT x.* FROM unnest($7::text[]) AS qs(question_id) CROSS JOIN g, LATERAL (",
            pick_orders!("q.segment_id = g.id", "$8", "$9"),
            ") x
                   UNION ALL
                   SELECT q.question_id, q.session_id, q.score, q.len, q.text_sealed
                   FROM result_sessions r JOIN result_quotes q ON q.session_id = r.session_id
                   WHERE r.accepted AND q.question_id = ANY ($7::text[]) AND ",
            unsegmented!(),
            "),
             zero AS MATERIALIZED (
               SELECT w.question_id FROM unnest($7::text[]) AS w(question_id)
               WHERE EXISTS (SELECT 1 FROM g, LATERAL (SELECT 1 FROM result_quotes q
                   WHERE q.segment_id = g.id AND q.question_id = w.question_id
                     AND COALESCE(q.score, 0) = 0 AND q.score IS NOT NULL LIMIT 1) z)), ",
            ranked_candidates!()
        );
        Self::filtered_quote_candidates(conn, QUERY, campaign, binds, text_questions).await
    }
}

#[cfg(test)]
mod tests {
    use pulse_testing::contract::World;
    use pulse_testing::contract::results::{FILTERS, analyze_all, quoting_campaign, respond_all};

    use diesel_async::AsyncConnection as _;
    use uuid::Uuid;

    use super::*;
    use crate::test_db::TestDatabase;
    use crate::{PoolSettings, connect};

    fn candidates(rows: Vec<QuoteCandidateRow>) -> Vec<(String, Uuid, bool)> {
        let mut found: Vec<_> = rows.into_iter().map(|r| (r.question_id, r.session_id, r.scored)).collect();
        found.sort();
        found
    }

    /// The two ways of finding a filtered group's quote candidates (`pick_per_segment` chooses one
    /// by the group's size and segments, and the contract suite's small campaigns only ever rank)
    /// find the same candidates for every filter the suite reads.
    #[tokio::test]
    async fn picking_per_segment_finds_the_candidates_ranking_the_group_finds() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
        let w = World::new(store);
        let (p, campaign) = quoting_campaign(&w).await;
        respond_all(&w, &p, &campaign).await;
        analyze_all(&w, "1").await;
        let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        let questions = vec!["q2".to_owned(), "q3".to_owned()];
        let mut found_any = false;
        for filter in FILTERS {
            let params: Vec<(String, String)> =
                filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            let filter = ResultsFilter::parse(&params).expect("a filter").unwrap_or_default();
            let binds = filter_binds(&filter);
            let id = campaign.campaign.id;
            let picked = candidates(PgStore::segment_quotes(&mut conn, id, &binds, &questions).await.expect("picked"));
            let ranked = candidates(PgStore::group_quotes(&mut conn, id, &binds, &questions).await.expect("ranked"));
            assert_eq!(picked, ranked, "{filter:?}");
            found_any |= !picked.is_empty();
        }
        assert!(found_any, "the filters' groups have quotes to compare");
    }
}
