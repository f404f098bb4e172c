//! The respondent page over HTTP: one static shell with strict headers, versioned assets, and the
//! 404 envelope for anything that is not a short URL-safe code or nonce.

use reqwest::Response;
use reqwest::header::HeaderMap;

use crate::helpers::{TestApp, envelope, spawn_app};

const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                      img-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; \
                      frame-ancestors 'none'";

fn header<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_else(|| panic!("no {name} header"))
}

async fn get(app: &TestApp, path: &str) -> Response {
    app.client.get(app.url(path)).send().await.expect("request")
}

/// The page at `path`, with its headers checked; returns its HTML.
async fn page(app: &TestApp, path: &str) -> String {
    let response = get(app, path).await;
    assert_eq!(response.status(), 200, "{path}");
    let headers = response.headers();
    assert_eq!(header(headers, "content-type"), "text/html; charset=utf-8");
    assert_eq!(header(headers, "cache-control"), "no-store");
    assert_eq!(header(headers, "content-security-policy"), POLICY);
    assert_eq!(header(headers, "referrer-policy"), "no-referrer");
    assert_eq!(header(headers, "x-content-type-options"), "nosniff");
    assert_eq!(header(headers, "x-frame-options"), "DENY");
    response.text().await.expect("html")
}

/// The asset paths the HTML refers to (`src="/assets/…"` and `href="/assets/…"`).
fn asset_paths(html: &str) -> Vec<String> {
    html.split("=\"/assets/")
        .skip(1)
        .filter_map(|rest| rest.split_once('"'))
        .map(|(name, _)| format!("/assets/{name}"))
        .collect()
}

#[tokio::test]
async fn both_link_forms_serve_one_static_shell_with_strict_headers() {
    let app = spawn_app().await;
    let open = page(&app, "/p/q3Xb8LmT2aZk").await;
    assert!(open.starts_with("<!doctype html>"));
    // Nothing of the URL is written into the page, whatever it holds.
    for path in [
        "/p/nosuchcode",
        "/p/q3Xb8LmT2aZk?lang=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&lt=x.y.z&inst=in1.a",
        "/s/q3Xb8LmT2aZk/n0nce_-A",
    ] {
        assert_eq!(page(&app, path).await, open, "{path}");
    }
    assert!(!open.contains("q3Xb8LmT2aZk"));
    // Without JavaScript the person reads why nothing happens, rather than an endless "Loading…".
    let no_script =
        open.split_once("<noscript>").and_then(|(_, rest)| rest.split_once("</noscript>")).expect("noscript");
    assert!(no_script.0.contains("This survey needs JavaScript"), "{}", no_script.0);
    assert!(!open.contains("Loading"));

    let head = app.client.head(app.url("/s/q3Xb8LmT2aZk/n0nce")).send().await.expect("request");
    assert_eq!(head.status(), 200);
    assert_eq!(header(head.headers(), "content-security-policy"), POLICY);
    assert_eq!(head.bytes().await.expect("body").len(), 0);
}

#[tokio::test]
async fn assets_are_versioned_typed_and_cached_for_a_year() {
    let app = spawn_app().await;
    let html = page(&app, "/p/code").await;
    let paths = asset_paths(&html);
    assert_eq!(paths.len(), 3, "{paths:?}");
    for (suffix, content_type) in
        [(".js", "text/javascript; charset=utf-8"), (".css", "text/css; charset=utf-8"), (".svg", "image/svg+xml")]
    {
        let path = paths.iter().find(|p| p.ends_with(suffix)).unwrap_or_else(|| panic!("a {suffix} asset"));
        let name = path.trim_start_matches("/assets/");
        let version = name.split_once('-').and_then(|(_, rest)| rest.strip_suffix(suffix)).expect("name-version");
        assert_eq!(version.len(), 12, "{name}");
        assert!(version.bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
        let response = get(&app, path).await;
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers();
        assert_eq!(header(headers, "content-type"), content_type, "{path}");
        assert_eq!(header(headers, "cache-control"), "public, max-age=31536000, immutable");
        assert_eq!(header(headers, "x-content-type-options"), "nosniff");
        assert!(!response.bytes().await.expect("body").is_empty(), "{path}");
    }
    let script = get(&app, paths.iter().find(|p| p.ends_with(".js")).expect("script")).await;
    let script = script.text().await.expect("script");
    assert!(!script.contains("localStorage") && !script.contains("sessionStorage"), "tokens stay in memory");
    assert!(!script.contains("console."), "the page logs nothing");
    assert!(!script.contains("innerHTML"), "texts are never parsed as HTML");
}

#[tokio::test]
async fn the_fonts_the_style_sheet_names_are_served_as_woff2_and_cached_for_a_year() {
    let app = spawn_app().await;
    let html = page(&app, "/p/code").await;
    let style = asset_paths(&html).into_iter().find(|p| p.ends_with(".css")).expect("the style sheet");
    let style = get(&app, &style).await.text().await.expect("css");
    let fonts: Vec<&str> =
        style.split("url(\"").skip(1).filter_map(|rest| rest.split_once('"')).map(|(path, _)| path).collect();
    let stems: Vec<&str> = fonts
        .iter()
        .filter_map(|p| p.strip_prefix("/assets/"))
        .filter_map(|n| n.rsplit_once('-'))
        .map(|(stem, _)| stem)
        .collect();
    assert_eq!(
        stems,
        [
            "noto-sans-latin-400",
            "noto-sans-latin-600",
            "noto-sans-latin-ext-400",
            "noto-sans-latin-ext-600",
            "noto-sans-devanagari-400",
            "noto-sans-devanagari-600"
        ],
        "{fonts:?}"
    );
    let mut total = 0;
    for path in fonts {
        let version = path.rsplit_once('-').and_then(|(_, v)| v.strip_suffix(".woff2")).expect("a version");
        assert!(version.len() == 12 && version.bytes().all(|b| b.is_ascii_hexdigit()), "{path}");
        let response = get(&app, path).await;
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers();
        assert_eq!(header(headers, "content-type"), "font/woff2", "{path}");
        assert_eq!(header(headers, "cache-control"), "public, max-age=31536000, immutable");
        assert_eq!(header(headers, "x-content-type-options"), "nosniff");
        let body = response.bytes().await.expect("body");
        assert!(body.starts_with(b"wOF2"), "{path} is woff2");
        total += body.len();
    }
    assert!(total < 300_000, "the fonts stay small: {total} bytes");
}

#[tokio::test]
async fn anything_but_a_short_url_safe_code_or_nonce_is_the_404_envelope() {
    let app = spawn_app().await;
    let long = "a".repeat(65);
    for path in [
        "/p/",
        "/p/bad.code",
        "/p/bad%20code",
        "/p/code/",
        &format!("/p/{long}"),
        "/s/code",
        "/s/code/",
        "/s/code/bad.nonce",
        "/s/code/nonce/extra",
        &format!("/s/code/{long}"),
        "/assets/page-000000000000.js",
        "/assets/page.js",
        "/assets/noto-sans-latin-400-000000000000.woff2",
    ] {
        let (status, code, _) = envelope(get(&app, path).await).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"), "{path}");
    }
    let response = app.client.post(app.url("/p/code")).send().await.expect("request");
    let (status, code, _) = envelope(response).await;
    assert_eq!((status, code.as_str()), (405, "METHOD_NOT_ALLOWED"));
}
