//! Quiet hours: no text reaches a person between 20:00 and 09:00 where they live. Their zone is
//! the audience's `timeZone`, else their number's country's, else the workspace's `timeZone`.
//! Texts go to a local server in the SMS provider's place; the night is walked with the clock.

use std::time::Duration;

use pulse_domain::ids::WorkspaceId;
use pulse_domain::outreach::models::ReminderSchedule;
use serde_json::{Value, json};

use crate::helpers::campaigns::{CAMPAIGN_SCOPES, id_of};
use crate::helpers::{TestApp, envelope};
use crate::outreach::{MailServer, eventually, no_attempt_in_flight, outreach_app_with, texts};
use crate::receiver::{Receiver, Reply};

/// A partner's key and its one workspace, created with `time_zone` and approved.
async fn partner_in(app: &TestApp, time_zone: &str) -> String {
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &CAMPAIGN_SCOPES).await.key;
    let created =
        app.create_org(&key, &json!({"externalRef": "client-1", "name": "Client", "timeZone": time_zone})).await;
    assert_eq!(created.status(), 201);
    let workspace: Value = created.json().await.expect("json");
    assert_eq!(workspace["workspace"]["timeZone"], time_zone);
    let id: WorkspaceId = workspace["workspace"]["id"].as_str().expect("id").parse().expect("uuid");
    app.approve_workspace(id).await;
    key
}

/// 10:00 UTC at the start: 15:30 in Kolkata, 10:00 in London. A reminder 7½ hours after the
/// invitation falls due at 17:30 UTC: 23:00 in Kolkata, 17:30 in London.
#[tokio::test]
async fn a_reminder_due_at_23_00_where_the_person_lives_goes_at_09_00_there() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    provider.reply(Reply::Status(201));
    let app = outreach_app_with(&mail, &provider, |settings| {
        let wait = time::Duration::hours(7) + time::Duration::minutes(30);
        settings.outreach.reminders = ReminderSchedule::new(vec![wait]).expect("a schedule");
    })
    .await;
    let key = partner_in(&app, "Asia/Kolkata").await;
    let listed: Value = app.list_orgs(&key).await.json().await.expect("json");
    assert_eq!(listed["workspaces"][0]["timeZone"], "Asia/Kolkata", "{listed}");

    let brief = json!({
        "name": "Evening check-in",
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"languages": ["en"]}},
        "delivery": {"channels": ["SMS"], "reminderCount": 1},
    });
    let campaign = app.provision(&key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let rows = json!({"rows": [
        // A British number, but the person lives in Kolkata: their own zone decides.
        {"externalRef": "own-zone", "phone": "+44 7700 900001", "timeZone": "Asia/Kolkata"},
        // India has one zone: the number decides.
        {"externalRef": "by-number", "phone": "+91 98765 00002"},
        // +1 spans many zones: the workspace's decides.
        {"externalRef": "by-workspace", "phone": "+1 415 555 0103"},
        // A British number and no zone of their own: London, where 17:30 is no night.
        {"externalRef": "in-london", "phone": "+44 7700 900004"},
    ]});
    assert_eq!(app.attach_respondents(&key, id_of(&campaign), &rows).await.status(), 200);
    assert_eq!(app.launch_campaign(&key, id_of(&campaign)).await.status(), 200);
    eventually("four invitations", || Some(texts(&provider)).filter(|t| t.len() == 4)).await;

    no_attempt_in_flight(&app).await;
    app.clock.advance(time::Duration::hours(7) + time::Duration::minutes(30));
    let reminded = eventually("London's reminder", || Some(texts(&provider)).filter(|t| t.len() == 5)).await;
    assert_eq!(reminded[4].to, "+447700900004");
    // The three others wait, queued for 09:00 in Kolkata (03:30 UTC), no attempt counted.
    let held = "outreach_messages WHERE kind = 'REMINDER' AND status = 'QUEUED' AND attempts = 0 \
                AND due_at = '2026-03-03 03:30:00+00' AND claim_token IS NULL";
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while app.count_where(held).await < 3 {
        assert!(std::time::Instant::now() < deadline, "three reminders held until 09:00 in Kolkata");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let view: Value = app.get_campaign(&key, id_of(&campaign)).await.json().await.expect("json");
    let sms = &view["counts"]["messages"][0];
    assert_eq!((sms["sent"].as_u64(), sms["queued"].as_u64()), (Some(5), Some(3)), "{sms}");

    app.clock.advance(time::Duration::hours(10));
    let morning = eventually("three reminders at 09:00", || Some(texts(&provider)).filter(|t| t.len() == 8)).await;
    let mut to: Vec<&str> = morning[5..].iter().map(|t| t.to.as_str()).collect();
    to.sort_unstable();
    assert_eq!(to, ["+14155550103", "+447700900001", "+919876500002"]);
    assert!(morning[5..].iter().all(|t| t.body.contains("/s/")), "each reminder carries its link");
}

#[tokio::test]
async fn a_time_zone_that_does_not_exist_is_refused_and_changes_nothing() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    let app = outreach_app_with(&mail, &provider, |_| {}).await;
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &CAMPAIGN_SCOPES).await.key;
    let refused =
        app.create_org(&key, &json!({"externalRef": "c", "name": "Client", "timeZone": "Mars/Olympus"})).await;
    let (status, code, description) = envelope(refused).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("`timeZone`") && !description.contains("Mars"), "{description}");
    assert_eq!(app.count_where("workspaces").await, 0);

    let key = partner_in(&app, "Europe/Paris").await;
    let brief =
        json!({"brief": {"intentText": "How was your last delivery with us?"}, "delivery": {"channels": ["SMS"]}});
    let campaign = app.provision(&key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let rows = json!({"rows": [
        {"externalRef": "a", "phone": "+33 6 12 34 56 78", "timeZone": "Europe/Paris"},
        {"externalRef": "b", "phone": "+33 6 12 34 56 79", "timeZone": "Europe/Lutetia"},
    ]});
    let (status, code, description) = envelope(app.attach_respondents(&key, id_of(&campaign), &rows).await).await;
    assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"));
    assert!(description.contains("`rows[1].timeZone`") && !description.contains("Lutetia"), "{description}");
    assert_eq!(app.count_where("respondents").await, 0);
}
