//! Tests of the campaign, respondent and launch-key services over the in-memory adapters, with a
//! fake survey generator and a fake (unsigned, plain-text) launch-token codec.

use futures_executor::block_on;
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::apps::{
    Apps, DeviceStatus, HEARTBEAT_RATE, HeartbeatInput, Identity, RegisterInput, Registration, UserInput,
};
use crate::audience::{AudienceRowInput, RowOutcome};
use crate::campaign::{
    AudienceMode, BriefInput, CampaignCounts, CampaignOverview, CampaignStatus, DeliveryChannel, DeliveryInput,
    ProvisionInput,
};
use crate::clock::{Clock, SettableClock};
use crate::error::{ErrorCode, Result};
use crate::ids::{BusinessId, CampaignId, SessionId, WorkspaceId};
use crate::launch::{LINK_LIFETIME, LaunchClaims, LaunchInput, LaunchKey, LaunchTokenCodec, SERVER_KID};
use crate::launch_keys::LaunchKeys;
use crate::memory::{MemoryStore, RecordingTransport, TestCrypto};
use crate::ports::{CampaignRepository, LaunchRepository};
use crate::provisioning::{AttachedRespondent, Campaigns, MintedLink};
use crate::respondents::{AccessState, NotStarted, Respondents, StartInput, StartOutcome, StartedSession, Visit};
use crate::services::{Admin, KeyRequest, Tenancy};
use crate::session::{AnswerInput, Progress, SessionStatus};
use crate::studio::{PERMISSION_BUILD, PERMISSION_VIEW, StudioClaims};
use crate::survey::{Brief, GeneratedSurvey, QuestionDraft, QuestionKind, SurveyGenerator};
use crate::tenancy::{Principal, WorkspaceInput};
use crate::webhooks::{
    DISABLE_AFTER_DEAD, DeliveryStatus, DeliveryView, Dispatcher, PostOutcome, RetrySchedule, SECRET_PREFIX,
    Subscription, SubscriptionInput, SubscriptionPatch, Webhooks,
};

const SURVEY_URL: &str = "https://survey.example";
const SERVER_SECRET: &str = "server-secret";
const SCOPES: [&str; 6] = [
    "channel:provision",
    "channel:audience",
    "sessions:launch",
    "channel:results",
    "channel:workspaces",
    "channel:webhooks",
];

/// Question `q1` is a required 1 to 5 rating; the rest are optional open questions.
struct FakeGenerator;

impl SurveyGenerator for FakeGenerator {
    async fn generate(&self, brief: &Brief) -> Result<GeneratedSurvey> {
        let questions = (0..brief.question_count)
            .map(|i| QuestionDraft {
                kind: if i == 0 { QuestionKind::Rating { min: 1, max: 5 } } else { QuestionKind::Text },
                required: i == 0,
                texts: brief.languages.iter().map(|l| (l.clone(), format!("question {i} in {l}"))).collect(),
            })
            .collect();
        Ok(GeneratedSurvey { title: "Delivery survey".into(), questions })
    }
}

/// Tokens are `<kid>|<secret>|<claims as JSON>`: "verifying" compares the embedded secret.
struct FakeTokens;

fn fake_token(kid: &str, secret: &str, claims: &LaunchClaims) -> String {
    let body = json!({"campaign": claims.campaign, "exp": claims.exp, "jti": claims.jti, "lang": claims.lang});
    format!("{kid}|{secret}|{body}")
}

fn parse_token(token: &str) -> Option<(&str, &str, LaunchClaims)> {
    let mut parts = token.splitn(3, '|');
    let (kid, secret) = (parts.next()?, parts.next()?);
    let body: Value = serde_json::from_str(parts.next()?).ok()?;
    let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    let claims = LaunchClaims {
        campaign: text("campaign")?,
        exp: body.get("exp")?.as_i64()?,
        jti: text("jti")?,
        lang: text("lang"),
        ..LaunchClaims::default()
    };
    Some((kid, secret, claims))
}

impl LaunchTokenCodec for FakeTokens {
    fn key_id(&self, token: &str) -> Option<String> {
        parse_token(token).map(|(kid, _, _)| kid.to_owned()).filter(|kid| !kid.is_empty())
    }

    fn verify(&self, token: &str, secret: &[u8]) -> Option<LaunchClaims> {
        parse_token(token).filter(|(_, s, _)| s.as_bytes() == secret).map(|(_, _, claims)| claims)
    }

    fn sign_link(&self, claims: &LaunchClaims) -> Result<String> {
        Ok(fake_token(SERVER_KID, SERVER_SECRET, claims))
    }

    fn verify_link(&self, token: &str) -> Option<LaunchClaims> {
        parse_token(token).filter(|(kid, s, _)| *kid == SERVER_KID && *s == SERVER_SECRET).map(|(_, _, claims)| claims)
    }
}

struct World {
    store: MemoryStore,
    clock: SettableClock,
    admin: Admin<MemoryStore, TestCrypto, SettableClock>,
    tenancy: Tenancy<MemoryStore, TestCrypto, SettableClock>,
    campaigns: Campaigns<MemoryStore, FakeGenerator, TestCrypto, SettableClock, FakeTokens>,
    respondents: Respondents<MemoryStore, TestCrypto, SettableClock, FakeTokens>,
    keys: LaunchKeys<MemoryStore, TestCrypto, SettableClock>,
    apps: Apps<MemoryStore, TestCrypto, SettableClock>,
    webhooks: Webhooks<MemoryStore, TestCrypto, SettableClock, RecordingTransport>,
    dispatcher: Dispatcher<MemoryStore, TestCrypto, SettableClock, RecordingTransport>,
    transport: RecordingTransport,
}

fn world() -> World {
    let store = MemoryStore::default();
    let crypto = TestCrypto::default();
    let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
    let transport = RecordingTransport::default();
    World {
        webhooks: Webhooks::new(store.clone(), crypto.clone(), clock.clone(), transport.clone(), false),
        dispatcher: Dispatcher::new(
            store.clone(),
            crypto.clone(),
            clock.clone(),
            transport.clone(),
            RetrySchedule::default(),
            Duration::seconds(70),
        ),
        transport,
        admin: Admin::new(store.clone(), crypto.clone(), clock.clone()),
        tenancy: Tenancy::new(store.clone(), crypto.clone(), clock.clone(), 3),
        campaigns: Campaigns::new(store.clone(), FakeGenerator, crypto.clone(), clock.clone(), FakeTokens, SURVEY_URL),
        respondents: Respondents::new(store.clone(), crypto.clone(), clock.clone(), FakeTokens),
        keys: LaunchKeys::new(store.clone(), crypto.clone(), clock.clone()),
        apps: Apps::new(store.clone(), crypto, clock.clone(), Some(HEARTBEAT_RATE)),
        store,
        clock,
    }
}

/// A business with one workspace and a key reaching it.
struct Partner {
    principal: Principal,
    workspace: WorkspaceId,
    business: BusinessId,
}

fn partner(w: &World, approved: bool) -> Partner {
    let business = block_on(w.admin.create_business("Acme")).expect("business");
    let request = KeyRequest {
        business_id: Some(business.id),
        scopes: SCOPES.iter().map(|s| (*s).to_owned()).collect(),
        ..KeyRequest::default()
    };
    let issued = block_on(w.admin.create_key(request)).expect("key");
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    let input = WorkspaceInput { external_ref: "client-1".into(), name: "Client".into(), ..WorkspaceInput::default() };
    let (workspace, _) = block_on(w.tenancy.create_workspace(&principal, &input)).expect("workspace");
    if approved {
        block_on(w.admin.approve_workspace(workspace.id)).expect("approved");
    }
    // The allowlist grew with the workspace: authenticate again to see it.
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    Partner { principal, workspace: workspace.id, business: business.id }
}

fn brief() -> ProvisionInput {
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

fn provision(w: &World, p: &Partner, input: ProvisionInput) -> CampaignOverview {
    block_on(w.campaigns.provision(&p.principal, None, input)).expect("provisioned")
}

fn launch(w: &World, p: &Partner, id: CampaignId) -> Result<CampaignOverview> {
    block_on(w.campaigns.launch(&p.principal, None, id))
}

/// A launched open campaign of an approved partner.
fn active_open(w: &World, p: &Partner) -> CampaignOverview {
    let draft = provision(w, p, brief());
    launch(w, p, draft.campaign.id).expect("launched")
}

fn overview(w: &World, p: &Partner, id: CampaignId) -> CampaignOverview {
    block_on(w.campaigns.get(&p.principal, None, id)).expect("overview")
}

fn counts(w: &World, p: &Partner, id: CampaignId) -> CampaignCounts {
    overview(w, p, id).counts
}

fn row(external_ref: &str, email: Option<&str>) -> AudienceRowInput {
    AudienceRowInput {
        external_ref: external_ref.into(),
        name: Some("Ada".into()),
        email: email.map(str::to_owned),
        phone: None,
    }
}

fn attach(w: &World, p: &Partner, id: CampaignId, rows: Vec<AudienceRowInput>) -> Vec<AttachedRespondent> {
    block_on(w.campaigns.attach_audience(&p.principal, None, id, rows)).expect("attached")
}

fn mint(w: &World, p: &Partner, id: CampaignId) -> Result<MintedLink> {
    let input =
        LaunchInput { campaign_id: id, external_user_ref: None, language: None, device: None, attributes: None };
    block_on(w.campaigns.mint_link(&p.principal, None, input))
}

/// The `lt` token of a `/p/<code>?lt=<token>&lang=<tag>` link.
fn lt_of(url: &str) -> String {
    let (_, rest) = url.split_once("?lt=").expect("an lt link");
    rest.split_once("&lang=").expect("a language").0.to_owned()
}

/// The nonce of a `/s/<code>/<nonce>` link.
fn nonce_of(url: &str) -> String {
    let last = url.rsplit('/').next().expect("a path");
    last.split('?').next().expect("a nonce").to_owned()
}

fn token_visit(token: &str) -> Visit {
    Visit { launch_token: Some(token.to_owned()), ..Visit::default() }
}

fn invitation_visit(nonce: &str) -> Visit {
    Visit { invitation: Some(nonce.to_owned()), ..Visit::default() }
}

fn start(w: &World, code: &str, visit: Visit) -> Result<StartOutcome> {
    block_on(w.respondents.start(code, StartInput { consent_given: Some(true), visit, ..StartInput::default() }))
}

fn started(outcome: Result<StartOutcome>) -> StartedSession {
    match outcome.expect("start") {
        StartOutcome::Started(session) => session,
        StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
    }
}

fn access_state(w: &World, code: &str, visit: &Visit) -> AccessState {
    block_on(w.respondents.access(code, visit)).expect("access").state
}

fn studio(business: BusinessId, permissions: &[&str]) -> StudioClaims {
    let now = datetime!(2026-01-01 10:00 UTC);
    StudioClaims {
        user_id: Uuid::new_v4(),
        business_id: business,
        permissions: permissions.iter().map(|p| (*p).to_owned()).collect(),
        issued_at: now,
        expires_at: now + Duration::HOUR,
    }
}

fn builder(p: &Partner) -> StudioClaims {
    studio(p.business, &[PERMISSION_VIEW, PERMISSION_BUILD])
}

fn create_key(w: &World, p: &Partner, campaign: CampaignId) -> (LaunchKey, String) {
    let (key, secret) = block_on(w.keys.create(&builder(p), campaign)).expect("launch key");
    (key, secret.expose_secret().to_owned())
}

/// A partner token naming `campaign` (code or id), expiring `exp_in` from now.
fn partner_token(w: &World, key: &LaunchKey, secret: &str, campaign: &str, jti: &str, exp_in: Duration) -> String {
    let claims = LaunchClaims {
        campaign: campaign.to_owned(),
        exp: (w.clock.now() + exp_in).unix_timestamp(),
        jti: jti.to_owned(),
        ..LaunchClaims::default()
    };
    fake_token(&key.id.to_string(), secret, &claims)
}

fn answer(id: &str, value: Value) -> AnswerInput {
    AnswerInput { question_id: id.into(), value }
}

fn code_of<T: std::fmt::Debug>(result: Result<T>) -> ErrorCode {
    result.expect_err("refused").code()
}

// Provisioning and launch.

#[test]
fn a_campaign_stays_draft_until_its_workspace_is_approved() {
    let w = world();
    let p = partner(&w, false);
    let draft = provision(&w, &p, brief());
    assert_eq!(draft.campaign.status, CampaignStatus::Draft);
    assert_eq!(draft.campaign.audience, AudienceMode::Open);
    assert_eq!(draft.campaign.code.len(), crate::provisioning::CODE_LEN);
    assert_eq!(draft.campaign.name, "Delivery survey");
    assert_eq!(draft.survey.questions.len(), 3);
    assert_eq!(draft.survey.questions[0].kind, QuestionKind::Rating { min: 1, max: 5 });
    assert_eq!(draft.counts, CampaignCounts::default());
    let blockers: Vec<&str> = draft.blockers().iter().map(|b| b.code).collect();
    assert_eq!(blockers, ["WORKSPACE_NOT_APPROVED"]);

    let refused = launch(&w, &p, draft.campaign.id).expect_err("not ready");
    assert_eq!(refused.code(), ErrorCode::NotLaunchReady);
    assert!(refused.to_string().contains("WORKSPACE_NOT_APPROVED"), "{refused}");
    assert_eq!(overview(&w, &p, draft.campaign.id).campaign.status, CampaignStatus::Draft);

    block_on(w.admin.approve_workspace(p.workspace)).expect("approved");
    let active = launch(&w, &p, draft.campaign.id).expect("launched");
    assert_eq!(active.campaign.status, CampaignStatus::Active);
    assert_eq!(active.campaign.launched_at, Some(w.clock.now()));
    assert!(active.blockers().is_empty());

    w.clock.advance(Duration::HOUR);
    let again = launch(&w, &p, draft.campaign.id).expect("launched again");
    assert_eq!(again.campaign, active.campaign, "launching an active campaign changes nothing");
}

#[test]
fn a_survey_is_reused_only_within_its_workspace() {
    let w = world();
    let owner = partner(&w, true);
    let first = provision(&w, &owner, brief());
    let reuse = ProvisionInput { survey_id: Some(first.survey.id), ..ProvisionInput::default() };
    let second = provision(&w, &owner, reuse.clone());
    assert_eq!(second.survey, first.survey);
    assert_ne!(second.campaign.id, first.campaign.id);
    assert_ne!(second.campaign.code, first.campaign.code);

    let stranger = partner(&w, true);
    assert_eq!(code_of(block_on(w.campaigns.provision(&stranger.principal, None, reuse))), ErrorCode::NotFound);
    let unknown = ProvisionInput { survey_id: Some(crate::ids::SurveyId::new_random()), ..ProvisionInput::default() };
    assert_eq!(code_of(block_on(w.campaigns.provision(&owner.principal, None, unknown))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.campaigns.get(&stranger.principal, None, first.campaign.id))), ErrorCode::NotFound);
}

#[test]
fn email_delivery_needs_a_respondent_with_an_email() {
    let w = world();
    let p = partner(&w, true);
    let input = ProvisionInput {
        delivery: Some(DeliveryInput { channels: Some(vec![DeliveryChannel::Email]), ..DeliveryInput::default() }),
        ..brief()
    };
    let draft = provision(&w, &p, input);
    let id = draft.campaign.id;
    let blockers: Vec<&str> = draft.blockers().iter().map(|b| b.code).collect();
    assert_eq!(blockers, ["NO_EMAIL_RECIPIENTS"]);
    let refused = launch(&w, &p, id).expect_err("no recipients");
    assert_eq!(refused.code(), ErrorCode::NotLaunchReady);
    assert!(refused.to_string().contains("NO_EMAIL_RECIPIENTS"), "{refused}");

    attach(&w, &p, id, vec![row("no-email", None)]);
    assert_eq!(code_of(launch(&w, &p, id)), ErrorCode::NotLaunchReady);
    attach(&w, &p, id, vec![row("with-email", Some("ada@example.com"))]);
    let counts = counts(&w, &p, id);
    assert_eq!((counts.invited, counts.invited_with_email, counts.invited_with_phone), (2, 1, 0));
    assert_eq!(launch(&w, &p, id).expect("launched").campaign.status, CampaignStatus::Active);
}

#[test]
fn attaching_the_same_reference_twice_keeps_one_respondent_and_its_invitation() {
    let w = world();
    let p = partner(&w, true);
    let id = provision(&w, &p, brief()).campaign.id;
    let first = attach(&w, &p, id, vec![row("r1", None)]);
    assert_eq!(first[0].outcome, RowOutcome::Created);
    assert!(!first[0].responded);
    let code = overview(&w, &p, id).campaign.code;
    assert!(first[0].invitation_url.starts_with(&format!("{SURVEY_URL}/s/{code}/")), "{}", first[0].invitation_url);

    let second = attach(&w, &p, id, vec![row("r1", Some("ada@example.com"))]);
    assert_eq!(second[0].outcome, RowOutcome::Updated);
    assert_eq!(second[0].respondent_id, first[0].respondent_id);
    assert_eq!(second[0].invitation_url, first[0].invitation_url);
    let after = overview(&w, &p, id);
    assert_eq!((after.counts.invited, after.counts.invited_with_email), (1, 1));
    assert_eq!(after.campaign.audience, AudienceMode::Closed, "an audience before launch makes it closed-list");
}

// Minting links.

#[test]
fn links_are_minted_only_for_active_campaigns() {
    let w = world();
    let p = partner(&w, true);
    let draft = provision(&w, &p, brief());
    assert_eq!(code_of(mint(&w, &p, draft.campaign.id)), ErrorCode::CampaignNotCollecting);
    assert_eq!(code_of(mint(&w, &p, CampaignId::new_random())), ErrorCode::NotFound);
}

#[test]
fn open_campaigns_mint_token_links_and_closed_ones_mint_nonce_links() {
    let w = world();
    let p = partner(&w, true);
    let open = active_open(&w, &p).campaign;
    let minted = mint(&w, &p, open.id).expect("minted");
    assert!(minted.url.starts_with(&format!("{SURVEY_URL}/p/{}?lt=", open.code)), "{}", minted.url);
    assert!(minted.url.ends_with("&lang=en"), "{}", minted.url);
    assert_eq!(minted.expires_at, w.clock.now() + LINK_LIFETIME);

    let draft = provision(&w, &p, brief()).campaign;
    attach(&w, &p, draft.id, vec![row("r1", None)]);
    let closed = launch(&w, &p, draft.id).expect("launched").campaign;
    assert_eq!(closed.audience, AudienceMode::Closed);
    let minted = mint(&w, &p, closed.id).expect("minted");
    assert!(minted.url.starts_with(&format!("{SURVEY_URL}/s/{}/", closed.code)), "{}", minted.url);
    assert!(!minted.url.contains("lt="), "{}", minted.url);
    // The minted nonce starts a session of the closed campaign, once.
    let nonce = nonce_of(&minted.url);
    started(start(&w, &closed.code, invitation_visit(&nonce)));
    assert_eq!(code_of(start(&w, &closed.code, invitation_visit(&nonce))), ErrorCode::LaunchTokenInvalid);
}

// Access and start.

#[test]
fn a_campaign_requiring_signatures_refuses_a_start_without_a_token() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    assert!(block_on(w.keys.set_require_signed(&builder(&p), campaign.id, true)).expect("set"));

    let access = block_on(w.respondents.access(&campaign.code, &Visit::default())).expect("access");
    assert!(access.require_signed);
    assert_eq!(access.state, AccessState::Missing);
    assert_eq!(access.refusal.map(|(code, _)| code), Some(ErrorCode::LaunchSignatureRequired));
    assert_eq!(code_of(start(&w, &campaign.code, Visit::default())), ErrorCode::LaunchSignatureRequired);
    assert_eq!(counts(&w, &p, campaign.id).started, 0);
}

#[test]
fn without_consent_nothing_is_created() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    assert_eq!(access_state(&w, &campaign.code, &Visit::default()), AccessState::NotRequired);
    for consent in [None, Some(false)] {
        let input = StartInput { consent_given: consent, ..StartInput::default() };
        let outcome = block_on(w.respondents.start(&campaign.code, input)).expect("answered");
        assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::ConsentRequired)), "{outcome:?}");
    }
    assert_eq!(counts(&w, &p, campaign.id).started, 0);

    let session = started(start(&w, &campaign.code, Visit::default()));
    assert_eq!(session.questions.len(), 3);
    assert_eq!(counts(&w, &p, campaign.id).started, 1);
}

#[test]
fn a_draft_campaign_does_not_start_and_an_unknown_code_is_not_found() {
    let w = world();
    let p = partner(&w, true);
    let draft = provision(&w, &p, brief()).campaign;
    let outcome = start(&w, &draft.code, Visit::default()).expect("answered");
    assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::CampaignNotOpen)), "{outcome:?}");
    assert_eq!(code_of(start(&w, "nope", Visit::default())), ErrorCode::NotFound);
}

#[test]
fn a_minted_link_starts_one_session() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    let session = started(start(&w, &campaign.code, token_visit(&token)));
    assert_eq!(session.language.as_str(), "en");
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 1);

    // Another campaign's minted link does not open this one.
    let other = active_open(&w, &p).campaign;
    let foreign = lt_of(&mint(&w, &p, other.id).expect("minted").url);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&foreign))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn a_minted_link_expires_after_its_lifetime() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    w.clock.advance(LINK_LIFETIME - Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    w.clock.advance(Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn access_checks_never_spend() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let token = lt_of(&mint(&w, &p, campaign.id).expect("minted").url);
    for _ in 0..2 {
        assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    }
    started(start(&w, &campaign.code, token_visit(&token)));

    let (key, secret) = create_key(&w, &p, campaign.id);
    let signed = partner_token(&w, &key, &secret, &campaign.code, "jti-access-1", Duration::minutes(10));
    for _ in 0..2 {
        assert_eq!(access_state(&w, &campaign.code, &token_visit(&signed)), AccessState::Valid);
    }
    started(start(&w, &campaign.code, token_visit(&signed)));
}

#[test]
fn a_partner_token_of_an_active_key_starts_one_session() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    block_on(w.keys.set_require_signed(&builder(&p), campaign.id, true)).expect("set");
    let (key, secret) = create_key(&w, &p, campaign.id);
    assert_eq!(key.slot, 1);
    assert!(key.last_used_at.is_none());

    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-00000001", Duration::minutes(10));
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Valid);
    w.clock.advance(Duration::MINUTE);
    started(start(&w, &campaign.code, token_visit(&token)));
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
    assert!(block_on(w.store.token_spent(campaign.id, "jti-00000001")).expect("spent"));
    let listed = block_on(w.keys.list(&builder(&p), campaign.id)).expect("list");
    assert!(listed.require_signed);
    assert_eq!(listed.keys[0].last_used_at, Some(w.clock.now()));

    // The campaign may also be named by id; a fresh jti is a fresh token.
    let by_id = partner_token(&w, &key, &secret, &campaign.id.to_string(), "jti-00000002", Duration::minutes(10));
    started(start(&w, &campaign.code, token_visit(&by_id)));
    // A wrong secret with a real key id is not a token.
    let forged = partner_token(&w, &key, "not-the-secret", &campaign.code, "jti-00000003", Duration::minutes(10));
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&forged))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 2);
}

#[test]
fn tokens_of_revoked_keys_are_invalid() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-revoked", Duration::minutes(10));
    block_on(w.keys.revoke(&builder(&p), campaign.id, key.id)).expect("revoked");
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&token)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&token))), ErrorCode::LaunchTokenInvalid);
}

#[test]
fn tokens_signed_with_another_campaigns_key_or_naming_another_campaign_are_invalid() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let other = active_open(&w, &p).campaign;
    let (own_key, own_secret) = create_key(&w, &p, campaign.id);
    let (other_key, other_secret) = create_key(&w, &p, other.id);

    let foreign_key = partner_token(&w, &other_key, &other_secret, &campaign.code, "jti-foreign-1", Duration::MINUTE);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&foreign_key))), ErrorCode::LaunchTokenInvalid);
    let names_other = partner_token(&w, &own_key, &own_secret, &other.code, "jti-foreign-2", Duration::MINUTE);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&names_other))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(counts(&w, &p, campaign.id).started, 0);
}

#[test]
fn tokens_must_expire_within_thirty_minutes() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = |jti: &str, exp_in: Duration| partner_token(&w, &key, &secret, &campaign.code, jti, exp_in);

    let too_far = token("jti-too-far", Duration::minutes(30) + Duration::SECOND);
    assert_eq!(access_state(&w, &campaign.code, &token_visit(&too_far)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&too_far))), ErrorCode::LaunchTokenInvalid);
    let expired = token("jti-expired", Duration::ZERO);
    assert_eq!(code_of(start(&w, &campaign.code, token_visit(&expired))), ErrorCode::LaunchTokenInvalid);
    let at_the_limit = token("jti-at-limit", Duration::minutes(30));
    started(start(&w, &campaign.code, token_visit(&at_the_limit)));
}

#[test]
fn an_invitation_starts_one_session_and_marks_its_respondent() {
    let w = world();
    let p = partner(&w, true);
    let id = provision(&w, &p, brief()).campaign.id;
    let invited = attach(&w, &p, id, vec![row("r1", None)]);
    let campaign = launch(&w, &p, id).expect("launched").campaign;

    let outcome = start(&w, &campaign.code, Visit::default()).expect("answered");
    assert!(matches!(outcome, StartOutcome::NotStarted(NotStarted::InvitationRequired)), "{outcome:?}");
    let nonce = nonce_of(&invited[0].invitation_url);
    assert_eq!(access_state(&w, &campaign.code, &invitation_visit(&nonce)), AccessState::Valid);
    started(start(&w, &campaign.code, invitation_visit(&nonce)));
    assert_eq!(code_of(start(&w, &campaign.code, invitation_visit(&nonce))), ErrorCode::LaunchTokenInvalid);
    assert_eq!(access_state(&w, &campaign.code, &invitation_visit(&nonce)), AccessState::Invalid);
    assert_eq!(code_of(start(&w, &campaign.code, invitation_visit("unknown-nonce"))), ErrorCode::LaunchTokenInvalid);

    let again = attach(&w, &p, id, vec![row("r1", None)]);
    assert_eq!(again[0].outcome, RowOutcome::Updated);
    assert!(again[0].responded);
    assert_eq!(again[0].invitation_url, invited[0].invitation_url);
    assert_eq!(counts(&w, &p, id).started, 1);
}

// Answers and completion.

#[test]
fn answers_are_checked_and_completion_is_final() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let other = active_open(&w, &p).campaign;
    let session = started(start(&w, &campaign.code, Visit::default()));
    let token = session.token.expose_secret().to_owned();
    let send = |code: &str, id: SessionId, token: Option<&str>, answers: Vec<AnswerInput>| {
        block_on(w.respondents.answer(code, id, token, answers))
    };

    assert_eq!(
        code_of(send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(6))])),
        ErrorCode::ValidationFailed
    );
    assert_eq!(
        code_of(send(&campaign.code, session.id, Some("wrong"), vec![answer("q1", json!(4))])),
        ErrorCode::Unauthenticated
    );
    assert_eq!(
        code_of(send(&campaign.code, session.id, None, vec![answer("q1", json!(4))])),
        ErrorCode::Unauthenticated
    );
    assert_eq!(code_of(send(&other.code, session.id, Some(&token), vec![answer("q1", json!(4))])), ErrorCode::NotFound);
    assert_eq!(code_of(send(&campaign.code, SessionId::new_random(), Some(&token), vec![])), ErrorCode::NotFound);

    let complete = |token: &str| block_on(w.respondents.complete(&campaign.code, session.id, Some(token)));
    let progress = send(&campaign.code, session.id, Some(&token), vec![answer("q2", json!("Quick and friendly"))]);
    assert_eq!(progress.expect("stored"), Progress { status: SessionStatus::Started, answered: 1, total: 3 });
    send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(2))]).expect("stored");
    let progress = send(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(4))]).expect("replaced");
    assert_eq!(progress.answered, 2, "answering a question again replaces its answer");

    let done = complete(&token).expect("completed");
    assert_eq!(done, Progress { status: SessionStatus::Completed, answered: 2, total: 3 });
    w.clock.advance(Duration::MINUTE);
    assert_eq!(complete(&token).expect("completed again"), done);
    assert_eq!(code_of(complete("wrong")), ErrorCode::Unauthenticated);
    assert_eq!(
        code_of(send(&campaign.code, session.id, Some(&token), vec![answer("q3", json!("late"))])),
        ErrorCode::Conflict
    );
    let counts = counts(&w, &p, campaign.id);
    assert_eq!((counts.started, counts.completed), (1, 1));
}

// Launch keys.

#[test]
fn a_campaign_holds_two_launch_keys_and_revoking_frees_a_slot() {
    let w = world();
    let p = partner(&w, true);
    let campaign = provision(&w, &p, brief()).campaign;
    let (first, secret) = create_key(&w, &p, campaign.id);
    assert_eq!(first.fingerprint.len(), 8);
    assert!(first.fingerprint.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    assert!(!first.secret_sealed.windows(secret.len()).any(|part| part == secret.as_bytes()), "the secret is sealed");
    let (second, _) = create_key(&w, &p, campaign.id);
    assert_eq!((first.slot, second.slot), (1, 2));
    assert_eq!(code_of(block_on(w.keys.create(&builder(&p), campaign.id))), ErrorCode::LaunchKeySlotsFull);

    block_on(w.keys.revoke(&builder(&p), campaign.id, first.id)).expect("revoked");
    assert_eq!(code_of(block_on(w.keys.revoke(&builder(&p), campaign.id, first.id))), ErrorCode::NotFound);
    let (third, _) = create_key(&w, &p, campaign.id);
    assert_eq!(third.slot, 1);
    let listed = block_on(w.keys.list(&builder(&p), campaign.id)).expect("list");
    assert_eq!(listed.keys.iter().map(|k| k.id).collect::<Vec<_>>(), [third.id, second.id]);
    assert!(!listed.require_signed);
}

#[test]
fn launch_keys_need_the_permission_and_the_business() {
    let w = world();
    let p = partner(&w, true);
    let campaign = provision(&w, &p, brief()).campaign;
    let viewer = studio(p.business, &[PERMISSION_VIEW]);
    assert!(block_on(w.keys.list(&viewer, campaign.id)).expect("list").keys.is_empty());
    assert_eq!(code_of(block_on(w.keys.create(&viewer, campaign.id))), ErrorCode::InsufficientPermission);
    assert_eq!(
        code_of(block_on(w.keys.set_require_signed(&viewer, campaign.id, true))),
        ErrorCode::InsufficientPermission
    );
    let builder_only = studio(p.business, &[PERMISSION_BUILD]);
    assert_eq!(code_of(block_on(w.keys.list(&builder_only, campaign.id))), ErrorCode::InsufficientPermission);

    let outsider = partner(&w, true);
    let foreign = builder(&outsider);
    assert_eq!(code_of(block_on(w.keys.list(&foreign, campaign.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.create(&foreign, campaign.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.set_require_signed(&foreign, campaign.id, true))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.keys.create(&builder(&p), CampaignId::new_random()))), ErrorCode::NotFound);
    assert!(!overview(&w, &p, campaign.id).campaign.require_signed);
}

// The in-memory store's own contracts.

#[test]
fn the_store_refuses_a_taken_code_and_scopes_reads() {
    let w = world();
    let p = partner(&w, true);
    let existing = provision(&w, &p, brief());
    let clash = crate::campaign::Campaign { id: CampaignId::new_random(), ..existing.campaign.clone() };
    assert_eq!(code_of(block_on(w.store.create_campaign(None, &clash))), ErrorCode::Conflict);
    assert!(block_on(w.store.campaign_overview(p.workspace, clash.id)).expect("read").is_none());

    let stranger = partner(&w, true);
    let id = existing.campaign.id;
    assert!(block_on(w.store.campaign_overview(stranger.workspace, id)).expect("read").is_none());
    assert!(block_on(w.store.find_survey(stranger.workspace, existing.survey.id)).expect("read").is_none());
    assert!(block_on(w.store.find_campaign_in_business(stranger.business, id)).expect("read").is_none());
    assert!(block_on(w.store.find_campaign_in_business(p.business, id)).expect("read").is_some());
    assert_eq!(
        code_of(block_on(w.store.activate_campaign(CampaignId::new_random(), w.clock.now()))),
        ErrorCode::NotFound
    );
}

#[test]
fn spent_tokens_are_forgotten_once_expired() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (key, secret) = create_key(&w, &p, campaign.id);
    let token = partner_token(&w, &key, &secret, &campaign.code, "jti-purge-1", Duration::minutes(10));
    started(start(&w, &campaign.code, token_visit(&token)));
    let expiry: OffsetDateTime = w.clock.now() + Duration::minutes(10);
    assert_eq!(block_on(w.store.purge_spent_tokens(expiry)).expect("purge"), 0);
    assert!(block_on(w.store.token_spent(campaign.id, "jti-purge-1")).expect("spent"));
    assert_eq!(block_on(w.store.purge_spent_tokens(expiry + Duration::SECOND)).expect("purge"), 1);
    assert!(!block_on(w.store.token_spent(campaign.id, "jti-purge-1")).expect("forgotten"));
}

fn register_input(code: &str) -> RegisterInput {
    RegisterInput {
        campaign_code: code.to_owned(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        ..RegisterInput::default()
    }
}

fn register(w: &World, input: RegisterInput) -> Result<Registration> {
    block_on(w.apps.register(input))
}

fn v2_beat(registration: &Registration) -> HeartbeatInput {
    HeartbeatInput {
        device_id: Some(registration.device_id.to_string()),
        refresh_token: Some(registration.refresh_token.expose_secret().to_owned()),
        ..HeartbeatInput::default()
    }
}

#[test]
fn a_verified_app_user_is_attributed_at_start_and_heartbeats_are_rate_limited() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (_, secret) = create_key(&w, &p, campaign.id);
    let user = UserInput {
        external_id: Some("user-1".into()),
        user_hash: Some(crate::hex::encode(&TestCrypto::hmac_sha256(secret.as_bytes(), b"user-1"))),
        ..UserInput::default()
    };
    let registered =
        register(&w, RegisterInput { user: Some(user), ..register_input(&campaign.code) }).expect("register");
    assert_eq!(registered.identity, Identity::Verified);

    let input = StartInput {
        consent_given: Some(true),
        device_token: registered.tokens.access_token.as_ref().map(|t| t.expose_secret().to_owned()),
        ..StartInput::default()
    };
    started(block_on(w.respondents.start(&campaign.code, input)));
    let devices = block_on(w.apps.devices(&p.principal, None, None, None, None)).expect("devices");
    assert_eq!((devices.items[0].activity.feedback_count, devices.items[0].identity), (1, Identity::Verified));

    for _ in 0..HEARTBEAT_RATE.burst {
        block_on(w.apps.heartbeat(v2_beat(&registered))).expect("within the burst");
    }
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&registered)))), ErrorCode::RateLimited);
    w.clock.advance(HEARTBEAT_RATE.interval);
    block_on(w.apps.heartbeat(v2_beat(&registered))).expect("one more after the interval");
}

#[test]
fn a_register_rotates_the_refresh_token_and_a_blocked_device_is_refused() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let first = register(&w, register_input(&campaign.code)).expect("register");
    let again = register(
        &w,
        RegisterInput {
            device_id: Some(first.device_id.to_string()),
            refresh_token: Some(first.refresh_token.expose_secret().to_owned()),
            ..register_input(&campaign.code)
        },
    )
    .expect("register again");
    assert_eq!(again.device_id, first.device_id);
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&first)))), ErrorCode::DeviceAuthInvalid);

    block_on(w.apps.set_device_status(first.device_id, DeviceStatus::Blocked)).expect("block");
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&again)))), ErrorCode::DeviceAuthInvalid);
    let blocked = RegisterInput {
        device_id: Some(again.device_id.to_string()),
        refresh_token: Some(again.refresh_token.expose_secret().to_owned()),
        ..register_input(&campaign.code)
    };
    assert_eq!(code_of(register(&w, blocked)), ErrorCode::InstallBlocked);
    let unknown = crate::ids::DeviceId::new_random();
    assert_eq!(code_of(block_on(w.apps.set_device_status(unknown, DeviceStatus::Active))), ErrorCode::NotFound);
}

#[test]
fn device_pages_follow_registration_order() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let ids: Vec<_> =
        (0..5).map(|_| register(&w, register_input(&campaign.code)).expect("register").device_id).collect();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = block_on(w.apps.devices(&p.principal, None, None, Some("2"), cursor.as_deref())).expect("page");
        seen.extend(page.items.iter().map(|d| d.device_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, ids);
}

// Webhooks.

fn subscribe(w: &World, p: &Partner, event_types: &[&str]) -> (Subscription, String) {
    let input = SubscriptionInput {
        url: Some("https://hooks.example.com/pulse".into()),
        description: Some("orders".into()),
        event_types: Some(event_types.iter().map(|t| (*t).to_owned()).collect()),
    };
    let (subscription, secret) = block_on(w.webhooks.create(&p.principal, None, input)).expect("subscribed");
    (subscription, secret.expose_secret().to_owned())
}

fn deliveries(w: &World, p: &Partner, subscription: &Subscription) -> Vec<DeliveryView> {
    block_on(w.webhooks.deliveries(&p.principal, None, subscription.id, None, None)).expect("deliveries").items
}

fn finish_a_session(w: &World, campaign_code: &str) -> SessionId {
    let session = started(start(w, campaign_code, Visit::default()));
    let token = session.token.expose_secret().to_owned();
    block_on(w.respondents.answer(campaign_code, session.id, Some(&token), vec![answer("q1", json!(4))]))
        .expect("answered");
    block_on(w.respondents.complete(campaign_code, session.id, Some(&token))).expect("completed");
    session.id
}

fn failing(code: u16) -> PostOutcome {
    PostOutcome { status_code: Some(code), error: None, duration_ms: 3 }
}

#[test]
fn endpoints_are_checked_and_their_secret_is_shown_once() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, secret) = subscribe(&w, &p, &[]);
    assert!(secret.starts_with(SECRET_PREFIX) && secret.len() == SECRET_PREFIX.len() + 43);
    assert!(subscription.is_active && subscription.event_types.is_empty());

    let create = |url: &str, types: Option<Vec<String>>| {
        let input = SubscriptionInput { url: Some(url.into()), description: None, event_types: types };
        block_on(w.webhooks.create(&p.principal, None, input)).map(|(s, _)| s)
    };
    for refused in ["http://hooks.example.com/", "https://127.0.0.1/", "https://localhost/", "https://[::1]/"] {
        assert_eq!(code_of(create(refused, None)), ErrorCode::ValidationFailed, "{refused}");
    }
    assert_eq!(code_of(create("https://hooks.example.com/", Some(vec!["x.y".into()]))), ErrorCode::ValidationFailed);
    let listed = block_on(w.webhooks.list(&p.principal, None)).expect("list");
    assert_eq!(listed, vec![subscription.clone()], "refused requests stored nothing");

    let other = partner(&w, true);
    assert_eq!(code_of(block_on(w.webhooks.get(&other.principal, None, subscription.id))), ErrorCode::NotFound);
    assert_eq!(code_of(block_on(w.webhooks.delete(&other.principal, None, subscription.id))), ErrorCode::NotFound);
    for _ in 1..crate::webhooks::MAX_SUBSCRIPTIONS {
        create("https://hooks.example.com/more", None).expect("room left");
    }
    assert_eq!(code_of(create("https://hooks.example.com/full", None)), ErrorCode::Conflict);
}

#[test]
fn a_finished_session_reaches_subscribed_endpoints_signed() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (received_only, secret) = subscribe(&w, &p, &["feedback.received"]);
    let (analyzed_only, _) = subscribe(&w, &p, &["feedback.analyzed"]);
    let (everything, _) = subscribe(&w, &p, &[]);

    let session = finish_a_session(&w, &campaign.code);
    assert_eq!(deliveries(&w, &p, &received_only).len(), 1);
    assert!(deliveries(&w, &p, &analyzed_only).is_empty());
    let all: Vec<_> = deliveries(&w, &p, &everything).iter().map(|d| d.event_type.as_str()).collect();
    assert_eq!(all, vec!["respondent.acknowledged", "feedback.received"], "newest first");

    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("delivered").len(), 3);
    let sent = w.transport.sent();
    let request =
        sent.iter().find(|r| r.url == received_only.url && r.body.windows(8).any(|b| b == b"received")).expect("sent");
    let header = |name: &str| request.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone()).expect(name);
    let signature = header("x-svc-signature");
    let (t, v1) = signature.strip_prefix("t=").and_then(|s| s.split_once(",v1=")).expect("t=..,v1=..");
    assert_eq!(t, w.clock.now().unix_timestamp().to_string());
    let mut signed = format!("{t}.").into_bytes();
    signed.extend_from_slice(&request.body);
    assert_eq!(v1, crate::hex::encode(&TestCrypto::hmac_sha256(secret.as_bytes(), &signed)));

    let body: Value = serde_json::from_slice(&request.body).expect("json");
    assert_eq!(header("x-svc-event"), body["id"].as_str().expect("id"));
    assert_eq!(header("x-svc-event-type"), "feedback.received");
    assert_eq!(body["aggregate"], "conversation");
    assert_eq!(body["orgId"], json!(p.workspace));
    assert_eq!(
        body["payload"],
        json!({
            "conversationId": session, "campaignId": campaign.id, "publicRef": campaign.code,
            "appInstallId": null, "deviceId": null, "userId": null, "answered": 1, "total": 3,
        })
    );
    let delivered = deliveries(&w, &p, &received_only);
    assert_eq!((delivered[0].status, delivered[0].attempts), (DeliveryStatus::Delivered, 1));
    assert_eq!(delivered[0].delivered_at, Some(w.clock.now()));
    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("nothing due").len(), 0);
}

#[test]
fn failures_walk_the_schedule_to_dead_and_five_dead_disable_the_endpoint() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (subscription, _) = subscribe(&w, &p, &["feedback.received"]);
    finish_a_session(&w, &campaign.code);
    w.transport.answer((0..5).map(|_| failing(500)));

    let mut waits = Vec::new();
    for attempt in 1..=5 {
        assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("attempted").len(), 1, "attempt {attempt}");
        let delivery = deliveries(&w, &p, &subscription).remove(0);
        assert_eq!(delivery.attempts, attempt);
        assert_eq!(delivery.last_status_code, Some(500));
        match delivery.next_attempt_at {
            Some(next) => {
                assert_eq!(delivery.status, DeliveryStatus::Failed);
                assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("not yet due").len(), 0);
                waits.push((next - w.clock.now()).whole_seconds());
                w.clock.set(next);
            }
            None => assert_eq!(delivery.status, DeliveryStatus::Dead),
        }
    }
    assert_eq!(waits, vec![60, 300, 1800, 7200]);
    assert_eq!(deliveries(&w, &p, &subscription)[0].history.len(), 5);

    for _ in 1..DISABLE_AFTER_DEAD {
        let current = block_on(w.webhooks.get(&p.principal, None, subscription.id)).expect("endpoint");
        assert!(current.is_active, "fewer than five DEAD in a row leave the endpoint active");
        finish_a_session(&w, &campaign.code);
        w.transport.answer((0..5).map(|_| PostOutcome {
            status_code: None,
            error: Some("timed out".into()),
            duration_ms: 9,
        }));
        for _ in 0..5 {
            block_on(w.dispatcher.deliver_due(50)).expect("attempted").len();
            w.clock.advance(Duration::hours(3));
        }
    }
    let disabled = block_on(w.webhooks.get(&p.principal, None, subscription.id)).expect("endpoint");
    assert!(!disabled.is_active);
    assert!(disabled.disabled_at.is_some());
    assert!(disabled.disabled_reason.as_deref().is_some_and(|r| r.contains("timed out")), "{disabled:?}");

    finish_a_session(&w, &campaign.code);
    assert_eq!(deliveries(&w, &p, &subscription).len(), 5, "a disabled endpoint gets no new deliveries");
    let patch = SubscriptionPatch { is_active: Some(true), ..SubscriptionPatch::default() };
    let enabled = block_on(w.webhooks.update(&p.principal, None, subscription.id, patch)).expect("re-enabled");
    assert!(enabled.is_active && enabled.disabled_at.is_none() && enabled.disabled_reason.is_none());
}

#[test]
fn a_lost_claim_records_nothing_and_the_delivery_is_sent_again() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    let first = block_on(w.dispatcher.claim(10)).expect("claimed");
    assert_eq!(first.len(), 1);
    assert!(block_on(w.dispatcher.claim(10)).expect("claim").is_empty(), "a claimed delivery is not claimed twice");

    w.clock.advance(Duration::seconds(71));
    let second = block_on(w.dispatcher.claim(10)).expect("claimed again after the lease");
    assert_eq!(second.len(), 1);
    assert_eq!(block_on(w.dispatcher.attempt(&second[0])).expect("sent").status, DeliveryStatus::Delivered);
    assert_eq!(block_on(w.dispatcher.attempt(&first[0])).expect("sent").status, DeliveryStatus::Delivered);
    let delivery = deliveries(&w, &p, &subscription).remove(0);
    assert_eq!(delivery.attempts, 1, "the stale claim's attempt was not recorded");
    assert_eq!(delivery.event_type.as_str(), "webhook.test");
    let ids: Vec<_> = w.transport.sent().iter().map(|r| r.body.clone()).collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1], "the receiver saw the same event twice: at least once, never lost");
}

#[test]
fn finished_events_are_forgotten_after_thirty_days_and_open_ones_kept() {
    let w = world();
    let p = partner(&w, true);
    let (subscription, _) = subscribe(&w, &p, &[]);
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    block_on(w.webhooks.simulate(&p.principal, None, subscription.id)).expect("queued");
    w.transport.answer([failing(200), failing(503)]);
    assert_eq!(block_on(w.dispatcher.deliver_due(50)).expect("attempted").len(), 2);

    w.clock.advance(crate::webhooks::EVENT_RETENTION - Duration::MINUTE);
    assert_eq!(block_on(w.webhooks.purge_old_events()).expect("purged"), 0, "kept for thirty days");
    w.clock.advance(Duration::MINUTE * 2);
    assert_eq!(block_on(w.webhooks.purge_old_events()).expect("purged"), 1);
    let left = deliveries(&w, &p, &subscription);
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].status, DeliveryStatus::Failed, "a delivery still to attempt keeps its event");
}

#[path = "analysis_tests.rs"]
mod analysis_tests;
