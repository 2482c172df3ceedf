//! `GET /api/backup`: a consistent copy of the whole store, as a download.

use crate::error::{ApiError, ErrorBody};
use crate::session::CurrentUser;
use crate::state::AppState;
use actix_web::body::SizedStream;
use actix_web::web::{Bytes, Data};
use actix_web::{HttpResponse, get};
use actors::backup::{RecordBackup, TakeBackup, stamp};
use std::fs::File;
use std::io::Read;
use storage::Timestamp;

/// Bytes read from the backup file per chunk of the response.
const CHUNK: usize = 64 * 1024;

/// A backup of the whole store (a redb file of this product's schema) as it was when the request
/// arrived: every write acknowledged before it, nothing half-written. Writers go on meanwhile;
/// the copy is made first (on the store's disk) and then streamed. Restore it with `printcost
/// restore FILE` while the service is stopped.
#[utoipa::path(
    tag = "settings",
    responses(
        (status = 200, description = "The store file; `Content-Disposition: attachment; filename=\"printcost-YYYYMMDD-HHMMSS.redb\"` (UTC), `Cache-Control: no-store`",
            content_type = "application/octet-stream", body = Vec<u8>),
        (status = 401, body = ErrorBody),
        (status = 503, description = "DATABASE_UNAVAILABLE: the store cannot be read or the copy written", body = ErrorBody),
    ),
    security(("session" = []))
)]
#[get("/backup")]
pub async fn backup(state: Data<AppState>, _user: CurrentUser) -> Result<HttpResponse, ApiError> {
    let at = Timestamp::now();
    let dir = state.store.dir().unwrap_or_else(std::env::temp_dir);
    let file = state.query(TakeBackup { dir }).await?;
    let len = file.metadata().map_err(storage::Error::from)?.len();
    state.send(RecordBackup { at }).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/octet-stream")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"printcost-{}.redb\"", stamp(at)),
        ))
        .body(SizedStream::new(len, chunks(file))))
}

/// The file's contents in chunks, each read on the blocking pool.
fn chunks(file: File) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + 'static {
    futures_util::stream::unfold(Some(file), |file| async move {
        let mut file = file?;
        let read = actix_web::web::block(move || {
            let mut buf = vec![0; CHUNK];
            let n = file.read(&mut buf)?;
            buf.truncate(n);
            Ok::<_, std::io::Error>((file, buf))
        })
        .await
        .map_err(std::io::Error::other)
        .and_then(|r| r);
        match read {
            Ok((_, buf)) if buf.is_empty() => None,
            Ok((file, buf)) => Some((Ok(Bytes::from(buf)), Some(file))),
            Err(e) => Some((Err(e), None)),
        }
    })
}
