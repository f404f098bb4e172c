//! `presented_api_key`: two credential headers (either, twice, or both) are never read as one.
//! Input: header lines `a:<value>` (Authorization) or `k:<value>` (X-API-Key), split on `\n`.
#![no_main]

use actix_web::http::header::HeaderValue;
use actix_web::test::TestRequest;
use libfuzzer_sys::fuzz_target;
use pulse_api::request::presented_api_key;

fuzz_target!(|data: &[u8]| {
    let mut req = TestRequest::get();
    for line in data.split(|b| *b == b'\n') {
        let name = match line.first() {
            Some(b'a') => "authorization",
            Some(b'k') => "x-api-key",
            _ => continue,
        };
        if let Ok(value) = HeaderValue::from_bytes(line.get(2..).unwrap_or_default()) {
            req = req.append_header((name, value));
        }
    }
    let req = req.to_http_request();
    let sent = req.headers().get_all("authorization").count() + req.headers().get_all("x-api-key").count();
    if presented_api_key(&req).is_ok() {
        // Fails today for a second header that is not visible ASCII (see crates/api/tests/parsers.rs).
        assert!(sent <= 1, "{sent} credential headers read as one");
    }
});
