//! Deciding whether an open start needs a challenge, issuing one, and checking a solution.

use time::OffsetDateTime;

use crate::campaigns::models::{AudienceMode, Campaign};
use crate::challenges::models::{Challenge, ChallengePolicy, SolvedChallenge, SpentChallenge, challenge_required};
use crate::challenges::ports::ProofOfWork;
use crate::error::Result;
use crate::quota::models::{QuotaFamily, window_start};
use crate::quota::ports::QuotaCounter;
use crate::shared::crypto::Crypto;

/// Open starts are counted in the quota windows, under subjects of their own, so every replica
/// sees the same pressure.
const COUNTED_AS: QuotaFamily = QuotaFamily::StartAttempt;

/// The challenge rules of public starts.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChallengeGate {
    policy: ChallengePolicy,
}

impl ChallengeGate {
    pub fn new(policy: ChallengePolicy) -> Self {
        Self { policy }
    }

    /// Whether a start without a launch token or invitation (an open visit) needs a solved
    /// challenge: always when the campaign asks for one, otherwise once the campaign's open starts
    /// from `network` (when the start came over one), or in all, passed the policy's hourly
    /// rates. `count` adds this start to both counts first; the access check only reads them.
    ///
    /// # Errors
    /// Port errors as they are.
    pub async fn required<Q: QuotaCounter>(
        &self,
        counter: &Q,
        campaign: &Campaign,
        network: Option<&str>,
        now: OffsetDateTime,
        count: bool,
    ) -> Result<bool> {
        if campaign.audience != AudienceMode::Open || campaign.require_signed {
            return Ok(false);
        }
        if campaign.quality.require_challenge {
            return Ok(true);
        }
        let window = window_start(now);
        let rates = [
            network.map(|n| (format!("challenge:{}:{n}", campaign.id), self.policy.network_starts_per_hour)),
            Some((format!("challenge:{}", campaign.id), self.policy.campaign_starts_per_hour)),
        ];
        let mut required = false;
        for (subject, rate) in rates.into_iter().flatten() {
            let Some(rate) = rate else { continue };
            let starts = if count {
                counter.hit(&subject, COUNTED_AS, window).await?
            } else {
                // The start that reads this count would be one more.
                counter.count(&subject, COUNTED_AS, window).await?.saturating_add(1)
            };
            required |= starts > rate;
        }
        Ok(required)
    }

    /// A challenge for the campaign `code`, valid for the policy's lifetime from `now`.
    pub fn issue<W: ProofOfWork>(&self, pow: &W, code: &str, now: OffsetDateTime) -> Challenge {
        pow.issue(self.policy.work, code, now + self.policy.lifetime)
    }

    /// Checks a start's solution for the campaign `code` at `now`: present, bound to this
    /// campaign, not expired, signed by this service and solved. Whether it was spent already is
    /// decided when the session is written.
    ///
    /// # Errors
    /// `ChallengeRequired` saying which of those failed (never echoing the solution).
    pub fn check<W: ProofOfWork, C: Crypto>(
        &self,
        pow: &W,
        crypto: &C,
        code: &str,
        now: OffsetDateTime,
        solved: Option<&SolvedChallenge>,
    ) -> Result<SpentChallenge> {
        let Some(solved) = solved else {
            return Err(challenge_required("this campaign asks for a solved challenge at start"));
        };
        if solved.challenge.code() != Some(code) {
            return Err(challenge_required("the challenge belongs to another campaign"));
        }
        let expires_at = OffsetDateTime::from_unix_timestamp(solved.challenge.parameters.expires_at)
            .ok()
            .filter(|at| *at > now)
            .ok_or_else(|| challenge_required("the challenge has expired"))?;
        if !pow.verify(solved) {
            return Err(challenge_required("the challenge is not one of ours, or its solution is wrong"));
        }
        // The nonce is under the signature, so it has one spelling, and it is drawn per challenge.
        let fingerprint = crypto.sha256(solved.challenge.parameters.nonce.as_bytes()).to_vec();
        Ok(SpentChallenge { fingerprint, expires_at })
    }
}
