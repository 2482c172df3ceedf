//! Static assets (`web/static/`), embedded in the binary and served at `/static/<file>` with a
//! content type from the extension and a one-hour cache.

use crate::error::{ApiError, Code};
use actix_web::HttpResponse;
use actix_web::http::header;
use actix_web::web::Path;
use rust_embed::Embed;

/// The files of `web/static/`.
#[derive(Embed)]
#[folder = "static/"]
pub struct Static;

/// Serves one embedded file. Errors: 404 `NOT_FOUND` with the contract's error body when there
/// is none.
pub async fn serve(file: Path<String>) -> Result<HttpResponse, ApiError> {
    match Static::get(&file) {
        Some(content) => Ok(HttpResponse::Ok()
            .content_type(
                mime_guess::from_path(file.as_str())
                    .first_or_octet_stream()
                    .to_string(),
            )
            .insert_header((header::CACHE_CONTROL, "public, max-age=3600"))
            .body(content.data.into_owned())),
        None => Err(ApiError::new(Code::NotFound)),
    }
}
