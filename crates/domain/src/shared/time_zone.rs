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

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The zone's rules; UTC if the name was withdrawn since it was read.
    pub fn zone(&self) -> TimeZone {
        TimeZone::get(&self.0).unwrap_or(TimeZone::UTC)
    }
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
}
