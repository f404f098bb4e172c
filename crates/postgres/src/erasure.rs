//! Erasures: each subject destroyed in one transaction, its sessions detached, the record written.

use diesel::prelude::*;
use diesel::sql_query;
use diesel::sql_types::{Bytea, Text, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection as _, AsyncPgConnection, RunQueryDsl};
use pulse_domain::Result;
use pulse_domain::apps::models::Identity;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::erasure::models::{ErasureKind, ErasureRecord};
use pulse_domain::erasure::ports::ErasureRepository;
use pulse_domain::ids::{AppUserId, CampaignId, DeviceId};
use pulse_domain::outreach::models::Suppression;
use uuid::Uuid;

use crate::audit::write_audit;
use crate::rows::IdRow;
use crate::schema::{app_devices, app_users, erasures, launch_links, outreach_calls, outreach_messages, sessions};
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};

/// Writes `record` and its `audit` entry, once the subject is found and erased.
async fn write_record(
    conn: &mut AsyncPgConnection,
    record: &ErasureRecord,
    audit: &AuditEntry,
    kind: ErasureKind,
    subject: Uuid,
) -> Result<(), TxError> {
    diesel::insert_into(erasures::table)
        .values((
            erasures::id.eq(record.id.0),
            erasures::workspace_id.eq(record.workspace_id.0),
            erasures::kind.eq(kind.as_str()),
            erasures::subject_id.eq(subject),
            erasures::erased_at.eq(record.erased_at),
        ))
        .execute(conn)
        .await?;
    write_audit(conn, audit).await?;
    Ok(())
}

impl ErasureRepository for PgStore {
    async fn erase_app_user(&self, user: AppUserId, record: &ErasureRecord, audit: &AuditEntry) -> Result<bool> {
        let mut conn = self.conn().await?;
        let erased = conn
            .transaction::<_, TxError, _>(async |conn| {
                let found: Option<Uuid> = app_users::table
                    .filter(app_users::id.eq(user.0))
                    .filter(app_users::workspace_id.eq(record.workspace_id.0))
                    .select(app_users::id)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                if found.is_none() {
                    return Ok(false);
                }
                // As after a register without `user`: a device with no person is anonymous.
                diesel::update(app_devices::table.filter(app_devices::user_id.eq(user.0)))
                    .set((
                        app_devices::user_id.eq(None::<Uuid>),
                        app_devices::identity.eq(Identity::Anonymous.as_str()),
                    ))
                    .execute(conn)
                    .await?;
                // Its sessions stay, detached: the foreign key sets their person to null.
                diesel::delete(app_users::table.find(user.0)).execute(conn).await?;
                write_record(conn, record, audit, ErasureKind::AppUser, user.0).await?;
                Ok(true)
            })
            .await?;
        Ok(erased)
    }

    async fn erase_device(&self, device: DeviceId, record: &ErasureRecord, audit: &AuditEntry) -> Result<bool> {
        let mut conn = self.conn().await?;
        let erased = conn
            .transaction::<_, TxError, _>(async |conn| {
                let found: Option<Option<Uuid>> = app_devices::table
                    .filter(app_devices::id.eq(device.0))
                    .filter(app_devices::workspace_id.eq(record.workspace_id.0))
                    .select(app_devices::user_id)
                    .for_update()
                    .first(conn)
                    .await
                    .optional()?;
                let Some(user) = found else { return Ok(false) };
                // Its installs go with it, by app_devices' delete trigger (migration 000023); its
                // sessions stay, detached by their foreign keys.
                diesel::delete(app_devices::table.find(device.0)).execute(conn).await?;
                // A person named by no `externalId` belongs to the device alone.
                if let Some(user) = user {
                    diesel::delete(
                        app_users::table
                            .filter(app_users::id.eq(user))
                            .filter(app_users::has_external_id.eq(false))
                            .filter(diesel::dsl::not(diesel::dsl::exists(
                                app_devices::table.filter(app_devices::user_id.eq(user)),
                            ))),
                    )
                    .execute(conn)
                    .await?;
                }
                write_record(conn, record, audit, ErasureKind::Device, device.0).await?;
                Ok(true)
            })
            .await?;
        Ok(erased)
    }

    async fn erase_respondent(
        &self,
        campaign: CampaignId,
        ref_digest: &[u8],
        record: &ErasureRecord,
        audit: &AuditEntry,
    ) -> Result<bool> {
        let mut conn = self.conn().await?;
        let erased = conn
            .transaction::<_, TxError, _>(async |conn| {
                // A tombstone keeps the respondent's place in the campaign's counts (invited,
                // responded) and nothing of the person.
                let found: Option<IdRow> = sql_query(
                    "UPDATE respondents r SET ref_digest = NULL, ref_sealed = NULL, external_ref = NULL,
                            name_sealed = NULL, email_sealed = NULL, phone_sealed = NULL,
                            time_zone_sealed = NULL, invitation_sealed = NULL, updated_at = $4
                     FROM campaigns c
                     WHERE c.id = r.campaign_id AND c.workspace_id = $1 AND r.campaign_id = $2 AND r.ref_digest = $3
                     RETURNING r.id",
                )
                .bind::<SqlUuid, _>(record.workspace_id.0)
                .bind::<SqlUuid, _>(campaign.0)
                .bind::<Bytea, _>(ref_digest)
                .bind::<Timestamptz, _>(record.erased_at)
                .cached()
                .get_result(conn)
                .await
                .optional()?;
                let Some(IdRow { id }) = found else { return Ok(false) };
                // The invitation's nonce digest; its sessions keep their place, without the link.
                diesel::delete(launch_links::table.filter(launch_links::respondent_id.eq(id))).execute(conn).await?;
                diesel::update(sessions::table.filter(sessions::respondent_id.eq(id)))
                    .set(sessions::respondent_id.eq(None::<Uuid>))
                    .execute(conn)
                    .await?;
                // Messages keep their outcome for the campaign's counts, without the address's
                // digest or the provider's id; one still waiting is not sent, and a claim on it can
                // no longer record.
                sql_query(
                    "UPDATE outreach_messages SET address_digest = NULL, provider_message_id = NULL,
                            reason = CASE WHEN status = 'QUEUED' THEN $2 ELSE reason END,
                            status = CASE WHEN status = 'QUEUED' THEN 'SUPPRESSED' ELSE status END,
                            claim_token = NULL, claimed_until = NULL, updated_at = $3
                     WHERE respondent_id = $1",
                )
                .bind::<SqlUuid, _>(id)
                .bind::<Text, _>(Suppression::Erased.as_str())
                .bind::<Timestamptz, _>(record.erased_at)
                .cached()
                .execute(conn)
                .await?;
                // Their calls keep their outcome, without the provider's call id or the token of
                // the session they drove.
                diesel::update(
                    outreach_calls::table.filter(
                        outreach_calls::message_id.eq_any(
                            outreach_messages::table
                                .filter(outreach_messages::respondent_id.eq(id))
                                .select(outreach_messages::id),
                        ),
                    ),
                )
                .set((
                    outreach_calls::provider_call_id.eq(None::<String>),
                    outreach_calls::session_id.eq(None::<Uuid>),
                    outreach_calls::session_token_sealed.eq(None::<Vec<u8>>),
                    outreach_calls::updated_at.eq(record.erased_at),
                ))
                .execute(conn)
                .await?;
                // Their recordings at the voice provider are due for deletion now.
                sql_query(
                    "UPDATE call_recordings k SET delete_after = LEAST(k.delete_after, $2),
                            next_attempt_at = LEAST(k.next_attempt_at, $2)
                     FROM outreach_messages m
                     WHERE m.id = k.message_id AND m.respondent_id = $1 AND k.deleted_at IS NULL",
                )
                .bind::<SqlUuid, _>(id)
                .bind::<Timestamptz, _>(record.erased_at)
                .cached()
                .execute(conn)
                .await?;
                write_record(conn, record, audit, ErasureKind::Respondent, id).await?;
                Ok(true)
            })
            .await?;
        Ok(erased)
    }
}

#[cfg(test)]
mod tests {
    use diesel::dsl::count_star;
    use diesel_async::SimpleAsyncConnection as _;
    use pulse_domain::audit::models::{AuditAction, AuditScope};
    use pulse_domain::ids::{ErasureId, WorkspaceId};
    use time::OffsetDateTime;

    use super::*;
    use crate::schema::app_installs;
    use crate::test_db::{ONE_WORKSPACE, TestDatabase, until_settled};
    use crate::{PoolSettings, connect};

    /// A campaign of [`ONE_WORKSPACE`], and two devices registered to it: each an `app_devices`
    /// row and an `app_installs` row.
    const TWO_REGISTERED_DEVICES: &str = "\
        INSERT INTO surveys (id, workspace_id, title, languages, questions, created_at) \
        VALUES ('00000000-0000-0000-0000-00000000000c', '00000000-0000-0000-0000-00000000000a', 't', '{en}', '[]', \
        now()); \
        INSERT INTO campaigns (id, workspace_id, survey_id, code, name, status, audience, quality, delivery, \
        order_terms, anonymity_floor, created_at) VALUES ('00000000-0000-0000-0000-00000000000d', \
        '00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-00000000000c', 'c', 'c', 'ACTIVE', 'OPEN', \
        '{}', '{}', '{}', 5, now()); \
        INSERT INTO app_devices (id, workspace_id, app_id, platform, app_version, status, refresh_digest, \
        refresh_expires_at, identity, latest_install_id, first_seen_at, last_seen_at, heartbeat_count, \
        feedback_count, session_count, recent_sessions) \
        SELECT ('00000000-0000-0000-0000-00000000001' || i)::uuid, '00000000-0000-0000-0000-00000000000a', 'app', \
        'ios', '1', 'ACTIVE', sha256(i::text::bytea), now() + interval '1 day', 'anonymous', \
        ('00000000-0000-0000-0000-00000000002' || i)::uuid, now(), now(), 0, 0, 1, ARRAY[now()] \
        FROM generate_series(1, 2) AS i; \
        INSERT INTO app_installs (id, campaign_id, device_id, app_id, platform, app_version, first_seen_at, \
        last_seen_at, heartbeat_count, feedback_count, session_count, recent_sessions) \
        SELECT latest_install_id, '00000000-0000-0000-0000-00000000000d', id, 'app', 'ios', '1', now(), now(), 0, 0, \
        1, ARRAY[now()] FROM app_devices;";

    #[tokio::test]
    async fn an_erased_device_takes_its_installs_with_it_and_leaves_the_others() {
        let database = TestDatabase::create().await;
        let store = connect(database.url(), &PoolSettings { max_size: 2, ..PoolSettings::default() }).expect("a pool");
        let mut conn = store.conn().await.expect("a connection");
        conn.batch_execute(ONE_WORKSPACE).await.expect("a workspace");
        conn.batch_execute(TWO_REGISTERED_DEVICES).await.expect("seeded");
        let erased = Uuid::parse_str("00000000-0000-0000-0000-000000000011").expect("a uuid");
        let record = ErasureRecord {
            id: ErasureId::new_random(),
            workspace_id: WorkspaceId(Uuid::parse_str("00000000-0000-0000-0000-00000000000a").expect("a uuid")),
            erased_at: OffsetDateTime::now_utc(),
        };
        let scope = AuditScope::Workspace(record.workspace_id);
        let audit = AuditEntry::by_operator(scope, AuditAction::DeviceErased, erased, record.erased_at);

        assert!(store.erase_device(DeviceId(erased), &record, &audit).await.expect("erased"));

        let left: Vec<Uuid> = app_installs::table.select(app_installs::device_id).load(&mut conn).await.expect("read");
        assert_eq!(left, [Uuid::parse_str("00000000-0000-0000-0000-000000000012").expect("a uuid")]);
        let devices: i64 = app_devices::table.select(count_star()).get_result(&mut conn).await.expect("read");
        assert_eq!(devices, 1);
    }

    /// The previous release erases a device with a plain delete and leaves its installs to the
    /// database. A register that holds the device (as every register of a known device does before
    /// it writes an install) and commits an install while that delete waits for it must not leave
    /// the install behind.
    #[tokio::test]
    async fn a_device_deleted_while_a_register_holds_it_leaves_no_install_behind() {
        let database = TestDatabase::create().await;
        let mut register = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        register.batch_execute(ONE_WORKSPACE).await.expect("a workspace");
        register.batch_execute(TWO_REGISTERED_DEVICES).await.expect("seeded");
        // The install is of another campaign (`…0e`, which no row names: installs have no foreign
        // key to campaigns since migration 000021), so it does not collide with the device's first.
        register
            .batch_execute(
                "BEGIN; \
                 SELECT 1 FROM app_devices WHERE id = '00000000-0000-0000-0000-000000000011' FOR NO KEY UPDATE; \
                 INSERT INTO app_installs (id, campaign_id, device_id, app_id, platform, app_version, first_seen_at, \
                 last_seen_at, heartbeat_count, feedback_count, session_count, recent_sessions) VALUES \
                 ('00000000-0000-0000-0000-000000000031', '00000000-0000-0000-0000-00000000000e', \
                 '00000000-0000-0000-0000-000000000011', 'app', 'ios', '1', now(), now(), 0, 0, 1, ARRAY[now()]);",
            )
            .await
            .expect("a register under way");
        let url = database.url().to_owned();
        let erasure = tokio::spawn(async move {
            let mut conn = AsyncPgConnection::establish(&url).await.expect("a connection");
            diesel::delete(app_devices::table.find(Uuid::from_u128(0x11))).execute(&mut conn).await.expect("deleted")
        });
        let mut watcher = AsyncPgConnection::establish(database.url()).await.expect("a connection");
        until_settled(&mut watcher, 1, || i64::from(erasure.is_finished())).await;

        register.batch_execute("COMMIT").await.expect("committed");

        assert_eq!(erasure.await.expect("the erasure"), 1);
        let left: Vec<Uuid> =
            app_installs::table.select(app_installs::device_id).load(&mut watcher).await.expect("read");
        assert_eq!(left, [Uuid::parse_str("00000000-0000-0000-0000-000000000012").expect("a uuid")]);
    }
}
