//! Tallies on a database upgraded from older code. Sessions analyzed without a tally (before
//! results were tallied, or by a replica still running older code): the worker's claims pick them
//! up after every due job, and recording them again gives exactly the results computed from every
//! answer. Segments, quotes' segments and day sums computed by their migrations from the tallies
//! already kept equal those kept as tallies are written.

use diesel::sql_query;
use diesel::sql_types::Uuid as SqlUuid;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl as _, SimpleAsyncConnection as _};
use pulse_domain::analysis::ports::AnalysisRepository as _;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::campaigns::models::CampaignOverview;
use pulse_domain::results::models::{Metric, trend_metrics};
use pulse_domain::results::service::Results;
use pulse_domain::shared::clock::Clock as _;
use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PgStore, PoolSettings, connect};
use pulse_testing::contract::results::{
    BOUNDARY_PEOPLE, analyze_all, assert_tallies_agree, quoting_campaign, respond, respond_all,
};
use pulse_testing::contract::{Partner, World};
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};
use time::Duration;

/// The contract suite's quoting campaign on the Postgres store, every session answered and analyzed.
async fn analyzed_campaign(database: &TestDatabase) -> (World<PgStore>, Partner, CampaignOverview) {
    let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    respond_all(&w, &p, &campaign).await;
    analyze_all(&w, "1").await;
    (w, p, campaign)
}

#[tokio::test]
async fn analyses_recorded_without_a_tally_are_caught_up_after_new_completions() {
    let database = TestDatabase::create().await;
    let (w, p, campaign) = analyzed_campaign(&database).await;
    let id = campaign.campaign.id;
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    assert_eq!(results.results(&p.principal, None, id, None).await.expect("results").acceptance.analyzed, 16);

    // As a database upgraded from before the tallies holds none.
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    for table in [
        "result_sessions",
        "result_theme_shares",
        "result_quotes",
        "result_counts",
        "result_themes",
        "result_theme_labels",
        "result_phrases",
    ] {
        sql_query(format!("DELETE FROM {table}")).execute(&mut conn).await.expect("emptied");
    }
    let untallied = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!((untallied.metrics.pending_analysis, untallied.acceptance.analyzed), (16, 0));

    // As an older replica records them: done, without a tally.
    sql_query("UPDATE analysis_jobs SET tallied = false").execute(&mut conn).await.expect("untallied");

    // A new completion is claimed before any catching up.
    respond(&w, &p, &campaign, &BOUNDARY_PEOPLE[..1]).await;
    let now = w.clock.now();
    let claimed = w.store.claim_analyses(now, now + Duration::minutes(5), 1).await.expect("claimed");
    assert_eq!(claimed.len(), 1);
    let analyzed: i64 = sql_query("SELECT count(*) AS n FROM session_analyses WHERE session_id = $1")
        .bind::<SqlUuid, _>(claimed[0].session.0)
        .get_result::<Count>(&mut conn)
        .await
        .expect("counted")
        .n;
    assert_eq!(analyzed, 0, "the new completion comes first");
    w.store.release_analysis(claimed[0].session, claimed[0].claim_token, now).await.expect("released");

    analyze_all(&w, "1").await;
    let caught_up = results.results(&p.principal, None, id, None).await.expect("results");
    assert_eq!((caught_up.metrics.pending_analysis, caught_up.acceptance.analyzed), (0, 17));
    assert_tallies_agree(&w, &p, id).await;
    // Caught up once: nothing is claimed again.
    let now = w.clock.now();
    assert!(w.store.claim_analyses(now, now + Duration::minutes(5), 10).await.expect("claimed").is_empty());
}

/// Every segment's sums (migrations `000019_result_segments`, `000032_result_language`), named by
/// campaign and labels rather than by the segment's generated id.
async fn segment_sums(conn: &mut AsyncPgConnection) -> String {
    sql_query(
        "SELECT jsonb_build_array(
           (SELECT jsonb_agg(jsonb_build_array(s.campaign_id, s.language, s.platform, s.app_version, s.tags,
                   s.attributes, c.metric, c.question_id, c.value, c.n)
                   ORDER BY s.campaign_id, s.labels_digest, c.metric, c.question_id, c.value)
            FROM result_segments s JOIN result_segment_counts c ON c.segment_id = s.id),
           (SELECT jsonb_agg(jsonb_build_array(s.campaign_id, s.labels_digest, t.scope, t.key_digest, t.sessions,
                   t.score_sum, t.scores) ORDER BY s.campaign_id, s.labels_digest, t.scope, t.key_digest)
            FROM result_segments s JOIN result_segment_themes t ON t.segment_id = s.id),
           (SELECT jsonb_agg(jsonb_build_array(s.campaign_id, s.labels_digest, l.scope, l.key_digest, l.label_digest,
                   l.mentions) ORDER BY s.campaign_id, s.labels_digest, l.scope, l.key_digest, l.label_digest)
            FROM result_segments s JOIN result_segment_theme_labels l ON l.segment_id = s.id)
         )::text AS sums",
    )
    .get_result::<Sums>(conn)
    .await
    .expect("read")
    .sums
}

/// The segments the migration computes from the tallies already kept equal those its triggers keep
/// as tallies are written: an upgraded database reads several-condition filters as a new one does.
#[tokio::test]
async fn segments_the_migration_backfills_equal_those_kept_as_tallies_are_written() {
    let database = TestDatabase::create().await;
    let (w, p, campaign) = analyzed_campaign(&database).await;
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    let kept = segment_sums(&mut conn).await;
    let themed: i64 = sql_query(
        "SELECT count(DISTINCT segment_id) AS n FROM result_segment_themes
         WHERE segment_id IN (SELECT segment_id FROM result_segment_counts)",
    )
    .get_result::<Count>(&mut conn)
    .await
    .expect("counted")
    .n;
    assert!(themed > 1, "several segments with counters and themes: {kept}");

    assert_eq!(quotes_off_their_segment(&mut conn).await, 0, "as the quotes were written");

    // The segments are rebuilt by the language migration, undone and done again (with the day sums
    // and the quotes' segments that hang on them).
    for (migration, file) in [
        ("2026-12-14-000034_quote_segments", "down.sql"),
        ("2026-12-13-000033_result_day_sums", "down.sql"),
        ("2026-12-12-000032_result_language", "down.sql"),
        ("2026-12-12-000032_result_language", "up.sql"),
        ("2026-12-13-000033_result_day_sums", "up.sql"),
        ("2026-12-14-000034_quote_segments", "up.sql"),
    ] {
        let path = format!("{}/../../migrations/{migration}/{file}", env!("CARGO_MANIFEST_DIR"));
        conn.batch_execute(&std::fs::read_to_string(path).expect("read")).await.expect("ran");
    }
    assert_eq!(segment_sums(&mut conn).await, kept);
    assert_eq!(quotes_off_their_segment(&mut conn).await, 0, "after the backfill");
    assert_tallies_agree(&w, &p, campaign.campaign.id).await;
}

/// Quotes whose segment is not their session's (there must be quotes to check).
async fn quotes_off_their_segment(conn: &mut AsyncPgConnection) -> i64 {
    let off = sql_query(
        "SELECT count(*) AS n FROM result_quotes q JOIN result_sessions r ON r.session_id = q.session_id
         LEFT JOIN result_segments s ON s.campaign_id = r.campaign_id
              AND s.labels_digest = result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes)
              AND result_segmented(r.device_id, r.platform, r.app_version)
         WHERE q.segment_id IS DISTINCT FROM s.id",
    )
    .get_result::<Count>(conn)
    .await
    .expect("counted")
    .n;
    let all = sql_query("SELECT count(*) AS n FROM result_quotes").get_result::<Count>(conn).await.expect("counted").n;
    assert!(all > 0, "quotes to check");
    off
}

/// The quarter-hour sums kept per day, for each campaign or (`per_segment`) for each segment, named
/// by the campaign and its labels' digest, and those the accepted tallies give, as JSON texts.
async fn day_sums(conn: &mut AsyncPgConnection, per_segment: bool) -> (String, String) {
    let (table, key, labelled) = if per_segment {
        (
            "result_segment_day_counts c JOIN result_segments s ON s.id = c.segment_id",
            "s.campaign_id || encode(s.labels_digest, 'hex')",
            "result_segmented(r.device_id, r.platform, r.app_version)",
        )
    } else {
        ("result_day_counts c", "c.campaign_id::text", "true")
    };
    let kept = sql_query(format!(
        "SELECT COALESCE(jsonb_agg(jsonb_build_array(key, slot, metric, question_id, value, n)
                ORDER BY key, slot, metric, question_id, value), '[]')::text AS sums
         FROM (SELECT {key} AS key, c.day * 96 + k - 1 AS slot, c.metric, c.question_id, c.value,
                      c.upto[k] - COALESCE(c.upto[k - 1], 0) AS n
               FROM {table} CROSS JOIN generate_series(1, 96) AS k) x
         WHERE n <> 0"
    ))
    .get_result::<Sums>(conn)
    .await
    .expect("read")
    .sums;
    let tallied_key = if per_segment {
        "r.campaign_id || encode(result_segment_digest(r.language, r.platform, r.app_version, r.tags, r.attributes), 'hex')"
    } else {
        "r.campaign_id::text"
    };
    let tallied = sql_query(format!(
        "SELECT COALESCE(jsonb_agg(jsonb_build_array(key, slot, metric, question_id, value, n)
                ORDER BY key, slot, metric, question_id, value), '[]')::text AS sums
         FROM (SELECT {tallied_key} AS key, r.completed_slot AS slot, e.metric, e.question_id, e.value,
                      sum(e.n) AS n
               FROM result_sessions r
                    CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE r.accepted AND e.metric = ANY ($1::text[]) AND {labelled}
               GROUP BY 1, 2, 3, 4, 5) x
         WHERE n <> 0"
    ))
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(
        trend_metrics().into_iter().map(Metric::code).collect::<Vec<_>>(),
    )
    .get_result::<Sums>(conn)
    .await
    .expect("read")
    .sums;
    (kept, tallied)
}

/// Both day sums as JSON texts, asserted equal to what the accepted tallies give.
async fn agreeing_day_sums(conn: &mut AsyncPgConnection, when: &str) -> (String, String) {
    let (campaign, tallied) = day_sums(conn, false).await;
    assert_eq!(campaign, tallied, "the campaign's, {when}");
    let (segments, tallied) = day_sums(conn, true).await;
    assert_eq!(segments, tallied, "the segments', {when}");
    (campaign, segments)
}

/// The quarter-hour sums trends read, kept per day for the campaign and for each segment, hold
/// exactly the accepted tallies' trend counters, after the first analysis, the migration's
/// backfill, a re-analysis and tallies removed.
#[tokio::test]
async fn day_sums_are_the_accepted_tallies_through_reanalysis_and_removal() {
    let database = TestDatabase::create().await;
    let (w, _, campaign) = analyzed_campaign(&database).await;
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    let kept = agreeing_day_sums(&mut conn, "after the first analysis").await;
    assert!(kept.0.len() > 100 && kept.1.len() > 100, "{kept:?}");

    let migration = "../../migrations/2026-12-13-000033_result_day_sums";
    for file in ["down.sql", "up.sql"] {
        let sql = std::fs::read_to_string(format!("{}/{migration}/{file}", env!("CARGO_MANIFEST_DIR"))).expect("read");
        conn.batch_execute(&sql).await.expect("ran");
    }
    assert_eq!(agreeing_day_sums(&mut conn, "after the backfill").await, kept);

    let analysis = pulse_domain::analysis::service::Analysis::new(
        w.store.clone(),
        pulse_testing::contract::results::ScoreMarks(FakeAnalyzer { version: "2" }),
        w.crypto.clone(),
        w.clock.clone(),
    );
    assert_eq!(analysis.rerun(campaign.campaign.id).await.expect("requeued"), 16);
    analyze_all(&w, "2").await;
    let again = agreeing_day_sums(&mut conn, "after a re-analysis").await;

    sql_query("DELETE FROM result_sessions WHERE session_id IN (SELECT session_id FROM result_sessions LIMIT 3)")
        .execute(&mut conn)
        .await
        .expect("removed");
    let fewer = agreeing_day_sums(&mut conn, "after tallies are removed").await;
    assert!(fewer.0 != again.0, "the removed tallies are gone from the campaign's sums");

    // The migration's list of trend counters is the domain's.
    for code in [
        "accepted",
        "rating",
        "session_score",
        "session_sentiment:POSITIVE",
        "analyzed",
        "duration",
        "coverage",
        "answered",
        "answer_sentiment:NEGATIVE",
        "scored_in:en",
        "rejection:TOO_FAST",
        "other_language",
    ] {
        let listed = sql_query("SELECT result_trend_metric($1) AS listed")
            .bind::<diesel::sql_types::Text, _>(code)
            .get_result::<Listed>(&mut conn)
            .await
            .expect("read")
            .listed;
        let metric = Metric::parse(code).expect("a metric");
        assert_eq!(listed, trend_metrics().contains(&metric), "{code}");
    }
}

#[derive(diesel::QueryableByName)]
struct Listed {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    listed: bool,
}

#[derive(diesel::QueryableByName)]
struct Sums {
    #[diesel(sql_type = diesel::sql_types::Text)]
    sums: String,
}

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}
