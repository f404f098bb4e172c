//! The generated contract.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_document_is_served_without_a_key_and_lists_every_route() {
    let app = spawn_app().await;
    let response = app.client.get(app.url("/api/v1/channel/openapi.json")).send().await.expect("response");
    assert_eq!(response.status(), 200);
    let document: Value = response.json().await.expect("json");
    assert!(document["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));

    let routes: BTreeSet<String> = document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            item.as_object().into_iter().flat_map(|ops| ops.keys()).map(move |m| format!("{} {path}", m.to_uppercase()))
        })
        .collect();
    let expected: BTreeSet<String> = [
        "GET /api/v1/channel/whoami",
        "GET /api/v1/channel/orgs",
        "POST /api/v1/channel/orgs",
        "GET /api/v1/channel/openapi.json",
        "POST /api/v1/channel/campaigns",
        "GET /api/v1/channel/audit-events",
        "GET /api/v1/channel/campaigns",
        "GET /api/v1/channel/campaigns/{id}",
        "GET /api/v1/channel/campaigns/{id}/results",
        "GET /api/v1/channel/campaigns/{id}/results/breakdown",
        "GET /api/v1/channel/campaigns/{id}/results/trend",
        "POST /api/v1/channel/campaigns/{id}/exports",
        "GET /api/v1/channel/exports/{id}",
        "GET /api/v1/channel/downloads/{token}/{filename}",
        "POST /api/v1/channel/campaigns/{id}/respondents",
        "POST /api/v1/channel/campaigns/{id}/launch",
        "POST /api/v1/channel/campaigns/{id}/pause",
        "POST /api/v1/channel/campaigns/{id}/resume",
        "POST /api/v1/channel/campaigns/{id}/close",
        "POST /api/v1/channel/launch",
        "GET /api/v1/campaigns/{campaignId}/launch-keys",
        "POST /api/v1/campaigns/{campaignId}/launch-keys",
        "DELETE /api/v1/campaigns/{campaignId}/launch-keys/{keyId}",
        "PUT /api/v1/campaigns/{campaignId}/launch-access",
        "GET /api/v1/campaigns/{campaignId}/app-installs",
        "GET /api/v1/channel/devices",
        "DELETE /api/v1/channel/devices/{deviceId}",
        "POST /api/v1/channel/users/erase",
        "POST /api/v1/channel/campaigns/{id}/respondents/erase",
        "GET /api/v1/channel/campaigns/{id}/installs",
        "POST /api/v1/channel/webhooks",
        "GET /api/v1/channel/webhooks",
        "GET /api/v1/channel/webhooks/{id}",
        "PATCH /api/v1/channel/webhooks/{id}",
        "DELETE /api/v1/channel/webhooks/{id}",
        "POST /api/v1/channel/webhooks/{id}/rotate-secret",
        "POST /api/v1/channel/webhooks/{id}/simulate",
        "GET /api/v1/channel/webhooks/{id}/deliveries",
        "POST /api/v1/channel/webhooks/{id}/deliveries/{deliveryId}/redeliver",
        "POST /api/v1/channel/webhooks/{id}/redeliver",
        "POST /api/v1/apps/register",
        "POST /api/v1/apps/heartbeat",
        "GET /api/v1/public/pulse/{code}/access",
        "POST /api/v1/public/pulse/{code}/start",
        "POST /api/v1/public/pulse/{code}/sessions/{sessionId}/answers",
        "POST /api/v1/public/pulse/{code}/sessions/{sessionId}/complete",
        "POST /api/v1/public/messages/replies",
        "POST /api/v1/public/calls/{messageId}/{step}",
        "POST /api/v1/public/calls/{messageId}/status",
        "POST /api/v1/public/calls/{messageId}/recording",
        "GET /p/{code}",
        "GET /s/{code}/{nonce}",
        "GET /assets/{name}",
        "GET /u/{token}",
        "POST /u/{token}",
        "GET /healthz",
        "GET /readyz",
        "GET /metrics",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(routes, expected);

    // Every operation documents its refusals with the envelope.
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("operations") {
            for (status, response) in operation["responses"].as_object().expect("responses") {
                if status.starts_with('4') || status.starts_with('5') {
                    let schema = &response["content"]["application/json"]["schema"]["$ref"];
                    assert_eq!(schema, "#/components/schemas/ErrorBody", "{method} {path} {status}");
                }
            }
        }
    }
    let description = document["info"]["description"].as_str().expect("description");
    for code in pulse_domain::ErrorCode::ALL {
        assert!(description.contains(code.as_str()), "catalog lists {code}");
    }
}

#[test]
fn the_document_matches_its_snapshot() {
    let document: Value = serde_json::from_str(pulse_api::openapi::document()).expect("json");
    insta::assert_json_snapshot!("openapi", document);
}

#[test]
fn the_error_doc_lists_every_code_with_its_status() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/errors.md")).expect("docs/errors.md");
    for code in pulse_domain::ErrorCode::ALL {
        let status = pulse_api::error::status_of(code).as_u16();
        let row = format!("| `{}` | {status} |", code.as_str());
        assert!(doc.contains(&row), "docs/errors.md lacks the row {row}");
    }
}

/// Every operation with the method and path it is served at.
fn operations(document: &Value) -> Vec<(String, &Value)> {
    document["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, item)| {
            item.as_object().expect("operations").iter().map(move |(method, op)| (format!("{method} {path}"), op))
        })
        .collect()
}

#[test]
fn every_operation_has_its_own_id_and_the_refusals_any_route_of_its_kind_can_give() {
    let document: Value = serde_json::from_str(pulse_api::openapi::document()).expect("json");
    assert!(document["servers"].as_array().is_some_and(|s| !s.is_empty()), "servers");
    let mut ids = BTreeSet::new();
    for (route, operation) in operations(&document) {
        let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{route} has no operationId"));
        assert!(ids.insert(id.to_owned()), "operationId {id} repeats ({route})");
        let responses = operation["responses"].as_object().expect("responses");
        if operation["requestBody"]["content"].get("application/json").is_some() {
            assert!(responses.contains_key("415"), "{route} reads JSON but does not document 415");
        }
        for parameter in operation["parameters"].as_array().into_iter().flatten() {
            let name = &parameter["name"];
            if parameter["in"] == "header" {
                // A generated client sends what the schema types: a header is a string, never null.
                assert_eq!(parameter["schema"]["type"], "string", "{route}: header {name}");
            }
            if name == "Idempotency-Key" {
                for status in ["400", "409"] {
                    assert!(
                        responses.contains_key(status),
                        "{route} reads Idempotency-Key but does not document {status}"
                    );
                }
            }
        }
        let from_the_binary_alone = [
            "get /healthz",
            "get /metrics",
            "get /api/v1/channel/openapi.json",
            "get /assets/{name}",
            "get /p/{code}",
            "get /s/{code}/{nonce}",
        ];
        assert!(responses.contains_key("408"), "{route} does not document 408");
        if !from_the_binary_alone.contains(&route.as_str()) {
            for status in ["500", "503"] {
                assert!(responses.contains_key(status), "{route} does not document {status}");
            }
        }
    }
}

/// The document is valid OpenAPI by a validator no one here wrote.
#[test]
fn openapi_spec_validator_accepts_the_document() {
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("openapi.json");
    std::fs::write(&file, pulse_api::openapi::document()).expect("write the document");
    let output = std::process::Command::new("openapi-spec-validator").arg(&file).output().unwrap_or_else(|e| {
        panic!("openapi-spec-validator is missing ({e}): `python3 -m pip install openapi-spec-validator`; .ci/run installs it")
    });
    assert!(
        output.status.success(),
        "openapi-spec-validator refused the document:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Request schemas say what the server checks by hand, from the domain's own lists.
#[test]
fn request_schemas_are_as_strict_as_the_server() {
    use pulse_domain::apps::models::AppPlatform;
    use pulse_domain::webhooks::models::EventType;

    let document: Value = serde_json::from_str(pulse_api::openapi::document()).expect("json");
    let schemas = &document["components"]["schemas"];
    let platforms: Vec<&str> = AppPlatform::ALL.iter().map(|p| p.as_str()).collect();
    assert_eq!(schemas["RegisterRequest"]["properties"]["platform"]["enum"], serde_json::json!(platforms));
    let subscribable: Vec<&str> = EventType::SUBSCRIBABLE.map(EventType::as_str).to_vec();
    for request in ["CreateSubscriptionRequest", "UpdateSubscriptionRequest"] {
        assert_eq!(schemas[request]["properties"]["eventTypes"]["items"]["enum"], serde_json::json!(subscribable));
    }
    let generations = schemas["HeartbeatRequest"]["oneOf"].as_array().expect("the heartbeat is one of two bodies");
    let required: Vec<&Value> = generations.iter().map(|g| &g["required"]).collect();
    assert_eq!(
        required,
        [&serde_json::json!(["deviceId", "refreshToken"]), &serde_json::json!(["installId", "appVersion"])]
    );
    assert_eq!(schemas["DeviceLabels"]["additionalProperties"], false, "unknown device keys are refused");
    let locale_patterns = [
        &generations[0]["properties"]["locale"]["pattern"],
        &generations[1]["properties"]["locale"]["pattern"],
        &schemas["RegisterRequest"]["properties"]["locale"]["pattern"],
    ];
    assert!(locale_patterns.iter().all(|p| *p == "^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$"), "{locale_patterns:?}");
    // Rules between fields: exactly one survey source; transcripts for JSON exports only.
    for component in ["ProvisionRequest", "ExportRequestBody"] {
        let rule = &schemas[component]["allOf"][1]["oneOf"];
        assert_eq!(rule.as_array().map(Vec::len), Some(2), "{component}: {rule}");
    }
    for (component, field) in
        [("CreateWorkspaceRequest", "name"), ("AudienceRowRequest", "externalRef"), ("AudienceRowRequest", "phone")]
    {
        assert!(schemas[component]["properties"][field]["pattern"].is_string(), "{component}.{field}");
    }

    for (route, operation) in operations(&document) {
        for parameter in operation["parameters"].as_array().into_iter().flatten() {
            if parameter["name"] == "Idempotency-Key" {
                let schema = &parameter["schema"];
                assert_eq!(
                    (&schema["minLength"], &schema["maxLength"]),
                    (&serde_json::json!(1), &serde_json::json!(255)),
                    "{route}"
                );
            }
        }
    }
}

/// The languages the document allows in a brief are the ones the built-in generator writes.
#[tokio::test]
async fn the_documented_brief_languages_are_the_generators() {
    use pulse_domain::campaigns::models::{Brief, LanguageTag};
    use pulse_domain::campaigns::ports::SurveyGenerator as _;
    use pulse_generator::TemplateGenerator;

    let brief = |tag: &str| Brief {
        intent_text: "How was the delivery of your last order?".to_owned(),
        question_count: 3,
        languages: vec![LanguageTag::parse("languages", tag).expect("a language tag")],
        tone: None,
        banned_topics: Vec::new(),
        nps: false,
    };
    for code in pulse_api::openapi::BRIEF_LANGUAGES {
        let written = TemplateGenerator.generate(&brief(&format!("{}-XX", code.to_uppercase()))).await;
        assert!(written.is_ok(), "the document offers {code}, the generator refuses it");
    }
    assert!(TemplateGenerator.generate(&brief("sv")).await.is_err(), "a language the document leaves out is refused");
    let document: Value = serde_json::from_str(pulse_api::openapi::document()).expect("json");
    let pattern = &document["components"]["schemas"]["BriefConstraints"]["properties"]["languages"]["items"]["pattern"];
    assert!(pattern.as_str().is_some_and(|p| p.contains("[Nn][Ll]")), "{pattern}");
}
