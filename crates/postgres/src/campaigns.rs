//! Surveys, campaigns, audiences, launch keys and links, sessions and answers.

use diesel::dsl::{count_star, sql};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{BigInt, Bool, Bytea, Nullable, Uuid as SqlUuid};
use diesel::upsert::excluded;
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::apps::models::{Attribution, Identity};
use pulse_domain::campaigns::models::{
    AudienceMode, Campaign, CampaignCounts, CampaignOverview, CampaignStatus, ClearRef, DigestedRef, LAUNCH_KEY_SLOTS,
    LanguageTag, LaunchContext, LaunchKey, LaunchLink, ListedCampaign, NewRespondent, Question, QuestionKind, Register,
    RowOutcome, Survey, UpsertedRespondent, not_collecting, signature_required, token_invalid,
};
use pulse_domain::campaigns::ports::{CampaignRepository, LaunchRepository};
use pulse_domain::ids::{
    AppInstallId, AppUserId, BusinessId, CampaignId, DeviceId, LaunchKeyId, LaunchLinkId, RespondentId, SessionId,
    SurveyId, WorkspaceId,
};
use pulse_domain::sessions::models::{
    Completion, NewSession, Progress, SessionRecord, SessionStatus, Spend, StoredAnswer, VisitFacts, already_completed,
};
use pulse_domain::sessions::ports::SessionStore;
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::tenancy::models::WorkspaceStatus;
use pulse_domain::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::analysis::queue_analysis;
use crate::campaign_terms::{DeliveryJson, OrderJson, QualityJson, from_jsonb, to_jsonb};
use crate::error::{from_diesel, violated_constraint};
use crate::schema::{
    answers, campaigns, launch_keys, launch_links, respondents, sessions, spent_launch_tokens, surveys, workspaces,
};
use crate::starts::StartWritten;
use crate::statement::Cached as _;
use crate::store::{PgStore, TxError};
use crate::webhooks::emit_events;

/// A question as stored in `surveys.questions`.
#[derive(Serialize, Deserialize)]
struct QuestionJson {
    id: String,
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<i16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<i16>,
    required: bool,
    texts: Vec<(String, String)>,
}

fn questions_to_json(questions: &[Question]) -> Result<serde_json::Value> {
    let rows: Vec<QuestionJson> = questions
        .iter()
        .map(|q| {
            let (kind, min, max) = match q.kind {
                QuestionKind::Rating { min, max } => ("rating", Some(min), Some(max)),
                QuestionKind::Text => ("text", None, None),
            };
            QuestionJson {
                id: q.id.clone(),
                kind: kind.to_owned(),
                min,
                max,
                required: q.required,
                texts: q.texts.iter().map(|(l, t)| (l.as_str().to_owned(), t.clone())).collect(),
            }
        })
        .collect();
    serde_json::to_value(rows).map_err(Error::internal)
}

fn questions_from_json(survey: Uuid, value: serde_json::Value) -> Result<Vec<Question>> {
    let corrupt = || Error::internal(format!("survey {survey} has malformed questions"));
    let rows: Vec<QuestionJson> = serde_json::from_value(value).map_err(|_| corrupt())?;
    rows.into_iter()
        .map(|q| {
            let kind = match (q.kind.as_str(), q.min, q.max) {
                ("rating", Some(min), Some(max)) => QuestionKind::Rating { min, max },
                ("text", None, None) => QuestionKind::Text,
                _ => return Err(corrupt()),
            };
            let texts = q
                .texts
                .into_iter()
                .map(|(l, t)| LanguageTag::parse("language", &l).map(|l| (l, t)).map_err(|_| corrupt()))
                .collect::<Result<Vec<_>>>()?;
            Ok(Question { id: q.id, kind, required: q.required, texts })
        })
        .collect()
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = surveys, check_for_backend(diesel::pg::Pg))]
struct SurveyRow {
    id: Uuid,
    workspace_id: Uuid,
    title: String,
    languages: Vec<String>,
    questions: serde_json::Value,
    created_at: OffsetDateTime,
    register: String,
}

impl SurveyRow {
    fn into_domain(self) -> Result<Survey> {
        let languages = self
            .languages
            .iter()
            .map(|l| LanguageTag::parse("language", l))
            .collect::<Result<Vec<_>>>()
            .map_err(|_| Error::internal(format!("survey {} has a malformed language", self.id)))?;
        if languages.is_empty() {
            return Err(Error::internal(format!("survey {} has no language", self.id)));
        }
        Ok(Survey {
            id: SurveyId(self.id),
            workspace_id: WorkspaceId(self.workspace_id),
            title: self.title,
            languages,
            register: Register::parse(&self.register)
                .ok_or_else(|| Error::internal(format!("survey {} has an unknown register", self.id)))?,
            questions: questions_from_json(self.id, self.questions)?,
            created_at: self.created_at,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = campaigns, check_for_backend(diesel::pg::Pg))]
struct CampaignRow {
    id: Uuid,
    workspace_id: Uuid,
    survey_id: Uuid,
    code: String,
    name: String,
    status: String,
    audience: String,
    require_signed: bool,
    quality: serde_json::Value,
    delivery: serde_json::Value,
    order_terms: serde_json::Value,
    anonymity_floor: i32,
    created_at: OffsetDateTime,
    launched_at: Option<OffsetDateTime>,
    privacy_notice_url: Option<String>,
    closed_at: Option<OffsetDateTime>,
}

impl CampaignRow {
    fn from_domain(c: &Campaign) -> Result<Self> {
        Ok(Self {
            id: c.id.0,
            workspace_id: c.workspace_id.0,
            survey_id: c.survey_id.0,
            code: c.code.clone(),
            name: c.name.clone(),
            status: c.status.as_str().to_owned(),
            audience: c.audience.as_str().to_owned(),
            require_signed: c.require_signed,
            quality: to_jsonb(&QualityJson::from(&c.quality))?,
            delivery: to_jsonb(&DeliveryJson::from(&c.delivery))?,
            order_terms: to_jsonb(&OrderJson::from(&c.order))?,
            anonymity_floor: i32::try_from(c.anonymity_floor).map_err(Error::internal)?,
            created_at: c.created_at,
            launched_at: c.launched_at,
            privacy_notice_url: c.privacy_notice_url.clone(),
            closed_at: c.closed_at,
        })
    }

    fn into_domain(self) -> Result<Campaign> {
        let corrupt = |what: &str| Error::internal(format!("campaign {} has a malformed {what}", self.id));
        Ok(Campaign {
            id: CampaignId(self.id),
            workspace_id: WorkspaceId(self.workspace_id),
            survey_id: SurveyId(self.survey_id),
            status: CampaignStatus::parse(&self.status).ok_or_else(|| corrupt("status"))?,
            audience: AudienceMode::parse(&self.audience).ok_or_else(|| corrupt("audience"))?,
            require_signed: self.require_signed,
            quality: from_jsonb::<QualityJson>(self.quality.clone()).ok_or_else(|| corrupt("quality"))?.into(),
            delivery: from_jsonb::<DeliveryJson>(self.delivery.clone())
                .and_then(DeliveryJson::into_domain)
                .ok_or_else(|| corrupt("delivery"))?,
            order: from_jsonb::<OrderJson>(self.order_terms.clone()).ok_or_else(|| corrupt("order"))?.into(),
            anonymity_floor: u32::try_from(self.anonymity_floor).map_err(|_| corrupt("anonymity floor"))?,
            code: self.code,
            name: self.name,
            privacy_notice_url: self.privacy_notice_url,
            created_at: self.created_at,
            launched_at: self.launched_at,
            closed_at: self.closed_at,
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = launch_keys, check_for_backend(diesel::pg::Pg))]
struct LaunchKeyRow {
    id: Uuid,
    campaign_id: Uuid,
    slot: i16,
    fingerprint: String,
    secret_sealed: Vec<u8>,
    created_at: OffsetDateTime,
    last_used_at: Option<OffsetDateTime>,
    revoked_at: Option<OffsetDateTime>,
}

impl LaunchKeyRow {
    fn into_domain(self) -> Result<LaunchKey> {
        Ok(LaunchKey {
            id: LaunchKeyId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            slot: u8::try_from(self.slot).map_err(Error::internal)?,
            fingerprint: self.fingerprint,
            secret_sealed: self.secret_sealed,
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            revoked_at: self.revoked_at,
        })
    }
}

#[derive(Queryable, Selectable, Insertable)]
#[diesel(table_name = launch_links, check_for_backend(diesel::pg::Pg))]
pub(crate) struct LaunchLinkRow {
    pub(crate) id: Uuid,
    pub(crate) campaign_id: Uuid,
    pub(crate) nonce_digest: Option<Vec<u8>>,
    pub(crate) respondent_id: Option<Uuid>,
    pub(crate) language: Option<String>,
    pub(crate) external_user_digest: Option<Vec<u8>>,
    pub(crate) device: serde_json::Value,
    pub(crate) attributes: serde_json::Value,
    pub(crate) expires_at: Option<OffsetDateTime>,
    pub(crate) spent_at: Option<OffsetDateTime>,
    pub(crate) created_at: OffsetDateTime,
}

impl LaunchLinkRow {
    fn from_domain(l: &LaunchLink) -> Self {
        Self {
            id: l.id.0,
            campaign_id: l.campaign_id.0,
            nonce_digest: l.nonce_digest.clone(),
            respondent_id: l.respondent_id.map(|r| r.0),
            language: l.language.as_ref().map(|t| t.as_str().to_owned()),
            external_user_digest: l.external_user_digest.clone(),
            device: serde_json::Value::Object(l.context.device.clone()),
            attributes: serde_json::Value::Object(l.context.attributes.clone()),
            expires_at: l.expires_at,
            spent_at: l.spent_at,
            created_at: l.created_at,
        }
    }

    fn into_domain(self) -> Result<LaunchLink> {
        let corrupt = || Error::internal(format!("launch link {} is malformed", self.id));
        let object = |v: serde_json::Value| match v {
            serde_json::Value::Object(map) => Ok(map),
            _ => Err(corrupt()),
        };
        Ok(LaunchLink {
            id: LaunchLinkId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            nonce_digest: self.nonce_digest,
            respondent_id: self.respondent_id.map(RespondentId),
            language: self
                .language
                .as_deref()
                .map(|l| LanguageTag::parse("language", l))
                .transpose()
                .map_err(|_| corrupt())?,
            external_user_digest: self.external_user_digest,
            context: LaunchContext { device: object(self.device)?, attributes: object(self.attributes)? },
            expires_at: self.expires_at,
            spent_at: self.spent_at,
            created_at: self.created_at,
        })
    }
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = sessions, check_for_backend(diesel::pg::Pg))]
struct SessionRow {
    id: Uuid,
    campaign_id: Uuid,
    token_digest: Vec<u8>,
    language: String,
    status: String,
    answered: i32,
    total: i32,
    started_at: OffsetDateTime,
    completed_at: Option<OffsetDateTime>,
    device_id: Option<Uuid>,
    app_user_id: Option<Uuid>,
    app_install_id: Option<Uuid>,
    identity: Option<String>,
}

impl SessionRow {
    fn into_domain(self) -> Result<SessionRecord> {
        let corrupt = || Error::internal(format!("session {} is malformed", self.id));
        Ok(SessionRecord {
            id: SessionId(self.id),
            campaign_id: CampaignId(self.campaign_id),
            token_digest: self.token_digest,
            language: LanguageTag::parse("language", &self.language).map_err(|_| corrupt())?,
            status: SessionStatus::parse(&self.status).ok_or_else(corrupt)?,
            answered: u32::try_from(self.answered).map_err(|_| corrupt())?,
            total: u32::try_from(self.total).map_err(|_| corrupt())?,
            started_at: self.started_at,
            completed_at: self.completed_at,
            attribution: match (self.device_id, self.identity.as_deref()) {
                (Some(device), Some(identity)) => Some(Attribution {
                    device_id: DeviceId(device),
                    user_id: self.app_user_id.map(AppUserId),
                    identity: Identity::parse(identity).ok_or_else(corrupt)?,
                    install_id: self.app_install_id.map(AppInstallId),
                }),
                _ => None,
            },
        })
    }
}

fn progress(status: &str, answered: i32, total: i32) -> Result<Progress> {
    Ok(Progress {
        status: SessionStatus::parse(status).ok_or_else(|| Error::internal("a session has an unknown status"))?,
        answered: u32::try_from(answered).map_err(Error::internal)?,
        total: u32::try_from(total).map_err(Error::internal)?,
    })
}

#[derive(QueryableByName)]
struct CountsRow {
    #[diesel(sql_type = BigInt)]
    invited: i64,
    #[diesel(sql_type = BigInt)]
    responded: i64,
    #[diesel(sql_type = BigInt)]
    with_email: i64,
    #[diesel(sql_type = BigInt)]
    with_phone: i64,
    #[diesel(sql_type = BigInt)]
    started: i64,
    #[diesel(sql_type = BigInt)]
    completed: i64,
}

fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

fn with_survey((campaign, survey): (CampaignRow, SurveyRow)) -> Result<(Campaign, Survey)> {
    Ok((campaign.into_domain()?, survey.into_domain()?))
}

/// An upserted respondent: its id, reference digest, sealed invitation, and whether it is new.
type UpsertedRow = (Uuid, Option<Vec<u8>>, Option<Vec<u8>>, bool);

impl CampaignRepository for PgStore {
    async fn create_campaign(&self, survey: Option<&Survey>, campaign: &Campaign) -> Result<()> {
        let row = CampaignRow::from_domain(campaign)?;
        let survey_row = survey
            .map(|s| {
                Ok::<_, Error>(SurveyRow {
                    id: s.id.0,
                    workspace_id: s.workspace_id.0,
                    title: s.title.clone(),
                    languages: s.languages.iter().map(|l| l.as_str().to_owned()).collect(),
                    questions: questions_to_json(&s.questions)?,
                    created_at: s.created_at,
                    register: s.register.as_str().to_owned(),
                })
            })
            .transpose()?;
        let mut conn = self.conn().await?;
        let outcome = conn
            .transaction::<_, DieselError, _>(async |conn| {
                if let Some(survey_row) = &survey_row {
                    diesel::insert_into(surveys::table).values(survey_row).execute(conn).await?;
                }
                diesel::insert_into(campaigns::table).values(&row).execute(conn).await?;
                Ok(())
            })
            .await;
        outcome.map_err(|e| match violated_constraint(&e) {
            Some((DatabaseErrorKind::UniqueViolation, c)) if c == "campaigns_code_key" => {
                Error::refused(ErrorCode::Conflict, "campaign code taken")
            }
            _ => from_diesel(e),
        })
    }

    async fn find_survey(&self, workspace: WorkspaceId, id: SurveyId) -> Result<Option<Survey>> {
        let row: Option<SurveyRow> = surveys::table
            .filter(surveys::id.eq(id.0))
            .filter(surveys::workspace_id.eq(workspace.0))
            .select(SurveyRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(SurveyRow::into_domain).transpose()
    }

    async fn campaign_overview(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<CampaignOverview>> {
        let mut conn = self.conn().await?;
        let found: Option<(CampaignRow, SurveyRow, String)> = campaigns::table
            .inner_join(surveys::table)
            .inner_join(workspaces::table)
            .filter(campaigns::id.eq(id.0))
            .filter(campaigns::workspace_id.eq(workspace.0))
            .select((CampaignRow::as_select(), SurveyRow::as_select(), workspaces::status))
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        let Some((campaign, survey, workspace_status)) = found else { return Ok(None) };
        // Kept by triggers as sessions and respondents are written (migration 2026-11-24-000012).
        let counts: CountsRow = diesel::sql_query(
            "SELECT COALESCE(sum(invited), 0)::bigint AS invited, \
               COALESCE(sum(invited_with_email), 0)::bigint AS with_email, \
               COALESCE(sum(invited_with_phone), 0)::bigint AS with_phone, \
               COALESCE(sum(responded), 0)::bigint AS responded, \
               COALESCE(sum(started), 0)::bigint AS started, \
               COALESCE(sum(completed), 0)::bigint AS completed \
             FROM campaign_counts WHERE campaign_id = $1",
        )
        .bind::<SqlUuid, _>(id.0)
        .cached()
        .get_result(&mut conn)
        .await
        .map_err(from_diesel)?;
        Ok(Some(CampaignOverview {
            campaign: campaign.into_domain()?,
            survey: survey.into_domain()?,
            workspace_status: WorkspaceStatus::parse(&workspace_status)
                .ok_or_else(|| Error::internal("a workspace has an unknown status"))?,
            counts: CampaignCounts {
                invited: count(counts.invited),
                responded: count(counts.responded),
                invited_with_email: count(counts.with_email),
                invited_with_phone: count(counts.with_phone),
                started: count(counts.started),
                completed: count(counts.completed),
            },
        }))
    }

    async fn find_campaign(&self, workspace: WorkspaceId, id: CampaignId) -> Result<Option<(Campaign, Survey)>> {
        let found: Option<(CampaignRow, SurveyRow)> = campaigns::table
            .inner_join(surveys::table)
            .filter(campaigns::id.eq(id.0))
            .filter(campaigns::workspace_id.eq(workspace.0))
            .select((CampaignRow::as_select(), SurveyRow::as_select()))
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        found.map(with_survey).transpose()
    }

    async fn find_campaign_by_code(&self, code: &str) -> Result<Option<(Campaign, Survey)>> {
        let found: Option<(CampaignRow, SurveyRow)> = campaigns::table
            .inner_join(surveys::table)
            .filter(campaigns::code.eq(code))
            .select((CampaignRow::as_select(), SurveyRow::as_select()))
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        found.map(with_survey).transpose()
    }

    async fn find_campaign_in_business(&self, business: BusinessId, id: CampaignId) -> Result<Option<Campaign>> {
        let row: Option<CampaignRow> = campaigns::table
            .inner_join(workspaces::table)
            .filter(campaigns::id.eq(id.0))
            .filter(workspaces::business_id.eq(business.0))
            .select(CampaignRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(CampaignRow::into_domain).transpose()
    }

    async fn activate_campaign(&self, id: CampaignId, at: OffsetDateTime) -> Result<Campaign> {
        let mut conn = self.conn().await?;
        diesel::update(campaigns::table.find(id.0).filter(campaigns::status.eq(CampaignStatus::Draft.as_str())))
            .set((campaigns::status.eq(CampaignStatus::Active.as_str()), campaigns::launched_at.eq(at)))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        let row: Option<CampaignRow> = campaigns::table
            .find(id.0)
            .select(CampaignRow::as_select())
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.ok_or_else(|| Error::not_found("campaign"))?.into_domain()
    }

    async fn list_campaigns(
        &self,
        workspace: WorkspaceId,
        status: Option<CampaignStatus>,
        page: &PageRequest,
    ) -> Result<Vec<ListedCampaign>> {
        let mut query = campaigns::table
            .filter(campaigns::workspace_id.eq(workspace.0))
            .filter(campaigns::position.gt(page.after.map_or(0, |k| k.position)))
            .order(campaigns::position)
            .limit(i64::from(page.limit) + 1)
            .select((CampaignRow::as_select(), campaigns::position))
            .into_boxed();
        if let Some(status) = status {
            query = query.filter(campaigns::status.eq(status.as_str()));
        }
        let rows: Vec<(CampaignRow, i64)> = query.load(&mut self.read_conn().await?).await.map_err(from_diesel)?;
        rows.into_iter().map(|(row, position)| Ok(ListedCampaign { campaign: row.into_domain()?, position })).collect()
    }

    async fn change_campaign_status(
        &self,
        id: CampaignId,
        from: &[CampaignStatus],
        to: CampaignStatus,
        at: OffsetDateTime,
    ) -> Result<bool> {
        let from: Vec<&str> = from.iter().map(|s| s.as_str()).collect();
        let target = campaigns::table.find(id.0).filter(campaigns::status.eq_any(from));
        let mut conn = self.conn().await?;
        let changed = if to == CampaignStatus::Closed {
            diesel::update(target)
                .set((campaigns::status.eq(to.as_str()), campaigns::closed_at.eq(at)))
                .execute(&mut conn)
                .await
        } else {
            diesel::update(target).set(campaigns::status.eq(to.as_str())).execute(&mut conn).await
        }
        .map_err(from_diesel)?;
        Ok(changed == 1)
    }

    async fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
    ) -> Result<Vec<UpsertedRespondent>> {
        let mut conn = self.conn().await?;
        let upserted = conn
            .transaction::<_, TxError, _>(async |conn| {
                // A fixed order of row locks, so concurrent calls with overlapping refs cannot deadlock.
                let mut ordered: Vec<&NewRespondent> = rows.iter().collect();
                ordered.sort_by(|a, b| a.ref_digest.cmp(&b.ref_digest));
                let values: Vec<_> = ordered
                    .into_iter()
                    .map(|r| {
                        (
                            respondents::id.eq(r.id.0),
                            respondents::campaign_id.eq(campaign.0),
                            respondents::ref_digest.eq(&r.ref_digest),
                            respondents::ref_sealed.eq(&r.ref_sealed),
                            respondents::name_sealed.eq(&r.name_sealed),
                            respondents::email_sealed.eq(&r.email_sealed),
                            respondents::phone_sealed.eq(&r.phone_sealed),
                            respondents::invitation_sealed.eq(&r.invitation_sealed),
                            respondents::created_at.eq(r.at),
                            respondents::updated_at.eq(r.at),
                        )
                    })
                    .collect();
                // `xmax = 0` tells a freshly inserted row from an updated one.
                let stored: Vec<UpsertedRow> = diesel::insert_into(respondents::table)
                    .values(values)
                    .on_conflict((respondents::campaign_id, respondents::ref_digest))
                    .do_update()
                    // A field left out of the update keeps its stored value.
                    .set((
                        respondents::name_sealed
                            .eq(sql::<Nullable<Bytea>>("COALESCE(excluded.name_sealed, respondents.name_sealed)")),
                        respondents::email_sealed
                            .eq(sql::<Nullable<Bytea>>("COALESCE(excluded.email_sealed, respondents.email_sealed)")),
                        respondents::phone_sealed
                            .eq(sql::<Nullable<Bytea>>("COALESCE(excluded.phone_sealed, respondents.phone_sealed)")),
                        respondents::updated_at.eq(excluded(respondents::updated_at)),
                    ))
                    .returning((
                        respondents::id,
                        respondents::ref_digest,
                        respondents::invitation_sealed,
                        sql::<Bool>("xmax = 0"),
                    ))
                    .get_results(conn)
                    .await?;
                let invitations: Vec<_> = rows
                    .iter()
                    .filter(|r| stored.iter().any(|(id, _, _, inserted)| *inserted && *id == r.id.0))
                    .map(|r| LaunchLinkRow {
                        id: Uuid::new_v4(),
                        campaign_id: campaign.0,
                        nonce_digest: Some(r.invitation_digest.clone()),
                        respondent_id: Some(r.id.0),
                        language: None,
                        external_user_digest: None,
                        device: serde_json::Value::Object(serde_json::Map::new()),
                        attributes: serde_json::Value::Object(serde_json::Map::new()),
                        expires_at: None,
                        spent_at: None,
                        created_at: r.at,
                    })
                    .collect();
                if !invitations.is_empty() {
                    diesel::insert_into(launch_links::table).values(&invitations).execute(conn).await?;
                }
                let ids: Vec<Uuid> = stored.iter().map(|(id, ..)| *id).collect();
                let responded: Vec<Uuid> = sessions::table
                    .filter(sessions::respondent_id.eq_any(&ids))
                    .select(sessions::respondent_id.assume_not_null())
                    .distinct()
                    .load(conn)
                    .await?;
                diesel::update(
                    campaigns::table.find(campaign.0).filter(campaigns::status.eq(CampaignStatus::Draft.as_str())),
                )
                .set(campaigns::audience.eq(AudienceMode::Closed.as_str()))
                .execute(conn)
                .await?;
                rows.iter()
                    .map(|r| {
                        let missing = || TxError::Domain(Error::internal("an upserted respondent is missing"));
                        let (id, _, sealed, inserted) = stored
                            .iter()
                            .find(|(_, digest, ..)| digest.as_ref() == Some(&r.ref_digest))
                            .ok_or_else(missing)?;
                        Ok(UpsertedRespondent {
                            id: RespondentId(*id),
                            outcome: if *inserted { RowOutcome::Created } else { RowOutcome::Updated },
                            // Only an erased respondent has none, and it has no digest to match.
                            invitation_sealed: sealed.clone().ok_or_else(missing)?,
                            responded: responded.contains(id),
                        })
                    })
                    .collect::<Result<Vec<_>, TxError>>()
            })
            .await?;
        Ok(upserted)
    }

    async fn clear_refs(&self, after: Option<RespondentId>, limit: usize) -> Result<Vec<ClearRef>> {
        let mut query = respondents::table
            .filter(respondents::external_ref.is_not_null())
            .order(respondents::id)
            .limit(i64::try_from(limit).map_err(Error::internal)?)
            .select((respondents::id, respondents::campaign_id, respondents::external_ref.assume_not_null()))
            .into_boxed();
        if let Some(after) = after {
            query = query.filter(respondents::id.gt(after.0));
        }
        let rows: Vec<(Uuid, Uuid, String)> = query.load(&mut self.conn().await?).await.map_err(from_diesel)?;
        Ok(rows
            .into_iter()
            .map(|(id, campaign, external_ref)| ClearRef {
                id: RespondentId(id),
                campaign_id: CampaignId(campaign),
                external_ref,
            })
            .collect())
    }

    async fn store_digested_refs(&self, refs: &[DigestedRef]) -> Result<usize> {
        let mut conn = self.conn().await?;
        let mut converted = 0;
        for r in refs {
            // One statement per row: a row whose digest is taken is skipped without failing the rest.
            converted += diesel::sql_query(
                "UPDATE respondents r SET ref_digest = $2, ref_sealed = $3, external_ref = NULL \
                 WHERE r.id = $1 AND r.external_ref IS NOT NULL \
                 AND NOT EXISTS (SELECT 1 FROM respondents o WHERE o.campaign_id = r.campaign_id AND o.ref_digest = $2)",
            )
            .bind::<SqlUuid, _>(r.id.0)
            .bind::<Bytea, _>(&r.digest)
            .bind::<Bytea, _>(&r.sealed)
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        }
        Ok(converted)
    }
}

impl LaunchRepository for PgStore {
    async fn active_launch_keys(&self, campaign: CampaignId) -> Result<Vec<LaunchKey>> {
        let rows: Vec<LaunchKeyRow> = launch_keys::table
            .filter(launch_keys::campaign_id.eq(campaign.0))
            .filter(launch_keys::revoked_at.is_null())
            .order(launch_keys::slot)
            .select(LaunchKeyRow::as_select())
            .load(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        rows.into_iter().map(LaunchKeyRow::into_domain).collect()
    }

    async fn find_launch_key(&self, campaign: CampaignId, id: LaunchKeyId) -> Result<Option<LaunchKey>> {
        let row: Option<LaunchKeyRow> = launch_keys::table
            .filter(launch_keys::id.eq(id.0))
            .filter(launch_keys::campaign_id.eq(campaign.0))
            .filter(launch_keys::revoked_at.is_null())
            .select(LaunchKeyRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchKeyRow::into_domain).transpose()
    }

    async fn insert_launch_key(&self, key: &LaunchKey) -> Result<LaunchKey> {
        let mut conn = self.conn().await?;
        let row = conn
            .transaction::<_, TxError, _>(async |conn| {
                // Serialises key creation per campaign, so two creations cannot take one slot.
                campaigns::table.find(key.campaign_id.0).select(campaigns::id).for_update().first::<Uuid>(conn).await?;
                let taken: Vec<i16> = launch_keys::table
                    .filter(launch_keys::campaign_id.eq(key.campaign_id.0))
                    .filter(launch_keys::revoked_at.is_null())
                    .select(launch_keys::slot)
                    .load(conn)
                    .await?;
                let slot = (1..=i16::from(LAUNCH_KEY_SLOTS)).find(|s| !taken.contains(s)).ok_or_else(|| {
                    TxError::Domain(Error::refused(
                        ErrorCode::LaunchKeySlotsFull,
                        "both launch-key slots hold an active key; revoke one before creating another",
                    ))
                })?;
                let row: LaunchKeyRow = diesel::insert_into(launch_keys::table)
                    .values((
                        launch_keys::id.eq(key.id.0),
                        launch_keys::campaign_id.eq(key.campaign_id.0),
                        launch_keys::slot.eq(slot),
                        launch_keys::fingerprint.eq(&key.fingerprint),
                        launch_keys::secret_sealed.eq(&key.secret_sealed),
                        launch_keys::created_at.eq(key.created_at),
                    ))
                    .returning(LaunchKeyRow::as_returning())
                    .get_result(conn)
                    .await?;
                Ok(row)
            })
            .await?;
        row.into_domain()
    }

    async fn revoke_launch_key(&self, campaign: CampaignId, id: LaunchKeyId, at: OffsetDateTime) -> Result<bool> {
        let revoked = diesel::update(
            launch_keys::table
                .filter(launch_keys::id.eq(id.0))
                .filter(launch_keys::campaign_id.eq(campaign.0))
                .filter(launch_keys::revoked_at.is_null()),
        )
        .set(launch_keys::revoked_at.eq(at))
        .execute(&mut self.conn().await?)
        .await
        .map_err(from_diesel)?;
        Ok(revoked == 1)
    }

    async fn set_require_signed(&self, campaign: CampaignId, required: bool) -> Result<()> {
        diesel::update(campaigns::table.find(campaign.0))
            .set(campaigns::require_signed.eq(required))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(())
    }

    async fn insert_launch_link(&self, link: &LaunchLink) -> Result<()> {
        self.link_inserts.submit(LaunchLinkRow::from_domain(link)).await?
    }

    async fn find_launch_link(&self, campaign: CampaignId, id: LaunchLinkId) -> Result<Option<LaunchLink>> {
        let row: Option<LaunchLinkRow> = launch_links::table
            .filter(launch_links::id.eq(id.0))
            .filter(launch_links::campaign_id.eq(campaign.0))
            .select(LaunchLinkRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchLinkRow::into_domain).transpose()
    }

    async fn find_link_by_nonce(&self, campaign: CampaignId, nonce_digest: &[u8]) -> Result<Option<LaunchLink>> {
        let row: Option<LaunchLinkRow> = launch_links::table
            .filter(launch_links::nonce_digest.eq(nonce_digest))
            .filter(launch_links::campaign_id.eq(campaign.0))
            .select(LaunchLinkRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(LaunchLinkRow::into_domain).transpose()
    }

    async fn token_spent(&self, campaign: CampaignId, jti: &str) -> Result<bool> {
        diesel::select(diesel::dsl::exists(spent_launch_tokens::table.find((campaign.0, jti))))
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)
    }

    async fn purge_spent_tokens(&self, before: OffsetDateTime) -> Result<u64> {
        let deleted = diesel::delete(spent_launch_tokens::table.filter(spent_launch_tokens::expires_at.lt(before)))
            .execute(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(deleted as u64)
    }
}

impl SessionStore for PgStore {
    async fn start_session(&self, session: &NewSession, spend: &Spend) -> Result<()> {
        match self.session_starts.submit((session.clone(), spend.clone())).await? {
            StartWritten::Started => Ok(()),
            StartWritten::LaunchUsed => Err(token_invalid()),
            StartWritten::SignatureRequired => Err(signature_required()),
            StartWritten::NotCollecting(status) => Err(not_collecting(status)),
        }
    }

    async fn visit_facts(
        &self,
        workspace: WorkspaceId,
        campaign: CampaignId,
        spent_link: Option<LaunchLinkId>,
    ) -> Result<VisitFacts> {
        let mut conn = self.conn().await?;
        let asked_by: String = workspaces::table
            .find(workspace.0)
            .select(workspaces::name)
            .first(&mut conn)
            .await
            .optional()
            .map_err(from_diesel)?
            .ok_or_else(|| Error::not_found("workspace"))?;
        let link_answered = match spent_link {
            Some(link) => diesel::select(diesel::dsl::exists(
                sessions::table
                    .filter(sessions::launch_link_id.eq(link.0))
                    .filter(sessions::campaign_id.eq(campaign.0))
                    .filter(sessions::status.eq(SessionStatus::Completed.as_str())),
            ))
            .get_result(&mut conn)
            .await
            .map_err(from_diesel)?,
            None => false,
        };
        Ok(VisitFacts { asked_by, link_answered })
    }

    async fn completed_sessions(&self, campaign: CampaignId) -> Result<u64> {
        let completed: i64 = sessions::table
            .filter(sessions::campaign_id.eq(campaign.0))
            .filter(sessions::status.eq(SessionStatus::Completed.as_str()))
            .count()
            .get_result(&mut self.conn().await?)
            .await
            .map_err(from_diesel)?;
        Ok(u64::try_from(completed).unwrap_or(0))
    }

    async fn find_session(&self, campaign: CampaignId, id: SessionId) -> Result<Option<SessionRecord>> {
        let row: Option<SessionRow> = sessions::table
            .filter(sessions::id.eq(id.0))
            .filter(sessions::campaign_id.eq(campaign.0))
            .select(SessionRow::as_select())
            .first(&mut self.conn().await?)
            .await
            .optional()
            .map_err(from_diesel)?;
        row.map(SessionRow::into_domain).transpose()
    }

    async fn record_answers(&self, session: SessionId, stored: &[StoredAnswer]) -> Result<Progress> {
        let mut conn = self.conn().await?;
        let progress = conn
            .transaction::<_, TxError, _>(async |conn| {
                let status: String =
                    sessions::table.find(session.0).select(sessions::status).for_update().first(conn).await?;
                if status == SessionStatus::Completed.as_str() {
                    return Err(TxError::Domain(already_completed()));
                }
                let rows: Vec<_> = stored
                    .iter()
                    .map(|a| {
                        (
                            answers::session_id.eq(session.0),
                            answers::question_id.eq(&a.question_id),
                            answers::rating.eq(a.rating),
                            answers::text_sealed.eq(&a.text_sealed),
                            answers::word_count.eq(i32::try_from(a.word_count).unwrap_or(i32::MAX)),
                            answers::answered_at.eq(a.answered_at),
                        )
                    })
                    .collect();
                diesel::insert_into(answers::table)
                    .values(rows)
                    .on_conflict((answers::session_id, answers::question_id))
                    .do_update()
                    .set((
                        answers::rating.eq(excluded(answers::rating)),
                        answers::text_sealed.eq(excluded(answers::text_sealed)),
                        answers::word_count.eq(excluded(answers::word_count)),
                        answers::answered_at.eq(excluded(answers::answered_at)),
                    ))
                    .execute(conn)
                    .await?;
                let answered: i64 =
                    answers::table.filter(answers::session_id.eq(session.0)).select(count_star()).first(conn).await?;
                let written = i32::try_from(stored.len()).unwrap_or(i32::MAX);
                let (status, answered, total): (String, i32, i32) = diesel::update(sessions::table.find(session.0))
                    .set((
                        sessions::answered.eq(i32::try_from(answered).unwrap_or(i32::MAX)),
                        sessions::exchanges.eq(sessions::exchanges + written),
                    ))
                    .returning((sessions::status, sessions::answered, sessions::total))
                    .get_result(conn)
                    .await?;
                progress(&status, answered, total).map_err(TxError::Domain)
            })
            .await?;
        Ok(progress)
    }

    async fn complete_session(&self, completion: &Completion) -> Result<Progress> {
        let session = completion.facts.session;
        let mut conn = self.conn().await?;
        conn.transaction::<_, TxError, _>(async |conn| {
            let completed: Option<(String, i32, i32)> = diesel::update(
                sessions::table.find(session.0).filter(sessions::status.eq(SessionStatus::Started.as_str())),
            )
            .set((sessions::status.eq(SessionStatus::Completed.as_str()), sessions::completed_at.eq(completion.at)))
            .returning((sessions::status, sessions::answered, sessions::total))
            .get_result(conn)
            .await
            .optional()?;
            if let Some((status, answered, total)) = completed {
                let progress = progress(&status, answered, total).map_err(TxError::Domain)?;
                // The outbox: the fact and its events commit together or not at all, and the
                // analysis is queued by the same transaction.
                emit_events(conn, &completion.events(&progress)).await?;
                queue_analysis(conn, completion).await?;
                return Ok(progress);
            }
            let (status, answered, total): (String, i32, i32) = sessions::table
                .find(session.0)
                .select((sessions::status, sessions::answered, sessions::total))
                .first(conn)
                .await
                .optional()?
                .ok_or_else(|| TxError::Domain(Error::not_found("session")))?;
            progress(&status, answered, total).map_err(TxError::Domain)
        })
        .await
        .map_err(Error::from)
    }
}
