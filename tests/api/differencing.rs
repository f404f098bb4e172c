//! Differencing attacks on results, each tried the way a curious reader would: subtracting one
//! view from another, adding and subtracting several, and subtracting the rows of a breakdown
//! from its total. Each must fail to give away fewer than the floor (5) sessions' measures.

use serde_json::{Value, json};

use crate::helpers::campaigns::{CampaignPartner, Link, code_of, id_of};
use crate::helpers::{TestApp, envelope, spawn_app};

/// A group of people launched with the same labels who all rate the same.
struct People {
    platform: Option<&'static str>,
    plan: &'static str,
    count: usize,
    rating: i64,
    /// The language they answer in: the campaign offers `en` and `fr`.
    language: &'static str,
}

const fn people(platform: &'static str, plan: &'static str, count: usize, rating: i64) -> People {
    People { platform: Some(platform), plan, count, rating, language: "en" }
}

const fn french(platform: &'static str, plan: &'static str, count: usize, rating: i64) -> People {
    People { platform: Some(platform), plan, count, rating, language: "fr" }
}

/// A live campaign answered by `groups`, every session analyzed.
async fn answered(app: &TestApp, partner: &CampaignPartner, groups: &[People]) -> Value {
    let campaign = app.live_campaign(&partner.key.key).await;
    let mut total = 0;
    for group in groups {
        for _ in 0..group.count {
            let mut launch = json!({"campaignId": campaign["id"], "attributes": {"plan": group.plan}});
            if let Some(platform) = group.platform {
                launch["device"] = json!({"platform": platform, "appVersion": "2.1.0"});
            }
            let response = app.mint_link(&partner.key.key, &launch).await;
            assert_eq!(response.status(), 201);
            let link: Value = response.json().await.expect("json");
            let token = Link::parse(link["url"].as_str().expect("url")).lt.expect("lt");
            let text = match (group.language, group.rating >= 4) {
                ("fr", true) => "Livraison rapide, livreur aimable.",
                ("fr", false) => "Livraison en retard, repas froid.",
                (_, true) => "Good delivery, friendly driver.",
                (_, false) => "Late delivery, cold food.",
            };
            app.respond(
                code_of(&campaign),
                &json!({"launchToken": token, "language": group.language}),
                &[("q1", json!(group.rating)), ("q2", json!(text))],
            )
            .await;
            total += 1;
        }
    }
    app.analyzed_results(&partner.key.key, id_of(&campaign), total).await;
    campaign
}

async fn view(app: &TestApp, key: &str, campaign: &str, query: &[(&str, &str)]) -> Value {
    let response = app.results(key, campaign, query).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

async fn breakdown_of(app: &TestApp, key: &str, campaign: &str, query: &[(&str, &str)]) -> Value {
    let response = app.breakdown(key, campaign, query).await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("json")
}

/// Satisfied ratings (4 and 5) a view shows, or `None` when its measures are suppressed.
fn satisfied(view: &Value) -> Option<i64> {
    view["csat"]["satisfied"].as_i64()
}

/// 21 people: 8 iOS pro, 2 iOS free, 6 Android pro, 5 Android free. The two iOS free users are
/// the ones to protect: they rate 1, everyone else 5.
const SCENE: [People; 4] = [
    people("ios", "pro", 8, 5),
    people("ios", "free", 2, 1),
    people("android", "pro", 6, 5),
    people("android", "free", 5, 5),
];

#[tokio::test]
async fn overlapping_filters_cannot_give_away_a_few_by_subtraction() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let campaign = answered(&app, &partner, &SCENE).await;
    let campaign = id_of(&campaign);

    // One view and its complement, as before: each passes, 10 and 11 sessions.
    let ios = view(&app, &key, campaign, &[("platform", "ios")]).await;
    assert_eq!((&ios["acceptedCount"], &ios["floorApplied"]), (&json!(10), &json!(false)));
    assert_eq!(satisfied(&ios), Some(8));
    let everyone = view(&app, &key, campaign, &[]).await;
    assert_eq!(satisfied(&everyone), Some(19));

    // Attack 1, two nested filters: iOS less iOS-and-pro would be the two iOS free users.
    let ios_pro = view(&app, &key, campaign, &[("platform", "ios"), ("attribute", "plan:pro")]).await;
    assert_eq!(ios_pro["acceptedCount"], 8, "counts stay visible, as for every filter");
    assert_eq!(
        (&ios_pro["floorApplied"], &ios_pro["methodology"]["suppression"], satisfied(&ios_pro)),
        (&json!(true), &json!("COMPLEMENT_BELOW_FLOOR"), None),
        "the narrower view is suppressed, read before or after the wider one"
    );
    let ios_free = view(&app, &key, campaign, &[("platform", "ios"), ("attribute", "plan:free")]).await;
    assert_eq!((&ios_free["floorApplied"], satisfied(&ios_free)), (&json!(true), None));

    // Attack 2, several views added and subtracted: everyone - android - pro + android-and-pro
    // is again the two iOS free users, although every pair of these views differs by 5 or more.
    let android = view(&app, &key, campaign, &[("platform", "android")]).await;
    let pro = view(&app, &key, campaign, &[("attribute", "plan:pro")]).await;
    assert_eq!((satisfied(&android), satisfied(&pro)), (Some(11), Some(14)), "each view alone is safe");
    let android_pro = view(&app, &key, campaign, &[("platform", "android"), ("attribute", "plan:pro")]).await;
    assert_eq!(android_pro["acceptedCount"], 6);
    assert_eq!(
        (&android_pro["methodology"]["suppression"], satisfied(&android_pro)),
        (&json!("COMPLEMENT_BELOW_FLOOR"), None),
        "the one view the sum needs is withheld"
    );

    // Attack 3, a breakdown under a filter: pro by platform, less the platform views.
    let by_platform = breakdown_of(&app, &key, campaign, &[("by", "platform"), ("attribute", "plan:pro")]).await;
    assert_eq!(by_platform["acceptedCount"], 14);
    for row in by_platform["rows"].as_array().expect("rows") {
        assert_eq!((&row["suppression"], &row["csat"]), (&json!("COMPLEMENT_BELOW_FLOOR"), &Value::Null), "{row}");
    }

    // The same views over a campaign where the iOS free users are five are all shown.
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let wider = [
        people("ios", "pro", 8, 5),
        people("ios", "free", 5, 1),
        people("android", "pro", 6, 5),
        people("android", "free", 5, 5),
    ];
    let campaign = answered(&app, &partner, &wider).await;
    let campaign = id_of(&campaign);
    let ios = view(&app, &key, campaign, &[("platform", "ios")]).await;
    let ios_pro = view(&app, &key, campaign, &[("platform", "ios"), ("attribute", "plan:pro")]).await;
    assert_eq!((satisfied(&ios), satisfied(&ios_pro)), (Some(8), Some(8)), "a difference of the floor may be read");
}

/// 18 people by platform: 10 iOS, 6 Android, 2 on the web; then one more without any launch
/// label (the public link). The two web users are the ones to protect.
#[tokio::test]
async fn a_breakdown_hides_a_second_row_so_no_hidden_row_is_its_total_less_the_others() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let answered = answered(
        &app,
        &partner,
        &[people("ios", "pro", 10, 5), people("android", "pro", 6, 4), people("web", "free", 2, 1)],
    )
    .await;
    let campaign = id_of(&answered);
    let by_platform = breakdown_of(&app, &key, campaign, &[("by", "platform")]).await;
    assert_eq!(
        (
            &by_platform["by"],
            &by_platform["acceptedCount"],
            &by_platform["anonymityFloor"],
            &by_platform["suppression"]
        ),
        (&json!("platform"), &json!(18), &json!(5), &Value::Null)
    );
    let rows = by_platform["rows"].as_array().expect("rows");
    let summary: Vec<(Value, Value, Value)> =
        rows.iter().map(|r| (r["value"].clone(), r["acceptedCount"].clone(), r["suppression"].clone())).collect();
    assert_eq!(
        summary,
        vec![
            (json!("ios"), json!(10), Value::Null),
            (json!("android"), json!(6), json!("COMPLEMENTARY")),
            (json!("web"), json!(2), json!("GROUP_BELOW_FLOOR")),
        ],
        "the web row is below the floor, and Android is hidden with it"
    );
    assert_eq!((satisfied(&rows[0]), rows[0]["sentiment"].as_array().map(Vec::len)), (Some(10), Some(3)));
    assert_eq!(rows[0]["themes"].as_array().map(|t| t.len() <= 3), Some(true));
    for hidden in &rows[1..] {
        assert_eq!(
            (&hidden["csat"], &hidden["overallSentimentScore"], &hidden["sentiment"], &hidden["themes"]),
            (&Value::Null, &Value::Null, &json!([]), &json!([]))
        );
    }
    // The total less the rows shown is Android and web together: 8 sessions, not the web two.
    let everyone = view(&app, &key, campaign, &[]).await;
    assert_eq!(satisfied(&everyone).zip(satisfied(&rows[0])).map(|(all, ios)| all - ios), Some(6));
    assert_eq!(by_platform["unlisted"], json!({"groups": 0, "acceptedCount": 0}));

    // By an attribute, and with sessions that lack the label.
    app.respond(code_of(&answered), &json!({}), &[("q1", json!(3)), ("q2", json!("Fine, nothing to add."))]).await;
    app.analyze().await;
    let by_plan = breakdown_of(&app, &key, campaign, &[("by", "attribute:plan")]).await;
    let summary: Vec<(Value, Value, Value)> = by_plan["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["value"].clone(), r["acceptedCount"].clone(), r["suppression"].clone()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (json!("pro"), json!(16), json!("COMPLEMENT_BELOW_FLOOR")),
            (json!("free"), json!(2), json!("GROUP_BELOW_FLOOR")),
            (Value::Null, json!(1), json!("UNLABELLED")),
        ],
        "pro leaves out 3 sessions, so its row is suppressed like its filter: nothing is recoverable"
    );
}

/// 11 people answer in English and French; two groups of at least the floor, so both rows show,
/// and the language filter reads the same group as its row.
#[tokio::test]
async fn a_breakdown_by_language_gives_a_row_per_language_answered_in() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = partner.key.key.clone();
    let answered = answered(
        &app,
        &partner,
        &[people("ios", "pro", 4, 5), people("android", "pro", 2, 2), french("ios", "pro", 5, 4)],
    )
    .await;
    let campaign = id_of(&answered);
    let by_language = breakdown_of(&app, &key, campaign, &[("by", "language")]).await;
    assert_eq!((&by_language["by"], &by_language["acceptedCount"]), (&json!("language"), &json!(11)));
    let rows = by_language["rows"].as_array().expect("rows");
    let summary: Vec<(Value, Value, Option<i64>, Value)> = rows
        .iter()
        .map(|r| (r["value"].clone(), r["acceptedCount"].clone(), satisfied(r), r["suppression"].clone()))
        .collect();
    assert_eq!(
        summary,
        vec![(json!("en"), json!(6), Some(4), Value::Null), (json!("fr"), json!(5), Some(5), Value::Null)],
        "four of the six English answers and all five French ones are satisfied"
    );
    let french_view = view(&app, &key, campaign, &[("language", "FR")]).await;
    assert_eq!((&french_view["acceptedCount"], satisfied(&french_view)), (&json!(5), Some(5)), "any case");
    let french_on_ios = view(&app, &key, campaign, &[("language", "fr"), ("platform", "ios")]).await;
    assert_eq!(
        (&french_on_ios["acceptedCount"], &french_on_ios["methodology"]["suppression"]),
        (&json!(5), &json!("COMPLEMENT_BELOW_FLOOR")),
        "with iOS, the four English iOS users are a cell of their own below the floor"
    );
    let (status, code, description) = envelope(app.results(&key, campaign, &[("language", "en_US!")]).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("language"), "{description}");
}

#[tokio::test]
async fn a_breakdown_refuses_like_the_results_route() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    for (query, field) in [
        (vec![], "by"),
        (vec![("by", "country")], "by"),
        (vec![("by", "attribute:")], "by"),
        (vec![("by", "tag"), ("by", "platform")], "by"),
        (vec![("by", "tag"), ("colour", "red")], "colour"),
    ] {
        let (status, code, description) = envelope(app.breakdown(&partner.key.key, id, &query).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{query:?}");
        assert!(description.contains(field), "{description}");
    }
    let by = [("by", "platform")];
    let (status, code, _) = envelope(app.breakdown("svc_nope_nope", id, &by).await).await;
    assert_eq!((status, code.as_str()), (401, "UNAUTHENTICATED"));
    let provision_only =
        app.create_key_with(Some(partner.business), &["channel:provision"], &[partner.workspace], None).await;
    let (status, code, description) = envelope(app.breakdown(&provision_only.key, id, &by).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:results"));
    let stranger = app.campaign_partner().await;
    let (status, code, _) = envelope(app.breakdown(&stranger.key.key, id, &by).await).await;
    assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "another workspace's campaign is unknown");
    let empty = breakdown_of(&app, &partner.key.key, id, &by).await;
    assert_eq!(
        (&empty["acceptedCount"], &empty["suppression"], &empty["rows"]),
        (&json!(0), &json!("GROUP_BELOW_FLOOR"), &json!([]))
    );
}
