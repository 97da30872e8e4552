//! The assistant page, embedded in the binary (no build step, no CDN): one HTML file, its
//! script and its style sheet, revalidated on every load (`no-cache`) so an upgraded binary
//! is never shown with a stale script.

use std::sync::Arc;

use axum::routing::get;
use axum::Router;

use hakase_serving::http::{icon_routes, page};

use crate::QueryService;

/// The page.
pub const INDEX_HTML: &str = include_str!("static/index.html");
/// Its script.
pub const APP_JS: &str = include_str!("static/app.js");
/// Its style sheet.
pub const APP_CSS: &str = include_str!("static/app.css");
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
