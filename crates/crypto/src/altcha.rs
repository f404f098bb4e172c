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
        let signed = hex::decode(&challenge.signature).is_some_and(|signature| {
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
