//! Surveys, campaigns and their audiences; launch keys and links in `launch`.

pub(crate) mod launch;
pub(crate) mod links;
pub(crate) mod state;
pub(crate) mod terms;

use diesel::dsl::{exists, not};
use diesel::prelude::*;
use diesel::result::{DatabaseErrorKind, Error as DieselError};
use diesel::sql_types::{Array, BigInt, Bool, Bytea, Nullable, Timestamptz, Uuid as SqlUuid};
use diesel_async::{AsyncConnection as _, RunQueryDsl};
use pulse_domain::audit::models::AuditEntry;
use pulse_domain::campaigns::models::{
    AudienceMode, Campaign, CampaignCounts, CampaignOverview, CampaignStatus, ClearRef, DigestedRef, LanguageTag,
    ListedCampaign, NewRespondent, Question, QuestionKind, Register, RowOutcome, Survey, UpsertedRespondent,
};
use pulse_domain::campaigns::ports::CampaignRepository;
use pulse_domain::ids::{BusinessId, CampaignId, RespondentId, SurveyId, WorkspaceId};
use pulse_domain::shared::paging::PageRequest;
use pulse_domain::tenancy::models::WorkspaceStatus;
use pulse_domain::{Error, ErrorCode, Result};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::audit::write_audit;
use crate::campaigns::links::LaunchLinkRow;
use crate::campaigns::terms::{DeliveryJson, OrderJson, QualityJson, from_jsonb, to_jsonb};
use crate::error::{from_diesel, violated_constraint};
use crate::rows::count_of as count;
use crate::schema::{campaigns, launch_links, respondents, sessions, surveys, workspaces};
use crate::statement::{Cached as _, coalesce};
use crate::store::{PgStore, TxError};

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

fn with_survey((campaign, survey): (CampaignRow, SurveyRow)) -> Result<(Campaign, Survey)> {
    Ok((campaign.into_domain()?, survey.into_domain()?))
}

/// Inserts a group of respondents in the given order, or updates the campaign's respondent with
/// the same reference digest. A field left out of the update keeps its stored value; `xmax = 0`
/// tells a freshly inserted row from an updated one.
const UPSERT_RESPONDENTS: &str = "INSERT INTO respondents (id, campaign_id, ref_digest, ref_sealed, name_sealed,
        email_sealed, phone_sealed, time_zone_sealed, invitation_sealed, created_at, updated_at)
    SELECT t.id, $2, t.ref_digest, t.ref_sealed, t.name_sealed, t.email_sealed, t.phone_sealed,
           t.time_zone_sealed, t.invitation_sealed, t.at, t.at
    FROM unnest($1::uuid[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[], $7::bytea[], $8::bytea[],
                $9::bytea[], $10::timestamptz[]) WITH ORDINALITY
         AS t(id, ref_digest, ref_sealed, name_sealed, email_sealed, phone_sealed, time_zone_sealed,
              invitation_sealed, at, n)
    ORDER BY t.n
    ON CONFLICT (campaign_id, ref_digest) DO UPDATE SET
        name_sealed = COALESCE(excluded.name_sealed, respondents.name_sealed),
        email_sealed = COALESCE(excluded.email_sealed, respondents.email_sealed),
        phone_sealed = COALESCE(excluded.phone_sealed, respondents.phone_sealed),
        time_zone_sealed = COALESCE(excluded.time_zone_sealed, respondents.time_zone_sealed),
        updated_at = excluded.updated_at
    RETURNING id, ref_digest, invitation_sealed, xmax = 0 AS inserted";

/// An upserted respondent.
#[derive(QueryableByName)]
struct UpsertedRow {
    #[diesel(sql_type = SqlUuid)]
    id: Uuid,
    #[diesel(sql_type = Nullable<Bytea>)]
    ref_digest: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Bytea>)]
    invitation_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Bool)]
    inserted: bool,
}

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

    async fn list_campaigns(
        &self,
        workspace: WorkspaceId,
        status: Option<CampaignStatus>,
        page: &PageRequest,
    ) -> Result<Vec<ListedCampaign>> {
        let listed = campaigns::table
            .filter(campaigns::workspace_id.eq(workspace.0))
            .filter(campaigns::position.gt(page.after.map_or(0, |k| k.position)))
            .order(campaigns::position)
            .limit(i64::from(page.limit) + 1)
            .select((CampaignRow::as_select(), campaigns::position));
        let mut conn = self.read_conn().await?;
        let rows: Vec<(CampaignRow, i64)> = match status {
            Some(status) => listed.filter(campaigns::status.eq(status.as_str())).load(&mut conn).await,
            None => listed.load(&mut conn).await,
        }
        .map_err(from_diesel)?;
        rows.into_iter().map(|(row, position)| Ok(ListedCampaign { campaign: row.into_domain()?, position })).collect()
    }

    async fn change_campaign_status(
        &self,
        id: CampaignId,
        from: &[CampaignStatus],
        to: CampaignStatus,
        at: OffsetDateTime,
        audit: Option<&AuditEntry>,
    ) -> Result<Option<Campaign>> {
        let from: Vec<&str> = from.iter().map(|s| s.as_str()).collect();
        let target = campaigns::table.find(id.0).filter(campaigns::status.eq_any(from));
        let closed_at = (to == CampaignStatus::Closed).then_some(at);
        let launched_at = (to == CampaignStatus::Active).then_some(at);
        let mut conn = self.conn().await?;
        let changed: Option<CampaignRow> = conn
            .transaction::<_, DieselError, _>(async |conn| {
                let changed = diesel::update(target)
                    .set((
                        campaigns::status.eq(to.as_str()),
                        // A close records its time; a launch keeps the first one.
                        campaigns::closed_at.eq(coalesce(closed_at, campaigns::closed_at)),
                        campaigns::launched_at.eq(coalesce(campaigns::launched_at, launched_at)),
                    ))
                    .returning(CampaignRow::as_returning())
                    .get_result(conn)
                    .await
                    .optional()?;
                if let (Some(_), Some(audit)) = (&changed, audit) {
                    write_audit(conn, audit).await?;
                }
                Ok(changed)
            })
            .await
            .map_err(from_diesel)?;
        changed.map(CampaignRow::into_domain).transpose()
    }

    async fn upsert_respondents(
        &self,
        campaign: CampaignId,
        rows: &[NewRespondent],
        audit: &AuditEntry,
    ) -> Result<Vec<UpsertedRespondent>> {
        let mut conn = self.conn().await?;
        let upserted = conn
            .transaction::<_, TxError, _>(async |conn| {
                // A fixed order of row locks, so concurrent calls with overlapping refs cannot deadlock.
                let mut ordered: Vec<&NewRespondent> = rows.iter().collect();
                ordered.sort_by(|a, b| a.ref_digest.cmp(&b.ref_digest));
                let stored: Vec<UpsertedRow> = diesel::sql_query(UPSERT_RESPONDENTS)
                    .bind::<Array<SqlUuid>, _>(ordered.iter().map(|r| r.id.0).collect::<Vec<_>>())
                    .bind::<SqlUuid, _>(campaign.0)
                    .bind::<Array<Bytea>, _>(ordered.iter().map(|r| r.ref_digest.as_slice()).collect::<Vec<_>>())
                    .bind::<Array<Bytea>, _>(ordered.iter().map(|r| r.ref_sealed.as_slice()).collect::<Vec<_>>())
                    .bind::<Array<Nullable<Bytea>>, _>(
                        ordered.iter().map(|r| r.name_sealed.as_deref()).collect::<Vec<_>>(),
                    )
                    .bind::<Array<Nullable<Bytea>>, _>(
                        ordered.iter().map(|r| r.email_sealed.as_deref()).collect::<Vec<_>>(),
                    )
                    .bind::<Array<Nullable<Bytea>>, _>(
                        ordered.iter().map(|r| r.phone_sealed.as_deref()).collect::<Vec<_>>(),
                    )
                    .bind::<Array<Nullable<Bytea>>, _>(
                        ordered.iter().map(|r| r.time_zone_sealed.as_deref()).collect::<Vec<_>>(),
                    )
                    .bind::<Array<Bytea>, _>(ordered.iter().map(|r| r.invitation_sealed.as_slice()).collect::<Vec<_>>())
                    .bind::<Array<Timestamptz>, _>(ordered.iter().map(|r| r.at).collect::<Vec<_>>())
                    .cached()
                    .load(conn)
                    .await?;
                let invitations: Vec<_> = rows
                    .iter()
                    .filter(|r| stored.iter().any(|s| s.inserted && s.id == r.id.0))
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
                let ids: Vec<Uuid> = stored.iter().map(|s| s.id).collect();
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
                write_audit(conn, audit).await?;
                rows.iter()
                    .map(|r| {
                        let missing = || TxError::Domain(Error::internal("an upserted respondent is missing"));
                        let s =
                            stored.iter().find(|s| s.ref_digest.as_ref() == Some(&r.ref_digest)).ok_or_else(missing)?;
                        Ok(UpsertedRespondent {
                            id: RespondentId(s.id),
                            outcome: if s.inserted { RowOutcome::Created } else { RowOutcome::Updated },
                            // Only an erased respondent has none, and it has no digest to match.
                            invitation_sealed: s.invitation_sealed.clone().ok_or_else(missing)?,
                            responded: responded.contains(&s.id),
                        })
                    })
                    .collect::<Result<Vec<_>, TxError>>()
            })
            .await?;
        Ok(upserted)
    }

    async fn clear_refs(&self, after: Option<RespondentId>, limit: usize) -> Result<Vec<ClearRef>> {
        let clear = respondents::table
            .filter(respondents::external_ref.is_not_null())
            .order(respondents::id)
            .limit(i64::try_from(limit).map_err(Error::internal)?)
            .select((respondents::id, respondents::campaign_id, respondents::external_ref.assume_not_null()));
        let mut conn = self.conn().await?;
        let rows: Vec<(Uuid, Uuid, String)> = match after {
            Some(after) => clear.filter(respondents::id.gt(after.0)).load(&mut conn).await,
            None => clear.load(&mut conn).await,
        }
        .map_err(from_diesel)?;
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
        let other = diesel::alias!(respondents as other);
        let mut converted = 0;
        for r in refs {
            // One statement per row: a row whose digest is taken is skipped without failing the rest.
            let taken = other
                .filter(other.field(respondents::campaign_id).eq(respondents::campaign_id))
                .filter(other.field(respondents::ref_digest).eq(&r.digest));
            converted += diesel::update(
                respondents::table
                    .find(r.id.0)
                    .filter(respondents::external_ref.is_not_null())
                    .filter(not(exists(taken))),
            )
            .set((
                respondents::ref_digest.eq(&r.digest),
                respondents::ref_sealed.eq(&r.sealed),
                respondents::external_ref.eq(None::<String>),
            ))
            .execute(&mut conn)
            .await
            .map_err(from_diesel)?;
        }
        Ok(converted)
    }
}
