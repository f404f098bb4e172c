//! The input of results in memory: every analyzed session, or the sums of their tallies.

use super::*;
use pulse_domain::error::Result;
use pulse_domain::ids::{CampaignId, WorkspaceId};
use pulse_domain::results::models::{
    AnalyzedAnswer, AnalyzedSession, ConditionCells, Count, DayTally, Dimension, GroupSize, GroupTally, QuoteRow,
    ResultsFilter, ResultsInput, Segment, StoredPhrase, TalliedInput, ThemeShare, TrendInput, cell_of, group_sizes,
    merge_counts, merge_themes, trend_metrics,
};
use pulse_domain::results::ports::ResultsRepository;
use pulse_domain::sessions::models::SessionStatus;
use pulse_domain::shared::time_zone::ZoneOffsets;
use std::collections::BTreeMap;

impl State {
    /// The session's segment, with its app device's labels as they are now.
    fn segment_of(&self, row: &SessionRow) -> Segment {
        let device =
            row.session.attribution.and_then(|a| self.devices.iter().find(|d| d.id == a.device_id)).map(|d| &d.app);
        Segment::of_session(
            &row.session.context,
            row.session.tags.clone(),
            Some(row.session.language.as_str()),
            device.map(|d| d.platform.as_str()),
            device.map(|d| d.app_version.as_str()),
        )
    }
}

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
                segment: state.segment_of(row),
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
            pending_reanalysis: state.pending_reanalysis(campaign),
            sessions,
        }))
    }

    async fn results_tally(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        with_quotes: bool,
    ) -> Result<Option<TalliedInput>> {
        let state = self.state();
        let Some(found) = state.campaigns.get(&campaign).filter(|c| c.workspace_id == workspace) else {
            return Ok(None);
        };
        let overview = state.overview(found)?;
        let mut tally = GroupTally::default();
        let mut counts = Vec::new();
        let mut shares: Vec<Vec<ThemeShare>> = Vec::new();
        let mut tallied = 0_u64;
        let conditions = filter.map(ResultsFilter::conditions).unwrap_or_default();
        for row in state.sessions.values().filter(|s| s.session.campaign_id == campaign) {
            let Some((rejection, session)) = state.tallies.get(&row.session.id) else { continue };
            tallied += 1;
            let segment = state.segment_of(row);
            if rejection.is_none() {
                tally.all_accepted += 1;
                if filter.is_some() {
                    *tally.cells.entry(cell_of(&conditions, &segment)).or_default() += 1;
                }
            }
            if filter.is_some_and(|f| !f.matches(&segment)) {
                continue;
            }
            counts.extend(session.counts(*rejection));
            if rejection.is_some() {
                continue;
            }
            shares.push(session.themes());
            if with_quotes {
                for answer in &session.answers {
                    let Some(quote) = &answer.quote else { continue };
                    if answer.score.is_some() {
                        tally.scored_quotes.insert(answer.question_id.clone());
                    }
                    tally.quotes.push(QuoteRow {
                        question_id: answer.question_id.clone(),
                        session: row.session.id,
                        score: answer.score,
                        sealed: quote.sealed.clone(),
                    });
                }
            }
        }
        tally.all_analyzed = tallied;
        tally.counts = merge_counts(counts);
        tally.themes = merge_themes(shares.iter().map(Vec::as_slice));
        Ok(Some(TalliedInput {
            pending: overview.counts.completed.saturating_sub(tallied),
            pending_reanalysis: state.pending_reanalysis(campaign),
            campaign: overview.campaign,
            survey: overview.survey,
            counts: overview.counts,
            tally,
        }))
    }

    async fn result_groups(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        by: &Dimension,
        filter: Option<&ResultsFilter>,
    ) -> Result<Vec<GroupSize>> {
        let state = self.state();
        if state.campaigns.get(&campaign).is_none_or(|c| c.workspace_id != workspace) {
            return Ok(Vec::new());
        }
        let segments: Vec<Segment> = state
            .sessions
            .values()
            .filter(|row| row.session.campaign_id == campaign)
            .filter(|row| state.tallies.get(&row.session.id).is_some_and(|(rejection, _)| rejection.is_none()))
            .map(|row| state.segment_of(row))
            .filter(|segment| filter.is_none_or(|f| f.matches(segment)))
            .collect();
        Ok(group_sizes(&segments, by))
    }

    async fn trend_days(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        filter: Option<&ResultsFilter>,
        offsets: &ZoneOffsets,
    ) -> Result<Option<TrendInput>> {
        let state = self.state();
        let Some(found) = state.campaigns.get(&campaign).filter(|c| c.workspace_id == workspace) else {
            return Ok(None);
        };
        let overview = state.overview(found)?;
        let conditions = filter.map(ResultsFilter::conditions).unwrap_or_default();
        let metrics = trend_metrics();
        let mut days: BTreeMap<jiff::civil::Date, (ConditionCells, Vec<Count>)> = BTreeMap::new();
        for row in state.sessions.values().filter(|s| s.session.campaign_id == campaign) {
            let Some((None, session)) = state.tallies.get(&row.session.id) else { continue };
            let Some(completed) = row.completed_at else { continue };
            let segment = state.segment_of(row);
            let (cells, counts) = days.entry(offsets.local_day(completed.unix_timestamp())).or_default();
            *cells.entry(cell_of(&conditions, &segment)).or_default() += 1;
            if filter.is_none_or(|f| f.matches(&segment)) {
                counts.extend(session.counts(None).into_iter().filter(|c| metrics.contains(&c.metric)));
            }
        }
        let days = days
            .into_iter()
            .map(|(day, (cells, counts))| DayTally { day, cells, counts: merge_counts(counts) })
            .collect();
        Ok(Some(TrendInput { campaign: overview.campaign, survey: overview.survey, days }))
    }

    async fn result_phrases(&self, campaign: CampaignId, wanted: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<StoredPhrase>> {
        let state = self.state();
        Ok(wanted
            .iter()
            .filter_map(|(key, label)| {
                let sealed = state.result_phrases.get(&(campaign, key.clone(), label.clone()))?;
                Some(StoredPhrase { key_digest: key.clone(), label_digest: label.clone(), sealed: sealed.clone() })
            })
            .collect())
    }
}
