//! Launch JWTs: no input verifies as the service's own link, nor under a secret it was not
//! signed with; `key_id` never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_crypto::{JwtLaunchTokens, MasterKey};
use pulse_domain::campaigns::ports::LaunchTokenCodec;
use std::sync::LazyLock;

static CODEC: LazyLock<JwtLaunchTokens> = LazyLock::new(|| {
    JwtLaunchTokens::new(&MasterKey::from_base64("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=").expect("key"))
});

fuzz_target!(|data: &[u8]| {
    let Ok(token) = std::str::from_utf8(data) else { return };
    let _ = CODEC.key_id(token);
    assert!(CODEC.verify_link(token).is_none());
    assert!(CODEC.verify(token, b"a partner secret the input does not know").is_none());
});
