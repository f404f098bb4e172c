//! `parse_json` into the real request types: refusals carry the documented code and never the
//! values sent (strings starting `Mk` in the corpus make an echo easy to spot).
#![no_main]

use actix_web::test::TestRequest;
use actix_web::web::Bytes;
use libfuzzer_sys::fuzz_target;
use pulse_api::channel::campaigns::json::{AudienceRequest, LaunchLinkRequest, ProvisionRequest};
use pulse_api::channel::webhooks::json::{CreateSubscriptionRequest, UpdateSubscriptionRequest};
use pulse_api::public::json::StartRequest;
use pulse_api::request::parse_json;
use pulse_domain::{Error, ErrorCode};
use serde::de::DeserializeOwned;

fn check<T: DeserializeOwned>(body: &Bytes) {
    let req = TestRequest::post().insert_header(("content-type", "application/json")).to_http_request();
    let Err(error) = parse_json::<T>(&req, body) else { return };
    assert_eq!(error.0.code(), ErrorCode::ValidationFailed);
    let Error::Refused(refusal) = &error.0 else { panic!("not a refusal: {error}") };
    // Every JSON string value of the body, 8 characters or longer, must stay out of the message.
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) {
        let mut strings = Vec::new();
        collect(&value, &mut strings);
        for s in strings.iter().filter(|s| s.len() >= 8) {
            assert!(!refusal.description.contains(s.as_str()), "echoed: {}", refusal.description);
        }
    }
}

fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect(v, out)),
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let body = Bytes::copy_from_slice(data);
    check::<CreateSubscriptionRequest>(&body);
    check::<UpdateSubscriptionRequest>(&body);
    check::<StartRequest>(&body);
    check::<ProvisionRequest>(&body);
    check::<LaunchLinkRequest>(&body);
    check::<AudienceRequest>(&body);
});
