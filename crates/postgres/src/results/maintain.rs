//! Results maintained as sessions are analyzed (docs/results-storage.md): the analysis replaces
//! a session's tally in its own transaction, and the campaign's sums, themes, quotes and segments
//! follow.

use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{Array, BigInt, Bytea, Double, Integer, Nullable, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::analysis::models::Rejection;
use pulse_domain::ids::{CampaignId, SessionId};
use pulse_domain::results::models::{
    Count as TallyCount, MIN_THEME_SESSIONS, Metric, SegmentLabels, SessionTally, ThemeShare,
};
use serde_json::Value;

use crate::results::rows::{CountsRow, SegmentRow, ShareRow, corrupt};
use crate::rows::count_of;
use crate::schema::{result_quotes, result_sessions, result_theme_shares, sessions};
use crate::statement::Cached as _;
use crate::store::TxError;

// The partial index `result_themes_shown` (migration 2026-11-23-000008) is on `sessions >= 2`; the
// unfiltered themes query repeats that literal so the index applies.
const _: () = assert!(MIN_THEME_SESSIONS == 2, "result_themes_shown indexes themes from two sessions on");

/// Adds `counts` (negated when `sign` is -1) to the campaign's counters.
async fn add_counts(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    counts: &[TallyCount],
    sign: i64,
) -> diesel::QueryResult<()> {
    if counts.is_empty() {
        return Ok(());
    }
    sql_query(
        "INSERT INTO result_counts (campaign_id, metric, question_id, value, n)
         SELECT $1, e.metric, e.question_id, e.value, e.n
         FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS e(metric, question_id, value, n)
         ON CONFLICT (campaign_id, metric, question_id, value) DO UPDATE SET n = result_counts.n + excluded.n",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.metric.code()).collect::<Vec<_>>())
    .bind::<Array<Text>, _>(counts.iter().map(|c| c.question_id.as_str()).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.value).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(counts.iter().map(|c| c.n * sign).collect::<Vec<_>>())
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds one session's theme shares (negated when `sign` is -1) to the campaign's themes.
async fn add_themes(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    shares: &[ThemeShare],
    sign: i64,
) -> diesel::QueryResult<()> {
    if shares.is_empty() {
        return Ok(());
    }
    // One session adds one to the sessions of each (scope, key) it mentions.
    let mut keys: std::collections::BTreeMap<(&str, &[u8]), (i64, i64)> = std::collections::BTreeMap::new();
    for share in shares {
        let entry = keys.entry((share.scope.as_str(), share.key_digest.as_slice())).or_default();
        entry.0 += share.score_sum;
        entry.1 += i64::try_from(share.scores).unwrap_or(i64::MAX);
    }
    sql_query(
        "INSERT INTO result_themes (campaign_id, scope, key_digest, sessions, score_sum, scores)
         SELECT $1, e.scope, e.key_digest, $5, e.score_sum, e.scores
         FROM unnest($2::text[], $3::bytea[], $4::bigint[], $6::bigint[]) AS e(scope, key_digest, score_sum, scores)
         ON CONFLICT (campaign_id, scope, key_digest) DO UPDATE SET sessions = result_themes.sessions + excluded.sessions,
            score_sum = result_themes.score_sum + excluded.score_sum, scores = result_themes.scores + excluded.scores",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(keys.keys().map(|(scope, _)| *scope).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(keys.keys().map(|(_, key)| *key).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(keys.values().map(|(sum, _)| sum * sign).collect::<Vec<_>>())
    .bind::<BigInt, _>(sign)
    .bind::<Array<BigInt>, _>(keys.values().map(|(_, n)| n * sign).collect::<Vec<_>>())
    .cached()
    .execute(conn)
    .await?;
    sql_query(
        "INSERT INTO result_theme_labels (campaign_id, scope, key_digest, label_digest, mentions)
         SELECT $1, e.scope, e.key_digest, e.label_digest, e.mentions
         FROM unnest($2::text[], $3::bytea[], $4::bytea[], $5::bigint[]) AS e(scope, key_digest, label_digest, mentions)
         ON CONFLICT (campaign_id, scope, key_digest, label_digest)
         DO UPDATE SET mentions = result_theme_labels.mentions + excluded.mentions",
    )
    .bind::<SqlUuid, _>(campaign.0)
    .bind::<Array<Text>, _>(shares.iter().map(|s| s.scope.as_str()).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.key_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.label_digest.as_slice()).collect::<Vec<_>>())
    .bind::<Array<BigInt>, _>(
        shares.iter().map(|s| i64::try_from(s.mentions).unwrap_or(i64::MAX) * sign).collect::<Vec<_>>(),
    )
    .cached()
    .execute(conn)
    .await?;
    Ok(())
}

/// Replaces the session's tally (if it had one) with `tally` under the final `verdict`, and its
/// campaign's sums by the difference. The caller holds the campaign's lock.
pub(crate) async fn replace_tally(
    conn: &mut AsyncPgConnection,
    campaign: CampaignId,
    session: SessionId,
    verdict: Option<Rejection>,
    tally: &SessionTally,
) -> std::result::Result<(), TxError> {
    let earlier: Option<CountsRow> = diesel::delete(result_sessions::table.find(session.0))
        .returning(CountsRow::as_returning())
        .get_result(conn)
        .await
        .optional()?;
    if let Some(row) = earlier {
        // This module never writes a NULL element.
        let counts = row
            .metrics
            .into_iter()
            .zip(row.questions)
            .zip(row.vals.into_iter().zip(row.ns))
            .map(|((metric, question_id), (value, n))| {
                Ok(TallyCount {
                    metric: metric.as_deref().and_then(Metric::parse).ok_or_else(|| corrupt("metric"))?,
                    question_id: question_id.ok_or_else(|| corrupt("question"))?,
                    value: value.ok_or_else(|| corrupt("value"))?,
                    n: n.ok_or_else(|| corrupt("count"))?,
                })
            })
            .collect::<Result<Vec<_>>>()
            .map_err(TxError::Domain)?;
        add_counts(conn, campaign, &counts, -1).await?;
    }
    let shares: Vec<ShareRow> =
        diesel::delete(result_theme_shares::table.filter(result_theme_shares::session_id.eq(session.0)))
            .returning(ShareRow::as_returning())
            .load(conn)
            .await?;
    let shares: Vec<ThemeShare> = shares
        .into_iter()
        .map(|r| ThemeShare {
            scope: r.scope,
            key_digest: r.key_digest,
            label_digest: r.label_digest,
            mentions: count_of(r.mentions),
            score_sum: r.score_sum,
            scores: count_of(r.scores),
        })
        .collect();
    add_themes(conn, campaign, &shares, -1).await?;
    diesel::delete(result_quotes::table.filter(result_quotes::session_id.eq(session.0))).execute(conn).await?;

    let segment: SegmentRow = sessions::table.find(session.0).select(SegmentRow::as_select()).get_result(conn).await?;
    let context = match segment.context {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let labels = SegmentLabels::of_session(&context, segment.tags);
    let counts = tally.counts(verdict);
    let attributes: serde_json::Map<String, Value> =
        labels.attributes.into_iter().map(|(name, text)| (name, Value::String(text))).collect();
    diesel::insert_into(result_sessions::table)
        .values((
            result_sessions::session_id.eq(session.0),
            result_sessions::campaign_id.eq(campaign.0),
            result_sessions::accepted.eq(verdict.is_none()),
            result_sessions::platform.eq(labels.platform),
            result_sessions::app_version.eq(labels.app_version),
            result_sessions::device_id.eq(segment.device_id),
            result_sessions::tags.eq(labels.tags),
            result_sessions::attributes.eq(Value::Object(attributes)),
            result_sessions::metrics.eq(counts.iter().map(|c| c.metric.code()).collect::<Vec<_>>()),
            result_sessions::questions.eq(counts.iter().map(|c| c.question_id.as_str()).collect::<Vec<_>>()),
            result_sessions::vals.eq(counts.iter().map(|c| c.value).collect::<Vec<_>>()),
            result_sessions::ns.eq(counts.iter().map(|c| c.n).collect::<Vec<_>>()),
        ))
        .execute(conn)
        .await?;
    add_counts(conn, campaign, &counts, 1).await?;
    if verdict.is_some() {
        return Ok(());
    }

    let shares = tally.themes();
    if !shares.is_empty() {
        sql_query(
            "INSERT INTO result_theme_shares
                (session_id, campaign_id, scope, key_digest, label_digest, mentions, score_sum, scores)
             SELECT $1, $2, e.* FROM unnest($3::text[], $4::bytea[], $5::bytea[], $6::bigint[], $7::bigint[],
                $8::bigint[]) AS e",
        )
        .bind::<SqlUuid, _>(session.0)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(shares.iter().map(|s| s.scope.as_str()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.key_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(shares.iter().map(|s| s.label_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| i64::try_from(s.mentions).unwrap_or(0)).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| s.score_sum).collect::<Vec<_>>())
        .bind::<Array<BigInt>, _>(shares.iter().map(|s| i64::try_from(s.scores).unwrap_or(0)).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
        add_themes(conn, campaign, &shares, 1).await?;
        let phrases: Vec<_> = tally.answers.iter().flat_map(|a| a.phrases.iter()).collect();
        sql_query(
            "INSERT INTO result_phrases (campaign_id, key_digest, label_digest, phrase_sealed)
             SELECT $1, e.* FROM unnest($2::bytea[], $3::bytea[], $4::bytea[]) AS e
             ON CONFLICT DO NOTHING",
        )
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.key_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.label_digest.as_slice()).collect::<Vec<_>>())
        .bind::<Array<Bytea>, _>(phrases.iter().map(|p| p.phrase_sealed.as_slice()).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
    }
    let quotes: Vec<_> = tally.answers.iter().filter_map(|a| a.quote.as_ref().map(|q| (a, q))).collect();
    if !quotes.is_empty() {
        sql_query(
            "INSERT INTO result_quotes (session_id, question_id, campaign_id, score, len, text_sealed)
             SELECT $1, e.question_id, $2, e.score, e.len, e.text_sealed
             FROM unnest($3::text[], $4::float8[], $5::int[], $6::bytea[]) AS e(question_id, score, len, text_sealed)",
        )
        .bind::<SqlUuid, _>(session.0)
        .bind::<SqlUuid, _>(campaign.0)
        .bind::<Array<Text>, _>(quotes.iter().map(|(a, _)| a.question_id.as_str()).collect::<Vec<_>>())
        .bind::<Array<Nullable<Double>>, _>(quotes.iter().map(|(a, _)| a.score).collect::<Vec<_>>())
        .bind::<Array<Integer>, _>(
            quotes.iter().map(|(_, q)| i32::try_from(q.len).unwrap_or(i32::MAX)).collect::<Vec<_>>(),
        )
        .bind::<Array<Bytea>, _>(quotes.iter().map(|(_, q)| q.sealed.as_slice()).collect::<Vec<_>>())
        .cached()
        .execute(conn)
        .await?;
    }
    Ok(())
}
