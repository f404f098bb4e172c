//! A survey generator whose questions are predictable: `q1` is a required 1 to 5 rating, the rest
//! optional open questions.

use pulse_domain::Result;
use pulse_domain::campaigns::models::{Brief, GeneratedSurvey, QuestionDraft, QuestionKind, Register};
use pulse_domain::campaigns::ports::SurveyGenerator;

#[derive(Clone, Copy, Debug, Default)]
pub struct FakeGenerator;

impl SurveyGenerator for FakeGenerator {
    async fn generate(&self, brief: &Brief) -> Result<GeneratedSurvey> {
        let questions = (0..brief.question_count)
            .map(|i| QuestionDraft {
                kind: if i == 0 { QuestionKind::Rating { min: 1, max: 5 } } else { QuestionKind::Text },
                required: i == 0,
                texts: brief.languages.iter().map(|l| (l.clone(), format!("question {i} in {l}"))).collect(),
            })
            .collect();
        Ok(GeneratedSurvey { title: "Delivery survey".into(), register: Register::Formal, questions })
    }
}
