//! `/u/{token}`: the one-click unsubscribe link of every outreach email. Opening it shows a page
//! with one button, since mail scanners open links and must not unsubscribe anyone; the button,
//! and a mail client's RFC 8058 one-click POST (`List-Unsubscribe-Post`), post to the same URL.

use actix_web::HttpResponse;
use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{Data, Path};

use crate::error::{ApiError, ErrorBody};
use crate::state::{AppState, Platform};

/// Nothing but this page's own form may post; no script, no style, no framing.
const UNSUBSCRIBE_POLICY: &str = "default-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const CONFIRM: &str = r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Unsubscribe</title></head>
<body>
<main>
<h1>Unsubscribe</h1>
<p>You will no longer receive survey invitations, reminders or thank-you messages from this sender at this address.</p>
<form method="post"><button type="submit">Unsubscribe</button></form>
</main>
</body>
</html>
"#;

const DONE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Unsubscribed</title></head>
<body>
<main>
<h1>You are unsubscribed</h1>
<p>This sender will not write to this address about surveys again.</p>
</main>
</body>
</html>
"#;

/// The page with the unsubscribe button; nothing changes until it is pressed.
#[utoipa::path(
    get, path = "/u/{token}", operation_id = "showUnsubscribePage", tag = "page",
    params(("token" = String, Path, description = "The signed token of an outreach email's unsubscribe link")),
    responses(
        (status = 200, description = "A page with one button that posts to the same URL (HTML, `Cache-Control: no-store`)", content_type = "text/html", body = String),
        (status = 404, description = "NOT_FOUND: the link is not genuine", body = ErrorBody),
    )
)]
pub async fn confirm<P: Platform>(state: Data<AppState<P>>, token: Path<String>) -> Result<HttpResponse, ApiError> {
    state.outreach.check_unsubscribe(&token)?;
    Ok(html(CONFIRM))
}

/// Opts the address out of this sender's messages (the page's button, or a mail client's
/// one-click POST with `List-Unsubscribe=One-Click`). Posting again answers the same.
#[utoipa::path(
    post, path = "/u/{token}", operation_id = "unsubscribe", tag = "page",
    params(("token" = String, Path, description = "The signed token of an outreach email's unsubscribe link")),
    responses(
        (status = 200, description = "Unsubscribed (HTML)", content_type = "text/html", body = String),
        (status = 404, description = "NOT_FOUND: the link is not genuine, or its person is gone", body = ErrorBody),
    )
)]
pub async fn unsubscribe<P: Platform>(state: Data<AppState<P>>, token: Path<String>) -> Result<HttpResponse, ApiError> {
    state.outreach.unsubscribe(&token).await?;
    Ok(html(DONE))
}

fn html(body: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")))
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .insert_header((header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(UNSUBSCRIBE_POLICY)))
        .insert_header((header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .body(body)
}
