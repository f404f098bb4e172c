//! Aggregate results over sessions answered through the public routes and analyzed by the real
//! worker: counts, sentiment, themes and CSAT, the anonymity floor, filters, quotes, and
//! `feedback.analyzed`.

use pulse_domain::analysis::models::AnalysisOutcome;
use serde_json::{Value, json};

use crate::cli::{json_out, pulse};
use crate::helpers::campaigns::{CampaignPartner, code_of, id_of};
use crate::helpers::{TestApp, envelope, spawn_app, spawn_app_with};
use crate::receiver::Receiver;

/// Seven happy and three unhappy respondents: what a person reading them would summarise as
/// "mostly pleased, the late deliveries annoy".
pub(crate) const TEN: [(i64, &str, &str); 10] = [
    (5, "The driver was friendly and the delivery was fast. Great service!", "Keep the friendly drivers."),
    (5, "Great food, arrived hot and on time. Love it.", "Nothing, it was perfect."),
    (4, "Good food and a friendly driver.", "Maybe more vegetarian dishes."),
    (5, "Excellent service, the delivery was quick.", "Great as it is."),
    (4, "Tasty food, nice packaging, happy with the delivery.", "A loyalty discount would be nice."),
    (5, "Wonderful experience, the driver was polite and helpful.", "Keep it up!"),
    (4, "Good value and fast delivery.", "More desserts please."),
    (1, "Terrible. The delivery was late and the food was cold.", "Stop the late deliveries, it is awful."),
    (2, "The delivery was late again and support was rude.", "Fix the late deliveries, so disappointing."),
    (
        1,
        "Terrible, awful and horrible: cold food, late delivery, rude support. Call me at +44 20 7946 0958.",
        "Terrible support.",
    ),
];

async fn answered_campaign(app: &TestApp, partner: &CampaignPartner, people: &[(i64, &str, &str)]) -> Value {
    let campaign = app.live_campaign(&partner.key.key).await;
    for (rating, why, improve) in people {
        app.respond(
            code_of(&campaign),
            &json!({}),
            &[("q1", json!(rating)), ("q2", json!(why)), ("q3", json!(improve))],
        )
        .await;
    }
    campaign
}

fn count_of(results: &Value, label: &str) -> u64 {
    results["sentiment"].as_array().expect("sentiment").iter().find(|c| c["label"] == label).expect(label)["count"]
        .as_u64()
        .expect("count")
}

fn themes(results: &Value) -> Vec<&str> {
    results["themes"].as_array().expect("themes").iter().map(|t| t["theme"].as_str().expect("theme")).collect()
}

/// Twelve people rate how likely they are to recommend us, 0 to 10: five promoters (9, 10),
/// three passives (7, 8), four detractors (0 to 6). NPS = (5 - 4) / 12 = 8.3, shown as 8.
#[tokio::test]
async fn an_nps_campaign_s_score_matches_a_hand_count() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "name": "Recommend",
        "brief": {"intentText": "Would our customers recommend us?", "constraints": {"questionCount": 3, "nps": true}},
    });
    let response = app.provision(key, &brief).await;
    assert_eq!(response.status(), 201);
    let provisioned: Value = response.json().await.expect("json");
    let campaign = &provisioned["campaign"];
    let questions = &campaign["survey"]["questions"];
    assert_eq!(questions[1]["scale"], json!({"min": 0, "max": 10}), "q2 asks on 0 to 10: {questions}");
    assert!(questions[1]["texts"]["en"].as_str().is_some_and(|t| t.contains("recommend")), "{questions}");
    assert_eq!(app.launch_campaign(key, id_of(campaign)).await.status(), 200);
    let ratings = [10, 10, 10, 9, 9, 8, 8, 7, 6, 3, 0, 0];
    for (n, recommend) in ratings.iter().enumerate() {
        let csat = if n % 2 == 0 { 5 } else { 2 };
        let words = "The delivery was on time and the driver was friendly.";
        app.respond(
            code_of(campaign),
            &json!({}),
            &[("q1", json!(csat)), ("q2", json!(recommend)), ("q3", json!(words))],
        )
        .await;
    }
    let results = app.analyzed_results(key, id_of(campaign), 12).await;
    assert_eq!(
        results["nps"],
        json!({"score": 8, "promoters": 5, "passives": 3, "detractors": 4, "rated": 12}),
        "{results}"
    );
    assert_eq!(results["csat"], json!({"score": 0.5, "satisfied": 6, "rated": 12}), "CSAT beside it");
    assert_eq!(results["methodology"]["npsMethod"], "PROMOTERS_9_10_MINUS_DETRACTORS_0_6");

    // The JSON export carries the same score.
    let exporter = app.key_of(&partner, &["channel:export", "channel:results"]).await;
    app.export_worker_beats().await;
    let queued = app.queued_export(&exporter.key, id_of(campaign), &json!({"format": "json"})).await;
    let ready = app.ready_export(&exporter.key, queued["id"].as_str().expect("id")).await;
    let file: Value = app.download(ready["download"]["url"].as_str().expect("url")).await.json().await.expect("json");
    assert_eq!(file["schema"], "svc.partner-export.v1.2");
    assert_eq!(
        file["nps"],
        json!({"score": 8, "promoters": 5, "passives": 3, "detractors": 4, "rated": 12,
               "method": "PROMOTERS_9_10_MINUS_DETRACTORS_0_6"})
    );

    // Under the floor, as CSAT: withheld.
    let few = app.results(key, id_of(campaign), &[("attribute", "none:such")]).await;
    let few: Value = few.json().await.expect("json");
    assert_eq!((&few["floorApplied"], &few["nps"]), (&json!(true), &Value::Null), "{few}");

    // A campaign that did not ask: null.
    let plain = answered_campaign(&app, &partner, &TEN).await;
    let plain = app.analyzed_results(key, id_of(&plain), 10).await;
    assert_eq!(plain["nps"], Value::Null);
}

#[tokio::test]
async fn ten_respondents_give_counts_sentiment_themes_and_csat_a_reader_would_agree_with() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let results_only =
        app.create_key_with(Some(partner.business), &["channel:results"], &[partner.workspace], None).await;
    let campaign = answered_campaign(&app, &partner, &TEN).await;
    let results = app.analyzed_results(&results_only.key, id_of(&campaign), 10).await;

    let mut fields: Vec<&str> = results.as_object().expect("object").keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "acceptance",
            "acceptedCount",
            "anonymityFloor",
            "campaign",
            "csat",
            "filter",
            "floorApplied",
            "generatedAt",
            "inferred",
            "methodology",
            "metrics",
            "nps",
            "overallSentimentScore",
            "questions",
            "quotes",
            "sentiment",
            "themes",
            "weightedAcceptedCount"
        ]
    );
    assert_eq!(
        results["campaign"],
        json!({"campaignId": campaign["id"], "name": campaign["name"], "status": "ACTIVE", "respondentGroup": "OPEN"})
    );
    assert_eq!((results["acceptedCount"].as_u64(), results["weightedAcceptedCount"].as_u64()), (Some(10), Some(10)));
    assert_eq!((results["anonymityFloor"].as_u64(), &results["floorApplied"]), (Some(5), &json!(false)));
    assert_eq!(results["filter"], Value::Null);
    assert_eq!(count_of(&results, "POSITIVE"), 7);
    assert_eq!(count_of(&results, "NEGATIVE"), 3);
    assert_eq!(count_of(&results, "NEUTRAL"), 0);
    let overall = results["overallSentimentScore"].as_f64().expect("score");
    // Mostly pleased: the mean leans positive (at or above the label threshold), short of certain.
    assert!((0.05..0.8).contains(&overall), "mostly pleased: {overall}");
    assert_eq!(results["csat"], json!({"score": 0.7, "satisfied": 7, "rated": 10}));
    let found = themes(&results);
    assert!(found.iter().any(|t| t.contains("deliver")), "{found:?}");
    assert!(found.iter().any(|t| t.contains("late")), "{found:?}");
    assert!(found.iter().any(|t| t.contains("driver")), "{found:?}");
    assert!(results["themes"].as_array().expect("themes").iter().all(|t| t["count"].as_u64() >= Some(2)));
    let negative: Vec<&str> =
        results["inferred"]["negativeThemes"].as_array().expect("list").iter().filter_map(Value::as_str).collect();
    assert!(negative.iter().any(|t| t.contains("late")), "late deliveries lean negative: {negative:?}");
    assert_eq!(results["inferred"]["dominantSentiment"], "POSITIVE");
    assert_eq!(
        results["methodology"]["sentimentModel"]["languages"],
        json!(["de", "en", "es", "fr", "hi", "it", "nl", "pt"])
    );
    assert_eq!(results["methodology"]["languagesScored"], json!([{"language": "en", "answers": 20}]));
    assert_eq!(results["methodology"]["answersInOtherLanguage"], 0);
    assert_eq!(results["methodology"]["quotes"], "NOT_PERMITTED");
    assert_eq!(results["quotes"], json!([]));
    let q1 = &results["questions"][0];
    assert_eq!((q1["type"].as_str(), q1["answered"].as_u64()), (Some("rating"), Some(10)));
    assert_eq!(
        q1["rating"]["distribution"],
        json!([{"value": 1, "count": 2}, {"value": 2, "count": 1}, {"value": 3, "count": 0},
               {"value": 4, "count": 3}, {"value": 5, "count": 4}])
    );
    assert_eq!(results["metrics"]["scoredAnswers"], 20);
    assert_eq!(results["acceptance"]["accepted"], 10);

    // Aggregates only: no session, device or word of a respondent in the body.
    let text = results.to_string();
    for (_, why, improve) in TEN {
        assert!(!text.contains(why) && !text.contains(improve));
    }
    assert!(!text.contains("7946") && !text.contains("sessionId") && !text.contains("deviceId"));
}

#[tokio::test]
async fn four_respondents_are_below_the_floor_and_see_counts_only() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = answered_campaign(&app, &partner, &TEN[..4]).await;
    let results = app.analyzed_results(&partner.key.key, id_of(&campaign), 4).await;
    assert_eq!((results["acceptedCount"].as_u64(), &results["floorApplied"]), (Some(4), &json!(true)));
    assert_eq!(results["methodology"]["suppression"], "GROUP_BELOW_FLOOR");
    assert_eq!((&results["sentiment"], &results["themes"]), (&json!([]), &json!([])));
    assert_eq!((&results["csat"], &results["overallSentimentScore"]), (&Value::Null, &json!(0.0)));
    assert_eq!((&results["quotes"], &results["methodology"]["quotes"]), (&json!([]), &json!("HIDDEN_BY_FLOOR")));
    assert_eq!(
        (&results["inferred"]["positiveThemes"], &results["inferred"]["dominantSentiment"]),
        (&json!([]), &Value::Null)
    );
    for question in results["questions"].as_array().expect("questions") {
        assert_eq!(question["answered"], 4, "counts stay");
        assert_eq!(
            (&question["rating"], &question["sentiment"], &question["themes"]),
            (&Value::Null, &json!([]), &json!([]))
        );
    }
    assert_eq!(results["metrics"]["medianDurationSecs"], Value::Null);
    assert_eq!(results["metrics"]["completed"], 4);
}

#[tokio::test]
async fn filters_narrow_the_group_and_cannot_isolate_a_few_by_difference() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    for (i, (rating, why, _)) in TEN.iter().take(7).enumerate() {
        let plan = if i == 0 { "free" } else { "pro" };
        let link = app
            .mint_link(
                &partner.key.key,
                &json!({"campaignId": campaign["id"], "device": {"platform": "ios", "appVersion": "2.1.0"},
                        "attributes": {"plan": plan, "seats": 3}}),
            )
            .await;
        assert_eq!(link.status(), 201);
        let url: Value = link.json().await.expect("json");
        let token = crate::helpers::campaigns::Link::parse(url["url"].as_str().expect("url")).lt.expect("lt");
        app.respond(code_of(&campaign), &json!({"launchToken": token}), &[("q1", json!(rating)), ("q2", json!(why))])
            .await;
    }
    let everyone = app.analyzed_results(&partner.key.key, id_of(&campaign), 7).await;
    assert_eq!(everyone["floorApplied"], false);

    let filtered = |query: &'static [(&'static str, &'static str)]| {
        let app = &app;
        let key = partner.key.key.clone();
        let id = id_of(&campaign).to_owned();
        async move {
            let response = app.results(&key, &id, query).await;
            assert_eq!(response.status(), 200);
            response.json::<Value>().await.expect("json")
        }
    };
    let pro = filtered(&[("attribute.plan", "pro")]).await;
    assert_eq!(pro["acceptedCount"], 6);
    assert_eq!(
        (&pro["floorApplied"], &pro["methodology"]["suppression"]),
        (&json!(true), &json!("COMPLEMENT_BELOW_FLOOR"))
    );
    assert_eq!(pro["sentiment"], json!([]));
    assert_eq!(
        pro["filter"],
        json!({"platform": null, "appVersion": null, "language": null, "tags": [], "attributes": {"plan": "pro"}})
    );
    let without_time = |mut results: Value| {
        results.as_object_mut().expect("object").remove("generatedAt");
        results
    };
    let generated_form = filtered(&[("attribute", "plan:pro")]).await;
    assert_eq!(without_time(generated_form), without_time(pro.clone()), "attribute=plan:pro is attribute.plan=pro");
    let free = filtered(&[("attribute.plan", "free")]).await;
    assert_eq!((&free["acceptedCount"], &free["methodology"]["suppression"]), (&json!(1), &json!("GROUP_BELOW_FLOOR")));
    let ios = filtered(&[("platform", "iOS"), ("appVersion", "2.1.0"), ("attribute.seats", "3")]).await;
    assert_eq!((&ios["acceptedCount"], &ios["floorApplied"]), (&json!(7), &json!(false)));
    assert_eq!(count_of(&ios, "POSITIVE"), 7);
    let android = filtered(&[("platform", "android")]).await;
    assert_eq!((&android["acceptedCount"], &android["floorApplied"]), (&json!(0), &json!(true)));

    for (query, field) in [
        (vec![("colour", "red")], "colour"),
        (vec![("platform", "ios"), ("platform", "android")], "platform"),
        (vec![("attribute.", "x")], "attribute."),
        (vec![("attribute", "plan")], "attribute"),
    ] {
        let (status, code, description) = envelope(app.results(&partner.key.key, id_of(&campaign), &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
        assert!(description.contains(field), "{description}");
    }
}

#[tokio::test]
async fn quotes_need_the_transcripts_scope_and_never_carry_contact_details() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = answered_campaign(&app, &partner, &TEN).await;
    let results = app.analyzed_results(&partner.key.key, id_of(&campaign), 10).await;
    assert_eq!(results["methodology"]["quotes"], "INCLUDED");
    let quotes = results["quotes"].as_array().expect("quotes");
    assert!(!quotes.is_empty() && quotes.len() <= 6, "at most three per text question");
    for quote in quotes {
        assert_eq!(quote.as_object().expect("quote").len(), 3, "questionId, text, sentiment; no identity");
    }
    let text = results.to_string();
    assert!(!text.contains("7946"), "phone numbers are redacted");
    let awful =
        quotes.iter().find(|q| q["text"].as_str().is_some_and(|t| t.contains("Call me"))).expect("the most negative");
    assert_eq!(awful["sentiment"], "NEGATIVE");
    assert!(awful["text"].as_str().expect("text").ends_with("Call me at [phone]."));
}

#[tokio::test]
async fn results_refuse_like_every_campaign_route() {
    let app = spawn_app_with(|s| {
        s.quotas = s.quotas.clone().with_hourly(pulse_domain::quota::models::QuotaFamily::CampaignRead, 3);
    })
    .await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);

    let (status, code, _) = envelope(app.results("svc_nope_nope", id, &[]).await).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    let provision_only =
        app.create_key_with(Some(partner.business), &["channel:provision"], &[partner.workspace], None).await;
    let (status, code, description) = envelope(app.results(&provision_only.key, id, &[]).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:results"));
    let stranger = app.campaign_partner().await;
    let (status, code, _) = envelope(app.results(&stranger.key.key, id, &[]).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "another workspace's campaign is unknown");
    let (status, code, _) = envelope(app.results(&partner.key.key, "not-a-uuid", &[]).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));

    let empty = app.results(&partner.key.key, id, &[]).await;
    assert_eq!(empty.status(), 200);
    assert_eq!(app.results(&partner.key.key, id, &[]).await.status(), 200, "the third read of the hour");
    let body: Value = empty.json().await.expect("json");
    assert_eq!((&body["acceptedCount"], &body["floorApplied"], &body["csat"]), (&json!(0), &json!(true), &Value::Null));
    let (status, code, _) = envelope(app.results(&partner.key.key, id, &[]).await).await;
    assert_eq!((status, code.as_str()), (429, "RATE_LIMITED"));
}

#[tokio::test]
async fn the_servers_worker_analyzes_each_session_and_announces_it_once() {
    // The server's own workers do the work here: analysis, then delivery.
    let app = spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_every = std::time::Duration::from_millis(50);
        s.analysis_poll_every = std::time::Duration::from_millis(50);
    })
    .await;
    let receiver = Receiver::start().await;
    let partner = app.campaign_partner().await;
    let hooks = app.create_key_with(Some(partner.business), &["channel:webhooks"], &[partner.workspace], None).await;
    let created =
        app.create_webhook(&hooks.key, &json!({"url": receiver.url, "eventTypes": ["feedback.analyzed"]})).await;
    assert_eq!(created.status(), 201);
    let created: Value = created.json().await.expect("json");
    receiver.set_secret(created["secret"].as_str().expect("secret"));

    let campaign = app.live_campaign(&partner.key.key).await;
    let (rating, why, improve) = TEN[0];
    let session = app
        .respond(code_of(&campaign), &json!({}), &[("q1", json!(rating)), ("q2", json!(why)), ("q3", json!(improve))])
        .await;
    let delivered = receiver.wait_for(1).await;
    let event = delivered[0].json();
    assert_eq!(event["type"], "feedback.analyzed");
    let payload = &event["payload"];
    assert_eq!(payload["conversationId"], session.as_str());
    assert_eq!(payload["campaignId"], campaign["id"]);
    assert_eq!(payload["publicRef"], campaign["code"]);
    assert_eq!((&payload["answers"], &payload["exchanges"]), (&json!(3), &json!(3)));
    assert_eq!((&payload["analyzersRun"], &payload["analyzersReused"]), (&json!(4), &json!(0)));
    assert_eq!(
        (&payload["deviceId"], &payload["userId"], &payload["appInstallId"]),
        (&Value::Null, &Value::Null, &Value::Null)
    );
    assert!(!event.to_string().contains("friendly"), "no word said travels in an event");

    assert_eq!(app.count_where("webhook_events WHERE event_type = 'feedback.analyzed'").await, 1);
    assert_eq!(app.count_rows("analyzer_in_charge").await, 1, "the worker put its analyzer in charge");
}

#[tokio::test]
async fn answers_an_older_model_read_count_as_pending_until_read_again() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = answered_campaign(&app, &partner, &TEN[..6]).await;
    let first = app.analyzed_results(&partner.key.key, id_of(&campaign), 6).await;
    assert_eq!(first["metrics"]["pendingReanalysis"], 0, "{first}");

    // As a database keeps them after an upgrade: scored by an older sentiment model.
    app.execute_sql("UPDATE answer_analyses SET version = 'vader-3.3.2' WHERE step = 'sentiment'").await;
    app.execute_sql(
        "UPDATE analysis_jobs SET analyzed_with = regexp_replace(analyzed_with, '^sentiment=\\S+', 'sentiment=vader-3.3.2')",
    )
    .await;
    let staged: Value = app.results(&partner.key.key, id_of(&campaign), &[]).await.json().await.expect("json");
    assert_eq!(staged["metrics"]["pendingReanalysis"], 6, "{staged}");
    assert_eq!(staged["sentiment"], first["sentiment"], "counted with their earlier results meanwhile");

    let again = app.analyze().await;
    assert_eq!(again.len(), 6);
    for summary in &again {
        assert!(summary.reanalysis, "{summary:?}");
        assert_eq!(
            summary.outcome,
            AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 2, reused: 2, announced: false },
            "the sentiment of both text answers read again, their themes reused"
        );
    }
    let after: Value = app.results(&partner.key.key, id_of(&campaign), &[]).await.json().await.expect("json");
    assert_eq!(after["metrics"]["pendingReanalysis"], 0, "{after}");
    assert_eq!(after["sentiment"], first["sentiment"]);
    assert_eq!(app.count_where("answer_analyses WHERE version = 'vader-3.3.2'").await, 0);
    assert_eq!(app.count_where("webhook_events WHERE event_type = 'feedback.analyzed'").await, 6, "announced once");
}

#[tokio::test]
async fn a_rerun_reuses_unchanged_results_and_announces_nothing_again() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (rating, why, improve) = TEN[0];
    let session = app
        .respond(code_of(&campaign), &json!({}), &[("q1", json!(rating)), ("q2", json!(why)), ("q3", json!(improve))])
        .await;
    let first = app.analyze().await;
    assert_eq!(first.len(), 1);
    assert_eq!(
        first[0].outcome,
        AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 4, reused: 0, announced: true }
    );
    assert!(app.analyze().await.is_empty(), "nothing is analyzed twice unasked");

    let rerun = json_out(&pulse(&app, &["admin", "analysis", "rerun", "--campaign", id_of(&campaign)]));
    assert_eq!(rerun, json!({"campaignId": campaign["id"], "queued": 1}));
    // The operator's command queues at the wall-clock time; the app's clock catches up with it.
    app.clock.advance(time::Duration::days(3650));
    let again = app.analyze().await;
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].session.to_string(), session);
    assert_eq!(
        again[0].outcome,
        AnalysisOutcome::Recorded { accepted: true, rejection: None, run: 0, reused: 4, announced: false }
    );
    assert_eq!(app.count_rows("answer_analyses").await, 4, "two analyzers for each of the two text answers");
    assert_eq!(app.count_where("webhook_events WHERE event_type = 'feedback.analyzed'").await, 1, "announced once");
    let unknown = pulse(&app, &["admin", "analysis", "rerun", "--campaign", &uuid::Uuid::new_v4().to_string()]);
    assert!(!unknown.status.success(), "an unknown campaign is refused");
}
