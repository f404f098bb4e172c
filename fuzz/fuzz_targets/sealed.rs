//! Sealed envelopes (`RingCrypto::open`): nothing opens that was not sealed under the key, and a
//! sealed value opens in its own context only. The first byte splits context from envelope.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_crypto::{MasterKey, RingCrypto};
use pulse_domain::shared::crypto::Crypto;
use std::sync::LazyLock;

static CRYPTO: LazyLock<RingCrypto> = LazyLock::new(|| {
    RingCrypto::new(&MasterKey::from_base64("AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=").expect("key"))
});

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else { return };
    let (context, body) = rest.split_at(usize::from(split).min(rest.len()));
    assert!(CRYPTO.open(context, body).is_err());
    // The same bytes as a plaintext: sealed, they open in their context and nowhere else.
    let sealed = CRYPTO.seal(context, body);
    assert_eq!(CRYPTO.open(context, &sealed).ok().as_deref(), Some(body));
    assert!(CRYPTO.open(&[context, b"+"].concat(), &sealed).is_err());
});
