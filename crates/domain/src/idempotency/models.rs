//! `Idempotency-Key` handling for every POST route that honours it.
//!
//! A key is scoped (per API key, or per campaign code for app routes) and remembered for 24 hours.
//! The first request claims it; a later one with the same body replays the stored response; a
//! different body, or a request that arrives while the first is still running, is a `CONFLICT`.
//! Refused or failed requests release the key, so a corrected retry may use it again.

use crate::error::{Error, Result};
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// The outcome of claiming an idempotency key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// This request owns the key now and must complete or release it.
    Claimed,
    /// Another request with this key finished; its response is stored.
    Completed { fingerprint: Vec<u8>, status: u16, sealed_body: Vec<u8> },
    /// Another request with this key is still running.
    InFlight { fingerprint: Vec<u8> },
}

/// A request to claim an idempotency key.
#[derive(Clone, Copy, Debug)]
pub struct ClaimRequest<'a> {
    pub scope: &'a str,
    pub key: &'a str,
    /// Names the claiming request: only it may complete or release the claim.
    pub token: Uuid,
    pub fingerprint: &'a [u8],
    pub now: OffsetDateTime,
    /// Records created before this are expired and taken over.
    pub expired_before: OffsetDateTime,
    /// In-flight records claimed before this are presumed dead and taken over.
    pub stale_before: OffsetDateTime,
}

pub const REPLAY_WINDOW: Duration = Duration::HOUR.saturating_mul(24);

/// An in-flight claim older than this is presumed dead and may be taken over; the request that
/// held it can then neither complete nor release it.
pub const STALE_CLAIM: Duration = Duration::MINUTE;

pub const MAX_KEY_LEN: usize = 255;

/// A validated `Idempotency-Key` header value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// # Errors
    /// `ValidationFailed` when empty, longer than 255 characters, or not printable ASCII.
    pub fn parse(text: &str) -> Result<Self> {
        if text.is_empty() || text.len() > MAX_KEY_LEN {
            return Err(Error::validation("Idempotency-Key", format!("must be 1 to {MAX_KEY_LEN} characters")));
        }
        if !text.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
            return Err(Error::validation("Idempotency-Key", "must be printable ASCII"));
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A response as it is stored and replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

/// What a request produced: the answer for this caller, and what a replay of it should say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completed<T> {
    pub value: T,
    pub replay: StoredResponse,
}

/// The result of running an operation under a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Idempotent<T> {
    Fresh(T),
    Replayed(StoredResponse),
}
