//! Export records, their claims and files, fetch counts and worker beats in memory.

use pulse_domain::Result;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::exports::models::{ExportFailure, ExportJob, ExportRecord, ExportStatus, FinishedExport};
use pulse_domain::exports::ports::{ExportRepository, ExportStore, WorkerPresence};
use pulse_domain::ids::{ExportId, WorkspaceId};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{ExportRow, MemoryStore};

impl ExportRepository for MemoryStore {
    async fn insert_export(&self, record: &ExportRecord, audit: &AuditEntry) -> Result<()> {
        let row = ExportRow { record: record.clone(), claim: None, lease_until: None };
        let mut state = self.state();
        state.exports.insert(record.id, row);
        state.audit(audit);
        Ok(())
    }

    async fn find_export(&self, workspace: WorkspaceId, id: ExportId) -> Result<Option<ExportRecord>> {
        Ok(self
            .state()
            .exports
            .get(&id)
            .filter(|row| row.record.workspace_id == workspace)
            .map(|row| row.record.clone()))
    }

    async fn find_export_by_id(&self, id: ExportId) -> Result<Option<ExportRecord>> {
        Ok(self.state().exports.get(&id).map(|row| row.record.clone()))
    }

    async fn claim_exports(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<ExportJob>> {
        let mut state = self.state();
        let mut due: Vec<&mut ExportRow> = state
            .exports
            .values_mut()
            .filter(|row| match row.record.status {
                ExportStatus::Queued => true,
                ExportStatus::Running => row.lease_until.is_some_and(|until| until <= now),
                _ => false,
            })
            .collect();
        due.sort_by_key(|row| (row.record.created_at, row.record.id));
        let mut jobs = Vec::new();
        for row in due.into_iter().take(limit as usize) {
            let token = Uuid::new_v4();
            row.claim = Some(token);
            row.lease_until = Some(lease_until);
            row.record.status = ExportStatus::Running;
            row.record.attempts += 1;
            row.record.started_at.get_or_insert(now);
            jobs.push(ExportJob { record: row.record.clone(), claim_token: token });
        }
        Ok(jobs)
    }

    async fn finish_export(&self, finished: &FinishedExport) -> Result<bool> {
        let mut state = self.state();
        let Some(row) = state.exports.get_mut(&finished.id).filter(|row| row.claim == Some(finished.claim_token))
        else {
            return Ok(false);
        };
        row.claim = None;
        row.lease_until = None;
        row.record.status = ExportStatus::Ready;
        row.record.finished_at = Some(finished.at);
        row.record.byte_size = Some(finished.byte_size);
        row.record.sha256 = Some(finished.sha256.clone());
        row.record.expires_at = Some(finished.expires_at);
        state.emit(finished.ready.clone());
        Ok(true)
    }

    async fn fail_export(
        &self,
        id: ExportId,
        claim_token: Uuid,
        at: OffsetDateTime,
        failure: Option<&ExportFailure>,
    ) -> Result<bool> {
        let mut state = self.state();
        let Some(row) = state.exports.get_mut(&id).filter(|row| row.claim == Some(claim_token)) else {
            return Ok(false);
        };
        row.claim = None;
        row.lease_until = None;
        match failure {
            None => row.record.status = ExportStatus::Queued,
            Some(failure) => {
                row.record.status = ExportStatus::Failed;
                row.record.finished_at = Some(at);
                row.record.failure = Some(failure.clone());
            }
        }
        Ok(true)
    }

    async fn expire_exports(&self, now: OffsetDateTime) -> Result<Vec<ExportId>> {
        let mut state = self.state();
        let mut expired = Vec::new();
        for row in state.exports.values_mut() {
            if row.record.status == ExportStatus::Ready && row.record.expires_at.is_some_and(|at| at <= now) {
                row.record.status = ExportStatus::Expired;
                expired.push(row.record.id);
            }
        }
        Ok(expired)
    }

    async fn count_fetch(&self, link: Uuid, window_start: OffsetDateTime) -> Result<u32> {
        let mut state = self.state();
        let count = state.link_fetches.entry((link, window_start)).or_insert(0);
        *count += 1;
        Ok(*count)
    }

    async fn purge_fetch_counts(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let held = state.link_fetches.len();
        state.link_fetches.retain(|(_, start), _| *start >= before);
        Ok((held - state.link_fetches.len()) as u64)
    }
}

impl WorkerPresence for MemoryStore {
    async fn export_worker_beat(&self, worker: Uuid, at: OffsetDateTime) -> Result<()> {
        self.state().export_workers.insert(worker, at);
        Ok(())
    }

    async fn export_worker_alive(&self, since: OffsetDateTime) -> Result<bool> {
        Ok(self.state().export_workers.values().any(|at| *at >= since))
    }
}

impl ExportStore for MemoryStore {
    async fn put(&self, id: ExportId, bytes: Vec<u8>) -> Result<()> {
        self.state().export_files.insert(id, bytes);
        Ok(())
    }

    async fn get(&self, id: ExportId) -> Result<Option<Vec<u8>>> {
        Ok(self.state().export_files.get(&id).cloned())
    }

    async fn delete(&self, id: ExportId) -> Result<()> {
        self.state().export_files.remove(&id);
        Ok(())
    }
}
