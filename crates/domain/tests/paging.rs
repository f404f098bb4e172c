//! Signed cursors.
use pulse_domain::shared::paging::*;
use pulse_testing::fakes::TestCrypto;

#[test]
fn cursors_round_trip_and_refuse_tampering_and_other_lists() {
    let crypto = TestCrypto::default();
    let devices = Cursors::new(&crypto, "devices/a".into());
    let key = PageKey { position: 41 };
    let request = PageRequest { limit: 1, after: None };
    let page = devices.page(&request, vec![key, key], |k| *k);
    let cursor = page.next_cursor.expect("a second page");
    assert_eq!(devices.request(None, Some(&cursor)).expect("valid").after, Some(key));

    let other = Cursors::new(&crypto, "devices/b".into());
    assert!(other.request(None, Some(&cursor)).is_err());
    let mut tampered = cursor.into_bytes();
    tampered[3] = if tampered[3] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ascii");
    assert!(devices.request(None, Some(&tampered)).is_err());
    assert!(devices.request(None, Some("not a cursor")).is_err());
}

#[test]
fn limits_default_to_fifty_and_stay_within_two_hundred() {
    let crypto = TestCrypto::default();
    let cursors = Cursors::new(&crypto, "x".into());
    assert_eq!(cursors.request(None, None).expect("default").limit, 50);
    assert_eq!(cursors.request(Some("200"), None).expect("max").limit, 200);
    for bad in ["0", "201", "-1", "ten"] {
        assert!(cursors.request(Some(bad), None).is_err(), "{bad}");
    }
    let last = cursors.page(&PageRequest { limit: 2, after: None }, vec![1, 2], |p| PageKey { position: *p });
    assert_eq!(last.next_cursor, None);
}
