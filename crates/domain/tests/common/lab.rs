//! A lab for analysis and results: the world plus the analysis worker and the results service
//! over a fake analyzer.

use super::*;
use futures_executor::block_on;
use pulse_domain::analysis::ports::Analyzer;
use pulse_domain::analysis::service::Analysis;
use pulse_domain::campaigns::models::{LaunchInput, ProvisionInput, QualityInput};
use pulse_domain::ids::{CampaignId, SessionId};
use pulse_domain::results::models::ResultsFilter;
use pulse_domain::results::service::Results;
use pulse_domain::shared::clock::SettableClock;
use pulse_domain::tenancy::service::KeyRequest;
use pulse_testing::MemoryStore;
use pulse_testing::fakes::{FakeAnalyzer, TestCrypto};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use time::Duration;

pub struct Lab {
    pub w: World,
    pub analysis: Analysis<MemoryStore, FakeAnalyzer, TestCrypto, SettableClock>,
    pub results: Results<MemoryStore, TestCrypto, SettableClock>,
}

pub fn lab() -> Lab {
    lab_with_version("1")
}

pub fn lab_with_version(version: &'static str) -> Lab {
    let w = world();
    let analyzer = FakeAnalyzer { version };
    let results = Results::new(w.store.clone(), TestCrypto::default(), w.clock.clone(), analyzer.info());
    let analysis = Analysis::new(w.store.clone(), analyzer, TestCrypto::default(), w.clock.clone());
    Lab { w, analysis, results }
}

/// A partner whose key also holds `channel:transcripts`.
pub fn quoting_partner(w: &World) -> Partner {
    partner_with_extra_scopes(w, &["channel:transcripts"])
}

/// A partner whose key also has `extra` scopes, reaching the same workspace.
pub fn partner_with_extra_scopes(w: &World, extra: &[&str]) -> Partner {
    let p = partner(w, true);
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: SCOPES.iter().chain(extra).map(|s| (*s).to_owned()).collect(),
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = block_on(w.admin.create_key(request)).expect("key");
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    Partner { principal, ..p }
}

pub fn campaign_with(w: &World, p: &Partner, quality: QualityInput) -> pulse_domain::campaigns::models::Campaign {
    let draft = provision(w, p, ProvisionInput { quality: Some(quality), ..brief() });
    launch(w, p, draft.campaign.id).expect("launched").campaign
}

/// Starts a session from a minted link carrying `attributes`, answers, waits `secs` and completes.
pub fn respond(
    w: &World,
    p: &Partner,
    campaign: &pulse_domain::campaigns::models::Campaign,
    rating: i64,
    text: &str,
    secs: i64,
) -> SessionId {
    respond_with(w, p, campaign, &[("plan", "pro")], &[("q1", json!(rating)), ("q2", json!(text))], secs)
}

pub fn respond_with(
    w: &World,
    p: &Partner,
    campaign: &pulse_domain::campaigns::models::Campaign,
    attributes: &[(&str, &str)],
    answers: &[(&str, Value)],
    secs: i64,
) -> SessionId {
    let begun = begin(w, p, campaign, attributes, answers);
    w.clock.advance(Duration::seconds(secs));
    finish(w, campaign, &begun)
}

pub fn begin(
    w: &World,
    p: &Partner,
    campaign: &pulse_domain::campaigns::models::Campaign,
    attributes: &[(&str, &str)],
    answers: &[(&str, Value)],
) -> (SessionId, String) {
    let input = LaunchInput {
        campaign_id: campaign.id,
        external_user_ref: None,
        language: None,
        device: Some([("platform".to_owned(), json!("ios"))].into_iter().collect()),
        attributes: Some(attributes.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect()),
    };
    let link = block_on(w.campaigns.mint_link(&p.principal, None, input)).expect("minted");
    let session = started(start(w, &campaign.code, token_visit(&lt_of(&link.url))));
    let token = session.token.expose_secret().to_owned();
    let answers = answers.iter().map(|(q, v)| answer(q, v.clone())).collect();
    block_on(w.respondents.answer(&campaign.code, session.id, Some(&token), answers)).expect("answered");
    (session.id, token)
}

pub fn finish(
    w: &World,
    campaign: &pulse_domain::campaigns::models::Campaign,
    (session, token): &(SessionId, String),
) -> SessionId {
    block_on(w.respondents.complete(&campaign.code, *session, Some(token))).expect("completed");
    *session
}

pub fn results_of(
    l: &Lab,
    p: &Partner,
    id: CampaignId,
    filter: &[(&str, &str)],
) -> pulse_domain::results::models::CampaignResults {
    let params: Vec<(String, String)> = filter.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
    let filter = ResultsFilter::parse(&params).expect("filter");
    block_on(l.results.results(&p.principal, None, id, filter)).expect("results")
}
