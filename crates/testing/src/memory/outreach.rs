//! The outreach outbox and opt-outs in memory, planned by the same rules as the SQL of
//! `pulse-postgres` (the contract suite checks both).

use pulse_domain::campaigns::models::{CampaignStatus, DeliveryChannel, StoredRef};
use pulse_domain::error::{Error, Result};
use pulse_domain::ids::{CampaignId, MessageId, RecordingId, RespondentId, SessionId, WorkspaceId};
use pulse_domain::outreach::models::{
    AddressFamily, CallContext, CallOutcome, CallUpdate, ClaimedMessage, DueRecording, MessageKind, MessageOutcome,
    MessageResult, MessageStatus, MessageTally, NewRecording, OptOutSource, OutreachCounts, Recipient, RecordingCounts,
    RecordingResult, ReminderSchedule,
};
use pulse_domain::outreach::ports::OutreachRepository;
use pulse_domain::sessions::models::SessionStatus;
use time::OffsetDateTime;
use uuid::Uuid;

use super::{MemoryStore, RespondentRow, State};

#[derive(Clone, Debug)]
pub(super) struct MessageRow {
    pub(super) id: MessageId,
    pub(super) workspace_id: WorkspaceId,
    pub(super) campaign_id: CampaignId,
    pub(super) respondent_id: RespondentId,
    pub(super) channel: DeliveryChannel,
    pub(super) kind: MessageKind,
    pub(super) sequence: u8,
    pub(super) status: MessageStatus,
    pub(super) attempts: u32,
    pub(super) due_at: OffsetDateTime,
    pub(super) claim: Option<(Uuid, OffsetDateTime)>,
    pub(super) sent_at: Option<OffsetDateTime>,
    pub(super) address_digest: Option<Vec<u8>>,
    pub(super) provider_message_id: Option<String>,
    pub(super) reason: Option<String>,
}

/// What a call's turns recorded.
#[derive(Clone, Debug)]
pub(super) struct CallRow {
    pub(super) message_id: MessageId,
    pub(super) provider_call_id: Option<String>,
    /// The session's id with its sealed token; gone with the token on erasure.
    pub(super) session: Option<(SessionId, Vec<u8>)>,
    outcome: Option<CallOutcome>,
}

/// A recording at the voice provider, until it is confirmed deleted.
#[derive(Clone, Debug)]
pub(super) struct RecordingRow {
    pub(super) id: RecordingId,
    pub(super) message_id: MessageId,
    campaign_id: CampaignId,
    reference_digest: Vec<u8>,
    /// Dropped once deleted.
    reference_sealed: Option<Vec<u8>>,
    pub(super) delete_after: OffsetDateTime,
    deleted_at: Option<OffsetDateTime>,
    attempts: u32,
    pub(super) next_attempt_at: OffsetDateTime,
    claimed_until: Option<OffsetDateTime>,
}

#[derive(Clone, Debug)]
pub(super) struct OptOutRow {
    pub(super) workspace_id: WorkspaceId,
    pub(super) address_digest: Vec<u8>,
}

fn recipient(row: &RespondentRow) -> Recipient {
    Recipient {
        id: row.id,
        reference: row.reference.clone().map(|(digest, sealed)| StoredRef::Sealed { digest, sealed }),
        name_sealed: row.name_sealed.clone(),
        email_sealed: row.email_sealed.clone(),
        phone_sealed: row.phone_sealed.clone(),
        time_zone_sealed: row.time_zone_sealed.clone(),
        invitation_sealed: row.invitation_sealed.clone(),
    }
}

impl State {
    /// The session a respondent finished through their invitation.
    fn finished_session(&self, respondent: RespondentId) -> Option<SessionId> {
        self.sessions
            .values()
            .filter(|s| s.session.respondent_id == Some(respondent) && s.status == SessionStatus::Completed)
            .min_by_key(|s| s.completed_at)
            .map(|s| s.session.id)
    }

    fn has_message(&self, respondent: RespondentId, channel: DeliveryChannel, kind: MessageKind, sequence: u8) -> bool {
        self.messages
            .iter()
            .any(|m| m.respondent_id == respondent && m.channel == channel && m.kind == kind && m.sequence == sequence)
    }

    fn queue_message(
        &mut self,
        respondent: &RespondentRow,
        workspace_id: WorkspaceId,
        channel: DeliveryChannel,
        kind: MessageKind,
        sequence: u8,
        now: OffsetDateTime,
    ) -> bool {
        if self.has_message(respondent.id, channel, kind, sequence) {
            return false;
        }
        self.messages.push(MessageRow {
            id: MessageId::new_random(),
            workspace_id,
            campaign_id: respondent.campaign_id,
            respondent_id: respondent.id,
            channel,
            kind,
            sequence,
            status: MessageStatus::Queued,
            attempts: 0,
            due_at: now,
            claim: None,
            sent_at: None,
            address_digest: None,
            provider_message_id: None,
            reason: None,
        });
        true
    }
}

impl State {
    /// A campaign's messages per channel, its failure codes and its recordings.
    pub(super) fn outreach_counts(&self, campaign: CampaignId, now: OffsetDateTime) -> OutreachCounts {
        let mut tallies: Vec<MessageTally> = Vec::new();
        for message in self.messages.iter().filter(|m| m.campaign_id == campaign) {
            let same = |t: &&mut MessageTally| {
                t.channel == message.channel && t.status == message.status && t.reason == message.reason
            };
            match tallies.iter_mut().find(same) {
                Some(tally) => tally.messages += 1,
                None => tallies.push(MessageTally {
                    channel: message.channel,
                    status: message.status,
                    reason: message.reason.clone(),
                    messages: 1,
                }),
            }
        }
        let mut counts = OutreachCounts::of(&tallies);
        let mut recordings = RecordingCounts::default();
        for recording in self.recordings.iter().filter(|r| r.campaign_id == campaign) {
            let count = match recording.deleted_at {
                Some(_) => &mut recordings.deleted,
                None if recording.delete_after <= now => &mut recordings.overdue,
                None => &mut recordings.held,
            };
            *count += 1;
        }
        counts.recordings = recordings;
        counts
    }
}

impl OutreachRepository for MemoryStore {
    async fn plan_messages(
        &self,
        now: OffsetDateTime,
        senders: &[DeliveryChannel],
        schedule: &ReminderSchedule,
    ) -> Result<u64> {
        let mut state = self.state();
        let mut queued = 0;
        let respondents = state.respondents.clone();
        for respondent in &respondents {
            let Some(campaign) = state.campaigns.get(&respondent.campaign_id).cloned() else { continue };
            let channels: Vec<DeliveryChannel> =
                campaign.delivery.channels.iter().copied().filter(|c| senders.contains(c)).collect();
            let reachable = |c: &DeliveryChannel| {
                if c.needs_email() { respondent.email_sealed.is_some() } else { respondent.phone_sealed.is_some() }
            };
            let finished = state.finished_session(respondent.id).is_some();
            let active = campaign.status == CampaignStatus::Active;
            for channel in channels.iter().filter(|c| reachable(c)) {
                if active && !finished {
                    queued += u64::from(state.queue_message(
                        respondent,
                        campaign.workspace_id,
                        *channel,
                        MessageKind::Invitation,
                        0,
                        now,
                    ));
                    let reminders = campaign.delivery.reminder_count.unwrap_or(0);
                    for number in 1..=reminders {
                        let (kind, sequence) = if number == 1 {
                            (MessageKind::Invitation, 0)
                        } else {
                            (MessageKind::Reminder, number - 1)
                        };
                        let previous_sent = state
                            .messages
                            .iter()
                            .find(|m| {
                                m.respondent_id == respondent.id
                                    && m.channel == *channel
                                    && m.kind == kind
                                    && m.sequence == sequence
                            })
                            .and_then(|m| m.sent_at);
                        if previous_sent.is_some_and(|sent| sent + schedule.wait_before(number) <= now) {
                            queued += u64::from(state.queue_message(
                                respondent,
                                campaign.workspace_id,
                                *channel,
                                MessageKind::Reminder,
                                number,
                                now,
                            ));
                        }
                    }
                }
            }
            let thanked_aloud = state.calls.iter().any(|call| {
                call.outcome == Some(CallOutcome::Completed)
                    && state.messages.iter().any(|m| m.id == call.message_id && m.respondent_id == respondent.id)
            });
            if finished && !thanked_aloud {
                let written = |c: &DeliveryChannel| senders.contains(c) && *c != DeliveryChannel::Telephony;
                let invited_on = campaign.delivery.channels.iter().copied().filter(written).find(|c| {
                    state.messages.iter().any(|m| {
                        m.respondent_id == respondent.id
                            && m.channel == *c
                            && m.kind == MessageKind::Invitation
                            && m.status == MessageStatus::Sent
                    })
                });
                if let Some(channel) = invited_on {
                    let exists = state
                        .messages
                        .iter()
                        .any(|m| m.respondent_id == respondent.id && m.kind == MessageKind::ThankYou);
                    if !exists {
                        queued += u64::from(state.queue_message(
                            respondent,
                            campaign.workspace_id,
                            channel,
                            MessageKind::ThankYou,
                            0,
                            now,
                        ));
                    }
                }
            }
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
        let mut state = self.state();
        let mut due: Vec<usize> = (0..state.messages.len())
            .filter(|&i| {
                let m = &state.messages[i];
                m.status == MessageStatus::Queued
                    && m.due_at <= now
                    && senders.contains(&m.channel)
                    && m.claim.is_none_or(|(_, until)| until <= now)
            })
            .collect();
        due.sort_by_key(|&i| state.messages[i].due_at);
        due.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        let mut claimed = Vec::with_capacity(due.len());
        for i in due {
            let token = Uuid::new_v4();
            state.messages[i].claim = Some((token, lease_until));
            let message = state.messages[i].clone();
            let respondent = state
                .respondents
                .iter()
                .find(|r| r.id == message.respondent_id)
                .cloned()
                .ok_or_else(|| Error::internal("a message's respondent is gone"))?;
            let campaign = state
                .campaigns
                .get(&message.campaign_id)
                .cloned()
                .ok_or_else(|| Error::internal("a message's campaign is gone"))?;
            let survey = state.survey_of(&campaign)?;
            let workspace = state
                .workspaces
                .iter()
                .find(|w| w.id == message.workspace_id)
                .map(|w| w.details.clone())
                .ok_or_else(|| Error::internal("a message's workspace is gone"))?;
            claimed.push(ClaimedMessage {
                id: message.id,
                claim_token: token,
                attempts: message.attempts,
                channel: message.channel,
                kind: message.kind,
                sequence: message.sequence,
                workspace_id: message.workspace_id,
                workspace_name: workspace.name,
                workspace_time_zone: workspace.time_zone,
                campaign_id: campaign.id,
                campaign_code: campaign.code.clone(),
                campaign_name: campaign.name.clone(),
                collecting: campaign.status == CampaignStatus::Active,
                greet_by_name: campaign.delivery.greet_by_name.unwrap_or(false),
                language: survey.default_language().as_str().to_owned(),
                register: survey.register,
                recipient: recipient(&respondent),
                finished_session: state.finished_session(respondent.id),
            });
        }
        Ok(claimed)
    }

    async fn finish_message(&self, outcome: &MessageOutcome) -> Result<bool> {
        let mut state = self.state();
        let Some(index) = state
            .messages
            .iter()
            .position(|m| m.id == outcome.id && m.claim.is_some_and(|(token, _)| token == outcome.claim_token))
        else {
            return Ok(false);
        };
        let mut event = None;
        {
            let message = &mut state.messages[index];
            message.claim = None;
            match &outcome.result {
                MessageResult::Sent { address_digest, acknowledged, provider_id } => {
                    message.provider_message_id.clone_from(provider_id);
                    message.status = MessageStatus::Sent;
                    message.attempts += 1;
                    message.sent_at = Some(outcome.at);
                    message.address_digest = Some(address_digest.clone());
                    event.clone_from(acknowledged);
                }
                MessageResult::Retry { due_at, code } => {
                    message.attempts += 1;
                    message.due_at = *due_at;
                    message.reason = Some(code.clone());
                }
                MessageResult::Held { due_at } => message.due_at = *due_at,
                MessageResult::Failed { code, address_digest } => {
                    message.status = MessageStatus::Failed;
                    message.attempts += 1;
                    message.reason = Some(code.clone());
                    message.address_digest.clone_from(address_digest);
                }
                MessageResult::Suppressed { reason } => {
                    message.status = MessageStatus::Suppressed;
                    message.reason = Some(reason.as_str().to_owned());
                }
            }
        }
        if let Some(event) = event {
            state.emit(event);
        }
        Ok(true)
    }

    async fn is_opted_out(&self, workspace: WorkspaceId, address_digest: &[u8]) -> Result<bool> {
        Ok(self.state().opt_outs.iter().any(|o| o.workspace_id == workspace && o.address_digest == address_digest))
    }

    async fn record_opt_out(
        &self,
        workspace: WorkspaceId,
        address_digest: &[u8],
        _family: AddressFamily,
        _source: OptOutSource,
        _at: OffsetDateTime,
    ) -> Result<()> {
        let mut state = self.state();
        if !state.opt_outs.iter().any(|o| o.workspace_id == workspace && o.address_digest == address_digest) {
            state.opt_outs.push(OptOutRow { workspace_id: workspace, address_digest: address_digest.to_vec() });
        }
        Ok(())
    }

    async fn workspaces_that_wrote_to(&self, address_digest: &[u8]) -> Result<Vec<WorkspaceId>> {
        let state = self.state();
        let mut sent: Vec<&MessageRow> =
            state.messages.iter().filter(|m| m.address_digest.as_deref() == Some(address_digest)).collect();
        sent.sort_by_key(|m| std::cmp::Reverse(m.sent_at));
        let mut workspaces = Vec::new();
        for message in sent {
            if !workspaces.contains(&message.workspace_id) {
                workspaces.push(message.workspace_id);
            }
        }
        Ok(workspaces)
    }

    async fn recipient(&self, respondent: RespondentId) -> Result<Option<(WorkspaceId, CampaignId, Recipient)>> {
        let state = self.state();
        let Some(row) = state.respondents.iter().find(|r| r.id == respondent) else { return Ok(None) };
        let Some(campaign) = state.campaigns.get(&row.campaign_id) else { return Ok(None) };
        Ok(Some((campaign.workspace_id, campaign.id, recipient(row))))
    }

    async fn outreach_counts(&self, campaign: CampaignId, now: OffsetDateTime) -> Result<OutreachCounts> {
        Ok(self.state().outreach_counts(campaign, now))
    }

    async fn calls_under_way(&self, workspace: WorkspaceId, since: OffsetDateTime) -> Result<u64> {
        let state = self.state();
        let ended = |id: MessageId| state.calls.iter().any(|c| c.message_id == id && c.outcome.is_some());
        let under_way = state.messages.iter().filter(|m| {
            m.workspace_id == workspace
                && m.channel == DeliveryChannel::Telephony
                && m.status == MessageStatus::Sent
                && m.sent_at.is_some_and(|at| at >= since)
                && !ended(m.id)
        });
        Ok(under_way.count() as u64)
    }

    async fn call(&self, message: MessageId) -> Result<Option<CallContext>> {
        let state = self.state();
        let Some(row) = state.messages.iter().find(|m| m.id == message && m.channel == DeliveryChannel::Telephony)
        else {
            return Ok(None);
        };
        // As PostgreSQL's inner joins: a call without its respondent, campaign or workspace is
        // no call.
        let Some(respondent) = state.respondents.iter().find(|r| r.id == row.respondent_id) else {
            return Ok(None);
        };
        let Some(campaign) = state.campaigns.get(&row.campaign_id) else { return Ok(None) };
        let Some(workspace_name) =
            state.workspaces.iter().find(|w| w.id == row.workspace_id).map(|w| w.details.name.clone())
        else {
            return Ok(None);
        };
        let Some(survey) = state.surveys.get(&campaign.survey_id) else { return Ok(None) };
        let call = state.calls.iter().find(|c| c.message_id == message);
        Ok(Some(CallContext {
            message_id: message,
            workspace_id: row.workspace_id,
            workspace_name,
            campaign_id: campaign.id,
            campaign_code: campaign.code.clone(),
            campaign_name: campaign.name.clone(),
            recipient: recipient(respondent),
            placed_call_id: row.provider_message_id.clone(),
            session: call.and_then(|c| c.session.clone()),
            outcome: call.and_then(|c| c.outcome),
            audio_retention_days: campaign.delivery.audio_retention_days,
            language: survey.default_language().as_str().to_owned(),
            register: survey.register,
            finished: state.finished_session(respondent.id).is_some(),
        }))
    }

    async fn record_call(&self, update: &CallUpdate) -> Result<()> {
        let mut state = self.state();
        let index = match state.calls.iter().position(|c| c.message_id == update.message_id) {
            Some(index) => index,
            None => {
                state.calls.push(CallRow {
                    message_id: update.message_id,
                    provider_call_id: None,
                    session: None,
                    outcome: None,
                });
                state.calls.len() - 1
            }
        };
        // The first outcome stays: a status report that races the last turn changes nothing.
        if state.calls[index].outcome.is_some() {
            return Ok(());
        }
        let call = &mut state.calls[index];
        if call.provider_call_id.is_none() {
            call.provider_call_id.clone_from(&update.provider_call_id);
        }
        if call.session.is_none() {
            call.session.clone_from(&update.session);
        }
        call.outcome = update.outcome;
        if let Some(reason) = update.outcome.and_then(CallOutcome::not_reached)
            && let Some(message) = state.messages.iter_mut().find(|m| m.id == update.message_id)
        {
            message.reason = Some(reason);
        }
        if let Some(event) = &update.acknowledged {
            state.emit(event.clone());
        }
        Ok(())
    }

    async fn record_recording(&self, recording: &NewRecording) -> Result<()> {
        let mut state = self.state();
        let known = state
            .recordings
            .iter()
            .any(|r| r.message_id == recording.message_id && r.reference_digest == recording.reference_digest);
        if !known {
            state.recordings.push(RecordingRow {
                id: recording.id,
                message_id: recording.message_id,
                campaign_id: recording.campaign_id,
                reference_digest: recording.reference_digest.clone(),
                reference_sealed: Some(recording.reference_sealed.clone()),
                delete_after: recording.delete_after,
                deleted_at: None,
                attempts: 0,
                next_attempt_at: recording.delete_after,
                claimed_until: None,
            });
        }
        Ok(())
    }

    async fn claim_recordings(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<DueRecording>> {
        let mut state = self.state();
        let mut due: Vec<&mut RecordingRow> = state
            .recordings
            .iter_mut()
            .filter(|r| r.deleted_at.is_none() && r.delete_after <= now && r.next_attempt_at <= now)
            .filter(|r| r.claimed_until.is_none_or(|until| until <= now))
            .collect();
        due.sort_by_key(|r| r.next_attempt_at);
        Ok(due
            .into_iter()
            .take(limit as usize)
            .filter_map(|row| {
                row.claimed_until = Some(lease_until);
                let reference_sealed = row.reference_sealed.clone()?;
                Some(DueRecording { id: row.id, reference_sealed, attempts: row.attempts })
            })
            .collect())
    }

    async fn finish_recording(&self, recording: RecordingId, result: &RecordingResult) -> Result<()> {
        let mut state = self.state();
        let Some(row) = state.recordings.iter_mut().find(|r| r.id == recording && r.deleted_at.is_none()) else {
            return Ok(());
        };
        row.claimed_until = None;
        match result {
            RecordingResult::Deleted { at } => {
                row.deleted_at = Some(*at);
                row.reference_sealed = None;
            }
            RecordingResult::Retry { next_at, .. } => {
                row.attempts = row.attempts.saturating_add(1);
                row.next_attempt_at = *next_at;
            }
        }
        Ok(())
    }
}
