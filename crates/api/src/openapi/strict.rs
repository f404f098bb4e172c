//! Request schemas exactly as strict as the server, where the derived ones cannot say it: value
//! lists taken from the domain's own constants, the heartbeat's two generations, and the shapes of
//! headers and query values that the server checks by hand. A generator or fuzzer reading the
//! document then sends nothing the server refuses for its shape, and nothing it would accept is
//! forbidden.

use std::collections::BTreeMap;

use pulse_domain::apps::models::AppPlatform;
use pulse_domain::results::models::{
    Interval, MAX_ATTRIBUTE_NAME_CHARS, MAX_FILTER_ATTRIBUTES, MAX_FILTER_TAGS, MAX_FILTER_VALUE_CHARS,
};
use pulse_domain::sessions::models::MAX_INSTALL_ID_CHARS;
use pulse_domain::webhooks::models::{DeliveryStatus, EventType};
use serde_json::Value;
use utoipa::Modify;
use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::schema::{
    AllOfBuilder, AnyOfBuilder, ArrayBuilder, KnownFormat, Object, ObjectBuilder, OneOfBuilder, Schema, SchemaFormat,
    SchemaType, Type,
};
use utoipa::openapi::{Content, OpenApi, Ref, RefOr};

/// The characters `char::is_control` names (C0, DEL and C1), which the server refuses in text.
const CONTROL: &str = r"\x00-\x1F\x7F-\x9F";

/// The control characters refused in multi-line text: all but tab, line feed and carriage return.
const CONTROL_BUT_LINE_BREAKS: &str = r"\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F";

/// The characters `char::is_whitespace` names (Unicode `White_Space`), which `str::trim` removes;
/// spelled out because `\s` differs between regular expression dialects.
const WHITE_SPACE: &str = r"\t\n\x0B\x0C\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000";

/// The languages the built-in survey generator writes (`pulse-generator`), by primary subtag in
/// any case: a brief asking for another is refused. tests/api/openapi.rs holds it to the generator.
pub const BRIEF_LANGUAGES: [&str; 8] = ["en", "hi", "fr", "es", "de", "pt", "it", "nl"];

/// A UUID in its hyphenated form. Header parameters carry it as a pattern rather than
/// `format: uuid`: openapi-python-client types such a header `UUID` and hands the object to httpx
/// unconverted, so a generated client could not send it.
const UUID_PATTERN: &str = "^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$";

/// An IANA time zone name's characters (`TimeZoneName::known`).
const TIME_ZONE_PATTERN: &str = r"^[A-Za-z0-9/_+\-]{1,64}$";

/// A calendar date as the trend reads `from` and `to`.
const DATE_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

/// `Idempotency-Key`: 1 to 255 printable ASCII characters (`IdempotencyKey::parse`).
const IDEMPOTENCY_KEY_PATTERN: &str = "^[ -~]+$";

/// An app's locale as `LanguageTag::parse` reads it after `_` becomes `-`: a primary subtag of 2
/// or 3 letters, then subtags of letters and digits, 2 to 24 characters in all.
const LOCALE_PATTERN: &str = "^[A-Za-z]{2,3}([-_][A-Za-z0-9]+)*$";

/// A language tag as `LanguageTag::parse` reads it, 2 to 24 characters in all.
const LANGUAGE_TAG_PATTERN: &str = "^[A-Za-z]{2,3}(-[A-Za-z0-9]+)*$";

pub(super) struct StrictRequests;

impl Modify for StrictRequests {
    fn modify(&self, openapi: &mut OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                strict_parameters(operation);
                if operation.operation_id.as_deref() == Some("startSession") {
                    replayed_start(operation);
                }
            }
        }
        let Some(components) = openapi.components.as_mut() else { return };
        let schemas = &mut components.schemas;
        if let Some(platform) = property_mut(schemas.get_mut("RegisterRequest"), "platform") {
            platform.enum_values = Some(AppPlatform::ALL.iter().map(|p| Value::from(p.as_str())).collect());
        }
        for field in ["locale", "language"] {
            if let Some(locale) = property_mut(schemas.get_mut("RegisterRequest"), field) {
                locale.min_length = Some(2);
                locale.max_length = Some(24);
                locale.pattern = Some(LOCALE_PATTERN.to_owned());
            }
        }
        // Counts the domain keeps as u32.
        for (component, fields) in [
            ("QualityRequest", &["targetCount", "maxResponses", "minDurationSecs", "minAnswerWords"][..]),
            ("OrderRequest", &["acceptedResponsesCommitted"][..]),
        ] {
            for field in fields {
                if let Some(property) = property_mut(schemas.get_mut(component), field) {
                    property.maximum = Some(u32::MAX.into());
                }
            }
        }
        if let Some(RefOr::T(Schema::Object(delivery))) = schemas.get_mut("DeliveryRequest")
            && let Some(RefOr::T(Schema::Array(channels))) = delivery.properties.get_mut("channels")
        {
            channels.unique_items = true;
        }
        // A brief's languages: distinct tags of languages the generator writes; topics to leave
        // out, each trimmed and then 1 to 120 characters without control characters.
        if let Some(RefOr::T(Schema::Object(constraints))) = schemas.get_mut("BriefConstraints") {
            let any_case = |code: &str| -> String {
                code.chars().map(|c| format!("[{}{}]", c.to_ascii_uppercase(), c.to_ascii_lowercase())).collect()
            };
            let primaries: Vec<String> = BRIEF_LANGUAGES.iter().map(|code| any_case(code)).collect();
            let tag = string()
                .max_length(Some(24))
                .pattern(Some(format!("^({})(-[A-Za-z0-9]+)*$", primaries.join("|"))))
                .description(Some(format!(
                    "A language tag (subtags of letters and digits after `-`) whose primary subtag is one of {}",
                    BRIEF_LANGUAGES.join(", ")
                )));
            let languages = ArrayBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
                .items(tag)
                .min_items(Some(1))
                .max_items(Some(20))
                .unique_items(true)
                .description(Some(
                    "Language tags; the first is the survey's default. 1 to 20, distinct; default `[\"en\"]`.",
                ));
            constraints.properties.insert("languages".to_owned(), languages.into());
            let visible = format!("[^{WHITE_SPACE}{CONTROL}]");
            let topic = string()
                .min_length(Some(1))
                .max_length(Some(120))
                .pattern(Some(format!("^[{WHITE_SPACE}]*{visible}([^{CONTROL}]*{visible})?[{WHITE_SPACE}]*$")));
            let topics = ArrayBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
                .items(topic)
                .max_items(Some(50))
                .description(Some("No generated question mentions one of these. At most 50."));
            constraints.properties.insert("bannedTopics".to_owned(), topics.into());
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
        if let Some(RefOr::T(Schema::Object(object))) = schemas.get_mut("RedeliverRangeRequest") {
            let redeliverable = [DeliveryStatus::Failed, DeliveryStatus::Dead].map(DeliveryStatus::as_str);
            let statuses = ArrayBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Array, Type::Null]))
                .items(string().enum_values(Some(redeliverable)))
                .description(Some("`FAILED`, `DEAD` or both; empty, null or omitted: both"));
            object.properties.insert("statuses".to_owned(), statuses.into());
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
        // An IANA time zone name's characters (`TimeZoneName::known`); the name must also exist.
        for component in ["AudienceRowRequest", "CreateWorkspaceRequest"] {
            if let Some(zone) = property_mut(schemas.get_mut(component), "timeZone") {
                zone.pattern = Some(TIME_ZONE_PATTERN.to_owned());
            }
        }
        // A phone number: at least four digits among spaces, `+ - ( ) .` (`is_phone`).
        if let Some(phone) = property_mut(schemas.get_mut("AudienceRowRequest"), "phone") {
            phone.pattern = Some(r"^[ +().\-]*([0-9][ +().\-]*){4,}$".to_owned());
        }
        // A brief's intent holds 10 characters or more once trimmed (a first and a last one that
        // are not white space, 8 or more between them); tabs and line breaks are allowed in it.
        if let Some(intent) = property_mut(schemas.get_mut("BriefRequest"), "intentText") {
            let text = format!("[^{CONTROL_BUT_LINE_BREAKS}]");
            let visible = format!("[^{WHITE_SPACE}{CONTROL}]");
            intent.pattern = Some(format!("^{text}*{visible}{text}{{8,}}{visible}{text}*$"));
        }
        // A register's user: `externalId` exactly as the partner's HMAC covers it (never trimmed,
        // so no white space at either end), a phone in E.164 (around white space is trimmed).
        if let Some(external) = property_mut(schemas.get_mut("RegisterUser"), "externalId") {
            external.min_length = Some(1);
            let visible = format!("[^{WHITE_SPACE}{CONTROL}]");
            external.pattern = Some(format!("^{visible}([^{CONTROL}]*{visible})?$"));
        }
        if let Some(phone) = property_mut(schemas.get_mut("RegisterUser"), "phone") {
            phone.pattern = Some(format!(r"^[{WHITE_SPACE}]*\+[1-9][0-9]{{1,14}}[{WHITE_SPACE}]*$"));
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
        // Start reads any JSON as `client` and keeps only an object's short labels: the page and
        // SDKs must never fail to start over them.
        if let Some(RefOr::T(Schema::Object(object))) = schemas.get_mut("StartRequest") {
            let labels = ObjectBuilder::new().schema_type(SchemaType::AnyValue).description(Some(
                "Short device and app labels: an object of strings, numbers or booleans. Anything else, and any other label, is ignored.",
            ));
            object.properties.insert("client".to_owned(), labels.into());
        }
        // The documentation's endpoint, whose host does not resolve: fuzzers that start from the
        // example register nothing that could post to a real host.
        for request in ["CreateSubscriptionRequest", "UpdateSubscriptionRequest"] {
            if let Some(url) = property_mut(schemas.get_mut(request), "url") {
                url.examples = vec![Value::from("https://hooks.example.com/pulse")];
            }
            if let Some(description) = property_mut(schemas.get_mut(request), "description") {
                description.pattern = Some(format!("^[^{CONTROL_BUT_LINE_BREAKS}]*$"));
            }
        }
        // Start checks these lengths first; an invitation is read whatever its length (one that is
        // no invitation of the campaign is refused later, 403).
        if let Some(install) = property_mut(schemas.get_mut("StartRequest"), "installId") {
            install.max_length = Some(MAX_INSTALL_ID_CHARS);
        }
        if let Some(invitation) = property_mut(schemas.get_mut("StartRequest"), "invitation") {
            invitation.max_length = None;
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
        let given = |field: &str| ObjectBuilder::new().required(field).property(field, string());
        let someone =
            AnyOfBuilder::new().item(given("externalId")).item(given("email")).item(given("phone")).description(Some(
                "At least one of `externalId`, `email` and `phone`; omit `user` for an anonymous device",
            ));
        also(schemas, "RegisterUser", someone);
        let hash_of_external_id = AnyOfBuilder::new()
            .item(ObjectBuilder::new().property("userHash", ObjectBuilder::new().schema_type(Type::Null)))
            .item(given("externalId"))
            .description(Some("`userHash` is the HMAC of `externalId`, which must be sent with it"));
        also(schemas, "RegisterUser", hash_of_external_id);
    }
}

/// `name` must also satisfy `rule`: one more item of its `allOf`, which the first rule makes.
fn also(schemas: &mut BTreeMap<String, RefOr<Schema>>, name: &str, rule: impl Into<RefOr<Schema>>) {
    match schemas.remove(name) {
        Some(RefOr::T(Schema::AllOf(mut rules))) => {
            rules.items.push(rule.into());
            schemas.insert(name.to_owned(), Schema::AllOf(rules).into());
        }
        Some(derived) => {
            schemas.insert(name.to_owned(), AllOfBuilder::new().item(derived).item(rule).into());
        }
        None => {}
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

/// A start replayed with its `Idempotency-Key` answers `200` like every replay, with the session it
/// created: its `200` is either body.
fn replayed_start(operation: &mut Operation) {
    let Some(RefOr::T(ok)) = operation.responses.responses.get_mut("200") else { return };
    ok.description = "Nothing created (consent not given, campaign not open, or an invitation needed); or, with \
                      `Idempotency-Replayed: true`, the session a start with the same key and body created"
        .to_owned();
    let either =
        OneOfBuilder::new().item(Ref::from_schema_name("NotStartedBody")).item(Ref::from_schema_name("StartedBody"));
    ok.content.insert("application/json".to_owned(), Content::new(Some(either)));
}

fn strict_parameters(operation: &mut Operation) {
    let results_filter_value = || {
        string().min_length(Some(1)).max_length(Some(MAX_FILTER_VALUE_CHARS)).pattern(Some(format!("^[^{CONTROL}]+$")))
    };
    let trend = operation.operation_id.as_deref() == Some("getCampaignResultsTrend");
    for parameter in operation.parameters.iter_mut().flatten() {
        let schema: Option<Schema> = match (&parameter.parameter_in, parameter.name.as_str()) {
            (ParameterIn::Query, "by") => Some(
                string()
                    .pattern(Some(format!(
                        "^(platform|appVersion|language|tag|attribute:[^{CONTROL}]{{1,{MAX_ATTRIBUTE_NAME_CHARS}}})$"
                    )))
                    .into(),
            ),
            (ParameterIn::Query, "interval") => Some(
                string()
                    .enum_values(Some([Interval::Day, Interval::Week, Interval::Month].map(Interval::as_str)))
                    .into(),
            ),
            (ParameterIn::Query, "from" | "to") if trend => Some(
                string().format(Some(SchemaFormat::KnownFormat(KnownFormat::Date))).pattern(Some(DATE_PATTERN)).into(),
            ),
            (ParameterIn::Query, "timeZone") => Some(string().pattern(Some(TIME_ZONE_PATTERN)).into()),
            // A header is sent or not, never null.
            (ParameterIn::Header, "X-SVC-Workspace") => Some(string().pattern(Some(UUID_PATTERN)).into()),
            (ParameterIn::Header, "Idempotency-Key") => {
                Some(string().min_length(Some(1)).max_length(Some(255)).pattern(Some(IDEMPOTENCY_KEY_PATTERN)).into())
            }
            (ParameterIn::Query, "cursor") => Some(string().min_length(Some(1)).into()),
            (ParameterIn::Query, "appId") => Some(printable(128).into()),
            (ParameterIn::Query, "platform" | "appVersion") => Some(results_filter_value().into()),
            (ParameterIn::Query, "language") => {
                Some(string().min_length(Some(2)).max_length(Some(24)).pattern(Some(LANGUAGE_TAG_PATTERN)).into())
            }
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
