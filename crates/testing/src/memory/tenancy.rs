//! Businesses, keys and workspaces in memory.
use super::*;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::error::{Error, ErrorCode, Result};
use pulse_domain::ids::{ApiKeyId, BusinessId, WorkspaceId};
use pulse_domain::tenancy::models::{
    ApiKeyRecord, Business, NewApiKey, NewWorkspace, Workspace, WorkspaceCreation, WorkspaceStatus,
};
use pulse_domain::tenancy::ports::TenancyRepository;
use pulse_domain::webhooks::models::NewEvent;
use time::OffsetDateTime;

impl TenancyRepository for MemoryStore {
    async fn create_business(&self, business: &Business) -> Result<()> {
        self.state().businesses.insert(business.id, business.clone());
        Ok(())
    }

    async fn business_exists(&self, id: BusinessId) -> Result<bool> {
        Ok(self.state().businesses.contains_key(&id))
    }

    async fn insert_api_key(&self, key: &NewApiKey, audit: Option<&AuditEntry>) -> Result<()> {
        let mut state = self.state();
        if state.keys.contains_key(&key.record.prefix) {
            return Err(Error::refused(ErrorCode::Conflict, "prefix taken"));
        }
        let foreign =
            key.record.workspace_allowlist.iter().any(|id| {
                !state.workspaces.iter().any(|w| w.id == *id && Some(w.business_id) == key.record.business_id)
            });
        if foreign {
            return Err(Error::not_found("workspace"));
        }
        state.keys.insert(key.record.prefix.clone(), key.record.clone());
        if let Some(entry) = audit {
            state.audit(entry);
        }
        Ok(())
    }

    async fn find_api_key(&self, prefix: &str) -> Result<Option<ApiKeyRecord>> {
        Ok(self.state().keys.get(prefix).cloned())
    }

    async fn usable_key_prefix(&self, id: ApiKeyId, at: OffsetDateTime) -> Result<Option<String>> {
        Ok(self
            .state()
            .keys
            .values()
            .find(|k| {
                k.id == id
                    && k.revoked_at.is_none_or(|revoked| revoked > at)
                    && k.expires_at.is_none_or(|ends| ends > at)
            })
            .map(|k| k.prefix.clone()))
    }

    async fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime, audit: Option<&AuditEntry>) -> Result<bool> {
        let mut state = self.state();
        let Some(key) = state.keys.get_mut(prefix) else { return Ok(false) };
        if key.revoked_at.is_none() {
            key.revoked_at = Some(at);
            if let Some(entry) = audit {
                state.audit(entry);
            }
        }
        Ok(true)
    }

    async fn create_workspace(
        &self,
        creator: ApiKeyId,
        new: &NewWorkspace,
        max_per_business: u32,
    ) -> Result<WorkspaceCreation> {
        let mut state = self.state();
        if let Some(existing) = state
            .workspaces
            .iter()
            .find(|w| w.business_id == new.business_id && w.details.external_ref == new.details.external_ref)
        {
            return Ok(WorkspaceCreation::Existing(existing.clone()));
        }
        let held = state.workspaces.iter().filter(|w| w.business_id == new.business_id).count();
        if held >= max_per_business as usize {
            return Err(Error::refused(ErrorCode::RateLimited, "business workspace limit reached"));
        }
        let workspace = Workspace {
            id: new.id,
            business_id: new.business_id,
            slug: new.slug.clone(),
            status: WorkspaceStatus::PendingApproval,
            details: new.details.clone(),
            created_at: new.created_at,
        };
        state.workspaces.push(workspace.clone());
        if let Some(key) = state.keys.values_mut().find(|k| k.id == creator) {
            key.workspace_allowlist.push(new.id);
        }
        Ok(WorkspaceCreation::Created(workspace))
    }

    async fn list_workspaces(&self, business: BusinessId, ids: &[WorkspaceId]) -> Result<Vec<Workspace>> {
        Ok(self
            .state()
            .workspaces
            .iter()
            .filter(|w| w.business_id == business && ids.contains(&w.id))
            .cloned()
            .collect())
    }

    async fn approve_workspace(
        &self,
        id: WorkspaceId,
        audit: &AuditEntry,
        event: &NewEvent,
    ) -> Result<Option<Workspace>> {
        let mut state = self.state();
        let Some(workspace) = state.workspaces.iter_mut().find(|w| w.id == id) else { return Ok(None) };
        let changed = workspace.status != WorkspaceStatus::Active;
        workspace.status = WorkspaceStatus::Active;
        let approved = workspace.clone();
        if changed {
            state.audit(audit);
            state.emit(event.clone());
        }
        Ok(Some(approved))
    }
}
