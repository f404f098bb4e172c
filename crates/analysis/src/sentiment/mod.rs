//! Sentiment in the eight survey languages: a multinomial logistic regression over hashed words,
//! word pairs, letter runs and spelling skeletons, with VADER and rated word lists as dense
//! evidence. It is trained by `pulse-sentiment train` (crates/sentiment-lab) on UMSAB's training
//! tweets with a fixed seed, and the weights it wrote are committed as `model/sentiment.bin`.

mod features;
mod lexicon;

pub use features::{DENSE, Features, HASH_BITS, HASH_SLOTS, features, load as load_vader};
pub use lexicon::Lexicons;

use std::sync::LazyLock;

use half::f16;

const BUILTIN_BYTES: &[u8] = include_bytes!("../../model/sentiment.bin");

static BUILTIN: LazyLock<Weights> =
    LazyLock::new(|| Weights::from_bytes(BUILTIN_BYTES).expect("the committed model matches this build"));

/// The committed weights file, for the model's version.
pub fn builtin_bytes() -> &'static [u8] {
    BUILTIN_BYTES
}

/// The weights committed with this build.
pub fn builtin() -> &'static Weights {
    &BUILTIN
}

/// negative, neutral, positive: UMSAB's label order.
pub const CLASSES: usize = 3;

/// The file's first bytes, then its format version.
const MAGIC: &[u8; 8] = b"PULSESNT";
const FORMAT: u32 = 1;

/// The languages the model reads, by their primary subtag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    En,
    Fr,
    De,
    Es,
    Pt,
    It,
    Nl,
    Hi,
}

impl Language {
    pub const ALL: [Language; 8] = [
        Language::En,
        Language::Fr,
        Language::De,
        Language::Es,
        Language::Pt,
        Language::It,
        Language::Nl,
        Language::Hi,
    ];

    pub const fn code(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Fr => "fr",
            Language::De => "de",
            Language::Es => "es",
            Language::Pt => "pt",
            Language::It => "it",
            Language::Nl => "nl",
            Language::Hi => "hi",
        }
    }

    pub fn from_code(code: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|language| language.code() == code)
    }

    pub const fn index(self) -> usize {
        self as usize
    }
}

/// The learned weights: one row of [`CLASSES`] per hashed slot and per dense measure, and a bias.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    pub bias: [f32; CLASSES],
    pub dense: [[f32; CLASSES]; DENSE],
    /// `HASH_SLOTS` rows.
    pub sparse: Vec<[f32; CLASSES]>,
}

/// Why a weights file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    #[error("not a sentiment model (wrong magic bytes or format {0})")]
    Format(u32),
    #[error(
        "the model was trained for {bits} hash bits and {dense} dense measures; this build reads {HASH_BITS} and {DENSE}"
    )]
    Shape { bits: u32, dense: u32 },
    #[error("the model file is {0} bytes, not the size its header implies")]
    Length(usize),
}

impl Weights {
    pub fn zero() -> Self {
        Self { bias: [0.0; CLASSES], dense: [[0.0; CLASSES]; DENSE], sparse: vec![[0.0; CLASSES]; HASH_SLOTS] }
    }

    /// Class scores before the softmax.
    pub fn logits(&self, features: &Features) -> [f32; CLASSES] {
        let mut logits = self.bias;
        for (row, value) in self.dense.iter().zip(features.dense) {
            for class in 0..CLASSES {
                logits[class] += row[class] * value;
            }
        }
        for &(slot, value) in &features.sparse {
            let row = &self.sparse[slot as usize];
            for class in 0..CLASSES {
                logits[class] += row[class] * value;
            }
        }
        logits
    }

    /// Probabilities of negative, neutral and positive.
    pub fn probabilities(&self, features: &Features) -> [f32; CLASSES] {
        softmax(self.logits(features))
    }

    /// The file: magic, format, hash bits and dense count (u32 LE), bias and dense rows as f32,
    /// then the hashed rows as f16, which halves the file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(20 + 4 * CLASSES * (1 + DENSE) + 2 * CLASSES * HASH_SLOTS);
        bytes.extend_from_slice(MAGIC);
        for word in [FORMAT, HASH_BITS, DENSE as u32] {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        for value in self.bias.iter().chain(self.dense.iter().flatten()) {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for value in self.sparse.iter().flatten() {
            bytes.extend_from_slice(&f16::from_f32(*value).to_le_bytes());
        }
        bytes
    }

    /// # Errors
    /// A file of another format, shape or length.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, WeightsError> {
        let word = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        if bytes.get(..8) != Some(MAGIC) || word(8) != Some(FORMAT) {
            return Err(WeightsError::Format(word(8).unwrap_or(0)));
        }
        let (bits, dense) = (word(12).unwrap_or(0), word(16).unwrap_or(0));
        if bits != HASH_BITS || dense as usize != DENSE {
            return Err(WeightsError::Shape { bits, dense });
        }
        let floats_at = 20;
        let halves_at = floats_at + 4 * CLASSES * (1 + DENSE);
        if bytes.len() != halves_at + 2 * CLASSES * HASH_SLOTS {
            return Err(WeightsError::Length(bytes.len()));
        }
        let float = |index: usize| {
            let at = floats_at + 4 * index;
            f32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let mut weights = Self::zero();
        for class in 0..CLASSES {
            weights.bias[class] = float(class);
        }
        for (measure, row) in weights.dense.iter_mut().enumerate() {
            for (class, value) in row.iter_mut().enumerate() {
                *value = float(CLASSES * (1 + measure) + class);
            }
        }
        for (row, chunk) in weights.sparse.iter_mut().zip(bytes[halves_at..].chunks_exact(2 * CLASSES)) {
            for (class, value) in row.iter_mut().enumerate() {
                *value = f16::from_le_bytes([chunk[2 * class], chunk[2 * class + 1]]).to_f32();
            }
        }
        Ok(weights)
    }
}

pub fn softmax(logits: [f32; CLASSES]) -> [f32; CLASSES] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp = logits.map(|logit| (logit - max).exp());
    let sum: f32 = exp.iter().sum();
    exp.map(|value| value / sum)
}

/// The label with the highest probability: 0 negative, 1 neutral, 2 positive.
pub fn label(probabilities: [f32; CLASSES]) -> usize {
    let mut best = 1;
    for class in [0, 2] {
        if probabilities[class] > probabilities[best] {
            best = class;
        }
    }
    best
}

/// A compound score from -1 to 1 whose side of the results' ±`threshold` is the model's label:
/// positive minus negative probability, pulled inside the band for a neutral label and pushed to
/// its edge for a polar one that barely leads. Rounded to four decimals, as results sum scores
/// in whole units of 10^-4; the rounding never moves a score across the threshold, which is
/// itself a whole number of units.
pub fn compound(probabilities: [f32; CLASSES], threshold: f64) -> f64 {
    let lean = f64::from(probabilities[2] - probabilities[0]);
    let score = match label(probabilities) {
        0 => lean.min(-threshold),
        2 => lean.max(threshold),
        _ => lean * threshold * 0.99,
    };
    (score * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_survive_the_file_and_a_damaged_file_is_refused() {
        let mut weights = Weights::zero();
        weights.bias = [0.5, -0.25, 1.0];
        weights.dense[3] = [1.5, 0.0, -2.0];
        weights.sparse[7] = [0.125, -4.0, 3.0];
        let bytes = weights.to_bytes();
        assert_eq!(Weights::from_bytes(&bytes).expect("readable"), weights);
        assert!(matches!(Weights::from_bytes(&bytes[..bytes.len() - 1]), Err(WeightsError::Length(_))));
        assert!(matches!(Weights::from_bytes(b"not a model at all!!"), Err(WeightsError::Format(_))));
        let mut reshaped = bytes;
        reshaped[12] = 18;
        assert!(matches!(Weights::from_bytes(&reshaped), Err(WeightsError::Shape { bits: 18, .. })));
    }

    #[test]
    fn the_compound_score_falls_on_the_labels_side_of_the_threshold() {
        let threshold = 0.05;
        for probabilities in
            [[0.2, 0.5, 0.3], [0.34, 0.32, 0.34], [0.4, 0.21, 0.39], [0.39, 0.21, 0.4], [0.0, 0.0, 1.0]]
        {
            let score = compound(probabilities, threshold);
            let read = if score >= threshold {
                2
            } else if score <= -threshold {
                0
            } else {
                1
            };
            assert_eq!(read, label(probabilities), "{probabilities:?} scored {score}");
            assert!((-1.0..=1.0).contains(&score));
            assert_eq!(score, (score * 10_000.0).round() / 10_000.0, "four decimals");
        }
    }
}
