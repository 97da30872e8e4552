//! The assistant page, embedded in the binary (no build step, no CDN): one HTML file, its
//! script and its style sheet, revalidated on every load (`no-cache`) so an upgraded binary
//! is never shown with a stale script.

use std::sync::Arc;

use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::query::QueryService;

/// The page.
pub const INDEX_HTML: &str = include_str!("static/index.html");
/// Its script.
pub const APP_JS: &str = include_str!("static/app.js");
/// Its style sheet.
pub const APP_CSS: &str = include_str!("static/app.css");
/// The icon of every page the binary serves (four tiles in the game's colours): a browser
/// asks for `/favicon.ico` whatever the page says, and gets this instead of a 404.
pub const FAVICON_SVG: &str = include_str!("static/favicon.svg");

/// The icon's routes: `/favicon.ico` (asked for by every browser) and `/favicon.svg` (the
/// one the pages name), for any page's router.
pub fn icon_routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    let icon = || async { page(FAVICON_SVG, "image/svg+xml") };
    Router::new()
        .route("/favicon.ico", get(icon))
        .route("/favicon.svg", get(icon))
}

/// `/`, `/app.js`, `/app.css` and the icon.
pub fn routes() -> Router<Arc<QueryService>> {
    Router::new()
        .merge(icon_routes())
        .route(
            "/",
            get(|| async { page(INDEX_HTML, "text/html; charset=utf-8") }),
        )
        .route(
            "/app.js",
            get(|| async { page(APP_JS, "text/javascript; charset=utf-8") }),
        )
        .route(
            "/app.css",
            get(|| async { page(APP_CSS, "text/css; charset=utf-8") }),
        )
}

/// An embedded file as a response, revalidated on every load (`no-cache`) and never
/// sniffed: every page the binary serves (this one and the coordinator's live page).
pub(crate) fn page(body: &'static str, mime: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, mime),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
}
