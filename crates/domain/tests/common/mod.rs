//! The world the domain tests run in: every service over one in-memory store, a settable clock,
//! and fakes for survey generation, launch tokens and webhook delivery; plus small helpers.

pub mod lab;

use futures_executor::block_on;
use pulse_domain::campaigns::models::{
    AudienceRowInput, BriefInput, CampaignCounts, CampaignOverview, LaunchClaims, LaunchInput, LaunchKey,
    ProvisionInput,
};
use pulse_domain::campaigns::service::{AttachedRespondent, MintedLink};
use pulse_domain::error::{ErrorCode, Result};
use pulse_domain::ids::{BusinessId, CampaignId, SessionId};
use pulse_domain::sessions::models::{AccessState, AnswerInput, StartInput, StartOutcome, StartedSession, Visit};
use pulse_domain::shared::clock::Clock;
use pulse_domain::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW, StudioClaims};
use pulse_domain::webhooks::models::{DeliveryView, PostOutcome, Subscription, SubscriptionInput};
use pulse_testing::MemoryStore;
pub use pulse_testing::contract::{Partner, SCOPES, SURVEY_URL};
use pulse_testing::fakes::fake_token;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use time::Duration;
use time::macros::datetime;
use uuid::Uuid;

/// Every service over one in-memory store, a settable clock and the fakes.
pub type World = pulse_testing::contract::World<MemoryStore>;

pub fn world() -> World {
    World::new(MemoryStore::default())
}

/// A business ("Acme") with one workspace, approved or pending, and a key reaching it.
pub fn partner(w: &World, approved: bool) -> Partner {
    block_on(w.partner_with("Acme", approved))
}

pub fn brief() -> ProvisionInput {
    ProvisionInput {
        brief: Some(BriefInput {
            intent_text: "How was the delivery today?".into(),
            question_count: Some(3),
            languages: Some(vec!["en".into(), "hi".into()]),
            ..BriefInput::default()
        }),
        ..ProvisionInput::default()
    }
}

pub fn provision(w: &World, p: &Partner, input: ProvisionInput) -> CampaignOverview {
    block_on(w.campaigns.provision(&p.principal, None, input)).expect("provisioned")
}

pub fn launch(w: &World, p: &Partner, id: CampaignId) -> Result<CampaignOverview> {
    block_on(w.campaigns.launch(&p.principal, None, id))
}

/// A launched open campaign of an approved partner.
pub fn active_open(w: &World, p: &Partner) -> CampaignOverview {
    let draft = provision(w, p, brief());
    launch(w, p, draft.campaign.id).expect("launched")
}

pub fn overview(w: &World, p: &Partner, id: CampaignId) -> CampaignOverview {
    block_on(w.campaigns.get(&p.principal, None, id)).expect("overview").overview
}

pub fn counts(w: &World, p: &Partner, id: CampaignId) -> CampaignCounts {
    overview(w, p, id).counts
}

pub fn row(external_ref: &str, email: Option<&str>) -> AudienceRowInput {
    AudienceRowInput {
        external_ref: external_ref.into(),
        name: Some("Ada".into()),
        email: email.map(str::to_owned),
        phone: None,
        time_zone: None,
    }
}

pub fn attach(w: &World, p: &Partner, id: CampaignId, rows: Vec<AudienceRowInput>) -> Vec<AttachedRespondent> {
    block_on(w.campaigns.attach_audience(&p.principal, None, id, rows)).expect("attached")
}

pub fn mint(w: &World, p: &Partner, id: CampaignId) -> Result<MintedLink> {
    let input =
        LaunchInput { campaign_id: id, external_user_ref: None, language: None, device: None, attributes: None };
    block_on(w.campaigns.mint_link(&p.principal, None, input))
}

/// The `lt` token of a `/p/<code>?lt=<token>&lang=<tag>` link.
pub fn lt_of(url: &str) -> String {
    let (_, rest) = url.split_once("?lt=").expect("an lt link");
    rest.split_once("&lang=").expect("a language").0.to_owned()
}

/// The nonce of a `/s/<code>/<nonce>` link.
pub fn nonce_of(url: &str) -> String {
    let last = url.rsplit('/').next().expect("a path");
    last.split('?').next().expect("a nonce").to_owned()
}

pub fn token_visit(token: &str) -> Visit {
    Visit { launch_token: Some(token.to_owned()), ..Visit::default() }
}

pub fn invitation_visit(nonce: &str) -> Visit {
    Visit { invitation: Some(nonce.to_owned()), ..Visit::default() }
}

pub fn start(w: &World, code: &str, visit: Visit) -> Result<StartOutcome> {
    block_on(w.respondents.start(code, StartInput { consent_given: Some(true), visit, ..StartInput::default() }))
}

pub fn started(outcome: Result<StartOutcome>) -> StartedSession {
    match outcome.expect("start") {
        StartOutcome::Started(session) => session,
        StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
    }
}

pub fn access_state(w: &World, code: &str, visit: &Visit) -> AccessState {
    block_on(w.respondents.access(code, visit, None)).expect("access").state
}

pub fn studio(business: BusinessId, permissions: &[&str]) -> StudioClaims {
    let now = datetime!(2026-01-01 10:00 UTC);
    StudioClaims {
        user_id: Uuid::new_v4(),
        business_id: business,
        permissions: permissions.iter().map(|p| (*p).to_owned()).collect(),
        issued_at: now,
        not_before: None,
        expires_at: now + Duration::HOUR,
    }
}

pub fn builder(p: &Partner) -> StudioClaims {
    studio(p.business, &[PERMISSION_VIEW, PERMISSION_BUILD])
}

pub fn create_key(w: &World, p: &Partner, campaign: CampaignId) -> (LaunchKey, String) {
    let (key, secret) = block_on(w.keys.create(&builder(p), campaign)).expect("launch key");
    (key, secret.expose_secret().to_owned())
}

/// A partner token naming `campaign` (code or id), expiring `exp_in` from now.
pub fn partner_token(w: &World, key: &LaunchKey, secret: &str, campaign: &str, jti: &str, exp_in: Duration) -> String {
    let claims = LaunchClaims {
        campaign: campaign.to_owned(),
        exp: (w.clock.now() + exp_in).unix_timestamp(),
        jti: jti.to_owned(),
        ..LaunchClaims::default()
    };
    fake_token(&key.id.to_string(), secret, &claims)
}

pub fn answer(id: &str, value: Value) -> AnswerInput {
    AnswerInput { question_id: id.into(), value }
}

pub fn code_of<T: std::fmt::Debug>(result: Result<T>) -> ErrorCode {
    result.expect_err("refused").code()
}

// Webhooks.

pub fn subscribe(w: &World, p: &Partner, event_types: &[&str]) -> (Subscription, String) {
    let input = SubscriptionInput {
        url: Some("https://hooks.example.com/pulse".into()),
        description: Some("orders".into()),
        event_types: Some(event_types.iter().map(|t| (*t).to_owned()).collect()),
    };
    let (subscription, secret) = block_on(w.webhooks.create(&p.principal, None, input)).expect("subscribed");
    (subscription, secret.expose_secret().to_owned())
}

pub fn deliveries(w: &World, p: &Partner, subscription: &Subscription) -> Vec<DeliveryView> {
    block_on(w.webhooks.deliveries(&p.principal, None, subscription.id, None, None)).expect("deliveries").items
}

pub fn finish_a_session(w: &World, campaign_code: &str) -> SessionId {
    let session = started(start(w, campaign_code, Visit::default()));
    let token = session.token.expose_secret().to_owned();
    block_on(w.respondents.answer(campaign_code, session.id, Some(&token), vec![answer("q1", json!(4))]))
        .expect("answered");
    block_on(w.respondents.complete(campaign_code, session.id, Some(&token))).expect("completed");
    session.id
}

pub fn failing(code: u16) -> PostOutcome {
    PostOutcome { status_code: Some(code), error: None, duration_ms: 3 }
}
