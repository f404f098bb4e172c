//! The crypto port: randomness, keyed digests and authenticated encryption.
use crate::error::Result;

/// What a keyed digest is for: each purpose is keyed separately, so a digest made for one can
/// never be replayed as another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DigestPurpose {
    ApiKey,
    IdempotencyFingerprint,
    /// `/s/<code>/<nonce>` link nonces, looked up by digest.
    LinkNonce,
    /// Respondent session tokens.
    SessionToken,
    /// Partners' user references (`externalUserRef`, a token's `uid`): kept only as this digest.
    ExternalUser,
    /// App refresh tokens.
    RefreshToken,
    /// `vendorDeviceId`s, looked up by digest.
    VendorDevice,
    /// App users' ids, derived from the workspace and the partner's `externalId`.
    AppUser,
    /// The MAC of list cursors.
    Cursor,
    /// What an analyzer read (language and text), so a re-run knows an unchanged answer.
    AnalysisInput,
    /// The MAC of export download links.
    DownloadLink,
    /// Outreach addresses (normalised), so opt-outs and STOP replies match without the address.
    OutreachAddress,
    /// The MAC of one-click unsubscribe links.
    Unsubscribe,
    /// Key phrases of answers, bound to their campaign, so results group themes without the words.
    ResultsPhrase,
    /// Audience references (`externalRef`), bound to their campaign: unique and looked up by this
    /// digest, so the reference itself is kept only sealed.
    RespondentRef,
    /// The voice provider's references of recordings, so a reported recording is stored once
    /// while the reference itself is kept only sealed.
    RecordingRef,
    /// The signature of proof-of-work challenges' parameters.
    ChallengeSignature,
    /// The signature of a challenge's derived key, so a solution is checked without deriving it.
    ChallengeKey,
}

impl DigestPurpose {
    /// Every purpose: a crypto adapter derives one key for each.
    pub const ALL: [DigestPurpose; 18] = [
        DigestPurpose::ApiKey,
        DigestPurpose::IdempotencyFingerprint,
        DigestPurpose::LinkNonce,
        DigestPurpose::SessionToken,
        DigestPurpose::ExternalUser,
        DigestPurpose::RefreshToken,
        DigestPurpose::VendorDevice,
        DigestPurpose::AppUser,
        DigestPurpose::Cursor,
        DigestPurpose::AnalysisInput,
        DigestPurpose::DownloadLink,
        DigestPurpose::OutreachAddress,
        DigestPurpose::Unsubscribe,
        DigestPurpose::ResultsPhrase,
        DigestPurpose::RespondentRef,
        DigestPurpose::RecordingRef,
        DigestPurpose::ChallengeSignature,
        DigestPurpose::ChallengeKey,
    ];

    pub const fn label(self) -> &'static str {
        match self {
            DigestPurpose::ApiKey => "pulse/api-key-digest/v1",
            DigestPurpose::IdempotencyFingerprint => "pulse/idempotency-fingerprint/v1",
            DigestPurpose::LinkNonce => "pulse/link-nonce/v1",
            DigestPurpose::SessionToken => "pulse/session-token/v1",
            DigestPurpose::ExternalUser => "pulse/external-user/v1",
            DigestPurpose::RefreshToken => "pulse/refresh-token/v1",
            DigestPurpose::VendorDevice => "pulse/vendor-device/v1",
            DigestPurpose::AppUser => "pulse/app-user/v1",
            DigestPurpose::Cursor => "pulse/cursor/v1",
            DigestPurpose::AnalysisInput => "pulse/analysis-input/v1",
            DigestPurpose::DownloadLink => "pulse/download-link/v1",
            DigestPurpose::OutreachAddress => "pulse/outreach-address/v1",
            DigestPurpose::Unsubscribe => "pulse/unsubscribe-link/v1",
            DigestPurpose::ResultsPhrase => "pulse/results-phrase/v1",
            DigestPurpose::RespondentRef => "pulse/respondent-ref/v1",
            DigestPurpose::RecordingRef => "pulse/recording-ref/v1",
            DigestPurpose::ChallengeSignature => "pulse/challenge-signature/v1",
            DigestPurpose::ChallengeKey => "pulse/challenge-key/v1",
        }
    }
}

/// Randomness, keyed digests and authenticated encryption.
pub trait Crypto: Send + Sync + 'static {
    /// `len` characters of `[0-9A-Za-z]` from a cryptographically secure generator.
    fn random_base62(&self, len: usize) -> String;

    /// A keyed digest (HMAC-SHA256 in production) of `input` for `purpose`.
    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8>;

    /// Whether `expected` is the keyed digest of `input`, compared in constant time.
    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool;

    /// Encrypts `plaintext`, binding `context` (the row it belongs to) as associated data.
    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8>;

    /// Decrypts what [`Crypto::seal`] produced for the same `context`.
    ///
    /// # Errors
    /// `Internal` when the data was altered, belongs to another context or was sealed under a key
    /// this process does not hold.
    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>>;

    /// The plain SHA-256 of `data` (for published fingerprints, never for secrets at rest).
    fn sha256(&self, data: &[u8]) -> [u8; 32];

    /// Whether `expected` is HMAC-SHA256 of `data` under `key` (a partner's secret), compared in
    /// constant time.
    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool;

    /// HMAC-SHA256 of `data` under `key` (a webhook signing secret).
    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32];
}

impl<C: Crypto> Crypto for std::sync::Arc<C> {
    fn random_base62(&self, len: usize) -> String {
        (**self).random_base62(len)
    }

    fn keyed_digest(&self, purpose: DigestPurpose, input: &[u8]) -> Vec<u8> {
        (**self).keyed_digest(purpose, input)
    }

    fn verify_keyed_digest(&self, purpose: DigestPurpose, input: &[u8], expected: &[u8]) -> bool {
        (**self).verify_keyed_digest(purpose, input, expected)
    }

    fn seal(&self, context: &[u8], plaintext: &[u8]) -> Vec<u8> {
        (**self).seal(context, plaintext)
    }

    fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>> {
        (**self).open(context, sealed)
    }

    fn sha256(&self, data: &[u8]) -> [u8; 32] {
        (**self).sha256(data)
    }

    fn verify_hmac_sha256(&self, key: &[u8], data: &[u8], expected: &[u8]) -> bool {
        (**self).verify_hmac_sha256(key, data, expected)
    }

    fn hmac_sha256(&self, key: &[u8], data: &[u8]) -> [u8; 32] {
        (**self).hmac_sha256(key, data)
    }
}

/// Whether two MACs are equal, compared without an early exit.
pub fn macs_equal(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0_u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
