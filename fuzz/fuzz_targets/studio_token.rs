//! Studio JWTs: no input verifies without the secret.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_crypto::JwtStudioTokens;
use pulse_domain::studio::ports::StudioTokens;
use secrecy::SecretString;
use std::sync::LazyLock;

static TOKENS: LazyLock<JwtStudioTokens> =
    LazyLock::new(|| JwtStudioTokens::new(&SecretString::from("a studio secret the input does not know")));

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else { return };
    assert!(TOKENS.verify(token).is_none());
});
