//! The API key text format: `svc_<prefix>_<secret>`.
//!
//! The prefix (10 base62 characters) is public and used to look the key up. The secret is 43 random
//! base62 characters (about 256 bits) followed by a 6-character base62 CRC-32 of everything before
//! it, as GitHub's token format does: a mistyped or truncated key is refused without a database
//! round trip, and secret scanners can tell a real key from look-alike text.

use secrecy::{ExposeSecret, SecretString};

pub const KEY_BRAND: &str = "svc_";

pub const PREFIX_LEN: usize = 10;

pub const SECRET_RANDOM_LEN: usize = 43;

const CHECKSUM_LEN: usize = 6;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A key whose shape and checksum are right; whether it exists is for the repository to say.
#[derive(Debug)]
pub struct WellFormedKey {
    prefix: String,
    full: SecretString,
}

impl WellFormedKey {
    /// Checks the brand, the lengths, the alphabet and the checksum.
    pub fn parse(presented: &str) -> Option<Self> {
        let rest = presented.strip_prefix(KEY_BRAND)?;
        let (prefix, secret) = rest.split_once('_')?;
        if prefix.len() != PREFIX_LEN
            || secret.len() != SECRET_RANDOM_LEN + CHECKSUM_LEN
            || !is_base62(prefix)
            || !is_base62(secret)
        {
            return None;
        }
        let (body, checksum) = presented.split_at(presented.len() - CHECKSUM_LEN);
        if checksum_of(body) != checksum {
            return None;
        }
        Some(Self { prefix: prefix.to_owned(), full: SecretString::from(presented.to_owned()) })
    }

    /// Builds a key from random base62 parts, appending the checksum.
    ///
    /// # Panics
    /// Never for parts of the documented lengths drawn from the base62 alphabet, which is what the
    /// crypto port's `random_base62` returns; other input is a programming error.
    pub fn assemble(prefix: &str, secret_random: &str) -> Self {
        assert!(prefix.len() == PREFIX_LEN && is_base62(prefix), "bad key prefix");
        assert!(secret_random.len() == SECRET_RANDOM_LEN && is_base62(secret_random), "bad key secret");
        let body = format!("{KEY_BRAND}{prefix}_{secret_random}");
        let full = format!("{body}{}", checksum_of(&body));
        Self { prefix: prefix.to_owned(), full: SecretString::from(full) }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub fn secret(&self) -> &SecretString {
        &self.full
    }

    pub fn into_secret(self) -> SecretString {
        self.full
    }

    pub fn expose_bytes(&self) -> &[u8] {
        self.full.expose_secret().as_bytes()
    }
}

fn is_base62(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric())
}

fn checksum_of(body: &str) -> String {
    let mut value = u64::from(crc32fast::hash(body.as_bytes()));
    let mut out = [b'0'; CHECKSUM_LEN];
    for slot in out.iter_mut().rev() {
        *slot = BASE62[(value % 62) as usize];
        value /= 62;
    }
    out.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PREFIX: &str = "AbCdEf1234";
    const SECRET: &str = "0123456789abcdefghijABCDEFGHIJ0123456789xyz";

    #[test]
    fn assembled_keys_parse_back() {
        let key = WellFormedKey::assemble(PREFIX, SECRET);
        let text = key.secret().expose_secret().to_owned();
        assert!(text.starts_with("svc_AbCdEf1234_"));
        let parsed = WellFormedKey::parse(&text).expect("well formed");
        assert_eq!(parsed.prefix(), PREFIX);
    }

    #[test]
    fn one_changed_character_fails_the_checksum() {
        let text = WellFormedKey::assemble(PREFIX, SECRET).secret().expose_secret().to_owned();
        let mut bytes = text.into_bytes();
        let at = 20;
        bytes[at] = if bytes[at] == b'a' { b'b' } else { b'a' };
        let mistyped = String::from_utf8(bytes).expect("ascii");
        assert!(WellFormedKey::parse(&mistyped).is_none());
    }

    #[test]
    fn wrong_shapes_are_refused() {
        for text in ["", "svc_", "svc_short_secret", "ghp_AbCdEf1234_x", "svc_AbCdEf1234", "svc_AbCdEf!234_abc"] {
            assert!(WellFormedKey::parse(text).is_none(), "{text}");
        }
    }
}
