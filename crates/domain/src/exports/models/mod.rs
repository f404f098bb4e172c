//! Exports of a campaign's aggregate results: the record a partner polls, its life from QUEUED to
//! READY, FAILED or EXPIRED, the `svc.partner-export.v1.2` document, and the signed download link.

use time::{Duration, OffsetDateTime};
use uuid::Uuid;

use crate::analysis::models::{ModelInfo, Rejection};
use crate::campaigns::models::{CampaignStatus, QuestionKind};
use crate::error::{Error, Result};
use crate::ids::{ApiKeyId, CampaignId, EventId, ExportId, WorkspaceId};
use crate::results::models::{
    CampaignResults, Csat, Interval, LabelCount, Nps, QuestionResult, ThemeCount, Transcript, Trend, TrendBucket,
};
use crate::shared::time_zone::TimeZoneName;
use crate::webhooks::models::{EventType, NewEvent};
use serde_json::{Map, json};

mod language;
mod narrative;

pub use language::{NumberFormat, Plural, ReportLanguage, fill};
use narrative::{Facts, narrative};

/// The open schema every export file names.
pub const SCHEMA_NAME: &str = "svc.partner-export.v1.2";
/// How long a rendered file is kept.
pub const RETENTION: Duration = Duration::days(7);
/// How long a minted download link works (never past the file's retention).
pub const LINK_LIFETIME: Duration = Duration::minutes(15);
/// Fetches one link allows per hour.
pub const FETCHES_PER_LINK_HOUR: u32 = 20;
/// How long a claimed export is held before another worker may take it over.
pub const EXPORT_LEASE: Duration = Duration::minutes(10);
/// Exports claimed per round: rendering is heavy.
pub const EXPORT_BATCH: u32 = 2;
/// Rendering attempts before an export is FAILED.
pub const MAX_ATTEMPTS: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    Json,
    Pdf,
}

impl ExportFormat {
    pub const fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Pdf => "pdf",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [ExportFormat::Json, ExportFormat::Pdf].into_iter().find(|f| f.as_str() == text)
    }

    pub const fn content_type(self) -> &'static str {
        match self {
            ExportFormat::Json => "application/json",
            ExportFormat::Pdf => "application/pdf",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportStatus {
    Queued,
    Running,
    Ready,
    Failed,
    Expired,
}

impl ExportStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            ExportStatus::Queued => "QUEUED",
            ExportStatus::Running => "RUNNING",
            ExportStatus::Ready => "READY",
            ExportStatus::Failed => "FAILED",
            ExportStatus::Expired => "EXPIRED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [ExportStatus::Queued, ExportStatus::Running, ExportStatus::Ready, ExportStatus::Failed, ExportStatus::Expired]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// Why an export failed, for the partner: a class code and a sentence, never a cause's detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportFailure {
    pub code: String,
    pub description: String,
}

/// What a partner asks for, as validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportRequest {
    pub format: ExportFormat,
    pub include_transcripts: bool,
}

impl ExportRequest {
    /// # Errors
    /// `ValidationFailed` naming `format` (json or pdf) or `includeTranscripts` (JSON only).
    pub fn parse(format: &str, include_transcripts: bool) -> Result<Self> {
        let format =
            ExportFormat::parse(format).ok_or_else(|| Error::validation("format", "must be `json` or `pdf`"))?;
        if include_transcripts && format == ExportFormat::Pdf {
            return Err(Error::validation("includeTranscripts", "is for JSON exports only"));
        }
        Ok(Self { format, include_transcripts })
    }
}

/// An export as stored: the file itself lives in the export store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportRecord {
    pub id: ExportId,
    pub workspace_id: WorkspaceId,
    pub campaign_id: CampaignId,
    pub campaign_code: String,
    pub format: ExportFormat,
    pub include_transcripts: bool,
    pub status: ExportStatus,
    /// The key that asked: its revocation kills every link to the file.
    pub requested_by: ApiKeyId,
    pub created_at: OffsetDateTime,
    pub started_at: Option<OffsetDateTime>,
    pub finished_at: Option<OffsetDateTime>,
    pub failure: Option<ExportFailure>,
    /// When a READY file is deleted.
    pub expires_at: Option<OffsetDateTime>,
    pub byte_size: Option<u64>,
    /// Hex SHA-256 of the file.
    pub sha256: Option<String>,
    /// Rendering attempts made.
    pub attempts: u32,
}

impl ExportRecord {
    /// The file's name: `pulse-<campaign code>-<export id>.<json|pdf>`.
    pub fn filename(&self) -> String {
        format!("pulse-{}-{}.{}", self.campaign_code, self.id, self.format.as_str())
    }

    /// `export.ready` for this export's file of `byte_size` bytes: ids, format and size only.
    pub fn ready_event(&self, id: EventId, byte_size: u64, at: OffsetDateTime) -> NewEvent {
        let mut payload = Map::new();
        payload.insert("exportId".into(), json!(self.id));
        payload.insert("campaignId".into(), json!(self.campaign_id));
        payload.insert("format".into(), json!(self.format.as_str()));
        payload.insert("byteSize".into(), json!(byte_size));
        NewEvent {
            id,
            workspace_id: self.workspace_id,
            event_type: EventType::ExportReady,
            aggregate: crate::webhooks::models::aggregate::EXPORT,
            aggregate_id: self.id.0,
            payload,
            occurred_at: at,
        }
    }
}

/// A claimed export, with the token that proves the claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportJob {
    pub record: ExportRecord,
    pub claim_token: Uuid,
}

/// A rendered file, as the worker that holds its export records it.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedExport {
    pub id: ExportId,
    pub claim_token: Uuid,
    pub at: OffsetDateTime,
    pub byte_size: u64,
    /// Hex SHA-256 of the file.
    pub sha256: String,
    /// When the file is deleted.
    pub expires_at: OffsetDateTime,
    /// Its `export.ready` event.
    pub ready: NewEvent,
}

/// What a download link names. The link is this, MAC-signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DownloadClaims {
    pub export: ExportId,
    /// One per minted link: fetches are counted per link.
    pub link: Uuid,
    pub key: ApiKeyId,
    pub expires_at: OffsetDateTime,
}

const CLAIMS_LEN: usize = 16 * 3 + 8;

impl DownloadClaims {
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(CLAIMS_LEN);
        bytes.extend_from_slice(self.export.0.as_bytes());
        bytes.extend_from_slice(self.link.as_bytes());
        bytes.extend_from_slice(self.key.0.as_bytes());
        bytes.extend_from_slice(&self.expires_at.unix_timestamp().to_be_bytes());
        bytes
    }

    /// `None` for bytes [`DownloadClaims::encode`] did not make.
    pub fn decode(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != CLAIMS_LEN {
            return None;
        }
        let uuid = |at: usize| Uuid::from_slice(&bytes[at..at + 16]).ok();
        let seconds = i64::from_be_bytes(bytes[48..56].try_into().ok()?);
        Some(Self {
            export: ExportId(uuid(0)?),
            link: uuid(16)?,
            key: ApiKeyId(uuid(32)?),
            expires_at: OffsetDateTime::from_unix_timestamp(seconds).ok()?,
        })
    }
}

/// The `svc.partner-export.v1.2` document: aggregates only, under the same anonymity floor as
/// results, and verbatim answers only when asked for and allowed.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportDocument {
    /// What the narrative and the report's own words are written in.
    pub language: ReportLanguage,
    pub generated_at: OffsetDateTime,
    pub campaign: ExportedCampaign,
    pub study: Study,
    pub funnel: Funnel,
    pub csat: Option<Csat>,
    pub nps: Option<Nps>,
    pub sentiment: Vec<LabelCount>,
    pub questions: Vec<QuestionResult>,
    pub themes: Vec<ThemeCount>,
    pub narrative: Vec<String>,
    pub exclusions: Vec<Exclusion>,
    /// The campaign week by week (UTC), as the trend route gives it.
    pub trend: ExportTrend,
    /// Answer texts, contact details redacted, with no identity and in no person's order.
    pub transcripts: Option<Vec<Transcript>>,
}

/// The buckets of a trend, each of at least the floor's accepted sessions; none below it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportTrend {
    pub interval: Interval,
    pub zone: TimeZoneName,
    pub buckets: Vec<TrendBucket>,
}

impl From<Trend> for ExportTrend {
    fn from(trend: Trend) -> Self {
        Self { interval: trend.interval, zone: trend.zone, buckets: trend.buckets }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedCampaign {
    pub id: CampaignId,
    pub code: String,
    pub name: String,
    pub status: CampaignStatus,
}

/// The honesty block: what was asked, when, of how many, what was kept and why, and by which
/// models.
#[derive(Clone, Debug, PartialEq)]
pub struct Study {
    pub questions: Vec<AskedQuestion>,
    pub period_start: Option<OffsetDateTime>,
    pub period_end: OffsetDateTime,
    pub invited: u64,
    pub started: u64,
    pub completed: u64,
    pub accepted: u64,
    pub rejected: u64,
    pub rejections: Vec<(Rejection, u64)>,
    pub analyzers: Vec<ModelInfo>,
    /// Languages the answers were scored in, as each answer was read.
    pub languages_scored: Vec<String>,
    pub anonymity_floor: u32,
    pub floor_applied: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskedQuestion {
    pub id: String,
    pub kind: QuestionKind,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Funnel {
    pub invited: u64,
    pub responded: u64,
    pub started: u64,
    pub completed: u64,
    pub accepted: u64,
    pub completion_rate: Option<f64>,
}

/// A component the file leaves out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    pub component: &'static str,
    pub reason: &'static str,
}

/// What every export leaves out.
pub const EXCLUSIONS: [Exclusion; 3] = [
    Exclusion {
        component: "signature-visualisations",
        reason: "Per-person answer patterns could identify a respondent; only aggregates are exported.",
    },
    Exclusion {
        component: "cross-attribution",
        reason: "Linking answers across campaigns or to app users is not part of an aggregate export.",
    },
    Exclusion {
        component: "integrity-attrition-index",
        reason: "The composite index is not computed; its inputs are given separately in the study block.",
    },
];

impl ExportDocument {
    /// The document of `results` (computed for the whole campaign, floor applied) and its
    /// `trend`, written in `language`, with `transcripts` when they were asked for, allowed, and
    /// the group is above the floor.
    pub fn of(
        results: &CampaignResults,
        trend: Trend,
        language: ReportLanguage,
        transcripts: Option<Vec<Transcript>>,
    ) -> Self {
        let campaign = &results.campaign;
        let metrics = &results.metrics;
        let acceptance = &results.acceptance;
        let analyzers = vec![results.methodology.sentiment.clone(), results.methodology.themes.clone()];
        let languages_scored =
            results.methodology.languages_scored.iter().map(|(language, _)| language.clone()).collect();
        let facts = Facts {
            started: metrics.started,
            completed: metrics.completed,
            accepted: results.accepted_count,
            withheld_below: results.floor_applied.then_some(results.anonymity_floor),
            csat: results.csat,
            nps: results.nps,
            dominant_sentiment: results.inferred.dominant_sentiment,
            top_theme: results.themes.first(),
            negative_themes: &results.inferred.negative_themes,
        };
        Self {
            language,
            generated_at: results.generated_at,
            campaign: ExportedCampaign {
                id: campaign.id,
                code: campaign.code.clone(),
                name: campaign.name.clone(),
                status: campaign.status,
            },
            study: Study {
                questions: results
                    .questions
                    .iter()
                    .map(|q| AskedQuestion { id: q.question_id.clone(), kind: q.kind, text: q.text.clone() })
                    .collect(),
                period_start: campaign.launched_at,
                period_end: results.generated_at,
                invited: metrics.invited,
                started: metrics.started,
                completed: metrics.completed,
                accepted: acceptance.accepted,
                rejected: acceptance.rejected,
                rejections: acceptance.rejections.clone(),
                analyzers,
                languages_scored,
                anonymity_floor: results.anonymity_floor,
                floor_applied: results.floor_applied,
            },
            funnel: Funnel {
                invited: metrics.invited,
                responded: metrics.responded,
                started: metrics.started,
                completed: metrics.completed,
                accepted: acceptance.accepted,
                completion_rate: metrics.completion_rate,
            },
            csat: results.csat,
            nps: results.nps,
            sentiment: results.sentiment.clone(),
            questions: results.questions.clone(),
            themes: results.themes.clone(),
            narrative: narrative(&facts, language),
            exclusions: EXCLUSIONS.to_vec(),
            trend: ExportTrend::from(trend),
            transcripts: transcripts.filter(|_| !results.floor_applied),
        }
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn download_claims_read_back_and_nothing_else_reads() {
        let claims = DownloadClaims {
            export: ExportId::new_random(),
            link: Uuid::new_v4(),
            key: ApiKeyId::new_random(),
            expires_at: datetime!(2026-01-01 10:15 UTC),
        };
        let bytes = claims.encode();
        assert_eq!(DownloadClaims::decode(&bytes), Some(claims));
        assert_eq!(DownloadClaims::decode(&bytes[1..]), None);
        assert_eq!(DownloadClaims::decode(&[bytes.as_slice(), &[0]].concat()), None);
    }

    #[test]
    fn a_request_is_json_or_pdf_and_transcripts_are_json_only() {
        assert_eq!(
            ExportRequest::parse("pdf", false).expect("valid"),
            ExportRequest { format: ExportFormat::Pdf, include_transcripts: false }
        );
        assert!(ExportRequest::parse("json", true).is_ok());
        assert!(ExportRequest::parse("pdf", true).expect_err("refused").to_string().contains("includeTranscripts"));
        assert!(ExportRequest::parse("PDF", false).expect_err("refused").to_string().contains("format"));
        assert_eq!(ExportStatus::parse("EXPIRED"), Some(ExportStatus::Expired));
        assert_eq!(ExportFormat::Pdf.content_type(), "application/pdf");
    }
}
