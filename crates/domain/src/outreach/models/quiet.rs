//! Quiet hours: a text or a call waits for the morning in the person's time zone. Email does not
//! interrupt anyone, so it is never held.

use jiff::Timestamp;
use jiff::civil::Time;
use jiff::tz::TimeZone;
use time::OffsetDateTime;

use crate::campaigns::models::DeliveryChannel;
use crate::error::{Error, Result};
use crate::shared::time_zone::TimeZoneName;

/// The hours, local to the person, in which no message interrupts them: from `starts` to `ends`,
/// across midnight when `starts` is the later (the default, 20:00 to 09:00).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietHours {
    starts: Time,
    ends: Time,
}

impl Default for QuietHours {
    fn default() -> Self {
        Self { starts: Time::constant(20, 0, 0, 0), ends: Time::constant(9, 0, 0, 0) }
    }
}

impl QuietHours {
    /// Reads `HH:MM-HH:MM`, such as `20:00-09:00` or `13:00-14:00`.
    ///
    /// # Errors
    /// `ValidationFailed` for another shape, an hour past 23, or a window that starts when it ends.
    pub fn parse(text: &str) -> Result<Self> {
        let refused = || Error::validation("quiet hours", "write them as HH:MM-HH:MM, such as 20:00-09:00");
        let (starts, ends) = text.trim().split_once('-').ok_or_else(refused)?;
        let clock = |part: &str| -> Option<Time> {
            let (hour, minute) = part.trim().split_once(':')?;
            if hour.len() != 2 || minute.len() != 2 {
                return None;
            }
            Time::new(hour.parse().ok()?, minute.parse().ok()?, 0, 0).ok()
        };
        let (starts, ends) = (clock(starts).ok_or_else(refused)?, clock(ends).ok_or_else(refused)?);
        if starts == ends {
            return Err(Error::validation("quiet hours", "the window must start and end at different times"));
        }
        Ok(Self { starts, ends })
    }

    /// When a message held at `now` may go: `None` when it may go now, else the next time the
    /// window ends in `zone` (on a day whose clocks change, the instant that local time first
    /// occurs, or the first after the gap).
    pub fn opening(&self, now: OffsetDateTime, zone: &TimeZone) -> Option<OffsetDateTime> {
        let local = Timestamp::from_second(now.unix_timestamp()).ok()?.to_zoned(zone.clone());
        let at = local.time();
        let across_midnight = self.starts > self.ends;
        let quiet =
            if across_midnight { at >= self.starts || at < self.ends } else { at >= self.starts && at < self.ends };
        if !quiet {
            return None;
        }
        let day = if across_midnight && at >= self.starts { local.date().tomorrow().ok()? } else { local.date() };
        let opening = day.to_datetime(self.ends).to_zoned(zone.clone()).ok()?;
        OffsetDateTime::from_unix_timestamp(opening.timestamp().as_second()).ok()
    }
}

/// Whether a message on `channel` interrupts its reader, and so keeps quiet hours.
pub const fn interrupts(channel: DeliveryChannel) -> bool {
    matches!(channel, DeliveryChannel::Sms | DeliveryChannel::Whatsapp | DeliveryChannel::Telephony)
}

/// Whose clock quiet hours follow: the person's own zone from the audience; else the zone of
/// their number's country, when that country has one; else the workspace's; else UTC.
pub fn zone_for(person: Option<&TimeZoneName>, number: Option<&str>, workspace: Option<&TimeZoneName>) -> TimeZone {
    if let Some(zone) = person {
        return zone.zone();
    }
    if let Some(zone) = number.and_then(zone_of_number).and_then(|name| TimeZone::get(name).ok()) {
        return zone;
    }
    workspace.map_or(TimeZone::UTC, TimeZoneName::zone)
}

/// The zone of an E.164 number (`+` and digits) whose country calling code belongs to one
/// country with one zone in the tz database. Codes shared by several countries or zones (`+1`,
/// `+7`, Spain's `+34` with the Canaries, Portugal's `+351` with the Azores, Brazil, Mexico,
/// Australia, Indonesia, China, Russia...) give `None`.
fn zone_of_number(number: &str) -> Option<&'static str> {
    let digits = number.strip_prefix('+')?;
    // Calling codes are prefix-free, so at most one matches.
    SINGLE_ZONE_CALLING_CODES.iter().find(|(code, _)| digits.starts_with(code)).map(|(_, zone)| *zone)
}

const SINGLE_ZONE_CALLING_CODES: [(&str, &str); 74] = [
    // Europe
    ("30", "Europe/Athens"),
    ("31", "Europe/Amsterdam"),
    ("32", "Europe/Brussels"),
    ("33", "Europe/Paris"),
    ("36", "Europe/Budapest"),
    ("39", "Europe/Rome"),
    ("40", "Europe/Bucharest"),
    ("41", "Europe/Zurich"),
    ("43", "Europe/Vienna"),
    ("44", "Europe/London"),
    ("45", "Europe/Copenhagen"),
    ("46", "Europe/Stockholm"),
    ("47", "Europe/Oslo"),
    ("48", "Europe/Warsaw"),
    ("49", "Europe/Berlin"),
    ("350", "Europe/Gibraltar"),
    ("352", "Europe/Luxembourg"),
    ("353", "Europe/Dublin"),
    ("354", "Atlantic/Reykjavik"),
    ("355", "Europe/Tirane"),
    ("356", "Europe/Malta"),
    ("358", "Europe/Helsinki"),
    ("359", "Europe/Sofia"),
    ("370", "Europe/Vilnius"),
    ("371", "Europe/Riga"),
    ("372", "Europe/Tallinn"),
    ("373", "Europe/Chisinau"),
    ("377", "Europe/Monaco"),
    ("381", "Europe/Belgrade"),
    ("385", "Europe/Zagreb"),
    ("386", "Europe/Ljubljana"),
    ("387", "Europe/Sarajevo"),
    ("389", "Europe/Skopje"),
    ("420", "Europe/Prague"),
    ("421", "Europe/Bratislava"),
    // Africa
    ("20", "Africa/Cairo"),
    ("212", "Africa/Casablanca"),
    ("213", "Africa/Algiers"),
    ("216", "Africa/Tunis"),
    ("221", "Africa/Dakar"),
    ("225", "Africa/Abidjan"),
    ("233", "Africa/Accra"),
    ("234", "Africa/Lagos"),
    ("237", "Africa/Douala"),
    ("244", "Africa/Luanda"),
    ("254", "Africa/Nairobi"),
    ("255", "Africa/Dar_es_Salaam"),
    ("256", "Africa/Kampala"),
    ("258", "Africa/Maputo"),
    ("27", "Africa/Johannesburg"),
    // Asia
    ("60", "Asia/Kuala_Lumpur"),
    ("63", "Asia/Manila"),
    ("65", "Asia/Singapore"),
    ("66", "Asia/Bangkok"),
    ("81", "Asia/Tokyo"),
    ("82", "Asia/Seoul"),
    ("84", "Asia/Ho_Chi_Minh"),
    ("880", "Asia/Dhaka"),
    ("91", "Asia/Kolkata"),
    ("92", "Asia/Karachi"),
    ("94", "Asia/Colombo"),
    ("966", "Asia/Riyadh"),
    ("971", "Asia/Dubai"),
    ("972", "Asia/Jerusalem"),
    ("977", "Asia/Kathmandu"),
    // The Americas
    ("502", "America/Guatemala"),
    ("503", "America/El_Salvador"),
    ("504", "America/Tegucigalpa"),
    ("506", "America/Costa_Rica"),
    ("507", "America/Panama"),
    ("51", "America/Lima"),
    ("53", "America/Havana"),
    ("57", "America/Bogota"),
    ("58", "America/Caracas"),
];

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    fn paris() -> TimeZone {
        TimeZone::get("Europe/Paris").expect("known")
    }

    #[test]
    fn a_message_waits_for_the_morning_in_the_persons_zone() {
        let quiet = QuietHours::default();
        let kolkata = TimeZone::get("Asia/Kolkata").expect("known");
        // 17:30 UTC is 23:00 in Kolkata: held until 09:00 there, 03:30 UTC the next day.
        assert_eq!(quiet.opening(datetime!(2026-03-02 17:30 UTC), &kolkata), Some(datetime!(2026-03-03 03:30 UTC)));
        // 01:00 in Kolkata (19:30 UTC the day before): the same morning.
        assert_eq!(quiet.opening(datetime!(2026-03-02 19:30 UTC), &kolkata), Some(datetime!(2026-03-03 03:30 UTC)));
        // The edges: 09:00 sharp may go, 20:00 sharp may not.
        assert_eq!(quiet.opening(datetime!(2026-03-03 03:30 UTC), &kolkata), None);
        assert_eq!(quiet.opening(datetime!(2026-03-02 14:29:59 UTC), &kolkata), None);
        assert!(quiet.opening(datetime!(2026-03-02 14:30 UTC), &kolkata).is_some());
    }

    #[test]
    fn the_opening_follows_the_clocks_when_they_change() {
        let quiet = QuietHours::default();
        // Paris moves to summer time in the night of 28 to 29 March 2026: 09:00 is then 07:00 UTC.
        assert_eq!(quiet.opening(datetime!(2026-03-28 21:00 UTC), &paris()), Some(datetime!(2026-03-29 07:00 UTC)));
        assert_eq!(quiet.opening(datetime!(2026-03-27 21:00 UTC), &paris()), Some(datetime!(2026-03-28 08:00 UTC)));
        // A window that does not cross midnight, and one whose end falls in the spring gap
        // (02:30 does not exist that night in Paris: the first instant after it is taken).
        let lunch = QuietHours::parse("12:00-14:00").expect("valid");
        assert_eq!(lunch.opening(datetime!(2026-03-02 12:30 UTC), &paris()), Some(datetime!(2026-03-02 13:00 UTC)));
        assert_eq!(lunch.opening(datetime!(2026-03-02 13:00 UTC), &paris()), None);
        let night = QuietHours::parse("01:00-02:30").expect("valid");
        assert_eq!(night.opening(datetime!(2026-03-29 00:30 UTC), &paris()), Some(datetime!(2026-03-29 01:30 UTC)));
    }

    #[test]
    fn quiet_hours_are_read_as_written_or_refused() {
        assert_eq!(QuietHours::parse("20:00-09:00").expect("valid"), QuietHours::default());
        assert_eq!(QuietHours::parse(" 21:30 - 08:15 ").expect("valid").starts, Time::constant(21, 30, 0, 0));
        for bad in ["", "20:00", "20-09", "24:00-09:00", "20:60-09:00", "9:00-20:00", "20:00-20:00", "a:bc-09:00"] {
            assert!(QuietHours::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn the_zone_is_the_persons_then_the_numbers_country_then_the_workspaces() {
        let named = |name: &str| TimeZoneName::parse("zone", name).expect("known");
        let (kolkata, tokyo) = (named("Asia/Kolkata"), named("Asia/Tokyo"));
        assert_eq!(zone_for(Some(&kolkata), Some("+33612345678"), Some(&tokyo)), kolkata.zone());
        assert_eq!(zone_for(None, Some("+33612345678"), Some(&tokyo)), paris());
        assert_eq!(zone_for(None, Some("+919812345678"), None), kolkata.zone());
        // +1 spans many zones, Spain has the Canaries: the workspace decides, else UTC.
        assert_eq!(zone_for(None, Some("+14155550100"), Some(&tokyo)), tokyo.zone());
        assert_eq!(zone_for(None, Some("+34612345678"), None), TimeZone::UTC);
        // A number written without its country code says nothing of where it rings.
        assert_eq!(zone_for(None, Some("0612345678"), None), TimeZone::UTC);
    }

    #[test]
    fn every_calling_code_names_a_known_zone_and_none_is_a_prefix_of_another() {
        for (code, zone) in SINGLE_ZONE_CALLING_CODES {
            assert!(TimeZone::get(zone).is_ok(), "{zone}");
            assert!(code.chars().all(|c| c.is_ascii_digit()), "{code}");
            let shadowed = SINGLE_ZONE_CALLING_CODES.iter().filter(|(other, _)| other.starts_with(code)).count();
            assert_eq!(shadowed, 1, "{code} is a prefix of another code");
        }
    }

    #[test]
    fn only_channels_that_interrupt_keep_quiet_hours() {
        assert!(!interrupts(DeliveryChannel::Email));
        assert!(interrupts(DeliveryChannel::Sms) && interrupts(DeliveryChannel::Whatsapp));
        assert!(interrupts(DeliveryChannel::Telephony));
    }
}
