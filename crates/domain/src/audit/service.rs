//! Reading the trail, and keeping it no longer than the operator says.

use time::{Duration, OffsetDateTime};

use crate::audit::models::{AuditAction, AuditEvent, AuditQuery};
use crate::audit::ports::AuditTrail;
use crate::error::{Error, Result};
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::shared::paging::{Cursors, Page, PageKey};
use crate::tenancy::models::{Principal, Scope};

pub struct Audit<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    retention: Duration,
}

/// The query of `GET /audit-events` as sent.
#[derive(Clone, Debug, Default)]
pub struct AuditRead<'a> {
    pub from: Option<&'a str>,
    pub to: Option<&'a str>,
    /// Comma-separated action names.
    pub kind: Option<&'a str>,
    pub limit: Option<&'a str>,
    pub cursor: Option<&'a str>,
}

impl<R: AuditTrail, C: Crypto, K: Clock> Audit<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K, retention: Duration) -> Self {
        Self { repo, crypto, clock, retention }
    }

    /// A page of the trail of the workspace the call acts in.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:audit`; workspace resolution errors (another
    /// workspace is `NotFound`); `ValidationFailed` naming `from`, `to`, `kind`, `limit` or
    /// `cursor`; port errors.
    pub async fn events(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        read: AuditRead<'_>,
    ) -> Result<Page<AuditEvent>> {
        principal.require_scope(Scope::AUDIT)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let query = AuditQuery {
            from: read.from.map(|t| instant("from", t)).transpose()?,
            to: read.to.map(|t| instant("to", t)).transpose()?,
            kinds: read.kind.map(kinds).transpose()?.unwrap_or_default(),
        };
        if let (Some(from), Some(to)) = (query.from, query.to)
            && from >= to
        {
            return Err(Error::validation("to", "must be after `from`"));
        }
        // A cursor belongs to the workspace's trail read with the same filters.
        let list = format!(
            "audit/{workspace}/{}/{}/{}",
            read.from.unwrap_or_default(),
            read.to.unwrap_or_default(),
            read.kind.unwrap_or_default()
        );
        let cursors = Cursors::new(&self.crypto, list);
        let request = cursors.request(read.limit, read.cursor)?;
        let rows = self.repo.list_audit_events(workspace, &query, &request).await?;
        Ok(cursors.page(&request, rows, |e| PageKey { position: e.position }))
    }

    /// Deletes entries older than the retention.
    ///
    /// # Errors
    /// Port errors as they are.
    pub async fn purge_expired(&self) -> Result<u64> {
        self.repo.purge_audit_events(self.clock.now() - self.retention).await
    }
}

fn instant(field: &str, text: &str) -> Result<OffsetDateTime> {
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .map_err(|_| Error::validation(field, "must be an RFC 3339 time, such as 2026-03-01T00:00:00Z"))
}

fn kinds(text: &str) -> Result<Vec<AuditAction>> {
    let mut kinds = Vec::new();
    for name in text.split(',').map(str::trim) {
        let action = AuditAction::parse(name).ok_or_else(|| {
            let known: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
            Error::validation("kind", format!("must be action names among: {}", known.join(", ")))
        })?;
        if !kinds.contains(&action) {
            kinds.push(action);
        }
    }
    Ok(kinds)
}
