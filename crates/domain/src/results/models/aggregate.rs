//! Aggregating analyzed sessions into results: the floor, themes, scores and quotes.

use crate::analysis::models::{AnalyzerInfo, KeyPhrase, Rejection, redact_contacts};
use crate::campaigns::models::{CSAT, Campaign, CampaignCounts, NPS, QuestionKind, Survey};
use crate::ids::SessionId;
use crate::results::models::{
    Acceptance, AnalyzedSession, CampaignResults, ConditionCells, Csat, FINE_UNITS, Inferred, LabelCount,
    MAX_QUESTION_THEMES, MAX_QUOTES_PER_QUESTION, MAX_THEMES, MIN_THEME_SESSIONS, Methodology, Metrics, Nps,
    QuestionResult, Quote, QuotesState, RatingSummary, ResultsFilter, ResultsInput, SCORE_UNITS, SentimentLabel,
    Subtag, Suppression, ThemeCount, cell_of, fine_units, mean_of, score_units, session_label, session_score,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::convert::Infallible;
use time::OffsetDateTime;

/// An accepted session's readable parts: key phrases per question and, when quoting, texts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpenedSession {
    pub phrases: HashMap<String, Vec<KeyPhrase>>,
    pub texts: HashMap<String, String>,
}

pub(super) fn round(value: f64, places: i32) -> f64 {
    let factor = 10_f64.powi(places);
    (value * factor).round() / factor
}

/// The campaign a computation reads: its settings, its questions and its funnel.
pub(super) struct Frame<'a> {
    pub campaign: &'a Campaign,
    pub survey: &'a Survey,
    pub counts: &'a CampaignCounts,
    pub pending: u64,
    pub pending_reanalysis: u64,
}

/// What the reader asked for.
pub(super) struct Request<'a> {
    pub filter: Option<ResultsFilter>,
    pub may_quote: bool,
    pub analyzer: &'a AnalyzerInfo,
    pub now: OffsetDateTime,
}

/// One question's sums over the group's accepted sessions.
#[derive(Default)]
pub(super) struct QuestionTotals {
    /// Sessions that answered it.
    pub answered: u64,
    /// Ratings by value.
    pub ratings: BTreeMap<i64, u64>,
    /// Scored answers by label.
    pub labels: BTreeMap<SentimentLabel, u64>,
}

/// A group's sums, the same whether summed from every answer or read from tallies.
pub(super) struct GroupTotals {
    pub analyzed: u64,
    pub accepted: u64,
    /// Accepted sessions of the whole campaign.
    pub all_accepted: u64,
    /// The campaign's accepted sessions by the filter's conditions they meet; empty unfiltered.
    pub cells: ConditionCells,
    pub rejections: Vec<(Rejection, u64)>,
    /// Coverages of accepted sessions, in [`FINE_UNITS`].
    pub coverage_sum: i64,
    pub median_duration_secs: Option<u32>,
    pub scored_answers: u64,
    pub unscored_answers: u64,
    pub scored_in: BTreeMap<Subtag, u64>,
    pub other_language_answers: u64,
    /// Scores of accepted sessions, in [`FINE_UNITS`], and the sessions by label.
    pub session_score_sum: i64,
    pub session_labels: BTreeMap<SentimentLabel, u64>,
    pub questions: HashMap<String, QuestionTotals>,
}

/// What is shown only above the floor: themes (with their mean scores) and quotes.
pub(super) struct Shown {
    /// Themes of all questions, in order.
    pub themes: Vec<(ThemeCount, Option<f64>)>,
    /// Themes per text question, in order.
    pub question_themes: HashMap<String, Vec<ThemeCount>>,
    /// Quotes, when the reader may see them.
    pub quotes: Vec<Quote>,
}

fn label_counts(counts: &BTreeMap<SentimentLabel, u64>) -> Vec<LabelCount> {
    SentimentLabel::ALL
        .into_iter()
        .map(|label| LabelCount { label, count: counts.get(&label).copied().unwrap_or(0) })
        .collect()
}

/// The most written label, given in alphabetical order; ties go to the alphabetically first.
pub(super) fn most_written<'a>(labels: impl IntoIterator<Item = (&'a str, u64)>) -> String {
    labels
        .into_iter()
        .fold(None::<(&str, u64)>, |best, (label, n)| match best {
            Some((_, m)) if m >= n => best,
            _ => Some((label, n)),
        })
        .map(|(label, _)| label.to_owned())
        .unwrap_or_default()
}

/// Themes (with their keys) in the order results show them: by sessions, then label, then key.
pub(super) fn order_themes(mut keyed: Vec<(String, ThemeCount, Option<f64>)>) -> Vec<(ThemeCount, Option<f64>)> {
    keyed.sort_by(|(ka, a, _), (kb, b, _)| b.count.cmp(&a.count).then_with(|| a.theme.cmp(&b.theme)).then(ka.cmp(kb)));
    keyed.into_iter().map(|(_, theme, mean)| (theme, mean)).collect()
}

/// The first themes whose mean score has the label.
fn leaning(themes: &[(ThemeCount, Option<f64>)], label: SentimentLabel) -> Vec<String> {
    themes
        .iter()
        .filter(|(_, score)| score.is_some_and(|s| SentimentLabel::of(s) == label))
        .take(MAX_THEMES)
        .map(|(t, _)| t.theme.clone())
        .collect()
}

/// Puts a group's results together: the floor, the differencing guard, the measures, and, above
/// the floor, what `shown` gives. Both computations end here.
pub(super) fn finish<E>(
    frame: &Frame<'_>,
    totals: GroupTotals,
    request: Request<'_>,
    shown: impl FnOnce() -> Result<Shown, E>,
) -> Result<CampaignResults, E> {
    let campaign = frame.campaign;
    let floor = u64::from(campaign.anonymity_floor);
    let accepted_count = totals.accepted;
    let all_accepted = totals.all_accepted;
    let suppression = if accepted_count < floor {
        Some(Suppression::GroupBelowFloor)
    } else if request.filter.is_some() && totals.cells.values().any(|n| (1..floor).contains(n)) {
        Some(Suppression::ComplementBelowFloor)
    } else {
        None
    };
    let floor_applied = suppression.is_some();

    let quality = &campaign.quality;
    let acceptance = Acceptance {
        rules: quality.clone(),
        analyzed: totals.analyzed,
        accepted: accepted_count,
        rejected: totals.analyzed.saturating_sub(accepted_count),
        rejections: totals.rejections,
        target_reached: quality.target_count.map(|t| all_accepted >= u64::from(t)),
        capacity_reached: quality.max_responses.is_some_and(|m| all_accepted >= u64::from(m)),
    };

    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let weighted_accepted_count = mean_of(totals.coverage_sum, 1, FINE_UNITS).unwrap_or(0.0).round() as u64;
    let counts = frame.counts;
    let metrics = Metrics {
        invited: counts.invited,
        responded: counts.responded,
        started: counts.started,
        completed: counts.completed,
        pending_analysis: frame.pending,
        pending_reanalysis: frame.pending_reanalysis,
        #[allow(clippy::cast_precision_loss)]
        completion_rate: (counts.started > 0).then(|| round(counts.completed as f64 / counts.started as f64, 3)),
        median_duration_secs: if floor_applied { None } else { totals.median_duration_secs },
        average_coverage: if floor_applied {
            None
        } else {
            mean_of(totals.coverage_sum, accepted_count, FINE_UNITS).map(|m| round(m, 3))
        },
        scored_answers: totals.scored_answers,
        unscored_answers: totals.unscored_answers,
    };

    let methodology = Methodology {
        sentiment: request.analyzer.sentiment.clone(),
        themes: request.analyzer.themes.clone(),
        languages_scored: totals.scored_in.iter().map(|(language, n)| (language.as_str().to_owned(), *n)).collect(),
        answers_in_other_language: totals.other_language_answers,
        min_theme_sessions: MIN_THEME_SESSIONS,
        suppression,
        quotes: match (request.may_quote, floor_applied) {
            (false, _) => QuotesState::NotPermitted,
            (true, true) => QuotesState::HiddenByFloor,
            (true, false) => QuotesState::Included,
        },
    };
    let question = |id: &str| totals.questions.get(id);
    let mut results = CampaignResults {
        campaign: campaign.clone(),
        accepted_count,
        weighted_accepted_count,
        overall_sentiment_score: 0.0,
        csat: None,
        nps: None,
        sentiment: Vec::new(),
        themes: Vec::new(),
        anonymity_floor: campaign.anonymity_floor,
        floor_applied,
        filter: request.filter,
        generated_at: request.now,
        methodology,
        acceptance,
        inferred: Inferred { dominant_sentiment: None, positive_themes: Vec::new(), negative_themes: Vec::new() },
        metrics,
        questions: frame
            .survey
            .questions
            .iter()
            .map(|q| QuestionResult {
                question_id: q.id.clone(),
                kind: q.kind,
                text: q.text_in(frame.survey.default_language()).to_owned(),
                answered: question(&q.id).map_or(0, |t| t.answered),
                rating: None,
                sentiment: Vec::new(),
                themes: Vec::new(),
            })
            .collect(),
        quotes: Vec::new(),
    };
    if floor_applied {
        return Ok(results);
    }

    let scored_sessions: u64 = totals.session_labels.values().sum();
    results.sentiment = label_counts(&totals.session_labels);
    results.overall_sentiment_score =
        mean_of(totals.session_score_sum, scored_sessions, FINE_UNITS).map_or(0.0, |m| round(m, 3));
    results.inferred.dominant_sentiment = (scored_sessions > 0)
        .then(|| results.sentiment.iter().max_by_key(|c| (c.count, std::cmp::Reverse(c.label))).map(|c| c.label))
        .flatten();

    let recommendations = frame.survey.questions.iter().filter(|q| q.kind == NPS);
    results.nps = Nps::of(recommendations.filter_map(|q| question(&q.id)).flat_map(|t| &t.ratings));

    let satisfaction = frame.survey.questions.iter().filter(|q| q.kind == CSAT);
    results.csat = Csat::of(satisfaction.filter_map(|q| question(&q.id)).flat_map(|t| &t.ratings));

    let mut shown = shown()?;
    results.inferred.positive_themes = leaning(&shown.themes, SentimentLabel::Positive);
    results.inferred.negative_themes = leaning(&shown.themes, SentimentLabel::Negative);
    results.themes = shown.themes.into_iter().take(MAX_THEMES).map(|(t, _)| t).collect();

    for result in &mut results.questions {
        let Some(totals) = question(&result.question_id) else { continue };
        match result.kind {
            QuestionKind::Rating { min, max } => {
                let n: u64 = totals.ratings.values().sum();
                let sum: i64 = totals.ratings.iter().map(|(r, k)| r * i64::try_from(*k).unwrap_or(0)).sum();
                if let Some(mean) = mean_of(sum, n, 1) {
                    result.rating = Some(RatingSummary {
                        min,
                        max,
                        mean: round(mean, 2),
                        distribution: (min..=max)
                            .map(|v| (v, totals.ratings.get(&i64::from(v)).copied().unwrap_or(0)))
                            .collect(),
                    });
                }
            }
            QuestionKind::Text => {
                if totals.labels.values().any(|n| *n > 0) {
                    result.sentiment = label_counts(&totals.labels);
                }
                result.themes = shown
                    .question_themes
                    .remove(&result.question_id)
                    .unwrap_or_default()
                    .into_iter()
                    .take(MAX_QUESTION_THEMES)
                    .collect();
            }
        }
    }
    if request.may_quote {
        results.quotes = shown.quotes;
    }
    Ok(results)
}

/// Groups key phrases by their variant key: each theme counts the sessions that mention it,
/// is named by its most written label, and carries the mean score of the answers it came from.
#[derive(Default)]
struct ThemeTally<'a> {
    sessions: BTreeSet<SessionId>,
    labels: BTreeMap<&'a str, u64>,
    score_sum: i64,
    scores: u64,
}

fn tally_themes<'a>(
    mentions: impl Iterator<Item = (SessionId, &'a KeyPhrase, Option<f64>)>,
) -> Vec<(ThemeCount, Option<f64>)> {
    let mut tallies: BTreeMap<&str, ThemeTally<'a>> = BTreeMap::new();
    for (session, phrase, score) in mentions {
        let tally = tallies.entry(phrase.key.as_str()).or_default();
        tally.sessions.insert(session);
        *tally.labels.entry(phrase.label.as_str()).or_default() += 1;
        if let Some(score) = score {
            tally.score_sum += score_units(score);
            tally.scores += 1;
        }
    }
    order_themes(
        tallies
            .into_iter()
            .filter(|(_, t)| t.sessions.len() as u64 >= MIN_THEME_SESSIONS)
            .map(|(key, t)| {
                let theme = ThemeCount { theme: most_written(t.labels), count: t.sessions.len() as u64 };
                (key.to_owned(), theme, mean_of(t.score_sum, t.scores, SCORE_UNITS))
            })
            .collect(),
    )
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
    let in_group = |s: &&AnalyzedSession| filter.as_ref().is_none_or(|f| f.matches(&s.segment));
    let group: Vec<&AnalyzedSession> = input.sessions.iter().filter(in_group).collect();
    let accepted: Vec<&AnalyzedSession> = group.iter().copied().filter(|s| s.rejection.is_none()).collect();

    let text_answers = || accepted.iter().flat_map(|s| s.answers.iter()).filter(|a| a.text_analyzed);
    let mut durations: Vec<u32> = accepted.iter().map(|s| s.duration_secs).collect();
    durations.sort_unstable();
    let mut totals = GroupTotals {
        analyzed: group.len() as u64,
        accepted: accepted.len() as u64,
        all_accepted: input.sessions.iter().filter(|s| s.rejection.is_none()).count() as u64,
        cells: {
            let conditions = filter.as_ref().map(ResultsFilter::conditions).unwrap_or_default();
            let mut cells = ConditionCells::new();
            if filter.is_some() {
                for session in input.sessions.iter().filter(|s| s.rejection.is_none()) {
                    *cells.entry(cell_of(&conditions, &session.segment)).or_default() += 1;
                }
            }
            cells
        },
        rejections: Rejection::ALL
            .into_iter()
            .map(|r| (r, group.iter().filter(|s| s.rejection == Some(r)).count() as u64))
            .collect(),
        coverage_sum: accepted.iter().map(|s| fine_units(s.coverage)).sum(),
        median_duration_secs: durations.get(durations.len() / 2).copied(),
        scored_answers: text_answers().filter(|a| a.sentiment_covered).count() as u64,
        unscored_answers: text_answers().filter(|a| !a.sentiment_covered).count() as u64,
        scored_in: {
            let mut languages = BTreeMap::new();
            for answer in text_answers().filter(|a| a.sentiment_covered) {
                if let Some(language) = &answer.language {
                    *languages.entry(Subtag::of(language)).or_default() += 1;
                }
            }
            languages
        },
        other_language_answers: text_answers().filter(|a| a.other_language).count() as u64,
        session_score_sum: 0,
        session_labels: BTreeMap::new(),
        questions: HashMap::new(),
    };
    for session in &accepted {
        // A session's sentiment is the mean of its scored text answers.
        if let Some(score) = session_score(session.answers.iter().filter_map(|a| a.score)) {
            totals.session_score_sum += score;
            *totals.session_labels.entry(session_label(score)).or_default() += 1;
        }
        let mut answered = BTreeSet::new();
        for answer in &session.answers {
            let question = totals.questions.entry(answer.question_id.clone()).or_default();
            if answered.insert(answer.question_id.as_str()) {
                question.answered += 1;
            }
            if let Some(rating) = answer.rating {
                *question.ratings.entry(i64::from(rating)).or_default() += 1;
            }
            if let Some(score) = answer.score {
                *question.labels.entry(SentimentLabel::of(score)).or_default() += 1;
            }
        }
    }

    let shown = || {
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
        let question_themes = input
            .survey
            .questions
            .iter()
            .filter(|q| q.kind == QuestionKind::Text)
            .map(|q| {
                let themes = tally_themes(mentions(Some(&q.id)).into_iter()).into_iter().map(|(t, _)| t).collect();
                (q.id.clone(), themes)
            })
            .collect();
        Ok::<_, Infallible>(Shown {
            themes: tally_themes(mentions(None).into_iter()),
            question_themes,
            quotes: if may_quote { pick_quotes(input, &accepted, opened) } else { Vec::new() },
        })
    };
    let frame = Frame {
        campaign: &input.campaign,
        survey: &input.survey,
        counts: &input.counts,
        pending: input.pending,
        pending_reanalysis: input.pending_reanalysis,
    };
    let Ok(results) = finish(&frame, totals, Request { filter, may_quote, analyzer, now }, shown);
    results
}

/// A text answer that may be quoted: its text trimmed and redacted, never empty.
#[derive(Clone, Debug, PartialEq)]
pub struct QuoteCandidate {
    pub question_id: String,
    /// Breaks ties between equal answers, as the order of sessions does; never shown.
    pub session: SessionId,
    pub score: Option<f64>,
    pub text: String,
}

impl QuoteCandidate {
    /// The order quotes are picked in: most positive first (no score counts as 0), then longer,
    /// then by session. The session, a random id, breaks ties on columns a store keeps in the
    /// clear, so a store fetches a bounded number of candidates however many answers tie.
    pub fn order(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .unwrap_or(0.0)
            .total_cmp(&self.score.unwrap_or(0.0))
            .then_with(|| other.text.len().cmp(&self.text.len()))
            .then_with(|| self.session.cmp(&other.session))
    }
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
        let mut candidates: Vec<QuoteCandidate> = accepted
            .iter()
            .filter_map(|s| {
                let answer = s.answers.iter().find(|a| a.question_id == question.id)?;
                let text = opened.get(&s.session)?.texts.get(&question.id)?;
                let text = redact_contacts(text.trim());
                (!text.is_empty()).then(|| QuoteCandidate {
                    question_id: question.id.clone(),
                    session: s.session,
                    score: answer.score,
                    text,
                })
            })
            .collect();
        candidates.sort_by(QuoteCandidate::order);
        let scored = candidates.iter().any(|c| c.score.is_some());
        let candidates: Vec<&QuoteCandidate> = candidates.iter().collect();
        quotes.extend(pick_from(&question.id, &candidates, scored));
    }
    quotes
}

/// The picks among `candidates` (in [`QuoteCandidate::order`]); `scored` says whether any
/// candidate of the group has a score. The same picks come from any subset that holds the first,
/// the last, the first nearest neutral and the six longest of the group's candidates.
pub(super) fn pick_from(question_id: &str, candidates: &[&QuoteCandidate], scored: bool) -> Vec<Quote> {
    let mut quotes = Vec::new();
    let mut chosen: Vec<usize> = Vec::new();
    if scored && !candidates.is_empty() {
        chosen.push(0);
        chosen.push(candidates.len() - 1);
        let neutral = (0..candidates.len())
            .min_by(|a, b| {
                candidates[*a].score.unwrap_or(0.0).abs().total_cmp(&candidates[*b].score.unwrap_or(0.0).abs())
            })
            .unwrap_or(0);
        chosen.push(neutral);
    }
    // Then, or without scores, the longest answers.
    let mut by_length: Vec<usize> = (0..candidates.len()).collect();
    by_length.sort_by(|a, b| candidates[*b].text.len().cmp(&candidates[*a].text.len()).then(a.cmp(b)));
    chosen.extend(by_length);
    let mut seen = BTreeSet::new();
    for index in chosen {
        if seen.len() == MAX_QUOTES_PER_QUESTION {
            break;
        }
        if seen.insert(index) {
            let candidate = candidates[index];
            quotes.push(Quote {
                question_id: question_id.to_owned(),
                text: candidate.text.clone(),
                sentiment: candidate.score.map(SentimentLabel::of),
            });
        }
    }
    quotes
}
