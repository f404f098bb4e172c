//! Typed identifiers, so a workspace id is never passed where a business id belongs.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub Uuid);

        impl $name {
            pub fn new_random() -> Self {
                Self(Uuid::new_v4())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }

        impl FromStr for $name {
            type Err = uuid::Error;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s).map(Self)
            }
        }

        impl From<Uuid> for $name {
            fn from(id: Uuid) -> Self {
                Self(id)
            }
        }
    };
}

id_type!(
    /// A business: the tenant that owns workspaces and service accounts.
    BusinessId
);
id_type!(
    /// A workspace: one of a partner's clients.
    WorkspaceId
);
id_type!(
    /// A service account: the owner of API keys.
    ServiceAccountId
);
id_type!(
    /// An API key (the row, never the secret).
    ApiKeyId
);
id_type!(
    /// A published survey.
    SurveyId
);
id_type!(
    /// A campaign (the public code is separate).
    CampaignId
);
id_type!(
    /// A respondent of a campaign's audience.
    RespondentId
);
id_type!(
    /// A respondent session (one person answering once).
    SessionId
);
id_type!(
    /// A launch key of a campaign; also the `kid` of the tokens it signs.
    LaunchKeyId
);
id_type!(
    /// A minted single-use launch link or invitation.
    LaunchLinkId
);
id_type!(
    /// One install of an app on a phone, issued by the service at register (the spec's `deviceId`).
    DeviceId
);
id_type!(
    /// A person an app named at register; derived from the partner's `externalId` when one is given.
    AppUserId
);
id_type!(
    /// A device's registration against one campaign (the spec's install `id`).
    AppInstallId
);
id_type!(
    /// A partner's webhook endpoint (a subscription).
    WebhookId
);
id_type!(
    /// An event in the outbox; receivers deduplicate on it.
    EventId
);
id_type!(
    /// One event's delivery to one endpoint, with all its attempts.
    DeliveryId
);
id_type!(
    /// A partner's export of a campaign's results, and its file.
    ExportId
);
id_type!(
    /// One outreach message (an invitation, a reminder or a thank-you) to one person on one channel.
    MessageId
);
id_type!(
    /// A recording of a spoken answer at the voice provider (the row, never the audio).
    RecordingId
);
id_type!(
    /// The record of one erasure.
    ErasureId
);
