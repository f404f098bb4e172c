//! The input of results in memory.

use super::*;
use pulse_domain::error::Result;
use pulse_domain::ids::{CampaignId, WorkspaceId};
use pulse_domain::results::models::{AnalyzedAnswer, AnalyzedSession, ResultsInput, Segment};
use pulse_domain::results::ports::ResultsRepository;
use pulse_domain::sessions::models::SessionStatus;

impl ResultsRepository for MemoryStore {
    async fn results_input(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        with_texts: bool,
    ) -> Result<Option<ResultsInput>> {
        let state = self.state();
        let Some(found) = state.campaigns.get(&campaign).filter(|c| c.workspace_id == workspace) else {
            return Ok(None);
        };
        let overview = state.overview(found)?;
        let mut sessions = Vec::new();
        let mut pending = 0;
        for row in state.sessions.values().filter(|s| s.session.campaign_id == campaign) {
            if row.status != SessionStatus::Completed {
                continue;
            }
            let Some(analysis) = state.analyses.get(&row.session.id) else {
                pending += 1;
                continue;
            };
            let device = row
                .session
                .attribution
                .and_then(|a| state.devices.iter().find(|d| d.id == a.device_id))
                .map(|d| &d.app);
            let answers = row
                .answers
                .iter()
                .map(|answer| {
                    let text = if with_texts { answer.text_sealed.clone() } else { None };
                    AnalyzedAnswer::new(answer.question_id.clone(), answer.rating, text, &analysis.results)
                })
                .collect();
            sessions.push(AnalyzedSession {
                session: row.session.id,
                rejection: analysis.rejection,
                duration_secs: analysis.verdict.duration_secs,
                coverage: analysis.verdict.coverage,
                segment: Segment::of_session(
                    &row.session.context,
                    row.session.tags.clone(),
                    device.map(|d| d.platform.as_str()),
                    device.map(|d| d.app_version.as_str()),
                ),
                answers,
            });
        }
        // A stable order, so results do not depend on the map's.
        sessions.sort_by_key(|s| s.session);
        Ok(Some(ResultsInput {
            campaign: overview.campaign,
            survey: overview.survey,
            counts: overview.counts,
            pending,
            sessions,
        }))
    }
}
