//! `pulse-sentiment train` fits the sentiment model on UMSAB's training split and writes
//! `crates/analysis/model/sentiment.bin`; `pulse-sentiment evaluate` prints macro-F1 per language
//! on the validation split beside the published baselines, and with `--check` fails when a
//! language falls below its floor. Neither reads UMSAB's test split: it is held out to score the
//! finished analyzer.

mod data;
mod evaluate;
mod train;

use std::io::Write as _;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use pulse_analysis::sentiment::{Language, Lexicons, Weights, features};

#[derive(Parser)]
#[command(about = "Train and evaluate Pulse's sentiment model")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Fit the model on the training split of every UMSAB language Pulse asks in.
    Train {
        /// UMSAB's train and validation files.
        #[arg(long, default_value = "../shared/data/umsab")]
        data: PathBuf,
        /// Where the weights go.
        #[arg(long, default_value = "crates/analysis/model/sentiment.bin")]
        out: PathBuf,
        /// The L2 penalty's strength per weight (1 / (C · examples) in scikit-learn's terms).
        #[arg(long, default_value_t = train::DEFAULT_L2)]
        l2: f64,
        #[arg(long, default_value_t = 300)]
        iterations: u64,
    },
    /// Macro-F1 per language on the validation split and the Dutch check set.
    Evaluate {
        #[arg(long, default_value = "../shared/data/umsab")]
        data: PathBuf,
        /// Weights to read instead of the ones built into Pulse.
        #[arg(long)]
        model: Option<PathBuf>,
        /// Fail when a language scores below its floor.
        #[arg(long)]
        check: bool,
    },
    /// The model's probabilities for one text, and the dense evidence it read.
    Score {
        /// A survey language: de, en, es, fr, hi, it, nl or pt.
        #[arg(long)]
        language: String,
        /// Weights to read instead of the ones built into Pulse.
        #[arg(long)]
        model: Option<PathBuf>,
        text: String,
    },
}

fn main() -> anyhow::Result<()> {
    match Args::parse().command {
        Command::Train { data, out, l2, iterations } => {
            let lexicons = Lexicons::load();
            let mut examples = Vec::new();
            for (language, name) in data::UMSAB {
                for example in data::umsab(&data, language, name, "train")? {
                    examples.push((features(&example.text, example.language, &lexicons), example.label));
                }
            }
            let count = examples.len();
            let weights = train::fit(train::Problem { examples, l2 }, iterations)?;
            std::fs::write(&out, weights.to_bytes()).with_context(|| format!("writing {}", out.display()))?;
            writeln!(std::io::stdout(), "trained on {count} texts, wrote {}", out.display())?;
        }
        Command::Evaluate { data, model, check } => {
            let weights = weights(model)?;
            let report = evaluate::run(&data, &weights)?;
            writeln!(std::io::stdout(), "{}", report.table())?;
            if check {
                report.check()?;
            }
        }
        Command::Score { language, model, text } => {
            let language =
                Language::from_code(&language).with_context(|| format!("{language} is not a survey language"))?;
            let features = features(&text, language, &Lexicons::load());
            let [negative, neutral, positive] = weights(model)?.probabilities(&features);
            writeln!(
                std::io::stdout(),
                "negative {negative:.3}, neutral {neutral:.3}, positive {positive:.3}; dense {:?}",
                features.dense
            )?;
        }
    }
    Ok(())
}

fn weights(model: Option<PathBuf>) -> anyhow::Result<Weights> {
    Ok(match model {
        Some(path) => Weights::from_bytes(&std::fs::read(&path)?)?,
        None => pulse_analysis::sentiment::builtin().clone(),
    })
}
