//! The outreach outbox and opt-outs. Planning is three set-based inserts from the durable state
//! (active campaigns, attached respondents, earlier messages, finished sessions), each unique per
//! person, channel, kind and number, so planning again, or on several replicas at once, queues
//! nothing twice.

use diesel::dsl::{count_star, max};
use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Array, BigInt, Bool, Bytea, Integer, Nullable, SmallInt, Text, Timestamptz, Uuid as SqlUuid};
use diesel::{QueryableByName, sql_query};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::campaigns::models::{DeliveryChannel, Register, StoredRef};
use pulse_domain::ids::{CampaignId, MessageId, RecordingId, RespondentId, SessionId, WorkspaceId};
use pulse_domain::outreach::models::{
    AddressFamily, CallContext, CallUpdate, ClaimedMessage, DueRecording, MessageKind, MessageOutcome, MessageResult,
    MessageStatus, MessageTally, NewRecording, OptOutSource, OutreachCounts, Recipient, RecordingResult,
    ReminderSchedule,
};
use pulse_domain::outreach::ports::OutreachRepository;
use pulse_domain::shared::time_zone::TimeZoneName;
use pulse_domain::{Error, Result};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::from_diesel;
use crate::schema::{campaigns, outreach_messages, outreach_opt_outs, respondents};
use crate::statement::Cached as _;
use crate::store::PgStore;
use crate::webhooks::outbox::emit_events;

mod calls;
mod recordings;

const PLAN_INVITATIONS: &str = "INSERT INTO outreach_messages
        (id, workspace_id, campaign_id, respondent_id, channel, kind, sequence, status, due_at, created_at, updated_at)
    SELECT gen_random_uuid(), c.workspace_id, c.id, r.id, ch.channel, 'INVITATION', 0, 'QUEUED', $1, $1, $1
    FROM campaigns c
    JOIN respondents r ON r.campaign_id = c.id
    CROSS JOIN LATERAL jsonb_array_elements_text(c.delivery -> 'channels') AS ch(channel)
    WHERE c.status = 'ACTIVE'
      AND ch.channel = ANY($2)
      AND CASE WHEN ch.channel = 'EMAIL' THEN r.email_sealed IS NOT NULL ELSE r.phone_sealed IS NOT NULL END
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.respondent_id = r.id AND s.status = 'COMPLETED')
      AND NOT EXISTS (SELECT 1 FROM outreach_messages m
                      WHERE m.respondent_id = r.id AND m.channel = ch.channel AND m.kind = 'INVITATION')
    ON CONFLICT (respondent_id, channel, kind, sequence) DO NOTHING";

/// Reminder n follows message n - 1 (the invitation for n = 1) on the same channel, once it was
/// sent the schedule's wait ago; `$3[n]` is the wait before reminder n, in seconds.
const PLAN_REMINDERS: &str = "INSERT INTO outreach_messages
        (id, workspace_id, campaign_id, respondent_id, channel, kind, sequence, status, due_at, created_at, updated_at)
    SELECT gen_random_uuid(), m.workspace_id, m.campaign_id, m.respondent_id, m.channel, 'REMINDER',
           m.sequence + 1, 'QUEUED', $1, $1, $1
    FROM outreach_messages m
    JOIN campaigns c ON c.id = m.campaign_id
    WHERE m.kind IN ('INVITATION', 'REMINDER') AND m.status = 'SENT'
      AND c.status = 'ACTIVE'
      AND m.channel = ANY($2)
      AND m.sequence + 1 <= COALESCE((c.delivery ->> 'reminderCount')::integer, 0)
      AND m.sent_at + make_interval(secs => ($3::bigint[])[m.sequence + 1]) <= $1
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.respondent_id = m.respondent_id AND s.status = 'COMPLETED')
    ON CONFLICT (respondent_id, channel, kind, sequence) DO NOTHING";

/// One thank-you per person who finished, on the first of the campaign's written channels (in its
/// order) whose invitation was sent; none for a person a call thanked aloud. Two replicas planning
/// at once may pick different channels: the unique index on thank-yous per person keeps one,
/// whichever conflict it meets.
const PLAN_THANKS: &str = "INSERT INTO outreach_messages
        (id, workspace_id, campaign_id, respondent_id, channel, kind, sequence, status, due_at, created_at, updated_at)
    SELECT DISTINCT ON (m.respondent_id) gen_random_uuid(), m.workspace_id, m.campaign_id, m.respondent_id,
           m.channel, 'THANK_YOU', 0, 'QUEUED', $1, $1, $1
    FROM outreach_messages m
    JOIN campaigns c ON c.id = m.campaign_id
    WHERE m.kind = 'INVITATION' AND m.status = 'SENT' AND m.channel = ANY($2) AND m.channel <> 'TELEPHONY'
      AND EXISTS (SELECT 1 FROM sessions s WHERE s.respondent_id = m.respondent_id AND s.status = 'COMPLETED')
      AND NOT EXISTS (SELECT 1 FROM outreach_messages t WHERE t.respondent_id = m.respondent_id AND t.kind = 'THANK_YOU')
      AND NOT EXISTS (SELECT 1 FROM outreach_messages x JOIN outreach_calls k ON k.message_id = x.id
                      WHERE x.respondent_id = m.respondent_id AND k.outcome = 'COMPLETED')
    ORDER BY m.respondent_id,
             array_position(ARRAY(SELECT jsonb_array_elements_text(c.delivery -> 'channels')), m.channel)
    ON CONFLICT DO NOTHING";

/// Leases due messages on the given channels, skipping rows another worker holds, and returns
/// each with what composing it needs.
const CLAIM: &str = include_str!("claim.sql");

/// A respondent's columns a message is composed from.
#[derive(Queryable, Selectable, QueryableByName)]
#[diesel(table_name = respondents, check_for_backend(diesel::pg::Pg))]
struct RecipientColumns {
    #[diesel(sql_type = Nullable<Text>)]
    external_ref: Option<String>,
    #[diesel(sql_type = Nullable<Bytea>)]
    ref_digest: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    ref_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    name_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    email_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    phone_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    time_zone_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    invitation_sealed: Option<Vec<u8>>,
}

impl RecipientColumns {
    fn into_domain(self, id: RespondentId) -> Recipient {
        Recipient {
            id,
            reference: match (self.ref_digest, self.ref_sealed, self.external_ref) {
                (Some(digest), Some(sealed), _) => Some(StoredRef::Sealed { digest, sealed }),
                (_, _, clear) => clear.map(StoredRef::Clear),
            },
            name_sealed: self.name_sealed,
            email_sealed: self.email_sealed,
            phone_sealed: self.phone_sealed,
            time_zone_sealed: self.time_zone_sealed,
            invitation_sealed: self.invitation_sealed,
        }
    }
}

#[derive(QueryableByName)]
struct ClaimRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = SqlUuid)]
    claim_token: Uuid,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Text)]
    channel: String,
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = SmallInt)]
    sequence: i16,
    #[diesel(sql_type = SqlUuid)]
    workspace_id: Uuid,
    #[diesel(sql_type = Text)]
    workspace_name: String,
    #[diesel(sql_type = Nullable<Text>)]
    workspace_time_zone: Option<String>,
    #[diesel(sql_type = SqlUuid)]
    campaign_id: Uuid,
    #[diesel(sql_type = Text)]
    campaign_code: String,
    #[diesel(sql_type = Text)]
    campaign_name: String,
    #[diesel(sql_type = Bool)]
    collecting: bool,
    #[diesel(sql_type = Bool)]
    greet_by_name: bool,
    #[diesel(sql_type = Text)]
    language: String,
    #[diesel(sql_type = Text)]
    register: String,
    #[diesel(sql_type = SqlUuid)]
    respondent_id: Uuid,
    #[diesel(embed)]
    recipient: RecipientColumns,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    finished_session: Option<Uuid>,
}

impl ClaimRow {
    fn into_domain(self) -> Result<ClaimedMessage> {
        let corrupt = |what: &str| Error::internal(format!("message {} has an unknown {what}", self.id));
        Ok(ClaimedMessage {
            id: MessageId(self.id),
            claim_token: self.claim_token,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            channel: DeliveryChannel::parse(&self.channel).ok_or_else(|| corrupt("channel"))?,
            kind: MessageKind::parse(&self.kind).ok_or_else(|| corrupt("kind"))?,
            sequence: u8::try_from(self.sequence).map_err(|_| corrupt("sequence"))?,
            workspace_id: WorkspaceId(self.workspace_id),
            workspace_name: self.workspace_name,
            workspace_time_zone: self.workspace_time_zone.as_deref().and_then(TimeZoneName::known),
            campaign_id: CampaignId(self.campaign_id),
            campaign_code: self.campaign_code,
            campaign_name: self.campaign_name,
            collecting: self.collecting,
            greet_by_name: self.greet_by_name,
            language: self.language,
            register: Register::parse(&self.register).ok_or_else(|| corrupt("register"))?,
            recipient: self.recipient.into_domain(RespondentId(self.respondent_id)),
            finished_session: self.finished_session.map(SessionId),
        })
    }
}

impl OutreachRepository for PgStore {
    async fn plan_messages(
        &self,
        now: OffsetDateTime,
        senders: &[DeliveryChannel],
        schedule: &ReminderSchedule,
    ) -> Result<u64> {
        let senders: Vec<&str> = senders.iter().map(|c| c.as_str()).collect();
        let waits = schedule.wait_seconds().to_vec();
        let mut conn = self.conn().await?;
        let mut queued = 0;
        for statement in [PLAN_INVITATIONS, PLAN_REMINDERS, PLAN_THANKS] {
            let query = sql_query(statement).bind::<Timestamptz, _>(now).bind::<Array<Text>, _>(&senders);
            let inserted = if statement == PLAN_REMINDERS {
                query.bind::<Array<BigInt>, _>(&waits).cached().execute(&mut conn).await
            } else {
                query.cached().execute(&mut conn).await
            }
            .map_err(from_diesel)?;
            queued += inserted as u64;
        }
        Ok(queued)
    }

    async fn claim_messages(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
        senders: &[DeliveryChannel],
    ) -> Result<Vec<ClaimedMessage>> {
        let senders: Vec<&str> = senders.iter().map(|c| c.as_str()).collect();
        let rows: Vec<ClaimRow> = sql_query(CLAIM)
            .bind::<Timestamptz, _>(now)
            .bind::<Timestamptz, _>(lease_until)
            .bind::<BigInt, _>(i64::from(limit))
            .bind::<Array<Text>, _>(&senders)
            .cached()
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(ClaimRow::into_domain).collect()
    }

    async fn finish_message(&self, outcome: &MessageOutcome) -> Result<bool> {
        let mut conn = self.conn().await?;
        conn.transaction::<_, DieselError, _>(async |conn| {
            let held = outreach_messages::table.filter(
                outreach_messages::id.eq(outcome.id.0).and(outreach_messages::claim_token.eq(outcome.claim_token)),
            );
            let released = (
                outreach_messages::claim_token.eq(None::<Uuid>),
                outreach_messages::claimed_until.eq(None::<OffsetDateTime>),
                outreach_messages::updated_at.eq(outcome.at),
            );
            let attempted = outreach_messages::attempts.eq(outreach_messages::attempts + 1);
            let updated = match &outcome.result {
                MessageResult::Sent { provider_id, address_digest, .. } => {
                    diesel::update(held)
                        .set((
                            released,
                            attempted,
                            outreach_messages::status.eq(MessageStatus::Sent.as_str()),
                            outreach_messages::sent_at.eq(outcome.at),
                            outreach_messages::address_digest.eq(address_digest),
                            outreach_messages::provider_message_id.eq(provider_id),
                            outreach_messages::reason.eq(None::<String>),
                        ))
                        .execute(conn)
                        .await?
                }
                MessageResult::Retry { due_at, code } => {
                    diesel::update(held)
                        .set((
                            released,
                            attempted,
                            outreach_messages::due_at.eq(due_at),
                            outreach_messages::reason.eq(code),
                        ))
                        .execute(conn)
                        .await?
                }
                MessageResult::Held { due_at } => {
                    diesel::update(held).set((released, outreach_messages::due_at.eq(due_at))).execute(conn).await?
                }
                MessageResult::Failed { code, address_digest } => {
                    diesel::update(held)
                        .set((
                            released,
                            attempted,
                            outreach_messages::status.eq(MessageStatus::Failed.as_str()),
                            outreach_messages::reason.eq(code),
                            outreach_messages::address_digest.eq(address_digest),
                        ))
                        .execute(conn)
                        .await?
                }
                MessageResult::Suppressed { reason } => {
                    diesel::update(held)
                        .set((
                            released,
                            outreach_messages::status.eq(MessageStatus::Suppressed.as_str()),
                            outreach_messages::reason.eq(reason.as_str()),
                        ))
                        .execute(conn)
                        .await?
                }
            };
            // Only the holder that recorded the acceptance announces it.
            if let MessageResult::Sent { acknowledged: Some(event), .. } = &outcome.result
                && updated == 1
            {
                emit_events(conn, std::slice::from_ref(event)).await?;
            }
            Ok(updated == 1)
        })
        .await
        .map_err(from_diesel)
    }

    async fn is_opted_out(&self, workspace: WorkspaceId, address_digest: &[u8]) -> Result<bool> {
        let found: Option<Uuid> = outreach_opt_outs::table
            .filter(outreach_opt_outs::workspace_id.eq(workspace.0))
            .filter(outreach_opt_outs::address_digest.eq(address_digest))
            .select(outreach_opt_outs::workspace_id)
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        Ok(found.is_some())
    }

    async fn record_opt_out(
        &self,
        workspace: WorkspaceId,
        address_digest: &[u8],
        family: AddressFamily,
        source: OptOutSource,
        at: OffsetDateTime,
    ) -> Result<()> {
        diesel::insert_into(outreach_opt_outs::table)
            .values((
                outreach_opt_outs::workspace_id.eq(workspace.0),
                outreach_opt_outs::address_digest.eq(address_digest),
                outreach_opt_outs::family.eq(family.as_str()),
                outreach_opt_outs::source.eq(source.as_str()),
                outreach_opt_outs::created_at.eq(at),
            ))
            .on_conflict_do_nothing()
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn workspaces_that_wrote_to(&self, address_digest: &[u8]) -> Result<Vec<WorkspaceId>> {
        let rows: Vec<Uuid> = outreach_messages::table
            .filter(outreach_messages::address_digest.eq(address_digest))
            .group_by(outreach_messages::workspace_id)
            .order((max(outreach_messages::sent_at).desc().nulls_last(), outreach_messages::workspace_id))
            .select(outreach_messages::workspace_id)
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(rows.into_iter().map(WorkspaceId).collect())
    }

    async fn recipient(&self, respondent: RespondentId) -> Result<Option<(WorkspaceId, CampaignId, Recipient)>> {
        let row: Option<(Uuid, Uuid, RecipientColumns)> = respondents::table
            .inner_join(campaigns::table)
            .filter(respondents::id.eq(respondent.0))
            .select((campaigns::workspace_id, campaigns::id, RecipientColumns::as_select()))
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        Ok(row.map(|(workspace, campaign, recipient)| {
            (WorkspaceId(workspace), CampaignId(campaign), recipient.into_domain(respondent))
        }))
    }

    async fn outreach_counts(&self, campaign: CampaignId, now: OffsetDateTime) -> Result<OutreachCounts> {
        let rows: Vec<(String, String, Option<String>, i64)> = outreach_messages::table
            .filter(outreach_messages::campaign_id.eq(campaign.0))
            .group_by((outreach_messages::channel, outreach_messages::status, outreach_messages::reason))
            .select((outreach_messages::channel, outreach_messages::status, outreach_messages::reason, count_star()))
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        let tallies = rows
            .into_iter()
            .map(|(channel, status, reason, messages)| {
                let corrupt = || Error::internal("an outreach message has an unknown channel or status");
                Ok(MessageTally {
                    channel: DeliveryChannel::parse(&channel).ok_or_else(corrupt)?,
                    status: MessageStatus::parse(&status).ok_or_else(corrupt)?,
                    reason,
                    messages: u64::try_from(messages).unwrap_or(0),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut counts = OutreachCounts::of(&tallies);
        counts.recordings = recordings::counts(self, campaign, now).await?;
        Ok(counts)
    }

    async fn calls_under_way(&self, workspace: WorkspaceId, since: OffsetDateTime) -> Result<u64> {
        calls::calls_under_way(self, workspace, since).await
    }

    async fn call(&self, message: MessageId) -> Result<Option<CallContext>> {
        calls::call(self, message).await
    }

    async fn record_call(&self, update: &CallUpdate) -> Result<()> {
        calls::record_call(self, update).await
    }

    async fn record_recording(&self, recording: &NewRecording) -> Result<()> {
        recordings::record(self, recording).await
    }

    async fn claim_recordings(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<DueRecording>> {
        recordings::claim(self, now, lease_until, limit).await
    }

    async fn finish_recording(&self, recording: RecordingId, result: &RecordingResult) -> Result<()> {
        recordings::finish(self, recording, result).await
    }
}
