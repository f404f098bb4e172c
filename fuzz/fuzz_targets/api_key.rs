//! `WellFormedKey::parse`: what it accepts has the documented shape and reads back alike.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_domain::tenancy::models::{KEY_BRAND, PREFIX_LEN, WellFormedKey};
use secrecy::ExposeSecret;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Some(key) = WellFormedKey::parse(text) {
        assert!(text.starts_with(KEY_BRAND));
        assert_eq!(key.prefix().len(), PREFIX_LEN);
        assert_eq!(key.secret().expose_secret(), text);
    }
});
