//! How long the results route's read, its breakdown and its trend take as a campaign grows: seeds
//! tallied sessions directly (as the analysis worker would leave them, completed over 90 days) and
//! times unfiltered and filtered reads at 1k, 10k and 100k sessions. Speed is measured, never
//! asserted; run it on purpose:
//!
//! ```sh
//! cargo test --release -p pulse-postgres --test results_timing -- --ignored --nocapture
//! ```

use diesel::sql_query;
use diesel::sql_types::{Jsonb, Uuid as SqlUuid};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl as _};
use pulse_domain::analysis::models::KeyPhrase;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::ids::{CampaignId, SessionId};
use pulse_domain::results::models::{
    AnswerTally, Dimension, PhraseMention, ResultsFilter, SealedQuote, SessionTally, Subtag, TrendRequest,
    merge_counts, phrase_key_input, phrase_label_input, phrase_seal_context, quote_seal_context,
};
use pulse_domain::results::service::Results;
use pulse_domain::shared::crypto::{Crypto as _, DigestPurpose};
use pulse_domain::shared::hex::encode as hex;
use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PoolSettings, connect};
use pulse_testing::contract::World;
use pulse_testing::contract::results::{quoting_campaign, without_transcripts};
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Instant;

/// A made-up analyzed session: a rating, a text answer with up to three phrases from a vocabulary
/// of 300 words, a score, and a quotable text.
fn tally_of(crypto: &TestCrypto, campaign: CampaignId, session: SessionId, i: usize) -> SessionTally {
    #[allow(clippy::cast_precision_loss)]
    let score = (i % 21) as f64 / 10.0 - 1.0;
    let mut phrases: Vec<PhraseMention> = Vec::new();
    for k in 0..3 {
        let word = format!("word{}", (i * (k + 3) + k * 101) % 300);
        let label = if (i + k).is_multiple_of(4) { format!("{word}s") } else { word.clone() };
        let phrase = KeyPhrase { key: word, label };
        let key_digest = crypto.keyed_digest(DigestPurpose::ResultsPhrase, &phrase_key_input(campaign, &phrase));
        let label_digest = crypto.keyed_digest(DigestPurpose::ResultsPhrase, &phrase_label_input(campaign, &phrase));
        if phrases.iter().any(|p| p.key_digest == key_digest && p.label_digest == label_digest) {
            continue;
        }
        let sealed = crypto.seal(
            &phrase_seal_context(campaign, &key_digest, &label_digest),
            &serde_json::to_vec(&[&phrase.key, &phrase.label]).expect("json"),
        );
        phrases.push(PhraseMention { key_digest, label_digest, phrase_sealed: sealed, mentions: 1 });
    }
    let text = format!("answer {i} with some words about word{}", i % 300);
    SessionTally {
        duration_secs: 20 + u32::try_from(i % 400).expect("small"),
        coverage: if i.is_multiple_of(3) { 2.0 / 3.0 } else { 1.0 },
        answers: vec![
            AnswerTally {
                question_id: "q1".into(),
                rating: Some(i16::try_from(i % 5 + 1).expect("small")),
                text_analyzed: false,
                sentiment_covered: false,
                score: None,
                language: None,
                other_language: false,
                quote: None,
                phrases: Vec::new(),
            },
            AnswerTally {
                question_id: "q2".into(),
                rating: None,
                text_analyzed: true,
                sentiment_covered: true,
                score: Some(score),
                language: Subtag::parse(if i.is_multiple_of(10) { "de" } else { "en" }),
                other_language: i.is_multiple_of(10),
                quote: Some(SealedQuote {
                    len: u32::try_from(text.len()).expect("short"),
                    sealed: crypto.seal(&quote_seal_context(session, "q2"), text.as_bytes()),
                }),
                phrases,
            },
        ],
    }
}

/// Campaign-wide sums kept across batches, written once per size.
#[derive(Default)]
struct Sums {
    counts: Vec<pulse_domain::results::models::Count>,
    themes: BTreeMap<(String, String), (i64, i64, i64)>,
    labels: BTreeMap<(String, String, String), i64>,
    phrases: BTreeMap<(String, String), String>,
}

async fn seed(
    conn: &mut AsyncPgConnection,
    crypto: &TestCrypto,
    campaign: CampaignId,
    from: usize,
    to: usize,
    sums: &mut Sums,
) {
    for start in (from..to).step_by(5_000) {
        let end = (start + 5_000).min(to);
        let (mut sessions, mut rows, mut shares, mut quotes) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in start..end {
            let session = SessionId::new_random();
            let tally = tally_of(crypto, campaign, session, i);
            let platform = ["ios", "android", "web"][i % 3];
            let plan = if i % 2 == 0 { "pro" } else { "free" };
            let context =
                json!({"device": {"platform": platform, "appVersion": "2.1.0"}, "attributes": {"plan": plan}});
            // Spread over the 90 days before now, a few minutes apart, as a long campaign's answers.
            let minutes_ago = i64::try_from((i * 37) % (90 * 24 * 60)).expect("small");
            sessions.push(json!({"id": session.0, "context": context, "tags": [], "minutes_ago": minutes_ago}));
            let counts = tally.counts(None);
            rows.push(json!({
                "session_id": session.0, "platform": platform, "app_version": "2.1.0",
                "attributes": {"plan": plan},
                "metrics": counts.iter().map(|c| c.metric.code()).collect::<Vec<_>>(),
                "questions": counts.iter().map(|c| c.question_id.clone()).collect::<Vec<_>>(),
                "vals": counts.iter().map(|c| c.value).collect::<Vec<_>>(),
                "ns": counts.iter().map(|c| c.n).collect::<Vec<_>>(),
            }));
            sums.counts.extend(counts);
            let mut seen = std::collections::BTreeSet::new();
            for share in tally.themes() {
                let key = (share.scope.clone(), hex(&share.key_digest));
                let theme = sums.themes.entry(key.clone()).or_default();
                if seen.insert(key.clone()) {
                    theme.0 += 1;
                }
                theme.1 += share.score_sum;
                theme.2 += i64::try_from(share.scores).expect("small");
                *sums.labels.entry((key.0, key.1, hex(&share.label_digest))).or_default() +=
                    i64::try_from(share.mentions).expect("small");
                shares.push(json!({
                    "session_id": session.0, "scope": share.scope, "key_digest": hex(&share.key_digest),
                    "label_digest": hex(&share.label_digest), "mentions": share.mentions,
                    "score_sum": share.score_sum, "scores": share.scores,
                }));
            }
            for answer in &tally.answers {
                for phrase in &answer.phrases {
                    sums.phrases
                        .entry((hex(&phrase.key_digest), hex(&phrase.label_digest)))
                        .or_insert_with(|| hex(&phrase.phrase_sealed));
                }
                if let Some(quote) = &answer.quote {
                    quotes.push(json!({
                        "session_id": session.0, "question_id": answer.question_id, "score": answer.score,
                        "len": quote.len, "text_sealed": hex(&quote.sealed),
                    }));
                }
            }
        }
        sum_up(&mut sums.counts);
        for (statement, data) in [
            (
                "INSERT INTO sessions (id, campaign_id, token_digest, language, tags, context, status, answered, total,
                    started_at, completed_at)
                 SELECT x.id, $1, '\\x00', 'en', x.tags, x.context, 'COMPLETED', 2, 2,
                    now() - make_interval(mins => x.minutes_ago), now() - make_interval(mins => x.minutes_ago)
                 FROM jsonb_to_recordset($2) AS x(id uuid, tags text[], context jsonb, minutes_ago int)",
                sessions,
            ),
            (
                "INSERT INTO result_sessions (session_id, campaign_id, accepted, platform, app_version, device_id, tags,
                    attributes, metrics, questions, vals, ns)
                 SELECT x.session_id, $1, true, x.platform, x.app_version, NULL, '{}', x.attributes, x.metrics,
                    x.questions, x.vals, x.ns
                 FROM jsonb_to_recordset($2) AS x(session_id uuid, platform text, app_version text, attributes jsonb,
                    metrics text[], questions text[], vals bigint[], ns bigint[])",
                rows,
            ),
            (
                "INSERT INTO result_theme_shares (session_id, campaign_id, scope, key_digest, label_digest, mentions,
                    score_sum, scores)
                 SELECT x.session_id, $1, x.scope, decode(x.key_digest, 'hex'), decode(x.label_digest, 'hex'),
                    x.mentions, x.score_sum, x.scores
                 FROM jsonb_to_recordset($2) AS x(session_id uuid, scope text, key_digest text, label_digest text,
                    mentions bigint, score_sum bigint, scores bigint)",
                shares,
            ),
            (
                "INSERT INTO result_quotes (session_id, question_id, campaign_id, score, len, text_sealed)
                 SELECT x.session_id, x.question_id, $1, x.score, x.len, decode(x.text_sealed, 'hex')
                 FROM jsonb_to_recordset($2) AS x(session_id uuid, question_id text, score float8, len int,
                    text_sealed text)",
                quotes,
            ),
        ] {
            sql_query(statement)
                .bind::<SqlUuid, _>(campaign.0)
                .bind::<Jsonb, _>(Value::Array(data))
                .execute(conn)
                .await
                .expect("seeded");
        }
    }
    // The campaign's sums, as the recording transactions would have left them.
    let counts: Vec<Value> = sums
        .counts
        .iter()
        .map(|c| json!({"metric": c.metric.code(), "question_id": c.question_id, "value": c.value, "n": c.n}))
        .collect();
    let themes: Vec<Value> = sums
        .themes
        .iter()
        .map(|((scope, key), (sessions, sum, n))| json!({"scope": scope, "key": key, "sessions": sessions, "sum": sum, "n": n}))
        .collect();
    let labels: Vec<Value> = sums
        .labels
        .iter()
        .map(|((scope, key, label), n)| json!({"scope": scope, "key": key, "label": label, "n": n}))
        .collect();
    let phrases: Vec<Value> = sums
        .phrases
        .iter()
        .map(|((key, label), sealed)| json!({"key": key, "label": label, "sealed": sealed}))
        .collect();
    for statement in [
        "DELETE FROM result_counts WHERE campaign_id = $1",
        "DELETE FROM result_themes WHERE campaign_id = $1",
        "DELETE FROM result_theme_labels WHERE campaign_id = $1",
        "DELETE FROM result_phrases WHERE campaign_id = $1",
    ] {
        sql_query(statement).bind::<SqlUuid, _>(campaign.0).execute(conn).await.expect("emptied");
    }
    for (statement, data) in [
        (
            "INSERT INTO result_counts (campaign_id, metric, question_id, value, n)
             SELECT $1, x.metric, x.question_id, x.value, x.n
             FROM jsonb_to_recordset($2) AS x(metric text, question_id text, value bigint, n bigint)",
            Value::Array(counts),
        ),
        (
            "INSERT INTO result_themes (campaign_id, scope, key_digest, sessions, score_sum, scores)
             SELECT $1, x.scope, decode(x.key, 'hex'), x.sessions, x.sum, x.n
             FROM jsonb_to_recordset($2) AS x(scope text, key text, sessions bigint, sum bigint, n bigint)",
            Value::Array(themes),
        ),
        (
            "INSERT INTO result_theme_labels (campaign_id, scope, key_digest, label_digest, mentions)
             SELECT $1, x.scope, decode(x.key, 'hex'), decode(x.label, 'hex'), x.n
             FROM jsonb_to_recordset($2) AS x(scope text, key text, label text, n bigint)",
            Value::Array(labels),
        ),
        (
            "INSERT INTO result_phrases (campaign_id, key_digest, label_digest, phrase_sealed)
             SELECT $1, decode(x.key, 'hex'), decode(x.label, 'hex'), decode(x.sealed, 'hex')
             FROM jsonb_to_recordset($2) AS x(key text, label text, sealed text)",
            Value::Array(phrases),
        ),
    ] {
        sql_query(statement).bind::<SqlUuid, _>(campaign.0).bind::<Jsonb, _>(data).execute(conn).await.expect("summed");
    }
    sql_query("ANALYZE").execute(conn).await.expect("analyzed");
}

fn sum_up(counts: &mut Vec<pulse_domain::results::models::Count>) {
    *counts = merge_counts(std::mem::take(counts));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(clippy::print_stdout)]
#[ignore = "a measurement: run it on purpose, in release"]
async fn results_reads_stay_flat_as_the_campaign_grows() {
    let database = TestDatabase::create().await;
    let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
    let w = World::new(store);
    let (p, campaign) = quoting_campaign(&w).await;
    let id = campaign.campaign.id;
    let crypto = TestCrypto::default();
    let results = Results::new(w.store.clone(), crypto.clone(), w.clock.clone(), FakeAnalyzer::default().info());
    let mut conn = AsyncPgConnection::establish(database.url()).await.expect("a connection");
    let mut sums = Sums::default();
    let mut seeded = 0;
    let mut over_time = Vec::new();
    let plain = without_transcripts(&w, &p).await;
    println!(
        "| sessions | unfiltered | unfiltered, quotes | platform=ios | platform=ios, quotes | attribute.plan=pro | platform=ios and attribute.plan=pro | platform=ios and attribute.plan=pro, quotes |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for size in [1_000, 10_000, 100_000] {
        seed(&mut conn, &crypto, id, seeded, size, &mut sums).await;
        seeded = size;
        let mut cells = Vec::new();
        let cases = [
            (&plain, &[][..]),
            (&p.principal, &[][..]),
            (&plain, &[("platform", "ios")][..]),
            (&p.principal, &[("platform", "ios")][..]),
            (&plain, &[("attribute.plan", "pro")][..]),
            (&plain, &[("platform", "ios"), ("attribute.plan", "pro")][..]),
            (&p.principal, &[("platform", "ios"), ("attribute.plan", "pro")][..]),
        ];
        for (principal, params) in cases {
            let params: Vec<(String, String)> =
                params.iter().map(|(k, v): &(&str, &str)| ((*k).to_owned(), (*v).to_owned())).collect();
            let filter = ResultsFilter::parse(&params).expect("a filter");
            let mut times = Vec::new();
            for _ in 0..7 {
                let started = Instant::now();
                let read = results.results(principal, None, id, filter.clone()).await.expect("results");
                times.push(started.elapsed());
                assert!(read.accepted_count > 0);
            }
            times.sort();
            cells.push(format!("{:.1} ms", times[3].as_secs_f64() * 1000.0));
        }
        println!("| {size} | {} |", cells.join(" | "));
        over_time.push(format!("| {size} | {} |", by_group_and_time(&results, &p.principal, id).await.join(" | ")));
    }
    println!();
    println!(
        "| sessions | breakdown by platform | breakdown by platform, attribute.plan=pro | weekly trend | daily trend | weekly trend, platform=ios |"
    );
    println!("|---|---|---|---|---|---|");
    for row in over_time {
        println!("{row}");
    }
}

/// The median of 7 reads of the breakdown and trend routes, as table cells.
async fn by_group_and_time(
    results: &Results<pulse_postgres::PgStore, TestCrypto, pulse_domain::shared::clock::SettableClock>,
    principal: &pulse_domain::tenancy::models::Principal,
    id: CampaignId,
) -> Vec<String> {
    let params = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    };
    let median = |mut times: Vec<std::time::Duration>| {
        times.sort();
        format!("{:.1} ms", times[3].as_secs_f64() * 1000.0)
    };
    let mut cells = Vec::new();
    for query in [&[("by", "platform")][..], &[("by", "platform"), ("attribute", "plan:pro")][..]] {
        let mut times = Vec::new();
        for _ in 0..7 {
            let (by, filter) = Dimension::parse(&params(query)).expect("a breakdown");
            let started = Instant::now();
            let read = results.breakdown(principal, None, id, by, filter).await.expect("a breakdown");
            times.push(started.elapsed());
            assert!(!read.rows.is_empty());
        }
        cells.push(median(times));
    }
    for query in
        [&[("interval", "week")][..], &[("interval", "day")][..], &[("interval", "week"), ("platform", "ios")][..]]
    {
        let mut times = Vec::new();
        for _ in 0..7 {
            let request = TrendRequest::parse(&params(query)).expect("a trend");
            let started = Instant::now();
            let read = results.trend(principal, None, id, request).await.expect("a trend");
            times.push(started.elapsed());
            assert!(!read.buckets.is_empty());
        }
        cells.push(median(times));
    }
    cells
}
