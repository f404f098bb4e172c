//! `OutreachRepository`: planning queues each message once, by the durable state alone;
//! reminders follow the schedule and stop for people who finished; a claim is exclusive under its
//! lease and only its holder records; a thank-you acknowledges once; opt-outs belong to a
//! workspace and are found by the address a message went to; a call keeps the session it started
//! and its first outcome, and a call nobody took counts as not reached; a recording is kept once,
//! deleted when its retention ends (at once on erasure) and tried again until it is.

use futures_util::future::join;
use pulse_domain::ErrorCode;
use pulse_domain::campaigns::models::{
    AudienceRowInput, BriefInput, CampaignOverview, DeliveryChannel, DeliveryInput, ProvisionInput,
};
use pulse_domain::outreach::models::{
    AddressFamily, AnswerRecording, CallOutcome, CallUpdate, MESSAGE_CHANNELS, MessageKind, MessageOutcome,
    MessageResult, OptOutSource, RECORDING_LEASE, RecordingCounts, ReminderSchedule, SendOutcome,
};
use pulse_domain::sessions::models::{AnswerInput, StartInput, StartOutcome, Visit};
use pulse_domain::shared::clock::Clock;
use secrecy::ExposeSecret;
use serde_json::json;
use time::Duration;
use time::macros::datetime;

use super::{Partner, Store, World};
use crate::fakes::GENUINE_REPLY;

/// A launched closed-list campaign with two reminders and these people, on EMAIL when one has an
/// email and on SMS when one has a phone, and their invitation nonces in the same order.
pub(super) async fn invited_campaign<S: Store>(
    w: &World<S>,
    partner: &Partner,
    people: &[(&str, Option<&str>, Option<&str>)],
) -> (CampaignOverview, Vec<String>) {
    invited_campaign_in_zones(w, partner, people, &[]).await
}

/// As [`invited_campaign`], some people with their own time zone (by reference).
async fn invited_campaign_in_zones<S: Store>(
    w: &World<S>,
    partner: &Partner,
    people: &[(&str, Option<&str>, Option<&str>)],
    zones: &[(&str, &str)],
) -> (CampaignOverview, Vec<String>) {
    let mut channels = Vec::new();
    if people.iter().any(|p| p.1.is_some()) {
        channels.push(DeliveryChannel::Email);
    }
    if people.iter().any(|p| p.2.is_some()) {
        channels.push(DeliveryChannel::Sms);
    }
    let input = ProvisionInput {
        brief: Some(BriefInput {
            intent_text: "How was the delivery today?".into(),
            question_count: Some(2),
            languages: Some(vec!["en".into()]),
            ..BriefInput::default()
        }),
        delivery: Some(DeliveryInput {
            channels: Some(channels),
            reminder_count: Some(2),
            greet_by_name: Some(true),
            ..DeliveryInput::default()
        }),
        ..ProvisionInput::default()
    };
    let draft = w.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
    let rows = people
        .iter()
        .map(|(reference, email, phone)| AudienceRowInput {
            external_ref: (*reference).into(),
            name: Some(format!("Person {reference}")),
            email: email.map(str::to_owned),
            phone: phone.map(str::to_owned),
            time_zone: zones.iter().find(|(r, _)| r == reference).map(|(_, zone)| (*zone).to_owned()),
        })
        .collect();
    let attached =
        w.campaigns.attach_audience(&partner.principal, None, draft.campaign.id, rows).await.expect("attached");
    let nonces = attached.iter().map(|a| a.invitation_url.rsplit('/').next().expect("a nonce").to_owned()).collect();
    let live = w.campaigns.launch(&partner.principal, None, draft.campaign.id).await.expect("launched");
    (live, nonces)
}

/// Finishes a session through an invitation.
pub(super) async fn answer_invitation<S: Store>(w: &World<S>, code: &str, nonce: &str) {
    let visit = Visit { invitation: Some(nonce.to_owned()), ..Visit::default() };
    let started = match w
        .respondents
        .start(code, StartInput { consent_given: Some(true), visit, ..StartInput::default() })
        .await
        .expect("start")
    {
        StartOutcome::Started(session) => session,
        StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
    };
    let token = started.token.expose_secret().to_owned();
    let answer = AnswerInput { question_id: "q1".into(), value: json!(5) };
    w.respondents.answer(code, started.id, Some(&token), vec![answer]).await.expect("answered");
    w.respondents.complete(code, started.id, Some(&token)).await.expect("completed");
}

fn addressed(sent: &[pulse_domain::outreach::models::OutgoingMessage]) -> Vec<(&'static str, String)> {
    sent.iter().map(|m| (m.channel.as_str(), m.to.clone())).collect()
}

pub async fn planning_queues_each_invitation_once_on_every_channel_a_person_can_be_reached_by<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let people =
        [("a", Some("a@example.com"), Some("+91 98765 00001")), ("b", Some("b@example.com"), None), ("c", None, None)];
    let (campaign, _) = invited_campaign(&w, &partner, &people).await;
    let now = w.clock.now();
    let senders = MESSAGE_CHANNELS;
    assert_eq!(w.store.plan_messages(now, &senders, &ReminderSchedule::default()).await.expect("planned"), 3);
    assert_eq!(w.store.plan_messages(now, &senders, &ReminderSchedule::default()).await.expect("planned"), 0, "once");
    let only_email = [DeliveryChannel::Email];
    assert_eq!(w.store.plan_messages(now, &only_email, &ReminderSchedule::default()).await.expect("planned"), 0);

    let round = w.outreach.run_due().await.expect("round");
    assert_eq!(round.sent.len(), 3);
    let mut sent = addressed(&w.sender.sent());
    sent.sort();
    assert_eq!(
        sent,
        [
            ("EMAIL", "a@example.com".to_owned()),
            ("EMAIL", "b@example.com".to_owned()),
            ("SMS", "+919876500001".to_owned()),
        ]
    );
    let counts = w.store.outreach_counts(campaign.campaign.id, w.clock.now()).await.expect("counts");
    let email = counts.channels.iter().find(|(c, _)| *c == DeliveryChannel::Email).expect("email").1;
    assert_eq!((email.sent, email.queued, email.failed), (2, 0, 0));
}

pub async fn reminders_follow_the_schedule_and_stop_for_people_who_finished<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let people = [("a", Some("a@example.com"), None), ("b", Some("b@example.com"), None)];
    let (campaign, nonces) = invited_campaign(&w, &partner, &people).await;
    w.outreach.run_due().await.expect("invited");
    assert_eq!(w.sender.sent().len(), 2);

    w.clock.advance(Duration::days(2) - Duration::minutes(1));
    assert_eq!(w.outreach.run_due().await.expect("round").planned, 0, "not before two days");
    answer_invitation(&w, &campaign.campaign.code, &nonces[0]).await;
    w.clock.advance(Duration::minutes(1));
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!(round.planned, 2, "one reminder to b, one thank-you to a");
    let reminder = w.sender.sent().into_iter().nth(2).expect("a third message");
    let thanks = w.sender.sent().into_iter().nth(3).expect("a fourth message");
    let mut got = [(reminder.to, reminder.email.map(|e| e.subject)), (thanks.to, thanks.email.map(|e| e.subject))];
    got.sort();
    assert_eq!(got[0].0, "a@example.com", "the finisher gets the thank-you");
    assert_eq!(got[1].0, "b@example.com", "the other one the reminder");

    w.clock.advance(Duration::days(4));
    assert_eq!(w.outreach.run_due().await.expect("round").sent.len(), 1, "the second reminder, to b only");
    w.clock.advance(Duration::days(30));
    assert_eq!(w.outreach.run_due().await.expect("round").planned, 0, "reminderCount is 2: no third");
    assert_eq!(w.sender.sent().len(), 5);
}

pub async fn a_claimed_message_is_held_by_its_lease_and_only_its_holder_records<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    invited_campaign(&w, &partner, &[("a", Some("a@example.com"), None)]).await;
    let now = w.clock.now();
    w.store.plan_messages(now, &MESSAGE_CHANNELS, &ReminderSchedule::default()).await.expect("planned");

    let lease = now + Duration::minutes(5);
    let elsewhere = w.store.claim_messages(now, lease, 10, &[DeliveryChannel::Sms]).await.expect("claim");
    assert!(elsewhere.is_empty(), "a replica without an email sender leaves email to the others");
    let (first, second) = join(
        w.store.claim_messages(now, lease, 10, &MESSAGE_CHANNELS),
        w.store.claim_messages(now, lease, 10, &MESSAGE_CHANNELS),
    )
    .await;
    let (first, second) = (first.expect("claim"), second.expect("claim"));
    assert_eq!(first.len() + second.len(), 1, "two concurrent claims share nothing");
    let lost = first.into_iter().chain(second).next().expect("claimed");
    assert_eq!(lost.kind, MessageKind::Invitation);
    assert_eq!(lost.workspace_name, "Client");
    assert!(lost.greet_by_name && lost.collecting);
    assert!(
        w.store.claim_messages(now, lease, 10, &MESSAGE_CHANNELS).await.expect("claim").is_empty(),
        "held by the lease"
    );

    let after_lease = lease + Duration::seconds(1);
    let taken = w
        .store
        .claim_messages(after_lease, after_lease + Duration::minutes(5), 10, &MESSAGE_CHANNELS)
        .await
        .expect("claim");
    assert_eq!(taken.len(), 1, "taken over once the lease ran out");
    let sent = |claim_token| MessageOutcome {
        id: lost.id,
        claim_token,
        at: after_lease,
        result: MessageResult::Sent { provider_id: None, address_digest: vec![1], acknowledged: None },
    };
    assert!(!w.store.finish_message(&sent(lost.claim_token)).await.expect("finish"), "the lost claim records nothing");
    assert!(w.store.finish_message(&sent(taken[0].claim_token)).await.expect("finish"));
    assert!(!w.store.finish_message(&sent(taken[0].claim_token)).await.expect("finish"), "only once");
}

pub async fn a_deferred_message_comes_back_when_due_and_a_thank_you_acknowledges_once<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let (campaign, nonces) = invited_campaign(&w, &partner, &[("a", None, Some("+91 98765 00001"))]).await;
    w.sender.answer([SendOutcome::Deferred { code: "SMS_UNAVAILABLE".into(), retry_after: None }]);
    assert_eq!(w.outreach.run_due().await.expect("round").retried.len(), 1);
    assert!(w.outreach.run_due().await.expect("round").sent.is_empty(), "not due yet");
    w.clock.advance(Duration::minutes(1));
    assert_eq!(w.outreach.run_due().await.expect("round").sent.len(), 1, "retried after a minute");

    answer_invitation(&w, &campaign.campaign.code, &nonces[0]).await;
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!(round.sent.len(), 1);
    let thanks = w.sender.sent().pop().expect("a thank-you");
    assert_eq!(thanks.channel, DeliveryChannel::Sms, "on the channel the person was invited by");
    assert!(thanks.text.as_deref().is_some_and(|t| !t.contains("/s/")), "a thank-you has no link");
    assert_eq!(w.outreach.run_due().await.expect("round").planned, 0, "thanked once");
}

pub async fn opt_outs_belong_to_a_workspace_and_are_found_by_the_address_written_to<S: Store>(store: S) {
    let w = World::new(store);
    let acme = w.partner("Acme").await;
    let other = w.partner("Other").await;
    let (first, _) = invited_campaign(&w, &acme, &[("a", Some("a@example.com"), Some("+91 98765 00001"))]).await;
    w.outreach.run_due().await.expect("invited");
    let email = w.sender.sent().into_iter().find(|m| m.channel == DeliveryChannel::Email).expect("an email");
    let link = email.unsubscribe_url.expect("a one-click link");
    let token = link.rsplit('/').next().expect("a token");
    w.outreach.unsubscribe(token).await.expect("unsubscribed");
    w.outreach.unsubscribe(token).await.expect("twice is fine");
    let mut tampered = token.to_owned();
    tampered.replace_range(..1, if token.starts_with('A') { "B" } else { "A" });
    assert!(w.outreach.unsubscribe(&tampered).await.is_err(), "a tampered link names nobody");

    // The same person, attached again by the same workspace and by another one.
    let (_, _) = invited_campaign(&w, &acme, &[("a2", Some("A@Example.com"), None)]).await;
    let (_, _) = invited_campaign(&w, &other, &[("a", Some("a@example.com"), None)]).await;
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!((round.sent.len(), round.suppressed.len()), (1, 1), "opted out of Acme only");

    let reply =
        |body: &str| vec![("From".to_owned(), "+919876500001".to_owned()), ("Body".to_owned(), body.to_owned())];
    let url = "https://pulse.example/api/v1/public/messages/replies";
    let forged = w.outreach.reply(url, &reply("STOP"), Some("forged")).await.expect_err("unsigned");
    assert_eq!(forged.code(), ErrorCode::Unauthenticated);
    assert!(!w.outreach.reply(url, &reply("thanks"), Some(GENUINE_REPLY)).await.expect("reply"), "only STOP opts out");
    assert!(w.outreach.reply(url, &reply("STOP"), Some(GENUINE_REPLY)).await.expect("reply"), "STOP is an opt-out");
    let (_, _) = invited_campaign(&w, &acme, &[("a3", None, Some("+91-98765-00001"))]).await;
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!((round.sent.len(), round.suppressed.len()), (0, 1), "the number that said STOP gets nothing more");
    let counts = w.store.outreach_counts(first.campaign.id, w.clock.now()).await.expect("counts");
    assert!(counts.channels.iter().all(|(_, c)| c.sent == 1 && c.failed == 0), "{counts:?}");
    w.store
        .record_opt_out(other.workspace, &[9], AddressFamily::Phone, OptOutSource::Reply, w.clock.now())
        .await
        .expect("recorded");
    assert!(w.store.is_opted_out(other.workspace, &[9]).await.expect("read"));
    assert!(!w.store.is_opted_out(acme.workspace, &[9]).await.expect("read"));
    assert!(w.store.workspaces_that_wrote_to(&[9]).await.expect("read").is_empty());
}

pub async fn texts_wait_for_the_morning_where_the_person_is_and_email_goes_at_once<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    // 17:30 UTC: 23:00 in Kolkata, 18:30 in Paris, 02:30 the next day in Tokyo.
    w.clock.set(datetime!(2026-01-01 17:30 UTC));
    let people = [
        ("kolkata", Some("k@example.com"), Some("+91 98765 00001")),
        ("paris", None, Some("+33 6 12 34 56 78")),
        ("tokyo-by-zone", None, Some("+33 6 12 34 56 79")),
    ];
    let (campaign, _) = invited_campaign_in_zones(&w, &partner, &people, &[("tokyo-by-zone", "Asia/Tokyo")]).await;
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!((round.sent.len(), round.held.len()), (2, 2), "the email and Paris now; Kolkata and Tokyo wait");
    let mut sent = addressed(&w.sender.sent());
    sent.sort();
    assert_eq!(sent, [("EMAIL", "k@example.com".to_owned()), ("SMS", "+33612345678".to_owned())]);
    let counts = w.store.outreach_counts(campaign.campaign.id, w.clock.now()).await.expect("counts");
    let sms = counts.channels.iter().find(|(c, _)| *c == DeliveryChannel::Sms).expect("sms").1;
    assert_eq!((sms.sent, sms.queued, sms.failed), (1, 2, 0), "held texts stay queued, no attempt counted");

    // 00:00 in Tokyo is still night; 09:00 there (00:00 UTC) opens Tokyo, not Kolkata (05:30).
    w.clock.set(datetime!(2026-01-01 23:59 UTC));
    assert!(w.outreach.run_due().await.expect("round").handled() == 0, "nothing due before a window opens");
    w.clock.set(datetime!(2026-01-02 00:00 UTC));
    assert_eq!(w.outreach.run_due().await.expect("round").sent.len(), 1, "Tokyo's morning");
    w.clock.set(datetime!(2026-01-02 03:30 UTC));
    assert_eq!(w.outreach.run_due().await.expect("round").sent.len(), 1, "Kolkata's morning");
    let sms = w.store.outreach_counts(campaign.campaign.id, w.clock.now()).await.expect("counts");
    let sms = sms.channels.iter().find(|(c, _)| *c == DeliveryChannel::Sms).expect("sms").1;
    assert_eq!((sms.sent, sms.queued), (3, 0));
}

pub async fn a_call_keeps_its_session_and_first_outcome_and_counts_as_not_reached_when_nobody_took_it<S: Store>(
    store: S,
) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let input = ProvisionInput {
        brief: Some(BriefInput { intent_text: "How was the delivery today?".into(), ..BriefInput::default() }),
        delivery: Some(DeliveryInput {
            channels: Some(vec![DeliveryChannel::Telephony, DeliveryChannel::Sms]),
            ..DeliveryInput::default()
        }),
        ..ProvisionInput::default()
    };
    let draft = w.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
    let rows = ["a", "b"]
        .iter()
        .map(|reference| AudienceRowInput {
            external_ref: (*reference).into(),
            phone: Some("+44 7700 900123".into()),
            ..AudienceRowInput::default()
        })
        .collect();
    let attached =
        w.campaigns.attach_audience(&partner.principal, None, draft.campaign.id, rows).await.expect("attached");
    let campaign = w.campaigns.launch(&partner.principal, None, draft.campaign.id).await.expect("launched");
    let round = w.outreach.run_due().await.expect("round");
    assert_eq!(round.sent.len(), 4, "two calls and two texts");
    let nonce = attached[0].invitation_url.rsplit('/').next().expect("a nonce").to_owned();
    let input = StartInput {
        consent_given: Some(true),
        visit: Visit { invitation: Some(nonce), ..Visit::default() },
        ..StartInput::default()
    };
    let session = match w.respondents.start(&campaign.campaign.code, input).await.expect("started") {
        StartOutcome::Started(started) => started.id,
        StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
    };
    let calls: Vec<_> = w.sender.sent().into_iter().filter(|m| m.channel == DeliveryChannel::Telephony).collect();
    assert!(calls.iter().all(|c| c.call.is_some() && c.text.is_none()), "a call, not a text");
    let text = w.sender.sent().into_iter().find(|m| m.channel == DeliveryChannel::Sms).expect("a text");
    assert!(w.store.call(text.id).await.expect("read").is_none(), "a text is no call");

    let (answered, unanswered) = (calls[0].id, calls[1].id);
    let workspace = partner.workspace;
    let under_way = |since| w.store.calls_under_way(workspace, since);
    assert_eq!(under_way(w.clock.now() - Duration::minutes(30)).await.expect("counted"), 2, "both calls ring");
    assert_eq!(under_way(w.clock.now() + Duration::seconds(1)).await.expect("counted"), 0, "none placed since");
    let call = w.store.call(answered).await.expect("read").expect("a call");
    assert_eq!(
        (call.campaign_code.as_str(), call.session.as_ref(), call.outcome),
        (campaign.campaign.code.as_str(), None, None)
    );
    assert!(call.recipient.phone_sealed.is_some() && call.recipient.invitation_sealed.is_some());
    let now = w.clock.now();
    let update = |session, outcome| CallUpdate {
        message_id: answered,
        provider_call_id: Some("CA1".into()),
        session,
        outcome,
        acknowledged: None,
        at: now,
    };
    w.store.record_call(&update(Some((session, b"sealed".to_vec())), None)).await.expect("recorded");
    w.store.record_call(&update(None, Some(CallOutcome::Partial))).await.expect("recorded");
    w.store.record_call(&update(None, Some(CallOutcome::Completed))).await.expect("a late report");
    let call = w.store.call(answered).await.expect("read").expect("a call");
    assert_eq!(call.session, Some((session, b"sealed".to_vec())), "the session stays");
    assert_eq!(call.outcome, Some(CallOutcome::Partial), "the first outcome stays");

    let busy = CallUpdate { message_id: unanswered, outcome: Some(CallOutcome::Busy), ..update(None, None) };
    w.store.record_call(&busy).await.expect("recorded");
    let counts = w.store.outreach_counts(campaign.campaign.id, w.clock.now()).await.expect("counts");
    let phone = counts.channels.iter().find(|(c, _)| *c == DeliveryChannel::Telephony).expect("calls").1;
    assert_eq!((phone.sent, phone.not_reached), (2, 1), "a busy call was placed and not reached");
    assert_eq!(under_way(w.clock.now() - Duration::minutes(30)).await.expect("counted"), 0, "both ended");
}

pub async fn a_recording_is_kept_once_and_deleted_when_its_days_pass_or_its_person_is_erased<S: Store>(store: S) {
    let mut w = World::new(store);
    w.outreach = w.outreach.with_answer_recording(AnswerRecording::On);
    let partner = w.partner("Acme").await;
    let input = ProvisionInput {
        brief: Some(BriefInput { intent_text: "How was the delivery today?".into(), ..BriefInput::default() }),
        delivery: Some(DeliveryInput {
            channels: Some(vec![DeliveryChannel::Telephony]),
            audio_retention_days: Some(3),
            ..DeliveryInput::default()
        }),
        ..ProvisionInput::default()
    };
    let draft = w.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
    let rows = [("kept", "+44 7700 900101"), ("erased", "+44 7700 900102")]
        .iter()
        .map(|(reference, phone)| AudienceRowInput {
            external_ref: (*reference).into(),
            phone: Some((*phone).into()),
            ..AudienceRowInput::default()
        })
        .collect();
    w.campaigns.attach_audience(&partner.principal, None, draft.campaign.id, rows).await.expect("attached");
    let id = draft.campaign.id;
    w.campaigns.launch(&partner.principal, None, id).await.expect("launched");
    assert_eq!(w.outreach.run_due().await.expect("round").sent.len(), 2);
    let calls = w.sender.sent();
    let call_of = |reference: &str| {
        let last = if reference == "kept" { "101" } else { "102" };
        calls.iter().find(|m| m.to.ends_with(last)).expect("called").id
    };
    let report =
        |sid: &str| vec![("CallSid".to_owned(), "CA1".to_owned()), ("RecordingSid".to_owned(), sid.to_owned())];
    let url = "https://pulse.example/api/v1/public/calls/m/recording";
    let signed = Some(GENUINE_REPLY);
    let refused = w.outreach.call_recorded(call_of("kept"), url, &report("RE1"), None).await.expect_err("unsigned");
    assert_eq!(refused.code(), ErrorCode::Unauthenticated);
    for _ in 0..2 {
        w.outreach.call_recorded(call_of("kept"), url, &report("RE1"), signed).await.expect("kept");
    }
    w.outreach.call_recorded(call_of("erased"), url, &report("RE2"), signed).await.expect("kept");
    w.outreach.call_recorded(call_of("erased"), url, &[], signed).await.expect("a report without a recording");
    let recordings = async |w: &World<S>| w.store.outreach_counts(id, w.clock.now()).await.expect("counts").recordings;
    assert_eq!(recordings(&w).await, RecordingCounts { held: 2, deleted: 0, overdue: 0 }, "one each, kept once");
    assert!(w.outreach.delete_due_recordings().await.expect("round").deleted.is_empty(), "none due yet");

    // Erasure makes the person's recording due at once.
    assert!(w.erasures.erase_respondent(&partner.principal, None, id, "erased").await.expect("erased"));
    assert_eq!(recordings(&w).await, RecordingCounts { held: 1, deleted: 0, overdue: 1 });
    let round = w.outreach.delete_due_recordings().await.expect("round");
    assert_eq!((round.deleted.len(), w.sender.deleted_recordings()), (1, vec!["RE2".to_owned()]));
    assert_eq!(recordings(&w).await, RecordingCounts { held: 1, deleted: 1, overdue: 0 });

    // Three days on, the other is due; its deletion fails once and is tried again a minute on.
    w.clock.advance(Duration::days(3));
    w.sender.fail_deletions(["TELEPHONY_UNAVAILABLE"]);
    let round = w.outreach.delete_due_recordings().await.expect("round");
    assert_eq!(round.retried.len(), 1);
    assert_eq!(recordings(&w).await, RecordingCounts { held: 0, deleted: 1, overdue: 1 }, "a failure shows");
    assert_eq!(w.outreach.delete_due_recordings().await.expect("round").handled(), 0, "not before its retry");
    w.clock.advance(Duration::minutes(1));
    assert_eq!(w.outreach.delete_due_recordings().await.expect("round").deleted.len(), 1);
    assert_eq!(w.sender.deleted_recordings(), ["RE2", "RE1"]);
    assert_eq!(recordings(&w).await, RecordingCounts { held: 0, deleted: 2, overdue: 0 });
    w.clock.advance(RECORDING_LEASE + Duration::days(1));
    assert_eq!(w.outreach.delete_due_recordings().await.expect("round").handled(), 0, "deleted is for good");
}

pub async fn a_claimed_recording_is_held_by_its_lease<S: Store>(store: S) {
    let mut w = World::new(store);
    w.outreach = w.outreach.with_answer_recording(AnswerRecording::On);
    let partner = w.partner("Acme").await;
    let input = ProvisionInput {
        brief: Some(BriefInput { intent_text: "How was the delivery today?".into(), ..BriefInput::default() }),
        delivery: Some(DeliveryInput { channels: Some(vec![DeliveryChannel::Telephony]), ..DeliveryInput::default() }),
        ..ProvisionInput::default()
    };
    let draft = w.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
    let row = AudienceRowInput {
        external_ref: "a".into(),
        phone: Some("+44 7700 900123".into()),
        ..AudienceRowInput::default()
    };
    w.campaigns.attach_audience(&partner.principal, None, draft.campaign.id, vec![row]).await.expect("attached");
    w.campaigns.launch(&partner.principal, None, draft.campaign.id).await.expect("launched");
    w.outreach.run_due().await.expect("round");
    let call = w.sender.sent()[0].id;
    let report = [("RecordingSid".to_owned(), "RE9".to_owned())];
    w.outreach.call_recorded(call, "https://pulse.example/r", &report, Some(GENUINE_REPLY)).await.expect("kept");
    // Kept a week when the campaign does not say.
    w.clock.advance(Duration::days(7) - Duration::seconds(1));
    let now = w.clock.now();
    assert!(w.store.claim_recordings(now, now + RECORDING_LEASE, 10).await.expect("claimed").is_empty());
    w.clock.advance(Duration::seconds(1));
    let now = w.clock.now();
    let (one, two) = join(
        w.store.claim_recordings(now, now + RECORDING_LEASE, 10),
        w.store.claim_recordings(now, now + RECORDING_LEASE, 10),
    )
    .await;
    let (one, two) = (one.expect("claimed"), two.expect("claimed"));
    assert_eq!(one.len() + two.len(), 1, "one claim holds it");
    let later = now + RECORDING_LEASE;
    assert_eq!(
        w.store.claim_recordings(later, later + RECORDING_LEASE, 10).await.expect("claimed").len(),
        1,
        "a lost lease frees it"
    );
}
