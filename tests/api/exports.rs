//! Exports over HTTP: a partner asks for a file of a campaign's results, the service's own worker
//! renders it, and the signed link the read hands out downloads it without a key. Every link that
//! does not work is one 404; a link tires after 20 fetches an hour; the token never reaches a log.

use pulse_domain::quota::models::QuotaFamily;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::helpers::campaigns::{CampaignPartner, code_of, id_of};
use crate::helpers::exports::token_of;
use crate::helpers::{TestApp, captured_logs, envelope, spawn_app, spawn_app_with};
use crate::results::TEN;

/// A live campaign with ten analyzed answers, above the anonymity floor.
async fn answered_campaign(app: &TestApp, partner: &CampaignPartner) -> Value {
    let campaign = app.live_campaign(&partner.key.key).await;
    for (rating, why, improve) in TEN {
        app.respond(
            code_of(&campaign),
            &json!({}),
            &[("q1", json!(rating)), ("q2", json!(why)), ("q3", json!(improve))],
        )
        .await;
    }
    app.analyze().await;
    // Answering moved the clock on by minutes.
    app.export_worker_beats().await;
    campaign
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
}

fn text<'a>(body: &'a Value, field: &str) -> &'a str {
    body[field].as_str().unwrap_or_else(|| panic!("{field} in {body}"))
}

#[tokio::test]
async fn a_partner_exports_a_campaign_and_downloads_the_file_through_the_link() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = answered_campaign(&app, &partner).await;

    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "json"})).await;
    assert_eq!(
        (&queued["campaignId"], &queued["format"], &queued["includeTranscripts"], &queued["status"]),
        (&campaign["id"], &json!("json"), &json!(false), &json!("QUEUED"))
    );
    assert_eq!(queued["download"], Value::Null);
    let id = text(&queued, "id");

    let ready = app.ready_export(key, id).await;
    let mut fields: Vec<&str> = ready.as_object().expect("object").keys().map(String::as_str).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "byteSize",
            "campaignId",
            "createdAt",
            "download",
            "expiresAt",
            "failure",
            "finishedAt",
            "format",
            "id",
            "includeTranscripts",
            "sha256",
            "startedAt",
            "status"
        ]
    );
    assert_eq!(ready["failure"], Value::Null);
    let url = text(&ready["download"], "url");
    let filename = format!("pulse-{}-{id}.json", code_of(&campaign));
    assert!(url.ends_with(&format!("/{filename}")), "{url}");

    let response = app.download(url).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-type").as_deref(), Some("application/json"));
    assert_eq!(header(&response, "content-disposition"), Some(format!("attachment; filename=\"{filename}\"")));
    assert_eq!(header(&response, "cache-control").as_deref(), Some("no-store"));
    assert_eq!(header(&response, "referrer-policy").as_deref(), Some("no-referrer"));
    let bytes = response.bytes().await.expect("the file");
    assert_eq!(ready["byteSize"].as_u64(), Some(bytes.len() as u64));
    assert_eq!(text(&ready, "sha256"), format!("{:x}", Sha256::digest(&bytes)));
    let file: Value = serde_json::from_slice(&bytes).expect("the file is JSON");
    assert_eq!(file["schema"], "svc.partner-export.v1.2");
    let published: Value =
        serde_json::from_str(include_str!("../../schemas/svc.partner-export.v1.2.json")).expect("schema");
    let validator = jsonschema::options().should_validate_formats(true).build(&published).expect("the schema compiles");
    let problems: Vec<String> = validator.iter_errors(&file).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(problems.is_empty(), "the export breaks its published schema: {problems:?}");

    let token = token_of(url);
    assert!(!captured_logs().contains(&token), "the download token reached a log line");
}

#[tokio::test]
async fn a_pdf_report_is_rendered_by_the_worker_and_reads_back_as_the_campaign() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = answered_campaign(&app, &partner).await;

    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "pdf"})).await;
    assert_eq!((&queued["format"], &queued["status"]), (&json!("pdf"), &json!("QUEUED")));
    let id = text(&queued, "id");
    let ready = app.ready_export(key, id).await;
    let url = text(&ready["download"], "url");
    let filename = format!("pulse-{}-{id}.pdf", code_of(&campaign));
    assert!(url.ends_with(&format!("/{filename}")), "{url}");

    let response = app.download(url).await;
    assert_eq!(response.status(), 200);
    assert_eq!(header(&response, "content-type").as_deref(), Some("application/pdf"));
    assert_eq!(header(&response, "content-disposition"), Some(format!("attachment; filename=\"{filename}\"")));
    let bytes = response.bytes().await.expect("the file");
    assert!(bytes.starts_with(b"%PDF-"), "a PDF file");
    assert_eq!(text(&ready, "sha256"), format!("{:x}", Sha256::digest(&bytes)));

    let directory = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("api-exports");
    std::fs::create_dir_all(&directory).expect("artifact directory");
    let path = directory.join(&filename);
    std::fs::write(&path, &bytes).expect("written");
    let output = std::process::Command::new("pdftotext")
        .args([path.to_str().expect("utf-8 path"), "-"])
        .output()
        .expect("pdftotext runs (poppler-utils, installed by .ci/run)");
    let report = String::from_utf8(output.stdout).expect("utf-8");
    let name = text(&campaign, "name");
    assert!(report.contains(name), "the report names the campaign {name:?}:\n{report}");
    assert!(report.contains("10 people started the survey and 10 completed it"), "{report}");
    assert!(!report.contains("+44 20 7946 0958"), "no answer text reaches the report");
}

#[tokio::test]
async fn a_link_is_fetched_at_most_twenty_times_an_hour() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "json"})).await;
    let ready = app.ready_export(key, text(&queued, "id")).await;
    let url = text(&ready["download"], "url");
    for _ in 0..20 {
        assert_eq!(app.download(url).await.status(), 200);
    }
    let tired = app.download(url).await;
    let retry_after: u64 = header(&tired, "retry-after").expect("Retry-After").parse().expect("seconds");
    assert!((1..=3600).contains(&retry_after), "{retry_after}");
    assert_eq!(envelope(tired).await.1, "RATE_LIMITED");

    let fresh = app.ready_export(key, text(&queued, "id")).await;
    assert_eq!(app.download(text(&fresh["download"], "url")).await.status(), 200, "a new link counts afresh");
}

#[tokio::test]
async fn every_link_that_does_not_work_is_the_same_not_found() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "json"})).await;
    let id = text(&queued, "id");
    let url = text(&app.ready_export(key, id).await["download"], "url").to_owned();
    let token = token_of(&url);
    let filename = url.rsplit_once('/').expect("a file name").1;

    let mut tampered = token.clone().into_bytes();
    tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("text");
    let mut refusals = vec![
        envelope(app.download(&url.replace(&token, &tampered)).await).await,
        envelope(app.download(&url.replace(filename, &format!("pulse-other-{id}.json"))).await).await,
        envelope(app.download(&url.replace(&token, "not-a-token")).await).await,
    ];

    app.clock.advance(time::Duration::minutes(16));
    refusals.push(envelope(app.download(&url).await).await);

    let fresh = text(&app.ready_export(key, id).await["download"], "url").to_owned();
    assert_eq!(app.download(&fresh).await.status(), 200);
    app.revoke_key(&partner.key.prefix).await;
    refusals.push(envelope(app.download(&fresh).await).await);

    for refusal in &refusals {
        assert_eq!(refusal, &(404, "NOT_FOUND".to_owned(), "download not found".to_owned()));
    }
    let logs = captured_logs();
    for secret in [&token, &tampered, &token_of(&fresh)] {
        assert!(!logs.contains(secret.as_str()), "a download token reached a log line");
    }
}

#[tokio::test]
async fn a_request_is_refused_as_the_contract_says() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let id = id_of(&campaign);
    let json = json!({"format": "json"});

    assert_eq!(envelope(app.request_export("svc_nope_nope", id, &json).await).await.0, 401);
    assert_eq!(envelope(app.get_export("svc_nope_nope", id).await).await.0, 401);

    let no_export = app.key_of(&partner, &["channel:results"]).await;
    let (status, code, description) = envelope(app.request_export(&no_export.key, id, &json).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:export"), "{description}");
    let no_transcripts = app.key_of(&partner, &["channel:export"]).await;
    let (status, code, description) = envelope(
        app.request_export(&no_transcripts.key, id, &json!({"format": "json", "includeTranscripts": true})).await,
    )
    .await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:transcripts"), "{description}");

    for (body, field) in [
        (json!({"format": "pdf", "includeTranscripts": true}), "includeTranscripts"),
        (json!({"format": "json", "compress": true}), "compress"),
        (json!({"format": "csv"}), "format"),
        (json!({"includeTranscripts": false}), "format"),
    ] {
        let (status, code, description) = envelope(app.request_export(key, id, &body).await).await;
        assert_eq!((status, code.as_str()), (400, "VALIDATION_FAILED"), "{body}");
        assert!(description.contains(field), "{body}: {description}");
    }

    let stranger = app.export_partner().await;
    for campaign in [id, "00000000-0000-4000-8000-000000000000", "not-a-uuid"] {
        let (status, code, _) = envelope(app.request_export(&stranger.key.key, campaign, &json).await).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{campaign}");
    }
}

#[tokio::test]
async fn an_export_is_read_only_in_its_own_workspace_and_with_the_scope() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let queued = app.queued_export(&partner.key.key, id_of(&campaign), &json!({"format": "json"})).await;
    let id = text(&queued, "id");

    let stranger = app.export_partner().await;
    let foreign = envelope(app.get_export(&stranger.key.key, id).await).await;
    let unknown = envelope(app.get_export(&stranger.key.key, "00000000-0000-4000-8000-000000000000").await).await;
    assert_eq!(foreign, unknown, "another workspace's export is unknown");
    assert_eq!((foreign.0, foreign.1.as_str()), (404, "NOT_FOUND"));

    let results_only = app.key_of(&partner, &["channel:results"]).await;
    let (status, code, description) = envelope(app.get_export(&results_only.key, id).await).await;
    assert_eq!((status, code.as_str()), (403, "INSUFFICIENT_PERMISSION"));
    assert!(description.contains("channel:export"), "{description}");
}

#[tokio::test]
async fn a_request_with_an_idempotency_key_is_replayed_with_the_same_export() {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let id = id_of(&campaign);

    let first = app.request_export_idempotent(key, "export-1", id, &json!({"format": "json"})).await;
    assert_eq!(first.status(), 202);
    assert!(first.headers().get("idempotency-replayed").is_none());
    let first: Value = first.json().await.expect("json");
    let replay = app
        .request_export_idempotent(key, "export-1", id, &json!({"format": "json", "includeTranscripts": false}))
        .await;
    assert_eq!(replay.status(), 200);
    assert_eq!(header(&replay, "idempotency-replayed").as_deref(), Some("true"));
    let replay: Value = replay.json().await.expect("json");
    assert_eq!(replay["id"], first["id"]);

    let conflict = app
        .request_export_idempotent(key, "export-1", id, &json!({"format": "json", "includeTranscripts": true}))
        .await;
    assert_eq!(envelope(conflict).await.1, "CONFLICT");
}

#[tokio::test]
async fn exports_share_the_hourly_export_quota_of_the_key() {
    let app = spawn_app_with(|s| s.quotas = s.quotas.clone().with_hourly(QuotaFamily::Export, 2)).await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = app.live_campaign(key).await;
    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "json"})).await;
    assert_eq!(app.get_export(key, text(&queued, "id")).await.status(), 200);
    let refused = app.get_export(key, text(&queued, "id")).await;
    assert!(header(&refused, "retry-after").is_some());
    assert_eq!(envelope(refused).await.1, "RATE_LIMITED");
}

#[tokio::test]
async fn a_file_one_replica_rendered_is_served_by_another() {
    let app = spawn_app().await;
    let replica = app.second_instance();
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let campaign = answered_campaign(&app, &partner).await;
    let queued = app.queued_export(key, id_of(&campaign), &json!({"format": "json"})).await;
    let ready = app.ready_export(key, text(&queued, "id")).await;
    let path = crate::helpers::exports::download_path(text(&ready["download"], "url"));
    let response = reqwest::get(format!("{replica}{path}")).await.expect("the other replica answers");
    assert_eq!(response.status(), 200);
    let bytes = response.bytes().await.expect("the file");
    assert_eq!(text(&ready, "sha256"), format!("{:x}", Sha256::digest(&bytes)), "the same file");
}
