//! Request schemas exactly as strict as the server, where the derived ones cannot say it: value
//! lists taken from the domain's own constants, the heartbeat's two generations, and the shapes of
//! headers and query values that the server checks by hand. A generator or fuzzer reading the
//! document then sends nothing the server refuses for its shape, and nothing it would accept is
//! forbidden.

use std::collections::BTreeMap;

use pulse_domain::apps::models::AppPlatform;
use pulse_domain::results::models::{
    MAX_ATTRIBUTE_NAME_CHARS, MAX_FILTER_ATTRIBUTES, MAX_FILTER_TAGS, MAX_FILTER_VALUE_CHARS,
};
use pulse_domain::webhooks::models::EventType;
use serde_json::Value;
use utoipa::Modify;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{
    AllOfBuilder, ArrayBuilder, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat, SchemaType,
    Type,
};
use utoipa::openapi::{OpenApi, RefOr};

/// The characters `char::is_control` names (C0, DEL and C1), which the server refuses in text.
const CONTROL: &str = r"\x00-\x1F\x7F-\x9F";

/// `Idempotency-Key`: 1 to 255 printable ASCII characters (`IdempotencyKey::parse`).
const IDEMPOTENCY_KEY_PATTERN: &str = "^[ -~]+$";

/// An app's locale as `LanguageTag::parse` reads it after `_` becomes `-`: a primary subtag of 2
/// or 3 letters, then subtags of letters and digits, 2 to 24 characters in all.
const LOCALE_PATTERN: &str = "^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$";

pub(super) struct StrictRequests;

impl Modify for StrictRequests {
    fn modify(&self, openapi: &mut OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                strict_parameters(operation);
            }
        }
        let Some(components) = openapi.components.as_mut() else { return };
        let schemas = &mut components.schemas;
        if let Some(platform) = property_mut(schemas.get_mut("RegisterRequest"), "platform") {
            platform.enum_values = Some(AppPlatform::ALL.iter().map(|p| Value::from(p.as_str())).collect());
        }
        if let Some(locale) = property_mut(schemas.get_mut("RegisterRequest"), "locale") {
            locale.min_length = Some(2);
            locale.pattern = Some(LOCALE_PATTERN.to_owned());
        }
        for request in ["CreateSubscriptionRequest", "UpdateSubscriptionRequest"] {
            if let Some(RefOr::T(Schema::Object(object))) = schemas.get_mut(request) {
                let subscribable = ArrayBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
                    .items(string().enum_values(Some(EventType::SUBSCRIBABLE.map(EventType::as_str))))
                    .description(Some("Event types to receive; empty, null or omitted: all of them"));
                object.properties.insert("eventTypes".to_owned(), subscribable.into());
            }
        }
        // Free text without control characters (`checked_text` and `bounded_text` in the domain).
        let single_line = format!("^[^{CONTROL}]*$");
        for (component, fields) in [
            ("CreateWorkspaceRequest", &["externalRef", "name", "team", "location"][..]),
            ("AudienceRowRequest", &["externalRef", "name"][..]),
            ("LaunchLinkRequest", &["externalUserRef"][..]),
            ("ProvisionRequest", &["name"][..]),
            ("OrderRequest", &["packageType"][..]),
            ("BriefConstraints", &["tone"][..]),
        ] {
            for field in fields {
                if let Some(property) = property_mut(schemas.get_mut(component), field) {
                    property.pattern = Some(single_line.clone());
                }
            }
        }
        // Flat maps of labels: keys and string values without control characters.
        let no_control = || string().pattern(Some(format!("^[^{CONTROL}]*$")));
        let maps = [
            (
                "RegisterRequest",
                "metadata",
                32,
                no_control().min_length(Some(1)),
                Schema::from(no_control().max_length(Some(256))),
                "Up to 32 flat string labels of at most 256 characters, 2 KB as JSON",
            ),
            (
                "LaunchLinkRequest",
                "attributes",
                64,
                no_control(),
                OneOfBuilder::new()
                    .item(no_control())
                    .item(ObjectBuilder::new().schema_type(Type::Number))
                    .item(ObjectBuilder::new().schema_type(Type::Boolean))
                    .into(),
                "At most 64 keys and 8 KB of JSON; string, number or boolean values only",
            ),
        ];
        for (component, field, max_keys, keys, values, description) in maps {
            if let Some(RefOr::T(Schema::Object(object))) = schemas.get_mut(component) {
                let map = ObjectBuilder::new()
                    .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
                    .max_properties(Some(max_keys))
                    .property_names(Some(keys))
                    .additional_properties(Some(values))
                    .description(Some(description));
                object.properties.insert(field.to_owned(), map.into());
            }
        }
        // A phone number: at least four digits among spaces, `+ - ( ) .` (`is_phone`).
        if let Some(phone) = property_mut(schemas.get_mut("AudienceRowRequest"), "phone") {
            phone.pattern = Some(r"^[ +().\-]*([0-9][ +().\-]*){4,}$".to_owned());
        }
        // Tabs and line breaks are allowed in a brief's intent.
        if let Some(intent) = property_mut(schemas.get_mut("BriefRequest"), "intentText") {
            intent.pattern = Some(r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*$".to_owned());
        }
        // A device registering again names itself by its id.
        if let Some(device) = property_mut(schemas.get_mut("RegisterRequest"), "deviceId") {
            device.format = Some(SchemaFormat::KnownFormat(KnownFormat::Uuid));
        }
        // The app's facts are trimmed and must hold something printable (`text_field`).
        for (field, max) in
            [("appId", 128), ("appVersion", 32), ("deviceModel", 64), ("osVersion", 32), ("vendorDeviceId", 128)]
        {
            if let Some(property) = property_mut(schemas.get_mut("RegisterRequest"), field) {
                property.min_length = Some(1);
                property.max_length = Some(max);
                property.pattern = printable(max).build().pattern;
            }
        }
        schemas.insert("HeartbeatRequest".to_owned(), heartbeat().into());
        // Rules between fields, added to the derived schemas with `allOf`.
        let exactly_one_source = OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .required("brief")
                    .property("brief", ObjectBuilder::new().schema_type(Type::Object))
                    .property("surveyId", ObjectBuilder::new().schema_type(Type::Null)),
            )
            .item(
                ObjectBuilder::new()
                    .required("surveyId")
                    .property("surveyId", string())
                    .property("brief", ObjectBuilder::new().schema_type(Type::Null)),
            )
            .description(Some("Exactly one of `brief` and `surveyId`"));
        also(schemas, "ProvisionRequest", exactly_one_source);
        let transcripts_in_json_only = OneOfBuilder::new()
            .item(ObjectBuilder::new().property("format", string().enum_values(Some(["json"]))))
            .item(ObjectBuilder::new().property("format", string().enum_values(Some(["pdf"]))).property(
                "includeTranscripts",
                ObjectBuilder::new().schema_type(Type::Boolean).enum_values(Some([false])),
            ))
            .description(Some("`includeTranscripts` is for JSON exports only"));
        also(schemas, "ExportRequestBody", transcripts_in_json_only);
    }
}

/// `name` must also satisfy `rule`.
fn also(schemas: &mut BTreeMap<String, RefOr<Schema>>, name: &str, rule: impl Into<RefOr<Schema>>) {
    if let Some(derived) = schemas.remove(name) {
        schemas.insert(name.to_owned(), AllOfBuilder::new().item(derived).item(rule).into());
    }
}

fn string() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// Text the server trims and checks: 1 to `max` characters, no control character, not only
/// white space (`text_field` in the apps domain).
fn printable(max: usize) -> ObjectBuilder {
    string()
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(format!("^[^{CONTROL}]*[^\\s{CONTROL}][^{CONTROL}]*$")))
}

fn property_mut<'a>(schema: Option<&'a mut RefOr<Schema>>, name: &str) -> Option<&'a mut Object> {
    match schema? {
        RefOr::T(Schema::Object(object)) => match object.properties.get_mut(name)? {
            RefOr::T(Schema::Object(property)) => Some(property),
            _ => None,
        },
        _ => None,
    }
}

fn strict_parameters(operation: &mut Operation) {
    let results_filter_value = || {
        string().min_length(Some(1)).max_length(Some(MAX_FILTER_VALUE_CHARS)).pattern(Some(format!("^[^{CONTROL}]+$")))
    };
    for parameter in operation.parameters.iter_mut().flatten() {
        let schema: Option<Schema> = match (&parameter.parameter_in, parameter.name.as_str()) {
            (ParameterIn::Header, "Idempotency-Key") => {
                Some(string().min_length(Some(1)).max_length(Some(255)).pattern(Some(IDEMPOTENCY_KEY_PATTERN)).into())
            }
            (ParameterIn::Query, "cursor") => Some(string().min_length(Some(1)).into()),
            (ParameterIn::Query, "appId") => Some(printable(128).into()),
            (ParameterIn::Query, "platform" | "appVersion") => Some(results_filter_value().into()),
            (ParameterIn::Query, "tag") => {
                Some(ArrayBuilder::new().items(results_filter_value()).max_items(Some(MAX_FILTER_TAGS)).into())
            }
            (ParameterIn::Query, "attribute") => Some(
                ArrayBuilder::new()
                    .items(
                        results_filter_value()
                            .pattern(Some(format!("^[^:{CONTROL}]{{1,{MAX_ATTRIBUTE_NAME_CHARS}}}:[^{CONTROL}]+$"))),
                    )
                    .max_items(Some(MAX_FILTER_ATTRIBUTES))
                    .into(),
            ),
            _ => None,
        };
        if let Some(schema) = schema {
            parameter.schema = Some(schema.into());
        }
    }
}

/// `POST /apps/heartbeat` takes one of two bodies: v2 (`deviceId` and `refreshToken`) or v1
/// (`installId` and `appVersion`). A field of the other generation may only be absent or null.
fn heartbeat() -> OneOfBuilder {
    let absent = || ObjectBuilder::new().schema_type(Type::Null).description(Some("Not with this generation"));
    let optional = |max: usize| printable(max).schema_type(SchemaType::from_iter([Type::String, Type::Null]));
    let locale = || {
        string()
            .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
            .min_length(Some(2))
            .max_length(Some(24))
            .pattern(Some(LOCALE_PATTERN))
    };
    let facts = |object: ObjectBuilder| object.property("osVersion", optional(32)).property("locale", locale());
    let v2 = facts(
        ObjectBuilder::new()
            .title(Some("HeartbeatV2"))
            .description(Some("v2: the device and its refresh token; works even when the access token has expired"))
            .property("deviceId", string())
            .property("refreshToken", string())
            .required("deviceId")
            .required("refreshToken")
            .property("appVersion", optional(32))
            .property("installId", absent()),
    );
    let v1 = facts(
        ObjectBuilder::new()
            .title(Some("HeartbeatV1"))
            .description(Some("v1: the signed install id and the app version"))
            .property("installId", string())
            .property("appVersion", printable(32))
            .required("installId")
            .required("appVersion")
            .property("deviceId", absent())
            .property("refreshToken", absent()),
    );
    OneOfBuilder::new()
        .item(v2)
        .item(v1)
        .description(Some("Send either deviceId and refreshToken (v2) or installId and appVersion (v1), not both"))
}
