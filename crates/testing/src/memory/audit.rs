//! The audit trail in memory. Other modules write entries while they hold the state's lock, so an
//! entry and what it records are written together.
use super::*;
use pulse_domain::audit::models::{AuditEntry, AuditEvent, AuditQuery, AuditScope};
use pulse_domain::audit::ports::AuditTrail;
use pulse_domain::error::Result;
use pulse_domain::ids::WorkspaceId;
use pulse_domain::shared::paging::PageRequest;

#[derive(Clone, Debug)]
pub(super) struct AuditRow {
    position: i64,
    id: Uuid,
    entry: AuditEntry,
}

impl State {
    /// Writes `entry` with whatever else this lock holder writes.
    pub(super) fn audit(&mut self, entry: &AuditEntry) {
        self.last_position += 1;
        self.audit.push(AuditRow { position: self.last_position, id: Uuid::new_v4(), entry: entry.clone() });
    }
}

impl AuditTrail for MemoryStore {
    async fn record_audit(&self, entry: &AuditEntry) -> Result<()> {
        self.state().audit(entry);
        Ok(())
    }

    async fn list_audit_events(
        &self,
        workspace: WorkspaceId,
        query: &AuditQuery,
        page: &PageRequest,
    ) -> Result<Vec<AuditEvent>> {
        let state = self.state();
        let business = state.workspaces.iter().find(|w| w.id == workspace).map(|w| w.business_id);
        let after = page.after.map_or(0, |k| k.position);
        Ok(state
            .audit
            .iter()
            .filter(|row| {
                let e = &row.entry;
                row.position > after
                    && match e.scope {
                        AuditScope::Workspace(w) => w == workspace,
                        AuditScope::Business(b) => Some(b) == business,
                    }
                    && query.from.is_none_or(|from| e.at >= from)
                    && query.to.is_none_or(|to| e.at < to)
                    && (query.kinds.is_empty() || query.kinds.contains(&e.action))
            })
            .take(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1)
            .map(|row| AuditEvent { id: row.id, position: row.position, entry: row.entry.clone() })
            .collect())
    }

    async fn purge_audit_events(&self, before: time::OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.audit.len();
        state.audit.retain(|row| row.entry.at >= before);
        Ok((len - state.audit.len()) as u64)
    }
}
