//! The audit trail: entries written by the other modules inside their transactions
//! ([`write_audit`]), read a page at a time, and pruned by age.

use diesel::prelude::*;
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::audit::models::{AuditAction, AuditActor, AuditEntry, AuditEvent, AuditQuery, AuditScope};
use pulse_domain::audit::ports::AuditTrail;
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::schema::{audit_events, workspaces};
use crate::statement::Cached as _;
use crate::store::PgStore;

/// Entries deleted per statement by the purge.
const PURGE_BATCH: i64 = 1000;

const KEY: &str = "key";
const OPERATOR: &str = "operator";

/// Held from an entry's insert to its transaction's end, so entries take their positions in the
/// order they commit: a reader paging by position never sees an earlier position appear behind
/// its cursor. Callers write the entry last in their transaction, so the lock is held briefly and
/// taken after every other lock the transaction needs.
const AUDIT_ORDER_LOCK: i64 = 0x7075_6c73_6541_7564;

/// Writes `entry` on `conn`, as the last write of the caller's transaction.
pub(crate) async fn write_audit(conn: &mut AsyncPgConnection, entry: &AuditEntry) -> QueryResult<()> {
    diesel::sql_query("SELECT pg_advisory_xact_lock($1)")
        .bind::<diesel::sql_types::BigInt, _>(AUDIT_ORDER_LOCK)
        .cached()
        .execute(conn)
        .await?;
    let (workspace, business) = match entry.scope {
        AuditScope::Workspace(w) => (Some(w.0), None),
        AuditScope::Business(b) => (None, Some(b.0)),
    };
    let (actor, key_prefix, network) = match &entry.actor {
        AuditActor::Key { prefix, network } => (KEY, Some(prefix.as_str()), network.as_deref()),
        AuditActor::Operator => (OPERATOR, None, None),
    };
    diesel::insert_into(audit_events::table)
        .values((
            audit_events::id.eq(Uuid::new_v4()),
            audit_events::workspace_id.eq(workspace),
            audit_events::business_id.eq(business),
            audit_events::actor.eq(actor),
            audit_events::key_prefix.eq(key_prefix),
            audit_events::network.eq(network),
            audit_events::action.eq(entry.action.as_str()),
            audit_events::target.eq(&entry.target),
            audit_events::occurred_at.eq(entry.at),
        ))
        .execute(conn)
        .await
        .map(|_| ())
}

#[derive(Queryable)]
struct AuditRow {
    position: i64,
    id: Uuid,
    workspace_id: Option<Uuid>,
    business_id: Option<Uuid>,
    actor: String,
    key_prefix: Option<String>,
    network: Option<String>,
    action: String,
    target: String,
    occurred_at: OffsetDateTime,
}

impl AuditRow {
    fn into_domain(self) -> Result<AuditEvent> {
        let corrupt = || Error::internal(format!("audit event {} cannot be read", self.id));
        let scope = match (self.workspace_id, self.business_id) {
            (Some(w), None) => AuditScope::Workspace(WorkspaceId(w)),
            (None, Some(b)) => AuditScope::Business(BusinessId(b)),
            _ => return Err(corrupt()),
        };
        let actor = match (self.actor.as_str(), self.key_prefix) {
            (KEY, Some(prefix)) => AuditActor::Key { prefix, network: self.network },
            (OPERATOR, None) => AuditActor::Operator,
            _ => return Err(corrupt()),
        };
        let action = AuditAction::parse(&self.action).ok_or_else(corrupt)?;
        Ok(AuditEvent {
            id: self.id,
            position: self.position,
            entry: AuditEntry { scope, actor, action, target: self.target, at: self.occurred_at },
        })
    }
}

impl AuditTrail for PgStore {
    async fn record_audit(&self, entry: &AuditEntry) -> Result<()> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, diesel::result::Error, _>(async |conn| write_audit(conn, entry).await)
            .await
            .map_err(from_diesel)
    }

    async fn list_audit_events(
        &self,
        workspace: WorkspaceId,
        query: &AuditQuery,
        page: &PageRequest,
    ) -> Result<Vec<AuditEvent>> {
        use audit_events as a;
        let business = workspaces::table.find(workspace.0).select(workspaces::business_id.nullable());
        let kinds: Vec<&str> = query.kinds.iter().map(|k| k.as_str()).collect();
        let mut select = a::table
            .filter(a::workspace_id.eq(workspace.0).or(a::business_id.eq_any(business)))
            .filter(a::position.gt(page.after.map_or(0, |k| k.position)))
            .order(a::position)
            .limit(i64::from(page.limit) + 1)
            .into_boxed();
        if let Some(from) = query.from {
            select = select.filter(a::occurred_at.ge(from));
        }
        if let Some(to) = query.to {
            select = select.filter(a::occurred_at.lt(to));
        }
        if !kinds.is_empty() {
            select = select.filter(a::action.eq_any(kinds));
        }
        // The primary's: a partner reads its own actions at once.
        let rows: Vec<AuditRow> = select.load(&mut self.conn().await?).await.map_err(from_diesel)?;
        rows.into_iter().map(AuditRow::into_domain).collect()
    }

    async fn purge_audit_events(&self, before: OffsetDateTime) -> Result<u64> {
        let mut conn = self.conn().await?;
        let mut purged = 0;
        // In batches, each its own transaction: a first purge after a year, or after the retention
        // was shortened, holds no lock on the whole backlog.
        loop {
            let deleted = diesel::sql_query(
                "DELETE FROM audit_events WHERE position IN \
                 (SELECT position FROM audit_events WHERE occurred_at < $1 ORDER BY position LIMIT $2)",
            )
            .bind::<diesel::sql_types::Timestamptz, _>(before)
            .bind::<diesel::sql_types::BigInt, _>(PURGE_BATCH)
            .cached()
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
            purged += deleted as u64;
            if deleted < PURGE_BATCH as usize {
                return Ok(purged);
            }
        }
    }
}
