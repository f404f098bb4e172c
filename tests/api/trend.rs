//! Results over time: a campaign answered over three weeks, walked through with the settable
//! clock, read by day and by week, and read over every range a reader might subtract.

use serde_json::{Value, json};
use time::{Date, Duration, Weekday};

use crate::helpers::campaigns::{code_of, id_of};
use crate::helpers::{TestApp, envelope, spawn_app};

async fn trend(app: &TestApp, key: &str, campaign: &str, query: &[(&str, &str)]) -> Value {
    let response = app.trend(key, campaign, query).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

/// (period, firstDay, lastDay, acceptedCount, CSAT satisfied) of each bucket.
fn buckets(trend: &Value) -> Vec<(String, String, String, u64, u64)> {
    trend["buckets"]
        .as_array()
        .expect("buckets")
        .iter()
        .map(|b| {
            let text = |field: &str| b[field].as_str().expect(field).to_owned();
            let count = b["acceptedCount"].as_u64().expect("count");
            (text("period"), text("firstDay"), text("lastDay"), count, b["csat"]["satisfied"].as_u64().expect("csat"))
        })
        .collect()
}

fn total(trend: &Value) -> u64 {
    trend["buckets"].as_array().expect("buckets").iter().map(|b| b["acceptedCount"].as_u64().expect("count")).sum()
}

/// Six answers on the first Monday, two on the second week's Wednesday, seven on the third
/// week's Tuesday; each answers in the morning (UTC) and rates as listed.
#[tokio::test]
async fn three_weeks_of_answers_give_weekly_buckets_that_match_a_hand_count() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let campaign = app.live_campaign(&key).await;
    let monday = app.now().date().next_occurrence(Weekday::Monday);
    let days: [(Date, &[i64]); 3] = [
        (monday, &[5, 5, 5, 4, 2, 1]),
        (monday + Duration::days(9), &[1, 1]),
        (monday + Duration::days(15), &[5, 5, 5, 5, 4, 4, 3]),
    ];
    for (day, ratings) in days {
        app.clock.set(day.with_hms(9, 0, 0).expect("a time").assume_utc());
        for rating in ratings {
            let text = if *rating >= 4 { "Quick and friendly delivery." } else { "Late and cold again." };
            app.respond(code_of(&campaign), &json!({}), &[("q1", json!(rating)), ("q2", json!(text))]).await;
        }
    }
    let id = id_of(&campaign);
    app.analyzed_results(&key, id, 15).await;
    let date = |d: Date| d.to_string();
    let (week1, week2) = (monday, monday + Duration::days(7));
    let (wednesday2, tuesday3) = (days[1].0, days[2].0);

    // By hand: week 1 holds 6 (4 satisfied). Week 2's two are fewer than the floor (5), so they
    // join the next answers, week 3's seven: one bucket of 9 (6 satisfied), labelled week 2,
    // covering its Wednesday to week 3's Tuesday. Week 3 has no bucket of its own.
    let weekly = trend(&app, &key, id, &[("interval", "week")]).await;
    assert_eq!(
        buckets(&weekly),
        vec![(date(week1), date(week1), date(week1), 6, 4), (date(week2), date(wednesday2), date(tuesday3), 9, 6),]
    );
    assert_eq!(
        (&weekly["interval"], &weekly["timeZone"], &weekly["firstDay"], &weekly["lastDay"], &weekly["suppression"]),
        (&json!("week"), &json!("UTC"), &json!(date(week1)), &json!(date(tuesday3)), &Value::Null)
    );
    assert_eq!(weekly["buckets"][0]["csat"]["score"], 0.667);

    // The JSON export carries the same weeks.
    let exporter = app.key_of(&partner, &["channel:export", "channel:results"]).await;
    app.export_worker_beats().await;
    let queued = app.queued_export(&exporter.key, id, &json!({"format": "json"})).await;
    let ready = app.ready_export(&exporter.key, queued["id"].as_str().expect("id")).await;
    let file: Value = app.download(ready["download"]["url"].as_str().expect("url")).await.json().await.expect("json");
    assert_eq!((&file["trend"]["interval"], &file["trend"]["timeZone"]), (&json!("week"), &json!("UTC")));
    let exported: Vec<(Value, Value, Value, Value, Value)> = file["trend"]["buckets"]
        .as_array()
        .expect("buckets")
        .iter()
        .map(|b| {
            (
                b["period"].clone(),
                b["firstDay"].clone(),
                b["lastDay"].clone(),
                b["accepted"].clone(),
                b["csat"]["satisfied"].clone(),
            )
        })
        .collect();
    assert_eq!(
        exported,
        vec![
            (json!(date(week1)), json!(date(week1)), json!(date(week1)), json!(6), json!(4)),
            (json!(date(week2)), json!(date(wednesday2)), json!(date(tuesday3)), json!(9), json!(6)),
        ]
    );
    let monthly = trend(&app, &key, id, &[("interval", "month")]).await;
    assert_eq!(total(&monthly), 15, "every session is in some bucket");
    let daily = trend(&app, &key, id, &[("interval", "day")]).await;
    assert_eq!(
        buckets(&daily),
        vec![(date(week1), date(week1), date(week1), 6, 4), (date(wednesday2), date(wednesday2), date(tuesday3), 9, 6),],
        "the blocks are the same whatever the interval"
    );
    let late_zone = trend(&app, &key, id, &[("interval", "week"), ("timeZone", "Pacific/Kiritimati")]).await;
    assert_eq!(late_zone["timeZone"], "Pacific/Kiritimati");
    assert_eq!(total(&late_zone), 15, "09:00 UTC is 23:00 the same day at UTC+14");

    // A cumulative range less a shorter one: every range a reader may ask, from or to each day
    // of the three weeks, totals 0, 6, 9 or 15. No two differ by fewer than the floor.
    let mut totals = std::collections::BTreeSet::new();
    for offset in 0..21 {
        let day = date(monday + Duration::days(offset));
        totals.insert(total(&trend(&app, &key, id, &[("interval", "day"), ("to", &day)]).await));
        totals.insert(total(&trend(&app, &key, id, &[("interval", "day"), ("from", &day)]).await));
        totals.insert(total(&trend(&app, &key, id, &[("interval", "day"), ("from", &day), ("to", &day)]).await));
    }
    assert_eq!(totals.into_iter().collect::<Vec<_>>(), vec![0, 6, 9, 15]);
}

#[tokio::test]
async fn a_trend_refuses_like_the_results_route() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    for (query, field) in [
        (vec![("interval", "hour")], "interval"),
        (vec![("from", "29/11/2026")], "from"),
        (vec![("from", "2026-12-01"), ("to", "2026-11-01")], "from"),
        (vec![("timeZone", "Mars/Olympus")], "timeZone"),
        (vec![("interval", "day"), ("interval", "week")], "interval"),
        (vec![("colour", "red")], "colour"),
    ] {
        let (status, code, description) = envelope(app.trend(&partner.key.key, id, &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
        assert!(description.contains(field), "{description}");
    }
    let (status, code, _) = envelope(app.trend("svc_nope_nope", id, &[]).await).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    let provision_only =
        app.create_key_with(Some(partner.business), &["channel:provision"], &[partner.workspace], None).await;
    let (status, code, description) = envelope(app.trend(&provision_only.key, id, &[]).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:results"));
    let stranger = app.campaign_partner().await;
    let (status, code, _) = envelope(app.trend(&stranger.key.key, id, &[]).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "another workspace's campaign is unknown");
    let empty = trend(&app, &partner.key.key, id, &[]).await;
    assert_eq!(
        (&empty["buckets"], &empty["suppression"], &empty["firstDay"]),
        (&json!([]), &json!("GROUP_BELOW_FLOOR"), &Value::Null)
    );
}
