//! ALTCHA proof of work (its v2 protocol, deterministic mode) under keys derived from the master
//! key.
//!
//! Written here rather than taken from the `altcha` crate, whose verification reads the system
//! time: expiry is the domain's to judge by its clock. The crate's own solver and verifier check
//! this implementation in the tests.

use std::collections::BTreeMap;
use std::num::NonZeroU32;

use pulse_domain::challenges::models::{
    ALGORITHM, CODE_DATA, Challenge, ChallengeParameters, ChallengeWork, KEY_LENGTH, SolvedChallenge,
};
use pulse_domain::challenges::ports::ProofOfWork;
use pulse_domain::shared::crypto::DigestPurpose;
use pulse_domain::shared::hex;
use ring::{hmac, pbkdf2};
use serde::Serialize;
use time::OffsetDateTime;

use crate::master_key::RingCrypto;

/// The parameters as ALTCHA signs them: keys in sorted order, unset ones left out.
#[derive(Serialize)]
struct CanonicalParameters<'a> {
    algorithm: &'a str,
    cost: u32,
    data: &'a BTreeMap<String, String>,
    #[serde(rename = "expiresAt")]
    expires_at: i64,
    #[serde(rename = "keyLength")]
    key_length: u32,
    #[serde(rename = "keyPrefix")]
    key_prefix: &'a str,
    #[serde(rename = "keySignature", skip_serializing_if = "Option::is_none")]
    key_signature: Option<&'a str>,
    nonce: &'a str,
    salt: &'a str,
}

/// The text ALTCHA's signature covers: the parameters as JSON with sorted keys and no spaces.
fn canonical(p: &ChallengeParameters) -> Vec<u8> {
    let canonical = CanonicalParameters {
        algorithm: &p.algorithm,
        cost: p.cost,
        data: &p.data,
        expires_at: p.expires_at,
        key_length: p.key_length,
        key_prefix: &p.key_prefix,
        key_signature: p.key_signature.as_deref(),
        nonce: &p.nonce,
        salt: &p.salt,
    };
    // A struct of strings and integers always serializes.
    serde_json::to_vec(&canonical).unwrap_or_default()
}

/// The key a solver derives for `counter`: PBKDF2-HMAC-SHA256 of the nonce followed by the
/// counter (big-endian), salted with the salt.
fn derive(nonce: &[u8], salt: &[u8], iterations: NonZeroU32, counter: u32) -> [u8; KEY_LENGTH as usize] {
    let password = [nonce, &counter.to_be_bytes()].concat();
    let mut key = [0u8; KEY_LENGTH as usize];
    pbkdf2::derive(pbkdf2::PBKDF2_HMAC_SHA256, iterations, salt, &password, &mut key);
    key
}

impl ProofOfWork for RingCrypto {
    fn issue(&self, work: ChallengeWork, code: &str, expires_at: OffsetDateTime) -> Challenge {
        let mut nonce = [0u8; 16];
        let mut salt = [0u8; 16];
        let mut draw = [0u8; 4];
        self.fill(&mut nonce);
        self.fill(&mut salt);
        self.fill(&mut draw);
        let low = work.max_tries / 2;
        let counter = low + u32::from_be_bytes(draw) % (work.max_tries - low + 1);
        let iterations = NonZeroU32::new(work.iterations).unwrap_or(NonZeroU32::MIN);
        let key = derive(&nonce, &salt, iterations, counter);
        let parameters = ChallengeParameters {
            algorithm: ALGORITHM.to_owned(),
            cost: iterations.get(),
            data: BTreeMap::from([(CODE_DATA.to_owned(), code.to_owned())]),
            expires_at: expires_at.unix_timestamp(),
            key_length: KEY_LENGTH,
            key_prefix: hex::encode(&key[..KEY_LENGTH as usize / 2]),
            key_signature: Some(hex::encode(hmac::sign(self.digest_key(DigestPurpose::ChallengeKey), &key).as_ref())),
            nonce: hex::encode(&nonce),
            salt: hex::encode(&salt),
        };
        let signature = hex::encode(
            hmac::sign(self.digest_key(DigestPurpose::ChallengeSignature), &canonical(&parameters)).as_ref(),
        );
        Challenge { parameters, signature }
    }

    fn verify(&self, solved: &SolvedChallenge) -> bool {
        let challenge = &solved.challenge;
        // Only the signature as issued: another spelling of the same bytes (upper-case hex) would
        // pass for a challenge not spent yet.
        let issued = hex::decode(&challenge.signature).filter(|bytes| hex::encode(bytes) == challenge.signature);
        let signed = issued.is_some_and(|signature| {
            hmac::verify(
                self.digest_key(DigestPurpose::ChallengeSignature),
                &canonical(&challenge.parameters),
                &signature,
            )
            .is_ok()
        });
        // The key signature is ours once the parameters are: checking the derived key against it
        // costs one HMAC, where deriving it again would cost the solver's every iteration.
        let solved_key = match (
            challenge.parameters.key_signature.as_deref().and_then(hex::decode),
            hex::decode(&solved.solution.derived_key),
        ) {
            (Some(key_signature), Some(key)) => {
                hmac::verify(self.digest_key(DigestPurpose::ChallengeKey), &key, &key_signature).is_ok()
            }
            _ => false,
        };
        signed && solved_key
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use pulse_domain::challenges::models::Solution;
    use time::macros::datetime;

    use super::*;
    use crate::master_key::MasterKey;

    const WORK: ChallengeWork = ChallengeWork { iterations: 1_000, max_tries: 40 };

    fn ring(byte: u8) -> RingCrypto {
        RingCrypto::new(&MasterKey::from_base64(&STANDARD.encode([byte; 32])).expect("key"))
    }

    fn issued(crypto: &RingCrypto) -> Challenge {
        crypto.issue(WORK, "spring-pulse", datetime!(2026-03-02 10:10 UTC))
    }

    /// The challenge as ALTCHA's own crate reads it from the wire.
    fn as_altcha(challenge: &Challenge) -> altcha::Challenge {
        let p = &challenge.parameters;
        let wire = serde_json::json!({
            "parameters": {
                "algorithm": p.algorithm, "cost": p.cost, "data": p.data, "expiresAt": p.expires_at,
                "keyLength": p.key_length, "keyPrefix": p.key_prefix, "keySignature": p.key_signature,
                "nonce": p.nonce, "salt": p.salt,
            },
            "signature": challenge.signature,
        });
        serde_json::from_value(wire).expect("an ALTCHA challenge")
    }

    /// Solved by ALTCHA's reference solver, as any client of the protocol would.
    fn solved_by_altcha(challenge: &Challenge) -> SolvedChallenge {
        let found = altcha::solve_challenge(altcha::SolveChallengeOptions::new(&as_altcha(challenge)))
            .expect("solvable")
            .expect("solved in time");
        SolvedChallenge {
            challenge: challenge.clone(),
            solution: Solution { counter: found.counter, derived_key: found.derived_key },
        }
    }

    #[test]
    fn altchas_solver_solves_a_challenge_and_the_solution_verifies() {
        let crypto = ring(7);
        let challenge = issued(&crypto);
        let p = &challenge.parameters;
        assert_eq!((p.algorithm.as_str(), p.cost, p.key_length), ("PBKDF2/SHA-256", 1_000, 32));
        assert_eq!(challenge.code(), Some("spring-pulse"));
        assert_eq!(p.expires_at, datetime!(2026-03-02 10:10 UTC).unix_timestamp());
        let solved = solved_by_altcha(&challenge);
        assert!(
            (WORK.max_tries / 2..=WORK.max_tries).contains(&solved.solution.counter),
            "{}",
            solved.solution.counter
        );
        assert!(crypto.verify(&solved));
    }

    #[test]
    fn the_counters_are_spread_over_the_upper_half_of_the_tries() {
        let crypto = ring(7);
        let counters: std::collections::BTreeSet<u32> =
            (0..12).map(|_| solved_by_altcha(&issued(&crypto)).solution.counter).collect();
        assert!(counters.iter().all(|c| (20..=40).contains(c)), "{counters:?}");
        assert!(counters.len() > 3, "drawn, not fixed: {counters:?}");
    }

    #[test]
    fn a_wrong_key_a_changed_parameter_or_another_servers_challenge_does_not_verify() {
        let crypto = ring(7);
        let solved = solved_by_altcha(&issued(&crypto));

        let mut wrong_key = solved.clone();
        wrong_key.solution.derived_key = hex::encode(&[0u8; 32]);
        assert!(!crypto.verify(&wrong_key));
        let mut not_hex = solved.clone();
        not_hex.solution.derived_key = "zz".to_owned();
        assert!(!crypto.verify(&not_hex));

        let changes: [fn(&mut ChallengeParameters); 5] = [
            |p| p.cost = 1,
            |p| p.expires_at += 3600,
            |p| {
                p.data.insert(CODE_DATA.to_owned(), "other-campaign".to_owned());
            },
            |p| p.key_prefix = "00".to_owned(),
            |p| p.key_signature = None,
        ];
        for change in changes {
            let mut changed = solved.clone();
            change(&mut changed.challenge.parameters);
            assert!(!crypto.verify(&changed), "{:?}", changed.challenge.parameters);
        }
        assert!(!ring(8).verify(&solved), "keys derived from another master key");

        let mut upper = solved;
        upper.challenge.signature = upper.challenge.signature.to_uppercase();
        assert!(!crypto.verify(&upper), "the signature only as issued, not another spelling of it");
    }

    #[test]
    fn the_signature_covers_the_parameters_as_altcha_writes_them() {
        let crypto = ring(7);
        let challenge = issued(&crypto);
        let altcha_json = serde_json::to_value(as_altcha(&challenge).parameters).expect("json");
        let ours: serde_json::Value = serde_json::from_slice(&canonical(&challenge.parameters)).expect("json");
        assert_eq!(ours, altcha_json);
        let text = String::from_utf8(canonical(&challenge.parameters)).expect("utf-8");
        let keys: Vec<&str> =
            ["algorithm", "cost", "data", "expiresAt", "keyLength", "keyPrefix", "keySignature", "nonce", "salt"]
                .into_iter()
                .collect();
        let positions: Vec<usize> = keys.iter().map(|k| text.find(&format!("\"{k}\"")).expect(k)).collect();
        assert!(positions.is_sorted(), "sorted keys: {text}");
        assert!(!text.contains(' '), "no spaces: {text}");
    }

    /// What a challenge costs at the default settings: issuing it here, checking a solution, and
    /// solving it with ALTCHA's solver (what `pulse_partner::challenge` runs). A measurement, not a
    /// test: `cargo test --release -p pulse-crypto measure_ -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement; run in release"]
    #[allow(clippy::print_stderr)] // The figures are the point, read off the test's output.
    fn measure_the_cost_of_a_challenge_at_the_default_settings() {
        let crypto = ring(7);
        let work = pulse_domain::challenges::models::ChallengePolicy::default().work;
        let runs = 40;
        let mut issue = std::time::Duration::ZERO;
        let mut verify = std::time::Duration::ZERO;
        let mut solve = Vec::new();
        for _ in 0..runs {
            let started = std::time::Instant::now();
            let challenge = crypto.issue(work, "spring-pulse", datetime!(2026-03-02 10:10 UTC));
            issue += started.elapsed();
            let started = std::time::Instant::now();
            let solved = solved_by_altcha(&challenge);
            solve.push(started.elapsed());
            let started = std::time::Instant::now();
            assert!(crypto.verify(&solved));
            verify += started.elapsed();
        }
        solve.sort();
        let total: std::time::Duration = solve.iter().sum();
        eprintln!(
            "{runs} challenges of {} iterations, up to {} tries: issue {:?} each, verify {:?} each, \
             solve median {:?}, slowest {:?}, mean {:?}: {:.2} solved starts per core-second",
            work.iterations,
            work.max_tries,
            issue / runs,
            verify / runs,
            solve[solve.len() / 2],
            solve[solve.len() - 1],
            total / runs,
            f64::from(runs) / total.as_secs_f64(),
        );
    }
}
