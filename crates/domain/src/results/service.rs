//! The partner route of aggregate results.

use crate::analysis::models::{AnalyzerInfo, decode_phrases, phrases_seal_context, redact_contacts};
use crate::error::{Error, Result};
use crate::exports::models::Transcript;
use crate::ids::{CampaignId, SessionId, WorkspaceId};
use crate::results::models::{AnalyzedSession, CampaignResults, OpenedSession, ResultsFilter, compute};
use crate::results::ports::ResultsRepository;
use crate::sessions::models::answer_seal_context;
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::tenancy::models::{Principal, Scope};
use std::collections::HashMap;

/// The partner route of results.
pub struct Results<R, C, K> {
    repo: R,
    crypto: C,
    clock: K,
    analyzer: AnalyzerInfo,
}

impl<R: ResultsRepository, C: Crypto, K: Clock> Results<R, C, K> {
    pub fn new(repo: R, crypto: C, clock: K, analyzer: AnalyzerInfo) -> Self {
        Self { repo, crypto, clock, analyzer }
    }

    /// The campaign's aggregate results, for the group the filter selects.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:results`; workspace resolution errors;
    /// `NotFound` for an unknown campaign or another workspace's; port errors.
    pub async fn results(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        filter: Option<ResultsFilter>,
    ) -> Result<CampaignResults> {
        principal.require_scope(Scope::RESULTS)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let may_quote = principal.require_scope(Scope::TRANSCRIPTS).is_ok();
        let input =
            self.repo.results_input(workspace, id, may_quote).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let opened = open_sessions(&self.crypto, input.sessions.iter().filter(|s| s.rejection.is_none()))?;
        Ok(compute(&input, &opened, filter, may_quote, &self.analyzer, self.clock.now()))
    }

    /// The whole campaign's results as an export takes them (the floor applied, no quotes) and,
    /// when `with_texts`, every accepted answer's text with contact details redacted, sorted so
    /// that no person's answers stand together; `None` for an unknown campaign or another
    /// workspace's.
    ///
    /// # Errors
    /// Port errors.
    pub async fn campaign_results(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
        with_texts: bool,
    ) -> Result<Option<(CampaignResults, Vec<Transcript>)>> {
        let Some(input) = self.repo.results_input(workspace, id, with_texts).await? else { return Ok(None) };
        let opened = open_sessions(&self.crypto, input.sessions.iter().filter(|s| s.rejection.is_none()))?;
        let results = compute(&input, &opened, None, false, &self.analyzer, self.clock.now());
        let mut transcripts: Vec<Transcript> = opened
            .values()
            .flat_map(|session| session.texts.iter())
            .map(|(question, text)| Transcript { question_id: question.clone(), text: redact_contacts(text) })
            .collect();
        transcripts.sort_by(|a, b| (&a.question_id, &a.text).cmp(&(&b.question_id, &b.text)));
        Ok(Some((results, transcripts)))
    }
}

fn open_sessions<'a, C: Crypto>(
    crypto: &C,
    sessions: impl Iterator<Item = &'a AnalyzedSession>,
) -> Result<HashMap<SessionId, OpenedSession>> {
    let mut opened = HashMap::new();
    for session in sessions {
        let mut readable = OpenedSession::default();
        for answer in &session.answers {
            if let Some(sealed) = &answer.phrases_sealed {
                let bytes = crypto.open(&phrases_seal_context(session.session, &answer.question_id), sealed)?;
                readable.phrases.insert(answer.question_id.clone(), decode_phrases(&bytes)?);
            }
            if let Some(sealed) = &answer.text_sealed {
                let bytes = crypto.open(&answer_seal_context(session.session, &answer.question_id), sealed)?;
                readable.texts.insert(answer.question_id.clone(), String::from_utf8(bytes).map_err(Error::internal)?);
            }
        }
        opened.insert(session.session, readable);
    }
    Ok(opened)
}
