//! Reading requests and writing answers, the same way on every route.

use std::net::IpAddr;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::idempotency::models::{Completed, IdempotencyKey, Idempotent, StoredResponse};
use pulse_domain::{Error, ErrorCode, RateLimitState};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, insert_rate_limit_headers};
use crate::state::{AppState, NetworkPolicy, Platform};

pub const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
pub const IDEMPOTENCY_REPLAYED: &str = "Idempotency-Replayed";
pub const WORKSPACE_HEADER: &str = "X-SVC-Workspace";

/// The API key from `Authorization: Bearer …` or `X-API-Key`; exactly one credential may be sent.
///
/// # Errors
/// `Unauthenticated` when both headers, or either header twice, are sent: a proxy that read the
/// other one would disagree with us about who is calling.
pub fn presented_api_key(req: &HttpRequest) -> Result<Option<&str>, ApiError> {
    let api_key = single_header(req, "X-API-Key")?;
    let authorization = single_header(req, header::AUTHORIZATION.as_str())?;
    match (authorization, api_key) {
        (Some(_), Some(_)) => Err(ambiguous()),
        (Some(authorization), None) => Ok(bearer_of(authorization)),
        (None, api_key) => Ok(api_key.map(str::trim)),
    }
}

/// The bearer token of `Authorization: Bearer …`.
///
/// # Errors
/// `Unauthenticated` when `Authorization` is sent more than once.
pub fn bearer_token(req: &HttpRequest) -> Result<Option<&str>, ApiError> {
    Ok(single_header(req, header::AUTHORIZATION.as_str())?.and_then(bearer_of))
}

fn bearer_of(authorization: &str) -> Option<&str> {
    authorization.strip_prefix("Bearer ").or_else(|| authorization.strip_prefix("bearer ")).map(str::trim)
}

/// The header's value when it is sent once; `None` when it is absent. A value that is not visible
/// ASCII reads as empty, never as absent: it still counts as a credential sent.
fn single_header<'r>(req: &'r HttpRequest, name: &str) -> Result<Option<&'r str>, ApiError> {
    let mut values = req.headers().get_all(name);
    let first = values.next();
    if values.next().is_some() {
        return Err(ambiguous());
    }
    Ok(first.map(|v| v.to_str().unwrap_or_default()))
}

fn ambiguous() -> ApiError {
    ApiError(pulse_domain::Error::refused(
        pulse_domain::ErrorCode::Unauthenticated,
        "send exactly one credential: one Authorization header or one X-API-Key header, not both or either twice",
    ))
}

/// The `X-SVC-Workspace` header, if sent.
pub fn workspace_header(req: &HttpRequest) -> Option<&str> {
    req.headers().get(WORKSPACE_HEADER).map(|v| v.to_str().unwrap_or("invalid"))
}

/// The network a request comes from, as a quota subject: an IPv4 address or an IPv6 /64. The
/// `X-Forwarded-For` header counts only when the peer is a configured proxy; then the nearest
/// address that is not a proxy is the client.
pub fn network_subject(req: &HttpRequest, policy: &NetworkPolicy) -> String {
    match client_address(req, policy) {
        Some(IpAddr::V4(v4)) => format!("net:{v4}"),
        Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("net:{v4}"),
            None => {
                let s = v6.segments();
                format!("net:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        None => "net:unknown".to_owned(),
    }
}

/// The client's address: the peer's, or the nearest untrusted hop a trusted proxy names in
/// `X-Forwarded-For`.
pub fn client_address(req: &HttpRequest, policy: &NetworkPolicy) -> Option<IpAddr> {
    let peer = req.peer_addr().map(|a| a.ip());
    if peer.is_some_and(|p| policy.trusts(&p)) {
        let forwarded = req.headers().get_all("X-Forwarded-For").filter_map(|v| v.to_str().ok()).collect::<Vec<_>>();
        let hops: Vec<IpAddr> =
            forwarded.iter().flat_map(|v| v.split(',')).filter_map(|h| h.trim().parse().ok()).collect();
        if let Some(nearest) = hops.iter().rev().find(|ip| !policy.trusts(ip)) {
            return Some(*nearest);
        }
    }
    peer
}

/// Parses a JSON body into `T`, naming the offending field when it does not fit. Messages never
/// echo the values that were sent: they may be secrets or personal data.
///
/// # Errors
/// `UnsupportedMediaType` without a JSON content type or with a content coding; `ValidationFailed`
/// otherwise.
pub fn parse_json<T: DeserializeOwned>(req: &HttpRequest, body: &Bytes) -> Result<T, ApiError> {
    let content_type = req.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if essence != "application/json" && !essence.ends_with("+json") {
        return Err(ApiError::refused(ErrorCode::UnsupportedMediaType, "send the body as application/json"));
    }
    // RFC 9110 §15.5.16: a coding the server does not apply is refused, not read as plain bytes.
    let encodings = req.headers().get_all(header::CONTENT_ENCODING);
    let coded = encodings
        .filter_map(|v| v.to_str().ok().or(Some("?")))
        .flat_map(|v| v.split(','))
        .any(|coding| !coding.trim().eq_ignore_ascii_case("identity") && !coding.trim().is_empty());
    if coded {
        return Err(ApiError::refused(
            ErrorCode::UnsupportedMediaType,
            "Content-Encoding is not accepted: send the body uncompressed",
        ));
    }
    let Some(first) = body.iter().find(|b| !b.is_ascii_whitespace()) else {
        return Err(ApiError::refused(ErrorCode::ValidationFailed, "the request body is empty; send a JSON object"));
    };
    // serde reads a JSON array into a struct's fields in order; every body here is an object.
    if *first != b'{' {
        return Err(ApiError::refused(ErrorCode::ValidationFailed, "expected the body to be a JSON object"));
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value = match serde_path_to_error::deserialize(&mut deserializer) {
        Ok(value) => {
            deserializer.end().map_err(|_| {
                ApiError::refused(ErrorCode::ValidationFailed, "the body has data after the JSON value")
            })?;
            value
        }
        Err(error) => with_integral_floats(body).unwrap_or(Err(error)).map_err(refusal)?,
    };
    Ok(value)
}

/// The refusal of a body that does not fit, naming the field at fault.
fn refusal(error: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    let path = error.path().to_string();
    let inner = error.into_inner();
    let description = if inner.is_syntax() || inner.is_eof() {
        format!("the body is not valid JSON (line {}, column {})", inner.line(), inner.column())
    } else if path == "." {
        without_values(&strip_position(&inner.to_string()))
    } else {
        format!("`{path}`: {}", without_values(&strip_position(&inner.to_string())))
    };
    ApiError::refused(ErrorCode::ValidationFailed, description)
}

/// JSON has one number type and JSON Schema counts `375.0` as an integer, but serde refuses it
/// for an integer field. A body that failed is read again with every integral number written as
/// an integer (the error of that reading then answers); `None` when the body holds no such number
/// or is not JSON, so the first error stands. Only refused bodies pay for the second reading.
fn with_integral_floats<T: DeserializeOwned>(
    body: &Bytes,
) -> Option<Result<T, serde_path_to_error::Error<serde_json::Error>>> {
    fn integral(value: &mut serde_json::Value) -> bool {
        match value {
            serde_json::Value::Number(number) if number.is_f64() => {
                // i64 and u64 hold every integer in these ranges; beyond them the float stays
                // and the field refuses it as out of range.
                let replaced = match number.as_f64() {
                    Some(f) if f.fract() == 0.0 && (-(2f64.powi(63))..2f64.powi(63)).contains(&f) => {
                        serde_json::Value::from(f as i64)
                    }
                    Some(f) if f.fract() == 0.0 && (0.0..2f64.powi(64)).contains(&f) => {
                        serde_json::Value::from(f as u64)
                    }
                    _ => return false,
                };
                *value = replaced;
                true
            }
            serde_json::Value::Array(items) => items.iter_mut().fold(false, |changed, item| integral(item) | changed),
            serde_json::Value::Object(fields) => {
                fields.values_mut().fold(false, |changed, field| integral(field) | changed)
            }
            _ => false,
        }
    }
    let mut value: serde_json::Value = serde_json::from_slice(body).ok()?;
    integral(&mut value).then(|| serde_path_to_error::deserialize(value))
}

fn strip_position(message: &str) -> String {
    message.split(" at line ").next().unwrap_or(message).to_owned()
}

/// serde's "invalid type: string \"…\", expected …" quotes the value; keep only what was expected.
fn without_values(message: &str) -> String {
    for lead in ["invalid type", "invalid value", "unknown variant"] {
        if message.starts_with(lead) {
            return match message.split_once(", expected ") {
                Some((_, expected)) => format!("{lead}, expected {expected}"),
                None => lead.to_owned(),
            };
        }
    }
    message.to_owned()
}

/// A JSON answer with the quota headers of the call.
pub fn json_response<T: Serialize>(status: StatusCode, body: &T, rate: Option<RateLimitState>) -> HttpResponse {
    let mut response = HttpResponse::build(status).json(body);
    if let Some(state) = rate {
        insert_rate_limit_headers(&mut response, &state, false);
    }
    response
}

/// Marks an answer that carries a secret (a token, a session token, a key's secret) so no cache
/// between the caller and us keeps it.
pub fn no_store(mut response: HttpResponse) -> HttpResponse {
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What a route produced, and what a replay under the same `Idempotency-Key` should say instead.
pub struct Reply {
    pub status: StatusCode,
    pub body: serde_json::Value,
    pub replay_body: serde_json::Value,
}

/// Runs `operation` under the request's `Idempotency-Key`, if it sent one. `scope` names the
/// namespace of keys (an API key, a campaign code...). A replay answers 200 with the stored body
/// and `Idempotency-Replayed: true`.
///
/// # Errors
/// `ValidationFailed` for a bad key; `Conflict` per the idempotency rules; the operation's errors.
pub async fn idempotent<P, F, Fut>(
    state: &AppState<P>,
    req: &HttpRequest,
    scope: &str,
    canonical_request: &serde_json::Value,
    rate: Option<RateLimitState>,
    operation: F,
) -> Result<HttpResponse, ApiError>
where
    P: Platform,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Reply, Error>>,
{
    let Some(raw) = req.headers().get(IDEMPOTENCY_KEY) else {
        let reply = operation().await?;
        return Ok(json_response(reply.status, &reply.body, rate));
    };
    let key = IdempotencyKey::parse(raw.to_str().unwrap_or_default())?;
    // The path (with its ids), the workspace it acts in and the canonical body (keys sorted) make
    // two requests "the same": a key reused for another campaign or workspace is a conflict, never
    // a replay of the first one's answer.
    let fingerprint = format!(
        "{} {}\n{}\n{}",
        req.method(),
        req.path(),
        workspace_header(req).unwrap_or_default(),
        canonical_request
    );
    let outcome = state
        .idempotency
        .run(scope, &key, fingerprint.as_bytes(), || async {
            let reply = operation().await?;
            let replay_body = serde_json::to_vec(&reply.replay_body).map_err(Error::internal)?;
            Ok(Completed {
                value: reply,
                replay: StoredResponse { status: StatusCode::OK.as_u16(), body: replay_body },
            })
        })
        .await?;
    Ok(match outcome {
        Idempotent::Fresh(reply) => json_response(reply.status, &reply.body, rate),
        Idempotent::Replayed(stored) => {
            let status = StatusCode::from_u16(stored.status).map_err(|e| ApiError(Error::internal(e)))?;
            let mut response = HttpResponse::build(status).content_type("application/json").body(stored.body);
            response
                .headers_mut()
                .insert(header::HeaderName::from_static("idempotency-replayed"), HeaderValue::from_static("true"));
            if let Some(state) = rate {
                insert_rate_limit_headers(&mut response, &state, false);
            }
            response
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_messages_lose_the_values() {
        assert_eq!(
            without_values("invalid type: string \"ada@example.com\", expected u32"),
            "invalid type, expected u32"
        );
        assert_eq!(
            without_values("unknown variant `secret`, expected one of `A`, `B`"),
            "unknown variant, expected one of `A`, `B`"
        );
        assert_eq!(without_values("missing field `name`"), "missing field `name`");
        assert_eq!(strip_position("missing field `name` at line 1 column 2"), "missing field `name`");
    }

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Counts {
        count: u32,
        ratio: f64,
        scores: Vec<i64>,
    }

    fn parse(body: &'static str) -> Result<Counts, String> {
        let req = actix_web::test::TestRequest::default()
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .to_http_request();
        parse_json(&req, &Bytes::from_static(body.as_bytes())).map_err(|e| e.0.to_string())
    }

    #[test]
    fn an_integral_number_written_as_a_float_fills_an_integer_field() {
        let expected = Counts { count: 375, ratio: 1.0, scores: vec![-2, 0] };
        assert_eq!(parse(r#"{"count": 375.0, "ratio": 1.0, "scores": [-2.0, 0]}"#), Ok(expected));
        let fraction = parse(r#"{"count": 375.5, "ratio": 1, "scores": []}"#).expect_err("a fraction");
        assert!(fraction.contains("`count`: invalid type"), "{fraction}");
        let range = parse(r#"{"count": -1.0, "ratio": 1, "scores": []}"#).expect_err("out of range");
        assert!(range.contains("`count`"), "{range}");
        // The second reading answers with its own error: here the field it does not know.
        let unknown = parse(r#"{"count": 1.0, "ratio": 1, "scores": [], "other": 2.0}"#).expect_err("unknown");
        assert!(unknown.contains("unknown field"), "{unknown}");
        let trailing = parse(r#"{"count": 1, "ratio": 1, "scores": []} 2"#).expect_err("trailing data");
        assert!(trailing.contains("after the JSON value"), "{trailing}");
    }

    #[test]
    fn a_body_is_an_object_never_an_array_of_its_fields() {
        let array = parse(r#"[375, 1.0, []]"#).expect_err("an array");
        assert!(array.contains("expected the body to be a JSON object"), "{array}");
        assert!(parse(" \n{\"count\": 1, \"ratio\": 0.5, \"scores\": []}").is_ok());
    }
}
