//! Route logic shared by the five inventory resources (customers, manufacturers, printers,
//! components, filaments): list, get, create, PATCH (full replace or `{archived}`), safe delete.
//!
//! Each resource module implements [`Resource`] (its DTOs and which rule functions to call) and
//! invokes [`inventory_routes!`], which emits the thin, OpenAPI-annotated handlers.

use super::ListResponse;
use crate::error::ApiError;
use crate::extract::{ListParams, Patch};
use crate::input::Faults;
use crate::input::query::FromQuery;
use crate::state::AppState;
use actix_web::HttpResponse;
use actors::inventory::Kind;
use actors::inventory::commands::{
    ArchiveRecord, CreateRecord, DeleteRecord, GetRecord, ListRecords, ReplaceRecord,
};
use deserr::Deserr;
use serde::Serialize;
use storage::Id;

/// One inventory resource on the wire: its DTOs on top of the rules of [`Kind`].
pub trait Resource: 'static {
    /// The rules.
    type Kind: Kind;
    /// Response body.
    type Dto: Serialize + 'static;
    /// Request body of create and full replace.
    type Input: Deserr<Faults> + 'static;

    /// Validates the wire input. Errors: 422 with field errors.
    fn domain(input: Self::Input) -> Result<Input<Self>, ApiError>;
    /// The resource's own list parameters.
    type Params: FromQuery + 'static;

    /// The rules' filter of the list parameters.
    fn filter(params: Self::Params) -> <Self::Kind as Kind>::Filter;
    /// The response body of a view.
    fn dto(view: View<Self>) -> Self::Dto;
}

/// The domain input of resource `R`.
pub type Input<R> = <<R as Resource>::Kind as Kind>::Input;
/// The view of resource `R`.
pub type View<R> = <<R as Resource>::Kind as Kind>::View;

/// `GET /api/{resource}`.
pub async fn list<R: Resource>(
    state: &AppState,
    (list, params): (ListParams, R::Params),
) -> Result<HttpResponse, ApiError> {
    let query = ListRecords::<R::Kind> {
        query: list.into(),
        filter: R::filter(params),
    };
    let page = state.query(query).await?;
    Ok(HttpResponse::Ok().json(ListResponse::of(page, R::dto)))
}

/// `GET /api/{resource}/{id}`.
pub async fn get<R: Resource>(state: &AppState, id: Id) -> Result<HttpResponse, ApiError> {
    let view = state.query(GetRecord::<R::Kind>::new(id)).await?;
    Ok(HttpResponse::Ok().json(R::dto(view)))
}

/// Creates a record of `R` from its wire input (shared with the UI's forms).
///
/// Errors: 422 with field errors; 409 `DUPLICATE`; a referenced record missing (422).
pub async fn add<R: Resource>(state: &AppState, input: R::Input) -> Result<View<R>, ApiError> {
    let input = R::domain(input)?;
    state.send(CreateRecord::<R::Kind> { input }).await
}

/// Replaces every editable field of record `id` of `R` (shared with the UI's forms).
///
/// Errors: as [`add`], and 404.
pub async fn replace<R: Resource>(
    state: &AppState,
    id: Id,
    input: R::Input,
) -> Result<View<R>, ApiError> {
    let input = R::domain(input)?;
    state.send(ReplaceRecord::<R::Kind> { id, input }).await
}

/// Archives or restores record `id` of `R`. Errors: 404.
pub async fn archive<R: Resource>(
    state: &AppState,
    id: Id,
    archived: bool,
) -> Result<View<R>, ApiError> {
    state
        .send(ArchiveRecord::<R::Kind>::new(id, archived))
        .await
}

/// Deletes record `id` of `R`. Errors: 404; 409 `REFERENCED` while another record refers to it.
pub async fn remove<R: Resource>(state: &AppState, id: Id) -> Result<(), ApiError> {
    state.send(DeleteRecord::<R::Kind>::new(id)).await
}

/// `POST /api/{resource}`: 201 with the record.
pub async fn create<R: Resource>(
    state: &AppState,
    input: R::Input,
) -> Result<HttpResponse, ApiError> {
    let view = add::<R>(state, input).await?;
    Ok(HttpResponse::Created().json(R::dto(view)))
}

/// `PATCH /api/{resource}/{id}`.
pub async fn patch<R: Resource>(
    state: &AppState,
    id: Id,
    body: Patch<R::Input>,
) -> Result<HttpResponse, ApiError> {
    let view = match body {
        Patch::Archive(a) => archive::<R>(state, id, a.archived).await?,
        Patch::Replace(input) => replace::<R>(state, id, input).await?,
    };
    Ok(HttpResponse::Ok().json(R::dto(view)))
}

/// `DELETE /api/{resource}/{id}`: 204, or 409 `REFERENCED`.
pub async fn delete<R: Resource>(state: &AppState, id: Id) -> Result<HttpResponse, ApiError> {
    remove::<R>(state, id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Emits the five handlers of an inventory resource and its `configure` function.
///
/// `inventory_routes!(Resource, "tag", "/collection", "/collection/{id}", Dto, Input, [extra
/// IntoParams types])`.
macro_rules! inventory_routes {
    ($resource:ty, $tag:literal, $collection:literal, $item:literal, $dto:ty, $input:ty, [$($params:ty),*]) => {
        use crate::api::ListResponse;
        use crate::extract::Patch;
        use actix_web::{delete, get, patch, post};

        /// Registers this resource's routes.
        pub fn configure(cfg: &mut impl crate::routes::Routes) {
            cfg.add(list).add(create).add(get).add(patch).add(delete);
        }

        #[doc = concat!("Lists ", $tag, ": filtered (search, archive state), then paginated; `total` counts every match.")]
        #[utoipa::path(
            tag = $tag,
            params(crate::extract::ListParams $(, $params)*),
            responses(
                (status = 200, body = ListResponse<$dto>),
                (status = 401, body = crate::error::ErrorBody),
                (status = 422, description = "Invalid query, e.g. pageSize 101", body = crate::error::ErrorBody),
            ),
            security(("session" = []))
        )]
        #[get($collection)]
        pub async fn list(
            state: actix_web::web::Data<crate::state::AppState>,
            _user: crate::session::CurrentUser,
            query: crate::extract::StrictQuery<(
                crate::extract::ListParams,
                <$resource as crate::api::inventory::Resource>::Params,
            )>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::api::inventory::list::<$resource>(&state, query.0).await
        }

        #[doc = concat!("Creates one of ", $tag, ".")]
        #[utoipa::path(
            tag = $tag,
            request_body = $input,
            responses(
                (status = 201, body = $dto),
                (status = 401, body = crate::error::ErrorBody),
                (status = 403, description = "Foreign or missing Origin", body = crate::error::ErrorBody),
                (status = 409, description = "DUPLICATE", body = crate::error::ErrorBody),
                (status = 422, description = "VALIDATION_FAILED with field errors", body = crate::error::ErrorBody),
            ),
            security(("session" = []))
        )]
        #[post($collection)]
        pub async fn create(
            state: actix_web::web::Data<crate::state::AppState>,
            _user: crate::session::CurrentUser,
            input: crate::extract::StrictJson<$input>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::api::inventory::create::<$resource>(&state, input.0).await
        }

        #[doc = concat!("One of ", $tag, ".")]
        #[utoipa::path(
            tag = $tag,
            params(("id" = String, Path, description = "Record id (UUID)")),
            responses(
                (status = 200, body = $dto),
                (status = 401, body = crate::error::ErrorBody),
                (status = 404, body = crate::error::ErrorBody),
            ),
            security(("session" = []))
        )]
        #[get($item)]
        pub async fn get(
            state: actix_web::web::Data<crate::state::AppState>,
            _user: crate::session::CurrentUser,
            id: crate::extract::PathId,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::api::inventory::get::<$resource>(&state, id.0).await
        }

        #[doc = concat!("Replaces every editable field of one of ", $tag, ", or with `{\"archived\": bool}` alone changes only its archive state.")]
        #[utoipa::path(
            tag = $tag,
            params(("id" = String, Path, description = "Record id (UUID)")),
            request_body = Patch<$input>,
            responses(
                (status = 200, body = $dto),
                (status = 401, body = crate::error::ErrorBody),
                (status = 403, body = crate::error::ErrorBody),
                (status = 404, body = crate::error::ErrorBody),
                (status = 409, description = "DUPLICATE", body = crate::error::ErrorBody),
                (status = 422, body = crate::error::ErrorBody),
            ),
            security(("session" = []))
        )]
        #[patch($item)]
        pub async fn patch(
            state: actix_web::web::Data<crate::state::AppState>,
            _user: crate::session::CurrentUser,
            id: crate::extract::PathId,
            body: crate::extract::StrictJson<Patch<$input>>,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::api::inventory::patch::<$resource>(&state, id.0, body.0).await
        }

        #[doc = concat!("Deletes one of ", $tag, " unless another record still refers to it (archive it instead).")]
        #[utoipa::path(
            tag = $tag,
            params(("id" = String, Path, description = "Record id (UUID)")),
            responses(
                (status = 204),
                (status = 401, body = crate::error::ErrorBody),
                (status = 403, body = crate::error::ErrorBody),
                (status = 404, body = crate::error::ErrorBody),
                (status = 409, description = "REFERENCED", body = crate::error::ErrorBody),
            ),
            security(("session" = []))
        )]
        #[delete($item)]
        pub async fn delete(
            state: actix_web::web::Data<crate::state::AppState>,
            _user: crate::session::CurrentUser,
            id: crate::extract::PathId,
        ) -> Result<actix_web::HttpResponse, crate::error::ApiError> {
            crate::api::inventory::delete::<$resource>(&state, id.0).await
        }
    };
}
pub(crate) use inventory_routes;
