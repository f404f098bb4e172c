//! The report's own words in each export language: headings, labels and notes the template reads
//! as `labels` (every language's table is in `translations/`), and the dates and campaign
//! status formatted here because typst reads no dates.

use pulse_domain::campaigns::models::CampaignStatus;
use pulse_domain::exports::models::{NumberFormat, ReportLanguage, fill};
use serde::Serialize;
use time::OffsetDateTime;

use crate::translations;
use crate::words::Words;

/// What the template is given for a language: its words, and how it writes numbers and counts.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Labels {
    #[serde(flatten)]
    words: &'static Words,
    number: Numbers,
    zero_is_singular: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Numbers {
    decimal: &'static str,
    group: &'static str,
    min_grouping: usize,
    secondary_group: usize,
    percent: &'static str,
}

impl Labels {
    pub(crate) fn of(language: ReportLanguage) -> Self {
        let NumberFormat { decimal, group, min_grouping, secondary_group, percent } = language.numbers();
        Self {
            words: translations::words(language),
            number: Numbers { decimal, group, min_grouping, secondary_group, percent },
            zero_is_singular: language.zero_is_singular(),
        }
    }

    pub(crate) fn date(&self, at: OffsetDateTime) -> String {
        let at = at.to_offset(time::UtcOffset::UTC);
        let (day, month) = self.day_and_month(at.day(), u8::from(at.month()));
        fill(self.words.date, &[("day", &day), ("month", month), ("year", &at.year().to_string())])
    }

    /// A date without its year, short enough to label a chart's axis: `day` of `month`, 1 to 12.
    pub(crate) fn short_date(&self, day: u8, month: u8) -> String {
        let (day, month) = self.day_and_month(day, month);
        fill(self.words.short_date, &[("day", &day), ("month", month)])
    }

    fn day_and_month(&self, day: u8, month: u8) -> (String, &'static str) {
        let day = if day == 1 { self.words.first_day.to_owned() } else { day.to_string() };
        (day, self.words.months[usize::from(month) - 1])
    }

    pub(crate) fn moment(&self, at: OffsetDateTime) -> String {
        let at = at.to_offset(time::UtcOffset::UTC);
        format!("{} {:02}:{:02} UTC", self.date(at), at.hour(), at.minute())
    }

    pub(crate) fn period(&self, start: Option<OffsetDateTime>, end: OffsetDateTime) -> String {
        match start {
            Some(start) => format!("{} – {}", self.date(start), self.date(end)),
            None => fill(self.words.not_launched, &[("end", &self.date(end))]),
        }
    }

    pub(crate) const fn status(&self, status: CampaignStatus) -> &'static str {
        let [draft, active, paused, closed] = self.words.statuses;
        match status {
            CampaignStatus::Draft => draft,
            CampaignStatus::Active => active,
            CampaignStatus::Paused => paused,
            CampaignStatus::Closed => closed,
        }
    }
}

#[cfg(test)]
mod tests {
    use pulse_domain::analysis::models::Rejection;
    use pulse_domain::exports::models::EXCLUSIONS;
    use pulse_domain::results::models::SentimentLabel;
    use time::macros::datetime;

    use crate::words::Counted;

    use super::*;

    #[test]
    fn every_language_names_every_reason_label_and_exclusion() {
        for language in ReportLanguage::ALL {
            let words = translations::words(language);
            let reasons: Vec<Rejection> = words.rejections.iter().map(|(r, _)| *r).collect();
            assert_eq!(reasons, Rejection::ALL, "{language:?}");
            let labels: Vec<SentimentLabel> = words.sentiments.iter().map(|(l, _)| *l).collect();
            assert_eq!(labels, SentimentLabel::ALL, "{language:?}");
            if language != ReportLanguage::English {
                let components: Vec<&str> = words.exclusions.iter().map(|(c, _)| *c).collect();
                assert_eq!(components, EXCLUSIONS.map(|e| e.component), "{language:?}");
            }
        }
    }

    #[test]
    fn every_label_holds_the_placeholders_it_is_filled_with() {
        for language in ReportLanguage::ALL {
            let words = translations::words(language);
            let both = |forms: Counted| [forms.one, forms.other];
            let labels: [(&[&str], &[&str]); 13] = [
                (&[words.page], &["{page}", "{pages}"]),
                (&[words.of_started], &["{percent}"]),
                (&both(words.csat_share), &["{percent}", "{n}"]),
                (&both(words.nps_score), &["{score}", "{n}"]),
                (&both(words.trend_note), &["{n}"]),
                (&both(words.withheld), &["{n}"]),
                (&both(words.answers), &["{n}"]),
                (&both(words.floor), &["{n}"]),
                (&[words.mean], &["{mean}", "{min}", "{max}"]),
                (&[words.date], &["{day}", "{month}", "{year}"]),
                (&[words.short_date], &["{day}", "{month}"]),
                (&[words.not_launched], &["{end}"]),
                (&[language.numbers().percent], &["{n}"]),
            ];
            for (texts, placeholders) in labels {
                for text in texts {
                    for placeholder in placeholders {
                        assert_eq!(text.matches(placeholder).count(), 1, "{language:?}: {placeholder} in {text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_template_reads_maps_keyed_by_the_files_codes() {
        let labels = serde_json::to_value(Labels::of(ReportLanguage::French)).expect("JSON");
        assert_eq!(labels["rejections"]["TOO_FAST"], "trop rapide");
        assert_eq!(labels["sentiments"]["NEGATIVE"], "Négatif");
        assert_eq!(labels["kinds"]["text"], "texte libre");
        assert_eq!(labels["npsScore"]["other"], "{score} sur {n} notes");
        assert_eq!(labels["detractors"], "Détracteurs (0 à 6)");
        assert_eq!(labels["trend"], "Évolution dans le temps");
        assert!(labels["trendNote"]["other"].as_str().is_some_and(|note| note.contains("{n} réponses acceptées")));
        assert_eq!(labels["number"]["decimal"], ",");
        assert_eq!(labels["zeroIsSingular"], true);
        assert!(labels["exclusions"]["cross-attribution"].is_string());
        assert!(labels.get("months").is_none() && labels.get("shortDate").is_none(), "dates are formatted here");
    }

    #[test]
    fn dates_are_written_as_each_language_writes_them() {
        let at = datetime!(2026-11-02 09:00 UTC);
        let date = |language| Labels::of(language).date(at);
        assert_eq!(date(ReportLanguage::English), "2 Nov 2026");
        assert_eq!(date(ReportLanguage::French), "2 nov. 2026");
        assert_eq!(date(ReportLanguage::German), "2. Nov. 2026");
        assert_eq!(date(ReportLanguage::Portuguese), "2 de nov. de 2026");
        assert_eq!(date(ReportLanguage::Hindi), "2 नवंबर 2026");
        assert_eq!(Labels::of(ReportLanguage::French).date(datetime!(2026-03-01 00:00 UTC)), "1er mars 2026");
        let french = Labels::of(ReportLanguage::French);
        assert_eq!(french.period(None, at), "non lancée\u{202f}; état au 2 nov. 2026");
        assert_eq!(french.moment(datetime!(2026-11-23 14:05 UTC)), "23 nov. 2026 14:05 UTC");
    }

    #[test]
    fn a_charts_dates_leave_out_the_year() {
        let short = |language| Labels::of(language).short_date(2, 11);
        assert_eq!(short(ReportLanguage::English), "2 Nov");
        assert_eq!(short(ReportLanguage::German), "2. Nov.");
        assert_eq!(short(ReportLanguage::Hindi), "2 नवंबर");
        assert_eq!(Labels::of(ReportLanguage::French).short_date(1, 3), "1er mars");
    }
}
