//! `WebhookUrl::parse`: what it accepts keeps the rules and parses again to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_domain::webhooks::models::WebhookUrl;

fuzz_target!(|data: &[u8]| {
    let Some((&flag, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    let allow_private = flag % 2 == 1;
    let Ok(url) = WebhookUrl::parse(text, allow_private) else { return };
    let parsed = url.as_url();
    assert!(parsed.scheme() == "https" || (allow_private && parsed.scheme() == "http"));
    assert!(parsed.username().is_empty() && parsed.password().is_none());
    assert!(parsed.fragment().is_none() && parsed.host().is_some());
    assert_eq!(WebhookUrl::parse(url.as_str(), allow_private).ok(), Some(url.clone()));
});
