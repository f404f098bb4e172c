//! The rows results read, some of them also read by the analysis.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Bytea, Double, Nullable, Text, Uuid as SqlUuid};
use pulse_domain::analysis::models::{Rejection, Step, StepResult};
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::{Error, Result};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::rows;
use crate::schema::{answer_analyses, answers, result_counts, result_sessions, result_theme_shares, sessions};

#[derive(Queryable, Selectable)]
#[diesel(table_name = answers, check_for_backend(diesel::pg::Pg))]
pub(crate) struct AnswerRow {
    pub(crate) session_id: Uuid,
    pub(crate) question_id: String,
    pub(crate) rating: Option<i16>,
    pub(crate) text_sealed: Option<Vec<u8>>,
    pub(crate) word_count: i32,
    pub(crate) answered_at: OffsetDateTime,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = answer_analyses, check_for_backend(diesel::pg::Pg))]
pub(crate) struct StepRow {
    pub(crate) session_id: Uuid,
    pub(crate) question_id: String,
    pub(crate) step: String,
    pub(crate) version: String,
    pub(crate) input_digest: Vec<u8>,
    pub(crate) covered: bool,
    pub(crate) score: Option<f64>,
    pub(crate) phrases_sealed: Option<Vec<u8>>,
    pub(crate) language: Option<String>,
    pub(crate) other_language: bool,
}

impl StepRow {
    pub(crate) fn into_domain(self) -> Result<StepResult> {
        Ok(StepResult {
            question_id: self.question_id,
            step: Step::parse(&self.step).ok_or_else(|| corrupt("step"))?,
            version: self.version,
            input_digest: self.input_digest,
            covered: self.covered,
            score: self.score,
            phrases_sealed: self.phrases_sealed,
            language: self
                .language
                .map(|language| LanguageTag::parse("language", &language).map_err(|_| corrupt("language")))
                .transpose()?,
            other_language: self.other_language,
        })
    }
}

#[derive(Queryable)]
pub(crate) struct AnalyzedRow {
    pub(crate) session_id: Uuid,
    pub(crate) rejection: Option<String>,
    pub(crate) duration_secs: i32,
    pub(crate) coverage: f64,
    pub(crate) context: Value,
    pub(crate) tags: Vec<String>,
    pub(crate) language: String,
    pub(crate) app_platform: Option<String>,
    pub(crate) app_version: Option<String>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = sessions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct SegmentRow {
    pub(crate) context: Value,
    pub(crate) tags: Vec<String>,
    pub(crate) device_id: Option<Uuid>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = result_sessions, check_for_backend(diesel::pg::Pg))]
pub(crate) struct CountsRow {
    pub(crate) metrics: Vec<Option<String>>,
    pub(crate) questions: Vec<Option<String>>,
    pub(crate) vals: Vec<Option<i64>>,
    pub(crate) ns: Vec<Option<i64>>,
}

#[derive(Queryable, Selectable)]
#[diesel(table_name = result_theme_shares, check_for_backend(diesel::pg::Pg))]
pub(crate) struct ShareRow {
    pub(crate) scope: String,
    pub(crate) key_digest: Vec<u8>,
    pub(crate) label_digest: Vec<u8>,
    pub(crate) mentions: i64,
    pub(crate) score_sum: i64,
    pub(crate) scores: i64,
}

#[derive(QueryableByName, Queryable, Selectable)]
#[diesel(table_name = result_counts, check_for_backend(diesel::pg::Pg))]
pub(crate) struct CountRow {
    #[diesel(sql_type = Text)]
    pub(crate) metric: String,
    #[diesel(sql_type = Text)]
    pub(crate) question_id: String,
    #[diesel(sql_type = BigInt)]
    pub(crate) value: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) n: i64,
}

#[derive(QueryableByName)]
pub(crate) struct ThemeRow {
    #[diesel(sql_type = Text)]
    pub(crate) scope: String,
    #[diesel(sql_type = Bytea)]
    pub(crate) key_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    pub(crate) sessions: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) score_sum: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) scores: i64,
    #[diesel(sql_type = Bytea)]
    pub(crate) label_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    pub(crate) mentions: i64,
}

#[derive(QueryableByName)]
pub(crate) struct QuoteCandidateRow {
    #[diesel(sql_type = Text)]
    pub(crate) question_id: String,
    #[diesel(sql_type = SqlUuid)]
    pub(crate) session_id: Uuid,
    #[diesel(sql_type = Nullable<Double>)]
    pub(crate) score: Option<f64>,
    #[diesel(sql_type = Bool)]
    pub(crate) scored: bool,
    #[diesel(sql_type = Bytea)]
    pub(crate) text_sealed: Vec<u8>,
}

#[derive(QueryableByName)]
pub(crate) struct PhraseRow {
    #[diesel(sql_type = Bytea)]
    pub(crate) key_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    pub(crate) label_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    pub(crate) phrase_sealed: Vec<u8>,
}

/// A stored value results do not know.
pub(crate) fn corrupt(what: &str) -> Error {
    rows::corrupt("analysis", what)
}

pub(crate) fn rejection(text: Option<&str>) -> Result<Option<Rejection>> {
    text.map(|t| Rejection::parse(t).ok_or_else(|| corrupt("rejection"))).transpose()
}
