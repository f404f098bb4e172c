//! Tallies on a database upgraded from older code. Sessions analyzed without a tally (before
//! results were tallied, or by a replica still running older code): the worker's claims pick them
//! up after every due job, and recording them again gives exactly the results computed from every
//! answer. Segments and quarter-hour sums computed by their migrations from the tallies already
//! kept equal those kept as tallies are written.

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

/// Every segment's sums (migration `000019_result_segments`), named by campaign and labels rather
/// than by the segment's generated id.
async fn segment_sums(conn: &mut AsyncPgConnection) -> String {
    sql_query(
        "SELECT jsonb_build_array(
           (SELECT jsonb_agg(jsonb_build_array(s.campaign_id, s.platform, s.app_version, s.tags, s.attributes,
                   c.metric, c.question_id, c.value, c.n)
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

    let migration = "../../migrations/2026-11-30-000019_result_segments";
    for file in ["down.sql", "up.sql"] {
        let sql = std::fs::read_to_string(format!("{}/{migration}/{file}", env!("CARGO_MANIFEST_DIR"))).expect("read");
        conn.batch_execute(&sql).await.expect("ran");
    }
    assert_eq!(segment_sums(&mut conn).await, kept);
    assert_tallies_agree(&w, &p, campaign.campaign.id).await;
}

/// The quarter-hour sums kept, and those the accepted tallies give, as JSON texts.
async fn slot_sums(conn: &mut AsyncPgConnection) -> (String, String) {
    let kept = sql_query(
        "SELECT COALESCE(jsonb_agg(jsonb_build_array(campaign_id, slot, metric, question_id, value, n)
                ORDER BY campaign_id, slot, metric, question_id, value), '[]')::text AS sums
         FROM result_slot_counts WHERE n <> 0",
    )
    .get_result::<Sums>(conn)
    .await
    .expect("read")
    .sums;
    let tallied = sql_query(
        "SELECT COALESCE(jsonb_agg(jsonb_build_array(campaign_id, slot, metric, question_id, value, n)
                ORDER BY campaign_id, slot, metric, question_id, value), '[]')::text AS sums
         FROM (SELECT r.campaign_id, r.completed_slot AS slot, e.metric, e.question_id, e.value, sum(e.n) AS n
               FROM result_sessions r
                    CROSS JOIN LATERAL unnest(r.metrics, r.questions, r.vals, r.ns) AS e(metric, question_id, value, n)
               WHERE r.accepted AND e.metric = ANY ($1::text[])
               GROUP BY 1, 2, 3, 4, 5) x",
    )
    .bind::<diesel::sql_types::Array<diesel::sql_types::Text>, _>(
        trend_metrics().into_iter().map(Metric::code).collect::<Vec<_>>(),
    )
    .get_result::<Sums>(conn)
    .await
    .expect("read")
    .sums;
    (kept, tallied)
}

/// The quarter-hour sums trends read hold exactly the accepted tallies' trend counters, after
/// the first analysis, the migration's backfill, a re-analysis and tallies removed.
#[tokio::test]
async fn quarter_hour_sums_are_the_accepted_tallies_through_reanalysis_and_removal() {
    let database = TestDatabase::create().await;
    let (w, _, campaign) = analyzed_campaign(&database).await;
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    let (kept, tallied) = slot_sums(&mut conn).await;
    assert!(kept.len() > 100 && kept == tallied, "{kept}\n{tallied}");

    let migration = "../../migrations/2026-12-10-000030_result_slots";
    for file in ["down.sql", "up.sql"] {
        let sql = std::fs::read_to_string(format!("{}/{migration}/{file}", env!("CARGO_MANIFEST_DIR"))).expect("read");
        conn.batch_execute(&sql).await.expect("ran");
    }
    assert_eq!(slot_sums(&mut conn).await.0, kept, "the backfill");

    let analysis = pulse_domain::analysis::service::Analysis::new(
        w.store.clone(),
        pulse_testing::contract::results::ScoreMarks(FakeAnalyzer { version: "2" }),
        w.crypto.clone(),
        w.clock.clone(),
    );
    assert_eq!(analysis.rerun(campaign.campaign.id).await.expect("requeued"), 16);
    analyze_all(&w, "2").await;
    let (again, tallied) = slot_sums(&mut conn).await;
    assert_eq!(again, tallied, "after a re-analysis");

    sql_query("DELETE FROM result_sessions WHERE session_id IN (SELECT session_id FROM result_sessions LIMIT 3)")
        .execute(&mut conn)
        .await
        .expect("removed");
    let (fewer, tallied) = slot_sums(&mut conn).await;
    assert!(fewer != again && fewer == tallied, "after tallies are removed");

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
