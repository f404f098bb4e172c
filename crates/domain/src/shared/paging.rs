//! Cursor paging of lists: keyset order on an immutable, increasing position (the order items were
//! created in), so items added while a partner pages land on later pages and never shift one; and
//! opaque cursors carrying a MAC, so a tampered one is refused.

use crate::error::{Error, Result};
use crate::shared::crypto::{Crypto, DigestPurpose, macs_equal};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

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
        if !macs_equal(&expected, mac) {
            return None;
        }
        Some(PageKey { position: i64::from_be_bytes(payload.try_into().ok()?) })
    }
}
