//! Sessions analyzed without a tally (before results were tallied, or by a replica still running
//! older code): the worker's claims pick them up after every due job, and recording them again
//! gives exactly the results computed from every answer.

use diesel::sql_query;
use diesel::sql_types::Uuid as SqlUuid;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl as _};
use pulse_domain::analysis::ports::AnalysisRepository as _;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::results::service::Results;
use pulse_domain::shared::clock::Clock as _;
use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PoolSettings, connect};
use pulse_testing::contract::World;
use pulse_testing::contract::results::{
    BOUNDARY_PEOPLE, analyze_all, assert_tallies_agree, quoting_campaign, respond, respond_all,
};
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};
use time::Duration;

#[tokio::test]
async fn analyses_recorded_without_a_tally_are_caught_up_after_new_completions() {
    let database = TestDatabase::create().await;
    let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    respond_all(&w, &p, &campaign).await;
    analyze_all(&w, "1").await;
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

#[derive(diesel::QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}
