use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::upsert::excluded;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::idempotency::models::{ClaimRequest, IdempotencyClaim};
use pulse_domain::idempotency::ports::IdempotencyStore;
use pulse_domain::ids::{ApiKeyId, BusinessId, ServiceAccountId, WorkspaceId};
use pulse_domain::quota::models::QuotaFamily;
use pulse_domain::quota::ports::QuotaCounter;
use pulse_domain::shared::health::{Backlog, Backlogs, HealthCheck, PoolState, QueueDepth};
use pulse_domain::tenancy::models::{
    ApiKeyRecord, Business, NewApiKey, NewWorkspace, Scope, Workspace, WorkspaceCreation, WorkspaceDetails,
    WorkspaceStatus, WorkspaceType,
};
use pulse_domain::tenancy::ports::TenancyRepository;
use pulse_domain::{Error, ErrorCode, Result};
use std::sync::Arc;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::batch::{BatchLimits, GroupCommit};
use crate::error::{from_diesel, from_pool, violated_constraint};
use crate::heartbeats::DeviceBeats;
use crate::links::LinkInserts;
use crate::registrations::Registrations;
use crate::schema::{
    api_key_workspaces, api_keys, businesses, idempotency_keys, quota_windows, service_accounts, workspaces,
};
use crate::starts::SessionStarts;
use crate::statement::Cached as _;
use crate::webhooks_attempts::AttemptRecords;

/// The Postgres implementation of every repository port. Cloning shares the pool and the
/// group-commit queues.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool<AsyncPgConnection>,
    /// A read-only copy (`DATABASE_READ_URL`) that results and lists read from, when one is set.
    reads: Option<Pool<AsyncPgConnection>>,
    pub(crate) device_beats: Arc<GroupCommit<DeviceBeats>>,
    pub(crate) link_inserts: Arc<GroupCommit<LinkInserts>>,
    pub(crate) session_starts: Arc<GroupCommit<SessionStarts>>,
    pub(crate) registrations: Arc<GroupCommit<Registrations>>,
    pub(crate) attempt_records: Arc<GroupCommit<AttemptRecords>>,
}

/// Heartbeats, links, sessions and new devices are small rows: a group of a few hundred is still
/// one short statement (a start that spends a link or token adds one more). One group of a kind is
/// in flight at a time: a second one's commit only waited for the first's WAL flush and then
/// flushed again, while the requests it took would have joined the next, larger group
/// (docs/performance.md, "one group in flight").
const HEARTBEAT_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 1 };
const LINK_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 1 };
const START_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 1 };
const REGISTRATION_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 1 };
/// A webhook worker keeps hundreds of attempts going; a group holds what they answered meanwhile.
const ATTEMPT_BATCHES: BatchLimits = BatchLimits { max_items: 256, in_flight: 2 };

impl PgStore {
    pub(crate) fn new(pool: Pool<AsyncPgConnection>, reads: Option<Pool<AsyncPgConnection>>) -> Self {
        let device_beats = Arc::new(GroupCommit::new(DeviceBeats::new(pool.clone()), HEARTBEAT_BATCHES));
        let link_inserts = Arc::new(GroupCommit::new(LinkInserts::new(pool.clone()), LINK_BATCHES));
        let session_starts = Arc::new(GroupCommit::new(SessionStarts::new(pool.clone()), START_BATCHES));
        let registrations = Arc::new(GroupCommit::new(Registrations::new(pool.clone()), REGISTRATION_BATCHES));
        let attempt_records = Arc::new(GroupCommit::new(AttemptRecords::new(pool.clone()), ATTEMPT_BATCHES));
        Self { pool, reads, device_beats, link_inserts, session_starts, registrations, attempt_records }
    }

    pub(crate) async fn conn(&self) -> Result<Object<AsyncPgConnection>> {
        self.pool.get().await.map_err(from_pool)
    }

    /// A connection for reads that may lag behind the latest writes by the replica's delay:
    /// results and lists. The primary's when no read-only copy is configured.
    pub(crate) async fn read_conn(&self) -> Result<Object<AsyncPgConnection>> {
        self.reads.as_ref().unwrap_or(&self.pool).get().await.map_err(from_pool)
    }
}

/// An error raised inside a transaction: either the database's, or a domain refusal that rolls
/// the transaction back.
pub(crate) enum TxError {
    Db(DieselError),
    Domain(Error),
}

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        TxError::Db(e)
    }
}

impl From<TxError> for Error {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Db(e) => from_diesel(e),
            TxError::Domain(e) => e,
        }
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = workspaces, check_for_backend(diesel::pg::Pg))]
struct WorkspaceRow {
    id: Uuid,
    business_id: Uuid,
    external_ref: String,
    name: String,
    slug: String,
    kind: String,
    team: Option<String>,
    location: Option<String>,
    status: String,
    created_at: OffsetDateTime,
}

impl WorkspaceRow {
    fn into_domain(self) -> Result<Workspace> {
        let corrupt = |what: &str| Error::internal(format!("workspace {} has an unknown {what}", self.id));
        let status = WorkspaceStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?;
        let kind = WorkspaceType::parse(&self.kind).ok_or_else(|| corrupt("type"))?;
        Ok(Workspace {
            id: WorkspaceId(self.id),
            business_id: BusinessId(self.business_id),
            slug: self.slug,
            status,
            details: WorkspaceDetails {
                external_ref: self.external_ref,
                name: self.name,
                kind,
                team: self.team,
                location: self.location,
            },
            created_at: self.created_at,
        })
    }
}

/// A key with its business and workspace allowlist, read in one round trip: every keyed request
/// starts with this.
#[derive(QueryableByName)]
struct ApiKeyRow {
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Uuid)]
    service_account_id: Uuid,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Uuid>)]
    business_id: Option<Uuid>,
    #[diesel(sql_type = diesel::sql_types::Text)]
    prefix: String,
    #[diesel(sql_type = diesel::sql_types::Bytea)]
    digest: Vec<u8>,
    #[diesel(sql_type = diesel::sql_types::Array<diesel::sql_types::Text>)]
    scopes: Vec<String>,
    #[diesel(sql_type = diesel::sql_types::Array<diesel::sql_types::Uuid>)]
    allowlist: Vec<Uuid>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    expires_at: Option<OffsetDateTime>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    revoked_at: Option<OffsetDateTime>,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    created_at: OffsetDateTime,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = idempotency_keys, check_for_backend(diesel::pg::Pg))]
struct IdempotencyRow {
    fingerprint: Vec<u8>,
    status: Option<i16>,
    sealed_body: Option<Vec<u8>>,
}

impl TenancyRepository for PgStore {
    async fn create_business(&self, business: &Business) -> Result<()> {
        diesel::insert_into(businesses::table)
            .values((
                businesses::id.eq(business.id.0),
                businesses::name.eq(&business.name),
                businesses::created_at.eq(business.created_at),
            ))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn business_exists(&self, id: BusinessId) -> Result<bool> {
        diesel::select(diesel::dsl::exists(businesses::table.find(id.0)))
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)
    }

    async fn insert_api_key(&self, key: &NewApiKey) -> Result<()> {
        let record = &key.record;
        let mut conn = self.conn().await?;
        let outcome = conn
            .transaction::<_, DieselError, _>(async |conn| {
                diesel::insert_into(service_accounts::table)
                    .values((
                        service_accounts::id.eq(record.service_account_id.0),
                        service_accounts::business_id.eq(record.business_id.map(|b| b.0)),
                        service_accounts::name.eq(&key.service_account_name),
                        service_accounts::created_at.eq(record.created_at),
                    ))
                    .execute(conn)
                    .await?;
                diesel::insert_into(api_keys::table)
                    .values((
                        api_keys::id.eq(record.id.0),
                        api_keys::service_account_id.eq(record.service_account_id.0),
                        api_keys::prefix.eq(&record.prefix),
                        api_keys::digest.eq(&record.digest),
                        api_keys::scopes.eq(record.scopes.iter().map(Scope::as_str).collect::<Vec<_>>()),
                        api_keys::expires_at.eq(record.expires_at),
                        api_keys::revoked_at.eq(record.revoked_at),
                        api_keys::created_at.eq(record.created_at),
                    ))
                    .execute(conn)
                    .await?;
                if let Some(business) = record.business_id {
                    let rows: Vec<_> = record
                        .workspace_allowlist
                        .iter()
                        .map(|w| {
                            (
                                api_key_workspaces::api_key_id.eq(record.id.0),
                                api_key_workspaces::workspace_id.eq(w.0),
                                api_key_workspaces::business_id.eq(business.0),
                                api_key_workspaces::added_at.eq(record.created_at),
                            )
                        })
                        .collect();
                    diesel::insert_into(api_key_workspaces::table).values(rows).execute(conn).await?;
                }
                Ok(())
            })
            .await;
        outcome.map_err(|e| match violated_constraint(&e) {
            Some((DatabaseErrorKind::UniqueViolation, c)) if c == "api_keys_prefix_key" => {
                Error::refused(ErrorCode::Conflict, "key prefix taken")
            }
            Some((DatabaseErrorKind::ForeignKeyViolation, c)) if c.starts_with("api_key_workspaces_workspace_id") => {
                Error::not_found("workspace")
            }
            _ => from_diesel(e),
        })
    }

    async fn find_api_key(&self, prefix: &str) -> Result<Option<ApiKeyRecord>> {
        let found: Option<ApiKeyRow> = diesel::sql_query(
            "SELECT k.id, k.service_account_id, sa.business_id, k.prefix, k.digest, k.scopes, \
                    ARRAY(SELECT w.workspace_id FROM api_key_workspaces w WHERE w.api_key_id = k.id \
                          ORDER BY w.added_at, w.workspace_id) AS allowlist, \
                    k.expires_at, k.revoked_at, k.created_at \
             FROM api_keys k JOIN service_accounts sa ON sa.id = k.service_account_id \
             WHERE k.prefix = $1",
        )
        .bind::<diesel::sql_types::Text, _>(prefix)
        .cached()
        .get_result(&mut self.conn().await?)
        .await
        .optional()
        .map_err(from_diesel)?;
        let Some(row) = found else { return Ok(None) };
        let scopes = row
            .scopes
            .iter()
            .map(|s| {
                Scope::parse(s).map_err(|_| Error::internal(format!("API key {} has a malformed stored scope", row.id)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Some(ApiKeyRecord {
            id: ApiKeyId(row.id),
            prefix: row.prefix,
            digest: row.digest,
            service_account_id: ServiceAccountId(row.service_account_id),
            business_id: row.business_id.map(BusinessId),
            scopes,
            workspace_allowlist: row.allowlist.into_iter().map(WorkspaceId).collect(),
            expires_at: row.expires_at,
            revoked_at: row.revoked_at,
            created_at: row.created_at,
        }))
    }

    async fn api_key_usable(&self, id: ApiKeyId, at: OffsetDateTime) -> Result<bool> {
        let usable = api_keys::table.filter(
            api_keys::id
                .eq(id.0)
                .and(api_keys::revoked_at.is_null().or(api_keys::revoked_at.gt(at)))
                .and(api_keys::expires_at.is_null().or(api_keys::expires_at.gt(at))),
        );
        diesel::select(diesel::dsl::exists(usable)).get_result(&mut self.conn().await?).await.map_err(from_diesel)
    }

    async fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime) -> Result<bool> {
        // Revoking twice keeps the first revocation time.
        let found: Option<Uuid> =
            diesel::update(api_keys::table.filter(api_keys::prefix.eq(prefix)))
                .set(
                    api_keys::revoked_at.eq(diesel::dsl::sql::<
                        diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>,
                    >("COALESCE(revoked_at, ")
                    .bind::<diesel::sql_types::Timestamptz, _>(at)
                    .sql(")")),
                )
                .returning(api_keys::id)
                .get_result(&mut self.conn().await?)
                .await
                .optional()
                .map_err(from_diesel)?;
        Ok(found.is_some())
    }

    async fn create_workspace(
        &self,
        creator: ApiKeyId,
        new: &NewWorkspace,
        max_per_business: u32,
    ) -> Result<WorkspaceCreation> {
        let mut conn = self.conn().await?;
        let creation = conn
            .transaction::<_, TxError, _>(async |conn| {
                // Serialises creations within one business, so the limit and the ref check hold.
                businesses::table
                    .find(new.business_id.0)
                    .select(businesses::id)
                    .for_update()
                    .first::<Uuid>(conn)
                    .await?;
                let existing: Option<WorkspaceRow> = workspaces::table
                    .filter(workspaces::business_id.eq(new.business_id.0))
                    .filter(workspaces::external_ref.eq(&new.details.external_ref))
                    .select(WorkspaceRow::as_select())
                    .first(conn)
                    .await
                    .optional()?;
                if let Some(row) = existing {
                    return Ok(WorkspaceCreation::Existing(row.into_domain().map_err(TxError::Domain)?));
                }
                let held: i64 = workspaces::table
                    .filter(workspaces::business_id.eq(new.business_id.0))
                    .count()
                    .get_result(conn)
                    .await?;
                if held >= i64::from(max_per_business) {
                    return Err(TxError::Domain(Error::refused(
                        ErrorCode::RateLimited,
                        format!("this business holds its limit of {max_per_business} workspaces"),
                    )));
                }
                let row = WorkspaceRow {
                    id: new.id.0,
                    business_id: new.business_id.0,
                    external_ref: new.details.external_ref.clone(),
                    name: new.details.name.clone(),
                    slug: new.slug.clone(),
                    kind: new.details.kind.as_str().to_owned(),
                    team: new.details.team.clone(),
                    location: new.details.location.clone(),
                    status: WorkspaceStatus::PendingApproval.as_str().to_owned(),
                    created_at: new.created_at,
                };
                let inserted: WorkspaceRow = diesel::insert_into(workspaces::table)
                    .values(&row)
                    .returning(WorkspaceRow::as_returning())
                    .get_result(conn)
                    .await?;
                diesel::insert_into(api_key_workspaces::table)
                    .values((
                        api_key_workspaces::api_key_id.eq(creator.0),
                        api_key_workspaces::workspace_id.eq(new.id.0),
                        api_key_workspaces::business_id.eq(new.business_id.0),
                        api_key_workspaces::added_at.eq(new.created_at),
                    ))
                    .execute(conn)
                    .await?;
                Ok(WorkspaceCreation::Created(inserted.into_domain().map_err(TxError::Domain)?))
            })
            .await?;
        Ok(creation)
    }

    async fn list_workspaces(&self, business: BusinessId, ids: &[WorkspaceId]) -> Result<Vec<Workspace>> {
        let ids: Vec<Uuid> = ids.iter().map(|w| w.0).collect();
        let rows: Vec<WorkspaceRow> = workspaces::table
            .filter(workspaces::business_id.eq(business.0))
            .filter(workspaces::id.eq_any(ids))
            .order((workspaces::created_at, workspaces::id))
            .select(WorkspaceRow::as_select())
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(WorkspaceRow::into_domain).collect()
    }

    async fn approve_workspace(&self, id: WorkspaceId) -> Result<Option<Workspace>> {
        let row: Option<WorkspaceRow> = diesel::update(workspaces::table.find(id.0))
            .set(workspaces::status.eq(WorkspaceStatus::Active.as_str()))
            .returning(WorkspaceRow::as_returning())
            .get_result(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(WorkspaceRow::into_domain).transpose()
    }
}

impl IdempotencyStore for PgStore {
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<IdempotencyClaim> {
        let ClaimRequest { scope, key, token, fingerprint, now, expired_before, stale_before } = *request;
        use idempotency_keys as k;
        let mut conn = self.conn().await?;
        // The record may be released between the failed claim and the read: then claim again.
        for _ in 0..3 {
            let upsert = diesel::insert_into(k::table)
                .values((
                    k::scope.eq(scope),
                    k::key.eq(key),
                    k::claim_token.eq(token),
                    k::fingerprint.eq(fingerprint),
                    k::created_at.eq(now),
                    k::locked_at.eq(now),
                ))
                .on_conflict((k::scope, k::key))
                .do_update()
                .set((
                    k::claim_token.eq(excluded(k::claim_token)),
                    k::fingerprint.eq(excluded(k::fingerprint)),
                    k::status.eq(None::<i16>),
                    k::sealed_body.eq(None::<Vec<u8>>),
                    k::created_at.eq(excluded(k::created_at)),
                    k::locked_at.eq(excluded(k::locked_at)),
                ));
            // Only an expired record, or an in-flight one whose request died, may be taken over.
            let takeover = k::created_at.lt(expired_before).or(k::status.is_null().and(k::locked_at.lt(stale_before)));
            let claimed = diesel::query_dsl::methods::FilterDsl::filter(upsert, takeover)
                .execute(&mut conn)
                .await
                .map_err(from_diesel)?;
            if claimed == 1 {
                return Ok(IdempotencyClaim::Claimed);
            }
            let existing: Option<IdempotencyRow> = k::table
                .find((scope, key))
                .select(IdempotencyRow::as_select())
                .first(&mut conn)
                .await
                .optional()
                .map_err(from_diesel)?;
            match existing {
                Some(IdempotencyRow { fingerprint, status: Some(status), sealed_body: Some(sealed_body) }) => {
                    let status = u16::try_from(status).map_err(Error::internal)?;
                    return Ok(IdempotencyClaim::Completed { fingerprint, status, sealed_body });
                }
                Some(IdempotencyRow { fingerprint, .. }) => return Ok(IdempotencyClaim::InFlight { fingerprint }),
                None => {}
            }
        }
        Err(Error::internal("idempotency record kept changing under the claim"))
    }

    async fn complete(&self, scope: &str, key: &str, token: Uuid, status: u16, sealed_body: &[u8]) -> Result<()> {
        use idempotency_keys as k;
        let status = i16::try_from(status).map_err(Error::internal)?;
        diesel::update(k::table.find((scope, key)).filter(k::claim_token.eq(token)))
            .set((k::status.eq(status), k::sealed_body.eq(sealed_body)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn release(&self, scope: &str, key: &str, token: Uuid) -> Result<()> {
        use idempotency_keys as k;
        diesel::delete(k::table.find((scope, key)).filter(k::claim_token.eq(token)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn purge_idempotency(&self, before: OffsetDateTime) -> Result<u64> {
        use idempotency_keys as k;
        let deleted = diesel::delete(k::table.filter(k::created_at.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(deleted as u64)
    }
}

impl QuotaCounter for PgStore {
    async fn hit(&self, subject: &str, family: QuotaFamily, window_start: OffsetDateTime) -> Result<u32> {
        use quota_windows as q;
        let count: i32 = diesel::insert_into(q::table)
            .values((
                q::subject.eq(subject),
                q::family.eq(family.as_str()),
                q::window_start.eq(window_start),
                q::count.eq(1),
            ))
            .on_conflict((q::subject, q::family, q::window_start))
            .do_update()
            .set(q::count.eq(q::count + 1))
            .returning(q::count)
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        u32::try_from(count).map_err(Error::internal)
    }

    async fn purge_quota_windows(&self, before: OffsetDateTime) -> Result<u64> {
        use quota_windows as q;
        let deleted = diesel::delete(q::table.filter(q::window_start.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(deleted as u64)
    }
}

#[derive(QueryableByName)]
struct BacklogRow {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    webhook_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    webhook_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    analysis_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    analysis_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    export_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    export_oldest: f64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    outreach_due: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    outreach_oldest: f64,
}

impl Backlogs for PgStore {
    async fn backlog(&self, now: OffsetDateTime) -> Result<Backlog> {
        // Each queue is read through the partial index its worker claims from.
        let row: BacklogRow = diesel::sql_query(
            "SELECT w.due AS webhook_due, w.oldest AS webhook_oldest, a.due AS analysis_due, \
               a.oldest AS analysis_oldest, e.due AS export_due, e.oldest AS export_oldest, \
               o.due AS outreach_due, o.oldest AS outreach_oldest \
             FROM (SELECT count(*) AS due, \
                     COALESCE(EXTRACT(EPOCH FROM $1 - min(next_attempt_at))::float8, 0) AS oldest \
                   FROM webhook_deliveries WHERE status IN ('PENDING', 'FAILED') AND next_attempt_at <= $1) w, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(due_at))::float8, 0) AS oldest \
                   FROM analysis_jobs WHERE due_at IS NOT NULL AND due_at <= $1) a, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(created_at))::float8, 0) AS oldest \
                   FROM exports WHERE status IN ('QUEUED', 'RUNNING')) e, \
                  (SELECT count(*) AS due, COALESCE(EXTRACT(EPOCH FROM $1 - min(due_at))::float8, 0) AS oldest \
                   FROM outreach_messages WHERE status = 'QUEUED' AND due_at <= $1) o",
        )
        .bind::<diesel::sql_types::Timestamptz, _>(now)
        .cached()
        .get_result(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        let depth =
            |due: i64, oldest: f64| QueueDepth { due: u64::try_from(due).unwrap_or(0), oldest_secs: oldest.max(0.0) };
        Ok(Backlog {
            webhook_deliveries: depth(row.webhook_due, row.webhook_oldest),
            analyses: depth(row.analysis_due, row.analysis_oldest),
            exports: depth(row.export_due, row.export_oldest),
            outreach_messages: depth(row.outreach_due, row.outreach_oldest),
        })
    }

    fn pool_state(&self) -> PoolState {
        let status = self.pool.status();
        PoolState {
            size: status.size as u64,
            in_use: status.size.saturating_sub(status.available) as u64,
            waiting: status.waiting as u64,
        }
    }
}

impl HealthCheck for PgStore {
    async fn ping(&self) -> Result<()> {
        diesel::select(1_i32.into_sql::<diesel::sql_types::Integer>())
            .execute(&mut self.conn().await?)
            .await
            .map_err(|e| Error::Unavailable(format!("database: {e}")))?;
        Ok(())
    }
}
