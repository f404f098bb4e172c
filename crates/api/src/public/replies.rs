//! `POST /api/v1/public/messages/replies`: where the SMS/WhatsApp provider relays replies to
//! outreach messages (its inbound webhook). A STOP reply opts the number out.

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{Bytes, Data};
use actix_web::{HttpRequest, HttpResponse};

use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, Platform};

/// An empty answer in the provider's reply language: the provider sends nothing back itself.
const NO_ANSWER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response></Response>";

/// A reply relayed by the messaging provider, form-encoded as it sends them (`From`, `Body`, …)
/// and signed in `X-Twilio-Signature` over this URL and the form.
#[utoipa::path(
    post, path = "/api/v1/public/messages/replies", operation_id = "receiveMessageReply", tag = "public",
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "The provider's form: `From`, `Body` and its other fields"),
    params(("X-Twilio-Signature" = String, Header, description = "The provider's signature of the URL and the form")),
    responses(
        (status = 200, description = "Read (an empty provider answer, `text/xml`); a STOP word opted the number out", content_type = "text/xml", body = String),
        (status = 401, description = "UNAUTHENTICATED: not signed by the provider", body = ErrorBody),
        (status = 413, description = "PAYLOAD_TOO_LARGE", body = ErrorBody),
    )
)]
pub async fn reply<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    body: Bytes,
) -> Result<HttpResponse, ApiError> {
    let (params, url, signature) = super::signed(&req, state.outreach.base_url(), &body);
    state.outreach.reply(&url, &params, signature.as_deref()).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/xml; charset=utf-8")))
        .body(NO_ANSWER))
}
