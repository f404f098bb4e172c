//! The labelled texts: UMSAB's splits (`<language>_<split>_text.txt` and `_labels.txt`, one per
//! line, labels 0 negative, 1 neutral, 2 positive) and our Dutch check set.

use std::path::Path;

use anyhow::{Context as _, bail};
use pulse_analysis::sentiment::Language;

/// UMSAB's languages that Pulse asks in, by the file names' language word.
pub const UMSAB: [(Language, &str); 7] = [
    (Language::En, "english"),
    (Language::Fr, "french"),
    (Language::De, "german"),
    (Language::It, "italian"),
    (Language::Pt, "portuguese"),
    (Language::Es, "spanish"),
    (Language::Hi, "hindi"),
];

/// A labelled text.
pub struct Example {
    pub language: Language,
    pub text: String,
    pub label: usize,
}

/// One split of one language.
pub fn umsab(dir: &Path, language: Language, name: &str, split: &str) -> anyhow::Result<Vec<Example>> {
    let read = |kind: &str| {
        let path = dir.join(format!("{name}_{split}_{kind}.txt"));
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    };
    let (texts, labels) = (read("text")?, read("labels")?);
    let labels: Vec<&str> = labels.lines().collect();
    let texts: Vec<&str> = texts.lines().take(labels.len()).collect();
    if texts.len() != labels.len() {
        bail!("{name} {split}: {} texts for {} labels", texts.len(), labels.len());
    }
    texts
        .into_iter()
        .zip(labels)
        .map(|(text, label)| {
            let label: usize = label.trim().parse().with_context(|| format!("{name} {split}: label {label:?}"))?;
            if label > 2 {
                bail!("{name} {split}: label {label} is not 0, 1 or 2");
            }
            Ok(Example { language, text: text.to_owned(), label })
        })
        .collect()
}

/// The Dutch check set: a header, then `label<TAB>text` with negative, neutral or positive.
pub fn dutch_check() -> anyhow::Result<Vec<Example>> {
    include_str!("../data/dutch-check.tsv")
        .lines()
        .skip(1)
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (label, text) = line.split_once('\t').with_context(|| format!("no tab in {line:?}"))?;
            let label = match label {
                "negative" => 0,
                "neutral" => 1,
                "positive" => 2,
                other => bail!("unknown label {other:?}"),
            };
            Ok(Example { language: Language::Nl, text: text.to_owned(), label })
        })
        .collect()
}
