//! The OpenAPI document, generated from the handlers and types.

mod events;
mod strict;

use events::Webhooks;
pub use strict::BRIEF_LANGUAGES;
use strict::StrictRequests;

use std::fmt::Write as _;
use std::sync::OnceLock;

use actix_web::HttpResponse;
use pulse_domain::ErrorCode;
use utoipa::openapi::path::ParameterIn;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{Content, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi};

use crate::channel::{audit, campaigns, devices, erasure, exports, identity, results, webhooks};
use crate::error::{ErrorBody, status_of};
use crate::request::IDEMPOTENCY_KEY;
use crate::studio::{app_installs, launch_keys};
use crate::{apps, health, page, public};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Pulse partner channel",
        version = "0.9.11",
        description = "Partner-channel feedback service. Every refusal is the error envelope `{code, title, description}`."
    ),
    paths(
        identity::whoami::whoami,
        identity::list_orgs::list_orgs,
        identity::create_org::create_org,
        campaigns::provision::provision,
        campaigns::get::get_campaign,
        results::get::get_results,
        results::breakdown::get_breakdown,
        results::trend::get_trend,
        exports::request::request_export,
        exports::get::get_export,
        exports::download::download_export,
        campaigns::respondents::attach_respondents,
        campaigns::launch::launch_campaign,
        campaigns::list::list_campaigns,
        campaigns::pause::pause_campaign,
        campaigns::resume::resume_campaign,
        campaigns::close::close_campaign,
        campaigns::launch_link::mint_launch_link,
        launch_keys::list::list,
        launch_keys::create::create,
        launch_keys::revoke::revoke,
        launch_keys::set_access::set_access,
        app_installs::list::list,
        devices::list_devices::list_devices,
        devices::list_installs::list_installs,
        erasure::erase_user::erase_user,
        erasure::erase_device::erase_device,
        erasure::erase_respondent::erase_respondent,
        webhooks::create::create,
        webhooks::list::list,
        webhooks::get::get,
        webhooks::update::update,
        webhooks::delete::delete,
        webhooks::rotate_secret::rotate_secret,
        webhooks::simulate::simulate,
        webhooks::deliveries::deliveries,
        webhooks::redeliver::redeliver,
        webhooks::redeliver_range::redeliver_range,
        audit::list_audit_events::list_audit_events,
        apps::register::register,
        apps::heartbeat::heartbeat,
        public::access::access,
        public::start::start,
        public::answer::answer,
        public::complete::complete,
        public::replies::reply,
        public::calls::turn,
        public::calls::ended,
        public::calls::recorded,
        page::open_page,
        page::invitation_page,
        page::asset,
        page::unsubscribe::confirm,
        page::unsubscribe::unsubscribe,
        openapi_json,
        health::healthz,
        health::readyz,
        crate::metrics::metrics,
    ),
    servers((url = "/", description = "The server that serves this document")),
    components(schemas(ErrorBody)),
    modifiers(&Security, &ErrorCatalog, &EveryRefusal, &StrictRequests, &Webhooks),
    tags(
        (name = "identity", description = "The calling key and its workspaces"),
        (name = "campaigns", description = "Provisioning, audiences and launch"),
        (name = "sessions", description = "Minting single-use respondent links"),
        (name = "studio", description = "Launch keys, signing and app installs, for signed-in Studio users"),
        (name = "exports", description = "Files of a campaign's aggregate results, rendered by a worker, fetched through signed links"),
        (name = "devices", description = "App devices and installs, as partners see them"),
        (name = "erasure", description = "Erasing a person (GDPR Article 17): app users, devices, audience respondents"),
        (name = "webhooks", description = "Signed event deliveries to partners' endpoints"),
        (name = "audit", description = "Who did what to a workspace's data: keys, actions, targets, times, networks"),
        (name = "apps", description = "Mobile apps: install registration and heartbeats, no secret"),
        (name = "public", description = "The respondent page's routes: no secret"),
        (name = "page", description = "The respondent web page and its assets, served from the binary"),
        (name = "operations", description = "Probes for orchestrators"),
    )
)]
pub struct ApiDoc;

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("apiKey", SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-API-Key"))));
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
        let mut studio = Http::new(HttpAuthScheme::Bearer);
        studio.bearer_format = Some("JWT".to_owned());
        studio.description = Some("A Studio session: HS256 JWT, audience `pulse-studio`, with `perms`".to_owned());
        components.add_security_scheme("studio", SecurityScheme::Http(studio));
        let mut session = Http::new(HttpAuthScheme::Bearer);
        session.description = Some("The `sessionToken` of the start answer".to_owned());
        components.add_security_scheme("session", SecurityScheme::Http(session));
    }
}

/// Publishes the code catalog in the document's description.
struct ErrorCatalog;

impl Modify for ErrorCatalog {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let mut table = String::from("\n\n## Error codes\n\n| code | status | meaning |\n|---|---|---|\n");
        for code in ErrorCode::ALL {
            let _infallible =
                writeln!(table, "| `{}` | {} | {} |", code.as_str(), status_of(code).as_u16(), code.meaning());
        }
        let description = openapi.info.description.get_or_insert_with(String::new);
        description.push_str(&table);
    }
}

/// Operations that answer from the binary alone: no database, no worker, nothing that can fail.
const STATIC_OPERATIONS: [&str; 6] =
    ["healthz", "getMetrics", "getOpenApiDocument", "openSurveyPage", "openInvitationPage", "getPageAsset"];

/// Statuses every route of a kind can answer, documented once here rather than on each route, so
/// a new route cannot forget them: `500` (a failure on our side) and `503` (the database or
/// another dependency does not answer) wherever anything can fail, `415` wherever a JSON body is
/// read (`request::parse_json` refuses any other content type), and wherever an
/// `Idempotency-Key` is read, `400` (a malformed key) and `409` (the key reused with another
/// request, or its first request still running: `request::idempotent`).
struct EveryRefusal;

impl EveryRefusal {
    fn envelope(description: &str) -> utoipa::openapi::Response {
        ResponseBuilder::new()
            .description(description)
            .content("application/json", Content::new(Some(Ref::from_schema_name("ErrorBody"))))
            .build()
    }
}

impl Modify for EveryRefusal {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        for item in openapi.paths.paths.values_mut() {
            let operations = [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
            for operation in operations.into_iter().flatten() {
                let responses = &mut operation.responses.responses;
                let reads_json =
                    operation.request_body.as_ref().is_some_and(|body| body.content.contains_key("application/json"));
                if reads_json {
                    responses.entry("415".to_owned()).or_insert_with(|| {
                        Self::envelope("UNSUPPORTED_MEDIA_TYPE: the body was not sent as application/json").into()
                    });
                }
                // Any client can be too slow; the library answers a slow head with no body.
                responses.entry("408".to_owned()).or_insert_with(|| {
                    Self::envelope(
                        "REQUEST_TIMEOUT: a body did not arrive within PULSE_BODY_TIMEOUT_SECS; a request head that \
                         did not arrive within PULSE_HEADER_TIMEOUT_SECS gets 408 with no body",
                    )
                    .into()
                });
                let reads_idempotency_key = operation
                    .parameters
                    .iter()
                    .flatten()
                    .any(|p| p.parameter_in == ParameterIn::Header && p.name == IDEMPOTENCY_KEY);
                if reads_idempotency_key {
                    responses.entry("400".to_owned()).or_insert_with(|| {
                        Self::envelope(
                            "VALIDATION_FAILED: a malformed `Idempotency-Key` (1 to 255 printable ASCII characters)",
                        )
                        .into()
                    });
                    responses.entry("409".to_owned()).or_insert_with(|| {
                        Self::envelope("CONFLICT: this `Idempotency-Key` was used with another request, or its first request is still running")
                            .into()
                    });
                }
                let id = operation.operation_id.as_deref().unwrap_or_default();
                if !STATIC_OPERATIONS.contains(&id) {
                    responses.entry("500".to_owned()).or_insert_with(|| {
                        Self::envelope("INTERNAL: something failed on our side; the envelope says no more").into()
                    });
                    responses.entry("503".to_owned()).or_insert_with(|| {
                        Self::envelope(
                            "UNAVAILABLE: the database or another dependency does not answer, or the request's work \
                             did not finish within PULSE_REQUEST_TIMEOUT_SECS (it goes on and may still take effect); \
                             retry later",
                        )
                        .into()
                    });
                }
            }
        }
    }
}

/// The document as served, built once.
pub fn document() -> &'static str {
    static DOCUMENT: OnceLock<String> = OnceLock::new();
    DOCUMENT.get_or_init(|| ApiDoc::openapi().to_pretty_json().unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}")))
}

/// This document.
#[utoipa::path(
    get, path = "/api/v1/channel/openapi.json", operation_id = "getOpenApiDocument", tag = "identity",
    responses((status = 200, description = "The machine-readable contract (OpenAPI 3.1)", content_type = "application/json"))
)]
pub async fn openapi_json() -> HttpResponse {
    HttpResponse::Ok().content_type("application/json").body(document())
}
