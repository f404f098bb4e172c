//! Solving the ALTCHA proof-of-work challenge the start of an open campaign can ask for, as a
//! native app or a partner's server does before the start.

use std::time::Duration;

use serde::Deserialize as _;
use serde_json::{Value, json};

/// How long [`solve`] searches. Pulse's default challenge (5,000 PBKDF2 iterations a
/// try, at most 1,000 tries) is about half a second on a laptop and a few seconds on a slow
/// phone; 30 seconds leaves room for an operator's costlier setting, and ends well within the
/// shortest life Pulse gives a challenge (60 seconds), so a solution found in time still starts.
pub const SOLVE_TIMEOUT: Duration = Duration::from_secs(30);

/// The most PBKDF2 iterations a try Pulse asks for (`PULSE_CHALLENGE_COST`'s upper bound).
/// The timeout is looked at every ten tries only, so one try must be bounded too.
pub const MAX_COST: u32 = 100_000;

/// Pulse's keys are 32 bytes; any far longer one would only cost memory.
const MAX_KEY_LENGTH: usize = 64;

/// Why a challenge was not solved. No variant carries what it was given.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ChallengeError {
    #[error("not an ALTCHA v2 challenge as Pulse issues them")]
    Malformed,
    #[error("the challenge's algorithm is not one this crate solves")]
    UnsupportedAlgorithm,
    #[error("no solution found in the time allowed")]
    TimedOut,
}

/// Solves the `challenge` of a campaign's access check (`GET /api/v1/public/pulse/{code}/access`)
/// and answers the `altcha` its start (`POST /api/v1/public/pulse/{code}/start`) takes: the
/// challenge exactly as received, with the solution found. Searches for at most
/// [`SOLVE_TIMEOUT`]. The work blocks the thread: in async code, run it where blocking
/// is allowed (such as `tokio::task::spawn_blocking`).
///
/// # Example
/// ```rust
/// use pulse_partner::challenge;
/// use serde_json::{Value, json};
///
/// # let made = altcha::create_challenge(altcha::CreateChallengeOptions {
/// #     cost: 10,
/// #     counter: Some(20),
/// #     hmac_signature_secret: Some("secret".into()),
/// #     ..Default::default()
/// # })?;
/// # let access = json!({ "challenge": made });
/// // `access` is the body of the access check: its `challenge` is null when none is needed.
/// let altcha = match &access["challenge"] {
///     Value::Null => Value::Null,
///     issued => challenge::solve(issued)?,
/// };
/// let start = json!({ "consentGiven": true, "altcha": altcha });
/// # assert_eq!(start["altcha"]["solution"]["counter"], 20);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`solve_within`].
pub fn solve(challenge: &Value) -> Result<Value, ChallengeError> {
    solve_within(challenge, SOLVE_TIMEOUT)
}

/// [`solve`], searching for at most `timeout` (looked at every ten tries).
///
/// # Errors
/// [`ChallengeError`]: `challenge` is not an ALTCHA v2 challenge within Pulse's bounds, its
/// algorithm is unknown here, or no solution was found within `timeout`.
pub fn solve_within(challenge: &Value, timeout: Duration) -> Result<Value, ChallengeError> {
    // Read to be solved, but sent back as received: Pulse checks its signature over every
    // parameter, and ALTCHA's types keep only the fields they know.
    let read = altcha::Challenge::deserialize(challenge).map_err(|_| ChallengeError::Malformed)?;
    let p = &read.parameters;
    // Refused before any work: a key that would only exhaust memory, a prefix no key starts
    // with, or tries too costly for the timeout to bound.
    let solvable = (1..=MAX_KEY_LENGTH).contains(&p.key_length)
        && p.key_prefix.len() <= 2 * p.key_length
        && p.key_prefix.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        && p.cost <= MAX_COST;
    if !solvable {
        return Err(ChallengeError::Malformed);
    }
    let mut options = altcha::SolveChallengeOptions::new(&read);
    options.timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
    let solution = altcha::solve_challenge(options)
        .map_err(|e| match e {
            altcha::Error::UnsupportedAlgorithm(_) => ChallengeError::UnsupportedAlgorithm,
            _ => ChallengeError::Malformed,
        })?
        .ok_or(ChallengeError::TimedOut)?;
    Ok(json!({ "challenge": challenge, "solution": solution }))
}
