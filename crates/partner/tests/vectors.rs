//! The shared test vectors (`vectors.json`), which the Python and Node examples in the docs check
//! too. Their hashes and signatures were made with Python's `hmac`, not with this crate.

use pulse_partner::{
    Event, LaunchClaims, LaunchTokenError, WebhookError, sign_launch_token, user_hash, verify_webhook_at,
};
use serde_json::Value;

fn vectors() -> Value {
    serde_json::from_str(include_str!("vectors.json")).expect("vectors.json")
}

fn text<'a>(case: &'a Value, field: &str) -> &'a str {
    case[field].as_str().unwrap_or_else(|| panic!("`{field}` in {case}"))
}

#[test]
fn user_hashes_match_the_vectors() {
    for case in vectors()["userHash"].as_array().expect("cases") {
        assert_eq!(user_hash(text(case, "secret"), text(case, "externalId")), text(case, "userHash"), "{case}");
    }
}

#[test]
fn launch_tokens_are_signed_as_pulse_checks_them_and_bad_claims_are_refused() {
    for case in vectors()["launchToken"].as_array().expect("cases") {
        let given = &case["claims"];
        let strings = |field: &str| given[field].as_str().map(str::to_owned);
        let claims = LaunchClaims {
            campaign: text(given, "campaign").to_owned(),
            exp: given["exp"].as_i64().expect("exp"),
            jti: text(given, "jti").to_owned(),
            lang: strings("lang"),
            app_version: strings("appVersion"),
            tags: given["tags"]
                .as_array()
                .map(|tags| tags.iter().map(|t| t.as_str().expect("tag").to_owned()).collect())
                .unwrap_or_default(),
            ..LaunchClaims::default()
        };
        let now = case["now"].as_i64().expect("now");
        let signed = sign_launch_token(text(case, "keyId"), text(case, "secret"), &claims, now);
        let expected = match text(case, "outcome") {
            "ok" => None,
            "expiry" => Some(LaunchTokenError::Expiry),
            "jti" => Some(LaunchTokenError::Jti),
            "tags" => Some(LaunchTokenError::Tags),
            other => panic!("unknown outcome {other}"),
        };
        match (signed, expected) {
            (Ok(token), None) => {
                let header = jsonwebtoken::decode_header(&token).expect("a JWT");
                assert_eq!(
                    (header.alg, header.kid.as_deref()),
                    (jsonwebtoken::Algorithm::HS256, Some(text(case, "keyId")))
                );
                let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
                validation.validate_exp = false;
                let decoded = jsonwebtoken::decode::<Value>(
                    &token,
                    &jsonwebtoken::DecodingKey::from_secret(text(case, "secret").as_bytes()),
                    &validation,
                )
                .expect("verifies with the launch key's secret");
                assert_eq!(&decoded.claims, given, "{}", text(case, "name"));
            }
            (Err(error), Some(expected)) => assert_eq!(error, expected, "{}", text(case, "name")),
            (outcome, expected) => panic!("{}: got {outcome:?}, expected {expected:?}", text(case, "name")),
        }
    }
}

#[test]
fn webhook_deliveries_verify_within_the_tolerance_and_parse_into_events() {
    for case in vectors()["webhook"].as_array().expect("cases") {
        let name = text(case, "name");
        let secrets: Vec<&str> =
            case["secrets"].as_array().expect("secrets").iter().map(|s| s.as_str().expect("secret")).collect();
        let verified = verify_webhook_at(
            &secrets,
            text(case, "header"),
            text(case, "body").as_bytes(),
            case["now"].as_i64().expect("now"),
        );
        match text(case, "outcome") {
            "ok" => {
                let envelope = verified.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(envelope.event_type, text(case, "eventType"), "{name}");
                match &envelope.event {
                    Event::FeedbackReceived(received) => {
                        assert_eq!((received.answered, received.total), (3, 3), "{name}")
                    }
                    Event::Other { event_type, .. } => assert_eq!(event_type, "survey.future", "{name}"),
                    Event::WebhookTest(test) => assert!(test.message.starts_with("A test event"), "{name}"),
                    other => panic!("{name}: {other:?}"),
                }
            }
            outcome => {
                let expected = match outcome {
                    "stale" => WebhookError::Stale,
                    "bad_signature" => WebhookError::BadSignature,
                    "malformed" => WebhookError::MalformedSignature,
                    other => panic!("unknown outcome {other}"),
                };
                assert_eq!(verified.expect_err(name), expected, "{name}");
            }
        }
    }
}
