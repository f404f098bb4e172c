//! Audiences: the respondents a partner attaches to a campaign, by the partner's own reference.

use crate::campaigns::models::checked_text;
use crate::error::{Error, Result};
use crate::ids::{CampaignId, RespondentId};
use crate::shared::time_zone::TimeZoneName;
use time::OffsetDateTime;

/// Most rows one `POST /respondents` call may carry.
pub const MAX_ROWS_PER_CALL: usize = 1000;

/// A row as sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AudienceRowInput {
    pub external_ref: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub time_zone: Option<String>,
}

/// A validated row. Name, email, phone and time zone (where the person lives) are personal
/// data: they are sealed before storage and never returned.
#[derive(Clone, PartialEq, Eq)]
pub struct AudienceRow {
    pub external_ref: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub time_zone: Option<TimeZoneName>,
}

impl std::fmt::Debug for AudienceRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudienceRow")
            .field("external_ref", &self.external_ref)
            .field("has_name", &self.name.is_some())
            .field("has_email", &self.email.is_some())
            .field("has_phone", &self.phone.is_some())
            .field("has_time_zone", &self.time_zone.is_some())
            .finish()
    }
}

/// Validates every row; the whole call is refused (naming `rows[i].field`) when one row is bad,
/// so a refused call changes nothing.
///
/// # Errors
/// `ValidationFailed` for no rows, more than [`MAX_ROWS_PER_CALL`], a repeated `externalRef`, or a
/// field that breaks its rule.
pub fn parse_rows(rows: Vec<AudienceRowInput>) -> Result<Vec<AudienceRow>> {
    if rows.is_empty() {
        return Err(Error::validation("rows", "send at least one row"));
    }
    if rows.len() > MAX_ROWS_PER_CALL {
        return Err(Error::validation("rows", format!("at most {MAX_ROWS_PER_CALL} rows per call")));
    }
    let mut parsed: Vec<AudienceRow> = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        let field = |name: &str| format!("rows[{i}].{name}");
        let external_ref = checked_text(&field("externalRef"), &row.external_ref, 1, 200, false)?;
        if let Some(first) = parsed.iter().position(|p| p.external_ref == external_ref) {
            return Err(Error::validation(&field("externalRef"), format!("repeats rows[{first}]")));
        }
        let name = row.name.map(|n| checked_text(&field("name"), &n, 0, 200, false)).transpose()?;
        let email =
            row.email
                .map(|e| {
                    if is_email(&e) {
                        Ok(e)
                    } else {
                        Err(Error::validation(&field("email"), "must be an email address"))
                    }
                })
                .transpose()?;
        let phone = row
            .phone
            .map(|p| {
                if is_phone(&p) {
                    Ok(p)
                } else {
                    Err(Error::validation(
                        &field("phone"),
                        "must be a phone number of at most 32 characters (digits, spaces, + - ( ) .)",
                    ))
                }
            })
            .transpose()?;
        let time_zone = row.time_zone.map(|zone| TimeZoneName::parse(&field("timeZone"), &zone)).transpose()?;
        parsed.push(AudienceRow { external_ref, name, email, phone, time_zone });
    }
    Ok(parsed)
}

/// An addr-spec: one `@`, a non-empty local part and a dotted domain, no spaces or controls, at
/// most 254 characters. Deliverability is the mail system's business.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else { return false };
    text.len() <= 254
        && !local.is_empty()
        && local.len() <= 64
        && !local.contains('@')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
        && domain.split('.').count() >= 2
        && domain.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_alphanumeric() || c == '-')
        })
}

fn is_phone(text: &str) -> bool {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    text.chars().count() <= 32
        && digits >= 4
        && text.chars().all(|c| c.is_ascii_digit() || matches!(c, '+' | ' ' | '-' | '(' | ')' | '.'))
}

/// A respondent to store: the reference kept as a keyed digest (unique per campaign, the key of
/// an update) and sealed, contact details sealed, the invitation nonce kept as a keyed digest for
/// look-up and sealed so the same link can be shown again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewRespondent {
    pub id: RespondentId,
    pub campaign_id: CampaignId,
    pub ref_digest: Vec<u8>,
    pub ref_sealed: Vec<u8>,
    pub name_sealed: Option<Vec<u8>>,
    pub email_sealed: Option<Vec<u8>>,
    pub phone_sealed: Option<Vec<u8>>,
    pub time_zone_sealed: Option<Vec<u8>>,
    pub invitation_digest: Vec<u8>,
    pub invitation_sealed: Vec<u8>,
    pub at: OffsetDateTime,
}

/// What happened to one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOutcome {
    Created,
    Updated,
}

impl RowOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            RowOutcome::Created => "CREATED",
            RowOutcome::Updated => "UPDATED",
        }
    }
}

/// A stored respondent after an upsert: its id and the invitation it keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpsertedRespondent {
    pub id: RespondentId,
    pub outcome: RowOutcome,
    pub invitation_sealed: Vec<u8>,
    /// Whether the invitation was already used to answer.
    pub responded: bool,
}

/// The associated data that binds a sealed respondent field to its row (campaign and external
/// reference, which an update keeps) and to the field. The reference is only associated data
/// here: it is not stored with the field.
pub fn seal_context(campaign: CampaignId, external_ref: &str, field: &str) -> Vec<u8> {
    format!("respondent\0{campaign}\0{external_ref}\0{field}").into_bytes()
}

/// What the keyed digest of a reference covers: the campaign too, so one reference attached to two
/// campaigns gives two unrelated digests.
pub fn ref_digest_input(campaign: CampaignId, external_ref: &str) -> Vec<u8> {
    let mut input = campaign.0.as_bytes().to_vec();
    input.extend_from_slice(external_ref.as_bytes());
    input
}

/// The associated data of a sealed reference: its campaign and its digest, which no other row of
/// the campaign has.
pub fn ref_seal_context(campaign: CampaignId, ref_digest: &[u8]) -> Vec<u8> {
    format!("respondent-ref\0{campaign}\0{}", crate::shared::hex::encode(ref_digest)).into_bytes()
}

/// A respondent's reference as stored.
#[derive(Clone, PartialEq, Eq)]
pub enum StoredRef {
    /// Digested and sealed.
    Sealed { digest: Vec<u8>, sealed: Vec<u8> },
    /// In clear: written before references were digested, or by a replica of an older version
    /// during an upgrade, and not converted yet ([`crate::campaigns::service::Campaigns::digest_clear_refs`]).
    Clear(String),
}

/// A respondent whose reference is still in clear, to be digested and sealed.
#[derive(Clone, PartialEq, Eq)]
pub struct ClearRef {
    pub id: RespondentId,
    pub campaign_id: CampaignId,
    pub external_ref: String,
}

/// A converted reference, to replace the clear one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestedRef {
    pub id: RespondentId,
    pub digest: Vec<u8>,
    pub sealed: Vec<u8>,
}

/// Respondents converted per batch.
pub const REF_BATCH: usize = 500;

impl std::fmt::Debug for StoredRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoredRef::Sealed { .. } => "Sealed",
            StoredRef::Clear(_) => "Clear",
        })
    }
}

impl std::fmt::Debug for ClearRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClearRef").field("id", &self.id).finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(external_ref: &str) -> AudienceRowInput {
        AudienceRowInput { external_ref: external_ref.into(), ..AudienceRowInput::default() }
    }

    #[test]
    fn rows_are_bounded_and_unique() {
        assert!(parse_rows(vec![]).expect_err("empty").to_string().contains("rows"));
        let too_many = (0..=MAX_ROWS_PER_CALL).map(|i| row(&i.to_string())).collect();
        assert!(parse_rows(too_many).is_err());
        let repeated = parse_rows(vec![row("a"), row("b"), row("a")]).expect_err("repeat").to_string();
        assert!(repeated.contains("rows[2].externalRef") && repeated.contains("rows[0]"), "{repeated}");
        assert!(parse_rows(vec![row("")]).expect_err("empty ref").to_string().contains("rows[0].externalRef"));
        assert!(parse_rows(vec![row(&"r".repeat(201))]).is_err());
        let long_name = AudienceRowInput { name: Some("n".repeat(201)), ..row("a") };
        assert!(parse_rows(vec![long_name]).expect_err("name").to_string().contains("rows[0].name"));
    }

    #[test]
    fn emails_and_phones_are_checked_without_echoing_them() {
        for good in ["ada@example.com", "a.b+c@mail.example.co.in", "ü@exämple.de"] {
            assert!(is_email(good), "{good}");
        }
        for bad in ["ada", "ada@", "@example.com", "ada@example", "a da@example.com", "ada@-x.com", "a@b@c.com"] {
            assert!(!is_email(bad), "{bad}");
        }
        let bad = AudienceRowInput { email: Some("secret-person@nowhere".into()), ..row("a") };
        let message = parse_rows(vec![bad]).expect_err("email").to_string();
        assert!(message.contains("rows[0].email") && !message.contains("secret-person"), "{message}");
        let phone = AudienceRowInput { phone: Some("+91 98765 43210".into()), ..row("a") };
        assert!(parse_rows(vec![phone]).is_ok());
        let bad_phone = AudienceRowInput { phone: Some("call me maybe".into()), ..row("a") };
        assert!(parse_rows(vec![bad_phone]).expect_err("phone").to_string().contains("rows[0].phone"));
        let long_phone = AudienceRowInput { phone: Some("1".repeat(33)), ..row("a") };
        assert!(parse_rows(vec![long_phone]).is_err());
    }

    #[test]
    fn debug_output_hides_contact_details() {
        let rows = parse_rows(vec![AudienceRowInput {
            external_ref: "r".into(),
            name: Some("Ada Lovelace".into()),
            email: Some("ada@example.com".into()),
            phone: Some("+44 20 7946 0000".into()),
            time_zone: Some("Europe/London".into()),
        }])
        .expect("ok");
        let shown = format!("{rows:?}");
        assert!(!shown.contains("Ada") && !shown.contains("example.com") && !shown.contains("7946"), "{shown}");
        assert!(!shown.contains("London"), "{shown}");
    }

    #[test]
    fn a_time_zone_must_be_a_known_iana_name() {
        let zoned = |zone: &str| AudienceRowInput { time_zone: Some(zone.into()), ..row("zoned") };
        let parsed = parse_rows(vec![zoned("Asia/Kolkata")]).expect("known");
        assert_eq!(parsed[0].time_zone.as_ref().map(TimeZoneName::as_str), Some("Asia/Kolkata"));
        let refused = parse_rows(vec![row("a"), zoned("Mars/Olympus_Mons")]).expect_err("unknown");
        assert!(refused.to_string().contains("`rows[1].timeZone`"), "{refused}");
    }
}
