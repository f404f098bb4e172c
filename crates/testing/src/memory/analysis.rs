//! Analysis jobs, their outcomes and the results' input in memory.
use super::*;
use pulse_domain::analysis::models::{AnalysisJob, AnalysisRecord, Rejection, SessionInput};
use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::error::Result;
use pulse_domain::ids::{CampaignId, SessionId};
use pulse_domain::results::models::SessionTally;
use pulse_domain::sessions::models::{SessionFacts, SessionStatus};
use time::OffsetDateTime;
use uuid::Uuid;

impl AnalysisRepository for MemoryStore {
    async fn claim_analyses(
        &self,
        now: OffsetDateTime,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut state = self.state();
        let mut due: Vec<(OffsetDateTime, SessionId)> = state
            .analysis_jobs
            .iter()
            .filter_map(|(id, job)| job.due_at.filter(|at| *at <= now).map(|at| (at, *id)))
            .collect();
        due.sort();
        // Then analyses recorded without a tally, after every due job (as the Postgres store).
        let mut behind: Vec<SessionId> = state
            .analysis_jobs
            .iter()
            .filter(|(id, job)| {
                job.due_at.is_none() && state.analyses.contains_key(*id) && !state.tallies.contains_key(*id)
            })
            .map(|(id, _)| *id)
            .collect();
        behind.sort();
        let picked = due.into_iter().map(|(_, session)| session).chain(behind).take(limit as usize);
        Ok(state.claim_jobs(picked, lease_until))
    }

    async fn analysis_input(&self, session: SessionId) -> Result<Option<SessionInput>> {
        let state = self.state();
        let Some(row) = state.sessions.get(&session) else { return Ok(None) };
        let Some(campaign) = state.campaigns.get(&row.session.campaign_id) else { return Ok(None) };
        let (Some(completed_at), SessionStatus::Completed) = (row.completed_at, row.status) else { return Ok(None) };
        Ok(Some(SessionInput {
            facts: SessionFacts::of(session, campaign, row.session.attribution.as_ref()),
            language: row.session.language.clone(),
            started_at: row.session.started_at,
            completed_at,
            answered: row.answered(),
            total: row.session.total_questions,
            exchanges: row.exchanges,
            answers: row.answers.clone(),
            earlier: state.analyses.get(&session).map(|a| a.results.clone()).unwrap_or_default(),
            announced: state.analyses.contains_key(&session),
        }))
    }

    async fn record_analysis(
        &self,
        claim_token: Uuid,
        record: &AnalysisRecord,
        tally: &SessionTally,
    ) -> Result<Option<Option<Rejection>>> {
        let mut state = self.state();
        if state.analysis_jobs.get(&record.session).and_then(|j| j.claim) != Some(claim_token) {
            return Ok(None);
        }
        let accepted_elsewhere = state
            .analyses
            .iter()
            .filter(|(id, a)| **id != record.session && a.rejection.is_none())
            .filter(|(id, _)| state.sessions.get(id).is_some_and(|s| s.session.campaign_id == record.campaign))
            .count() as u64;
        let rejection = record.verdict.rejection.or_else(|| {
            record.max_responses.filter(|max| accepted_elsewhere >= u64::from(*max)).map(|_| Rejection::OverCapacity)
        });
        state.analyses.insert(
            record.session,
            AnalysisRow { verdict: record.verdict, rejection, results: record.results.clone() },
        );
        for answer in &tally.answers {
            for phrase in &answer.phrases {
                state
                    .result_phrases
                    .entry((record.campaign, phrase.key_digest.clone(), phrase.label_digest.clone()))
                    .or_insert_with(|| phrase.phrase_sealed.clone());
            }
        }
        state.tallies.insert(record.session, (rejection, tally.clone()));
        if let Some(event) = &record.event {
            state.emit(event.clone());
        }
        if let Some(job) = state.analysis_jobs.get_mut(&record.session) {
            job.due_at = None;
            job.claim = None;
            job.analyzed_with.clone_from(&record.analyzed_with);
        }
        Ok(Some(rejection))
    }

    async fn release_analysis(&self, session: SessionId, claim_token: Uuid, retry_at: OffsetDateTime) -> Result<()> {
        let mut state = self.state();
        if let Some(job) = state.analysis_jobs.get_mut(&session).filter(|j| j.claim == Some(claim_token)) {
            job.claim = None;
            job.due_at = Some(retry_at);
            job.attempts += 1;
        }
        Ok(())
    }

    async fn announce_analyzer(&self, analyzed_with: &str, started_at: OffsetDateTime) -> Result<()> {
        let mut state = self.state();
        if state.analyzer_in_charge.as_ref().is_none_or(|(_, since)| *since <= started_at) {
            state.analyzer_in_charge = Some((analyzed_with.to_owned(), started_at));
        }
        Ok(())
    }

    async fn claim_reanalyses(
        &self,
        analyzed_with: &str,
        lease_until: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<AnalysisJob>> {
        let mut state = self.state();
        if state.analyzer_in_charge.as_ref().is_none_or(|(with, _)| with != analyzed_with) {
            return Ok(Vec::new());
        }
        let mut stale: Vec<SessionId> = state.stale_analyses().map(|(id, _)| *id).collect();
        stale.sort();
        Ok(state.claim_jobs(stale.into_iter().take(limit as usize), lease_until))
    }

    async fn requeue_analyses(&self, campaign: CampaignId, now: OffsetDateTime) -> Result<Option<u64>> {
        let mut state = self.state();
        if !state.campaigns.contains_key(&campaign) {
            return Ok(None);
        }
        let mut queued = 0;
        for job in state.analysis_jobs.values_mut().filter(|j| j.campaign == campaign) {
            job.due_at = Some(now);
            job.claim = None;
            queued += 1;
        }
        Ok(Some(queued))
    }
}
