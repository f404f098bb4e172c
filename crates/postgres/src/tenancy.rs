//! Businesses, service accounts, API keys and workspaces.

use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::ids::{ApiKeyId, BusinessId, ServiceAccountId, WorkspaceId};
use pulse_domain::shared::time_zone::TimeZoneName;
use pulse_domain::tenancy::models::{
    ApiKeyRecord, Business, NewApiKey, NewWorkspace, Scope, Workspace, WorkspaceCreation, WorkspaceDetails,
    WorkspaceStatus, WorkspaceType,
};
use pulse_domain::tenancy::ports::TenancyRepository;
use pulse_domain::webhooks::models::NewEvent;
use pulse_domain::{Error, ErrorCode, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::audit::write_audit;
use crate::error::{from_diesel, violated_constraint};
use crate::schema::{api_key_workspaces, api_keys, businesses, service_accounts, workspaces};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::outbox::emit_events;

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
    time_zone: Option<String>,
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
                time_zone: self.time_zone.as_deref().and_then(TimeZoneName::known),
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

    async fn insert_api_key(&self, key: &NewApiKey, audit: Option<&AuditEntry>) -> Result<()> {
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
                if let Some(entry) = audit {
                    write_audit(conn, entry).await?;
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

    async fn usable_key_prefix(&self, id: ApiKeyId, at: OffsetDateTime) -> Result<Option<String>> {
        api_keys::table
            .filter(
                api_keys::id
                    .eq(id.0)
                    .and(api_keys::revoked_at.is_null().or(api_keys::revoked_at.gt(at)))
                    .and(api_keys::expires_at.is_null().or(api_keys::expires_at.gt(at))),
            )
            .select(api_keys::prefix)
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)
    }

    async fn revoke_api_key(&self, prefix: &str, at: OffsetDateTime, audit: Option<&AuditEntry>) -> Result<bool> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, DieselError, _>(async |conn| {
            let Some(revoked_at) = api_keys::table
                .filter(api_keys::prefix.eq(prefix))
                .select(api_keys::revoked_at)
                .for_update()
                .first::<Option<OffsetDateTime>>(conn)
                .await
                .optional()?
            else {
                return Ok(false);
            };
            // Revoking twice keeps the first revocation, and records one.
            if revoked_at.is_none() {
                diesel::update(api_keys::table.filter(api_keys::prefix.eq(prefix)))
                    .set(api_keys::revoked_at.eq(at))
                    .execute(conn)
                    .await?;
                if let Some(entry) = audit {
                    write_audit(conn, entry).await?;
                }
            }
            Ok(true)
        })
        .await
        .map_err(from_diesel)
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
                    time_zone: new.details.time_zone.as_ref().map(|z| z.as_str().to_owned()),
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

    async fn approve_workspace(
        &self,
        id: WorkspaceId,
        audit: &AuditEntry,
        event: &NewEvent,
    ) -> Result<Option<Workspace>> {
        let mut conn = self.conn().await?;
        let row: Option<WorkspaceRow> = conn
            .transaction::<_, DieselError, _>(async |conn| {
                let Some(status) = workspaces::table
                    .find(id.0)
                    .select(workspaces::status)
                    .for_update()
                    .first::<String>(conn)
                    .await
                    .optional()?
                else {
                    return Ok(None);
                };
                let row = diesel::update(workspaces::table.find(id.0))
                    .set(workspaces::status.eq(WorkspaceStatus::Active.as_str()))
                    .returning(WorkspaceRow::as_returning())
                    .get_result(conn)
                    .await?;
                if status != WorkspaceStatus::Active.as_str() {
                    emit_events(conn, std::slice::from_ref(event)).await?;
                    write_audit(conn, audit).await?;
                }
                Ok(Some(row))
            })
            .await
            .map_err(from_diesel)?;
        row.map(WorkspaceRow::into_domain).transpose()
    }
}
