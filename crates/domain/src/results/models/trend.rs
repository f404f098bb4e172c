//! Results over time: accepted sessions in buckets of a day, a week or a month, on a grid of
//! blocks that no subtraction can split below the floor.
//!
//! The grid is built from local days. Days are gathered from the campaign's first, in order, into
//! blocks of at least the floor's accepted sessions. A remainder that never reaches it joins the
//! block before it. With a filter, those blocks are gathered again until every block's cells (the
//! campaign's sessions by which of the filter's conditions they meet) are empty or reach the
//! floor. A bucket is the blocks that start in its period, so every bucket, every range of
//! buckets and every difference between two ranges is made of whole blocks. The blocks depend on
//! the sessions and the time zone, never on the interval or the range asked.

use crate::campaigns::models::{CSAT, Campaign, NPS, Survey};
use crate::error::{Error, Result};
use crate::results::models::{
    ConditionCells, Count, Csat, FINE_UNITS, Metric, Nps, ResultsFilter, SentimentLabel, Suppression, mean_of,
    merge_counts,
};
use crate::shared::time_zone::TimeZoneName;

use super::aggregate::round;
use jiff::civil::Date;
use std::collections::BTreeMap;
use time::OffsetDateTime;

/// Stores keep sessions by the quarter hour of their completion (UTC), so that any time zone's
/// days, whose offsets are whole quarter hours, are unions of these slots.
pub const TREND_SLOT_SECS: i64 = 15 * 60;

/// The longest range a trend reads, in days.
pub const MAX_TREND_DAYS: i64 = 3_660;

/// The metrics a trend reads.
pub fn trend_metrics() -> Vec<Metric> {
    let mut metrics = vec![Metric::Accepted, Metric::Rating, Metric::SessionScore];
    metrics.extend(SentimentLabel::ALL.map(Metric::SessionSentiment));
    metrics
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interval {
    Day,
    Week,
    Month,
}

impl Interval {
    pub const fn as_str(self) -> &'static str {
        match self {
            Interval::Day => "day",
            Interval::Week => "week",
            Interval::Month => "month",
        }
    }

    /// The first day of the period holding `day`: itself, its week's Monday, its month's first.
    pub fn period_of(self, day: Date) -> Date {
        match self {
            Interval::Day => day,
            Interval::Week => {
                let since_monday = i64::from(day.weekday().to_monday_zero_offset());
                day.checked_sub(jiff::Span::new().days(since_monday)).unwrap_or(day)
            }
            Interval::Month => day.first_of_month(),
        }
    }
}

/// What a trend asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendRequest {
    pub interval: Interval,
    /// Local days, both included; the range is widened to whole blocks.
    pub from: Option<Date>,
    pub to: Option<Date>,
    pub zone: TimeZoneName,
    pub filter: Option<ResultsFilter>,
}

impl TrendRequest {
    /// Reads `interval` (`day`, `week` or `month`; `week` when absent), `from` and `to` (dates,
    /// `YYYY-MM-DD`), `timeZone` (an IANA name; `UTC` when absent); the other parameters are the
    /// results' filter.
    ///
    /// # Errors
    /// `ValidationFailed` naming the parameter: repeated, unknown, malformed, `from` after `to`,
    /// or a range over [`MAX_TREND_DAYS`]; and the filter's own refusals.
    pub fn parse(params: &[(String, String)]) -> Result<Self> {
        let mut own: BTreeMap<&str, &str> = BTreeMap::new();
        let mut rest = Vec::new();
        for (name, value) in params {
            if matches!(name.as_str(), "interval" | "from" | "to" | "timeZone") {
                if own.insert(name, value).is_some() {
                    return Err(Error::validation(name, "may be given once"));
                }
            } else {
                rest.push((name.clone(), value.clone()));
            }
        }
        let interval = match own.get("interval").copied() {
            None | Some("week") => Interval::Week,
            Some("day") => Interval::Day,
            Some("month") => Interval::Month,
            Some(_) => return Err(Error::validation("interval", "must be day, week or month")),
        };
        let date = |name: &str| -> Result<Option<Date>> {
            own.get(name)
                .map(|text| {
                    let valid = text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-';
                    valid
                        .then(|| text.parse::<Date>().ok())
                        .flatten()
                        .ok_or_else(|| Error::validation(name, "must be a date, YYYY-MM-DD"))
                })
                .transpose()
        };
        let (from, to) = (date("from")?, date("to")?);
        if let (Some(from), Some(to)) = (from, to) {
            if from > to {
                return Err(Error::validation("from", "must not be after `to`"));
            }
            let days = (to - from).get_days();
            if i64::from(days) >= MAX_TREND_DAYS {
                return Err(Error::validation("to", format!("must be within {MAX_TREND_DAYS} days of `from`")));
            }
        }
        let zone = match own.get("timeZone") {
            Some(name) => TimeZoneName::parse("timeZone", name)?,
            None => TimeZoneName::utc(),
        };
        Ok(Self { interval, from, to, zone, filter: ResultsFilter::parse(&rest)? })
    }
}

/// A local day's accepted sessions: the campaign's by the filter's conditions they meet (all in
/// cell 0 without a filter), and the trend metrics of those the filter selects.
#[derive(Clone, Debug, PartialEq)]
pub struct DayTally {
    pub day: Date,
    pub cells: ConditionCells,
    pub counts: Vec<Count>,
}

/// What a store gives a trend.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendInput {
    pub campaign: Campaign,
    pub survey: Survey,
    /// In day order.
    pub days: Vec<DayTally>,
}

/// One bucket: the period it is labelled by and the days its blocks cover.
#[derive(Clone, Debug, PartialEq)]
pub struct TrendBucket {
    pub period: Date,
    pub first_day: Date,
    pub last_day: Date,
    pub accepted: u64,
    /// Mean session sentiment, -1 to 1; `None` when nothing was scored.
    pub overall_sentiment_score: Option<f64>,
    pub csat: Option<Csat>,
    pub nps: Option<Nps>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Trend {
    pub campaign: Campaign,
    pub interval: Interval,
    pub zone: TimeZoneName,
    pub filter: Option<ResultsFilter>,
    /// The days the buckets cover, widened to whole blocks; `None` without buckets.
    pub first_day: Option<Date>,
    pub last_day: Option<Date>,
    pub anonymity_floor: u32,
    /// Why there are no buckets: the group is below the floor (none accepted included), or its
    /// cells are.
    pub suppression: Option<Suppression>,
    pub buckets: Vec<TrendBucket>,
    pub generated_at: OffsetDateTime,
}

/// A run of days and their sums.
#[derive(Clone, Debug, Default)]
struct Block {
    first_day: Option<Date>,
    last_day: Option<Date>,
    cells: ConditionCells,
    counts: Vec<Count>,
}

impl Block {
    fn absorb(&mut self, other: Block) {
        self.first_day = match (self.first_day, other.first_day) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_day = self.last_day.max(other.last_day);
        for (cell, n) in other.cells {
            *self.cells.entry(cell).or_default() += n;
        }
        self.counts = merge_counts(std::mem::take(&mut self.counts).into_iter().chain(other.counts));
    }

    fn total(&self) -> u64 {
        self.cells.values().sum()
    }

    fn count(&self, metric: Metric) -> u64 {
        self.counts.iter().filter(|c| c.metric == metric).map(|c| u64::try_from(c.n).unwrap_or(0)).sum()
    }
}

/// Gathers units, in order, into blocks that pass; a remainder that does not joins the block
/// before it, and the blocks before that too until it passes. `None` when even all of them
/// together do not pass.
fn gather(units: Vec<Block>, passes: impl Fn(&Block) -> bool) -> Option<Vec<Block>> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut open: Option<Block> = None;
    for unit in units {
        let block = match open.take() {
            Some(mut block) => {
                block.absorb(unit);
                block
            }
            None => unit,
        };
        if passes(&block) {
            blocks.push(block);
        } else {
            open = Some(block);
        }
    }
    if let Some(mut rest) = open {
        while !passes(&rest) {
            rest.absorb(blocks.pop()?);
        }
        blocks.push(rest);
    }
    Some(blocks)
}

/// The trend of `input` as `request` asks, behind the campaign's floor.
pub fn compute_trend(input: &TrendInput, request: &TrendRequest, now: OffsetDateTime) -> Trend {
    let floor = u64::from(input.campaign.anonymity_floor);
    let mut days: BTreeMap<Date, Block> = BTreeMap::new();
    for tally in &input.days {
        let unit = Block {
            first_day: Some(tally.day),
            last_day: Some(tally.day),
            cells: tally.cells.clone(),
            counts: tally.counts.clone(),
        };
        days.entry(tally.day).or_default().absorb(unit);
    }
    let conditions = request.filter.as_ref().map(|f| f.conditions().len()).unwrap_or(0);
    let group_cell = (1_u64 << conditions) - 1;
    let everyone = |block: &Block| block.total() >= floor;
    let in_group = |block: &Block| {
        block.cells.get(&group_cell).copied().unwrap_or(0) >= floor
            && block.cells.values().all(|n| *n == 0 || *n >= floor)
    };
    let group: u64 = days.values().map(|d| d.cells.get(&group_cell).copied().unwrap_or(0)).sum();
    let blocks = if group < floor {
        None
    } else {
        gather(days.into_values().collect(), everyone).and_then(|base| gather(base, in_group))
    };
    let mut trend = Trend {
        campaign: input.campaign.clone(),
        interval: request.interval,
        zone: request.zone.clone(),
        filter: request.filter.clone(),
        first_day: None,
        last_day: None,
        anonymity_floor: input.campaign.anonymity_floor,
        suppression: None,
        buckets: Vec::new(),
        generated_at: now,
    };
    let Some(blocks) = blocks else {
        trend.suppression =
            Some(if group < floor { Suppression::GroupBelowFloor } else { Suppression::ComplementBelowFloor });
        return trend;
    };
    let wanted = |block: &Block| {
        let (Some(first), Some(last)) = (block.first_day, block.last_day) else { return false };
        request.from.is_none_or(|from| last >= from) && request.to.is_none_or(|to| first <= to)
    };
    let mut periods: BTreeMap<Date, Block> = BTreeMap::new();
    for block in blocks.into_iter().filter(wanted) {
        let Some(first) = block.first_day else { continue };
        periods.entry(request.interval.period_of(first)).or_default().absorb(block);
    }
    for (period, block) in periods {
        let (Some(first_day), Some(last_day)) = (block.first_day, block.last_day) else { continue };
        trend.first_day = trend.first_day.or(Some(first_day));
        trend.last_day = Some(last_day);
        trend.buckets.push(bucket(&input.survey, period, first_day, last_day, &block));
    }
    trend
}

fn bucket(survey: &Survey, period: Date, first_day: Date, last_day: Date, block: &Block) -> TrendBucket {
    let ratings = |kind| {
        let questions: Vec<&str> = survey.questions.iter().filter(|q| q.kind == kind).map(|q| q.id.as_str()).collect();
        let mut values: BTreeMap<i64, u64> = BTreeMap::new();
        for c in
            block.counts.iter().filter(|c| c.metric == Metric::Rating && questions.contains(&c.question_id.as_str()))
        {
            *values.entry(c.value).or_default() += u64::try_from(c.n).unwrap_or(0);
        }
        values
    };
    let scored: u64 = SentimentLabel::ALL.into_iter().map(|l| block.count(Metric::SessionSentiment(l))).sum();
    let score_sum: i64 = block.counts.iter().filter(|c| c.metric == Metric::SessionScore).map(|c| c.n).sum();
    TrendBucket {
        period,
        first_day,
        last_day,
        accepted: block.count(Metric::Accepted),
        overall_sentiment_score: mean_of(score_sum, scored, FINE_UNITS).map(|m| round(m, 3)),
        csat: Csat::of(&ratings(CSAT)),
        nps: Nps::of(&ratings(NPS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Date {
        text.parse().expect("date")
    }

    fn unit(date: &str, n: u64) -> Block {
        Block { first_day: Some(day(date)), last_day: Some(day(date)), cells: [(0, n)].into(), counts: Vec::new() }
    }

    fn spans(blocks: &[Block]) -> Vec<(Date, Date, u64)> {
        blocks.iter().map(|b| (b.first_day.expect("first"), b.last_day.expect("last"), b.total())).collect()
    }

    #[test]
    fn days_gather_into_blocks_of_the_floor_and_a_remainder_joins_the_block_before() {
        let days = vec![unit("2026-11-02", 6), unit("2026-11-03", 2), unit("2026-11-05", 3), unit("2026-11-09", 1)];
        let blocks = gather(days, |b| b.total() >= 5).expect("blocks");
        assert_eq!(
            spans(&blocks),
            vec![(day("2026-11-02"), day("2026-11-02"), 6), (day("2026-11-03"), day("2026-11-09"), 6)]
        );
        assert!(gather(vec![unit("2026-11-02", 4)], |b| b.total() >= 5).is_none(), "below the floor altogether");
    }

    #[test]
    fn a_filtered_grid_gathers_blocks_until_every_cell_passes() {
        let cells = |pairs: &[(u64, u64)]| -> ConditionCells { pairs.iter().copied().collect() };
        let days = vec![
            Block { cells: cells(&[(1, 5), (0, 5)]), ..unit("2026-11-02", 0) },
            Block { cells: cells(&[(1, 5), (0, 2)]), ..unit("2026-11-03", 0) },
            Block { cells: cells(&[(1, 5), (0, 3)]), ..unit("2026-11-04", 0) },
        ];
        let passes = |b: &Block| b.cells.values().all(|n| *n == 0 || *n >= 5);
        let blocks = gather(days, passes).expect("blocks");
        assert_eq!(
            blocks.iter().map(|b| b.cells.clone()).collect::<Vec<_>>(),
            vec![cells(&[(1, 5), (0, 5)]), cells(&[(1, 10), (0, 5)])]
        );
    }

    #[test]
    fn periods_start_on_the_day_the_monday_and_the_first() {
        let thursday = day("2026-11-26");
        assert_eq!(Interval::Day.period_of(thursday), thursday);
        assert_eq!(Interval::Week.period_of(thursday), day("2026-11-23"));
        assert_eq!(Interval::Week.period_of(day("2026-11-23")), day("2026-11-23"));
        assert_eq!(Interval::Month.period_of(thursday), day("2026-11-01"));
    }

    #[test]
    fn a_request_reads_its_own_parameters_and_leaves_the_filter() {
        let params = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())).collect()
        };
        let request = TrendRequest::parse(&params(&[
            ("interval", "month"),
            ("from", "2026-01-01"),
            ("to", "2026-03-31"),
            ("timeZone", "Asia/Kolkata"),
            ("platform", "ios"),
        ]))
        .expect("parses");
        assert_eq!(
            (request.interval, request.from, request.to),
            (Interval::Month, Some(day("2026-01-01")), Some(day("2026-03-31")))
        );
        assert_eq!(
            (request.zone.as_str(), request.filter.map(|f| f.platform)),
            ("Asia/Kolkata", Some(Some("ios".into())))
        );
        let default = TrendRequest::parse(&[]).expect("parses");
        assert_eq!((default.interval, default.zone.as_str()), (Interval::Week, "UTC"));
        for (bad, field) in [
            (&[("interval", "hour")][..], "interval"),
            (&[("from", "2026-1-1")][..], "from"),
            (&[("to", "tomorrow")][..], "to"),
            (&[("from", "2026-02-01"), ("to", "2026-01-01")][..], "from"),
            (&[("from", "2000-01-01"), ("to", "2026-01-01")][..], "to"),
            (&[("timeZone", "Mars/Olympus")][..], "timeZone"),
            (&[("interval", "day"), ("interval", "week")][..], "interval"),
            (&[("colour", "red")][..], "colour"),
        ] {
            let error = TrendRequest::parse(&params(bad)).expect_err("refused");
            assert!(error.to_string().contains(&format!("`{field}`")), "{bad:?}: {error}");
        }
    }
}
