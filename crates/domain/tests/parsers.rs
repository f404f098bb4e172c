//! Property tests of the domain's parsers of attacker input: API keys, cursors, download
//! tokens, device access tokens and install ids, webhook URLs. Each is fed arbitrary and near-valid
//! text: it must not panic, must refuse what the service did not produce, and must read back what
//! it did. The services run over the in-memory store and `TestCrypto`, whose sealing is NOT
//! authenticated: that a changed byte of a sealed token is refused is the production sealing's
//! property, tested with `RingCrypto` in `crates/crypto/tests/parsers.rs`.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use futures_executor::block_on;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use pulse_domain::ErrorCode;
use pulse_domain::apps::models::{HeartbeatInput, RegisterInput, Registration};
use pulse_domain::campaigns::models::{BriefInput, Campaign, ProvisionInput};
use pulse_domain::exports::models::{DownloadClaims, ExportRequest};
use pulse_domain::ids::{ApiKeyId, ExportId};
use pulse_domain::sessions::models::{StartInput, StartOutcome};
use pulse_domain::shared::paging::{Cursors, PageKey, PageRequest};
use pulse_domain::tenancy::models::{KEY_BRAND, PREFIX_LEN, SECRET_RANDOM_LEN, WellFormedKey};
use pulse_domain::tenancy::service::KeyRequest;
use pulse_domain::webhooks::models::{MAX_URL_CHARS, WebhookUrl, address_refusal};
use pulse_testing::MemoryStore;
use pulse_testing::contract::{Partner, SCOPES, World};
use pulse_testing::fakes::TestCrypto;
use secrecy::ExposeSecret;
use std::net::{IpAddr, Ipv4Addr};
use time::OffsetDateTime;
use uuid::Uuid;

/// Cases per property: enough to reach the branches, few enough to run in seconds in debug.
const CASES: u32 = 512;

fn config() -> Config {
    // No regression files: a failure prints its minimal input, which goes into a named test.
    Config { cases: CASES, failure_persistence: None, ..Config::default() }
}

/// Runs a property over state built once (a world is too slow to build per case).
fn check<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(config());
    if let Err(failure) = runner.run(&strategy, test) {
        panic!("{failure}");
    }
}

fn base62(len: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[0-9A-Za-z]{{{len}}}")).expect("a regex")
}

/// Any text, biased towards the shapes the parsers look for.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,120}",
        "svc_[ -~]{0,70}",
        "(dt1|in1)\\.[A-Za-z0-9_-]{0,120}",
        "[A-Za-z0-9_-]{0,100}\\.[A-Za-z0-9_-]{0,40}",
    ]
}

/// `text` with the byte at `at` (modulo its length) replaced by a different printable ASCII byte.
fn one_changed(text: &str, at: usize, by: u8) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = at % bytes.len();
    let replacement = b' ' + (bytes[at] - b' ' + 1 + by % 94) % 95;
    bytes[at] = replacement;
    String::from_utf8(bytes).expect("ascii")
}

fn partner_with_scopes(w: &World<MemoryStore>, extra: &[&str]) -> Partner {
    let p = block_on(w.partner_with("Acme", true));
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: SCOPES.iter().chain(extra).map(|s| (*s).to_owned()).collect(),
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = block_on(w.admin.create_key(request)).expect("key");
    let principal = block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    Partner { principal, ..p }
}

fn open_campaign(w: &World<MemoryStore>, p: &Partner) -> Campaign {
    let input = ProvisionInput {
        brief: Some(BriefInput {
            intent_text: "How was the delivery today?".into(),
            question_count: Some(3),
            languages: Some(vec!["en".into()]),
            ..BriefInput::default()
        }),
        ..ProvisionInput::default()
    };
    let draft = block_on(w.campaigns.provision(&p.principal, None, input)).expect("provisioned");
    block_on(w.campaigns.launch(&p.principal, None, draft.campaign.id)).expect("launched").campaign
}

// API keys.

proptest! {
    #![proptest_config(config())]

    #[test]
    fn api_keys_parse_only_in_their_documented_shape(text in hostile_text()) {
        if let Some(key) = WellFormedKey::parse(&text) {
            prop_assert!(text.starts_with(KEY_BRAND));
            prop_assert_eq!(key.prefix().len(), PREFIX_LEN);
            prop_assert_eq!(key.secret().expose_secret(), text.as_str());
        }
    }

    #[test]
    fn assembled_keys_parse_back_and_one_changed_byte_is_refused(
        prefix in base62(PREFIX_LEN),
        secret in base62(SECRET_RANDOM_LEN),
        at in any::<usize>(),
        by in any::<u8>(),
    ) {
        let text = WellFormedKey::assemble(&prefix, &secret).secret().expose_secret().to_owned();
        let parsed = WellFormedKey::parse(&text);
        prop_assert_eq!(parsed.as_ref().map(WellFormedKey::prefix), Some(prefix.as_str()));
        // CRC-32 catches every error burst of 32 bits or fewer, so every one-byte change.
        let mistyped = one_changed(&text, at, by);
        prop_assert!(WellFormedKey::parse(&mistyped).is_none(), "{mistyped}");
        prop_assert!(WellFormedKey::parse(&text[..text.len() - 1]).is_none());
        let longer = format!("{text}0");
        prop_assert!(WellFormedKey::parse(&longer).is_none());
    }
}

#[test]
fn only_issued_keys_authenticate() {
    let w = World::new(MemoryStore::default());
    let p = block_on(w.partner_with("Acme", true));
    let request =
        KeyRequest { business_id: Some(p.business), scopes: vec!["channel:results".into()], ..KeyRequest::default() };
    let issued = block_on(w.admin.create_key(request)).expect("key");
    assert!(block_on(w.tenancy.authenticate(Some(issued.key.expose_secret()))).is_ok());
    let strategy = prop_oneof![
        hostile_text(),
        // Well formed, of an existing prefix, with the checksum right: a guess at the secret.
        base62(SECRET_RANDOM_LEN).prop_map({
            let prefix = issued.prefix;
            move |secret| WellFormedKey::assemble(&prefix, &secret).secret().expose_secret().to_owned()
        }),
    ];
    check(strategy, |text| {
        let refused = block_on(w.tenancy.authenticate(Some(&text)));
        prop_assert_eq!(refused.map(|_| ()).map_err(|e| e.code()), Err(ErrorCode::Unauthenticated));
        Ok(())
    });
}

// Cursors.

fn cursor_of(cursors: &Cursors<'_, TestCrypto>, position: i64) -> String {
    let key = PageKey { position };
    let page = cursors.page(&PageRequest { limit: 1, after: None }, vec![key, key], |k| *k);
    page.next_cursor.expect("a next page")
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cursors_read_back_only_in_their_own_list_and_untampered(
        position in any::<i64>(),
        list in "[a-z]{1,12}/[0-9a-f-]{0,36}",
        other in "[a-z]{1,12}/[0-9a-f-]{0,36}",
        at in any::<usize>(),
        by in any::<u8>(),
    ) {
        let crypto = TestCrypto::default();
        let cursors = Cursors::new(&crypto, list.clone());
        let cursor = cursor_of(&cursors, position);
        let read = cursors.request(None, Some(&cursor)).map(|r| r.after);
        prop_assert_eq!(read.ok(), Some(Some(PageKey { position })));
        if other != list {
            prop_assert!(Cursors::new(&crypto, other).request(None, Some(&cursor)).is_err());
        }
        let tampered = one_changed(&cursor, at, by);
        let refused = cursors.request(None, Some(&tampered)).map_err(|e| e.code());
        prop_assert_eq!(refused.err(), Some(ErrorCode::ValidationFailed), "{}", tampered);
    }

    #[test]
    fn anything_else_is_not_a_cursor(
        text in prop_oneof![hostile_text(), "[A-Za-z0-9_-]{32}"],
        limit in proptest::option::of("[ -~]{0,12}"),
    ) {
        let crypto = TestCrypto::default();
        let cursors = Cursors::new(&crypto, "devices/a".into());
        prop_assert!(cursors.request(limit.as_deref(), Some(&text)).is_err());
        if let Ok(request) = cursors.request(limit.as_deref(), None) {
            prop_assert!((1..=200).contains(&request.limit));
        }
    }
}

// Download tokens.

proptest! {
    #![proptest_config(config())]

    #[test]
    fn download_claims_decode_only_what_encode_made(
        bytes in prop::collection::vec(any::<u8>(), 0..80),
        ids in any::<[u128; 3]>(),
        seconds in OffsetDateTime::UNIX_EPOCH.unix_timestamp()..253_402_300_799_i64,
    ) {
        let _ = DownloadClaims::decode(&bytes);
        let claims = DownloadClaims {
            export: ExportId(Uuid::from_u128(ids[0])),
            link: Uuid::from_u128(ids[1]),
            key: ApiKeyId(Uuid::from_u128(ids[2])),
            expires_at: OffsetDateTime::from_unix_timestamp(seconds).expect("in range"),
        };
        prop_assert_eq!(DownloadClaims::decode(&claims.encode()), Some(claims));
    }
}

#[test]
fn download_links_work_as_minted_and_no_other_token_does() {
    let w = World::new(MemoryStore::default());
    let p = partner_with_scopes(&w, &["channel:export"]);
    let campaign = open_campaign(&w, &p);
    block_on(w.exports.beat(Uuid::new_v4())).expect("beat");
    let request = ExportRequest::parse("json", false).expect("json");
    let record = block_on(w.exports.request(&p.principal, None, campaign.id, request)).expect("requested");
    assert_eq!(block_on(w.exports.run_due()).expect("rendered").ready, [record.id]);
    let (_, link) = block_on(w.exports.get(&p.principal, None, record.id)).expect("read");
    let url = link.expect("a READY export has a link").url;
    let (token, name) = url.rsplit_once("/downloads/").expect("a download url").1.split_once('/').expect("two parts");
    let (token, name) = (token.to_owned(), name.to_owned());
    assert!(block_on(w.exports.download(&token, &name, None)).is_ok(), "the minted link works");

    let (body, mac) = token.split_once('.').expect("body.mac");
    let body_bytes = URL_SAFE_NO_PAD.decode(body).expect("base64");
    let strategy = prop_oneof![
        hostile_text(),
        // Any one byte of the genuine token changed.
        (any::<usize>(), any::<u8>()).prop_map({
            let token = token.clone();
            move |(at, by)| one_changed(&token, at, by)
        }),
        // Well-formed claims (any export, any expiry) under the genuine MAC, or a random one.
        (any::<[u8; 56]>(), prop::collection::vec(any::<u8>(), 16)).prop_map({
            let mac = mac.to_owned();
            move |(claims, random_mac)| {
                let mac = if random_mac[0] % 2 == 0 { mac.clone() } else { URL_SAFE_NO_PAD.encode(random_mac) };
                format!("{}.{mac}", URL_SAFE_NO_PAD.encode(claims))
            }
        }),
        // The genuine claims, one bit flipped.
        (0..56_usize, 0..8_u32).prop_map(move |(at, bit)| {
            let mut claims = body_bytes.clone();
            claims[at] ^= 1 << bit;
            format!("{}.{}", URL_SAFE_NO_PAD.encode(claims), mac)
        }),
    ];
    check(strategy, |text| {
        let refused = block_on(w.exports.download(&text, &name, None)).map(|_| ()).map_err(|e| e.code());
        prop_assert_eq!(refused, Err(ErrorCode::NotFound), "{}", text);
        Ok(())
    });
}

// Device access tokens and install ids.

fn register(w: &World<MemoryStore>, campaign: &Campaign) -> Registration {
    let input = RegisterInput {
        campaign_code: campaign.code.clone(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        ..RegisterInput::default()
    };
    block_on(w.apps.register(input)).expect("registered")
}

fn feedback_count(w: &World<MemoryStore>, p: &Partner) -> u64 {
    let devices = block_on(w.apps.devices(&p.principal, None, None, None, None)).expect("devices");
    devices.items.iter().map(|d| d.activity.feedback_count).sum()
}

#[test]
fn only_the_service_access_tokens_and_install_ids_name_a_device() {
    let w = World::new(MemoryStore::default());
    let p = partner_with_scopes(&w, &[]);
    let campaign = open_campaign(&w, &p);
    let registered = register(&w, &campaign);
    let access = registered.tokens.access_token.as_ref().expect("an access token").expose_secret().to_owned();
    let install = registered.tokens.install_id.as_ref().expect("an install id").expose_secret().to_owned();
    let start = |device_token: Option<String>, install_id: Option<String>| {
        let input = StartInput { consent_given: Some(true), device_token, install_id, ..StartInput::default() };
        block_on(w.respondents.start(&campaign.code, input))
    };

    // What the service produced reads back: the start is attributed, the heartbeat admitted.
    assert!(matches!(start(Some(access), None), Ok(StartOutcome::Started(_))));
    assert_eq!(feedback_count(&w, &p), 1);
    let beat = |install_id: String| {
        let input = HeartbeatInput {
            install_id: Some(install_id),
            app_version: Some("1.0".into()),
            ..HeartbeatInput::default()
        };
        block_on(w.apps.heartbeat(input))
    };
    assert!(beat(install).is_ok(), "the genuine install id");

    // Anything else: no panic, no attribution, no heartbeat. (Tampered genuine tokens are not
    // fed here: under TestCrypto's unauthenticated sealing a changed expiry byte still opens.)
    check(hostile_text(), |text| {
        let outcome = start(Some(text.clone()), Some(text.clone()));
        prop_assert!(
            matches!(outcome, Ok(StartOutcome::Started(_)))
                || outcome.as_ref().is_err_and(|e| e.code() == ErrorCode::ValidationFailed),
            "{:?}",
            outcome
        );
        prop_assert_eq!(feedback_count(&w, &p), 1);
        let refused = beat(text).map(|_| ()).map_err(|e| e.code());
        prop_assert_eq!(refused, Err(ErrorCode::InstallInvalid));
        Ok(())
    });
    // A v2 heartbeat: any device id and refresh token but the issued pair is refused.
    check((hostile_text(), hostile_text()), |(device, refresh)| {
        let input =
            HeartbeatInput { device_id: Some(device), refresh_token: Some(refresh), ..HeartbeatInput::default() };
        let refused = block_on(w.apps.heartbeat(input)).map(|_| ()).map_err(|e| e.code());
        prop_assert!(matches!(refused, Err(ErrorCode::DeviceAuthInvalid | ErrorCode::ValidationFailed)));
        Ok(())
    });
}

// Webhook URLs.

proptest! {
    #![proptest_config(config())]

    #[test]
    fn accepted_webhook_urls_keep_the_rules_and_read_back(
        text in prop_oneof![
            hostile_text(),
            "(https?|ftp|HTTPS|javascript)://([a-z0-9]{1,8}(:[a-z0-9]{0,8})?@)?[a-z0-9.\\[\\]:%-]{0,30}(:[0-9]{1,6})?(/[ -~]{0,30})?(#[a-z]{0,5})?",
        ],
        allow_private in any::<bool>(),
    ) {
        let Ok(url) = WebhookUrl::parse(&text, allow_private) else { return Ok(()) };
        let parsed = url.as_url();
        prop_assert!(parsed.scheme() == "https" || (allow_private && parsed.scheme() == "http"));
        prop_assert!(parsed.username().is_empty() && parsed.password().is_none());
        prop_assert!(parsed.fragment().is_none() && parsed.host().is_some());
        prop_assert!(text.chars().count() <= MAX_URL_CHARS);
        // What is stored parses again to the same URL.
        prop_assert_eq!(WebhookUrl::parse(url.as_str(), allow_private).ok(), Some(url.clone()));
    }

    #[test]
    fn an_ipv4_address_is_judged_alike_in_its_ipv6_mapped_form(octets in any::<[u8; 4]>()) {
        let v4 = Ipv4Addr::from(octets);
        let direct = address_refusal(IpAddr::V4(v4)).is_some();
        prop_assert_eq!(address_refusal(IpAddr::V6(v4.to_ipv6_mapped())).is_some(), direct);
    }
}
