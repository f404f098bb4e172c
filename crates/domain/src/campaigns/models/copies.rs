//! Campaigns read recently, for the paths that read one on every request: minting a link,
//! starting a session, answering, registering an app.
//!
//! A copy is served for less than [`CAMPAIGN_COPY_TTL`]. What it may decide, and why that stays
//! exact: a campaign's code, audience and survey never change; its status only moves from `DRAFT`
//! to `ACTIVE`, and a copy that would refuse is read again before refusing; `requireSigned` may
//! change at any time, so a start without a token is checked against it again when the session is
//! written (`SessionStore::start_session`).

use crate::campaigns::models::{Campaign, Survey};
use crate::error::Result;
use crate::ids::{CampaignId, WorkspaceId};
use crate::shared::recent::RecentCopies;
use std::future::Future;
use time::{Duration, OffsetDateTime};

/// How long a campaign read from the store is trusted.
pub const CAMPAIGN_COPY_TTL: Duration = Duration::seconds(1);

/// Unknown campaigns are never kept, so this bounds the campaigns in use, not what callers send.
const MAX_CAMPAIGN_COPIES: usize = 10_000;

pub struct CampaignCopies {
    by_code: RecentCopies<String, (Campaign, Survey)>,
    by_id: RecentCopies<(WorkspaceId, CampaignId), (Campaign, Survey)>,
}

impl Default for CampaignCopies {
    fn default() -> Self {
        Self {
            by_code: RecentCopies::new(CAMPAIGN_COPY_TTL, MAX_CAMPAIGN_COPIES),
            by_id: RecentCopies::new(CAMPAIGN_COPY_TTL, MAX_CAMPAIGN_COPIES),
        }
    }
}

impl CampaignCopies {
    /// The campaign with the public `code`: a recent copy when `usable` accepts it, else `read`
    /// (awaited only then) from the store.
    ///
    /// # Errors
    /// `read`'s errors.
    pub async fn by_code(
        &self,
        code: &str,
        now: OffsetDateTime,
        usable: impl Fn(&Campaign) -> bool,
        read: impl Future<Output = Result<Option<(Campaign, Survey)>>>,
    ) -> Result<Option<(Campaign, Survey)>> {
        if let Some(copy) = self.by_code.get(code, now).filter(|(campaign, _)| usable(campaign)) {
            return Ok(Some(copy));
        }
        let found = read.await?;
        if let Some(found) = &found {
            self.by_code.put(code.to_owned(), found.clone(), now);
        }
        Ok(found)
    }

    /// As [`Self::by_code`], for the campaign `id` of `workspace` (another workspace's campaign is
    /// never found, so never kept under this one).
    ///
    /// # Errors
    /// `read`'s errors.
    pub async fn by_id(
        &self,
        workspace: WorkspaceId,
        id: CampaignId,
        now: OffsetDateTime,
        usable: impl Fn(&Campaign) -> bool,
        read: impl Future<Output = Result<Option<(Campaign, Survey)>>>,
    ) -> Result<Option<(Campaign, Survey)>> {
        if let Some(copy) = self.by_id.get(&(workspace, id), now).filter(|(campaign, _)| usable(campaign)) {
            return Ok(Some(copy));
        }
        let found = read.await?;
        if let Some(found) = &found {
            self.by_id.put((workspace, id), found.clone(), now);
        }
        Ok(found)
    }
}
