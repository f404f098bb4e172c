//! `GET CH/downloads/{token}/{filename}`.

use actix_web::http::header::{self, ContentDisposition, DispositionParam, DispositionType, HeaderValue};
use actix_web::web::{Data, Path};
use actix_web::{HttpRequest, HttpResponse};
use pulse_domain::audit::models::truncated_network;

use crate::error::{ApiError, ErrorBody};
use crate::request::{client_address, no_store};
use crate::state::{AppState, Platform};

/// An export's file, through the link `GET /exports/{id}` minted. No key: the signed link is the
/// capability, so every link that does not work (tampered, expired, renamed, its key revoked, the
/// file gone) gets the same 404, and the token never reaches a log line.
#[utoipa::path(
    get, path = "/api/v1/channel/downloads/{token}/{filename}", operation_id = "downloadExport", tag = "exports",
    params(
        ("token" = String, Path, description = "The link's signed token"),
        ("filename" = String, Path, description = "`pulse-<campaign code>-<export id>.json` or `.pdf`"),
    ),
    responses(
        (status = 200, description = "The file, as an attachment (`Content-Disposition`, `Cache-Control: no-store`, `Referrer-Policy: no-referrer`): a JSON export is one object of the schema `svc.partner-export.v1.2`, a PDF report the document's bytes", content(
            (Object = "application/json"), (String = "application/pdf")
        )),
        (status = 404, description = "NOT_FOUND: one answer for every link that does not work", body = ErrorBody),
        (status = 429, description = "RATE_LIMITED: the link was fetched 20 times this hour (`Retry-After`); read the export again for a new link", body = ErrorBody),
    )
)]
pub async fn download_export<P: Platform>(
    state: Data<AppState<P>>,
    req: HttpRequest,
    path: Path<(String, String)>,
) -> Result<HttpResponse, ApiError> {
    let (token, filename) = path.into_inner();
    let network = client_address(&req, &state.network).map(truncated_network);
    let download = state.exports.download(&token, &filename, network).await?;
    let disposition = ContentDisposition {
        disposition: DispositionType::Attachment,
        parameters: vec![DispositionParam::Filename(download.filename)],
    };
    Ok(no_store(
        HttpResponse::Ok()
            .content_type(download.format.content_type())
            .insert_header(disposition)
            // The link is a secret: a page the file opens in must not pass it on.
            .insert_header((header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
            .body(download.bytes),
    ))
}
