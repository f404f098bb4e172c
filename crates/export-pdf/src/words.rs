//! The shape of one language's words for the report: what each table in `translations/` fills
//! and what the template reads as `labels`.

use pulse_domain::analysis::models::Rejection;
use pulse_domain::results::models::SentimentLabel;
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

/// A label about a count: `{n}` is the count, in the singular or the plural.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Counted {
    pub one: &'static str,
    pub other: &'static str,
}

pub(crate) const fn counted(one: &'static str, other: &'static str) -> Counted {
    Counted { one, other }
}

/// The names of the two question kinds, by the kind's name in the file.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Kinds {
    pub rating: &'static str,
    pub text: &'static str,
}

/// One language's words. `{name}` marks what the template or `report.rs` fills in.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Words {
    /// Above the title.
    pub report: &'static str,
    /// Before the campaign's code.
    pub campaign: &'static str,
    /// `{page}` of `{pages}`.
    pub page: &'static str,
    pub summary: &'static str,
    pub about: &'static str,
    pub questions_asked: &'static str,
    pub analyzers: &'static str,
    pub funnel: &'static str,
    pub csat: &'static str,
    pub sentiment: &'static str,
    pub per_question: &'static str,
    pub themes: &'static str,
    pub leaves_out: &'static str,
    pub period: &'static str,
    pub invited: &'static str,
    pub responded: &'static str,
    pub started: &'static str,
    pub completed: &'static str,
    pub accepted: &'static str,
    pub rejected: &'static str,
    pub languages_scored: &'static str,
    pub none_yet: &'static str,
    pub anonymity_floor: &'static str,
    /// The floor as `{n}` accepted responses.
    pub floor: Counted,
    pub floor_applied: &'static str,
    pub kinds: Kinds,
    /// Between a name and what it names (French sets a no-break space before the colon).
    pub colon: &'static str,
    #[serde(serialize_with = "rejection_names")]
    pub rejections: [(Rejection, &'static str); 4],
    /// `{percent}` of the started sessions completed.
    pub of_started: &'static str,
    pub funnel_note: &'static str,
    pub no_rating: &'static str,
    /// `{percent}` (shown large) of `{n}` ratings in the top two points.
    pub csat_share: Counted,
    pub satisfied: &'static str,
    pub other_ratings: &'static str,
    /// The Net Promoter Score's heading; the section is left out without a score.
    pub nps: &'static str,
    /// `{score}` (shown large, signed) from `{n}` ratings.
    pub nps_score: Counted,
    pub promoters: &'static str,
    pub passives: &'static str,
    pub detractors: &'static str,
    /// How the score is counted, under its bars.
    pub nps_note: &'static str,
    /// The heading of the chart of the campaign week by week; the section is left out without a
    /// point to draw.
    pub trend: &'static str,
    /// The legend of the line of accepted responses, read on the left axis.
    pub trend_accepted: &'static str,
    /// The legend of the line of the CSAT share, read on the right axis (0 to 100 %).
    pub trend_csat: &'static str,
    /// Under the chart: every point holds at least `{n}` accepted responses.
    pub trend_note: Counted,
    #[serde(serialize_with = "sentiment_names")]
    pub sentiments: [(SentimentLabel, &'static str); 3],
    pub not_scored: &'static str,
    /// Fewer than `{n}` responses were accepted.
    pub withheld: Counted,
    pub answers: Counted,
    /// `{mean}` on a scale of `{min}` to `{max}`.
    pub mean: &'static str,
    pub question_themes: &'static str,
    pub no_theme: &'static str,
    pub themes_note: &'static str,
    /// Each exclusion's reason by its component; English reads the document's own reasons.
    #[serde(serialize_with = "by_component")]
    pub exclusions: &'static [(&'static str, &'static str)],
    /// A date: `{day}`, `{month}` and `{year}`.
    #[serde(skip)]
    pub date: &'static str,
    /// How the first day of a month is written (French writes "1er").
    #[serde(skip)]
    pub first_day: &'static str,
    /// A date on the chart's axis: `{day}` and `{month}`, without the year.
    #[serde(skip)]
    pub short_date: &'static str,
    #[serde(skip)]
    pub months: [&'static str; 12],
    /// The period of a campaign not launched, as of `{end}`.
    #[serde(skip)]
    pub not_launched: &'static str,
    /// Draft, active, paused, closed.
    #[serde(skip)]
    pub statuses: [&'static str; 4],
}

fn rejection_names<S: Serializer>(names: &[(Rejection, &'static str); 4], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(names.iter().map(|(reason, name)| (reason.as_str(), name)))
}

fn sentiment_names<S: Serializer>(
    names: &[(SentimentLabel, &'static str); 3],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(names.iter().map(|(label, name)| (label.as_str(), name)))
}

fn by_component<S: Serializer>(
    reasons: &&'static [(&'static str, &'static str)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(reasons.len()))?;
    for (component, reason) in *reasons {
        map.serialize_entry(component, reason)?;
    }
    map.end()
}
