//! Multinomial logistic regression, fitted on the whole training split at once by L-BFGS: the
//! mean cross-entropy plus an L2 penalty on every weight but the biases.

use std::io::Write as _;

use argmin::core::{CostFunction, Executor, Gradient, State as _};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use pulse_analysis::sentiment::{CLASSES, DENSE, Features, HASH_SLOTS, Weights, softmax};

/// Parameters in one vector: biases, dense rows, then hashed rows, each row one value per class.
const DENSE_AT: usize = CLASSES;
const SPARSE_AT: usize = CLASSES * (1 + DENSE);
const PARAMETERS: usize = SPARSE_AT + CLASSES * HASH_SLOTS;

/// The training set as features, with the penalty's strength.
/// Chosen on the validation split among 1e-5 to 8e-5 (scikit-learn's C from 1 to 8).
pub const DEFAULT_L2: f64 = 2e-5;

pub struct Problem {
    pub examples: Vec<(Features, usize)>,
    pub l2: f64,
}

impl Problem {
    /// Cross-entropy and its gradient at `theta`.
    fn evaluate(&self, theta: &[f64], gradient: Option<&mut Vec<f64>>) -> f64 {
        let weights = to_weights(theta);
        let mut loss = 0.0;
        let mut grad = gradient;
        if let Some(g) = grad.as_deref_mut() {
            g.clear();
            g.resize(PARAMETERS, 0.0);
        }
        let scale = 1.0 / self.examples.len() as f64;
        for (features, label) in &self.examples {
            let probabilities = softmax(weights.logits(features));
            loss -= f64::from(probabilities[*label].max(1e-12)).ln() * scale;
            let Some(g) = grad.as_deref_mut() else { continue };
            for class in 0..CLASSES {
                let error = (f64::from(probabilities[class]) - if class == *label { 1.0 } else { 0.0 }) * scale;
                g[class] += error;
                for (measure, value) in features.dense.iter().enumerate() {
                    g[DENSE_AT + CLASSES * measure + class] += error * f64::from(*value);
                }
                for (slot, value) in &features.sparse {
                    g[SPARSE_AT + CLASSES * *slot as usize + class] += error * f64::from(*value);
                }
            }
        }
        let penalised = &theta[DENSE_AT..];
        loss += 0.5 * self.l2 * penalised.iter().map(|w| w * w).sum::<f64>();
        if let Some(g) = grad {
            for (g, w) in g[DENSE_AT..].iter_mut().zip(penalised) {
                *g += self.l2 * w;
            }
        }
        loss
    }
}

impl CostFunction for Problem {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, theta: &Self::Param) -> Result<f64, argmin::core::Error> {
        Ok(self.evaluate(theta, None))
    }
}

impl Gradient for Problem {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;

    fn gradient(&self, theta: &Self::Param) -> Result<Vec<f64>, argmin::core::Error> {
        let mut gradient = Vec::new();
        self.evaluate(theta, Some(&mut gradient));
        Ok(gradient)
    }
}

/// Fits from all-zero weights for at most `iterations` L-BFGS steps.
pub fn fit(problem: Problem, iterations: u64) -> anyhow::Result<Weights> {
    let solver = LBFGS::new(MoreThuenteLineSearch::new(), 10).with_tolerance_cost(1e-9)?;
    let result = Executor::new(problem, solver)
        .configure(|state| state.param(vec![0.0; PARAMETERS]).max_iters(iterations))
        .run()?;
    let state = result.state();
    let theta = state.get_best_param().ok_or_else(|| anyhow::anyhow!("the fit produced no parameters"))?;
    let _ = writeln!(
        std::io::stderr(),
        "fit: {} iterations, loss {:.5}, stopped: {:?}",
        state.get_iter(),
        state.get_best_cost(),
        state.get_termination_status()
    );
    Ok(to_weights(theta))
}

fn to_weights(theta: &[f64]) -> Weights {
    let mut weights = Weights::zero();
    for (bias, value) in weights.bias.iter_mut().zip(theta) {
        *bias = *value as f32;
    }
    for (measure, row) in weights.dense.iter_mut().enumerate() {
        for (class, value) in row.iter_mut().enumerate() {
            *value = theta[DENSE_AT + CLASSES * measure + class] as f32;
        }
    }
    for (slot, row) in weights.sparse.iter_mut().enumerate() {
        for (class, value) in row.iter_mut().enumerate() {
            *value = theta[SPARSE_AT + CLASSES * slot + class] as f32;
        }
    }
    weights
}
