//! Aggregating analyzed sessions into results: the floor, themes, scores and quotes.

use crate::analysis::models::{AnalyzerInfo, Rejection, redact_contacts};
use crate::campaigns::models::QuestionKind;
use crate::ids::SessionId;
use crate::results::models::{
    Acceptance, AnalyzedSession, CampaignResults, Csat, Inferred, LabelCount, MAX_QUESTION_THEMES,
    MAX_QUOTES_PER_QUESTION, MAX_THEMES, MIN_THEME_SESSIONS, Methodology, Metrics, QuestionResult, Quote, QuotesState,
    RatingSummary, ResultsFilter, ResultsInput, SentimentLabel, Suppression, ThemeCount,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use time::OffsetDateTime;

/// CSAT counts the top two points of a 1 to 5 scale.
const CSAT_SCALE: (i16, i16) = (1, 5);

/// An accepted session's readable parts: key phrases per question and, when quoting, texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenedSession {
    pub phrases: HashMap<String, Vec<crate::analysis::models::KeyPhrase>>,
    pub texts: HashMap<String, String>,
}

fn round(value: f64, places: i32) -> f64 {
    let factor = 10_f64.powi(places);
    (value * factor).round() / factor
}

fn mean(values: &[f64]) -> Option<f64> {
    #[allow(clippy::cast_precision_loss)]
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn label_counts(scores: &[f64]) -> Vec<LabelCount> {
    SentimentLabel::ALL
        .into_iter()
        .map(|label| LabelCount {
            label,
            count: scores.iter().filter(|s| SentimentLabel::of(**s) == label).count() as u64,
        })
        .collect()
}

/// Groups key phrases by their variant key: each theme counts the sessions that mention it,
/// is named by its most written label, and carries the mean score of the answers it came from.
struct ThemeTally {
    sessions: BTreeSet<SessionId>,
    labels: BTreeMap<String, u64>,
    scores: Vec<f64>,
}

fn tally_themes<'a>(
    mentions: impl Iterator<Item = (SessionId, &'a crate::analysis::models::KeyPhrase, Option<f64>)>,
) -> Vec<(ThemeCount, Option<f64>)> {
    let mut tallies: BTreeMap<&str, ThemeTally> = BTreeMap::new();
    for (session, phrase, score) in mentions {
        let tally = tallies.entry(phrase.key.as_str()).or_insert_with(|| ThemeTally {
            sessions: BTreeSet::new(),
            labels: BTreeMap::new(),
            scores: Vec::new(),
        });
        tally.sessions.insert(session);
        *tally.labels.entry(phrase.label.clone()).or_default() += 1;
        tally.scores.extend(score);
    }
    let mut themes: Vec<(ThemeCount, Option<f64>)> = tallies
        .into_values()
        .filter(|t| t.sessions.len() as u64 >= MIN_THEME_SESSIONS)
        .map(|t| {
            // The most written label; ties go to the alphabetically first (BTreeMap order).
            let theme = t
                .labels
                .iter()
                .fold(None::<(&String, u64)>, |best, (label, n)| match best {
                    Some((_, m)) if m >= *n => best,
                    _ => Some((label, *n)),
                })
                .map(|(label, _)| label.clone())
                .unwrap_or_default();
            (ThemeCount { theme, count: t.sessions.len() as u64 }, mean(&t.scores))
        })
        .collect();
    themes.sort_by(|(a, _), (b, _)| b.count.cmp(&a.count).then_with(|| a.theme.cmp(&b.theme)));
    themes
}

/// Computes the results of `input` for the group `filter` selects.
pub fn compute(
    input: &ResultsInput,
    opened: &HashMap<SessionId, OpenedSession>,
    filter: Option<ResultsFilter>,
    may_quote: bool,
    analyzer: &AnalyzerInfo,
    now: OffsetDateTime,
) -> CampaignResults {
    let floor = u64::from(input.campaign.anonymity_floor);
    let in_group = |s: &&AnalyzedSession| filter.as_ref().is_none_or(|f| f.matches(&s.segment));
    let group: Vec<&AnalyzedSession> = input.sessions.iter().filter(in_group).collect();
    let accepted: Vec<&AnalyzedSession> = group.iter().copied().filter(|s| s.rejection.is_none()).collect();
    let all_accepted = input.sessions.iter().filter(|s| s.rejection.is_none()).count() as u64;
    let accepted_count = accepted.len() as u64;
    let complement = all_accepted - accepted_count;
    let suppression = if accepted_count < floor {
        Some(Suppression::GroupBelowFloor)
    } else if filter.is_some() && complement > 0 && complement < floor {
        Some(Suppression::ComplementBelowFloor)
    } else {
        None
    };
    let floor_applied = suppression.is_some();

    let rejections: Vec<(Rejection, u64)> = Rejection::ALL
        .into_iter()
        .map(|r| (r, group.iter().filter(|s| s.rejection == Some(r)).count() as u64))
        .collect();
    let quality = &input.campaign.quality;
    let acceptance = Acceptance {
        rules: quality.clone(),
        analyzed: group.len() as u64,
        accepted: accepted_count,
        rejected: group.len() as u64 - accepted_count,
        rejections,
        target_reached: quality.target_count.map(|t| all_accepted >= u64::from(t)),
        capacity_reached: quality.max_responses.is_some_and(|m| all_accepted >= u64::from(m)),
    };

    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let weighted_accepted_count = accepted.iter().map(|s| s.coverage).sum::<f64>().round() as u64;

    let text_answers = || accepted.iter().flat_map(|s| s.answers.iter()).filter(|a| a.text_analyzed);
    let scored_answers = text_answers().filter(|a| a.sentiment_covered).count() as u64;
    let unscored_answers = text_answers().filter(|a| !a.sentiment_covered).count() as u64;
    let mut durations: Vec<u32> = accepted.iter().map(|s| s.duration_secs).collect();
    durations.sort_unstable();
    let coverages: Vec<f64> = accepted.iter().map(|s| s.coverage).collect();
    let metrics = Metrics {
        invited: input.counts.invited,
        responded: input.counts.responded,
        started: input.counts.started,
        completed: input.counts.completed,
        pending_analysis: input.pending,
        #[allow(clippy::cast_precision_loss)]
        completion_rate: (input.counts.started > 0)
            .then(|| round(input.counts.completed as f64 / input.counts.started as f64, 3)),
        median_duration_secs: if floor_applied { None } else { durations.get(durations.len() / 2).copied() },
        average_coverage: if floor_applied { None } else { mean(&coverages).map(|m| round(m, 3)) },
        scored_answers,
        unscored_answers,
    };

    let quotes_state = match (may_quote, floor_applied) {
        (false, _) => QuotesState::NotPermitted,
        (true, true) => QuotesState::HiddenByFloor,
        (true, false) => QuotesState::Included,
    };
    let methodology = Methodology {
        sentiment: analyzer.sentiment.clone(),
        themes: analyzer.themes.clone(),
        min_theme_sessions: MIN_THEME_SESSIONS,
        suppression,
        quotes: quotes_state,
    };

    let questions_counts = |question_id: &str| {
        accepted.iter().filter(|s| s.answers.iter().any(|a| a.question_id == question_id)).count() as u64
    };
    let mut results = CampaignResults {
        campaign: input.campaign.clone(),
        accepted_count,
        weighted_accepted_count,
        overall_sentiment_score: 0.0,
        csat: None,
        sentiment: Vec::new(),
        themes: Vec::new(),
        anonymity_floor: input.campaign.anonymity_floor,
        floor_applied,
        filter,
        generated_at: now,
        methodology,
        acceptance,
        inferred: Inferred { dominant_sentiment: None, positive_themes: Vec::new(), negative_themes: Vec::new() },
        metrics,
        questions: input
            .survey
            .questions
            .iter()
            .map(|q| QuestionResult {
                question_id: q.id.clone(),
                kind: q.kind,
                text: q.text_in(input.survey.default_language()).to_owned(),
                answered: questions_counts(&q.id),
                rating: None,
                sentiment: Vec::new(),
                themes: Vec::new(),
            })
            .collect(),
        quotes: Vec::new(),
    };
    if floor_applied {
        return results;
    }

    // A session's sentiment is the mean of its scored text answers.
    let session_scores: Vec<f64> =
        accepted.iter().filter_map(|s| mean(&s.answers.iter().filter_map(|a| a.score).collect::<Vec<_>>())).collect();
    results.sentiment = label_counts(&session_scores);
    results.overall_sentiment_score = mean(&session_scores).map_or(0.0, |m| round(m, 3));
    results.inferred.dominant_sentiment = (!session_scores.is_empty())
        .then(|| results.sentiment.iter().max_by_key(|c| (c.count, std::cmp::Reverse(c.label))).map(|c| c.label))
        .flatten();

    let ratings_in_csat_scale: Vec<i16> = accepted
        .iter()
        .flat_map(|s| s.answers.iter())
        .filter(|a| {
            input.survey.questions.iter().any(|q| {
                q.id == a.question_id && q.kind == (QuestionKind::Rating { min: CSAT_SCALE.0, max: CSAT_SCALE.1 })
            })
        })
        .filter_map(|a| a.rating)
        .collect();
    if !ratings_in_csat_scale.is_empty() {
        let satisfied = ratings_in_csat_scale.iter().filter(|r| **r >= CSAT_SCALE.1 - 1).count() as u64;
        let rated = ratings_in_csat_scale.len() as u64;
        #[allow(clippy::cast_precision_loss)]
        let score = round(satisfied as f64 / rated as f64, 3);
        results.csat = Some(Csat { score, satisfied, rated });
    }

    let mentions = |question: Option<&str>| {
        let mut list = Vec::new();
        for session in &accepted {
            let Some(readable) = opened.get(&session.session) else { continue };
            for answer in &session.answers {
                if question.is_some_and(|q| q != answer.question_id) {
                    continue;
                }
                for phrase in readable.phrases.get(&answer.question_id).into_iter().flatten() {
                    list.push((session.session, phrase, answer.score));
                }
            }
        }
        list
    };
    let themes = tally_themes(mentions(None).into_iter());
    results.inferred.positive_themes = themes
        .iter()
        .filter(|(_, score)| score.is_some_and(|s| SentimentLabel::of(s) == SentimentLabel::Positive))
        .take(MAX_THEMES)
        .map(|(t, _)| t.theme.clone())
        .collect();
    results.inferred.negative_themes = themes
        .iter()
        .filter(|(_, score)| score.is_some_and(|s| SentimentLabel::of(s) == SentimentLabel::Negative))
        .take(MAX_THEMES)
        .map(|(t, _)| t.theme.clone())
        .collect();
    results.themes = themes.into_iter().take(MAX_THEMES).map(|(t, _)| t).collect();

    for question in &mut results.questions {
        let answers: Vec<_> =
            accepted.iter().flat_map(|s| s.answers.iter()).filter(|a| a.question_id == question.question_id).collect();
        match question.kind {
            QuestionKind::Rating { min, max } => {
                let ratings: Vec<i16> = answers.iter().filter_map(|a| a.rating).collect();
                if !ratings.is_empty() {
                    let values: Vec<f64> = ratings.iter().map(|r| f64::from(*r)).collect();
                    question.rating = Some(RatingSummary {
                        min,
                        max,
                        mean: mean(&values).map_or(0.0, |m| round(m, 2)),
                        distribution: (min..=max)
                            .map(|v| (v, ratings.iter().filter(|r| **r == v).count() as u64))
                            .collect(),
                    });
                }
            }
            QuestionKind::Text => {
                let scores: Vec<f64> = answers.iter().filter_map(|a| a.score).collect();
                if !scores.is_empty() {
                    question.sentiment = label_counts(&scores);
                }
                question.themes = tally_themes(mentions(Some(&question.question_id)).into_iter())
                    .into_iter()
                    .take(MAX_QUESTION_THEMES)
                    .map(|(t, _)| t)
                    .collect();
            }
        }
    }

    if may_quote {
        results.quotes = pick_quotes(input, &accepted, opened);
    }
    results
}

/// Up to three quotes per text question: the most positive, the most negative and the one
/// nearest neutral, then the longest answers; each redacted, never with identity.
fn pick_quotes(
    input: &ResultsInput,
    accepted: &[&AnalyzedSession],
    opened: &HashMap<SessionId, OpenedSession>,
) -> Vec<Quote> {
    let mut quotes = Vec::new();
    for question in input.survey.questions.iter().filter(|q| q.kind == QuestionKind::Text) {
        let mut candidates: Vec<(Option<f64>, String)> = accepted
            .iter()
            .filter_map(|s| {
                let answer = s.answers.iter().find(|a| a.question_id == question.id)?;
                let text = opened.get(&s.session)?.texts.get(&question.id)?;
                let text = redact_contacts(text.trim());
                (!text.is_empty()).then_some((answer.score, text))
            })
            .collect();
        candidates.sort_by(|(a, ta), (b, tb)| {
            b.unwrap_or(0.0).total_cmp(&a.unwrap_or(0.0)).then_with(|| tb.len().cmp(&ta.len())).then(ta.cmp(tb))
        });
        let mut chosen: Vec<usize> = Vec::new();
        let scored = candidates.iter().any(|(s, _)| s.is_some());
        if scored && !candidates.is_empty() {
            chosen.push(0);
            chosen.push(candidates.len() - 1);
            let neutral = (0..candidates.len())
                .min_by(|a, b| candidates[*a].0.unwrap_or(0.0).abs().total_cmp(&candidates[*b].0.unwrap_or(0.0).abs()))
                .unwrap_or(0);
            chosen.push(neutral);
        }
        // Then, or without scores, the longest answers.
        let mut by_length: Vec<usize> = (0..candidates.len()).collect();
        by_length.sort_by(|a, b| candidates[*b].1.len().cmp(&candidates[*a].1.len()).then(a.cmp(b)));
        chosen.extend(by_length);
        let mut seen = BTreeSet::new();
        for index in chosen {
            if seen.len() == MAX_QUOTES_PER_QUESTION {
                break;
            }
            if seen.insert(index) {
                let (score, text) = &candidates[index];
                quotes.push(Quote {
                    question_id: question.id.clone(),
                    text: text.clone(),
                    sentiment: score.map(SentimentLabel::of),
                });
            }
        }
    }
    quotes
}
