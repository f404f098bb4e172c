//! The document's `webhooks` section: every event Pulse sends, as the request it makes to a
//! partner's endpoint, with the envelope and payload typed (docs/webhooks.md).
//!
//! utoipa has no field for OpenAPI 3.1's top-level `webhooks`, so the section is written as a
//! top-level member through the document's extensions, which serialize flattened.

use pulse_domain::webhooks::models::EventType;
use serde_json::{Value, json};
use utoipa::Modify;
use utoipa::openapi::OpenApi;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};

pub struct Webhooks;

impl Modify for Webhooks {
    fn modify(&self, openapi: &mut OpenApi) {
        let schemas = &mut openapi.components.get_or_insert_with(Default::default).schemas;
        let mut section = serde_json::Map::new();
        for event in every_event() {
            let envelope = format!("{}Event", event.name);
            let payload = format!("{}Payload", event.name);
            section.insert(event.event_type.as_str().to_owned(), operation(&event, &envelope));
            schemas.insert(envelope, envelope_schema(&event, &payload).into());
            schemas.insert(payload, event.payload.into());
        }
        openapi.extensions.get_or_insert_with(Default::default).insert("webhooks".into(), Value::Object(section));
    }
}

struct Event {
    event_type: EventType,
    /// The schema names' stem, e.g. `FeedbackReceived`.
    name: &'static str,
    aggregate: &'static str,
    aggregate_id: &'static str,
    summary: &'static str,
    payload: ObjectBuilder,
}

/// Every event type, with the payload it carries; `event_types_follow_the_domain` keeps it whole.
fn every_event() -> Vec<Event> {
    let session = || {
        ObjectBuilder::new()
            .property("conversationId", uuid("The respondent session (the same as `aggregateId`)."))
            .property("campaignId", uuid("The campaign."))
            .property("publicRef", string("The campaign's public code (the `<code>` of its links)."))
            .property("appInstallId", nullable_uuid("The app install the session is attributed to, or null."))
            .property(
                "deviceId",
                nullable_uuid("The device, only when the session was started with the device's proof; else null."),
            )
            .property("userId", nullable_uuid("The person, only when the app verified them with userHash; else null."))
    };
    let with_required = |builder: ObjectBuilder, fields: &[&str]| fields.iter().fold(builder, |b, f| b.required(*f));
    let common = ["conversationId", "campaignId", "publicRef", "appInstallId", "deviceId", "userId"];
    vec![
        Event {
            event_type: EventType::FeedbackReceived,
            name: "FeedbackReceived",
            aggregate: "conversation",
            aggregate_id: "the session id",
            summary: "A respondent session was completed (once per session).",
            payload: with_required(
                session()
                    .property("answered", count("Questions answered."))
                    .property("total", count("Questions in the survey.")),
                &[&common[..], &["answered", "total"]].concat(),
            ),
        },
        Event {
            event_type: EventType::FeedbackAnalyzed,
            name: "FeedbackAnalyzed",
            aggregate: "conversation",
            aggregate_id: "the session id",
            summary: "The analysis of a completed session was recorded (once per session); counts only.",
            payload: with_required(
                session()
                    .property("answers", count("Questions answered."))
                    .property("exchanges", count("Answer writes the respondent made."))
                    .property("analyzersRun", count("Analyzer runs made."))
                    .property("analyzersReused", count("Analyzer results reused from an earlier run.")),
                &[&common[..], &["answers", "exchanges", "analyzersRun", "analyzersReused"]].concat(),
            ),
        },
        Event {
            event_type: EventType::RespondentAcknowledged,
            name: "RespondentAcknowledged",
            aggregate: "respondent",
            aggregate_id: "the respondent id",
            summary: "The thank-you message to a respondent who finished was accepted by its provider.",
            payload: with_required(
                ObjectBuilder::new()
                    .property("campaignId", uuid("The campaign."))
                    .property("respondentId", uuid("The attached respondent who was thanked."))
                    .property("conversationId", uuid("The session the respondent finished."))
                    .property(
                        "channel",
                        one_of(
                            &["EMAIL", "SMS", "WHATSAPP", "TELEPHONY"],
                            "The thank-you's channel (TELEPHONY: spoken at the end of a call), never the address.",
                        ),
                    ),
                &["campaignId", "respondentId", "conversationId", "channel"],
            ),
        },
        Event {
            event_type: EventType::ExportReady,
            name: "ExportReady",
            aggregate: "export",
            aggregate_id: "the export id",
            summary: "An export's file was rendered; read the export for its download link.",
            payload: with_required(
                ObjectBuilder::new()
                    .property("exportId", uuid("The export."))
                    .property("campaignId", uuid("The campaign."))
                    .property("format", one_of(&["json", "pdf"], "The file's format."))
                    .property("byteSize", count("The file's size in bytes.")),
                &["exportId", "campaignId", "format", "byteSize"],
            ),
        },
        Event {
            event_type: EventType::WorkspaceApproved,
            name: "WorkspaceApproved",
            aggregate: "workspace",
            aggregate_id: "the workspace id",
            summary: "Pulse's operator approved the workspace: its campaigns can launch.",
            payload: with_required(
                ObjectBuilder::new()
                    .property("workspaceId", uuid("The workspace."))
                    .property("status", one_of(&["ACTIVE"], "The workspace's status now.")),
                &["workspaceId", "status"],
            ),
        },
        Event {
            event_type: EventType::WebhookTest,
            name: "WebhookTest",
            aggregate: "webhook",
            aggregate_id: "the endpoint id",
            summary: "Sent by simulate to one endpoint; it reports no fact.",
            payload: with_required(
                ObjectBuilder::new()
                    .property("webhookId", uuid("The endpoint."))
                    .property("message", string("A fixed text saying this is a test.")),
                &["webhookId", "message"],
            ),
        },
    ]
}

fn envelope_schema(event: &Event, payload: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .description(Some(format!(
            "The body of a `{}` delivery: compact JSON, keys in alphabetical order; verify the raw bytes, \
             then parse. Receivers must ignore fields they do not know.",
            event.event_type.as_str()
        )))
        .property("id", uuid("The event id: the same on every attempt and endpoint; also `X-SVC-Event`."))
        .property("type", one_of(&[event.event_type.as_str()], "The event type."))
        .property("aggregate", one_of(&[event.aggregate], "What the event is about."))
        .property("aggregateId", uuid(&format!("The id of what it is about: {}.", event.aggregate_id)))
        .property("orgId", uuid("The workspace."))
        .property(
            "occurredAt",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
                .description(Some("When it happened (RFC 3339, UTC).")),
        )
        .property("payload", RefOr::<Schema>::Ref(utoipa::openapi::Ref::from_schema_name(payload)))
        .required("id")
        .required("type")
        .required("aggregate")
        .required("aggregateId")
        .required("orgId")
        .required("occurredAt")
        .required("payload")
}

fn operation(event: &Event, envelope: &str) -> Value {
    let header = |name: &str, description: &str| json!({"name": name, "in": "header", "required": true, "description": description, "schema": {"type": "string"}});
    json!({
        "post": {
            "operationId": format!("{}Webhook", lower_first(event.name)),
            "summary": event.summary,
            "description": "Pulse POSTs this to every active endpoint of the workspace subscribed to the type. \
                Verify `X-SVC-Signature` before trusting the body (docs/webhooks.md).",
            "tags": ["webhooks"],
            "parameters": [
                header("X-SVC-Signature", "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">`; accept any `v1` that verifies, within 300 s of `t`."),
                header("X-SVC-Event", "The event id (the envelope's `id`): deduplicate on it."),
                header("X-SVC-Event-Type", "The event type (the envelope's `type`)."),
                header("X-SVC-Delivery", "This event to this endpoint; the same on every retry."),
            ],
            "requestBody": {
                "required": true,
                "content": {"application/json": {"schema": {"$ref": format!("#/components/schemas/{envelope}")}}},
            },
            "responses": {
                "2XX": {"description": "Received: any 2xx answered within the timeout ends the delivery."},
                "default": {"description": "Anything else, or no answer within the timeout, is retried on the schedule."},
            },
        }
    })
}

fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_lowercase().to_string() + chars.as_str()).unwrap_or_default()
}

fn uuid(description: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
        .description(Some(description))
}

fn nullable_uuid(description: &str) -> ObjectBuilder {
    uuid(description).schema_type(utoipa::openapi::schema::SchemaType::from_iter([Type::String, Type::Null]))
}

fn string(description: &str) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String).description(Some(description))
}

fn count(description: &str) -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).description(Some(description))
}

fn one_of(values: &[&str], description: &str) -> ObjectBuilder {
    string(description).enum_values(Some(values.iter().copied()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_types_follow_the_domain() {
        let documented: Vec<EventType> = every_event().iter().map(|e| e.event_type).collect();
        let mut every = EventType::SUBSCRIBABLE.to_vec();
        every.push(EventType::WebhookTest);
        assert_eq!(documented.len(), every.len());
        assert!(every.iter().all(|t| documented.contains(t)), "{documented:?}");
    }
}
