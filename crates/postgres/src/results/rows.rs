//! The rows results read, some of them also read by the analysis.

use diesel::QueryableByName;
use diesel::sql_types::{
    Array, BigInt, Bool, Bytea, Double, Integer, Jsonb, Nullable, Text, Timestamptz, Uuid as SqlUuid,
};
use pulse_domain::analysis::models::{Rejection, Step, StepResult};
use pulse_domain::campaigns::models::LanguageTag;
use pulse_domain::{Error, Result};
use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::rows;

#[derive(QueryableByName)]
pub(crate) struct AnswerRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) session_id: Uuid,
    #[diesel(sql_type = Text)]
    pub(crate) question_id: String,
    #[diesel(sql_type = Nullable<diesel::sql_types::SmallInt>)]
    pub(crate) rating: Option<i16>,
    #[diesel(sql_type = Nullable<Bytea>)]
    pub(crate) text_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Integer)]
    pub(crate) word_count: i32,
    #[diesel(sql_type = Timestamptz)]
    pub(crate) answered_at: OffsetDateTime,
}

#[derive(QueryableByName)]
pub(crate) struct StepRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) session_id: Uuid,
    #[diesel(sql_type = Text)]
    pub(crate) question_id: String,
    #[diesel(sql_type = Text)]
    pub(crate) step: String,
    #[diesel(sql_type = Text)]
    pub(crate) version: String,
    #[diesel(sql_type = Bytea)]
    pub(crate) input_digest: Vec<u8>,
    #[diesel(sql_type = Bool)]
    pub(crate) covered: bool,
    #[diesel(sql_type = Nullable<Double>)]
    pub(crate) score: Option<f64>,
    #[diesel(sql_type = Nullable<Bytea>)]
    pub(crate) phrases_sealed: Option<Vec<u8>>,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) language: Option<String>,
    #[diesel(sql_type = Bool)]
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

#[derive(QueryableByName)]
pub(crate) struct AnalyzedRow {
    #[diesel(sql_type = SqlUuid)]
    pub(crate) session_id: Uuid,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) rejection: Option<String>,
    #[diesel(sql_type = Integer)]
    pub(crate) duration_secs: i32,
    #[diesel(sql_type = Double)]
    pub(crate) coverage: f64,
    #[diesel(sql_type = Jsonb)]
    pub(crate) context: Value,
    #[diesel(sql_type = Array<Text>)]
    pub(crate) tags: Vec<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) app_platform: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    pub(crate) app_version: Option<String>,
}

#[derive(QueryableByName)]
pub(crate) struct SegmentRow {
    #[diesel(sql_type = Jsonb)]
    pub(crate) context: Value,
    #[diesel(sql_type = Array<Text>)]
    pub(crate) tags: Vec<String>,
    #[diesel(sql_type = Nullable<SqlUuid>)]
    pub(crate) device_id: Option<Uuid>,
}

#[derive(QueryableByName)]
pub(crate) struct CountsRow {
    #[diesel(sql_type = Array<Text>)]
    pub(crate) metrics: Vec<String>,
    #[diesel(sql_type = Array<Text>)]
    pub(crate) questions: Vec<String>,
    #[diesel(sql_type = Array<BigInt>)]
    pub(crate) vals: Vec<i64>,
    #[diesel(sql_type = Array<BigInt>)]
    pub(crate) ns: Vec<i64>,
}

#[derive(QueryableByName)]
pub(crate) struct ShareRow {
    #[diesel(sql_type = Text)]
    pub(crate) scope: String,
    #[diesel(sql_type = Bytea)]
    pub(crate) key_digest: Vec<u8>,
    #[diesel(sql_type = Bytea)]
    pub(crate) label_digest: Vec<u8>,
    #[diesel(sql_type = BigInt)]
    pub(crate) mentions: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) score_sum: i64,
    #[diesel(sql_type = BigInt)]
    pub(crate) scores: i64,
}

#[derive(QueryableByName)]
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
