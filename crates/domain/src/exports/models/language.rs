//! The language an export is written in, and how numbers and counted phrases read in it.
//!
//! An export's own words (its narrative, in `narrative.rs`, and the PDF report's headings and
//! labels, in `pulse-export-pdf`) follow the campaign's default language when it is one of the
//! eight survey languages, matched on the primary subtag (`fr-CA` is French), and are English
//! otherwise.

use crate::campaigns::models::LanguageTag;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReportLanguage {
    #[default]
    English,
    French,
    Spanish,
    German,
    Portuguese,
    Italian,
    Dutch,
    Hindi,
}

/// How a language writes numbers, after CLDR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumberFormat {
    pub decimal: &'static str,
    pub group: &'static str,
    /// Digits a number needs left of its last three before it is grouped: 2 leaves `1000` whole
    /// and groups `10.000`.
    pub min_grouping: usize,
    /// The size of the groups left of the last three digits: 2 in Indian grouping (`1,00,000`).
    pub secondary_group: usize,
    /// A percentage, `{n}` being the number.
    pub percent: &'static str,
}

/// A phrase about a count in the two forms the eight languages need, `{n}` being the count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plural {
    pub one: &'static str,
    pub other: &'static str,
}

const LATIN_COMMA: NumberFormat =
    NumberFormat { decimal: ",", group: ".", min_grouping: 1, secondary_group: 3, percent: "{n}%" };

impl ReportLanguage {
    pub const ALL: [ReportLanguage; 8] = [
        ReportLanguage::English,
        ReportLanguage::French,
        ReportLanguage::Spanish,
        ReportLanguage::German,
        ReportLanguage::Portuguese,
        ReportLanguage::Italian,
        ReportLanguage::Dutch,
        ReportLanguage::Hindi,
    ];

    /// The primary subtag.
    pub const fn code(self) -> &'static str {
        match self {
            ReportLanguage::English => "en",
            ReportLanguage::French => "fr",
            ReportLanguage::Spanish => "es",
            ReportLanguage::German => "de",
            ReportLanguage::Portuguese => "pt",
            ReportLanguage::Italian => "it",
            ReportLanguage::Dutch => "nl",
            ReportLanguage::Hindi => "hi",
        }
    }

    /// The language of `tag` by its primary subtag; English for any other.
    pub fn of(tag: &LanguageTag) -> Self {
        Self::ALL.into_iter().find(|l| l.code() == tag.primary()).unwrap_or_default()
    }

    pub const fn numbers(self) -> NumberFormat {
        match self {
            ReportLanguage::English => {
                NumberFormat { decimal: ".", group: ",", min_grouping: 1, secondary_group: 3, percent: "{n}%" }
            }
            ReportLanguage::French => NumberFormat {
                decimal: ",",
                group: "\u{202f}",
                min_grouping: 1,
                secondary_group: 3,
                percent: "{n}\u{202f}%",
            },
            ReportLanguage::Spanish => NumberFormat { min_grouping: 2, percent: "{n}\u{a0}%", ..LATIN_COMMA },
            ReportLanguage::German => NumberFormat { percent: "{n}\u{a0}%", ..LATIN_COMMA },
            ReportLanguage::Portuguese | ReportLanguage::Italian | ReportLanguage::Dutch => LATIN_COMMA,
            ReportLanguage::Hindi => {
                NumberFormat { decimal: ".", group: ",", min_grouping: 1, secondary_group: 2, percent: "{n}%" }
            }
        }
    }

    /// Whether a count of zero takes the singular, as in French ("0 réponse").
    pub const fn zero_is_singular(self) -> bool {
        matches!(self, ReportLanguage::French)
    }

    /// The form of `forms` that agrees with `n`.
    fn form(self, forms: &Plural, n: u64) -> &'static str {
        if n == 1 || (n == 0 && self.zero_is_singular()) { forms.one } else { forms.other }
    }

    /// `n` with the language's digit grouping.
    pub fn count(self, n: u64) -> String {
        let format = self.numbers();
        let digits = n.to_string();
        if digits.len() < 3 + format.min_grouping {
            return digits;
        }
        let (mut head, last) = digits.split_at(digits.len() - 3);
        let mut groups = vec![last];
        while head.len() > format.secondary_group {
            let (rest, group) = head.split_at(head.len() - format.secondary_group);
            groups.push(group);
            head = rest;
        }
        groups.push(head);
        groups.reverse();
        groups.join(format.group)
    }

    /// A share from 0 to 1 as a whole percentage.
    pub fn percent(self, share: f64) -> String {
        fill(self.numbers().percent, &[("n", &format!("{:.0}", share * 100.0))])
    }

    /// `forms` agreeing with `n`, with `{n}` written as a count and the other `values` filled in.
    pub fn counted(self, forms: &Plural, n: u64, values: &[(&str, &str)]) -> String {
        let count = self.count(n);
        let mut all = vec![("n", count.as_str())];
        all.extend_from_slice(values);
        fill(self.form(forms, n), &all)
    }
}

/// `template` with each `{name}` replaced by its value, in one pass, so a value that holds braces
/// (a theme) is never read as a placeholder; an unknown `{name}` stays as it is.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let known = after.find('}').and_then(|close| {
            let name = &after[..close];
            values.iter().find(|(n, _)| *n == name).map(|(_, value)| (*value, &after[close + 1..]))
        });
        match known {
            Some((value, next)) => {
                out.push_str(value);
                rest = next;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(text: &str) -> LanguageTag {
        LanguageTag::parse("language", text).expect("a tag")
    }

    #[test]
    fn a_language_is_matched_on_its_primary_subtag_and_anything_else_is_english() {
        assert_eq!(ReportLanguage::of(&tag("fr-CA")), ReportLanguage::French);
        assert_eq!(ReportLanguage::of(&tag("pt-BR")), ReportLanguage::Portuguese);
        assert_eq!(ReportLanguage::of(&tag("hi")), ReportLanguage::Hindi);
        assert_eq!(ReportLanguage::of(&tag("NL")), ReportLanguage::Dutch);
        assert_eq!(ReportLanguage::of(&tag("sv")), ReportLanguage::English);
        assert_eq!(ReportLanguage::of(&tag("fil")), ReportLanguage::English);
        for language in ReportLanguage::ALL {
            assert_eq!(ReportLanguage::of(&tag(language.code())), language);
        }
    }

    #[test]
    fn counts_are_grouped_as_each_language_groups_them() {
        let count = |language: ReportLanguage, n| language.count(n);
        assert_eq!(count(ReportLanguage::English, 999), "999");
        assert_eq!(count(ReportLanguage::English, 1234567), "1,234,567");
        assert_eq!(count(ReportLanguage::French, 12345), "12\u{202f}345");
        assert_eq!(count(ReportLanguage::German, 1000), "1.000");
        assert_eq!(count(ReportLanguage::Spanish, 1000), "1000");
        assert_eq!(count(ReportLanguage::Spanish, 10000), "10.000");
        assert_eq!(count(ReportLanguage::Hindi, 1234567), "12,34,567");
        assert_eq!(count(ReportLanguage::Hindi, 100000), "1,00,000");
    }

    #[test]
    fn percentages_and_plurals_follow_the_language() {
        assert_eq!(ReportLanguage::English.percent(0.714), "71%");
        assert_eq!(ReportLanguage::French.percent(0.714), "71\u{202f}%");
        assert_eq!(ReportLanguage::German.percent(1.0), "100\u{a0}%");
        let forms = Plural { one: "{n} réponse", other: "{n} réponses" };
        assert_eq!(ReportLanguage::French.counted(&forms, 0, &[]), "0 réponse");
        assert_eq!(ReportLanguage::French.counted(&forms, 2, &[]), "2 réponses");
        let forms = Plural { one: "{n} response", other: "{n} responses" };
        assert_eq!(ReportLanguage::English.counted(&forms, 0, &[]), "0 responses");
        assert_eq!(ReportLanguage::English.counted(&forms, 1, &[]), "1 response");
    }

    #[test]
    fn filling_reads_each_placeholder_once_and_leaves_values_alone() {
        assert_eq!(fill("{a} and {b}", &[("a", "{b}"), ("b", "x")]), "{b} and x");
        assert_eq!(fill("{unknown} {", &[]), "{unknown} {");
        assert_eq!(fill("no placeholder", &[("a", "x")]), "no placeholder");
    }
}
