//! Property tests of the API layer's parsers of attacker input: JSON bodies
//! (`parse_json`, through actix test requests, into the real request types) and the credential
//! headers (`presented_api_key`). They must not panic, must refuse what does not fit with the
//! documented code and without echoing what was sent, and must read back what fits.

use actix_web::HttpRequest;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::test::TestRequest;
use actix_web::web::Bytes;
use proptest::prelude::*;
use proptest::test_runner::Config;
use pulse_api::channel::campaigns::json::{AudienceRequest, LaunchLinkRequest, ProvisionRequest};
use pulse_api::channel::webhooks::json::{CreateSubscriptionRequest, UpdateSubscriptionRequest};
use pulse_api::public::json::StartRequest;
use pulse_api::request::{parse_json, presented_api_key};
use pulse_domain::{Error, ErrorCode};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Cases per property: enough to reach the branches, few enough to run in seconds in debug.
const CASES: u32 = 512;

fn config() -> Config {
    // No regression files: a failure prints its minimal input, which goes into a named test.
    Config { cases: CASES, failure_persistence: None, ..Config::default() }
}

fn request(headers: &[(&str, &[u8])]) -> HttpRequest {
    let mut req = TestRequest::post();
    for (name, value) in headers {
        // Only what the HTTP layer would pass on: a header value it can represent.
        if let Ok(value) = HeaderValue::from_bytes(value) {
            req = req.append_header((HeaderName::from_bytes(name.as_bytes()).expect("a header name"), value));
        }
    }
    req.to_http_request()
}

/// The refusal's code and description, or `None` when the body was read.
fn refusal_of<T: DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Option<(ErrorCode, String)> {
    match parse_json::<T>(req, &Bytes::copy_from_slice(body)) {
        Ok(_) => None,
        Err(error) => {
            let description = match &error.0 {
                Error::Refused(refusal) => refusal.description.clone(),
                other => other.to_string(),
            };
            Some((error.0.code(), description))
        }
    }
}

/// A string no schema or message would contain by chance: a value an attacker sent.
fn marker() -> impl Strategy<Value = String> {
    "[a-z]{12}".prop_map(|s| format!("Mk{s}"))
}

/// The field names of the real request types, and some others.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "url",
            "description",
            "eventTypes",
            "isActive",
            "consentGiven",
            "language",
            "installId",
            "deviceToken",
            "launchToken",
            "invitation",
            "client",
            "brief",
            "intentText",
            "questionCount",
            "languages",
            "quality",
            "surveyId",
            "rows",
            "externalRef",
            "email",
            "phone",
            "name",
            "campaignId",
            "externalUserRef",
            "device",
            "attributes",
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z]{1,10}",
    ]
}

/// JSON of any shape whose strings are all markers.
fn marked_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("JSON numbers are finite", |f| f.is_finite()).prop_map(Value::from),
        marker().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn content_type() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(b"application/json".to_vec()),
        Just(b"Application/JSON; charset=utf-8".to_vec()),
        Just(b"application/merge-patch+json".to_vec()),
        Just(b"text/plain".to_vec()),
        "[ -~]{0,40}".prop_map(String::into_bytes),
        prop::collection::vec(any::<u8>(), 0..40),
    ]
}

fn coding() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::of(prop_oneof![
        Just(b"identity".to_vec()),
        Just(b"gzip".to_vec()),
        Just(b"identity, br".to_vec()),
        prop::collection::vec(any::<u8>(), 0..16),
    ])
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        "[ -~\\s]{0,200}".prop_map(String::into_bytes),
        marked_json().prop_map(|v| v.to_string().into_bytes()),
        // Near-valid: an object with something after it, or cut short.
        (marked_json(), "[ -~]{0,6}").prop_map(|(v, tail)| format!("{{\"url\":{v}}}{tail}").into_bytes()),
        (marked_json(), any::<usize>()).prop_map(|(v, cut)| {
            let text = json!({ "url": v }).to_string().into_bytes();
            text[..cut % text.len()].to_vec()
        }),
    ]
}

/// Every refusal of every request type: the documented code, and no value of the body in it.
fn check_refusal<T: DeserializeOwned>(req: &HttpRequest, body: &[u8]) -> Result<(), TestCaseError> {
    if let Some((code, description)) = refusal_of::<T>(req, body) {
        prop_assert!(matches!(code, ErrorCode::ValidationFailed | ErrorCode::UnsupportedMediaType), "{code:?}");
        for marker in String::from_utf8_lossy(body).match_indices("Mk").filter_map(|(at, _)| body.get(at..at + 14)) {
            let marker = String::from_utf8_lossy(marker);
            prop_assert!(!description.contains(&*marker), "{} echoed in {}", marker, description);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn json_bodies_are_read_only_as_json_objects_and_refusals_echo_nothing(
        content_type in content_type(),
        coding in coding(),
        body in body(),
    ) {
        let mut headers: Vec<(&str, &[u8])> = vec![("content-type", &content_type)];
        if let Some(coding) = &coding {
            headers.push(("content-encoding", coding));
        }
        let req = request(&headers);
        // Whatever the type, a body is read only when it is a JSON object sent as JSON, uncoded.
        if refusal_of::<Map<String, Value>>(&req, &body).is_none() {
            let essence = String::from_utf8_lossy(&content_type).split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            prop_assert!(essence == "application/json" || essence.ends_with("+json"));
            // Judged on what was sent: a value the HTTP layer cannot carry was left out.
            let uncoded = req.headers().get_all("content-encoding").all(|c| {
                c.as_bytes().split(|b| *b == b',').all(|c| {
                    let c = String::from_utf8_lossy(c);
                    c.trim().is_empty() || c.trim().eq_ignore_ascii_case("identity")
                })
            });
            prop_assert!(uncoded, "{:?}", coding);
            prop_assert!(serde_json::from_slice::<Map<String, Value>>(&body).is_ok());
        }
        check_refusal::<CreateSubscriptionRequest>(&req, &body)?;
        check_refusal::<UpdateSubscriptionRequest>(&req, &body)?;
        check_refusal::<StartRequest>(&req, &body)?;
        check_refusal::<ProvisionRequest>(&req, &body)?;
        check_refusal::<LaunchLinkRequest>(&req, &body)?;
        check_refusal::<AudienceRequest>(&req, &body)?;
    }

    #[test]
    fn a_fitting_body_reads_back(
        url in any::<String>(),
        description in proptest::option::of(any::<String>()),
        event_types in proptest::option::of(prop::collection::vec(any::<String>(), 0..4)),
        padding in "[ \t\r\n]{0,3}",
    ) {
        let req = request(&[("content-type", b"application/json")]);
        let body = format!("{padding}{}{padding}", json!({ "url": url, "description": description, "eventTypes": event_types }));
        let read = parse_json::<CreateSubscriptionRequest>(&req, &Bytes::from(body));
        let read = read.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!((read.url, read.description, read.event_types), (url, description, event_types));
    }

    // Values with bytes outside visible ASCII: `a_second_credential_that_is_not_ascii_still_counts`.
    #[test]
    fn exactly_one_credential_is_read(
        authorization in prop::collection::vec(prop_oneof!["Bearer [ -~]{0,60}", "[ -~]{0,60}"].prop_map(String::into_bytes), 0..3),
        api_key in prop::collection::vec("[ -~]{0,60}".prop_map(String::into_bytes), 0..3),
    ) {
        let mut headers: Vec<(&str, &[u8])> = Vec::new();
        headers.extend(authorization.iter().map(|v| ("authorization", v.as_slice())));
        headers.extend(api_key.iter().map(|v| ("x-api-key", v.as_slice())));
        let req = request(&headers);
        let sent = |name: &str| req.headers().get_all(name).count();
        let (authorizations, keys) = (sent("authorization"), sent("x-api-key"));
        match presented_api_key(&req) {
            Ok(presented) => {
                prop_assert!(authorizations + keys <= 1, "{} and {} headers read as one", authorizations, keys);
                if let Some(presented) = presented {
                    prop_assert_eq!(presented, presented.trim());
                }
            }
            Err(error) => {
                prop_assert_eq!(error.0.code(), ErrorCode::Unauthenticated);
                prop_assert!(authorizations + keys > 1);
            }
        }
    }
}

/// Found by the property above when header values were not limited to visible ASCII, then fixed:
/// a second credential header whose value is not visible ASCII (obs-text such as byte 0x80) was
/// read as absent, so the other header acted alone instead of the request being refused.
#[test]
fn a_second_credential_that_is_not_ascii_still_counts() {
    let key = b"Bearer svc_AbCdEf1234_0123456789abcdefghijABCDEFGHIJ0123456789xyz000000".as_slice();
    for headers in [
        [("authorization", key), ("x-api-key", b"\x80".as_slice())],
        [("x-api-key", &key[7..]), ("authorization", b"Bearer \xe9".as_slice())],
    ] {
        let req = request(&headers);
        assert_eq!(req.headers().len(), 2, "both headers were sent");
        let read = presented_api_key(&req).map_err(|e| e.0.code());
        assert_eq!(read, Err(ErrorCode::Unauthenticated), "two credentials read as one");
    }
}
