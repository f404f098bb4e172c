//! What campaigns need from the world: storage, survey generation and launch-token signing.
use crate::audit::models::AuditEntry;
use crate::campaigns::models::{
    Brief, Campaign, CampaignOverview, CampaignStatus, ClearRef, DigestedRef, GeneratedSurvey, LaunchClaims, LaunchKey,
    LaunchLink, ListedCampaign, NewRespondent, Survey, UpsertedRespondent,
};
use crate::error::Result;
use crate::ids::{BusinessId, CampaignId, LaunchKeyId, LaunchLinkId, RespondentId, SurveyId, WorkspaceId};
use crate::shared::paging::PageRequest;
use std::future::Future;
use time::OffsetDateTime;

/// Surveys, campaigns and their audiences.
pub trait CampaignRepository: Send + Sync + 'static {
    /// Publishes `survey` (when it is new) and creates the campaign, in one transaction.
    ///
    /// # Errors
    /// `Conflict` when the campaign's public code is taken (the caller draws another);
    /// `Internal`/`Unavailable` otherwise.
    fn create_campaign(&self, survey: Option<&Survey>, campaign: &Campaign) -> impl Future<Output = Result<()>> + Send;

    /// A survey of the workspace; `None` for an unknown one or another workspace's.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_survey(&self, workspace: WorkspaceId, id: SurveyId) -> impl Future<Output = Result<Option<Survey>>> + Send;

    /// A campaign of the workspace with its survey, workspace status and counts.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn campaign_overview(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
    ) -> impl Future<Output = Result<Option<CampaignOverview>>> + Send;

    /// A campaign of the workspace with its survey, without counting anything (minting reads it).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_campaign(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
    ) -> impl Future<Output = Result<Option<(Campaign, Survey)>>> + Send;

    /// The campaign with this public code, with its survey.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_campaign_by_code(&self, code: &str) -> impl Future<Output = Result<Option<(Campaign, Survey)>>> + Send;

    /// A campaign in any workspace of the business (Studio routes).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_campaign_in_business(
        &self,
        business: BusinessId,
        id: CampaignId,
    ) -> impl Future<Output = Result<Option<Campaign>>> + Send;

    /// A page of the workspace's campaigns in the order they were created (after `page.after`, at
    /// most `page.limit + 1` of them), only those in `status` when given.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn list_campaigns(
        &self,
        workspace: WorkspaceId,
        status: Option<CampaignStatus>,
        page: &PageRequest,
    ) -> impl Future<Output = Result<Vec<ListedCampaign>>> + Send;

    /// Sets the campaign's status to `to` at `at` when it is one of `from`, and returns the
    /// campaign as it is then: a campaign made `ACTIVE` the first time gets its `launched_at`, a
    /// campaign closed its `closed_at`. `None` when it is in another status by now, or unknown.
    /// `audit` (a partner's action; `None` for the service's own) is written with the change, in
    /// the same transaction, only when there is one.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn change_campaign_status(
        &self,
        id: CampaignId,
        from: &[CampaignStatus],
        to: CampaignStatus,
        at: OffsetDateTime,
        audit: Option<&AuditEntry>,
    ) -> impl Future<Output = Result<Option<Campaign>>> + Send;

    /// Creates or updates the respondents by reference digest in one transaction; a new
    /// respondent gets its invitation link, an existing one keeps its own (and its sealed
    /// reference). Attaching respondents to a draft campaign makes it closed-list. `audit` is
    /// written in the same transaction.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
        audit: &AuditEntry,
    ) -> impl Future<Output = Result<Vec<UpsertedRespondent>>> + Send;

    /// Up to `limit` respondents whose reference is still in clear, by id after `after`.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn clear_refs(
        &self,
        after: Option<RespondentId>,
        limit: usize,
    ) -> impl Future<Output = Result<Vec<ClearRef>>> + Send;

    /// Replaces each respondent's clear reference with its digest and sealed copy, and returns how
    /// many it converted. A respondent converted meanwhile is left alone, and so is one whose
    /// digest another respondent of its campaign holds already (the reference was attached again
    /// by this version before the old row was converted).
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn store_digested_refs(&self, refs: &[DigestedRef]) -> impl Future<Output = Result<usize>> + Send;
}

/// Launch keys, minted links and spent tokens.
pub trait LaunchRepository: Send + Sync + 'static {
    /// Keys of the campaign not revoked, by slot.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn active_launch_keys(&self, campaign: CampaignId) -> impl Future<Output = Result<Vec<LaunchKey>>> + Send;

    /// An active key of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_launch_key(
        &self,
        campaign: CampaignId,
        id: LaunchKeyId,
    ) -> impl Future<Output = Result<Option<LaunchKey>>> + Send;

    /// Stores the key in the lowest free slot (its `slot` field is ignored) and returns it as stored.
    ///
    /// # Errors
    /// `LaunchKeySlotsFull` when every slot holds an active key; `Internal`/`Unavailable` otherwise.
    fn insert_launch_key(&self, key: &LaunchKey) -> impl Future<Output = Result<LaunchKey>> + Send;

    /// Revokes an active key of the campaign at `at`; `false` when there is none with this id.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn revoke_launch_key(
        &self,
        campaign: CampaignId,
        id: LaunchKeyId,
        at: OffsetDateTime,
    ) -> impl Future<Output = Result<bool>> + Send;

    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn set_require_signed(&self, campaign: CampaignId, required: bool) -> impl Future<Output = Result<()>> + Send;

    /// # Errors
    /// `CampaignNotCollecting` when the link's campaign is not `ACTIVE` when it is written (the
    /// caller may have read a copy from before a pause or close), and as `CLOSED` when the campaign
    /// is gone; `Internal`/`Unavailable` otherwise.
    fn insert_launch_link(&self, link: &LaunchLink) -> impl Future<Output = Result<()>> + Send;

    /// A minted link of the campaign, spent or not.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_launch_link(
        &self,
        campaign: CampaignId,
        id: LaunchLinkId,
    ) -> impl Future<Output = Result<Option<LaunchLink>>> + Send;

    /// The `/s/` link of the campaign whose nonce has this keyed digest.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn find_link_by_nonce(
        &self,
        campaign: CampaignId,
        nonce_digest: &[u8],
    ) -> impl Future<Output = Result<Option<LaunchLink>>> + Send;

    /// Whether a partner-signed token with this `jti` already started a session of the campaign.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn token_spent(&self, campaign: CampaignId, jti: &str) -> impl Future<Output = Result<bool>> + Send;

    /// Forgets spent `jti`s whose tokens expired before `before` (they can no longer verify), and
    /// spent challenges that expired before it.
    ///
    /// # Errors
    /// `Internal` or `Unavailable` on infrastructure failure.
    fn purge_spent_tokens(&self, before: OffsetDateTime) -> impl Future<Output = Result<u64>> + Send;
}

/// Writes a survey from a brief.
pub trait SurveyGenerator: Send + Sync + 'static {
    /// Drafts `brief.question_count` questions in every language of the brief, in its tone, with
    /// no text that mentions a banned topic, mixing at least one rating question with open ones.
    ///
    /// # Errors
    /// `ValidationFailed` naming `brief.constraints.languages` when asked for a language it cannot
    /// write (it never fills one language with another's text), or naming
    /// `brief.constraints.bannedTopics` when the bans leave too few questions; `Unavailable` or
    /// `Internal` for a generator behind a network.
    fn generate(&self, brief: &Brief) -> impl Future<Output = Result<GeneratedSurvey>> + Send;
}

impl<G: SurveyGenerator> SurveyGenerator for std::sync::Arc<G> {
    fn generate(&self, brief: &Brief) -> impl Future<Output = Result<GeneratedSurvey>> + Send {
        (**self).generate(brief)
    }
}

/// Signing and verifying launch tokens (JWT, HS256 only).
pub trait LaunchTokenCodec: Send + Sync + 'static {
    /// The `kid` of a token whose header says `alg: HS256`; `None` for anything else (another
    /// algorithm, `none`, no `kid`, not a JWT).
    fn key_id(&self, token: &str) -> Option<String>;

    /// The claims when the HS256 signature verifies under `secret` (the UTF-8 bytes of a launch-key
    /// secret) and `campaign`, `exp` and `jti` are present; expiry is the caller's to check.
    fn verify(&self, token: &str, secret: &[u8]) -> Option<LaunchClaims>;

    /// Signs a minted link's token with the service's own key, `kid` = [`SERVER_KID`].
    ///
    /// # Errors
    /// `Internal` when signing fails.
    fn sign_link(&self, claims: &LaunchClaims) -> Result<String>;

    /// The claims of a token [`LaunchTokenCodec::sign_link`] made.
    fn verify_link(&self, token: &str) -> Option<LaunchClaims>;
}

impl<T: LaunchTokenCodec> LaunchTokenCodec for std::sync::Arc<T> {
    fn key_id(&self, token: &str) -> Option<String> {
        (**self).key_id(token)
    }

    fn verify(&self, token: &str, secret: &[u8]) -> Option<LaunchClaims> {
        (**self).verify(token, secret)
    }

    fn sign_link(&self, claims: &LaunchClaims) -> Result<String> {
        (**self).sign_link(claims)
    }

    fn verify_link(&self, token: &str) -> Option<LaunchClaims> {
        (**self).verify_link(token)
    }
}
