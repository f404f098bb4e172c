//! Cursor paging of lists: keyset order on an immutable, increasing position (the order items were
//! created in), so items added while a partner pages land on later pages and never shift one; and
//! opaque cursors carrying a MAC, so a tampered one is refused.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::{Error, Result};
use crate::ports::{Crypto, DigestPurpose};

pub const DEFAULT_PAGE_SIZE: u32 = 50;
pub const MAX_PAGE_SIZE: u32 = 200;
const MAC_LEN: usize = 16;

/// Where a page starts: strictly after the item at this position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PageKey {
    pub position: i64,
}

/// A page request as validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: u32,
    pub after: Option<PageKey>,
}

/// One page of a list and the cursor of the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// Signs and reads the cursors of one list. `list` names the list and its owner (e.g.
/// `devices/<workspace>`): a cursor of one list is refused by every other.
pub struct Cursors<'a, C> {
    crypto: &'a C,
    list: String,
}

impl<'a, C: Crypto> Cursors<'a, C> {
    pub fn new(crypto: &'a C, list: String) -> Self {
        Self { crypto, list }
    }

    /// Validates `limit` (default 50, 1 to 200) and `cursor`.
    ///
    /// # Errors
    /// `ValidationFailed` naming `limit` or `cursor`.
    pub fn request(&self, limit: Option<&str>, cursor: Option<&str>) -> Result<PageRequest> {
        let limit = match limit {
            None => DEFAULT_PAGE_SIZE,
            Some(text) => {
                text.parse::<u32>().ok().filter(|l| (1..=MAX_PAGE_SIZE).contains(l)).ok_or_else(|| {
                    Error::validation("limit", format!("must be an integer from 1 to {MAX_PAGE_SIZE}"))
                })?
            }
        };
        let after = match cursor {
            None => None,
            Some(text) => Some(self.read(text).ok_or_else(|| {
                Error::validation("cursor", "is not a cursor of this list; pass `nextCursor` back as it was given")
            })?),
        };
        Ok(PageRequest { limit, after })
    }

    /// The page of `rows` (fetched with `limit + 1` to learn whether more follow).
    pub fn page<T>(&self, request: &PageRequest, mut rows: Vec<T>, key: impl Fn(&T) -> PageKey) -> Page<T> {
        let limit = usize::try_from(request.limit).unwrap_or(usize::MAX);
        let more = rows.len() > limit;
        rows.truncate(limit);
        let next_cursor = if more { rows.last().map(|last| self.write(key(last))) } else { None };
        Page { items: rows, next_cursor }
    }

    fn mac(&self, payload: &[u8]) -> Vec<u8> {
        let mut input = self.list.as_bytes().to_vec();
        input.push(0);
        input.extend_from_slice(payload);
        let mut mac = self.crypto.keyed_digest(DigestPurpose::Cursor, &input);
        mac.truncate(MAC_LEN);
        mac
    }

    fn write(&self, key: PageKey) -> String {
        let mut payload = key.position.to_be_bytes().to_vec();
        let mac = self.mac(&payload);
        payload.extend_from_slice(&mac);
        URL_SAFE_NO_PAD.encode(payload)
    }

    fn read(&self, text: &str) -> Option<PageKey> {
        let bytes = URL_SAFE_NO_PAD.decode(text).ok()?;
        if bytes.len() != 8 + MAC_LEN {
            return None;
        }
        let (payload, mac) = bytes.split_at(8);
        let expected = self.mac(payload);
        // The MAC is not a secret of the caller's, but compare without early exit all the same.
        if expected.iter().zip(mac).fold(0_u8, |acc, (a, b)| acc | (a ^ b)) != 0 {
            return None;
        }
        Some(PageKey { position: i64::from_be_bytes(payload.try_into().ok()?) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::TestCrypto;

    #[test]
    fn cursors_round_trip_and_refuse_tampering_and_other_lists() {
        let crypto = TestCrypto::default();
        let devices = Cursors::new(&crypto, "devices/a".into());
        let key = PageKey { position: 41 };
        let request = PageRequest { limit: 1, after: None };
        let page = devices.page(&request, vec![key, key], |k| *k);
        let cursor = page.next_cursor.expect("a second page");
        assert_eq!(devices.request(None, Some(&cursor)).expect("valid").after, Some(key));

        let other = Cursors::new(&crypto, "devices/b".into());
        assert!(other.request(None, Some(&cursor)).is_err());
        let mut tampered = cursor.into_bytes();
        tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).expect("ascii");
        assert!(devices.request(None, Some(&tampered)).is_err());
        assert!(devices.request(None, Some("not a cursor")).is_err());
    }

    #[test]
    fn limits_default_to_fifty_and_stay_within_two_hundred() {
        let crypto = TestCrypto::default();
        let cursors = Cursors::new(&crypto, "x".into());
        assert_eq!(cursors.request(None, None).expect("default").limit, 50);
        assert_eq!(cursors.request(Some("200"), None).expect("max").limit, 200);
        for bad in ["0", "201", "-1", "ten"] {
            assert!(cursors.request(Some(bad), None).is_err(), "{bad}");
        }
        let last = cursors.page(&PageRequest { limit: 2, after: None }, vec![1, 2], |p| PageKey { position: *p });
        assert_eq!(last.next_cursor, None);
    }
}
