//! ALTCHA proof-of-work challenges (its v2 protocol, deterministic mode), and when a start needs one.

use std::collections::BTreeMap;

use time::{Duration, OffsetDateTime};

use crate::error::{Error, ErrorCode};

/// The key derivation every challenge uses.
pub const ALGORITHM: &str = "PBKDF2/SHA-256";

/// The bytes of the derived key.
pub const KEY_LENGTH: u32 = 32;

/// The challenge's `data` entry that binds it to one campaign.
pub const CODE_DATA: &str = "code";

/// The challenge's parameters, signed as one: ALTCHA v2's `parameters` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeParameters {
    pub algorithm: String,
    /// PBKDF2 iterations per try.
    pub cost: u32,
    /// What the challenge is bound to: the campaign's public code under [`CODE_DATA`].
    pub data: BTreeMap<String, String>,
    /// Unix seconds after which no solution of it is taken.
    pub expires_at: i64,
    pub key_length: u32,
    /// The leading half of the derived key, in hex: what the solver searches for.
    pub key_prefix: String,
    /// The signature of the whole derived key, so a solution is checked without deriving again.
    pub key_signature: Option<String>,
    pub nonce: String,
    pub salt: String,
}

/// A challenge as issued: its parameters and their signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub parameters: ChallengeParameters,
    pub signature: String,
}

impl Challenge {
    /// The campaign code the challenge is bound to.
    pub fn code(&self) -> Option<&str> {
        self.parameters.data.get(CODE_DATA).map(String::as_str)
    }
}

/// What a solver found: the counter and the key it derives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub counter: u32,
    pub derived_key: String,
}

/// A challenge sent back with its solution (ALTCHA's payload).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedChallenge {
    pub challenge: Challenge,
    pub solution: Solution,
}

/// How much work one challenge asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChallengeWork {
    /// PBKDF2 iterations per try.
    pub iterations: u32,
    /// The secret counter is drawn from `max_tries / 2 ..= max_tries`; a solver counting from
    /// zero makes that many tries, three quarters of `max_tries` on average.
    pub max_tries: u32,
}

/// When starts need a solved challenge, and how costly one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChallengePolicy {
    pub work: ChallengeWork,
    /// How long a challenge can be solved and used after it is issued.
    pub lifetime: Duration,
    /// Open starts from one network per campaign in an hour, beyond which every open start of
    /// the campaign from that network needs a challenge; `None` never requires one for this.
    pub network_starts_per_hour: Option<u32>,
    /// Open starts of a campaign in an hour, beyond which every open start needs a challenge.
    pub campaign_starts_per_hour: Option<u32>,
}

impl Default for ChallengePolicy {
    fn default() -> Self {
        Self {
            work: ChallengeWork { iterations: 5_000, max_tries: 1_000 },
            lifetime: Duration::minutes(10),
            network_starts_per_hour: Some(20),
            campaign_starts_per_hour: Some(500),
        }
    }
}

impl ChallengePolicy {
    /// The policy with no automatic challenge: only campaigns that ask for one get one.
    pub fn on_request_only(self) -> Self {
        Self { network_starts_per_hour: None, campaign_starts_per_hour: None, ..self }
    }
}

/// A solution that verified, ready to be spent with the session it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpentChallenge {
    /// Names the challenge (a digest of its nonce) without revealing anything.
    pub fingerprint: Vec<u8>,
    pub expires_at: OffsetDateTime,
}

/// Why a start without a usable solution is refused.
pub fn challenge_required(problem: &str) -> Error {
    Error::refused(
        ErrorCode::ChallengeRequired,
        format!("{problem}: solve the challenge of this campaign's access check and send it as `altcha`"),
    )
}
