//! Exports: requesting one (scopes, a live worker, a renderable format), rendering with retries,
//! reading it with a fresh link, downloading through the link (tampered, expired, renamed, revoked
//! and over-used links refused), the floor and transcripts, and expiry.

use futures_executor::block_on;
use pulse_domain::exports::models::{ExportRecord, ExportRequest, ExportStatus, LINK_LIFETIME, RETENTION};
use pulse_domain::exports::service::DownloadLink;
use pulse_domain::ids::CampaignId;
use pulse_domain::shared::clock::Clock;
use pulse_domain::{Error, ErrorCode, Refusal};
use time::Duration;
use uuid::Uuid;

use crate::common::lab::{Lab, lab, partner_with_extra_scopes, respond};
use crate::common::*;

fn exporter(l: &Lab) -> Partner {
    partner_with_extra_scopes(&l.w, &["channel:export", "channel:transcripts"])
}

fn beat(l: &Lab) {
    block_on(l.w.exports.beat(Uuid::new_v4())).expect("beat");
}

fn request(
    l: &Lab,
    p: &Partner,
    campaign: CampaignId,
    format: &str,
    transcripts: bool,
) -> pulse_domain::Result<ExportRecord> {
    let request = ExportRequest::parse(format, transcripts)?;
    block_on(l.w.exports.request(&p.principal, None, campaign, request))
}

/// A campaign with `people` analyzed answers, each "late delivery" or "great service".
fn answered_campaign(l: &Lab, p: &Partner, people: i64) -> pulse_domain::campaigns::models::Campaign {
    let campaign = active_open(&l.w, p).campaign;
    for n in 0..people {
        let text = if n % 2 == 0 { "great service, write to ada@example.com" } else { "late delivery again" };
        respond(&l.w, p, &campaign, 4, text, 60);
    }
    block_on(l.analysis.run_due()).expect("analyzed");
    // Answering took the clock forward: a worker beats, as it does in every round.
    beat(l);
    campaign
}

fn ready_link(l: &Lab, p: &Partner, record: &ExportRecord) -> DownloadLink {
    let (read, link) = block_on(l.w.exports.get(&p.principal, None, record.id)).expect("read");
    assert_eq!(read.status, ExportStatus::Ready);
    link.expect("a READY export carries a link")
}

fn token_and_name(link: &DownloadLink) -> (String, String) {
    let tail = link.url.rsplit_once("/downloads/").expect("a download url").1;
    let (token, name) = tail.split_once('/').expect("token and name");
    (token.to_owned(), name.to_owned())
}

fn download(l: &Lab, token: &str, name: &str) -> pulse_domain::Result<Vec<u8>> {
    block_on(l.w.exports.download(token, name, None)).map(|d| d.bytes)
}

#[test]
fn a_request_needs_the_scopes_a_worker_and_a_renderable_format() {
    let l = lab();
    let plain = partner(&l.w, true);
    let campaign = active_open(&l.w, &plain).campaign;
    assert_eq!(code_of(request(&l, &plain, campaign.id, "json", false)), ErrorCode::InsufficientPermission);
    let p = partner_with_extra_scopes(&l.w, &["channel:export"]);
    let campaign = active_open(&l.w, &p).campaign;
    assert_eq!(code_of(request(&l, &p, campaign.id, "json", true)), ErrorCode::InsufficientPermission, "transcripts");
    assert_eq!(code_of(request(&l, &p, campaign.id, "json", false)), ErrorCode::ExportUnavailable, "no worker");
    beat(&l);
    assert_eq!(code_of(request(&l, &p, CampaignId::new_random(), "json", false)), ErrorCode::NotFound);
    assert_eq!(code_of(request(&l, &p, campaign.id, "csv", false)), ErrorCode::ValidationFailed);
    assert_eq!(
        code_of(request(&l, &p, campaign.id, "pdf", true)),
        ErrorCode::ValidationFailed,
        "transcripts are JSON only"
    );
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    assert_eq!((queued.status, queued.attempts), (ExportStatus::Queued, 0));
    assert_eq!(queued.filename(), format!("pulse-{}-{}.json", campaign.code, queued.id));

    l.w.clock.advance(Duration::minutes(1));
    assert_eq!(
        code_of(request(&l, &p, campaign.id, "json", false)),
        ErrorCode::ExportUnavailable,
        "the worker went silent"
    );
    beat(&l);
    let stranger = partner_with_extra_scopes(&l.w, &["channel:export"]);
    assert_eq!(code_of(request(&l, &stranger, campaign.id, "json", false)), ErrorCode::NotFound, "another workspace's");
    assert_eq!(code_of(block_on(l.w.exports.get(&stranger.principal, None, queued.id))), ErrorCode::NotFound);
}

#[test]
fn a_pdf_is_refused_while_the_renderer_cannot_make_one() {
    let l = lab();
    let p = exporter(&l);
    beat(&l);
    let campaign = active_open(&l.w, &p).campaign;
    l.w.renderer.set_pdf_unavailable(true);
    assert_eq!(code_of(request(&l, &p, campaign.id, "pdf", false)), ErrorCode::ExportUnavailable);
    assert!(request(&l, &p, campaign.id, "json", false).is_ok(), "JSON still renders");
    l.w.renderer.set_pdf_unavailable(false);
    assert!(request(&l, &p, campaign.id, "pdf", false).is_ok());
}

#[test]
fn a_rendered_export_is_read_with_a_fresh_link_and_downloaded_through_it() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 6);
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    let (unread, no_link) = block_on(l.w.exports.get(&p.principal, None, queued.id)).expect("read");
    assert_eq!((unread.status, no_link), (ExportStatus::Queued, None));

    let round = block_on(l.w.exports.run_due()).expect("rendered");
    assert_eq!(round.ready, [queued.id]);
    let link = ready_link(&l, &p, &queued);
    assert!(link.url.starts_with("https://pulse.example/api/v1/channel/downloads/"), "{}", link.url);
    assert_eq!(link.expires_at, l.w.clock.now() + LINK_LIFETIME);
    let (token, name) = token_and_name(&link);
    let bytes = download(&l, &token, &name).expect("downloaded");
    assert_eq!(
        String::from_utf8(bytes.clone()).expect("text"),
        format!("json {} accepted=6 floor=false transcripts=0 language=en", campaign.code)
    );
    let (read, _) = block_on(l.w.exports.get(&p.principal, None, queued.id)).expect("read");
    assert_eq!(read.byte_size, Some(bytes.len() as u64));
    assert_eq!(read.sha256.as_deref().map(str::len), Some(64));
    assert_eq!(read.expires_at, read.finished_at.map(|at| at + RETENTION));
    assert_ne!(ready_link(&l, &p, &queued).url, link.url, "every read mints a new link");
}

#[test]
fn an_export_is_written_in_the_default_language_of_the_campaigns_survey() {
    let l = lab();
    let p = exporter(&l);
    beat(&l);
    let mut input = brief();
    input.brief.as_mut().expect("a brief").languages = Some(vec!["fr-CA".into(), "en".into()]);
    let draft = provision(&l.w, &p, input);
    let campaign = launch(&l.w, &p, draft.campaign.id).expect("launched").campaign;
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    block_on(l.w.exports.run_due()).expect("rendered");
    let (token, name) = token_and_name(&ready_link(&l, &p, &queued));
    let file = String::from_utf8(download(&l, &token, &name).expect("downloaded")).expect("text");
    assert!(file.ends_with(" language=fr"), "French, by the primary subtag of the first language: {file}");
}

#[test]
fn every_link_that_does_not_work_is_the_same_not_found() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 5);
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    block_on(l.w.exports.run_due()).expect("rendered");
    let (token, name) = token_and_name(&ready_link(&l, &p, &queued));

    let mut tampered = token.clone().into_bytes();
    tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("text");
    for (token, name) in [
        (tampered.as_str(), name.as_str()),
        (token.as_str(), "pulse-other.json"),
        ("not-a-token", name.as_str()),
        ("", name.as_str()),
    ] {
        let refused = download(&l, token, name).expect_err("refused");
        assert_eq!(
            (refused.code(), refused.to_string()),
            (ErrorCode::NotFound, "NOT_FOUND: download not found".to_owned())
        );
    }
    l.w.clock.advance(LINK_LIFETIME);
    assert_eq!(code_of(download(&l, &token, &name)), ErrorCode::NotFound, "expired");
}

#[test]
fn a_link_dies_with_its_key_and_tires_after_twenty_fetches_an_hour() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 5);
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    block_on(l.w.exports.run_due()).expect("rendered");
    let (token, name) = token_and_name(&ready_link(&l, &p, &queued));
    for _ in 0..20 {
        download(&l, &token, &name).expect("downloaded");
    }
    let tired = download(&l, &token, &name).expect_err("over the limit");
    assert_eq!(tired.code(), ErrorCode::RateLimited);
    let Error::Refused(Refusal { rate_limit: Some(state), .. }) = tired else { panic!("no window: {tired:?}") };
    assert!(state.reset_secs > 0 && state.remaining == 0);
    let (fresh, fresh_name) = token_and_name(&ready_link(&l, &p, &queued));
    download(&l, &fresh, &fresh_name).expect("a new link counts afresh");

    block_on(l.w.admin.revoke_key(&p.principal.key_prefix)).expect("revoked");
    assert_eq!(code_of(download(&l, &fresh, &fresh_name)), ErrorCode::NotFound, "the key that asked is revoked");
}

#[test]
fn the_floor_holds_and_transcripts_come_only_when_asked_and_above_it() {
    let l = lab();
    let p = exporter(&l);
    let small = answered_campaign(&l, &p, 4);
    let large = answered_campaign(&l, &p, 6);
    let exports: Vec<ExportRecord> = [(small.id, true), (large.id, false), (large.id, true)]
        .into_iter()
        .map(|(campaign, transcripts)| request(&l, &p, campaign, "json", transcripts).expect("queued"))
        .collect();
    while !block_on(l.w.exports.run_due()).expect("rendered").ready.is_empty() {}
    let contents: Vec<String> = exports
        .iter()
        .map(|export| {
            let (token, name) = token_and_name(&ready_link(&l, &p, export));
            String::from_utf8(download(&l, &token, &name).expect("downloaded")).expect("text")
        })
        .collect();
    assert_eq!(contents[0], format!("json {} accepted=4 floor=true transcripts=0 language=en", small.code));
    assert_eq!(contents[1], format!("json {} accepted=6 floor=false transcripts=0 language=en", large.code));
    assert_eq!(contents[2], format!("json {} accepted=6 floor=false transcripts=6 language=en", large.code));
}

#[test]
fn a_failing_rendering_is_retried_then_failed_with_a_code() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 5);
    let flaky = request(&l, &p, campaign.id, "json", false).expect("queued");
    l.w.renderer.fail_next(2);
    assert_eq!(block_on(l.w.exports.run_due()).expect("round").retried, [flaky.id]);
    assert_eq!(block_on(l.w.exports.run_due()).expect("round").retried, [flaky.id]);
    assert_eq!(block_on(l.w.exports.run_due()).expect("round").ready, [flaky.id], "the third attempt renders");

    let broken = request(&l, &p, campaign.id, "json", false).expect("queued");
    l.w.renderer.fail_next(3);
    block_on(l.w.exports.run_due()).expect("round");
    block_on(l.w.exports.run_due()).expect("round");
    assert_eq!(block_on(l.w.exports.run_due()).expect("round").failed, [broken.id]);
    let (failed, link) = block_on(l.w.exports.get(&p.principal, None, broken.id)).expect("read");
    assert_eq!((failed.status, link), (ExportStatus::Failed, None));
    assert_eq!(failed.failure.map(|f| f.code), Some("RENDER_FAILED".to_owned()));
}

#[test]
fn files_are_deleted_and_marked_expired_after_their_retention() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 5);
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    block_on(l.w.exports.run_due()).expect("rendered");
    l.w.clock.advance(RETENTION - Duration::MINUTE);
    let (token, name) = token_and_name(&ready_link(&l, &p, &queued));
    assert_eq!(block_on(l.w.exports.sweep()).expect("swept"), 0);
    l.w.clock.advance(Duration::MINUTE);
    assert_eq!(block_on(l.w.exports.sweep()).expect("swept"), 1);
    let (expired, link) = block_on(l.w.exports.get(&p.principal, None, queued.id)).expect("read");
    assert_eq!((expired.status, link), (ExportStatus::Expired, None));
    assert_eq!(code_of(download(&l, &token, &name)), ErrorCode::NotFound);
}

#[test]
fn transcripts_are_redacted_and_sorted_so_no_persons_answers_stand_together() {
    let l = lab();
    let p = exporter(&l);
    let campaign = answered_campaign(&l, &p, 6);
    let (results, transcripts) =
        block_on(l.results.campaign_results(p.workspace, campaign.id, true)).expect("read").expect("the campaign");
    assert_eq!(results.accepted_count, 6);
    let texts: Vec<&str> = transcripts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts.len(), 6);
    assert!(texts.iter().all(|t| !t.contains('@')), "{texts:?}");
    assert!(texts.contains(&"great service, write to [email]"), "{texts:?}");
    assert!(texts.windows(2).all(|pair| pair[0] <= pair[1]), "sorted, not in answering order");
    let (_, none) =
        block_on(l.results.campaign_results(p.workspace, campaign.id, false)).expect("read").expect("the campaign");
    assert!(none.is_empty(), "no texts are read unless asked for");
}

#[test]
fn a_ready_export_is_announced_with_ids_format_and_size_only() {
    let l = lab();
    let p = exporter(&l);
    subscribe(&l.w, &p, &["export.ready"]);
    let campaign = answered_campaign(&l, &p, 5);
    let queued = request(&l, &p, campaign.id, "json", false).expect("queued");
    block_on(l.w.exports.run_due()).expect("rendered");
    assert_eq!(block_on(l.w.dispatcher.deliver_due(50)).expect("delivered").len(), 1);
    let sent = l.w.transport.sent();
    let envelope: serde_json::Value = serde_json::from_slice(&sent[0].body).expect("json");
    assert_eq!((envelope["type"].as_str(), envelope["aggregate"].as_str()), (Some("export.ready"), Some("export")));
    let (read, _) = block_on(l.w.exports.get(&p.principal, None, queued.id)).expect("read");
    assert_eq!(
        envelope["payload"],
        serde_json::json!({
            "exportId": queued.id,
            "campaignId": campaign.id,
            "format": "json",
            "byteSize": read.byte_size,
        })
    );
}
