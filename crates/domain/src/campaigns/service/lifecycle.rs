//! The partner's campaign list, and a campaign's lifecycle: launching, pausing, resuming and
//! closing it, each with one read of the campaign and one update.

use crate::audit::models::{AuditAction, AuditEntry};
use crate::campaigns::models::{CampaignOverview, CampaignStatus, ListedCampaign, Transition};
use crate::campaigns::ports::{CampaignRepository, LaunchRepository, LaunchTokenCodec, SurveyGenerator};
use crate::campaigns::service::{CampaignView, Campaigns};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::CampaignId;
use crate::outreach::ports::OutreachRepository;
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;
use crate::shared::paging::{Cursors, Page, PageKey};
use crate::tenancy::models::{Principal, Scope};

impl<R, G, C, K, T> Campaigns<R, G, C, K, T>
where
    R: CampaignRepository + LaunchRepository + OutreachRepository,
    G: SurveyGenerator,
    C: Crypto,
    K: Clock,
    T: LaunchTokenCodec,
{
    /// Makes a launch-ready campaign `ACTIVE`; launching an active campaign again changes nothing.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:provision`; workspace resolution errors;
    /// `NotFound`; `NotLaunchReady` naming the blockers; port errors.
    pub async fn launch(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
    ) -> Result<CampaignOverview> {
        principal.require_scope(Scope::PROVISION)?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let overview = self.repo.campaign_overview(workspace, id).await?.ok_or_else(|| Error::not_found("campaign"))?;
        match overview.campaign.status {
            CampaignStatus::Draft => {}
            CampaignStatus::Active => return Ok(overview),
            CampaignStatus::Paused => {
                return Err(Error::refused(
                    ErrorCode::Conflict,
                    "the campaign is PAUSED: it was launched already; resume it with POST /campaigns/{id}/resume",
                ));
            }
            CampaignStatus::Closed => {
                return Err(Error::refused(
                    ErrorCode::Conflict,
                    "the campaign is CLOSED: a closed campaign cannot launch again",
                ));
            }
        }
        let blockers = overview.blockers(&self.message_channels);
        if !blockers.is_empty() {
            let named: Vec<String> = blockers.iter().map(|b| format!("{} ({})", b.code, b.description)).collect();
            return Err(Error::refused(
                ErrorCode::NotLaunchReady,
                format!("the campaign cannot launch yet: {}", named.join("; ")),
            ));
        }
        let mut overview = overview;
        let now = self.clock.now();
        let audit = AuditEntry::by_key(principal, workspace, AuditAction::CampaignLaunched, id, now);
        match self
            .repo
            .change_campaign_status(id, &[CampaignStatus::Draft], CampaignStatus::Active, now, Some(&audit))
            .await?
        {
            Some(launched) => overview.campaign = launched,
            // Launched by a request of its own meanwhile: as launching again, nothing to change.
            None => {
                overview =
                    self.repo.campaign_overview(workspace, id).await?.ok_or_else(|| Error::not_found("campaign"))?;
                if overview.campaign.status != CampaignStatus::Active {
                    return Err(Error::refused(
                        ErrorCode::Conflict,
                        "the campaign changed status meanwhile; read it and try again",
                    ));
                }
            }
        }
        Ok(overview)
    }

    /// A page of the workspace's campaigns, oldest first, of one status when `status` is given;
    /// campaigns created while a partner pages land on later pages.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:provision` or `channel:results`; workspace
    /// resolution errors; `ValidationFailed` naming `status`, `limit` or `cursor`; port errors.
    pub async fn list(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        status: Option<&str>,
        limit: Option<&str>,
        cursor: Option<&str>,
    ) -> Result<Page<ListedCampaign>> {
        principal.require_any_scope(&[Scope::PROVISION, Scope::RESULTS])?;
        let workspace = principal.resolve_workspace(workspace_header)?;
        let status = status
            .map(|s| {
                CampaignStatus::parse(s).ok_or_else(|| {
                    let known: Vec<&str> = CampaignStatus::ALL.iter().map(|s| s.as_str()).collect();
                    Error::validation("status", format!("must be one of {}", known.join(", ")))
                })
            })
            .transpose()?;
        // A cursor of one status's list is refused by the others: positions skip differently.
        let cursors =
            Cursors::new(&self.crypto, format!("campaigns/{workspace}/{}", status.map_or("", CampaignStatus::as_str)));
        let request = cursors.request(limit, cursor)?;
        let rows = self.repo.list_campaigns(workspace, status, &request).await?;
        Ok(cursors.page(&request, rows, |c| PageKey { position: c.position }))
    }

    /// Pauses, resumes or closes the campaign. Asking for the status it is in already changes
    /// nothing and answers it as it is.
    ///
    /// # Errors
    /// `InsufficientPermission` without `channel:provision`; workspace resolution errors;
    /// `NotFound`; `Conflict` when the campaign's status does not allow the change (a draft is
    /// launched, not resumed; closing is final); port errors.
    pub async fn change_status(
        &self,
        principal: &Principal,
        workspace_header: Option<&str>,
        id: CampaignId,
        transition: Transition,
    ) -> Result<CampaignView> {
        principal.require_scope(Scope::PROVISION)?;
        // A concurrent change can move the campaign between the read and the update: read again
        // once, and judge the change against what it is then.
        for _ in 0..2 {
            let view = self.get(principal, workspace_header, id).await?;
            let from = view.overview.campaign.status;
            let to = transition.target(from).map_err(|why| refused(transition, from, why))?;
            if to == from {
                return Ok(view);
            }
            let now = self.clock.now();
            let workspace = view.overview.campaign.workspace_id;
            let audit = AuditEntry::by_key(principal, workspace, audited(transition), id, now);
            if let Some(changed) = self.repo.change_campaign_status(id, &[from], to, now, Some(&audit)).await? {
                let mut view = view;
                view.overview.campaign = changed;
                return Ok(view);
            }
        }
        Err(Error::refused(ErrorCode::Conflict, "the campaign changed status meanwhile; read it and try again"))
    }
}

const fn audited(transition: Transition) -> AuditAction {
    match transition {
        Transition::Pause => AuditAction::CampaignPaused,
        Transition::Resume => AuditAction::CampaignResumed,
        Transition::Close => AuditAction::CampaignClosed,
    }
}

fn refused(transition: Transition, from: CampaignStatus, why: &str) -> Error {
    Error::refused(ErrorCode::Conflict, format!("a {} campaign cannot be {}: {why}", from.as_str(), transition.done()))
}
