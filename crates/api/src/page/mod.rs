//! The respondent page: one static HTML shell at `/p/{code}` and `/s/{code}/{nonce}`, and its
//! script, style and icon, compiled into the binary. The script reads the code, the nonce and the
//! tokens in the browser and calls the public routes on the same origin; nothing a visitor sends is
//! ever written into what is served here.

pub mod unsubscribe;

use std::sync::LazyLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{self, Path};
use actix_web::{HttpResponse, guard};
use pulse_domain::ErrorCode;

use crate::error::{ErrorBody, envelope};
use crate::state::Platform;

const HTML: &str = include_str!("assets/page.html");
const SCRIPT: &str = include_str!("assets/page.js");
const STYLE: &str = include_str!("assets/page.css");
const ICON: &str = include_str!("assets/icon.svg");

/// Only the page's own origin, no inline script or style, no framing, no form posts: a link's
/// tokens must never reach another site, and nothing injected could run.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Assets change name when their content changes, so browsers may keep them for a year.
const ASSET_CACHE: &str = "public, max-age=31536000, immutable";

/// What a campaign code or an invitation nonce may look like: short and URL-safe. Anything else
/// falls through to the unknown-route 404.
const TOKEN: &str = "[A-Za-z0-9_-]{1,64}";

/// What an unsubscribe token may look like: two URL-safe base64 parts.
const UNSUBSCRIBE_TOKEN: &str = "[A-Za-z0-9_-]{1,64}\\.[A-Za-z0-9_-]{1,64}";

/// FNV-1a over the assets, computed at compile time: it names the assets' current version.
const fn fingerprint(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut p = 0;
    while p < parts.len() {
        let bytes = parts[p].as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            i += 1;
        }
        p += 1;
    }
    hash
}

const VERSION: u64 = fingerprint(&[SCRIPT, STYLE, ICON]);

struct Asset {
    name: String,
    content_type: &'static str,
    body: &'static str,
}

struct Assets {
    html: String,
    files: [Asset; 3],
}

static ASSETS: LazyLock<Assets> = LazyLock::new(|| {
    let version = format!("{:012x}", VERSION >> 16);
    let files = [
        Asset { name: format!("page-{version}.js"), content_type: "text/javascript; charset=utf-8", body: SCRIPT },
        Asset { name: format!("page-{version}.css"), content_type: "text/css; charset=utf-8", body: STYLE },
        Asset { name: format!("icon-{version}.svg"), content_type: "image/svg+xml", body: ICON },
    ];
    let html = HTML
        .replace("{{script}}", &format!("/assets/{}", files[0].name))
        .replace("{{style}}", &format!("/assets/{}", files[1].name))
        .replace("{{icon}}", &format!("/assets/{}", files[2].name));
    Assets { html, files }
});

pub fn configure<P: Platform>(cfg: &mut web::ServiceConfig) {
    // HEAD answers as GET does; actix leaves the body out.
    let get_or_head = || web::route().guard(guard::Any(guard::Get()).or(guard::Head()));
    cfg.service(web::resource(format!("/p/{{code:{TOKEN}}}")).route(get_or_head().to(open_page)))
        .service(
            web::resource(format!("/s/{{code:{TOKEN}}}/{{nonce:{TOKEN}}}")).route(get_or_head().to(invitation_page)),
        )
        .service(web::resource("/assets/{name}").route(get_or_head().to(asset)))
        .service(
            web::resource(format!("/u/{{token:{UNSUBSCRIBE_TOKEN}}}"))
                .route(web::get().to(unsubscribe::confirm::<P>))
                .route(web::post().to(unsubscribe::unsubscribe::<P>)),
        );
}

/// The respondent page of an open campaign, or of a signed launch (`?lt=`). The same static shell
/// for every code; the script checks the code.
#[utoipa::path(
    get, path = "/p/{code}", operation_id = "openSurveyPage", tag = "page",
    params(
        ("code" = String, Path, description = "The campaign's public code: 1 to 64 of `A-Z a-z 0-9 _ -`"),
        ("lt" = Option<String>, Query, description = "A signed launch token; the page checks it and spends it at start"),
        ("lang" = Option<String>, Query, description = "The language to answer in"),
        ("inst" = Option<String>, Query, description = "An app's install id; the page sends it to start as `installId`"),
    ),
    responses(
        (status = 200, description = "The page (HTML, `Cache-Control: no-store`, strict Content-Security-Policy)", content_type = "text/html", body = String),
        (status = 404, description = "NOT_FOUND: the code is not a short URL-safe token", body = ErrorBody),
    )
)]
pub async fn open_page() -> HttpResponse {
    page()
}

/// The respondent page of a single-use link (an audience invitation, or a minted link of a
/// closed-list campaign); the page sends the nonce to start as `invitation`.
#[utoipa::path(
    get, path = "/s/{code}/{nonce}", operation_id = "openInvitationPage", tag = "page",
    params(
        ("code" = String, Path, description = "The campaign's public code: 1 to 64 of `A-Z a-z 0-9 _ -`"),
        ("nonce" = String, Path, description = "The link's nonce: 1 to 64 of `A-Z a-z 0-9 _ -`"),
        ("lang" = Option<String>, Query, description = "The language to answer in"),
        ("inst" = Option<String>, Query, description = "An app's install id; the page sends it to start as `installId`"),
    ),
    responses(
        (status = 200, description = "The page (HTML, `Cache-Control: no-store`, strict Content-Security-Policy)", content_type = "text/html", body = String),
        (status = 404, description = "NOT_FOUND: the code or nonce is not a short URL-safe token", body = ErrorBody),
    )
)]
pub async fn invitation_page() -> HttpResponse {
    page()
}

/// The page's script, style sheet and icon, named by a hash of their content.
#[utoipa::path(
    get, path = "/assets/{name}", operation_id = "getPageAsset", tag = "page",
    params(("name" = String, Path, description = "A name the page's HTML refers to, such as `page-<hash>.js`")),
    responses(
        (status = 200, description = "The asset, cached for a year (`immutable`)", content(
            (String = "text/javascript"), (String = "text/css"), (String = "image/svg+xml")
        )),
        (status = 404, description = "NOT_FOUND: not an asset of this version", body = ErrorBody),
    )
)]
pub async fn asset(name: Path<String>) -> HttpResponse {
    let Some(file) = ASSETS.files.iter().find(|f| f.name == *name) else {
        return envelope(ErrorCode::NotFound, "no route matches this path");
    };
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static(file.content_type)))
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static(ASSET_CACHE)))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .body(file.body)
}

fn page() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")))
        // The shell is the same for all, but a visit's URL carries tokens: keep nothing.
        .insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-store")))
        .insert_header((header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY)))
        // The query may hold a launch token: no request may tell another site (or ours) where it came from.
        .insert_header((header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")))
        .insert_header((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .body(ASSETS.html.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_names_every_asset_by_version() {
        assert!(!ASSETS.html.contains("{{"), "a placeholder is left in the HTML");
        for file in &ASSETS.files {
            assert!(ASSETS.html.contains(&format!("\"/assets/{}\"", file.name)), "{} is referred to", file.name);
        }
        assert_ne!(fingerprint(&["a"]), fingerprint(&["b"]));
    }

    #[test]
    fn the_shell_has_nothing_inline() {
        assert!(!HTML.contains("style="), "inline styles are refused by the policy");
        let handlers = HTML
            .split(" on")
            .skip(1)
            .filter(|rest| rest.split_once('=').is_some_and(|(name, _)| name.chars().all(|c| c.is_ascii_lowercase())));
        assert_eq!(handlers.count(), 0, "inline handlers are refused by the policy");
        assert_eq!(HTML.matches("<script").count(), 1, "one script");
        assert!(HTML.contains("<script src=\"{{script}}\"></script>"), "and it is the asset");
    }

    /// Every language of the page's UI strings has every English key.
    #[test]
    fn every_language_has_every_string() {
        let table = SCRIPT
            .split_once("const STRINGS = {\n")
            .and_then(|(_, rest)| rest.split_once("\n  };\n"))
            .map(|(table, _)| table)
            .expect("the STRINGS table");
        let mut languages: Vec<(&str, Vec<&str>)> = Vec::new();
        for line in table.lines() {
            if let Some(language) = line.strip_prefix("    ").and_then(|l| l.strip_suffix(": {")) {
                languages.push((language, Vec::new()));
            } else if let Some((key, _)) = line.strip_prefix("      ").and_then(|l| l.split_once(": ")) {
                languages.last_mut().expect("a language opens before its keys").1.push(key);
            }
        }
        let names: Vec<&str> = languages.iter().map(|(l, _)| *l).collect();
        assert_eq!(names, ["en", "de", "es", "fr", "hi", "it", "nl", "pt"]);
        let english = &languages[0].1;
        assert!(english.len() > 20, "{english:?}");
        for (language, keys) in &languages {
            assert_eq!(keys, english, "{language}");
        }
    }
}
