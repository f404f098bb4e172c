//! The request and response bodies of the campaign routes, and their conversions to and from the
//! domain.

use std::collections::BTreeMap;

use pulse_domain::Error;
use pulse_domain::campaigns::models::{
    AudienceRowInput, BriefInput, CampaignOverview, Delivery, DeliveryChannel, DeliveryInput, LaunchInput,
    ListedCampaign, Order, OrderInput, ProvisionInput, Quality, QualityInput, QuestionKind,
};
use pulse_domain::campaigns::service::{AttachedRespondent, MintedLink};
use pulse_domain::ids::{CampaignId, SurveyId};
use pulse_domain::outreach::models::OutreachCounts;
use pulse_domain::shared::paging::Page;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A body as the JSON value an idempotent reply stores.
pub(super) fn to_value<T: Serialize>(value: &T) -> Result<serde_json::Value, Error> {
    serde_json::to_value(value).map_err(Error::internal)
}

#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefConstraints {
    /// 1 to 50; default 5.
    #[schema(minimum = 1, maximum = 50)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question_count: Option<i64>,
    /// Language tags; the first is the survey's default. At most 20; default `["en"]`.
    #[schema(max_items = 20)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub languages: Option<Vec<String>>,
    /// For example `friendly` or `formal`.
    #[schema(max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<String>,
    /// No generated question mentions one of these.
    #[schema(max_items = 50)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banned_topics: Option<Vec<String>>,
    /// Also ask the Net Promoter question, "how likely are you to recommend us", on 0 to 10
    /// (second, after CSAT); results then give `nps`. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nps: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BriefRequest {
    /// What the partner wants to learn, 10 to 4000 characters.
    #[schema(min_length = 10, max_length = 4000)]
    pub intent_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<BriefConstraints>,
}

impl From<BriefRequest> for BriefInput {
    fn from(b: BriefRequest) -> Self {
        let c = b.constraints.unwrap_or_default();
        Self {
            intent_text: b.intent_text,
            question_count: c.question_count,
            languages: c.languages,
            tone: c.tone,
            banned_topics: c.banned_topics,
            nps: c.nps,
        }
    }
}

// The quality, delivery and order terms are read at provisioning and shown on the campaign in
// one shape, so each has one type for both ways. Numbers are read wide so that the domain's range
// error names the field; the bounds below are the ones it enforces.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QualityRequest {
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_count: Option<i64>,
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_responses: Option<i64>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_duration_secs: Option<i64>,
    #[schema(minimum = 0, maximum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_coverage_ratio: Option<f64>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_answer_words: Option<i64>,
    /// True: every start without a launch token or invitation must carry a solved proof-of-work
    /// challenge (`altcha`), not only starts beyond the operator's hourly rates. Open campaigns
    /// only; shown when true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_challenge: Option<bool>,
}

impl From<QualityRequest> for QualityInput {
    fn from(q: QualityRequest) -> Self {
        Self {
            target_count: q.target_count,
            max_responses: q.max_responses,
            min_duration_secs: q.min_duration_secs,
            min_coverage_ratio: q.min_coverage_ratio,
            min_answer_words: q.min_answer_words,
            require_challenge: q.require_challenge,
        }
    }
}

impl From<&Quality> for QualityRequest {
    fn from(q: &Quality) -> Self {
        Self {
            target_count: q.target_count.map(i64::from),
            max_responses: q.max_responses.map(i64::from),
            min_duration_secs: q.min_duration_secs.map(i64::from),
            min_coverage_ratio: q.min_coverage_ratio,
            min_answer_words: q.min_answer_words.map(i64::from),
            require_challenge: q.require_challenge.then_some(true),
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DeliveryChannelDto {
    Email,
    Whatsapp,
    Sms,
    Telephony,
}

impl From<DeliveryChannelDto> for DeliveryChannel {
    fn from(c: DeliveryChannelDto) -> Self {
        match c {
            DeliveryChannelDto::Email => DeliveryChannel::Email,
            DeliveryChannelDto::Whatsapp => DeliveryChannel::Whatsapp,
            DeliveryChannelDto::Sms => DeliveryChannel::Sms,
            DeliveryChannelDto::Telephony => DeliveryChannel::Telephony,
        }
    }
}

impl From<DeliveryChannel> for DeliveryChannelDto {
    fn from(c: DeliveryChannel) -> Self {
        match c {
            DeliveryChannel::Email => DeliveryChannelDto::Email,
            DeliveryChannel::Whatsapp => DeliveryChannelDto::Whatsapp,
            DeliveryChannel::Sms => DeliveryChannelDto::Sms,
            DeliveryChannel::Telephony => DeliveryChannelDto::Telephony,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeliveryRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Vec<DeliveryChannelDto>>,
    #[schema(minimum = 0, maximum = 4)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminder_count: Option<i64>,
    #[schema(minimum = 1, maximum = 90)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_retention_days: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub greet_by_name: Option<bool>,
}

impl From<DeliveryRequest> for DeliveryInput {
    fn from(d: DeliveryRequest) -> Self {
        Self {
            channels: d.channels.map(|c| c.into_iter().map(DeliveryChannel::from).collect()),
            reminder_count: d.reminder_count,
            audio_retention_days: d.audio_retention_days,
            greet_by_name: d.greet_by_name,
        }
    }
}

impl From<&Delivery> for DeliveryRequest {
    fn from(d: &Delivery) -> Self {
        Self {
            // No channels are shown as none sent.
            channels: (!d.channels.is_empty())
                .then(|| d.channels.iter().copied().map(DeliveryChannelDto::from).collect()),
            reminder_count: d.reminder_count.map(i64::from),
            audio_retention_days: d.audio_retention_days.map(i64::from),
            greet_by_name: d.greet_by_name,
        }
    }
}

#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrderRequest {
    #[schema(min_length = 1, max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package_type: Option<String>,
    #[schema(minimum = 0)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted_price_inr: Option<i64>,
    #[schema(minimum = 1)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted_responses_committed: Option<i64>,
}

impl From<OrderRequest> for OrderInput {
    fn from(o: OrderRequest) -> Self {
        Self {
            package_type: o.package_type,
            quoted_price_inr: o.quoted_price_inr,
            accepted_responses_committed: o.accepted_responses_committed,
        }
    }
}

impl From<&Order> for OrderRequest {
    fn from(o: &Order) -> Self {
        Self {
            package_type: o.package_type.clone(),
            // Provisioning admits no price above `i64::MAX`.
            quoted_price_inr: o.quoted_price_inr.map(|p| i64::try_from(p).unwrap_or(i64::MAX)),
            accepted_responses_committed: o.accepted_responses_committed.map(i64::from),
        }
    }
}

/// Exactly one of `brief` and `surveyId`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProvisionRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brief: Option<BriefRequest>,
    /// Reuse a survey of this workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey_id: Option<Uuid>,
    /// Defaults to the survey's title.
    #[schema(min_length = 1, max_length = 120)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<QualityRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<DeliveryRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<OrderRequest>,
    /// The privacy notice the respondent page links on its consent screen: an absolute `https`
    /// URL without credentials.
    #[schema(max_length = 2048, pattern = r"^https://[A-Za-z0-9.-]+(:[0-9]{1,4})?(/[!-~]*)?$")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_notice_url: Option<String>,
}

impl From<ProvisionRequest> for ProvisionInput {
    fn from(r: ProvisionRequest) -> Self {
        Self {
            brief: r.brief.map(BriefInput::from),
            survey_id: r.survey_id.map(SurveyId),
            name: r.name,
            quality: r.quality.map(QualityInput::from),
            delivery: r.delivery.map(DeliveryInput::from),
            order: r.order.map(OrderInput::from),
            privacy_notice_url: r.privacy_notice_url,
        }
    }
}

/// The scale of a rating question.
#[derive(Debug, Serialize, ToSchema)]
pub struct ScaleBody {
    pub min: i16,
    pub max: i16,
}

/// A question's type on the wire (`rating` or `text`) and, for a rating, its scale.
pub(crate) fn question_kind(kind: QuestionKind) -> (&'static str, Option<ScaleBody>) {
    match kind {
        QuestionKind::Rating { min, max } => ("rating", Some(ScaleBody { min, max })),
        QuestionKind::Text => ("text", None),
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveyQuestionBody {
    /// Stable within the survey: `q1`, `q2`...
    pub id: String,
    /// `rating` or `text`.
    #[serde(rename = "type")]
    #[schema(example = "rating")]
    pub kind: &'static str,
    pub required: bool,
    /// For rating questions; null for text.
    pub scale: Option<ScaleBody>,
    /// The question in every language of the survey.
    pub texts: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveyBody {
    pub id: Uuid,
    pub title: String,
    pub languages: Vec<String>,
    pub default_language: String,
    pub questions: Vec<SurveyQuestionBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BlockerBody {
    /// `WORKSPACE_NOT_APPROVED`, `WORKSPACE_SUSPENDED`, `NO_EMAIL_RECIPIENTS` or `NO_PHONE_RECIPIENTS`.
    pub code: &'static str,
    pub description: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadinessBody {
    /// True when `POST /campaigns/{id}/launch` would succeed (or the campaign is live).
    pub launch_ready: bool,
    pub blockers: Vec<BlockerBody>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountsBody {
    /// Respondents attached to the campaign.
    pub invited: u64,
    /// Attached respondents who finished a session through their invitation (single-use link).
    pub responded: u64,
    /// Sessions started with consent.
    pub started: u64,
    /// Sessions completed.
    pub completed: u64,
    /// Invitations, reminders and thank-you messages per channel (channels without messages left
    /// out); empty until the outreach worker first plans the campaign's messages.
    pub messages: Vec<ChannelMessagesBody>,
    /// Why messages failed for good: provider failure classes with their counts, most frequent
    /// first; never an address.
    pub message_failures: Vec<MessageFailureBody>,
    pub recordings: RecordingCountsBody,
}

/// Recordings of spoken answers at the voice provider (TELEPHONY, when the operator records
/// them); all 0 otherwise.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingCountsBody {
    /// At the provider, within the campaign's `audioRetentionDays`.
    pub held: u64,
    /// Deleted at the provider, as it confirmed.
    pub deleted: u64,
    /// Past their retention (or their respondent erased) and not yet confirmed deleted: the
    /// worker tries again until the provider confirms, and a count that stays above 0 is a
    /// failure to look at.
    pub overdue: u64,
}

/// The messages of one channel, by what became of them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelMessagesBody {
    /// `EMAIL`, `SMS`, `WHATSAPP` or `TELEPHONY`.
    pub channel: &'static str,
    /// Waiting to be sent, to be retried, or for quiet hours to end where the person is.
    pub queued: u64,
    /// Accepted by the provider; on TELEPHONY, calls placed.
    pub sent: u64,
    /// Refused by the provider, or still failing after five attempts.
    pub failed: u64,
    /// Not sent: the person opted out of this workspace's messages.
    pub opted_out: u64,
    /// TELEPHONY: calls placed that no person took (busy, unanswered, failed, or answered by a
    /// machine, which is left no message); counted in `sent` too, and the next reminder calls
    /// again. 0 on the other channels.
    pub not_reached: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageFailureBody {
    /// Such as `EMAIL_REJECTED`, `SMS_REJECTED_21211` or `SMS_UNAVAILABLE`.
    pub code: String,
    pub count: u64,
}

/// A campaign: status, readiness with its blockers, counts, and its survey.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignBody {
    pub id: Uuid,
    /// The public code in `{survey_url}/p/<code>`.
    pub code: String,
    pub name: String,
    /// `DRAFT` until launched, then `ACTIVE` (collecting); `PAUSED` while paused; `CLOSED` once
    /// closed, for good.
    #[schema(example = "DRAFT")]
    pub status: &'static str,
    /// `OPEN` (anyone with the public link) or `CLOSED` (respondents attached before launch).
    #[schema(example = "OPEN")]
    pub audience: &'static str,
    pub workspace_id: Uuid,
    /// Whether public starts need a signed launch token or a minted link.
    pub require_signed: bool,
    pub public_url: String,
    pub readiness: ReadinessBody,
    pub counts: CountsBody,
    pub anonymity_floor: u32,
    pub quality: QualityRequest,
    pub delivery: DeliveryRequest,
    pub order: OrderRequest,
    pub survey: SurveyBody,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub launched_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub closed_at: Option<OffsetDateTime>,
    /// The privacy notice the respondent page links, if one was set.
    pub privacy_notice_url: Option<String>,
}

impl CampaignBody {
    /// `sendable`: the channels messages can be sent on here.
    pub(super) fn new(
        o: CampaignOverview,
        messages: &OutreachCounts,
        survey_url: &str,
        sendable: &[DeliveryChannel],
    ) -> Self {
        let readiness = o.readiness(sendable);
        let c = o.campaign;
        Self {
            id: c.id.0,
            public_url: format!("{survey_url}/p/{}", c.code),
            code: c.code,
            name: c.name,
            status: c.status.as_str(),
            audience: c.audience.as_str(),
            workspace_id: c.workspace_id.0,
            require_signed: c.require_signed,
            readiness: ReadinessBody {
                launch_ready: readiness.launch_ready(),
                blockers: readiness
                    .blockers
                    .into_iter()
                    .map(|b| BlockerBody { code: b.code, description: b.description })
                    .collect(),
            },
            counts: CountsBody {
                invited: o.counts.invited,
                responded: o.counts.responded,
                started: o.counts.started,
                completed: o.counts.completed,
                messages: messages
                    .channels
                    .iter()
                    .map(|(channel, c)| ChannelMessagesBody {
                        channel: channel.as_str(),
                        queued: c.queued,
                        sent: c.sent,
                        failed: c.failed,
                        opted_out: c.opted_out,
                        not_reached: c.not_reached,
                    })
                    .collect(),
                message_failures: messages
                    .failures
                    .iter()
                    .map(|(code, count)| MessageFailureBody { code: code.clone(), count: *count })
                    .collect(),
                recordings: RecordingCountsBody {
                    held: messages.recordings.held,
                    deleted: messages.recordings.deleted,
                    overdue: messages.recordings.overdue,
                },
            },
            anonymity_floor: c.anonymity_floor,
            quality: QualityRequest::from(&c.quality),
            delivery: DeliveryRequest::from(&c.delivery),
            order: OrderRequest::from(&c.order),
            survey: SurveyBody {
                id: o.survey.id.0,
                title: o.survey.title.clone(),
                default_language: o.survey.default_language().as_str().to_owned(),
                languages: o.survey.languages.iter().map(|l| l.as_str().to_owned()).collect(),
                questions: o
                    .survey
                    .questions
                    .iter()
                    .map(|q| {
                        let (kind, scale) = question_kind(q.kind);
                        SurveyQuestionBody {
                            id: q.id.clone(),
                            kind,
                            required: q.required,
                            scale,
                            texts: q.texts.iter().map(|(l, t)| (l.as_str().to_owned(), t.clone())).collect(),
                        }
                    })
                    .collect(),
            },
            created_at: c.created_at,
            launched_at: c.launched_at,
            closed_at: c.closed_at,
            privacy_notice_url: c.privacy_notice_url,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CampaignListQuery {
    /// Only campaigns in this status.
    #[param(inline, value_type = Option<CampaignStatusName>)]
    pub status: Option<String>,
    /// 1 to 200; default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    /// `nextCursor` of the previous page of the same list (the same `status`).
    pub cursor: Option<String>,
}

/// A campaign's status.
#[derive(ToSchema)]
#[schema(rename_all = "UPPERCASE")]
pub enum CampaignStatusName {
    Draft,
    Active,
    Paused,
    Closed,
}

/// A campaign in the list: what it is and where it stands, without its survey or counts (read
/// `GET /campaigns/{id}` for those).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignSummaryBody {
    pub id: Uuid,
    pub code: String,
    pub name: String,
    /// `DRAFT`, `ACTIVE`, `PAUSED` or `CLOSED`.
    #[schema(example = "ACTIVE")]
    pub status: &'static str,
    /// `OPEN` or `CLOSED`.
    #[schema(example = "OPEN")]
    pub audience: &'static str,
    pub survey_id: Uuid,
    pub require_signed: bool,
    pub public_url: String,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub launched_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub closed_at: Option<OffsetDateTime>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignPage {
    pub items: Vec<CampaignSummaryBody>,
    /// Pass back as `cursor` until it is null.
    pub next_cursor: Option<String>,
}

impl CampaignPage {
    pub(super) fn new(page: Page<ListedCampaign>, survey_url: &str) -> Self {
        let items = page
            .items
            .into_iter()
            .map(|ListedCampaign { campaign: c, .. }| CampaignSummaryBody {
                id: c.id.0,
                public_url: format!("{survey_url}/p/{}", c.code),
                code: c.code,
                name: c.name,
                status: c.status.as_str(),
                audience: c.audience.as_str(),
                survey_id: c.survey_id.0,
                require_signed: c.require_signed,
                created_at: c.created_at,
                launched_at: c.launched_at,
                closed_at: c.closed_at,
            })
            .collect();
        Self { items, next_cursor: page.next_cursor }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProvisionResponse {
    pub campaign: CampaignBody,
    /// False on an idempotent replay.
    pub created: bool,
}

// No `Debug`: rows carry contact details.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AudienceRowRequest {
    /// The partner's own id of the respondent; the same ref updates the same respondent.
    #[schema(min_length = 1, max_length = 200)]
    pub external_ref: String,
    #[schema(max_length = 200)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Stored encrypted, never returned.
    #[schema(format = "email")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Stored encrypted, never returned.
    #[schema(max_length = 32)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// The person's IANA time zone: texts and calls wait for the end of quiet hours there
    /// (docs/outreach.md, "Quiet hours"). Stored encrypted, never returned.
    #[schema(max_length = 64, example = "Asia/Kolkata")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
}

impl From<AudienceRowRequest> for AudienceRowInput {
    fn from(r: AudienceRowRequest) -> Self {
        Self { external_ref: r.external_ref, name: r.name, email: r.email, phone: r.phone, time_zone: r.time_zone }
    }
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AudienceRequest {
    /// 1 to 1000 rows.
    #[schema(min_items = 1, max_items = 1000)]
    pub rows: Vec<AudienceRowRequest>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RespondentOutcomeBody {
    /// The row's position in the request.
    pub index: usize,
    pub external_ref: String,
    pub respondent_id: Uuid,
    /// `CREATED` or `UPDATED`.
    #[schema(example = "CREATED")]
    pub outcome: &'static str,
    /// The respondent's single-use invitation, `{survey_url}/s/<code>/<nonce>`; the same link on every update.
    pub invitation_url: String,
    /// Whether the invitation was already used to answer.
    pub responded: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AudienceResponse {
    /// One outcome per input row, in order.
    pub rows: Vec<RespondentOutcomeBody>,
}

impl From<Vec<AttachedRespondent>> for AudienceResponse {
    fn from(attached: Vec<AttachedRespondent>) -> Self {
        let rows = attached
            .into_iter()
            .enumerate()
            .map(|(index, r)| RespondentOutcomeBody {
                index,
                external_ref: r.external_ref,
                respondent_id: r.respondent_id.0,
                outcome: r.outcome.as_str(),
                invitation_url: r.invitation_url,
                responded: r.responded,
            })
            .collect();
        Self { rows }
    }
}

// The schema of `device` in the OpenAPI document only: the body is read as a map and checked by
// the domain (`DEVICE_KEYS`), which refuses any other key and any value that is not a string of
// at most 64 characters, null included.
/// Only these device keys; each value a string of at most 64 characters without control characters.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeviceLabels {
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub platform: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub os_name: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub os_version: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub device_vendor: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub device_model: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub browser_name: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub browser_version: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub app_id: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub app_version: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub app_build: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub sdk_version: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub locale: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub timezone: Option<String>,
    #[schema(max_length = 64, nullable = false, pattern = r"^[^\x00-\x1F\x7F-\x9F]*$")]
    pub network_type: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaunchLinkRequest {
    pub campaign_id: Uuid,
    /// Stored only as a keyed digest.
    #[schema(max_length = 200)]
    #[serde(default)]
    pub external_user_ref: Option<String>,
    /// Rides on the link as `?lang=`; a language the campaign does not offer falls back to its default.
    #[schema(min_length = 2, max_length = 24)]
    #[serde(default)]
    pub language: Option<String>,
    #[schema(value_type = Option<DeviceLabels>)]
    #[serde(default)]
    pub device: Option<serde_json::Map<String, serde_json::Value>>,
    /// At most 64 keys and 8 KB of JSON; string, number or boolean values only.
    #[schema(value_type = Option<Object>)]
    #[serde(default)]
    pub attributes: Option<serde_json::Map<String, serde_json::Value>>,
}

impl From<LaunchLinkRequest> for LaunchInput {
    fn from(r: LaunchLinkRequest) -> Self {
        Self {
            campaign_id: CampaignId(r.campaign_id),
            external_user_ref: r.external_user_ref,
            language: r.language,
            device: r.device,
            attributes: r.attributes,
        }
    }
}

// No `Debug`: the url is a capability.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LaunchLinkResponse {
    /// `{survey_url}/p/<code>?lt=<token>&lang=<language>` for an open campaign,
    /// `{survey_url}/s/<code>/<nonce>?lang=<language>` for a closed-list one. Single use.
    pub url: String,
    #[serde(with = "time::serde::rfc3339")]
    pub expires_at: OffsetDateTime,
}

impl From<MintedLink> for LaunchLinkResponse {
    fn from(minted: MintedLink) -> Self {
        Self { url: minted.url, expires_at: minted.expires_at }
    }
}
