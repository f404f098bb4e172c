//! What partners ask of exports (request one, read it with a fresh link, download through the
//! link), and what the export worker does (render due exports, expire old files).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use uuid::Uuid;

use crate::audit::models::{AuditAction, AuditActor, AuditEntry, AuditScope};
use crate::audit::ports::AuditTrail;
use crate::campaigns::ports::CampaignRepository;
use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::exports::models::{
    DownloadClaims, EXPORT_BATCH, EXPORT_LEASE, ExportDocument, ExportFailure, ExportFormat, ExportJob, ExportRecord,
    ExportRequest, ExportStatus, FETCHES_PER_LINK_HOUR, FinishedExport, LINK_LIFETIME, MAX_ATTEMPTS, RETENTION,
    ReportLanguage,
};
use crate::exports::ports::{ExportRenderer, ExportRepository, ExportStore, WorkerPresence};
use crate::ids::{CampaignId, EventId, ExportId};
use crate::quota::models::{WINDOW, window_start};
use crate::results::ports::ResultsRepository;
use crate::results::service::Results;
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose, macs_equal};
use crate::shared::hex;
use crate::tenancy::models::{Principal, Scope};
use crate::tenancy::ports::TenancyRepository;

/// How recently a worker must have beaten for a request to be taken.
const WORKER_SILENCE: time::Duration = time::Duration::seconds(30);
const MAC_LEN: usize = 16;

/// A freshly minted download link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownloadLink {
    pub url: String,
    pub expires_at: time::OffsetDateTime,
}

/// A file as a download answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Download {
    pub filename: String,
    pub format: ExportFormat,
    pub bytes: Vec<u8>,
}

/// What one worker round did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportRound {
    pub ready: Vec<ExportId>,
    pub retried: Vec<ExportId>,
    pub failed: Vec<ExportId>,
}

pub struct Exports<R, S, N, C, K> {
    repo: R,
    store: S,
    renderer: N,
    crypto: C,
    clock: K,
    results: Results<R, C, K>,
    /// `{base_url}/api/v1/channel/downloads`.
    downloads_url: String,
}

impl<R, S, N, C, K> Exports<R, S, N, C, K>
where
    R: ExportRepository
        + ResultsRepository
        + CampaignRepository
        + TenancyRepository
        + WorkerPresence
        + AuditTrail
        + Clone,
    S: ExportStore,
    N: ExportRenderer,
    C: Crypto + Clone,
    K: Clock + Clone,
{
    pub fn new(repo: R, store: S, renderer: N, crypto: C, clock: K, results: Results<R, C, K>, base_url: &str) -> Self {
        let downloads_url = format!("{}/api/v1/channel/downloads", base_url.trim_end_matches('/'));
        Self { repo, store, renderer, crypto, clock, results, downloads_url }
    }

    /// Queues an export of the campaign.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:export`, or without `channel:transcripts` when
    /// transcripts are asked for; workspace resolution errors; `NotFound` for an unknown campaign
    /// or another workspace's; `ExportUnavailable` when no worker is alive or the format cannot be
    /// rendered here; port errors.
    pub async fn request(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        campaign: CampaignId,
        request: ExportRequest,
    ) -> Result<ExportRecord> {
        principal.require_scope(Scope::EXPORT)?;
        if request.include_transcripts {
            principal.require_scope(Scope::TRANSCRIPTS)?;
        }
        let workspace = principal.resolve_workspace(workspace_header)?;
        let overview =
            self.repo.campaign_overview(workspace, campaign).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let now = self.clock.now();
        if !self.renderer.can_render(request.format) {
            return Err(Error::refused(
                ErrorCode::ExportUnavailable,
                format!("this service cannot render {} files now; ask for a JSON export", request.format.as_str()),
            ));
        }
        if !self.repo.export_worker_alive(now - WORKER_SILENCE).await? {
            return Err(Error::refused(
                ErrorCode::ExportUnavailable,
                "no export worker is running; try again in a minute",
            ));
        }
        let record = ExportRecord {
            id: ExportId::new_random(),
            workspace_id: workspace,
            campaign_id: campaign,
            campaign_code: overview.campaign.code,
            format: request.format,
            include_transcripts: request.include_transcripts,
            status: ExportStatus::Queued,
            requested_by: principal.key_id,
            created_at: now,
            started_at: None,
            finished_at: None,
            failure: None,
            expires_at: None,
            byte_size: None,
            sha256: None,
            attempts: 0,
        };
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::ExportRequested, record.id, now);
        self.repo.insert_export(&record, &audit).await?;
        Ok(record)
    }

    /// The export, with a link minted afresh when it is READY.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:export`; workspace resolution errors; `NotFound`
    /// for an unknown export or another workspace's; port errors.
    pub async fn get(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: ExportId,
    ) -> Result<(ExportRecord, Option<DownloadLink>)> {
        principal.require_scope(Scope::EXPORT)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let record = self.repo.find_export(workspace, id).await?.ok_or_else(|| Error::not_found("export"))?;
        let link = match (record.status, record.expires_at) {
            (ExportStatus::Ready, Some(file_expires_at)) => Some(self.mint(&record, principal, file_expires_at)),
            _ => None,
        };
        Ok((record, link))
    }

    fn mint(
        &self,
        record: &ExportRecord,
        principal: &Principal,
        file_expires_at: time::OffsetDateTime,
    ) -> DownloadLink {
        let expires_at = (self.clock.now() + LINK_LIFETIME).min(file_expires_at);
        let claims = DownloadClaims { export: record.id, link: Uuid::new_v4(), key: principal.key_id, expires_at };
        let body = claims.encode();
        let mac = self.mac(&body);
        let token = format!("{}.{}", URL_SAFE_NO_PAD.encode(body), URL_SAFE_NO_PAD.encode(mac));
        DownloadLink { url: format!("{}/{token}/{}", self.downloads_url, record.filename()), expires_at }
    }

    fn mac(&self, body: &[u8]) -> Vec<u8> {
        let mut mac = self.crypto.keyed_digest(DigestPurpose::DownloadLink, body);
        mac.truncate(MAC_LEN);
        mac
    }

    /// The claims of a genuine, unexpired link; `None` for anything else.
    fn read_link(&self, token: &str) -> Option<DownloadClaims> {
        let (body, mac) = token.split_once('.')?;
        let body = URL_SAFE_NO_PAD.decode(body).ok()?;
        let mac = URL_SAFE_NO_PAD.decode(mac).ok()?;
        if !macs_equal(&self.mac(&body), &mac) {
            return None;
        }
        let claims = DownloadClaims::decode(&body)?;
        (self.clock.now() < claims.expires_at).then_some(claims)
    }

    /// The file a link names, counting the fetch against the link's hourly limit, and recording
    /// it in the audit trail as the download of the key that read the link, from `network`.
    ///
    /// # Errors
    /// One `NotFound` for every link that does not work: tampered, expired, another file's name,
    /// its key revoked, the file gone; `RateLimited` past the link's hourly fetches; port errors.
    pub async fn download(&self, token: &str, filename: &str, network: Option<String>) -> Result<Download> {
        let gone = || Error::not_found("download");
        let claims = self.read_link(token).ok_or_else(gone)?;
        let record = self.repo.find_export_by_id(claims.export).await?.ok_or_else(gone)?;
        let now = self.clock.now();
        if record.status != ExportStatus::Ready || record.filename() != filename {
            return Err(gone());
        }
        let prefix = self.repo.usable_key_prefix(claims.key, now).await?.ok_or_else(gone)?;
        let start = window_start(now);
        let fetches = self.repo.count_fetch(claims.link, start).await?;
        if fetches > FETCHES_PER_LINK_HOUR {
            let reset_secs = u64::try_from((start + WINDOW - now).whole_seconds()).unwrap_or(0).max(1);
            return Err(Error::Refused(Refusal {
                code: ErrorCode::RateLimited,
                description: format!(
                    "this link was fetched {FETCHES_PER_LINK_HOUR} times this hour; read the export again for a new link"
                ),
                rate_limit: Some(RateLimitState {
                    family: "download_fetch",
                    limit: FETCHES_PER_LINK_HOUR,
                    remaining: 0,
                    reset_secs,
                }),
            }));
        }
        let bytes = self.store.get(record.id).await?.ok_or_else(gone)?;
        // No transaction to join: the download writes only its fetch count, before the file is
        // read. The entry is written once the file is in hand.
        let entry = AuditEntry {
            scope: AuditScope::Workspace(record.workspace_id),
            actor: AuditActor::Key { prefix, network },
            action: AuditAction::ExportDownloaded,
            target: record.id.to_string(),
            at: now,
        };
        self.repo.record_audit(&entry).await?;
        Ok(Download { filename: record.filename(), format: record.format, bytes })
    }

    /// Tells the others this worker is alive.
    ///
    /// # Errors
    /// Port errors.
    pub async fn beat(&self, worker: Uuid) -> Result<()> {
        self.repo.export_worker_beat(worker, self.clock.now()).await
    }

    /// Renders the exports that are due.
    ///
    /// # Errors
    /// Port errors of the claim; a failed rendering is recorded, not returned.
    pub async fn run_due(&self) -> Result<ExportRound> {
        let now = self.clock.now();
        let jobs = self.repo.claim_exports(now, now + EXPORT_LEASE, EXPORT_BATCH).await?;
        let mut round = ExportRound::default();
        for job in jobs {
            let id = job.record.id;
            match self.render(&job).await {
                Ok(true) => round.ready.push(id),
                Ok(false) => {}
                Err(error) => {
                    let last = job.record.attempts >= MAX_ATTEMPTS;
                    let failure = last.then(|| failure_of(&error));
                    if self.repo.fail_export(id, job.claim_token, self.clock.now(), failure.as_ref()).await? {
                        if last { round.failed.push(id) } else { round.retried.push(id) }
                    }
                }
            }
        }
        Ok(round)
    }

    /// `Ok(false)` when the claim was lost meanwhile.
    async fn render(&self, job: &ExportJob) -> Result<bool> {
        let record = &job.record;
        let (results, transcripts) = self
            .results
            .campaign_results(record.workspace_id, record.campaign_id, record.include_transcripts)
            .await?
            .ok_or_else(|| Error::internal("the campaign of an export is gone"))?;
        let survey = self
            .repo
            .find_survey(record.workspace_id, results.campaign.survey_id)
            .await?
            .ok_or_else(|| Error::internal("the survey of an export is gone"))?;
        let trend = self
            .results
            .campaign_trend(record.workspace_id, record.campaign_id)
            .await?
            .ok_or_else(|| Error::internal("the campaign of an export is gone"))?;
        let language = ReportLanguage::of(survey.default_language());
        let transcripts = record.include_transcripts.then_some(transcripts);
        let document = ExportDocument::of(&results, trend, language, transcripts);
        let bytes = self.renderer.render(&document, record.format).await?;
        let byte_size = bytes.len() as u64;
        let sha256 = hex::encode(&self.crypto.sha256(&bytes));
        self.store.put(record.id, bytes).await?;
        let at = self.clock.now();
        let ready = record.ready_event(EventId::new_random(), byte_size, at);
        let finished = FinishedExport {
            id: record.id,
            claim_token: job.claim_token,
            at,
            byte_size,
            sha256,
            expires_at: at + RETENTION,
            ready,
        };
        self.repo.finish_export(&finished).await
    }

    /// Expires files past their retention and deletes them, and forgets the fetch counts of past
    /// hours; returns how many files.
    ///
    /// # Errors
    /// Port errors.
    pub async fn sweep(&self) -> Result<usize> {
        let now = self.clock.now();
        self.repo.purge_fetch_counts(window_start(now)).await?;
        let expired = self.repo.expire_exports(now).await?;
        for id in &expired {
            self.store.delete(*id).await?;
        }
        Ok(expired.len())
    }
}

/// What the partner is told of a rendering that failed for good: the class, never the cause.
fn failure_of(error: &Error) -> ExportFailure {
    let (code, description) = match error.code() {
        ErrorCode::Unavailable => ("STORAGE_UNAVAILABLE", "The file could not be stored; request a new export."),
        _ => ("RENDER_FAILED", "The file could not be rendered; request a new export."),
    };
    ExportFailure { code: code.into(), description: description.into() }
}
