//! The request and response bodies of the export routes, and their conversions to and from the
//! domain.

use pulse_domain::Error;
use pulse_domain::exports::models::{ExportFormat, ExportRecord, ExportRequest, ExportStatus};
use pulse_domain::exports::service::DownloadLink;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum FormatBody {
    Json,
    Pdf,
}

impl FormatBody {
    const fn domain(self) -> ExportFormat {
        match self {
            FormatBody::Json => ExportFormat::Json,
            FormatBody::Pdf => ExportFormat::Pdf,
        }
    }
}

impl From<ExportFormat> for FormatBody {
    fn from(f: ExportFormat) -> Self {
        match f {
            ExportFormat::Json => FormatBody::Json,
            ExportFormat::Pdf => FormatBody::Pdf,
        }
    }
}

/// `QUEUED` until a worker takes it, `RUNNING` while rendered, then `READY`, `FAILED` (after three
/// attempts) or, once the file's seven days are over, `EXPIRED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExportStatusBody {
    Queued,
    Running,
    Ready,
    Failed,
    Expired,
}

impl From<ExportStatus> for ExportStatusBody {
    fn from(s: ExportStatus) -> Self {
        match s {
            ExportStatus::Queued => ExportStatusBody::Queued,
            ExportStatus::Running => ExportStatusBody::Running,
            ExportStatus::Ready => ExportStatusBody::Ready,
            ExportStatus::Failed => ExportStatusBody::Failed,
            ExportStatus::Expired => ExportStatusBody::Expired,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportRequestBody {
    pub format: FormatBody,
    /// Verbatim answers, contact details redacted and never with identity: JSON only, and the key
    /// needs `channel:transcripts`. Left out while the campaign is below its anonymity floor.
    #[serde(default)]
    #[schema(default = false)]
    pub include_transcripts: bool,
}

impl TryFrom<ExportRequestBody> for ExportRequest {
    type Error = Error;

    fn try_from(body: ExportRequestBody) -> Result<Self, Error> {
        ExportRequest::parse(body.format.domain().as_str(), body.include_transcripts)
    }
}

/// Why an export failed: a class code and a sentence, never the cause's detail.
#[derive(Debug, Serialize, ToSchema)]
pub struct ExportFailureBody {
    /// `RENDER_FAILED` or `STORAGE_UNAVAILABLE`.
    #[schema(example = "RENDER_FAILED")]
    pub code: String,
    pub description: String,
}

/// A signed link to the file, minted afresh on every read.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DownloadBody {
    /// `…/api/v1/channel/downloads/{token}/{filename}`: needs no key, works for 15 minutes (never
    /// past the file's expiry) and 20 fetches an hour, and dies with the key that read it.
    #[schema(format = "uri")]
    pub url: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

/// An export of a campaign's aggregate results.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportBody {
    pub id: Uuid,
    pub campaign_id: Uuid,
    pub format: FormatBody,
    pub include_transcripts: bool,
    pub status: ExportStatusBody,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When the last rendering attempt started.
    #[serde(with = "time::serde::rfc3339::option")]
    pub started_at: Option<OffsetDateTime>,
    /// When it became `READY` or `FAILED`.
    #[serde(with = "time::serde::rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
    /// Set when `FAILED`.
    pub failure: Option<ExportFailureBody>,
    /// When the file is deleted (seven days after it was rendered).
    #[serde(with = "time::serde::rfc3339::option")]
    pub expires_at: Option<OffsetDateTime>,
    pub byte_size: Option<u64>,
    /// Lower-case hex SHA-256 of the file.
    pub sha256: Option<String>,
    /// Only when `READY`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadBody>,
}

impl ExportBody {
    pub fn new(record: ExportRecord, link: Option<DownloadLink>) -> Self {
        Self {
            id: record.id.0,
            campaign_id: record.campaign_id.0,
            format: record.format.into(),
            include_transcripts: record.include_transcripts,
            status: record.status.into(),
            created_at: record.created_at,
            started_at: record.started_at,
            finished_at: record.finished_at,
            failure: record.failure.map(|f| ExportFailureBody { code: f.code, description: f.description }),
            expires_at: record.expires_at,
            byte_size: record.byte_size,
            sha256: record.sha256,
            download: link.map(|l| DownloadBody { url: l.url, expires_at: l.expires_at }),
        }
    }
}
