//! Respondent sessions: the access check, start, answers and completion.

use crate::apps::ports::AppRepository;
use crate::campaigns::models::{
    AudienceMode, Campaign, CampaignCopies, CampaignStatus, LaunchClaims, LaunchKey, LaunchLink, SERVER_KID, Survey,
    launch_key_seal_context, signature_required, token_invalid,
};
use crate::campaigns::ports::{CampaignRepository, LaunchRepository, LaunchTokenCodec};
use crate::challenges::models::ChallengePolicy;
use crate::challenges::ports::ProofOfWork;
use crate::challenges::service::ChallengeGate;
use crate::error::{Error, ErrorCode, RateLimitState, Refusal, Result};
use crate::ids::{LaunchKeyId, LaunchLinkId, SessionId};
use crate::outreach::ports::CallSessions;
use crate::quota::ports::QuotaCounter;
use crate::sessions::models::{
    Access, AccessState, AnswerInput, AnswerValue, Completion, Intro, MAX_CLIENT_LABEL_CHARS, MAX_CLIENT_LABELS,
    MAX_DEVICE_TOKEN_CHARS, MAX_INSTALL_ID_CHARS, MAX_LAUNCH_TOKEN_CHARS, NewSession, NotStarted, Progress,
    SESSION_TOKEN_LEN, SessionFacts, SessionRecord, SessionStatus, Spend, StartInput, StartOutcome, StartedSession,
    StoredAnswer, Visit, answer_seal_context, parse_answers, word_count,
};
use crate::sessions::ports::SessionStore;
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use secrecy::SecretString;
use serde_json::{Map, Value};

/// A launch that verified.
enum Verified {
    Link(LaunchLink),
    Signed { key: LaunchKey, claims: LaunchClaims },
}

const MAX_NONCE_CHARS: usize = 64;

pub struct Respondents<R, C, K, T> {
    repo: R,
    crypto: C,
    clock: K,
    tokens: T,
    copies: CampaignCopies,
    challenges: ChallengeGate,
}

impl<R, C, K, T> Respondents<R, C, K, T>
where
    R: CampaignRepository + LaunchRepository + SessionStore + AppRepository + QuotaCounter,
    C: Crypto + ProofOfWork,
    K: Clock,
    T: LaunchTokenCodec,
{
    pub fn new(repo: R, crypto: C, clock: K, tokens: T) -> Self {
        Self { repo, crypto, clock, tokens, copies: CampaignCopies::default(), challenges: ChallengeGate::default() }
    }

    /// The same service under another challenge policy.
    #[must_use]
    pub fn with_challenges(self, policy: ChallengePolicy) -> Self {
        Self { challenges: ChallengeGate::new(policy), ..self }
    }

    /// Forgets spent `jti`s of tokens, and spent challenges, that have expired: they can no longer
    /// verify anyway.
    ///
    /// # Errors
    /// Port errors as they are.
    pub async fn purge_spent_tokens(&self) -> Result<u64> {
        self.repo.purge_spent_tokens(self.clock.now()).await
    }

    async fn campaign(&self, code: &str) -> Result<(Campaign, Survey)> {
        self.recent_campaign(code, |_| false).await
    }

    /// The campaign from a recent copy when `usable` accepts it (see [`CampaignCopies`]).
    async fn recent_campaign(&self, code: &str, usable: impl Fn(&Campaign) -> bool) -> Result<(Campaign, Survey)> {
        if code.is_empty() || code.len() > 64 {
            return Err(Error::not_found("campaign"));
        }
        self.copies
            .by_code(code, self.clock.now(), usable, self.repo.find_campaign_by_code(code))
            .await?
            .ok_or_else(|| Error::not_found("campaign"))
    }

    /// Checks a visit from `network` without spending or counting anything. An open visit that
    /// a start would need a solved challenge for is given one.
    ///
    /// # Errors
    /// `NotFound` for an unknown code; port errors.
    pub async fn access(&self, code: &str, visit: &Visit, network: Option<&str>) -> Result<Access> {
        let (campaign, survey) = self.campaign(code).await?;
        let verified = self.verify(&campaign, visit).await?;
        let (state, refusal) = match &verified {
            Some(Ok(_)) => (AccessState::Valid, None),
            Some(Err(e)) => (AccessState::Invalid, Some(refusal_of(e))),
            None if campaign.require_signed => (AccessState::Missing, Some(refusal_of(&signature_required()))),
            // Decisions §5: NOT_REQUIRED means signing is not required and no token was given,
            // closed-list campaigns included (their start answers INVITATION_REQUIRED).
            None => (AccessState::NotRequired, None),
        };
        let token_language = match &verified {
            Some(Ok(v)) => language_of(v),
            _ => None,
        };
        let language = survey.resolve_language(visit.language.as_deref().or(token_language.as_deref())).clone();
        let spent_link = match &verified {
            Some(Err(_)) => self.spent_link(&campaign, visit).await?,
            _ => None,
        };
        let facts = self.repo.visit_facts(campaign.workspace_id, campaign.id, spent_link).await?;
        let now = self.clock.now();
        let challenge = if verified.is_none()
            && campaign.status == CampaignStatus::Active
            && self.challenges.required(&self.repo, &campaign, network, now, false).await?
        {
            Some(self.challenges.issue(&self.crypto, &campaign.code, now))
        } else {
            None
        };
        let intro = Intro {
            asked_by: facts.asked_by,
            privacy_notice_url: campaign.privacy_notice_url.clone(),
            question_count: u32::try_from(survey.questions.len()).unwrap_or(u32::MAX),
            estimated_minutes: survey.estimated_minutes(),
            register: survey.register,
            collecting: campaign.status == CampaignStatus::Active,
            campaign_name: campaign.name,
        };
        Ok(Access {
            require_signed: campaign.require_signed,
            state,
            refusal,
            answered: facts.link_answered,
            challenge,
            language,
            intro,
        })
    }

    /// The link a visit presented when it is genuine and spent (a minted `lt` link whatever its
    /// age, or an invitation), so the access check can tell a finished link from a bad one.
    async fn spent_link(&self, campaign: &Campaign, visit: &Visit) -> Result<Option<LaunchLinkId>> {
        let link = if let Some(token) = visit.launch_token.as_deref() {
            let claims = (token.len() <= MAX_LAUNCH_TOKEN_CHARS
                && self.tokens.key_id(token).as_deref() == Some(SERVER_KID))
            .then(|| self.tokens.verify_link(token))
            .flatten()
            .filter(|c| c.campaign == campaign.id.to_string());
            match claims.and_then(|c| c.jti.parse::<LaunchLinkId>().ok()) {
                Some(id) => self.repo.find_launch_link(campaign.id, id).await?,
                None => None,
            }
        } else if let Some(nonce) = visit.invitation.as_deref().filter(|n| !n.is_empty() && n.len() <= MAX_NONCE_CHARS)
        {
            let digest = self.crypto.keyed_digest(DigestPurpose::LinkNonce, nonce.as_bytes());
            self.repo.find_link_by_nonce(campaign.id, &digest).await?
        } else {
            None
        };
        Ok(link.filter(|l| l.spent_at.is_some()).map(|l| l.id))
    }

    /// Starts a session: checks the launch, then spends it and creates the session in one step.
    ///
    /// # Errors
    /// `NotFound`; `ValidationFailed` for over-long fields; `LaunchSignatureRequired`;
    /// `LaunchTokenInvalid` (also when a concurrent start spent the token first);
    /// `ChallengeRequired` for an open start that needs a solved challenge and has no usable one
    /// (also when a concurrent start spent it first); `RateLimited` when the campaign reached
    /// `quality.maxResponses`; port errors.
    pub async fn start(&self, code: &str, input: StartInput) -> Result<StartOutcome> {
        check_len("language", input.visit.language.as_deref(), 24)?;
        check_len("deviceToken", input.device_token.as_deref(), MAX_DEVICE_TOKEN_CHARS)?;
        check_len("launchToken", input.visit.launch_token.as_deref(), MAX_LAUNCH_TOKEN_CHARS)?;
        check_len("installId", input.install_id.as_deref(), MAX_INSTALL_ID_CHARS)?;
        // A copy that would turn the start away is read again first; one that predates
        // requireSigned is caught when the session is written.
        let unsigned = input.visit.launch_token.is_none();
        let (campaign, survey) = self
            .recent_campaign(code, |c| c.status == CampaignStatus::Active && !(unsigned && c.require_signed))
            .await?;
        if campaign.status != CampaignStatus::Active {
            return Ok(StartOutcome::NotStarted(NotStarted::CampaignNotOpen));
        }
        // Without consent nothing is checked further, created or spent.
        if input.consent_given != Some(true) {
            return Ok(StartOutcome::NotStarted(NotStarted::ConsentRequired));
        }
        let verified = match self.verify(&campaign, &input.visit).await? {
            Some(result) => Some(result?),
            None if campaign.require_signed => return Err(signature_required()),
            None if campaign.audience == AudienceMode::Closed => {
                return Ok(StartOutcome::NotStarted(NotStarted::InvitationRequired));
            }
            None => None,
        };
        let now = self.clock.now();
        let challenge = match verified {
            Some(_) => None,
            None if self.challenges.required(&self.repo, &campaign, input.network.as_deref(), now, true).await? => {
                Some(self.challenges.check(&self.crypto, &self.crypto, &campaign.code, now, input.altcha.as_ref())?)
            }
            None => None,
        };
        self.check_capacity(&campaign).await?;

        let attribution = match crate::apps::service::attribution_key(
            &self.crypto,
            now,
            &campaign,
            input.device_token.as_deref(),
            input.install_id.as_deref(),
        ) {
            Some(key) => self.repo.attribution(campaign.workspace_id, campaign.id, key).await?,
            None => None,
        };
        let token = self.crypto.random_base62(SESSION_TOKEN_LEN);
        let mut context = Map::new();
        let mut tags = Vec::new();
        let mut spend = challenge.map_or(Spend::Nothing, Spend::Challenge);
        let mut session = NewSession {
            id: SessionId::new_random(),
            campaign_id: campaign.id,
            token_digest: self.crypto.keyed_digest(DigestPurpose::SessionToken, token.as_bytes()),
            language: survey.default_language().clone(),
            respondent_id: None,
            launch_link_id: None,
            launch_key_id: None,
            external_user_digest: None,
            tags: Vec::new(),
            context: Map::new(),
            attribution,
            total_questions: u32::try_from(survey.questions.len()).unwrap_or(u32::MAX),
            started_at: now,
        };
        let token_language = verified.as_ref().and_then(language_of);
        match verified {
            Some(Verified::Link(link)) => {
                spend = Spend::Link(link.id);
                session.launch_link_id = Some(link.id);
                session.respondent_id = link.respondent_id;
                session.external_user_digest = link.external_user_digest;
                if !link.context.device.is_empty() {
                    context.insert("device".into(), Value::Object(link.context.device));
                }
                if !link.context.attributes.is_empty() {
                    context.insert("attributes".into(), Value::Object(link.context.attributes));
                }
            }
            Some(Verified::Signed { key, claims }) => {
                spend = Spend::Token {
                    key_id: key.id,
                    jti: claims.jti.clone(),
                    expires_at: time::OffsetDateTime::from_unix_timestamp(claims.exp).map_err(Error::internal)?,
                };
                session.launch_key_id = Some(key.id);
                session.external_user_digest =
                    claims.uid.as_ref().map(|u| self.crypto.keyed_digest(DigestPurpose::ExternalUser, u.as_bytes()));
                tags = claims.tags.iter().map(|t| printable_label(t)).collect();
                let mut launch = Map::new();
                for (name, value) in [
                    ("lang", &claims.lang),
                    ("app", &claims.app),
                    ("appVersion", &claims.app_version),
                    ("device", &claims.device),
                    ("os", &claims.os),
                ] {
                    if let Some(v) = value {
                        launch.insert(name.into(), Value::String(printable_label(v)));
                    }
                }
                if !launch.is_empty() {
                    context.insert("launch".into(), Value::Object(launch));
                }
            }
            None => {}
        }
        let client = readable_labels(input.client.unwrap_or_default());
        if !client.is_empty() {
            context.insert("client".into(), Value::Object(client));
        }
        session.tags = tags;
        session.context = context;
        session.language =
            survey.resolve_language(input.visit.language.as_deref().or(token_language.as_deref())).clone();
        match self.repo.start_session(&session, &spend).await {
            // Paused or closed after the copy of the campaign was read.
            Err(e) if e.code() == ErrorCode::CampaignNotCollecting => {
                return Ok(StartOutcome::NotStarted(NotStarted::CampaignNotOpen));
            }
            other => other?,
        }
        Ok(StartOutcome::Started(StartedSession {
            id: session.id,
            token: SecretString::from(token),
            language: session.language,
            questions: survey.questions,
        }))
    }

    /// Stores answers of a session that is not completed.
    ///
    /// # Errors
    /// `NotFound` for an unknown code or a session of another campaign; `Unauthenticated` for a
    /// missing or wrong session token; `Conflict` once completed; `ValidationFailed`; port errors.
    pub async fn answer(
        &self,
        code: &str,
        session: SessionId,
        token: Option<&str>,
        answers: Vec<AnswerInput>,
    ) -> Result<Progress> {
        // Answering reads only what never changes: the campaign's id and its survey.
        let (campaign, survey) = self.recent_campaign(code, |_| true).await?;
        let record = self.session(&campaign, session, token).await?;
        if record.status == SessionStatus::Completed {
            return Err(crate::sessions::models::already_completed());
        }
        let parsed = parse_answers(&survey.questions, answers)?;
        let now = self.clock.now();
        let stored: Vec<StoredAnswer> = parsed
            .into_iter()
            .map(|(question_id, value)| match value {
                AnswerValue::Rating(r) => {
                    StoredAnswer { question_id, rating: Some(r), text_sealed: None, word_count: 0, answered_at: now }
                }
                AnswerValue::Text(text) => StoredAnswer {
                    text_sealed: Some(self.crypto.seal(&answer_seal_context(session, &question_id), text.as_bytes())),
                    question_id,
                    rating: None,
                    word_count: word_count(&text),
                    answered_at: now,
                },
            })
            .collect();
        self.repo.record_answers(session, &stored).await
    }

    /// Completes the session; completing it again answers the same. Unanswered questions do not
    /// stop completion (the fixed route has no such refusal): `required` guides the page, and the
    /// campaign's coverage rule judges the response.
    ///
    /// # Errors
    /// As [`Respondents::answer`], without the `Conflict`.
    pub async fn complete(&self, code: &str, session: SessionId, token: Option<&str>) -> Result<Progress> {
        let (campaign, _) = self.campaign(code).await?;
        let record = self.session(&campaign, session, token).await?;
        if record.status == SessionStatus::Completed {
            return Ok(Progress { status: record.status, answered: record.answered, total: record.total });
        }
        let facts = SessionFacts::of(session, &campaign, record.attribution.as_ref());
        self.repo.complete_session(&Completion::new(facts, self.clock.now())).await
    }

    async fn session(&self, campaign: &Campaign, id: SessionId, token: Option<&str>) -> Result<SessionRecord> {
        let record = self.repo.find_session(campaign.id, id).await?.ok_or_else(|| Error::not_found("session"))?;
        let token = token.ok_or_else(|| {
            Error::refused(
                ErrorCode::Unauthenticated,
                "send the session token as `Authorization: Bearer <sessionToken>`",
            )
        })?;
        if !self.crypto.verify_keyed_digest(DigestPurpose::SessionToken, token.as_bytes(), &record.token_digest) {
            return Err(Error::refused(ErrorCode::Unauthenticated, "the session token is not valid for this session"));
        }
        Ok(record)
    }

    async fn check_capacity(&self, campaign: &Campaign) -> Result<()> {
        let Some(max) = campaign.quality.max_responses else { return Ok(()) };
        if self.repo.completed_sessions(campaign.id).await? >= u64::from(max) {
            return Err(Error::Refused(Refusal {
                code: ErrorCode::RateLimited,
                description: "responses are paused for this campaign: it has all the responses it asked for".into(),
                rate_limit: Some(RateLimitState {
                    family: "max_responses",
                    limit: max,
                    remaining: 0,
                    reset_secs: 3600,
                }),
            }));
        }
        Ok(())
    }

    /// `None` when the visit carries no token or invitation; otherwise whether it verified
    /// (read-only: nothing is spent here).
    async fn verify(&self, campaign: &Campaign, visit: &Visit) -> Result<Option<Result<Verified>>> {
        if let Some(token) = visit.launch_token.as_deref() {
            return Ok(Some(self.verify_token(campaign, token).await?.ok_or_else(token_invalid)));
        }
        if let Some(nonce) = visit.invitation.as_deref() {
            return Ok(Some(self.verify_nonce(campaign, nonce).await?.ok_or_else(token_invalid)));
        }
        Ok(None)
    }

    async fn verify_token(&self, campaign: &Campaign, token: &str) -> Result<Option<Verified>> {
        if token.len() > MAX_LAUNCH_TOKEN_CHARS {
            return Ok(None);
        }
        let now = self.clock.now();
        let Some(kid) = self.tokens.key_id(token) else { return Ok(None) };
        if kid == SERVER_KID {
            let Some(claims) = self.tokens.verify_link(token) else { return Ok(None) };
            if !claims.acceptable(now, campaign.id, &campaign.code) {
                return Ok(None);
            }
            let Ok(id) = claims.jti.parse::<LaunchLinkId>() else { return Ok(None) };
            let link = self.repo.find_launch_link(campaign.id, id).await?;
            return Ok(link.filter(|l| l.nonce_digest.is_none() && l.usable_at(now)).map(Verified::Link));
        }
        // Only the canonical hyphenated form names a key.
        let Some(key_id) = kid.parse::<LaunchKeyId>().ok().filter(|id| id.to_string() == kid) else { return Ok(None) };
        let Some(key) = self.repo.find_launch_key(campaign.id, key_id).await? else { return Ok(None) };
        let secret = self.crypto.open(&launch_key_seal_context(key.id), &key.secret_sealed)?;
        let Some(claims) = self.tokens.verify(token, &secret) else { return Ok(None) };
        if !claims.acceptable(now, campaign.id, &campaign.code)
            || self.repo.token_spent(campaign.id, &claims.jti).await?
        {
            return Ok(None);
        }
        Ok(Some(Verified::Signed { key, claims }))
    }

    async fn verify_nonce(&self, campaign: &Campaign, nonce: &str) -> Result<Option<Verified>> {
        if nonce.is_empty() || nonce.len() > MAX_NONCE_CHARS {
            return Ok(None);
        }
        let digest = self.crypto.keyed_digest(DigestPurpose::LinkNonce, nonce.as_bytes());
        let link = self.repo.find_link_by_nonce(campaign.id, &digest).await?;
        Ok(link.filter(|l| l.usable_at(self.clock.now())).map(Verified::Link))
    }
}

fn language_of(verified: &Verified) -> Option<String> {
    match verified {
        Verified::Link(link) => link.language.as_ref().map(|l| l.as_str().to_owned()),
        Verified::Signed { claims, .. } => claims.lang.clone(),
    }
}

fn refusal_of(error: &Error) -> (ErrorCode, String) {
    match error {
        Error::Refused(r) => (r.code, r.description.clone()),
        other => (other.code(), String::new()),
    }
}

fn check_len(field: &str, value: Option<&str>, max: usize) -> Result<()> {
    match value {
        Some(v) if v.chars().count() > max => {
            Err(Error::validation(field, format!("must be at most {max} characters")))
        }
        _ => Ok(()),
    }
}

/// A token's context label as kept: control characters dropped, at most 128 characters.
fn printable_label(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(MAX_CLIENT_LABEL_CHARS).collect()
}

/// The page's client labels that are short primitives; anything else is dropped, not refused.
fn readable_labels(client: Map<String, Value>) -> Map<String, Value> {
    client
        .into_iter()
        .filter(|(k, v)| {
            k.chars().count() <= 64
                && !k.chars().any(char::is_control)
                && match v {
                    Value::String(s) => s.chars().count() <= MAX_CLIENT_LABEL_CHARS && !s.chars().any(char::is_control),
                    Value::Number(_) | Value::Bool(_) => true,
                    _ => false,
                }
        })
        .take(MAX_CLIENT_LABELS)
        .collect()
}

/// A call drives the same sessions the page does, through the same checks.
impl<R, C, K, T> CallSessions for Respondents<R, C, K, T>
where
    R: CampaignRepository + LaunchRepository + SessionStore + AppRepository + QuotaCounter,
    C: Crypto + ProofOfWork,
    K: Clock,
    T: LaunchTokenCodec,
{
    async fn survey(&self, code: &str) -> Result<(Campaign, Survey)> {
        self.campaign(code).await
    }

    async fn start(&self, code: &str, input: StartInput) -> Result<StartOutcome> {
        Respondents::start(self, code, input).await
    }

    async fn answer(&self, code: &str, session: SessionId, token: &str, answers: Vec<AnswerInput>) -> Result<Progress> {
        Respondents::answer(self, code, session, Some(token), answers).await
    }

    async fn complete(&self, code: &str, session: SessionId, token: &str) -> Result<Progress> {
        Respondents::complete(self, code, session, Some(token)).await
    }
}
