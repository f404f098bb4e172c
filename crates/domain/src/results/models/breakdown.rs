//! Results by group: one row per value of a launch label (platform, app version, tag, attribute)
//! or of the language sessions were answered in, among the sessions a filter selects, each behind
//! the floor, with complementary suppression so that no hidden row can be recovered from the
//! group's total and the rows shown.

use crate::campaigns::models::Campaign;
use crate::error::{Error, Result};
use crate::results::models::{
    Condition, Csat, LabelCount, MAX_ATTRIBUTE_NAME_CHARS, Nps, ResultsFilter, Segment, Suppression, ThemeCount,
    attribute_text,
};
use std::collections::{BTreeMap, BTreeSet};
use time::OffsetDateTime;

/// Rows a breakdown evaluates, largest groups first; smaller groups are counted together.
pub const MAX_BREAKDOWN_ROWS: usize = 20;

/// Themes a row shows.
pub const BREAKDOWN_THEMES: usize = 3;

/// What a breakdown groups sessions by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dimension {
    Platform,
    AppVersion,
    Language,
    Tag,
    Attribute(String),
}

impl Dimension {
    /// Reads `by` out of a breakdown's query; the other parameters are the results' filter.
    ///
    /// # Errors
    /// `ValidationFailed` naming `by` when it is missing, repeated or not a dimension, and the
    /// filter's own refusals.
    pub fn parse(params: &[(String, String)]) -> Result<(Self, Option<ResultsFilter>)> {
        let mut by = params.iter().filter(|(name, _)| name == "by").map(|(_, value)| value.as_str());
        let dimension = match (by.next(), by.next()) {
            (None, _) => {
                return Err(Error::validation(
                    "by",
                    "is required: platform, appVersion, language, tag or attribute:<name>",
                ));
            }
            (Some(_), Some(_)) => return Err(Error::validation("by", "may be given once")),
            (Some(text), None) => Self::of(text)?,
        };
        let rest: Vec<(String, String)> = params.iter().filter(|(name, _)| name != "by").cloned().collect();
        Ok((dimension, ResultsFilter::parse(&rest)?))
    }

    fn of(text: &str) -> Result<Self> {
        Ok(match text {
            "platform" => Dimension::Platform,
            "appVersion" => Dimension::AppVersion,
            "language" => Dimension::Language,
            "tag" => Dimension::Tag,
            other => {
                let Some(name) = other.strip_prefix("attribute:") else {
                    return Err(Error::validation(
                        "by",
                        "must be platform, appVersion, language, tag or attribute:<name>",
                    ));
                };
                if name.is_empty()
                    || name.chars().count() > MAX_ATTRIBUTE_NAME_CHARS
                    || name.chars().any(char::is_control)
                {
                    return Err(Error::validation(
                        "by",
                        format!("needs an attribute name of 1 to {MAX_ATTRIBUTE_NAME_CHARS} characters"),
                    ));
                }
                Dimension::Attribute(name.to_owned())
            }
        })
    }

    /// As the query names it.
    pub fn name(&self) -> String {
        match self {
            Dimension::Platform => "platform".into(),
            Dimension::AppVersion => "appVersion".into(),
            Dimension::Language => "language".into(),
            Dimension::Tag => "tag".into(),
            Dimension::Attribute(name) => format!("attribute:{name}"),
        }
    }

    /// The condition that selects one of its values.
    pub fn condition(&self, value: &str) -> Condition {
        match self {
            Dimension::Platform => Condition::Platform(value.to_ascii_lowercase()),
            Dimension::AppVersion => Condition::AppVersion(value.to_owned()),
            Dimension::Language => Condition::Language(value.to_owned()),
            Dimension::Tag => Condition::Tag(value.to_owned()),
            Dimension::Attribute(name) => Condition::Attribute(name.clone(), value.to_owned()),
        }
    }
}

impl Dimension {
    /// The groups a session with this segment is in: its value (the platform in ASCII lower
    /// case), each of its tags once, or `None` without the label.
    pub fn values_of(&self, segment: &Segment) -> Vec<Option<String>> {
        match self {
            Dimension::Platform => vec![segment.platform.as_ref().map(|p| p.to_ascii_lowercase())],
            Dimension::AppVersion => vec![segment.app_version.clone()],
            Dimension::Language => vec![segment.language.clone()],
            Dimension::Tag if segment.tags.is_empty() => vec![None],
            Dimension::Tag => {
                let distinct: BTreeSet<&String> = segment.tags.iter().collect();
                distinct.into_iter().map(|t| Some(t.clone())).collect()
            }
            Dimension::Attribute(name) => vec![segment.attributes.get(name).and_then(attribute_text)],
        }
    }
}

/// The sizes of the groups of `by` among sessions given by their segments, in the order
/// [`crate::results::ports::ResultsRepository::result_groups`] gives them.
pub fn group_sizes<'a>(segments: impl IntoIterator<Item = &'a Segment>, by: &Dimension) -> Vec<GroupSize> {
    let mut sizes: BTreeMap<Option<String>, u64> = BTreeMap::new();
    for segment in segments {
        for value in by.values_of(segment) {
            *sizes.entry(value).or_default() += 1;
        }
    }
    let mut groups: Vec<GroupSize> = sizes.into_iter().map(|(value, accepted)| GroupSize { value, accepted }).collect();
    groups.sort_by(|a, b| {
        b.accepted
            .cmp(&a.accepted)
            .then_with(|| a.value.is_none().cmp(&b.value.is_none()))
            .then_with(|| a.value.cmp(&b.value))
    });
    groups
}

/// The accepted sessions of a group with one value of a dimension; `value: None` for those
/// without the label (for tags, without any tag). Largest first, ties by value in byte order,
/// the unlabelled group last among equals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupSize {
    pub value: Option<String>,
    pub accepted: u64,
}

/// What a row shows above the floor.
#[derive(Clone, Debug, PartialEq)]
pub struct RowMeasures {
    pub overall_sentiment_score: f64,
    pub sentiment: Vec<LabelCount>,
    pub csat: Option<Csat>,
    pub nps: Option<Nps>,
    pub themes: Vec<ThemeCount>,
}

/// Why a row shows its count only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowSuppression {
    /// Fewer accepted sessions than the floor.
    GroupBelowFloor,
    /// The row's view would set apart fewer than the floor when compared with views of fewer of
    /// its conditions (see [`Suppression::ComplementBelowFloor`]).
    ComplementBelowFloor,
    /// Hidden so that another hidden row cannot be recovered from the total and the rows shown.
    Complementary,
    /// Sessions without the label: no filter selects them, so their measures are not given.
    Unlabelled,
}

impl RowSuppression {
    pub const fn as_str(self) -> &'static str {
        match self {
            RowSuppression::GroupBelowFloor => "GROUP_BELOW_FLOOR",
            RowSuppression::ComplementBelowFloor => "COMPLEMENT_BELOW_FLOOR",
            RowSuppression::Complementary => "COMPLEMENTARY",
            RowSuppression::Unlabelled => "UNLABELLED",
        }
    }
}

impl From<Suppression> for RowSuppression {
    fn from(s: Suppression) -> Self {
        match s {
            Suppression::GroupBelowFloor => RowSuppression::GroupBelowFloor,
            Suppression::ComplementBelowFloor => RowSuppression::ComplementBelowFloor,
        }
    }
}

/// One group of a breakdown: its count always (as the results route shows a filter's count),
/// its measures only when shown.
#[derive(Clone, Debug, PartialEq)]
pub struct BreakdownRow {
    pub value: Option<String>,
    pub accepted: u64,
    pub measures: Option<RowMeasures>,
    pub suppression: Option<RowSuppression>,
}

/// Groups past [`MAX_BREAKDOWN_ROWS`], counted together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Unlisted {
    pub groups: u64,
    pub accepted: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Breakdown {
    pub campaign: Campaign,
    pub by: Dimension,
    pub filter: Option<ResultsFilter>,
    /// Accepted sessions of the group the filter selects.
    pub accepted_count: u64,
    pub anonymity_floor: u32,
    /// Why every row shows its count only: the group itself is suppressed.
    pub suppression: Option<Suppression>,
    pub rows: Vec<BreakdownRow>,
    pub unlisted: Unlisted,
    pub generated_at: OffsetDateTime,
}

/// Hides shown rows, smallest first, until the hidden ones cannot be told apart by subtraction
/// from the group's total: their sessions together number none or at least the floor, and no
/// labelled row is hidden alone (a row hidden alone is the total less the rows shown, whatever
/// its size, and a row hidden for its cells would then give those cells away).
pub fn suppress_complements(rows: &mut [BreakdownRow], unlisted: Unlisted, floor: u64) {
    loop {
        let hidden = rows.iter().filter(|r| r.measures.is_none() && r.accepted > 0);
        let hidden_sessions = hidden.clone().map(|r| r.accepted).sum::<u64>() + unlisted.accepted;
        let hidden_units = hidden.clone().count() as u64 + unlisted.groups;
        let lone_labelled = hidden_units == 1 && unlisted.groups == 0 && hidden.clone().any(|r| r.value.is_some());
        if !(lone_labelled || (1..floor).contains(&hidden_sessions)) {
            return;
        }
        let smallest = rows
            .iter_mut()
            .filter(|r| r.measures.is_some())
            .min_by(|a, b| a.accepted.cmp(&b.accepted).then_with(|| b.value.cmp(&a.value)));
        let Some(row) = smallest else { return };
        row.measures = None;
        row.suppression = Some(RowSuppression::Complementary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: Option<&str>, accepted: u64, shown: bool) -> BreakdownRow {
        BreakdownRow {
            value: value.map(str::to_owned),
            accepted,
            measures: shown.then(|| RowMeasures {
                overall_sentiment_score: 0.0,
                sentiment: Vec::new(),
                csat: None,
                nps: None,
                themes: Vec::new(),
            }),
            suppression: (!shown).then_some(RowSuppression::GroupBelowFloor),
        }
    }

    fn hidden(rows: &[BreakdownRow]) -> Vec<Option<&str>> {
        rows.iter().filter(|r| r.measures.is_none()).map(|r| r.value.as_deref()).collect()
    }

    #[test]
    fn a_lone_small_row_takes_the_next_smallest_with_it() {
        let mut rows = vec![row(Some("ios"), 40, true), row(Some("android"), 12, true), row(Some("web"), 2, false)];
        suppress_complements(&mut rows, Unlisted::default(), 5);
        assert_eq!(hidden(&rows), vec![Some("android"), Some("web")]);
        assert_eq!(rows[1].suppression, Some(RowSuppression::Complementary));
    }

    #[test]
    fn hidden_rows_are_topped_up_to_the_floor() {
        let mut rows =
            vec![row(Some("a"), 30, true), row(Some("b"), 6, true), row(Some("c"), 1, false), row(Some("d"), 1, false)];
        suppress_complements(&mut rows, Unlisted::default(), 5);
        assert_eq!(hidden(&rows), vec![Some("b"), Some("c"), Some("d")]);
    }

    #[test]
    fn nothing_hidden_or_enough_hidden_stays_as_it_is() {
        let mut all_shown = vec![row(Some("a"), 30, true), row(Some("b"), 6, true)];
        suppress_complements(&mut all_shown, Unlisted::default(), 5);
        assert!(hidden(&all_shown).is_empty());
        let mut two_hidden = vec![row(Some("a"), 30, true), row(Some("b"), 3, false), row(Some("c"), 4, false)];
        suppress_complements(&mut two_hidden, Unlisted::default(), 5);
        assert_eq!(hidden(&two_hidden), vec![Some("b"), Some("c")]);
    }

    #[test]
    fn the_unlabelled_row_alone_is_hidden_only_when_small() {
        let mut large = vec![row(Some("a"), 30, true), row(Some("b"), 9, true), row(None, 8, false)];
        suppress_complements(&mut large, Unlisted::default(), 5);
        assert_eq!(hidden(&large), vec![None]);
        let mut small = vec![row(Some("a"), 30, true), row(Some("b"), 9, true), row(None, 2, false)];
        suppress_complements(&mut small, Unlisted::default(), 5);
        assert_eq!(hidden(&small), vec![Some("b"), None]);
    }

    #[test]
    fn a_labelled_row_hidden_for_its_cells_is_never_hidden_alone() {
        let mut rows = vec![row(Some("a"), 30, true), row(Some("b"), 9, true), row(Some("c"), 20, false)];
        suppress_complements(&mut rows, Unlisted::default(), 5);
        assert_eq!(hidden(&rows), vec![Some("b"), Some("c")]);
    }

    #[test]
    fn unlisted_groups_count_as_hidden() {
        let mut rows = vec![row(Some("a"), 30, true), row(Some("b"), 9, true)];
        suppress_complements(&mut rows, Unlisted { groups: 2, accepted: 3 }, 5);
        assert_eq!(hidden(&rows), vec![Some("b")]);
    }

    #[test]
    fn by_reads_every_dimension_and_leaves_the_filter() {
        let params = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
        };
        let (by, filter) = Dimension::parse(&params(&[("by", "attribute:plan"), ("tag", "beta")])).expect("parses");
        assert_eq!(by, Dimension::Attribute("plan".into()));
        assert_eq!(filter.map(|f| f.tags), Some(vec!["beta".to_owned()]));
        for (name, dimension) in [
            ("platform", Dimension::Platform),
            ("appVersion", Dimension::AppVersion),
            ("language", Dimension::Language),
            ("tag", Dimension::Tag),
        ] {
            assert_eq!(Dimension::parse(&params(&[("by", name)])).expect("parses").0, dimension);
            assert_eq!(dimension.name(), name);
        }
        for bad in [&[][..], &[("by", "country")][..], &[("by", "attribute:")][..], &[("by", "tag"), ("by", "tag")][..]]
        {
            let error = Dimension::parse(&params(bad)).expect_err("refused");
            assert!(error.to_string().contains("by"), "{error}");
        }
    }
}
