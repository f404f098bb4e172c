//! Campaigns: provisioning from a brief or an existing survey, readiness, and launch.

use crate::campaigns::models::{Brief, LanguageTag, Survey};
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{CampaignId, SurveyId, WorkspaceId};
use crate::tenancy::models::WorkspaceStatus;
use time::OffsetDateTime;

pub const DEFAULT_QUESTION_COUNT: u8 = 5;

pub const DEFAULT_ANONYMITY_FLOOR: u32 = 5;

pub const MAX_NAME_CHARS: usize = 120;

/// Where a campaign is in its life. Only `Active` collects responses.
///
/// `Draft` -> `Active` (launch); `Active` <-> `Paused` (pause, resume); `Draft`, `Active` or
/// `Paused` -> `Closed` (close, final).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CampaignStatus {
    /// Provisioned, not launched yet.
    Draft,
    /// Launched: collecting responses.
    Active,
    /// Launched, not collecting for now: no new links, starts or app registers.
    Paused,
    /// Done for good: collects nothing again; its results stay readable.
    Closed,
}

impl CampaignStatus {
    pub const ALL: [CampaignStatus; 4] =
        [CampaignStatus::Draft, CampaignStatus::Active, CampaignStatus::Paused, CampaignStatus::Closed];

    pub const fn as_str(self) -> &'static str {
        match self {
            CampaignStatus::Draft => "DRAFT",
            CampaignStatus::Active => "ACTIVE",
            CampaignStatus::Paused => "PAUSED",
            CampaignStatus::Closed => "CLOSED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// The refusal of a link, start or app register for a campaign in `status` (not `ACTIVE`), saying
/// what would make it collect.
pub fn not_collecting(status: CampaignStatus) -> Error {
    let what = match status {
        CampaignStatus::Draft => "DRAFT: launch it first",
        CampaignStatus::Paused => "PAUSED: resume it first",
        CampaignStatus::Active | CampaignStatus::Closed => "CLOSED: a closed campaign collects nothing again",
    };
    Error::refused(ErrorCode::CampaignNotCollecting, format!("the campaign is {what}"))
}

/// A change of status a partner asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    Pause,
    Resume,
    Close,
}

impl Transition {
    /// The status a campaign in `from` moves to, or why the change does not apply there. Asking
    /// for the status a campaign is already in is not a change and answers it as it is.
    ///
    /// # Errors
    /// Why a draft or closed campaign cannot be paused or resumed.
    pub const fn target(self, from: CampaignStatus) -> Result<CampaignStatus, &'static str> {
        match (self, from) {
            (Transition::Close, _) => Ok(CampaignStatus::Closed),
            (Transition::Pause, CampaignStatus::Active | CampaignStatus::Paused) => Ok(CampaignStatus::Paused),
            (Transition::Resume, CampaignStatus::Paused | CampaignStatus::Active) => Ok(CampaignStatus::Active),
            (Transition::Pause | Transition::Resume, CampaignStatus::Draft) => Err("launch it first"),
            (Transition::Pause | Transition::Resume, CampaignStatus::Closed) => Err("closing is final"),
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Transition::Pause => "pause",
            Transition::Resume => "resume",
            Transition::Close => "close",
        }
    }

    /// The change as done to a campaign, for refusals ("cannot be paused").
    pub const fn done(self) -> &'static str {
        match self {
            Transition::Pause => "paused",
            Transition::Resume => "resumed",
            Transition::Close => "closed",
        }
    }
}

/// Who may answer: anyone with the public link, or (closed) only invited respondents, minted
/// links and tokens the partner signed with a launch key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AudienceMode {
    Open,
    /// Set when respondents are attached before launch: the closed-list flow.
    Closed,
}

impl AudienceMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            AudienceMode::Open => "OPEN",
            AudienceMode::Closed => "CLOSED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [AudienceMode::Open, AudienceMode::Closed].into_iter().find(|s| s.as_str() == text)
    }
}

/// The acceptance rules of responses (applied by the analysis).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Quality {
    pub target_count: Option<u32>,
    pub max_responses: Option<u32>,
    pub min_duration_secs: Option<u32>,
    pub min_coverage_ratio: Option<f64>,
    pub min_answer_words: Option<u32>,
    /// Whether every open start must carry a solved proof-of-work challenge, not only those
    /// made under pressure.
    pub require_challenge: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeliveryChannel {
    Email,
    Whatsapp,
    Sms,
    Telephony,
}

impl DeliveryChannel {
    pub const ALL: [DeliveryChannel; 4] =
        [DeliveryChannel::Email, DeliveryChannel::Whatsapp, DeliveryChannel::Sms, DeliveryChannel::Telephony];

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == text)
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            DeliveryChannel::Email => "EMAIL",
            DeliveryChannel::Whatsapp => "WHATSAPP",
            DeliveryChannel::Sms => "SMS",
            DeliveryChannel::Telephony => "TELEPHONY",
        }
    }

    /// Whether invitations on this channel go to an email address (else to a phone number).
    pub const fn needs_email(self) -> bool {
        matches!(self, DeliveryChannel::Email)
    }
}

/// How invitations are delivered.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivery {
    pub channels: Vec<DeliveryChannel>,
    pub reminder_count: Option<u8>,
    pub audio_retention_days: Option<u8>,
    pub greet_by_name: Option<bool>,
}

/// The commercial order behind the campaign.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Order {
    pub package_type: Option<String>,
    pub quoted_price_inr: Option<u64>,
    pub accepted_responses_committed: Option<u32>,
}

/// A brief as sent, before validation. Numbers are wide so a range error names the field
/// instead of failing to parse.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BriefInput {
    pub intent_text: String,
    pub question_count: Option<i64>,
    pub languages: Option<Vec<String>>,
    pub tone: Option<String>,
    pub banned_topics: Option<Vec<String>>,
    pub nps: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct QualityInput {
    pub target_count: Option<i64>,
    pub max_responses: Option<i64>,
    pub min_duration_secs: Option<i64>,
    pub min_coverage_ratio: Option<f64>,
    pub min_answer_words: Option<i64>,
    pub require_challenge: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryInput {
    pub channels: Option<Vec<DeliveryChannel>>,
    pub reminder_count: Option<i64>,
    pub audio_retention_days: Option<i64>,
    pub greet_by_name: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderInput {
    pub package_type: Option<String>,
    pub quoted_price_inr: Option<i64>,
    pub accepted_responses_committed: Option<i64>,
}

/// `POST /campaigns` as sent.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProvisionInput {
    pub brief: Option<BriefInput>,
    pub survey_id: Option<SurveyId>,
    pub name: Option<String>,
    pub quality: Option<QualityInput>,
    pub delivery: Option<DeliveryInput>,
    pub order: Option<OrderInput>,
    pub privacy_notice_url: Option<String>,
}

/// Where the survey comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SurveySource {
    Brief(Brief),
    Existing(SurveyId),
}

/// A validated provision request.
#[derive(Clone, Debug, PartialEq)]
pub struct Provision {
    pub source: SurveySource,
    pub name: Option<String>,
    pub quality: Quality,
    pub delivery: Delivery,
    pub order: Order,
    pub privacy_notice_url: Option<String>,
}

/// The longest privacy notice address a campaign keeps.
pub const MAX_PRIVACY_NOTICE_URL_CHARS: usize = 2048;

fn ranged(field: &str, value: Option<i64>, min: i64, max: i64) -> Result<Option<i64>> {
    match value {
        Some(v) if v < min || v > max => Err(Error::validation(field, range_text(min, max))),
        other => Ok(other),
    }
}

fn range_text(min: i64, max: i64) -> String {
    if max == i64::from(u32::MAX) { format!("must be at least {min}") } else { format!("must be {min} to {max}") }
}

fn to_u32(value: Option<i64>) -> Option<u32> {
    value.and_then(|v| u32::try_from(v).ok())
}

fn to_u8(value: Option<i64>) -> Option<u8> {
    value.and_then(|v| u8::try_from(v).ok())
}

/// Free text of at most `max` characters without control characters (tabs and newlines allowed
/// where `multiline`).
pub(crate) fn checked_text(field: &str, text: &str, min: usize, max: usize, multiline: bool) -> Result<String> {
    let count = text.chars().count();
    if count < min || count > max {
        return Err(Error::validation(
            field,
            if min == 0 {
                format!("must be at most {max} characters")
            } else {
                format!("must be {min} to {max} characters")
            },
        ));
    }
    if text.chars().any(|c| c.is_control() && !(multiline && matches!(c, '\n' | '\r' | '\t'))) {
        return Err(Error::validation(field, "must not contain control characters"));
    }
    Ok(text.to_owned())
}

impl Provision {
    /// # Errors
    /// `ValidationFailed` naming the first field that breaks its rule, or when neither or both of
    /// `brief` and `surveyId` were sent.
    pub fn parse(input: ProvisionInput) -> Result<Self> {
        let source = match (input.brief, input.survey_id) {
            (Some(brief), None) => SurveySource::Brief(parse_brief(brief)?),
            (None, Some(id)) => SurveySource::Existing(id),
            (Some(_), Some(_)) => {
                return Err(Error::validation("brief", "send either `brief` or `surveyId`, not both"));
            }
            (None, None) => return Err(Error::validation("brief", "send either `brief` or `surveyId`")),
        };
        let name = input.name.map(|n| checked_text("name", &n, 1, MAX_NAME_CHARS, false)).transpose()?;
        let q = input.quality.unwrap_or_default();
        let wide = i64::from(u32::MAX);
        let quality = Quality {
            target_count: to_u32(ranged("quality.targetCount", q.target_count, 1, wide)?),
            max_responses: to_u32(ranged("quality.maxResponses", q.max_responses, 1, wide)?),
            min_duration_secs: to_u32(ranged("quality.minDurationSecs", q.min_duration_secs, 0, wide)?),
            min_coverage_ratio: match q.min_coverage_ratio {
                Some(r) if !(0.0..=1.0).contains(&r) => {
                    return Err(Error::validation("quality.minCoverageRatio", "must be 0 to 1"));
                }
                other => other,
            },
            min_answer_words: to_u32(ranged("quality.minAnswerWords", q.min_answer_words, 0, wide)?),
            require_challenge: q.require_challenge.unwrap_or(false),
        };
        if let (Some(target), Some(max)) = (quality.target_count, quality.max_responses)
            && target > max
        {
            return Err(Error::validation("quality.targetCount", "must not exceed quality.maxResponses"));
        }
        let d = input.delivery.unwrap_or_default();
        let mut channels = d.channels.unwrap_or_default();
        let sent = channels.len();
        channels.sort_by_key(|c| c.as_str());
        channels.dedup();
        if channels.len() != sent {
            return Err(Error::validation("delivery.channels", "must not repeat a channel"));
        }
        let delivery = Delivery {
            channels,
            reminder_count: to_u8(ranged("delivery.reminderCount", d.reminder_count, 0, 4)?),
            audio_retention_days: to_u8(ranged("delivery.audioRetentionDays", d.audio_retention_days, 1, 90)?),
            greet_by_name: d.greet_by_name,
        };
        let o = input.order.unwrap_or_default();
        let order = Order {
            package_type: o.package_type.map(|p| checked_text("order.packageType", &p, 1, 120, false)).transpose()?,
            quoted_price_inr: ranged("order.quotedPriceInr", o.quoted_price_inr, 0, i64::MAX)?
                .and_then(|v| u64::try_from(v).ok()),
            accepted_responses_committed: to_u32(ranged(
                "order.acceptedResponsesCommitted",
                o.accepted_responses_committed,
                1,
                wide,
            )?),
        };
        let privacy_notice_url = input.privacy_notice_url.map(|u| privacy_notice_url(&u)).transpose()?;
        Ok(Self { source, name, quality, delivery, order, privacy_notice_url })
    }
}

/// The respondent page links it as is, so only an absolute `https` address with a host and no
/// credentials is kept.
fn privacy_notice_url(text: &str) -> Result<String> {
    const RULE: &str = "must be an https URL of at most 2048 characters, without credentials";
    if text.chars().count() > MAX_PRIVACY_NOTICE_URL_CHARS || text.chars().any(char::is_control) {
        return Err(Error::validation("privacyNoticeUrl", RULE));
    }
    match url::Url::parse(text) {
        Ok(url)
            if url.scheme() == "https"
                && url.host().is_some()
                && url.username().is_empty()
                && url.password().is_none() =>
        {
            Ok(url.to_string())
        }
        _ => Err(Error::validation("privacyNoticeUrl", RULE)),
    }
}

fn parse_brief(input: BriefInput) -> Result<Brief> {
    let intent_text = checked_text("brief.intentText", &input.intent_text, 10, 4000, true)?;
    if intent_text.trim().chars().count() < 10 {
        return Err(Error::validation("brief.intentText", "must hold at least 10 characters besides spaces"));
    }
    let question_count = ranged("brief.constraints.questionCount", input.question_count, 1, 50)?
        .and_then(|v| u8::try_from(v).ok())
        .unwrap_or(DEFAULT_QUESTION_COUNT);
    let raw_languages = input.languages.unwrap_or_else(|| vec!["en".to_owned()]);
    if raw_languages.len() > 20 {
        return Err(Error::validation("brief.constraints.languages", "must list at most 20 languages"));
    }
    if raw_languages.is_empty() {
        return Err(Error::validation("brief.constraints.languages", "must list at least one language"));
    }
    let mut languages: Vec<LanguageTag> = Vec::with_capacity(raw_languages.len());
    for (i, raw) in raw_languages.iter().enumerate() {
        let tag = LanguageTag::parse(&format!("brief.constraints.languages[{i}]"), raw)?;
        if languages.contains(&tag) {
            return Err(Error::validation(&format!("brief.constraints.languages[{i}]"), "repeats a language"));
        }
        languages.push(tag);
    }
    let tone = input.tone.map(|t| checked_text("brief.constraints.tone", &t, 0, 120, false)).transpose()?;
    let topics = input.banned_topics.unwrap_or_default();
    if topics.len() > 50 {
        return Err(Error::validation("brief.constraints.bannedTopics", "must list at most 50 topics"));
    }
    let banned_topics = topics
        .iter()
        .enumerate()
        .map(|(i, t)| checked_text(&format!("brief.constraints.bannedTopics[{i}]"), t.trim(), 1, 120, false))
        .collect::<Result<Vec<_>>>()?;
    Ok(Brief { intent_text, question_count, languages, tone, banned_topics, nps: input.nps.unwrap_or(false) })
}

/// A campaign as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Campaign {
    pub id: CampaignId,
    pub workspace_id: WorkspaceId,
    pub survey_id: SurveyId,
    /// The public code in `/p/<code>`: safe to show, names nothing.
    pub code: String,
    pub name: String,
    pub status: CampaignStatus,
    pub audience: AudienceMode,
    /// Whether public starts need a signed launch token (or a minted link).
    pub require_signed: bool,
    pub quality: Quality,
    pub delivery: Delivery,
    pub order: Order,
    pub anonymity_floor: u32,
    /// An `https` address the respondent page links as the privacy notice.
    pub privacy_notice_url: Option<String>,
    pub created_at: OffsetDateTime,
    pub launched_at: Option<OffsetDateTime>,
    pub closed_at: Option<OffsetDateTime>,
}

/// A campaign in a list, with its place in the list's order.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedCampaign {
    pub campaign: Campaign,
    /// Grows with every campaign created; orders the list.
    pub position: i64,
}

/// How many respondents and sessions a campaign has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CampaignCounts {
    /// Respondents attached (the audience).
    pub invited: u64,
    pub invited_with_email: u64,
    pub invited_with_phone: u64,
    /// Attached respondents whose invitation (or closed link) was used to finish a session.
    pub responded: u64,
    /// Sessions started (consent given).
    pub started: u64,
    pub completed: u64,
}

/// What keeps a campaign from launching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocker {
    /// A stable code: `WORKSPACE_NOT_APPROVED`, `WORKSPACE_SUSPENDED`, `CHANNEL_UNAVAILABLE`,
    /// `NO_EMAIL_RECIPIENTS`, `NO_PHONE_RECIPIENTS`.
    pub code: &'static str,
    pub description: String,
}

/// Whether a campaign may launch, as `GET /campaigns/{id}` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Readiness {
    /// Empty when the campaign may launch, or is live already.
    pub blockers: Vec<Blocker>,
}

impl Readiness {
    /// Whether a launch would succeed now (a live campaign's launch changes nothing, and succeeds).
    pub fn launch_ready(&self) -> bool {
        self.blockers.is_empty()
    }
}

/// A campaign with everything `GET /campaigns/{id}` shows.
#[derive(Clone, Debug, PartialEq)]
pub struct CampaignOverview {
    pub campaign: Campaign,
    pub survey: Survey,
    pub workspace_status: WorkspaceStatus,
    pub counts: CampaignCounts,
}

impl CampaignOverview {
    /// The blockers of launch, in a fixed order, where messages can be sent on `sendable`;
    /// empty when the campaign may launch.
    pub fn blockers(&self, sendable: &[DeliveryChannel]) -> Vec<Blocker> {
        let mut blockers = Vec::new();
        match self.workspace_status {
            WorkspaceStatus::Active => {}
            WorkspaceStatus::PendingApproval => blockers.push(Blocker {
                code: "WORKSPACE_NOT_APPROVED",
                description: "the workspace is waiting for approval; campaigns launch once it is approved".into(),
            }),
            WorkspaceStatus::Suspended => {
                blockers.push(Blocker { code: "WORKSPACE_SUSPENDED", description: "the workspace is suspended".into() })
            }
        }
        let channels = &self.campaign.delivery.channels;
        for channel in channels.iter().filter(|c| !sendable.contains(c)) {
            blockers.push(Blocker {
                code: "CHANNEL_UNAVAILABLE",
                description: format!(
                    "delivery.channels includes {}, which this service cannot send on: no sender is configured for it",
                    channel.as_str()
                ),
            });
        }
        if channels.iter().any(|c| c.needs_email()) && self.counts.invited_with_email == 0 {
            blockers.push(Blocker {
                code: "NO_EMAIL_RECIPIENTS",
                description: "delivery.channels includes EMAIL but no attached respondent has an email".into(),
            });
        }
        if channels.iter().any(|c| !c.needs_email()) && self.counts.invited_with_phone == 0 {
            blockers.push(Blocker {
                code: "NO_PHONE_RECIPIENTS",
                description: "delivery.channels includes a phone channel but no attached respondent has a phone".into(),
            });
        }
        blockers
    }

    /// The blockers of a draft; none for a live campaign, whose blockers no longer matter.
    pub fn readiness(&self, sendable: &[DeliveryChannel]) -> Readiness {
        match self.campaign.status {
            CampaignStatus::Draft => Readiness { blockers: self.blockers(sendable) },
            CampaignStatus::Active | CampaignStatus::Paused | CampaignStatus::Closed => {
                Readiness { blockers: Vec::new() }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brief() -> BriefInput {
        BriefInput { intent_text: "How was the delivery?".into(), ..BriefInput::default() }
    }

    fn with_brief(brief: BriefInput) -> ProvisionInput {
        ProvisionInput { brief: Some(brief), ..ProvisionInput::default() }
    }

    fn field_of(result: Result<Provision>) -> String {
        result.expect_err("refused").to_string()
    }

    #[test]
    fn exactly_one_source() {
        assert!(field_of(Provision::parse(ProvisionInput::default())).contains("either"));
        let both = ProvisionInput { survey_id: Some(SurveyId::new_random()), ..with_brief(brief()) };
        assert!(field_of(Provision::parse(both)).contains("not both"));
        let provision = Provision::parse(with_brief(brief())).expect("ok");
        match provision.source {
            SurveySource::Brief(b) => {
                assert_eq!(b.question_count, DEFAULT_QUESTION_COUNT);
                assert_eq!(b.languages.iter().map(LanguageTag::as_str).collect::<Vec<_>>(), ["en"]);
            }
            SurveySource::Existing(_) => panic!("brief expected"),
        }
    }

    #[test]
    fn every_brief_bound_is_enforced() {
        let cases: Vec<(BriefInput, &str)> = vec![
            (BriefInput { intent_text: "too short".into(), ..brief() }, "brief.intentText"),
            (BriefInput { intent_text: "x".repeat(4001), ..brief() }, "brief.intentText"),
            (BriefInput { question_count: Some(0), ..brief() }, "brief.constraints.questionCount"),
            (BriefInput { question_count: Some(51), ..brief() }, "brief.constraints.questionCount"),
            (BriefInput { languages: Some(vec!["en".into(); 21]), ..brief() }, "brief.constraints.languages"),
            (BriefInput { languages: Some(vec![]), ..brief() }, "brief.constraints.languages"),
            (BriefInput { languages: Some(vec!["en".into(), "EN".into()]), ..brief() }, "languages[1]"),
            (BriefInput { languages: Some(vec!["e".into()]), ..brief() }, "languages[0]"),
            (BriefInput { tone: Some("t".repeat(121)), ..brief() }, "brief.constraints.tone"),
            (BriefInput { banned_topics: Some(vec!["x".into(); 51]), ..brief() }, "brief.constraints.bannedTopics"),
            (BriefInput { banned_topics: Some(vec![" ".into()]), ..brief() }, "bannedTopics[0]"),
        ];
        for (input, field) in cases {
            let message = field_of(Provision::parse(with_brief(input)));
            assert!(message.contains(field), "{message} should name {field}");
        }
        let max = BriefInput {
            intent_text: "x".repeat(4000),
            question_count: Some(50),
            tone: Some("t".repeat(120)),
            ..brief()
        };
        assert!(Provision::parse(with_brief(max)).is_ok());
    }

    #[test]
    fn quality_delivery_and_order_bounds() {
        let base = || with_brief(brief());
        let q = |quality: QualityInput| ProvisionInput { quality: Some(quality), ..base() };
        let d = |delivery: DeliveryInput| ProvisionInput { delivery: Some(delivery), ..base() };
        let o = |order: OrderInput| ProvisionInput { order: Some(order), ..base() };
        let cases: Vec<(ProvisionInput, &str)> = vec![
            (q(QualityInput { target_count: Some(0), ..QualityInput::default() }), "quality.targetCount"),
            (q(QualityInput { max_responses: Some(0), ..QualityInput::default() }), "quality.maxResponses"),
            (q(QualityInput { min_duration_secs: Some(-1), ..QualityInput::default() }), "quality.minDurationSecs"),
            (q(QualityInput { min_coverage_ratio: Some(1.5), ..QualityInput::default() }), "minCoverageRatio"),
            (q(QualityInput { min_coverage_ratio: Some(-0.1), ..QualityInput::default() }), "minCoverageRatio"),
            (q(QualityInput { min_answer_words: Some(-1), ..QualityInput::default() }), "quality.minAnswerWords"),
            (
                q(QualityInput { target_count: Some(10), max_responses: Some(5), ..QualityInput::default() }),
                "quality.targetCount",
            ),
            (d(DeliveryInput { reminder_count: Some(5), ..DeliveryInput::default() }), "delivery.reminderCount"),
            (d(DeliveryInput { audio_retention_days: Some(0), ..DeliveryInput::default() }), "audioRetentionDays"),
            (d(DeliveryInput { audio_retention_days: Some(91), ..DeliveryInput::default() }), "audioRetentionDays"),
            (
                d(DeliveryInput {
                    channels: Some(vec![DeliveryChannel::Sms, DeliveryChannel::Sms]),
                    ..DeliveryInput::default()
                }),
                "delivery.channels",
            ),
            (o(OrderInput { quoted_price_inr: Some(-1), ..OrderInput::default() }), "order.quotedPriceInr"),
            (o(OrderInput { accepted_responses_committed: Some(0), ..OrderInput::default() }), "acceptedResponses"),
            (ProvisionInput { name: Some(String::new()), ..base() }, "`name`"),
            (ProvisionInput { name: Some("n".repeat(121)), ..base() }, "`name`"),
        ];
        for (input, field) in cases {
            let message = field_of(Provision::parse(input));
            assert!(message.contains(field), "{message} should name {field}");
        }
        let edges = ProvisionInput {
            quality: Some(QualityInput {
                min_coverage_ratio: Some(1.0),
                min_duration_secs: Some(0),
                ..QualityInput::default()
            }),
            delivery: Some(DeliveryInput {
                reminder_count: Some(4),
                audio_retention_days: Some(90),
                ..DeliveryInput::default()
            }),
            ..base()
        };
        assert!(Provision::parse(edges).is_ok());
    }
}
