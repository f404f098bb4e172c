//! Surveys, campaigns, respondents, launch links and launch keys in memory.
use super::*;
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::campaigns::models::{
    AudienceMode, Campaign, CampaignOverview, CampaignStatus, ClearRef, DigestedRef, LAUNCH_KEY_SLOTS, LaunchContext,
    LaunchKey, LaunchLink, ListedCampaign, NewRespondent, RowOutcome, Survey, UpsertedRespondent, not_collecting,
};
use pulse_domain::campaigns::ports::{CampaignRepository, LaunchRepository};
use pulse_domain::error::{Error, ErrorCode, Result};
use pulse_domain::ids::{BusinessId, CampaignId, LaunchKeyId, LaunchLinkId, RespondentId, SurveyId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use time::OffsetDateTime;

impl CampaignRepository for MemoryStore {
    async fn create_campaign(&self, survey: Option<&Survey>, campaign: &Campaign) -> Result<()> {
        let mut state = self.state();
        if state.campaigns.values().any(|c| c.code == campaign.code) {
            return Err(Error::refused(ErrorCode::Conflict, "campaign code taken"));
        }
        // What foreign keys and primary keys enforce in a database: checked before anything is
        // written, so a refused call changes nothing.
        if state.campaigns.contains_key(&campaign.id) {
            return Err(Error::internal(format!("campaign {} exists already", campaign.id)));
        }
        if !state.workspaces.iter().any(|w| w.id == campaign.workspace_id) {
            return Err(Error::internal(format!("workspace {} does not exist", campaign.workspace_id)));
        }
        match survey {
            Some(survey) => {
                if survey.id != campaign.survey_id || survey.workspace_id != campaign.workspace_id {
                    return Err(Error::internal("the new survey does not belong to the campaign"));
                }
                if state.surveys.contains_key(&survey.id) {
                    return Err(Error::internal(format!("survey {} exists already", survey.id)));
                }
            }
            None if !state.surveys.contains_key(&campaign.survey_id) => {
                return Err(Error::internal(format!("survey {} does not exist", campaign.survey_id)));
            }
            None => {}
        }
        if let Some(survey) = survey {
            state.surveys.insert(survey.id, survey.clone());
        }
        state.campaigns.insert(campaign.id, campaign.clone());
        state.last_position += 1;
        let position = state.last_position;
        state.campaign_positions.insert(campaign.id, position);
        Ok(())
    }

    async fn find_survey(&self, workspace: WorkspaceId, id: SurveyId) -> Result<Option<Survey>> {
        Ok(self.state().surveys.get(&id).filter(|s| s.workspace_id == workspace).cloned())
    }

    async fn campaign_overview(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<CampaignOverview>> {
        let state = self.state();
        state.campaigns.get(&id).filter(|c| c.workspace_id == workspace).map(|c| state.overview(c)).transpose()
    }

    async fn find_campaign(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<(Campaign, Survey)>> {
        let state = self.state();
        state
            .campaigns
            .get(&id)
            .filter(|c| c.workspace_id == workspace)
            .map(|c| Ok((c.clone(), state.survey_of(c)?)))
            .transpose()
    }

    async fn find_campaign_by_code(&self, code: &str) -> Result<Option<(Campaign, Survey)>> {
        let state = self.state();
        state.campaigns.values().find(|c| c.code == code).map(|c| Ok((c.clone(), state.survey_of(c)?))).transpose()
    }

    async fn find_campaign_in_business(&self, business: BusinessId, id: CampaignId) -> Result<Option<Campaign>> {
        let state = self.state();
        Ok(state
            .campaigns
            .get(&id)
            .filter(|c| state.workspaces.iter().any(|w| w.id == c.workspace_id && w.business_id == business))
            .cloned())
    }

    async fn list_campaigns(
        &self,
        workspace: WorkspaceId,
        status: Option<CampaignStatus>,
        page: &PageRequest,
    ) -> Result<Vec<ListedCampaign>> {
        let state = self.state();
        let after = page.after.map_or(0, |k| k.position);
        let mut listed: Vec<ListedCampaign> = state
            .campaigns
            .values()
            .filter(|c| c.workspace_id == workspace && status.is_none_or(|s| c.status == s))
            .filter_map(|c| {
                let position = *state.campaign_positions.get(&c.id)?;
                (position > after).then(|| ListedCampaign { campaign: c.clone(), position })
            })
            .collect();
        listed.sort_by_key(|c| c.position);
        listed.truncate(usize::try_from(page.limit).unwrap_or(usize::MAX) + 1);
        Ok(listed)
    }

    async fn change_campaign_status(
        &self,
        id: CampaignId,
        from: &[CampaignStatus],
        to: CampaignStatus,
        at: OffsetDateTime,
        audit: Option<&AuditEntry>,
    ) -> Result<Option<Campaign>> {
        let mut state = self.state();
        let Some(campaign) = state.campaigns.get_mut(&id).filter(|c| from.contains(&c.status)) else {
            return Ok(None);
        };
        campaign.status = to;
        if to == CampaignStatus::Active && campaign.launched_at.is_none() {
            campaign.launched_at = Some(at);
        }
        if to == CampaignStatus::Closed {
            campaign.closed_at = Some(at);
        }
        let changed = campaign.clone();
        if let Some(audit) = audit {
            state.audit(audit);
        }
        Ok(Some(changed))
    }

    async fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
        audit: &AuditEntry,
    ) -> Result<Vec<UpsertedRespondent>> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&campaign) {
            return Err(Error::internal(format!("campaign {campaign} does not exist")));
        }
        let mut upserted = Vec::with_capacity(rows.len());
        for row in rows {
            let existing = state.respondents.iter().position(|r| {
                r.campaign_id == campaign && r.reference.as_ref().is_some_and(|(digest, _)| *digest == row.ref_digest)
            });
            if let Some(index) = existing {
                let stored = &mut state.respondents[index];
                // Fields left out keep their stored values (docs/campaigns.md).
                let keep_or_replace = |stored: &mut Option<Vec<u8>>, sent: &Option<Vec<u8>>| {
                    if sent.is_some() {
                        stored.clone_from(sent);
                    }
                };
                keep_or_replace(&mut stored.name_sealed, &row.name_sealed);
                keep_or_replace(&mut stored.email_sealed, &row.email_sealed);
                keep_or_replace(&mut stored.phone_sealed, &row.phone_sealed);
                keep_or_replace(&mut stored.time_zone_sealed, &row.time_zone_sealed);
                let stored = stored.clone();
                let responded =
                    state.sessions.values().any(|s| s.session.launch_link_id == Some(stored.invitation_link));
                upserted.push(UpsertedRespondent {
                    id: stored.id,
                    outcome: RowOutcome::Updated,
                    // Only an erased respondent has none, and it has no digest to match.
                    invitation_sealed: stored
                        .invitation_sealed
                        .ok_or_else(|| Error::internal("an upserted respondent is missing"))?,
                    responded,
                });
            } else {
                let link = LaunchLink {
                    id: LaunchLinkId::new_random(),
                    campaign_id: campaign,
                    nonce_digest: Some(row.invitation_digest.clone()),
                    respondent_id: Some(row.id),
                    language: None,
                    external_user_digest: None,
                    context: LaunchContext::default(),
                    expires_at: None,
                    spent_at: None,
                    created_at: row.at,
                };
                state.respondents.push(RespondentRow {
                    id: row.id,
                    campaign_id: campaign,
                    reference: Some((row.ref_digest.clone(), row.ref_sealed.clone())),
                    name_sealed: row.name_sealed.clone(),
                    email_sealed: row.email_sealed.clone(),
                    phone_sealed: row.phone_sealed.clone(),
                    time_zone_sealed: row.time_zone_sealed.clone(),
                    invitation_sealed: Some(row.invitation_sealed.clone()),
                    invitation_link: link.id,
                    responded: false,
                });
                state.launch_links.insert(link.id, link);
                upserted.push(UpsertedRespondent {
                    id: row.id,
                    outcome: RowOutcome::Created,
                    invitation_sealed: row.invitation_sealed.clone(),
                    responded: false,
                });
            }
        }
        if let Some(c) = state.campaigns.get_mut(&campaign)
            && c.status == CampaignStatus::Draft
            && !rows.is_empty()
        {
            c.audience = AudienceMode::Closed;
        }
        state.audit(audit);
        Ok(upserted)
    }

    async fn clear_refs(&self, _after: Option<RespondentId>, _limit: usize) -> Result<Vec<ClearRef>> {
        // Rows here are written with digests from the start.
        Ok(Vec::new())
    }

    async fn store_digested_refs(&self, _refs: &[DigestedRef]) -> Result<usize> {
        Ok(0)
    }
}

impl LaunchRepository for MemoryStore {
    async fn active_launch_keys(&self, campaign: CampaignId) -> Result<Vec<LaunchKey>> {
        let mut keys: Vec<LaunchKey> = self
            .state()
            .launch_keys
            .iter()
            .filter(|k| k.campaign_id == campaign && k.revoked_at.is_none())
            .cloned()
            .collect();
        keys.sort_by_key(|k| k.slot);
        Ok(keys)
    }

    async fn find_launch_key(&self, campaign: CampaignId, id: LaunchKeyId) -> Result<Option<LaunchKey>> {
        Ok(self
            .state()
            .launch_keys
            .iter()
            .find(|k| k.id == id && k.campaign_id == campaign && k.revoked_at.is_none())
            .cloned())
    }

    async fn insert_launch_key(&self, key: &LaunchKey) -> Result<LaunchKey> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&key.campaign_id) {
            return Err(Error::internal(format!("campaign {} does not exist", key.campaign_id)));
        }
        if state.launch_keys.iter().any(|k| k.id == key.id) {
            return Err(Error::internal(format!("launch key {} exists already", key.id)));
        }
        let taken = |slot: u8| {
            state
                .launch_keys
                .iter()
                .any(|k| k.campaign_id == key.campaign_id && k.revoked_at.is_none() && k.slot == slot)
        };
        let Some(slot) = (1..=LAUNCH_KEY_SLOTS).find(|s| !taken(*s)) else {
            return Err(Error::refused(
                ErrorCode::LaunchKeySlotsFull,
                "every launch-key slot holds an active key; revoke one first",
            ));
        };
        let stored = LaunchKey { slot, ..key.clone() };
        state.launch_keys.push(stored.clone());
        Ok(stored)
    }

    async fn revoke_launch_key(&self, campaign: CampaignId, id: LaunchKeyId, at: OffsetDateTime) -> Result<bool> {
        Ok(self
            .state()
            .launch_keys
            .iter_mut()
            .find(|k| k.id == id && k.campaign_id == campaign && k.revoked_at.is_none())
            .map(|k| k.revoked_at = Some(at))
            .is_some())
    }

    async fn set_require_signed(&self, campaign: CampaignId, required: bool) -> Result<()> {
        if let Some(c) = self.state().campaigns.get_mut(&campaign) {
            c.require_signed = required;
        }
        Ok(())
    }

    async fn insert_launch_link(&self, link: &LaunchLink) -> Result<()> {
        let mut state = self.state();
        if state.launch_links.contains_key(&link.id) {
            return Err(Error::internal(format!("launch link {} exists already", link.id)));
        }
        // A campaign gone since the service read it (its workspace erased) is closed.
        match state.campaigns.get(&link.campaign_id).map(|c| c.status) {
            Some(CampaignStatus::Active) => {}
            status => return Err(not_collecting(status.unwrap_or(CampaignStatus::Closed))),
        }
        state.launch_links.insert(link.id, link.clone());
        Ok(())
    }

    async fn find_launch_link(&self, campaign: CampaignId, id: LaunchLinkId) -> Result<Option<LaunchLink>> {
        Ok(self.state().launch_links.get(&id).filter(|l| l.campaign_id == campaign).cloned())
    }

    async fn find_link_by_nonce(&self, campaign: CampaignId, nonce_digest: &[u8]) -> Result<Option<LaunchLink>> {
        Ok(self
            .state()
            .launch_links
            .values()
            .find(|l| l.campaign_id == campaign && l.nonce_digest.as_deref() == Some(nonce_digest))
            .cloned())
    }

    async fn token_spent(&self, campaign: CampaignId, jti: &str) -> Result<bool> {
        Ok(self.state().spent_tokens.contains_key(&(campaign, jti.to_owned())))
    }

    async fn purge_spent_tokens(&self, before: OffsetDateTime) -> Result<u64> {
        let mut state = self.state();
        let len = state.spent_tokens.len() + state.spent_challenges.len();
        state.spent_tokens.retain(|_, expires_at| *expires_at >= before);
        state.spent_challenges.retain(|_, expires_at| *expires_at >= before);
        Ok((len - state.spent_tokens.len() - state.spent_challenges.len()) as u64)
    }
}
