use std::collections::HashMap;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use pulse_domain::shared::crypto::{Crypto, DigestPurpose};
use pulse_domain::{Error, Result};
use rand::Rng as _;
use ring::rand::{SecureRandom, SystemRandom};
use ring::{digest, hkdf, hmac};
use secrecy::{ExposeSecret, SecretBox};

const HKDF_SALT: &[u8] = b"pulse/hkdf-salt/v1";
const ENCRYPTION_LABEL: &str = "pulse/pii-encryption/v1";
const KEY_ID_LABEL: &str = "pulse/key-id/v1";
const SEALED_VERSION: u8 = 1;
const KEY_ID_LEN: usize = 4;
const NONCE_LEN: usize = 24;
/// Where the nonce starts in a sealed value, after its version and key id.
const NONCE_AT: usize = 1 + KEY_ID_LEN;

#[derive(Debug, thiserror::Error)]
pub enum MasterKeyError {
    #[error("the master key is not valid base64")]
    NotBase64,
    #[error("the master key must be 32 bytes, got {0}")]
    WrongLength(usize),
}

/// The one server secret every other server key is derived from (HKDF-SHA256, a label a purpose).
pub struct MasterKey(SecretBox<[u8; 32]>);

impl MasterKey {
    /// # Errors
    /// When `text` is not base64 of exactly 32 bytes. The error never contains the text.
    pub fn from_base64(text: &str) -> Result<Self, MasterKeyError> {
        let bytes = STANDARD.decode(text.trim()).map_err(|_| MasterKeyError::NotBase64)?;
        let array: [u8; 32] = bytes.as_slice().try_into().map_err(|_| MasterKeyError::WrongLength(bytes.len()))?;
        Ok(Self(SecretBox::new(Box::new(array))))
    }

    /// A fresh random key, base64-encoded, for `pulse serve --dev`.
    ///
    /// # Panics
    /// When the operating system's random generator fails, which leaves nothing safe to do.
    pub fn generate_base64() -> String {
        let mut bytes = [0u8; 32];
        #[allow(clippy::expect_used)]
        SystemRandom::new().fill(&mut bytes).expect("the OS random generator failed");
        STANDARD.encode(bytes)
    }

    pub(crate) fn derive(&self, label: &str) -> [u8; 32] {
        struct Len32;
        impl hkdf::KeyType for Len32 {
            fn len(&self) -> usize {
                32
            }
        }
        let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, HKDF_SALT).extract(self.0.expose_secret());
        let info = [label.as_bytes()];
        let mut out = [0u8; 32];
        // HKDF-Expand of 32 bytes from SHA-256 cannot fail (the limit is 255 * 32 bytes).
        #[allow(clippy::expect_used)]
        prk.expand(&info, Len32).and_then(|okm| okm.fill(&mut out)).expect("32-byte HKDF output");
        out
    }
}

struct SealingKey {
    id: [u8; KEY_ID_LEN],
    cipher: XChaCha20Poly1305,
}

impl SealingKey {
    fn from_master(master: &MasterKey) -> Self {
        let key = master.derive(ENCRYPTION_LABEL);
        let id_digest = digest::digest(&digest::SHA256, &[KEY_ID_LABEL.as_bytes(), &key].concat());
        let mut id = [0u8; KEY_ID_LEN];
        id.copy_from_slice(&id_digest.as_ref()[..KEY_ID_LEN]);
        Self { id, cipher: XChaCha20Poly1305::new(&key.into()) }
    }
}

/// The production [`Crypto`] adapter: ring for HKDF, HMAC and the randomness of secrets;
/// XChaCha20-Poly1305 for data at rest, its nonces from rand's thread-local ChaCha generator.
///
/// Secrets (keys, tokens) are drawn from the operating system. A nonce only has to be unique and
/// unpredictable, so it comes from a generator the operating system seeds and reseeds every 64 KiB,
/// which spares a system call on every sealed token (two per heartbeat).
///
/// Sealed data is `version (1) | key id (4) | nonce (24) | ciphertext+tag`; the key id and the
/// caller's context (the row the data belongs to) are the associated data, so a ciphertext moved
/// to another row does not open, and data sealed under another master key is recognised as such.
pub struct RingCrypto {
    rng: SystemRandom,
    digest_keys: HashMap<DigestPurpose, hmac::Key>,
    sealing: SealingKey,
}

impl RingCrypto {
    pub fn new(master: &MasterKey) -> Self {
        let digest_keys = DigestPurpose::ALL
            .into_iter()
            .map(|p| (p, hmac::Key::new(hmac::HMAC_SHA256, &master.derive(p.label()))))
            .collect();
        Self { rng: SystemRandom::new(), digest_keys, sealing: SealingKey::from_master(master) }
    }

    pub(crate) fn digest_key(&self, purpose: DigestPurpose) -> &hmac::Key {
        // Every purpose gets a key in `new`; a missing one is a programming error caught by tests.
        #[allow(clippy::expect_used)]
        self.digest_keys.get(&purpose).expect("a key for every digest purpose")
    }

    pub(crate) fn fill(&self, bytes: &mut [u8]) {
        // Without randomness no key, token or nonce is safe to hand out: stopping is the only option.
        #[allow(clippy::expect_used)]
        self.rng.fill(bytes).expect("the OS random generator failed");
    }
}

fn aad(key_id: &[u8], context: &[u8]) -> Vec<u8> {
    [key_id, context].concat()
}

impl Crypto for RingCrypto {
    fn random_base62(&self, len: usize) -> String {
        const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut out = String::with_capacity(len);
        let mut buf = [0u8; 64];
        while out.len() < len {
            self.fill(&mut buf);
            // Rejection sampling: 248 = 4 * 62, so the bytes kept are uniform modulo 62.
            for &b in buf.iter().filter(|&&b| b < 248) {
                if out.len() == len {
                    break;
                }
                out.push(char::from(ALPHABET[usize::from(b % 62)]));
            }
        }
        out
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        hmac::sign(self.digest_key(purpose), input).as_ref().to_vec()
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        hmac::verify(self.digest_key(purpose), input, expected).is_ok()
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::rng().fill_bytes(&mut nonce);
        let payload = Payload { msg: plaintext, aad: &aad(&self.sealing.id, context) };
        // Encryption fails only for plaintexts beyond 256 GiB, which no caller sends.
        #[allow(clippy::expect_used)]
        let ciphertext = self.sealing.cipher.encrypt(XNonce::from_slice(&nonce), payload).expect("encrypt");
        let mut out = Vec::with_capacity(NONCE_AT + NONCE_LEN + ciphertext.len());
        out.push(SEALED_VERSION);
        out.extend_from_slice(&self.sealing.id);
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ciphertext);
        out
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        let header = NONCE_AT + NONCE_LEN;
        if sealed.len() < header || sealed[0] != SEALED_VERSION {
            return Err(Error::internal("sealed data has an unknown format"));
        }
        let key_id = &sealed[1..=KEY_ID_LEN];
        if key_id != self.sealing.id {
            return Err(Error::internal("sealed data is under a master key this process does not hold"));
        }
        let nonce = XNonce::from_slice(&sealed[NONCE_AT..header]);
        self.sealing
            .cipher
            .decrypt(nonce, Payload { msg: &sealed[header..], aad: &aad(key_id, context) })
            .map_err(|_| Error::internal("sealed data failed authentication"))
    }

    fn sha256(&self, data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        out.copy_from_slice(digest::digest(&digest::SHA256, data).as_ref());
        out
    }

    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool {
        hmac::verify(&hmac::Key::new(hmac::HMAC_SHA256, key), data, expected).is_ok()
    }

    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        let mut out = [0_u8; 32];
        out.copy_from_slice(hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, key), data).as_ref());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn master(byte: u8) -> MasterKey {
        MasterKey::from_base64(&STANDARD.encode([byte; 32])).expect("key")
    }

    #[test]
    fn master_keys_must_be_32_bytes_of_base64() {
        assert!(matches!(MasterKey::from_base64("not base64!"), Err(MasterKeyError::NotBase64)));
        assert!(matches!(MasterKey::from_base64(&STANDARD.encode([1u8; 16])), Err(MasterKeyError::WrongLength(16))));
        assert!(MasterKey::from_base64(&MasterKey::generate_base64()).is_ok());
    }

    #[test]
    fn random_base62_has_the_length_and_alphabet() {
        let crypto = RingCrypto::new(&master(1));
        let a = crypto.random_base62(43);
        assert_eq!(a.len(), 43);
        assert!(a.bytes().all(|b| b.is_ascii_alphanumeric()));
        assert_ne!(a, crypto.random_base62(43));
    }

    #[test]
    fn digests_are_keyed_by_master_and_purpose() {
        let one = RingCrypto::new(&master(1));
        let two = RingCrypto::new(&master(2));
        let d = one.keyed_digest(DigestPurpose::ApiKey, b"svc_x");
        assert!(one.verify_keyed_digest(DigestPurpose::ApiKey, b"svc_x", &d));
        assert!(!one.verify_keyed_digest(DigestPurpose::ApiKey, b"svc_y", &d));
        assert!(!one.verify_keyed_digest(DigestPurpose::IdempotencyFingerprint, b"svc_x", &d));
        assert!(!two.verify_keyed_digest(DigestPurpose::ApiKey, b"svc_x", &d));
    }

    #[test]
    fn sealed_data_opens_only_in_its_context_and_under_a_held_key() {
        let crypto = RingCrypto::new(&master(1));
        let sealed = crypto.seal(b"row-1", b"ada@example.com");
        assert!(!sealed.windows(5).any(|w| w == b"ada@e"));
        assert_eq!(crypto.open(b"row-1", &sealed).expect("open"), b"ada@example.com");
        assert!(crypto.open(b"row-2", &sealed).is_err());
        let mut tampered = sealed.clone();
        let last = tampered.len() - 1;
        tampered[last] ^= 1;
        assert!(crypto.open(b"row-1", &tampered).is_err());
        assert!(RingCrypto::new(&master(2)).open(b"row-1", &sealed).is_err());
    }

    #[test]
    fn every_seal_takes_a_fresh_nonce_on_every_thread() {
        let crypto = RingCrypto::new(&master(1));
        let nonces_of_one_thread = || -> Vec<Vec<u8>> {
            (0..500).map(|_| crypto.seal(b"row-1", b"same")[NONCE_AT..][..NONCE_LEN].to_vec()).collect()
        };
        let nonces: std::collections::HashSet<Vec<u8>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4).map(|_| scope.spawn(nonces_of_one_thread)).collect();
            threads.into_iter().flat_map(|t| t.join().expect("a sealing thread")).collect()
        });
        assert_eq!(nonces.len(), 2_000);
    }
}
