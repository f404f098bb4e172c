//! The respondent page: one static HTML shell at `/p/{code}` and `/s/{code}/{nonce}`, and its
//! script, the worker that solves challenges, style, icon and fonts, compiled into the binary. The
//! script reads the code, the nonce and the tokens in the browser and calls the public routes on
//! the same origin; nothing a visitor sends is ever written into what is served here.

pub mod unsubscribe;

use std::sync::LazyLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::{self, Bytes, Path};
use actix_web::{HttpResponse, guard};
use pulse_domain::ErrorCode;

use crate::error::{ErrorBody, envelope};
use crate::state::Platform;

const HTML: &str = include_str!("assets/page.html");
const SCRIPT: &str = include_str!("assets/page.js");
const SOLVER: &str = include_str!("assets/solver.js");
const STYLE: &str = include_str!("assets/page.css");
const ICON: &str = include_str!("assets/icon.svg");

/// The page's fonts (Noto Sans, latin and latin-ext, and Noto Sans Devanagari, at weights 400 and
/// 600; OFL, see `assets/fonts/OFL.txt`), by the name the style sheet refers to them with: a
/// device without Devanagari fonts would show Hindi as boxes, and the policy forbids fonts from
/// anywhere else.
const FONTS: [(&str, &[u8]); 6] = [
    ("noto-sans-latin-400", include_bytes!("assets/fonts/noto-sans-latin-400.woff2")),
    ("noto-sans-latin-600", include_bytes!("assets/fonts/noto-sans-latin-600.woff2")),
    ("noto-sans-latin-ext-400", include_bytes!("assets/fonts/noto-sans-latin-ext-400.woff2")),
    ("noto-sans-latin-ext-600", include_bytes!("assets/fonts/noto-sans-latin-ext-600.woff2")),
    ("noto-sans-devanagari-400", include_bytes!("assets/fonts/noto-sans-devanagari-400.woff2")),
    ("noto-sans-devanagari-600", include_bytes!("assets/fonts/noto-sans-devanagari-600.woff2")),
];

/// Only the page's own origin, no inline script or style, no framing, no form posts: a link's
/// tokens must never reach another site, and nothing injected could run. The challenge worker is
/// a script of the page's own too: without `worker-src`, `script-src 'self'` allows it.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// Assets change name when their content changes, so browsers may keep them for a year.
const ASSET_CACHE: &str = "public, max-age=31536000, immutable";

/// What a campaign code or an invitation nonce may look like: short and URL-safe. Anything else
/// falls through to the unknown-route 404.
const TOKEN: &str = "[A-Za-z0-9_-]{1,64}";

/// What an unsubscribe token may look like: two URL-safe base64 parts.
const UNSUBSCRIBE_TOKEN: &str = "[A-Za-z0-9_-]{1,64}\\.[A-Za-z0-9_-]{1,64}";

/// FNV-1a of an asset's content: it names the asset's version, so each asset is renamed only when
/// it changes itself (a new script leaves the fonts cached).
fn fingerprint(bytes: &[u8]) -> String {
    let hash = bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("{:012x}", hash >> 16)
}

struct Asset {
    name: String,
    content_type: &'static str,
    body: Bytes,
}

impl Asset {
    fn new(stem: &str, extension: &str, content_type: &'static str, body: Bytes) -> Self {
        Self { name: format!("{stem}-{}.{extension}", fingerprint(&body)), content_type, body }
    }

    fn path(&self) -> String {
        format!("/assets/{}", self.name)
    }
}

struct Assets {
    html: String,
    files: Vec<Asset>,
}

static ASSETS: LazyLock<Assets> = LazyLock::new(|| {
    let fonts: Vec<Asset> =
        FONTS.iter().map(|(stem, bytes)| Asset::new(stem, "woff2", "font/woff2", Bytes::from_static(bytes))).collect();
    // The style sheet names the fonts by version, so it is versioned after them.
    let style = FONTS.iter().zip(&fonts).fold(STYLE.to_owned(), |style, ((stem, _), font)| {
        style.replace(&format!("{{{{font:{stem}}}}}"), &font.path())
    });
    let solver = Asset::new("solver", "js", "text/javascript; charset=utf-8", Bytes::from_static(SOLVER.as_bytes()));
    // The script names the worker by version, so it is versioned after it.
    let script = SCRIPT.replace("{{solver}}", &solver.path());
    let script = Asset::new("page", "js", "text/javascript; charset=utf-8", Bytes::from(script));
    let style = Asset::new("page", "css", "text/css; charset=utf-8", Bytes::from(style));
    let icon = Asset::new("icon", "svg", "image/svg+xml", Bytes::from_static(ICON.as_bytes()));
    let html = HTML
        .replace("{{script}}", &script.path())
        .replace("{{style}}", &style.path())
        .replace("{{icon}}", &icon.path());
    let mut files = vec![script, solver, style, icon];
    files.extend(fonts);
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

/// The page's script, style sheet, icon and fonts, each named by a hash of its content.
#[utoipa::path(
    get, path = "/assets/{name}", operation_id = "getPageAsset", tag = "page",
    params(("name" = String, Path, description = "A name the page's HTML refers to, such as `page-<hash>.js`")),
    responses(
        (status = 200, description = "The asset, cached for a year (`immutable`)", content(
            (String = "text/javascript"), (String = "text/css"), (String = "image/svg+xml"), (String = "font/woff2")
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
        .body(file.body.clone())
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
    fn the_shell_the_script_and_the_style_sheet_name_every_asset_by_version() {
        assert!(!ASSETS.html.contains("{{"), "a placeholder is left in the HTML");
        let text = |stem: &str, extension: &str| {
            let file = ASSETS
                .files
                .iter()
                .find(|f| f.name.starts_with(&format!("{stem}-")) && f.name.ends_with(extension))
                .expect("the asset");
            std::str::from_utf8(&file.body).expect("text")
        };
        let (style, script) = (text("page", ".css"), text("page", ".js"));
        assert!(!style.contains("{{"), "a placeholder is left in the style sheet");
        assert!(!script.contains("{{"), "a placeholder is left in the script");
        for file in &ASSETS.files {
            let referrer = if file.name.ends_with(".woff2") {
                style
            } else if file.name.starts_with("solver-") {
                script
            } else {
                ASSETS.html.as_str()
            };
            assert!(referrer.contains(&format!("\"{}\"", file.path())), "{} is referred to", file.name);
        }
        assert_eq!(ASSETS.files.len(), 4 + FONTS.len());
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
    }

    /// Every font face says which characters it has, so a page in French never downloads the
    /// Devanagari font, and every face the style sheet declares is one that is served.
    #[test]
    fn every_font_face_has_a_unicode_range() {
        let faces: Vec<&str> =
            STYLE.split("@font-face {").skip(1).map(|f| f.split_once("\n}").expect("a face").0).collect();
        assert_eq!(faces.len(), FONTS.len());
        for face in faces {
            assert!(face.contains("unicode-range: U+"), "{face}");
            assert!(face.contains("font-display: swap;"), "{face}");
            assert!(face.contains("format(\"woff2\")"), "{face}");
        }
        for (stem, bytes) in FONTS {
            assert!(bytes.starts_with(b"wOF2"), "{stem} is woff2");
        }
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

    /// A register's texts: (key, text).
    type Texts = Vec<(&'static str, String)>;

    /// The STRINGS table of the script: (language, [(register, texts)]), read by its indentation
    /// (4 spaces a language, 6 a register, 8 a text).
    fn strings() -> Vec<(&'static str, Vec<(&'static str, Texts)>)> {
        let table = SCRIPT
            .split_once("const STRINGS = {\n")
            .and_then(|(_, rest)| rest.split_once("\n  };\n"))
            .map(|(table, _)| table)
            .expect("the STRINGS table");
        let mut languages: Vec<(&str, Vec<(&str, Texts)>)> = Vec::new();
        for line in table.lines() {
            let content = line.trim_start();
            let opens = content.strip_suffix(": {");
            match (line.len() - content.len(), opens) {
                (4, Some(language)) => languages.push((language, Vec::new())),
                (6, Some(register)) => {
                    languages.last_mut().expect("a language opens before its registers").1.push((register, Vec::new()));
                }
                (8, None) => {
                    let (key, text) = content.split_once(": ").expect("key: text");
                    let text = text.trim_end_matches(',').trim_matches('"').replace("\\u00a0", "\u{a0}");
                    let registers = &mut languages.last_mut().expect("a language").1;
                    registers.last_mut().expect("a register opens before its texts").1.push((key, text));
                }
                _ => {}
            }
        }
        languages
    }

    /// Every language has every English key in each of its registers, with the same placeholders.
    #[test]
    fn every_language_and_register_has_every_string() {
        let languages = strings();
        let names: Vec<&str> = languages.iter().map(|(l, _)| *l).collect();
        assert_eq!(names, ["en", "de", "es", "fr", "hi", "it", "nl", "pt"]);
        let english = &languages[0].1;
        assert_eq!(english.len(), 1, "English has one register");
        let (register, english) = &english[0];
        assert_eq!(*register, "any");
        assert!(english.len() > 40, "{english:?}");
        let placeholders = |text: &str| {
            let mut names: Vec<String> = text
                .split('{')
                .skip(1)
                .filter_map(|rest| rest.split_once('}'))
                .map(|(name, _)| name.to_owned())
                .collect();
            names.sort();
            names
        };
        for (language, registers) in &languages[1..] {
            let names: Vec<&str> = registers.iter().map(|(r, _)| *r).collect();
            assert_eq!(names, ["formal", "informal"], "{language}");
            for (register, texts) in registers {
                let keys: Vec<&str> = texts.iter().map(|(k, _)| *k).collect();
                let english_keys: Vec<&str> = english.iter().map(|(k, _)| *k).collect();
                assert_eq!(keys, english_keys, "{language} {register}");
                for ((key, text), (_, english)) in texts.iter().zip(english) {
                    assert_eq!(placeholders(text), placeholders(english), "{language} {register} {key}: {text}");
                }
            }
        }
    }

    /// Each register speaks to the reader as its questions do: it uses its own form of address
    /// and never the other's. A word written in lower case matches in any case; a capitalised one
    /// (Sie, Lei) only as written, since "sie" and "la" are other words.
    #[test]
    fn each_register_keeps_to_its_own_form_of_address() {
        // A word a register's texts use, and words they never use.
        type Address = (&'static str, &'static [&'static str]);
        // language, formal, informal
        let address: [(&str, Address, Address); 7] = [
            (
                "de",
                ("Sie", &["du", "dich", "dir", "dein", "deine", "deinen", "deinem", "deiner"]),
                ("du", &["Sie", "Ihnen", "Ihr", "Ihre", "Ihren", "Ihrem", "Ihrer"]),
            ),
            ("es", ("su", &["tú", "tu", "tus", "te", "ti", "contigo"]), ("tu", &["usted", "su", "sus"])),
            (
                "fr",
                ("vous", &["tu", "te", "t", "toi", "ton", "ta", "tes"]),
                ("tu", &["vous", "votre", "vos", "veuillez"]),
            ),
            (
                "hi",
                ("आपकी", &["तुम", "तुम्हें", "तुम्हारा", "तुम्हारी", "तुम्हारे", "तुमने"]),
                ("तुम्हारी", &["आप", "आपका", "आपकी", "आपके", "आपको", "आपने"]),
            ),
            ("it", ("Sua", &["tu", "ti", "tuo", "tua", "tuoi", "tue"]), ("tua", &["Lei", "Sua", "Suo", "Sue", "Suoi"])),
            ("nl", ("u", &["je", "jij", "jou", "jouw"]), ("je", &["u", "uw"])),
            // Both registers say você; the informal one speaks colloquially.
            ("pt", ("você", &["pra", "pro", "gente", "valeu"]), ("pra", &["senhor", "senhora"])),
        ];
        let matches = |token: &str, word: &str| {
            token == word || (word.chars().all(char::is_lowercase) && token.to_lowercase() == word)
        };
        let languages = strings();
        for (language, formal, informal) in address {
            let registers = &languages.iter().find(|(l, _)| *l == language).expect("the language").1;
            for (register, (used, never)) in [("formal", formal), ("informal", informal)] {
                let texts = &registers.iter().find(|(r, _)| *r == register).expect("the register").1;
                let mut uses = false;
                for (key, text) in texts {
                    let tokens = text.split(|c: char| !(c.is_alphanumeric() || is_devanagari_mark(c)));
                    for token in tokens.filter(|t| !t.is_empty()) {
                        uses |= matches(token, used);
                        assert!(
                            !never.iter().any(|w| matches(token, w)),
                            "{language} {register} {key} says {token:?}: {text}"
                        );
                    }
                }
                assert!(uses, "{language} {register} never says {used:?}");
            }
        }
    }

    /// Devanagari's vowel signs, virama and nukta, which are not alphanumeric but are part of words.
    fn is_devanagari_mark(c: char) -> bool {
        matches!(c, '\u{0900}'..='\u{0903}' | '\u{093a}'..='\u{094f}' | '\u{0951}'..='\u{0957}' | '\u{0962}'..='\u{0963}')
    }
}
