//! `Cursors::request`: a cursor is read only when it is exactly what the list writes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pulse_domain::shared::paging::{Cursors, PageRequest};
use pulse_testing::fakes::TestCrypto;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let crypto = TestCrypto::default();
    let cursors = Cursors::new(&crypto, "devices/fuzz".into());
    let (limit, cursor) = text.split_once('\n').unwrap_or((text, text));
    if let Ok(request) = cursors.request(Some(limit), Some(cursor)) {
        assert!((1..=200).contains(&request.limit));
        // Read back only what the list itself writes for that position.
        let key = request.after.expect("a cursor was sent");
        let page = cursors.page(&PageRequest { limit: 1, after: None }, vec![key, key], |k| *k);
        assert_eq!(page.next_cursor.as_deref(), Some(cursor));
    }
});
