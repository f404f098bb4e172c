//! Export records, their claims, per-link fetch counts and export worker beats; files in their own
//! table, so reading a record never loads its file.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{BigInt, Timestamptz};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::exports::models::{
    ExportFailure, ExportFormat, ExportJob, ExportRecord, ExportStatus, FinishedExport,
};
use pulse_domain::exports::ports::{ExportRepository, ExportStore, WorkerPresence};
use pulse_domain::ids::{ApiKeyId, CampaignId, ExportId, WorkspaceId};
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::audit::write_audit;
use crate::error::from_diesel;
use crate::rows::IdRow;
use crate::schema::{download_fetches, export_files, export_workers, exports};
use crate::statement::Cached as _;
use crate::store::PgStore;
use crate::webhooks::outbox::emit_events;

#[derive(Queryable, Selectable, Insertable, QueryableByName)]
#[diesel(table_name = exports, check_for_backend(diesel::pg::Pg))]
struct ExportRow {
    id: Uuid,
    workspace_id: Uuid,
    campaign_id: Uuid,
    campaign_code: String,
    format: String,
    include_transcripts: bool,
    status: String,
    requested_by: Uuid,
    created_at: OffsetDateTime,
    started_at: Option<OffsetDateTime>,
    finished_at: Option<OffsetDateTime>,
    failure_code: Option<String>,
    failure_description: Option<String>,
    expires_at: Option<OffsetDateTime>,
    byte_size: Option<i64>,
    sha256: Option<String>,
    attempts: i32,
    claim_token: Option<Uuid>,
}

impl ExportRow {
    fn from_domain(r: &ExportRecord) -> Self {
        Self {
            id: r.id.0,
            workspace_id: r.workspace_id.0,
            campaign_id: r.campaign_id.0,
            campaign_code: r.campaign_code.clone(),
            format: r.format.as_str().to_owned(),
            include_transcripts: r.include_transcripts,
            status: r.status.as_str().to_owned(),
            requested_by: r.requested_by.0,
            created_at: r.created_at,
            started_at: r.started_at,
            finished_at: r.finished_at,
            failure_code: r.failure.as_ref().map(|f| f.code.clone()),
            failure_description: r.failure.as_ref().map(|f| f.description.clone()),
            expires_at: r.expires_at,
            byte_size: r.byte_size.and_then(|n| i64::try_from(n).ok()),
            sha256: r.sha256.clone(),
            attempts: i32::try_from(r.attempts).unwrap_or(i32::MAX),
            claim_token: None,
        }
    }

    fn into_domain(self) -> Result<ExportRecord> {
        let corrupt = |what: &str| Error::internal(format!("export {} has an unknown {what}", self.id));
        let failure = match (self.failure_code.clone(), self.failure_description.clone()) {
            (Some(code), Some(description)) => Some(ExportFailure { code, description }),
            _ => None,
        };
        Ok(ExportRecord {
            id: ExportId(self.id),
            workspace_id: WorkspaceId(self.workspace_id),
            campaign_id: CampaignId(self.campaign_id),
            format: ExportFormat::parse(&self.format).ok_or_else(|| corrupt("format"))?,
            status: ExportStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?,
            include_transcripts: self.include_transcripts,
            requested_by: ApiKeyId(self.requested_by),
            created_at: self.created_at,
            started_at: self.started_at,
            finished_at: self.finished_at,
            failure,
            expires_at: self.expires_at,
            byte_size: self.byte_size.and_then(|n| u64::try_from(n).ok()),
            sha256: self.sha256,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            campaign_code: self.campaign_code,
        })
    }
}

impl ExportRepository for PgStore {
    async fn insert_export(&self, record: &ExportRecord, audit: &AuditEntry) -> Result<()> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, DieselError, _>(async |conn| {
            diesel::insert_into(exports::table).values(ExportRow::from_domain(record)).execute(conn).await?;
            write_audit(conn, audit).await
        })
        .await
        .map_err(from_diesel)
    }

    async fn find_export(&self, workspace: WorkspaceId, id: ExportId) -> Result<Option<ExportRecord>> {
        let row: Option<ExportRow> = exports::table
            .filter(exports::id.eq(id.0).and(exports::workspace_id.eq(workspace.0)))
            .select(ExportRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(ExportRow::into_domain).transpose()
    }

    async fn find_export_by_id(&self, id: ExportId) -> Result<Option<ExportRecord>> {
        let row: Option<ExportRow> = exports::table
            .filter(exports::id.eq(id.0))
            .select(ExportRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(ExportRow::into_domain).transpose()
    }

    async fn claim_exports(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<ExportJob>> {
        let rows: Vec<ExportRow> = sql_query(
            "WITH due AS (
                SELECT id FROM exports
                WHERE status = 'QUEUED' OR (status = 'RUNNING' AND lease_until <= $1)
                ORDER BY created_at, id
                LIMIT $3
                FOR UPDATE SKIP LOCKED
            )
            UPDATE exports e SET status = 'RUNNING', claim_token = gen_random_uuid(), lease_until = $2,
                attempts = e.attempts + 1, started_at = COALESCE(e.started_at, $1)
            FROM due WHERE e.id = due.id
            RETURNING e.*",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<Timestamptz, _>(lease_until)
        .bind::<BigInt, _>(i64::from(limit))
        .cached()
        .load(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        rows.into_iter()
            .map(|row| {
                let claim_token = row.claim_token.ok_or_else(|| Error::internal("a claimed export has no claim"))?;
                Ok(ExportJob { record: row.into_domain()?, claim_token })
            })
            .collect()
    }

    async fn finish_export(&self, finished: &FinishedExport) -> Result<bool> {
        let byte_size = i64::try_from(finished.byte_size).map_err(Error::internal)?;
        let mut conn = self.conn().await?;
        conn.transaction::<_, DieselError, _>(async |conn| {
            let held =
                exports::table.filter(exports::id.eq(finished.id.0).and(exports::claim_token.eq(finished.claim_token)));
            let updated = diesel::update(held)
                .set((
                    exports::status.eq(ExportStatus::Ready.as_str()),
                    exports::finished_at.eq(finished.at),
                    exports::byte_size.eq(byte_size),
                    exports::sha256.eq(&finished.sha256),
                    exports::expires_at.eq(finished.expires_at),
                    exports::claim_token.eq(None::<Uuid>),
                    exports::lease_until.eq(None::<OffsetDateTime>),
                ))
                .execute(conn)
                .await?;
            // The event is written only by the holder that made the export READY.
            if updated == 1 {
                emit_events(conn, std::slice::from_ref(&finished.ready)).await?;
            }
            Ok(updated == 1)
        })
        .await
        .map_err(from_diesel)
    }

    async fn fail_export(
        &self,
        id: ExportId,
        claim_token: Uuid,
        at: OffsetDateTime,
        failure: Option<&ExportFailure>,
    ) -> Result<bool> {
        let target = exports::table.filter(exports::id.eq(id.0).and(exports::claim_token.eq(claim_token)));
        let mut conn = self.conn().await?;
        let updated = match failure {
            None => {
                diesel::update(target)
                    .set((
                        exports::status.eq(ExportStatus::Queued.as_str()),
                        exports::claim_token.eq(None::<Uuid>),
                        exports::lease_until.eq(None::<OffsetDateTime>),
                    ))
                    .execute(&mut conn)
                    .await
            }
            Some(failure) => {
                diesel::update(target)
                    .set((
                        exports::status.eq(ExportStatus::Failed.as_str()),
                        exports::finished_at.eq(at),
                        exports::failure_code.eq(&failure.code),
                        exports::failure_description.eq(&failure.description),
                        exports::claim_token.eq(None::<Uuid>),
                        exports::lease_until.eq(None::<OffsetDateTime>),
                    ))
                    .execute(&mut conn)
                    .await
            }
        }
        .map_err(from_diesel)?;
        Ok(updated == 1)
    }

    async fn expire_exports(&self, now: OffsetDateTime) -> Result<Vec<ExportId>> {
        // Raw, for its literal status: it is what lets the partial index `exports_retention`
        // serve every plan, where a bound value would not.
        let rows: Vec<IdRow> =
            sql_query("UPDATE exports SET status = 'EXPIRED' WHERE status = 'READY' AND expires_at <= $1 RETURNING id")
                .bind::<Timestamptz, _>(now)
                .cached()
                .load(&mut self.conn().await?)
                .await
                .map_err(from_diesel)?;
        Ok(rows.into_iter().map(|r| ExportId(r.id)).collect())
    }

    async fn count_fetch(&self, link: Uuid, window_start: OffsetDateTime) -> Result<u32> {
        let fetches: i32 = diesel::insert_into(download_fetches::table)
            .values((
                download_fetches::link_id.eq(link),
                download_fetches::window_start.eq(window_start),
                download_fetches::fetches.eq(1),
            ))
            .on_conflict((download_fetches::link_id, download_fetches::window_start))
            .do_update()
            .set(download_fetches::fetches.eq(download_fetches::fetches + 1))
            .returning(download_fetches::fetches)
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(u32::try_from(fetches).unwrap_or(u32::MAX))
    }

    async fn purge_fetch_counts(&self, before: OffsetDateTime) -> Result<u64> {
        let purged = diesel::delete(download_fetches::table.filter(download_fetches::window_start.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(purged as u64)
    }
}

impl WorkerPresence for PgStore {
    async fn export_worker_beat(&self, worker: Uuid, at: OffsetDateTime) -> Result<()> {
        diesel::insert_into(export_workers::table)
            .values((export_workers::worker_id.eq(worker), export_workers::seen_at.eq(at)))
            .on_conflict(export_workers::worker_id)
            .do_update()
            .set(export_workers::seen_at.eq(at))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn export_worker_alive(&self, since: OffsetDateTime) -> Result<bool> {
        diesel::select(diesel::dsl::exists(export_workers::table.filter(export_workers::seen_at.ge(since))))
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)
    }
}

impl ExportStore for PgStore {
    async fn put(&self, id: ExportId, bytes: Vec<u8>) -> Result<()> {
        diesel::insert_into(export_files::table)
            .values((export_files::export_id.eq(id.0), export_files::bytes.eq(&bytes)))
            .on_conflict(export_files::export_id)
            .do_update()
            .set(export_files::bytes.eq(&bytes))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn get(&self, id: ExportId) -> Result<Option<Vec<u8>>> {
        export_files::table
            .filter(export_files::export_id.eq(id.0))
            .select(export_files::bytes)
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)
    }

    async fn delete(&self, id: ExportId) -> Result<()> {
        diesel::delete(export_files::table.filter(export_files::export_id.eq(id.0)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }
}
