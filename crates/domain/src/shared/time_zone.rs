//! Time zones by their IANA names, read against the tz database built into Pulse (no file is read
//! at run time, so every replica applies the same rules).

use jiff::tz::TimeZone;

use crate::error::{Error, Result};

/// An IANA time zone name that the built-in database knows, such as `Asia/Kolkata`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeZoneName(String);

/// Longest IANA name is 32 characters (`America/Argentina/ComodRivadavia`); room to spare.
const MAX_NAME: usize = 64;

impl TimeZoneName {
    /// # Errors
    /// `ValidationFailed` naming `field` for a name the database does not know.
    pub fn parse(field: &str, name: &str) -> Result<Self> {
        Self::known(name)
            .ok_or_else(|| Error::validation(field, "must be an IANA time zone name, such as Europe/Paris"))
    }

    /// The name, when the database knows it. Rows stored before a zone was withdrawn from the
    /// database read as `None` rather than failing.
    pub fn known(name: &str) -> Option<Self> {
        let plausible = !name.is_empty()
            && name.len() <= MAX_NAME
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-' | '+'));
        (plausible && TimeZone::get(name).is_ok()).then(|| Self(name.to_owned()))
    }

    pub fn utc() -> Self {
        Self("UTC".to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The zone's rules; UTC if the name was withdrawn since it was read.
    pub fn zone(&self) -> TimeZone {
        TimeZone::get(&self.0).unwrap_or(TimeZone::UTC)
    }
}

/// A zone's offsets from UTC over time, as `(from, offset)` pairs: from `from` (seconds since the
/// epoch) the zone is `offset` seconds ahead of UTC, until the next pair. The first pair starts
/// before any time a campaign can hold, so every instant has an offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneOffsets(Vec<(i64, i32)>);

impl ZoneOffsets {
    /// The offsets of `zone` up to `until`.
    pub fn of(zone: &TimeZoneName, until: time::OffsetDateTime) -> Self {
        let tz = zone.zone();
        let first = jiff::Timestamp::MIN;
        let mut pairs = vec![(first.as_second(), tz.to_offset(first).seconds())];
        if let Ok(until) = jiff::Timestamp::from_second(until.unix_timestamp()) {
            for transition in tz.following(first).take_while(|t| t.timestamp() <= until) {
                pairs.push((transition.timestamp().as_second(), transition.offset().seconds()));
            }
        }
        Self(pairs)
    }

    pub fn pairs(&self) -> &[(i64, i32)] {
        &self.0
    }

    /// The local day of the instant `at` (seconds since the epoch).
    pub fn local_day(&self, at: i64) -> jiff::civil::Date {
        let offset = self.0.iter().take_while(|(from, _)| *from <= at).last().map_or(0, |(_, offset)| *offset);
        epoch_day((at + i64::from(offset)).div_euclid(86_400)).unwrap_or(jiff::civil::date(1970, 1, 1))
    }
}

/// The date `days` days after 1 January 1970; `None` outside the dates the calendar holds.
pub fn epoch_day(days: i64) -> Option<jiff::civil::Date> {
    jiff::civil::date(1970, 1, 1).checked_add(jiff::Span::new().try_days(days).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_pass_and_anything_else_is_named() {
        for name in ["Europe/Paris", "Asia/Kolkata", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+5"] {
            assert_eq!(TimeZoneName::parse("timeZone", name).expect("known").as_str(), name);
        }
        for name in ["", "Europe/Atlantis", "../../etc/passwd", "CET\n", "+05:30", &"A".repeat(80)] {
            let refused = TimeZoneName::parse("rows[0].timeZone", name).expect_err(name);
            assert!(refused.to_string().contains("`rows[0].timeZone`"), "{refused}");
        }
    }

    #[test]
    fn a_local_day_follows_the_zone_s_offsets_through_daylight_saving() {
        let until = time::macros::datetime!(2026-12-31 00:00 UTC);
        let paris = ZoneOffsets::of(&TimeZoneName::parse("timeZone", "Europe/Paris").expect("known"), until);
        let day = |text: &str| text.parse::<jiff::civil::Date>().expect("a date");
        // 22:30 UTC is 00:30 the next day in summer (UTC+2), 23:30 the same day in winter (UTC+1).
        let summer = time::macros::datetime!(2026-07-01 22:30 UTC).unix_timestamp();
        let winter = time::macros::datetime!(2026-11-30 22:30 UTC).unix_timestamp();
        assert_eq!((paris.local_day(summer), paris.local_day(winter)), (day("2026-07-02"), day("2026-11-30")));
        let kolkata = ZoneOffsets::of(&TimeZoneName::parse("timeZone", "Asia/Kolkata").expect("known"), until);
        let late = time::macros::datetime!(2026-11-30 18:45 UTC).unix_timestamp();
        assert_eq!(kolkata.local_day(late), day("2026-12-01"), "UTC+5:30");
        assert_eq!(ZoneOffsets::of(&TimeZoneName::utc(), until).pairs().len(), 1, "UTC never changes");
    }
}
