//! The partner's campaign routes: provision, read, attach an audience, launch, mint links.

use crate::audit::models::{AuditAction, AuditEntry};
use crate::campaigns::models::{
    AudienceMode, AudienceRowInput, Campaign, CampaignCopies, CampaignOverview, CampaignStatus,
    DEFAULT_ANONYMITY_FLOOR, DeliveryChannel, DigestedRef, LINK_LIFETIME, LaunchClaims, LaunchInput, LaunchLink,
    LaunchRequest, NONCE_LEN, NewRespondent, Provision, ProvisionInput, Question, REF_BATCH, RowOutcome, Survey,
    SurveySource, not_collecting, parse_rows, ref_digest_input, ref_seal_context, seal_context,
};
use crate::campaigns::ports::{CampaignRepository, LaunchRepository, LaunchTokenCodec, SurveyGenerator};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, LaunchLinkId, RespondentId, SurveyId};
use crate::outreach::models::OutreachCounts;
use crate::outreach::ports::OutreachRepository;
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};
use crate::tenancy::models::{Principal, Scope};
use time::OffsetDateTime;

/// Public codes: 12 base62 characters, unguessable enough that listing campaigns is not possible.
pub const CODE_LEN: usize = 12;

/// One row's result of `POST /respondents`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachedRespondent {
    pub external_ref: String,
    pub respondent_id: RespondentId,
    pub outcome: RowOutcome,
    pub invitation_url: String,
    pub responded: bool,
}

/// A campaign as a partner reads it: the overview, and what became of its messages.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignView {
    pub overview: CampaignOverview,
    pub messages: OutreachCounts,
}

/// What [`Campaigns::digest_clear_refs`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RefConversion {
    pub converted: usize,
    /// Left in clear: another respondent of the campaign holds their digest.
    pub left: usize,
}

/// A minted launch link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MintedLink {
    pub url: String,
    pub expires_at: OffsetDateTime,
}

pub struct Campaigns<R, G, C, K, T> {
    pub(super) repo: R,
    generator: G,
    pub(super) crypto: C,
    pub(super) clock: K,
    tokens: T,
    survey_url: String,
    pub(super) message_channels: Vec<DeliveryChannel>,
    copies: CampaignCopies,
}

impl<R, G, C, K, T> Campaigns<R, G, C, K, T>
where
    R: CampaignRepository + LaunchRepository + OutreachRepository,
    G: SurveyGenerator,
    C: Crypto,
    K: Clock,
    T: LaunchTokenCodec,
{
    /// `survey_url` is the origin of the respondent page (`PULSE_SURVEY_URL`);
    /// `message_channels` the delivery channels messages can be sent on here.
    pub fn new(
        repo: R,
        generator: G,
        crypto: C,
        clock: K,
        tokens: T,
        survey_url: &str,
        message_channels: Vec<DeliveryChannel>,
    ) -> Self {
        let survey_url = survey_url.trim_end_matches('/').to_owned();
        Self { repo, generator, crypto, clock, tokens, survey_url, message_channels, copies: CampaignCopies::default() }
    }

    /// The origin of the respondent page, without a trailing `/`.
    pub fn survey_url(&self) -> &str {
        &self.survey_url
    }

    /// The delivery channels messages can be sent on here; a campaign asking for another cannot
    /// launch.
    pub fn message_channels(&self) -> &[DeliveryChannel] {
        &self.message_channels
    }

    /// Generates (or reuses) the survey and creates the campaign as a draft.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:provision`; workspace resolution errors;
    /// `ValidationFailed` naming the field; `NotFound` for a survey of another workspace;
    /// generator and port errors.
    pub async fn provision(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        input: ProvisionInput,
    ) -> Result<CampaignOverview> {
        principal.require_scope(Scope::PROVISION)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let provision = Provision::parse(input)?;
        let now = self.clock.now();
        let (survey, is_new) = match &provision.source {
            SurveySource::Existing(id) => {
                (self.repo.find_survey(workspace, *id).await?.ok_or_else(|| Error::not_found("survey"))?, false)
            }
            SurveySource::Brief(brief) => {
                let generated = self.generator.generate(brief).await?;
                let well_formed = generated.questions.len() == usize::from(brief.question_count)
                    && generated.questions.iter().all(|q| {
                        q.texts.len() == brief.languages.len()
                            && q.texts.iter().zip(&brief.languages).all(|((l, t), want)| l == want && !t.is_empty())
                    });
                if !well_formed {
                    return Err(Error::internal("the survey generator broke its contract"));
                }
                let questions = generated
                    .questions
                    .into_iter()
                    .enumerate()
                    .map(|(i, q)| Question {
                        id: format!("q{}", i + 1),
                        kind: q.kind,
                        required: q.required,
                        texts: q.texts,
                    })
                    .collect();
                let survey = Survey {
                    id: SurveyId::new_random(),
                    workspace_id: workspace,
                    title: generated.title,
                    languages: brief.languages.clone(),
                    register: generated.register,
                    questions,
                    created_at: now,
                };
                (survey, true)
            }
        };
        let name = provision.name.clone().unwrap_or_else(|| survey.title.clone());
        let id = CampaignId::new_random();
        // A code collision is astronomically rare, but codes must be unique: draw again.
        for _ in 0..3 {
            let campaign = Campaign {
                id,
                workspace_id: workspace,
                survey_id: survey.id,
                code: self.crypto.random_base62(CODE_LEN),
                name: name.clone(),
                status: CampaignStatus::Draft,
                audience: AudienceMode::Open,
                require_signed: false,
                quality: provision.quality.clone(),
                delivery: provision.delivery.clone(),
                order: provision.order.clone(),
                anonymity_floor: DEFAULT_ANONYMITY_FLOOR,
                privacy_notice_url: provision.privacy_notice_url.clone(),
                created_at: now,
                launched_at: None,
                closed_at: None,
            };
            match self.repo.create_campaign(is_new.then_some(&survey), &campaign).await {
                Ok(()) => {
                    return self
                        .repo
                        .campaign_overview(workspace, id)
                        .await?
                        .ok_or_else(|| Error::internal("a campaign vanished right after its creation"));
                }
                Err(e) if e.code() == ErrorCode::Conflict => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::internal("could not draw a free campaign code"))
    }

    /// # Errors
    /// `InsufficientPermission` without `channel:provision` or `channel:results`; workspace
    /// resolution errors; `NotFound`; port errors.
    pub async fn get(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
    ) -> Result<CampaignView> {
        principal.require_any_scope(&[Scope::PROVISION, Scope::RESULTS])?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let overview = self.repo.campaign_overview(workspace, id).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let messages = self.repo.outreach_counts(id, self.clock.now()).await?;
        Ok(CampaignView { overview, messages })
    }

    /// Creates or updates respondents by external reference; each keeps one invitation link.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:audience`; workspace resolution errors;
    /// `ValidationFailed` naming `rows[i].field` (nothing is stored then); `NotFound`; port errors.
    pub async fn attach_audience(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        rows: Vec<AudienceRowInput>,
    ) -> Result<Vec<AttachedRespondent>> {
        principal.require_scope(Scope::AUDIENCE)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let rows = parse_rows(rows)?;
        let overview = self.repo.campaign_overview(workspace, id).await?.ok_or_else(|| Error::not_found("campaign"))?;
        let now = self.clock.now();
        let seal = |r: &str, field: &str, value: &Option<String>| {
            value.as_ref().map(|v| self.crypto.seal(&seal_context(id, r, field), v.as_bytes()))
        };
        let new: Vec<NewRespondent> = rows
            .iter()
            .map(|row| {
                let nonce = self.crypto.random_base62(NONCE_LEN);
                let r = row.external_ref.as_str();
                let ref_digest = self.crypto.keyed_digest(DigestPurpose::RespondentRef, &ref_digest_input(id, r));
                NewRespondent {
                    id: RespondentId::new_random(),
                    campaign_id: id,
                    ref_sealed: self.crypto.seal(&ref_seal_context(id, &ref_digest), r.as_bytes()),
                    ref_digest,
                    name_sealed: seal(r, "name", &row.name),
                    email_sealed: seal(r, "email", &row.email),
                    phone_sealed: seal(r, "phone", &row.phone),
                    time_zone_sealed: seal(r, "timeZone", &row.time_zone.as_ref().map(|z| z.as_str().to_owned())),
                    invitation_digest: self.crypto.keyed_digest(DigestPurpose::LinkNonce, nonce.as_bytes()),
                    invitation_sealed: self.crypto.seal(&seal_context(id, r, "invitation"), nonce.as_bytes()),
                    at: now,
                }
            })
            .collect();
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::AudienceAttached, id, now);
        let stored = self.repo.upsert_respondents(id, &new, &audit).await?;
        rows.into_iter()
            .zip(stored)
            .map(|(row, stored)| {
                let nonce =
                    self.crypto.open(&seal_context(id, &row.external_ref, "invitation"), &stored.invitation_sealed)?;
                let nonce = String::from_utf8(nonce).map_err(Error::internal)?;
                Ok(AttachedRespondent {
                    invitation_url: format!("{}/s/{}/{nonce}", self.survey_url, overview.campaign.code),
                    external_ref: row.external_ref,
                    respondent_id: stored.id,
                    outcome: stored.outcome,
                    responded: stored.responded,
                })
            })
            .collect()
    }

    /// Digests and seals every audience reference still stored in clear, batch by batch, and
    /// returns how many it converted and how many it had to leave (their digest is taken: see
    /// [`CampaignRepository::store_digested_refs`]). Idempotent: any replica may run it at any time.
    ///
    /// # Errors
    /// Port errors; what was converted before one stays converted.
    pub async fn digest_clear_refs(&self) -> Result<RefConversion> {
        let mut done = RefConversion::default();
        let mut after = None;
        loop {
            let batch = self.repo.clear_refs(after, REF_BATCH).await?;
            let Some(last) = batch.last() else { break };
            after = Some(last.id);
            let digested: Vec<DigestedRef> = batch
                .iter()
                .map(|clear| {
                    let digest = self.crypto.keyed_digest(
                        DigestPurpose::RespondentRef,
                        &ref_digest_input(clear.campaign_id, &clear.external_ref),
                    );
                    DigestedRef {
                        id: clear.id,
                        sealed: self
                            .crypto
                            .seal(&ref_seal_context(clear.campaign_id, &digest), clear.external_ref.as_bytes()),
                        digest,
                    }
                })
                .collect();
            let converted = self.repo.store_digested_refs(&digested).await?;
            done.converted += converted;
            done.left += batch.len() - converted;
            if batch.len() < REF_BATCH {
                break;
            }
        }
        Ok(done)
    }

    /// Mints a single-use link of about ten minutes: `/p/<code>?lt=` for an open campaign,
    /// `/s/<code>/<nonce>` for a closed-list one.
    ///
    /// # Errors
    /// `InsufficientPermission` without `sessions:launch`; workspace resolution errors;
    /// `ValidationFailed` naming the field; `NotFound`; `CampaignNotCollecting` unless `ACTIVE`;
    /// port errors.
    pub async fn mint_link(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        input: LaunchInput,
    ) -> Result<MintedLink> {
        principal.require_scope(Scope::LAUNCH)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let request = LaunchRequest::parse(input)?;
        let collecting = |c: &Campaign| c.status == CampaignStatus::Active;
        let (campaign, survey) = self
            .copies
            .by_id(workspace, request.campaign_id, self.clock.now(), collecting, async {
                self.repo.find_campaign(workspace, request.campaign_id).await
            })
            .await?
            .ok_or_else(|| Error::not_found("campaign"))?;
        if !collecting(&campaign) {
            return Err(not_collecting(campaign.status));
        }
        let language = survey.resolve_language(request.language.as_deref()).clone();
        let now = self.clock.now();
        let expires_at = (now + LINK_LIFETIME).replace_nanosecond(0).unwrap_or(now + LINK_LIFETIME);
        let id = LaunchLinkId::new_random();
        let mut link = LaunchLink {
            id,
            campaign_id: campaign.id,
            nonce_digest: None,
            respondent_id: None,
            language: Some(language.clone()),
            external_user_digest: request
                .external_user_ref
                .as_ref()
                .map(|r| self.crypto.keyed_digest(DigestPurpose::ExternalUser, r.as_bytes())),
            context: request.context,
            expires_at: Some(expires_at),
            spent_at: None,
            created_at: now,
        };
        let url = match campaign.audience {
            AudienceMode::Open => {
                let token = self.tokens.sign_link(&LaunchClaims {
                    campaign: campaign.id.to_string(),
                    exp: expires_at.unix_timestamp(),
                    jti: id.to_string(),
                    ..LaunchClaims::default()
                })?;
                format!("{}/p/{}?lt={token}&lang={language}", self.survey_url, campaign.code)
            }
            AudienceMode::Closed => {
                let nonce = self.crypto.random_base62(NONCE_LEN);
                link.nonce_digest = Some(self.crypto.keyed_digest(DigestPurpose::LinkNonce, nonce.as_bytes()));
                format!("{}/s/{}/{nonce}?lang={language}", self.survey_url, campaign.code)
            }
        };
        self.repo.insert_launch_link(&link).await?;
        Ok(MintedLink { url, expires_at })
    }
}
