//! Fast, deterministic and deliberately insecure crypto for tests.
use pulse_domain::challenges::models::{
    ALGORITHM, CODE_DATA, Challenge, ChallengeParameters, ChallengeWork, KEY_LENGTH, Solution, SolvedChallenge,
};
use pulse_domain::challenges::ports::ProofOfWork;
use pulse_domain::error::{Error, Result};
use pulse_domain::shared::crypto::{Crypto, DigestPurpose};
use pulse_domain::shared::hex;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use time::OffsetDateTime;

/// A deterministic stand-in for the crypto adapter. NOT secure: its "encryption" only checks the
/// context, its digests are plain FNV hashes, and its [`Crypto::sha256`] is not SHA-256 at all
/// (it is an FNV-based 32-byte value, so fingerprints made with it match no real tool's). Use it
/// in tests, never in a running service.
#[derive(Clone, Debug, Default)]
pub struct TestCrypto {
    counter: Arc<Mutex<u64>>,
}

fn fnv(seed: u64, parts: &[&[u8]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64 ^ seed;
    for part in parts {
        for &b in *part {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
    }
    hash
}

impl TestCrypto {
    /// The stand-in for HMAC-SHA256 that [`Crypto::verify_hmac_sha256`] checks against here.
    pub fn hmac_sha256(key: &[u8], data: &[u8]) -> [u8; 32] {
        let mut out = [0_u8; 32];
        for (seed, chunk) in (0_u64..).zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&fnv(seed, &[b"not-hmac", key, data]).to_be_bytes());
        }
        out
    }
}

impl Crypto for TestCrypto {
    fn random_base62(&self, len: usize) -> String {
        const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut counter = self.counter.lock().unwrap_or_else(PoisonError::into_inner);
        (0..len)
            .map(|_| {
                *counter += 1;
                char::from(ALPHABET[(fnv(*counter, &[b"random"]) % 62) as usize])
            })
            .collect()
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (0..4u64).flat_map(|i| fnv(i, &[purpose.label().as_bytes(), input]).to_be_bytes()).collect()
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        self.keyed_digest(purpose, input) == expected
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        let mut out = fnv(0, &[context]).to_be_bytes().to_vec();
        out.extend(plaintext.iter().map(|b| b ^ 0x5a));
        out
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        match sealed.split_at_checked(8) {
            Some((tag, body)) if tag == fnv(0, &[context]).to_be_bytes() => Ok(body.iter().map(|b| b ^ 0x5a).collect()),
            _ => Err(Error::internal("sealed data does not belong to this context")),
        }
    }

    /// NOT SHA-256: a deterministic 32-byte FNV mix of `data` (the domain crate takes no crypto
    /// dependency). Equal inputs give equal outputs, different inputs almost surely different ones.
    fn sha256(&self, data: &[u8]) -> [u8; 32] {
        let mut out = [0_u8; 32];
        for (seed, chunk) in (0_u64..).zip(out.chunks_exact_mut(8)) {
            chunk.copy_from_slice(&fnv(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), &[b"not-sha256", data]).to_be_bytes());
        }
        out
    }

    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool {
        Self::hmac_sha256(key, data).as_slice() == expected
    }

    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        Self::hmac_sha256(key, data)
    }
}

/// Challenges shaped like ALTCHA's, with FNV standing in for PBKDF2 and HMAC: fast, and only as
/// hard to forge as the rest of this fake.
impl ProofOfWork for TestCrypto {
    fn issue(&self, work: ChallengeWork, code: &str, expires_at: OffsetDateTime) -> Challenge {
        let nonce = hex::encode(self.random_base62(16).as_bytes());
        let counter = work.max_tries / 2;
        let key = fake_key(&nonce, counter);
        let parameters = ChallengeParameters {
            algorithm: ALGORITHM.to_owned(),
            cost: work.iterations,
            data: BTreeMap::from([(CODE_DATA.to_owned(), code.to_owned())]),
            expires_at: expires_at.unix_timestamp(),
            key_length: KEY_LENGTH,
            key_prefix: hex::encode(&key[..16]),
            key_signature: Some(hex::encode(&self.keyed_digest(DigestPurpose::ChallengeKey, &key))),
            salt: hex::encode(self.random_base62(16).as_bytes()),
            nonce,
        };
        let signature =
            hex::encode(&self.keyed_digest(DigestPurpose::ChallengeSignature, format!("{parameters:?}").as_bytes()));
        Challenge { parameters, signature }
    }

    fn verify(&self, solved: &SolvedChallenge) -> bool {
        let p = &solved.challenge.parameters;
        let signed = hex::encode(&self.keyed_digest(DigestPurpose::ChallengeSignature, format!("{p:?}").as_bytes()))
            == solved.challenge.signature;
        let solved_key = hex::decode(&solved.solution.derived_key).is_some_and(|key| {
            Some(hex::encode(&self.keyed_digest(DigestPurpose::ChallengeKey, &key))) == p.key_signature
        });
        signed && solved_key
    }
}

impl TestCrypto {
    /// Solves a challenge of [`TestCrypto`]'s the way a client does: counting up from zero.
    pub fn solve(challenge: &Challenge) -> SolvedChallenge {
        let p = &challenge.parameters;
        let counter =
            (0..=u32::MAX).find(|c| hex::encode(&fake_key(&p.nonce, *c)[..16]) == p.key_prefix).unwrap_or_default();
        SolvedChallenge {
            challenge: challenge.clone(),
            solution: Solution { counter, derived_key: hex::encode(&fake_key(&p.nonce, counter)) },
        }
    }
}

fn fake_key(nonce: &str, counter: u32) -> Vec<u8> {
    (0..4u64).flat_map(|i| fnv(i, &[b"not-pbkdf2", nonce.as_bytes(), &counter.to_be_bytes()]).to_be_bytes()).collect()
}
