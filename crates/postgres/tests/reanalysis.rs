//! Analyses that name no analyzer, as a database upgraded from a version that did not record it
//! holds them (and as a replica still on that version records them during the upgrade): the
//! analyzer in charge reads them again once, reusing every result whose model version is
//! unchanged, and names itself.

use diesel::sql_types::{Nullable, Text};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl as _};
use pulse_domain::analysis::models::AnalysisOutcome;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::analysis::service::Analysis;
use pulse_domain::results::service::Results;
use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PoolSettings, connect};
use pulse_testing::contract::World;
use pulse_testing::contract::results::{ScoreMarks, analyze_all, quoting_campaign, respond, respond_all};
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct AnalyzedWith {
    #[diesel(sql_type = Nullable<Text>)]
    analyzed_with: Option<String>,
}

async fn analyzed_with(conn: &mut AsyncPgConnection) -> Vec<AnalyzedWith> {
    sql_query("SELECT analyzed_with FROM analysis_jobs ORDER BY session_id").load(conn).await.expect("read")
}

#[tokio::test]
async fn analyses_naming_no_analyzer_are_read_again_once() {
    let database = TestDatabase::create().await;
    let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    respond_all(&w, &p, &campaign).await;
    respond(&w, &p, &campaign, &[("ios", "2.1.0", "pro", 3, "en", 4, " ", " ", 30)]).await;
    analyze_all(&w, "1").await;
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    let recorded = analyzed_with(&mut conn).await;
    let v1 = FakeAnalyzer { version: "1" }.info().fingerprint();
    let named = |with: &str| recorded.iter().filter(|r| r.analyzed_with.as_deref() == Some(with)).count();
    assert_eq!((named(&v1), named(""), recorded.len()), (16, 1, 17), "{recorded:?}");

    // As the upgrade leaves them, and as a replica on the older version records them.
    sql_query("UPDATE analysis_jobs SET analyzed_with = NULL").execute(&mut conn).await.expect("forgotten");
    let analysis =
        Analysis::new(w.store.clone(), ScoreMarks(FakeAnalyzer { version: "1" }), w.crypto.clone(), w.clock.clone());
    analysis.announce().await.expect("announced");
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), FakeAnalyzer::default().info());
    let id = campaign.campaign.id;
    assert_eq!(results.results(&p.principal, None, id, None).await.expect("results").metrics.pending_reanalysis, 17);
    let round = analysis.run_due().await.expect("a round");
    assert_eq!(round.len(), 17);
    for summary in &round {
        assert!(
            summary.reanalysis && matches!(summary.outcome, AnalysisOutcome::Recorded { run: 0, announced: false, .. }),
            "every result reused: {summary:?}"
        );
    }
    assert_eq!(results.results(&p.principal, None, id, None).await.expect("results").metrics.pending_reanalysis, 0);
    assert_eq!(analyzed_with(&mut conn).await, recorded);
}
