//! What an erasure is and how its subject is named.

use crate::apps::models::required_text;
use crate::campaigns::models::checked_text;
use crate::error::{Error, Result};
use crate::ids::{ErasureId, WorkspaceId};
use time::OffsetDateTime;

/// Whom an erasure is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErasureKind {
    /// A person an app named by `externalId`.
    AppUser,
    /// One app install.
    Device,
    /// A respondent of a campaign's audience, named by `externalRef`.
    Respondent,
}

impl ErasureKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            ErasureKind::AppUser => "APP_USER",
            ErasureKind::Device => "DEVICE",
            ErasureKind::Respondent => "RESPONDENT",
        }
    }
}

/// The trace an erasure leaves, for accountability. The store writes it with the [`ErasureKind`]
/// and the id of the subject it found: nothing else of the person, never the reference the
/// erasure was asked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErasureRecord {
    pub id: ErasureId,
    pub workspace_id: WorkspaceId,
    pub erased_at: OffsetDateTime,
}

/// The `externalId` to erase, under the rules of app register (which derived the person's id from
/// it), so the same text finds the same person.
///
/// # Errors
/// `ValidationFailed` naming `externalId`, never repeating it.
pub fn parse_external_id(value: &str) -> Result<String> {
    if value.trim() != value {
        return Err(Error::validation("externalId", "must not start or end with whitespace"));
    }
    required_text("externalId", value.to_owned(), 128)
}

/// The `externalRef` to erase, under the rules of an audience row.
///
/// # Errors
/// `ValidationFailed` naming `externalRef`, never repeating it.
pub fn parse_external_ref(value: &str) -> Result<String> {
    checked_text("externalRef", value, 1, 200, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_follow_the_rules_they_were_given_by_and_are_never_echoed() {
        assert_eq!(parse_external_id("user-42").expect("ok"), "user-42");
        for bad in ["", " user-42", "user-42 ", "a\u{7}b", &"x".repeat(129)] {
            let message = parse_external_id(bad).expect_err("refused").to_string();
            assert!(message.contains("externalId"), "{message}");
        }
        assert!(!parse_external_id(" secret-person").expect_err("refused").to_string().contains("secret-person"));
        assert_eq!(parse_external_ref("crm-1").expect("ok"), "crm-1");
        for bad in ["", "a\nb", &"r".repeat(201)] {
            assert!(parse_external_ref(bad).expect_err("refused").to_string().contains("externalRef"));
        }
    }
}
