//! Start challenges made by ALTCHA's own crate, as Pulse issues them, solved here and verified
//! by ALTCHA's verifier from the payload as sent.

use std::collections::BTreeMap;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use altcha::{CreateChallengeOptions, Payload, VerifySolutionOptions};
use pulse_partner::challenge::{self, ChallengeError};
use serde_json::{Value, json};

const SIGNATURE_SECRET: &str = "challenge-signature-secret";
const KEY_SECRET: &str = "challenge-key-secret";

/// A challenge in deterministic mode whose solution is `counter`, as JSON. Cheap (50 iterations
/// a try), since the tests run unoptimized.
fn issued(counter: u32) -> Value {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs();
    let challenge = altcha::create_challenge(CreateChallengeOptions {
        algorithm: "PBKDF2/SHA-256".into(),
        cost: 50,
        counter: Some(counter),
        data: Some(BTreeMap::from([("code".to_owned(), json!("q3Xb8LmT2aZk"))])),
        expires_at: Some(now + 600),
        hmac_key_signature_secret: Some(KEY_SECRET.into()),
        hmac_signature_secret: Some(SIGNATURE_SECRET.into()),
        ..CreateChallengeOptions::default()
    })
    .expect("a challenge");
    serde_json::to_value(challenge).expect("JSON")
}

fn keys(object: &Value) -> Vec<&str> {
    object.as_object().expect("an object").keys().map(String::as_str).collect()
}

#[test]
fn a_solved_challenge_is_sent_back_as_received_and_verifies() {
    let challenge = issued(37);
    assert_eq!(keys(&challenge), ["parameters", "signature"]);
    assert_eq!(
        keys(&challenge["parameters"]),
        ["algorithm", "cost", "data", "expiresAt", "keyLength", "keyPrefix", "keySignature", "nonce", "salt"]
    );

    let altcha = challenge::solve(&challenge).expect("solved");
    assert_eq!(keys(&altcha), ["challenge", "solution"]);
    assert_eq!(altcha["challenge"], challenge, "the challenge as received, to the last field");
    assert_eq!(altcha["solution"]["counter"], 37);

    let payload: Payload = serde_json::from_value(altcha).expect("ALTCHA's payload");
    let mut options = VerifySolutionOptions::new(&payload.challenge, &payload.solution, SIGNATURE_SECRET);
    let by_deriving = altcha::verify_solution(options).expect("checked");
    assert!(by_deriving.verified, "{by_deriving:?}");
    options = VerifySolutionOptions::new(&payload.challenge, &payload.solution, SIGNATURE_SECRET);
    options.hmac_key_signature_secret = Some(KEY_SECRET.into());
    let by_key_signature = altcha::verify_solution(options).expect("checked");
    assert!(by_key_signature.verified, "{by_key_signature:?}");
}

#[test]
fn a_field_altchas_types_do_not_know_is_sent_back_too() {
    let mut challenge = issued(3);
    challenge["parameters"]["addedLater"] = json!({ "nested": [1, 2.5, null] });
    let altcha = challenge::solve(&challenge).expect("solved");
    assert_eq!(altcha["challenge"], challenge);
}

#[test]
fn a_malformed_or_unbounded_challenge_is_an_error_not_a_panic_or_a_long_search() {
    let changed = |change: fn(&mut Value)| {
        let mut challenge = issued(3);
        change(&mut challenge);
        challenge
    };
    let malformed = [
        Value::Null,
        json!("a challenge"),
        json!({}),
        changed(|c| c["parameters"]["nonce"] = json!("not hex")),
        changed(|c| c["parameters"]["salt"] = json!(12)),
        changed(|c| c["parameters"]["cost"] = json!(-1)),
        changed(|c| c["parameters"]["cost"] = json!(u32::MAX)),
        changed(|c| c["parameters"]["keyLength"] = json!(0)),
        changed(|c| c["parameters"]["keyLength"] = json!(1u64 << 60)),
        changed(|c| c["parameters"]["keyPrefix"] = json!("0".repeat(65))),
        changed(|c| c["parameters"]["keyPrefix"] = json!("xyz")),
        changed(|c| {
            c["parameters"].as_object_mut().expect("parameters").remove("salt");
        }),
    ];
    for challenge in malformed {
        assert_eq!(challenge::solve(&challenge), Err(ChallengeError::Malformed), "{challenge}");
    }
    let argon = changed(|c| c["parameters"]["algorithm"] = json!("ARGON2ID"));
    assert_eq!(challenge::solve(&argon), Err(ChallengeError::UnsupportedAlgorithm));
}

#[test]
fn the_search_stops_at_the_timeout() {
    let mut challenge = issued(3);
    // A whole key to find, which no counter in reach derives.
    challenge["parameters"]["keyPrefix"] = json!("f".repeat(64));
    let started = Instant::now();
    assert_eq!(challenge::solve_within(&challenge, Duration::from_millis(50)), Err(ChallengeError::TimedOut));
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}
