//! What challenges need from the world: a signer and checker of proof of work.

use time::OffsetDateTime;

use crate::challenges::models::{Challenge, ChallengeWork, SolvedChallenge};

/// Issues and checks ALTCHA challenges under the service's own keys.
pub trait ProofOfWork: Send + Sync + 'static {
    /// A new challenge of `work`, bound to the campaign `code`, expiring at `expires_at`.
    fn issue(&self, work: ChallengeWork, code: &str, expires_at: OffsetDateTime) -> Challenge;

    /// Whether the challenge carries this service's signature and the solution solves it,
    /// compared in constant time. Binding and expiry are the caller's to check.
    fn verify(&self, solved: &SolvedChallenge) -> bool;
}

impl<W: ProofOfWork> ProofOfWork for std::sync::Arc<W> {
    fn issue(&self, work: ChallengeWork, code: &str, expires_at: OffsetDateTime) -> Challenge {
        (**self).issue(work, code, expires_at)
    }

    fn verify(&self, solved: &SolvedChallenge) -> bool {
        (**self).verify(solved)
    }
}
