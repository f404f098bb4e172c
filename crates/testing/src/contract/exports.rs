//! `ExportRepository`, `ExportStore` and `WorkerPresence`: records stay in their workspace, a
//! queued export is claimed once per lease and finished or failed only by its holder, files expire,
//! fetches are counted per link and hour, and a worker is alive while it beats.

use futures_util::future::join;
use pulse_domain::ErrorCode;
use pulse_domain::audit::models::{AuditAction, AuditEntry};
use pulse_domain::exports::models::{
    ExportFailure, ExportFormat, ExportRecord, ExportRequest, ExportStatus, FinishedExport,
};
use pulse_domain::ids::{EventId, ExportId, WorkspaceId};
use pulse_domain::shared::clock::Clock;
use pulse_domain::tenancy::service::KeyRequest;
use pulse_domain::webhooks::models::SubscriptionInput;
use secrecy::ExposeSecret;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use super::campaigns::audited;
use super::{Partner, SCOPES, Store, World};

/// A partner and a queued JSON export of its open campaign.
async fn queued<S: Store>(w: &World<S>) -> (Partner, ExportRecord) {
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let record = ExportRecord {
        id: ExportId::new_random(),
        workspace_id: partner.workspace,
        campaign_id: campaign.id,
        campaign_code: campaign.code,
        format: ExportFormat::Json,
        include_transcripts: false,
        status: ExportStatus::Queued,
        requested_by: partner.principal.key_id,
        created_at: w.clock.now(),
        started_at: None,
        finished_at: None,
        failure: None,
        expires_at: None,
        byte_size: None,
        sha256: None,
        attempts: 0,
    };
    let audit = AuditEntry::by_key(
        &partner.principal,
        partner.workspace,
        AuditAction::ExportRequested,
        record.id,
        record.created_at,
    );
    w.store.insert_export(&record, &audit).await.expect("inserted");
    (partner, record)
}

/// The holder's record of a rendered file of 10 bytes.
fn finished(
    record: &ExportRecord,
    claim_token: Uuid,
    at: OffsetDateTime,
    expires_at: OffsetDateTime,
) -> FinishedExport {
    FinishedExport {
        id: record.id,
        claim_token,
        at,
        byte_size: 10,
        sha256: "ab".into(),
        expires_at,
        ready: record.ready_event(EventId::new_random(), 10, at),
    }
}

pub async fn an_export_is_read_back_only_in_its_workspace<S: Store>(store: S) {
    let w = World::new(store);
    let (_, record) = queued(&w).await;
    assert_eq!(w.store.find_export(record.workspace_id, record.id).await.expect("read"), Some(record.clone()));
    assert_eq!(w.store.find_export(WorkspaceId::new_random(), record.id).await.expect("read"), None);
    assert_eq!(w.store.find_export_by_id(record.id).await.expect("read"), Some(record.clone()));
    assert_eq!(w.store.find_export_by_id(ExportId::new_random()).await.expect("read"), None);
}

pub async fn an_export_is_claimed_once_per_lease_and_only_its_holder_finishes_it<S: Store>(store: S) {
    let w = World::new(store);
    let (_, record) = queued(&w).await;
    let now = w.clock.now();
    let lease = now + Duration::minutes(10);
    let (a, b) = join(w.store.claim_exports(now, lease, 2), w.store.claim_exports(now, lease, 2)).await;
    let mut jobs = a.expect("claimed");
    jobs.extend(b.expect("claimed"));
    assert_eq!(jobs.len(), 1, "claimed once");
    let job = jobs.remove(0);
    assert_eq!((job.record.status, job.record.attempts, job.record.started_at), (ExportStatus::Running, 1, Some(now)));
    assert!(w.store.claim_exports(now, lease, 2).await.expect("claimed").is_empty(), "held by its lease");

    let later = lease + Duration::SECOND;
    let retaken = w.store.claim_exports(later, later + Duration::minutes(10), 2).await.expect("claimed");
    assert_eq!(retaken.len(), 1, "a lapsed lease is taken over");
    assert_eq!((retaken[0].record.attempts, retaken[0].record.started_at), (2, Some(now)));
    let expires = later + Duration::DAY;
    let lost = w.store.finish_export(&finished(&record, job.claim_token, later, expires)).await;
    assert!(!lost.expect("finish"), "a lost claim finishes nothing");
    assert!(w.store.finish_export(&finished(&record, retaken[0].claim_token, later, expires)).await.expect("finish"));
    let ready = w.store.find_export_by_id(record.id).await.expect("read").expect("the export");
    assert_eq!(
        (ready.status, ready.finished_at, ready.byte_size, ready.sha256.as_deref(), ready.expires_at),
        (ExportStatus::Ready, Some(later), Some(10), Some("ab"), Some(expires))
    );
    assert!(w.store.claim_exports(expires, expires + Duration::HOUR, 2).await.expect("claimed").is_empty());

    assert!(w.store.expire_exports(expires - Duration::SECOND).await.expect("expired").is_empty());
    assert_eq!(w.store.expire_exports(expires).await.expect("expired"), [record.id]);
    let gone = w.store.find_export_by_id(record.id).await.expect("read").expect("the export");
    assert_eq!(gone.status, ExportStatus::Expired);
}

pub async fn a_failed_attempt_is_queued_again_or_fails_for_good<S: Store>(store: S) {
    let w = World::new(store);
    let (_, record) = queued(&w).await;
    let now = w.clock.now();
    let job = w.store.claim_exports(now, now + Duration::MINUTE, 1).await.expect("claimed").remove(0);
    assert!(!w.store.fail_export(record.id, Uuid::new_v4(), now, None).await.expect("fail"), "not the holder");
    assert!(w.store.fail_export(record.id, job.claim_token, now, None).await.expect("fail"));
    let job = w.store.claim_exports(now, now + Duration::MINUTE, 1).await.expect("claimed").remove(0);
    assert_eq!(job.record.attempts, 2, "queued again at once");
    let failure = ExportFailure { code: "RENDER_FAILED".into(), description: "The file could not be rendered.".into() };
    assert!(w.store.fail_export(record.id, job.claim_token, now, Some(&failure)).await.expect("fail"));
    let failed = w.store.find_export_by_id(record.id).await.expect("read").expect("the export");
    assert_eq!((failed.status, failed.failure, failed.finished_at), (ExportStatus::Failed, Some(failure), Some(now)));
    assert!(w.store.claim_exports(now + Duration::HOUR, now + Duration::DAY, 1).await.expect("claimed").is_empty());
}

pub async fn files_are_kept_replaced_and_deleted<S: Store>(store: S) {
    let w = World::new(store);
    let (_, record) = queued(&w).await;
    assert_eq!(w.store.get(record.id).await.expect("read"), None);
    w.store.put(record.id, b"first".to_vec()).await.expect("put");
    w.store.put(record.id, b"second".to_vec()).await.expect("put");
    assert_eq!(w.store.get(record.id).await.expect("read"), Some(b"second".to_vec()));
    w.store.delete(record.id).await.expect("deleted");
    w.store.delete(record.id).await.expect("deleting twice is no error");
    assert_eq!(w.store.get(record.id).await.expect("read"), None);
}

pub async fn fetches_are_counted_per_link_and_hour_and_workers_are_alive_while_they_beat<S: Store>(store: S) {
    let w = World::new(store);
    let (link, other) = (Uuid::new_v4(), Uuid::new_v4());
    let hour = w.clock.now();
    for expected in 1..=3 {
        assert_eq!(w.store.count_fetch(link, hour).await.expect("counted"), expected);
    }
    assert_eq!(w.store.count_fetch(other, hour).await.expect("counted"), 1, "another link");
    assert_eq!(w.store.count_fetch(link, hour + Duration::HOUR).await.expect("counted"), 1, "another hour");
    assert_eq!(w.store.purge_fetch_counts(hour + Duration::HOUR).await.expect("purged"), 2, "the first hour's links");
    assert_eq!(w.store.count_fetch(link, hour).await.expect("counted"), 1, "counted afresh once forgotten");

    let now = w.clock.now();
    assert!(!w.store.export_worker_alive(now - Duration::MINUTE).await.expect("read"), "no worker yet");
    w.store.export_worker_beat(Uuid::new_v4(), now).await.expect("beat");
    assert!(w.store.export_worker_alive(now - Duration::MINUTE).await.expect("read"));
    assert!(!w.store.export_worker_alive(now + Duration::SECOND).await.expect("read"), "silent since");
}

pub async fn a_finished_export_announces_itself_to_subscribed_endpoints_once<S: Store>(store: S) {
    let w = World::new(store);
    let (partner, record) = queued(&w).await;
    let input = SubscriptionInput {
        url: Some("https://hooks.example.com/exports".into()),
        description: None,
        event_types: Some(vec!["export.ready".into()]),
    };
    let (subscription, _) = w.webhooks.create(&partner.principal, None, input).await.expect("subscribed");
    let now = w.clock.now();
    let job = w.store.claim_exports(now, now + Duration::MINUTE, 1).await.expect("claimed").remove(0);
    let finished = finished(&record, job.claim_token, now, now + Duration::DAY);
    assert!(w.store.finish_export(&finished).await.expect("finish"));
    assert!(!w.store.finish_export(&finished).await.expect("finish"), "the claim is spent");
    let page = w.webhooks.deliveries(&partner.principal, None, subscription.id, None, None).await.expect("deliveries");
    assert_eq!(page.items.len(), 1, "announced once");
    assert_eq!(page.items[0].event_type.as_str(), "export.ready");
}

pub async fn a_requested_export_is_audited_once_and_a_refused_request_not_at_all<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let request = KeyRequest {
        business_id: Some(partner.business),
        scopes: SCOPES.iter().chain(&["channel:export"]).map(|s| (*s).to_owned()).collect(),
        workspaces: vec![partner.workspace],
        ..KeyRequest::default()
    };
    let issued = w.admin.create_key(request).await.expect("key");
    let principal = w.tenancy.authenticate(Some(issued.key.expose_secret())).await.expect("principal");
    let exporter = Partner { principal, ..partner };
    let campaign = w.open_campaign(&exporter).await.campaign.id;
    let seen = audited(&w, &exporter).await.len();
    let json = ExportRequest::parse("json", false).expect("valid");

    let refused = w.exports.request(&exporter.principal, None, campaign, json).await.expect_err("no worker");
    assert_eq!(refused.code(), ErrorCode::ExportUnavailable);
    w.store.export_worker_beat(Uuid::new_v4(), w.clock.now()).await.expect("beat");
    let record = w.exports.request(&exporter.principal, None, campaign, json).await.expect("queued");

    let requested = AuditEntry::by_key(
        &exporter.principal,
        exporter.workspace,
        AuditAction::ExportRequested,
        record.id,
        w.clock.now(),
    );
    assert_eq!(audited(&w, &exporter).await[seen..], [requested]);
}
