//! A campaign's status and signing rule as the group writers read them in their own transaction:
//! the service decided on a copy that may predate a pause, a close or `requireSigned`.

use diesel::prelude::*;
use diesel::result::Error as DieselError;
use diesel::sql_types::{Bool, Text, Uuid as SqlUuid};
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use pulse_domain::campaigns::models::CampaignStatus;
use uuid::Uuid;

use crate::schema::campaigns;

/// A campaign's status and signing rule as a group writer reads them, in its own transaction.
#[derive(Queryable, QueryableByName)]
pub(crate) struct CampaignState {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) id: Uuid,
    #[diesel(sql_type = Text)]
    pub(crate) status: String,
    #[diesel(sql_type = Bool)]
    pub(crate) require_signed: bool,
}

/// The status of `campaign` among `states` when it no longer collects (a campaign not found is
/// closed); `None` while it does.
pub(crate) fn stopped(states: &[CampaignState], campaign: Uuid) -> Option<CampaignStatus> {
    match states.iter().find(|c| c.id == campaign).and_then(|c| CampaignStatus::parse(&c.status)) {
        Some(CampaignStatus::Active) => None,
        other => Some(other.unwrap_or(CampaignStatus::Closed)),
    }
}

/// The status and signing rule of a group's campaigns as they are now: the service decided on a
/// copy of each campaign that may predate a pause, a close or `requireSigned`. A start or register
/// written after a pause or close has committed finds the campaign so.
pub(crate) async fn campaign_states(
    conn: &mut AsyncPgConnection,
    campaigns: impl Iterator<Item = Uuid>,
) -> Result<Vec<CampaignState>, DieselError> {
    let mut ids: Vec<Uuid> = campaigns.collect();
    ids.sort_unstable();
    ids.dedup();
    campaigns::table
        .filter(campaigns::id.eq_any(ids))
        .select((campaigns::id, campaigns::status, campaigns::require_signed))
        .load(conn)
        .await
}
