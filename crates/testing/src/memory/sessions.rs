//! Respondent sessions in memory.
use super::*;
use pulse_domain::campaigns::models::{CampaignStatus, not_collecting, signature_required, token_invalid};
use pulse_domain::challenges::models::challenge_required;
use pulse_domain::error::{Error, Result};
use pulse_domain::ids::{CampaignId, LaunchLinkId, SessionId, WorkspaceId};
use pulse_domain::sessions::models::{
    Completion, NewSession, Progress, SessionRecord, SessionStatus, Spend, StoredAnswer, VisitFacts, already_completed,
};
use pulse_domain::sessions::ports::SessionStore;

impl SessionStore for MemoryStore {
    async fn start_session(&self, session: &NewSession, spend: &Spend) -> Result<()> {
        // One lock for the checks and the writes: two concurrent starts cannot both spend.
        let mut state = self.state();
        let campaign = session.campaign_id;
        let Some(stored) = state.campaigns.get(&campaign) else {
            return Err(Error::internal(format!("campaign {campaign} does not exist")));
        };
        if stored.status != CampaignStatus::Active {
            return Err(not_collecting(stored.status));
        }
        if spend.is_unsigned() && stored.require_signed {
            return Err(signature_required());
        }
        if state.sessions.contains_key(&session.id) {
            return Err(Error::internal(format!("session {} exists already", session.id)));
        }
        match spend {
            Spend::Nothing => {}
            Spend::Challenge(spent) => {
                if state.spent_challenges.contains_key(&spent.fingerprint) {
                    return Err(challenge_required("the challenge was used already"));
                }
                state.spent_challenges.insert(spent.fingerprint.clone(), spent.expires_at);
            }
            Spend::Link(id) => {
                let link = state
                    .launch_links
                    .get_mut(id)
                    .filter(|l| l.campaign_id == campaign && l.usable_at(session.started_at))
                    .ok_or_else(token_invalid)?;
                link.spent_at = Some(session.started_at);
            }
            Spend::Token { key_id, jti, expires_at } => {
                let slot = (campaign, jti.clone());
                if state.spent_tokens.contains_key(&slot) {
                    return Err(token_invalid());
                }
                state.spent_tokens.insert(slot, *expires_at);
                if let Some(key) = state.launch_keys.iter_mut().find(|k| k.id == *key_id && k.campaign_id == campaign) {
                    key.last_used_at = Some(session.started_at);
                }
            }
        }
        if let Some(attribution) = &session.attribution {
            if let Some(device) = state.devices.iter_mut().find(|d| d.id == attribution.device_id) {
                device.activity.feedback_count += 1;
            }
            if let Some(install) = state.installs.iter_mut().find(|i| Some(i.id) == attribution.install_id) {
                install.activity.feedback_count += 1;
            }
        }
        let row = SessionRow {
            session: session.clone(),
            status: SessionStatus::Started,
            completed_at: None,
            answers: vec![],
            exchanges: 0,
        };
        state.sessions.insert(session.id, row);
        Ok(())
    }

    async fn visit_facts(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        spent_link: Option<LaunchLinkId>,
    ) -> Result<VisitFacts> {
        let state = self.state();
        let asked_by = state
            .workspaces
            .iter()
            .find(|w| w.id == workspace)
            .map(|w| w.details.name.clone())
            .ok_or_else(|| Error::not_found("workspace"))?;
        let link_answered = spent_link.is_some_and(|link| {
            state.sessions.values().any(|s| {
                s.session.campaign_id == campaign
                    && s.session.launch_link_id == Some(link)
                    && s.status == SessionStatus::Completed
            })
        });
        Ok(VisitFacts { asked_by, link_answered })
    }

    async fn completed_sessions(&self, campaign: CampaignId) -> Result<u64> {
        let state = self.state();
        Ok(state
            .sessions
            .values()
            .filter(|s| s.session.campaign_id == campaign && s.status == SessionStatus::Completed)
            .count() as u64)
    }

    async fn find_session(&self, campaign: CampaignId, id: SessionId) -> Result<Option<SessionRecord>> {
        Ok(self.state().sessions.get(&id).filter(|s| s.session.campaign_id == campaign).map(SessionRow::record))
    }

    async fn record_answers(&self, session: SessionId, answers: &[StoredAnswer]) -> Result<Progress> {
        let mut state = self.state();
        let row = state.session_mut(session)?;
        if row.status == SessionStatus::Completed {
            return Err(already_completed());
        }
        row.exchanges = row.exchanges.saturating_add(u32::try_from(answers.len()).unwrap_or(u32::MAX));
        for answer in answers {
            match row.answers.iter_mut().find(|a| a.question_id == answer.question_id) {
                Some(earlier) => *earlier = answer.clone(),
                None => row.answers.push(answer.clone()),
            }
        }
        Ok(row.progress())
    }

    async fn complete_session(&self, completion: &Completion) -> Result<Progress> {
        let mut state = self.state();
        let row = state.session_mut(completion.facts.session)?;
        if row.status != SessionStatus::Started {
            return Ok(row.progress());
        }
        row.status = SessionStatus::Completed;
        row.completed_at = Some(completion.at);
        let progress = row.progress();
        for event in completion.events(&progress) {
            state.emit(event);
        }
        let job = AnalysisJobRow {
            campaign: completion.facts.campaign,
            due_at: Some(completion.at),
            claim: None,
            attempts: 0,
            analyzed_with: None,
        };
        state.analysis_jobs.insert(completion.facts.session, job);
        Ok(progress)
    }
}
