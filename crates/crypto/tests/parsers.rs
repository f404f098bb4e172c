//! Property tests of the crypto adapters' parsers of attacker input: launch JWTs
//! (partner-signed and the service's own links), Studio JWTs and sealed envelopes (which carry
//! device access tokens, install ids and every sealed column). Each is fed arbitrary and
//! near-valid input: it must not panic, must refuse what was not produced with its key, and must
//! read back what was.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use proptest::prelude::*;
use proptest::test_runner::Config;
use pulse_crypto::{JwtLaunchTokens, JwtStudioTokens, MasterKey, RingCrypto};
use pulse_domain::campaigns::models::{LaunchClaims, SERVER_KID};
use pulse_domain::campaigns::ports::LaunchTokenCodec;
use pulse_domain::ids::BusinessId;
use pulse_domain::shared::crypto::Crypto;
use pulse_domain::studio::models::StudioClaims;
use pulse_domain::studio::ports::StudioTokens;
use secrecy::SecretString;
use std::sync::LazyLock;
use time::OffsetDateTime;
use uuid::Uuid;

/// Cases per property: enough to reach the branches, few enough to run in seconds in debug.
const CASES: u32 = 512;

fn config() -> Config {
    // No regression files: a failure prints its minimal input, which goes into a named test.
    Config { cases: CASES, failure_persistence: None, ..Config::default() }
}

fn master(byte: u8) -> MasterKey {
    MasterKey::from_base64(&STANDARD.encode([byte; 32])).expect("a 32-byte key")
}

static LINKS: LazyLock<JwtLaunchTokens> = LazyLock::new(|| JwtLaunchTokens::new(&master(1)));
static OTHER_LINKS: LazyLock<JwtLaunchTokens> = LazyLock::new(|| JwtLaunchTokens::new(&master(2)));
static SEALER: LazyLock<RingCrypto> = LazyLock::new(|| RingCrypto::new(&master(1)));
static OTHER_SEALER: LazyLock<RingCrypto> = LazyLock::new(|| RingCrypto::new(&master(2)));
const STUDIO_SECRET: &str = "studio-secret-for-property-tests";

fn studio() -> JwtStudioTokens {
    JwtStudioTokens::new(&SecretString::from(STUDIO_SECRET))
}

/// Any text, biased towards three dot-separated base64url segments.
fn hostile_token() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,200}",
        "[A-Za-z0-9_-]{0,80}\\.[A-Za-z0-9_-]{0,200}\\.[A-Za-z0-9_-]{0,60}",
        // A JSON header and body of any shape, with a random signature.
        (any::<String>(), any::<String>(), prop::collection::vec(any::<u8>(), 0..40)).prop_map(|(h, b, s)| {
            let header = format!(r#"{{"alg":"HS256","typ":"JWT","kid":"{}"}}"#, h.escape_default());
            format!("{}.{}.{}", URL_SAFE_NO_PAD.encode(header), URL_SAFE_NO_PAD.encode(b), URL_SAFE_NO_PAD.encode(s))
        }),
    ]
}

/// `text` with the byte at `at` (modulo its length) replaced by a different printable ASCII byte.
fn one_changed(text: &str, at: usize, by: u8) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = at % bytes.len();
    bytes[at] = b' ' + (bytes[at] - b' ' + 1 + by % 94) % 95;
    String::from_utf8(bytes).expect("ascii")
}

fn launch_claims() -> impl Strategy<Value = LaunchClaims> {
    let text = || proptest::option::of(any::<String>());
    (
        (any::<String>(), any::<i64>(), any::<String>()),
        (text(), text(), text(), text(), text(), text()),
        prop::collection::vec(any::<String>(), 0..4),
    )
        .prop_map(|((campaign, exp, jti), (lang, app, app_version, device, os, uid), tags)| LaunchClaims {
            campaign,
            exp,
            jti,
            lang,
            app,
            app_version,
            device,
            os,
            uid,
            tags,
        })
}

/// Whole seconds from 1970 to the end of 9999 (`time`'s default range). Earlier instants are
/// refused by the JWT library (it reads `exp` as unsigned), which is a refusal, not a finding.
fn instant() -> impl Strategy<Value = OffsetDateTime> {
    (0_i64..253_402_300_799).prop_map(|seconds| OffsetDateTime::from_unix_timestamp(seconds).expect("in range"))
}

fn studio_claims() -> impl Strategy<Value = StudioClaims> {
    (
        any::<u128>(),
        any::<u128>(),
        prop::collection::vec("[a-z:]{0,20}", 0..4),
        instant(),
        prop::option::of(instant()),
        instant(),
    )
        .prop_map(|(user, business, permissions, issued_at, not_before, expires_at)| StudioClaims {
            user_id: Uuid::from_u128(user),
            business_id: BusinessId(Uuid::from_u128(business)),
            permissions,
            issued_at,
            not_before,
            expires_at,
        })
}

/// `issue` awaits nothing, so one poll finishes it.
fn issued(claims: &StudioClaims) -> String {
    let tokens = studio();
    let mut future = std::pin::pin!(tokens.issue(claims));
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(token) => token.expect("issued"),
        std::task::Poll::Pending => unreachable!("issue does not wait"),
    }
}

proptest! {
    #![proptest_config(config())]

    // Launch tokens.

    #[test]
    fn arbitrary_launch_tokens_are_refused(token in hostile_token(), secret in prop::collection::vec(any::<u8>(), 0..40)) {
        let _ = LINKS.key_id(&token);
        prop_assert_eq!(LINKS.verify(&token, &secret), None);
        prop_assert_eq!(LINKS.verify_link(&token), None);
    }

    #[test]
    fn service_links_read_back_under_their_master_key_only(claims in launch_claims(), at in any::<usize>(), by in any::<u8>()) {
        let token = LINKS.sign_link(&claims).expect("signed");
        prop_assert_eq!(LINKS.key_id(&token), Some(SERVER_KID.to_owned()));
        prop_assert_eq!(LINKS.verify_link(&token), Some(claims));
        prop_assert_eq!(OTHER_LINKS.verify_link(&token), None);
        let tampered = one_changed(&token, at, by);
        prop_assert_eq!(LINKS.verify_link(&tampered), None, "{}", tampered);
    }

    #[test]
    fn partner_tokens_verify_under_their_secret_only(
        claims in launch_claims(),
        kid in "[ -~]{1,40}",
        secret in prop::collection::vec(any::<u8>(), 1..64),
        other in prop::collection::vec(any::<u8>(), 1..64),
        at in any::<usize>(),
        by in any::<u8>(),
    ) {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(kid.clone());
        let body = serde_json::json!({
            "campaign": claims.campaign, "exp": claims.exp, "jti": claims.jti, "lang": claims.lang,
            "app": claims.app, "appVersion": claims.app_version, "device": claims.device, "os": claims.os,
            "uid": claims.uid, "tags": claims.tags,
        });
        let token = jsonwebtoken::encode(&header, &body, &EncodingKey::from_secret(&secret)).expect("token");
        prop_assert_eq!(LINKS.key_id(&token), Some(kid));
        prop_assert_eq!(LINKS.verify(&token, &secret), Some(claims));
        if other != secret {
            prop_assert_eq!(LINKS.verify(&token, &other), None);
        }
        // A partner token is never one of the service's links, whatever its kid says.
        prop_assert_eq!(LINKS.verify_link(&token), None);
        let tampered = one_changed(&token, at, by);
        prop_assert_eq!(LINKS.verify(&tampered, &secret), None, "{}", tampered);
    }

    // Studio tokens.

    #[test]
    fn arbitrary_studio_tokens_are_refused(token in hostile_token()) {
        prop_assert_eq!(studio().verify(&token), None);
    }

    #[test]
    fn studio_tokens_read_back_under_their_secret_only(claims in studio_claims(), at in any::<usize>(), by in any::<u8>()) {
        let token = issued(&claims);
        prop_assert_eq!(studio().verify(&token), Some(claims));
        prop_assert_eq!(JwtStudioTokens::new(&SecretString::from("another secret")).verify(&token), None);
        let tampered = one_changed(&token, at, by);
        prop_assert_eq!(studio().verify(&tampered), None, "{}", tampered);
    }

    // Sealed envelopes.

    #[test]
    fn sealed_values_open_only_in_their_context_and_unaltered(
        context in prop::collection::vec(any::<u8>(), 0..64),
        other in prop::collection::vec(any::<u8>(), 0..64),
        plaintext in prop::collection::vec(any::<u8>(), 0..256),
        at in any::<usize>(),
        flip in 1..=u8::MAX,
        cut in any::<usize>(),
    ) {
        let sealed = SEALER.seal(&context, &plaintext);
        prop_assert_eq!(SEALER.open(&context, &sealed).ok(), Some(plaintext));
        if other != context {
            prop_assert!(SEALER.open(&other, &sealed).is_err());
        }
        prop_assert!(OTHER_SEALER.open(&context, &sealed).is_err());
        let mut tampered = sealed.clone();
        let at = at % tampered.len();
        tampered[at] ^= flip;
        prop_assert!(SEALER.open(&context, &tampered).is_err(), "byte {} changed", at);
        prop_assert!(SEALER.open(&context, &sealed[..cut % sealed.len()]).is_err());
    }

    #[test]
    fn arbitrary_bytes_do_not_open(context in prop::collection::vec(any::<u8>(), 0..32), bytes in prop::collection::vec(any::<u8>(), 0..120), header in any::<bool>()) {
        // Half the inputs carry the right version and key id, so the AEAD itself is reached.
        let mut sealed = bytes;
        if header {
            let genuine = SEALER.seal(b"", b"");
            sealed.splice(0..0, genuine[..5].iter().copied());
        }
        prop_assert!(SEALER.open(&context, &sealed).is_err());
    }

    #[test]
    fn master_keys_are_32_bytes_of_base64_or_refused(text in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..48)) {
        prop_assert!(MasterKey::from_base64(&text).is_err() || STANDARD.decode(text.trim()).is_ok_and(|b| b.len() == 32));
        prop_assert_eq!(MasterKey::from_base64(&STANDARD.encode(&bytes)).is_ok(), bytes.len() == 32);
    }
}
