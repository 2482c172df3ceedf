//! The API error: the stable body of docs/api-contract.md and the one table from code to status.
//!
//! Body: `{ "statusCode", "message", "data": { "code", "messageKey", "fieldErrors"?, "requestId" } }`.
//! Handlers return `Result<_, ApiError>`; the request-id middleware renders the body with the
//! request's id, so the id in the body always equals the `X-Request-Id` header.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use actors::FieldError;
use actors::sliced::Refusal;
use serde::Serialize;
use std::fmt;
use utoipa::ToSchema;

/// Stable error codes clients branch on. Each has exactly one HTTP status ([`Code::status`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// 401: no or expired session on a protected route.
    Unauthenticated,
    /// 401: login failed (same answer for an unknown email and a wrong password).
    InvalidCredentials,
    /// 403: a write without an Origin matching the instance.
    ForbiddenOrigin,
    /// 403: the account's role is below the one the route needs (`crate::roles`).
    Forbidden,
    /// 404: unknown id or route.
    NotFound,
    /// 422: malformed JSON, wrong types, unknown fields, out-of-range values.
    ValidationFailed,
    /// 429: repeated login failures (with `Retry-After`).
    RateLimited,
    /// 409: setup after the first account exists.
    SetupCompleted,
    /// 409: delete of a record still referenced.
    Referenced,
    /// 409: a unique name taken.
    Duplicate,
    /// 409: currency change once a print exists.
    CurrencyLocked,
    /// 409: edit of a finalized print, or a return to DRAFT.
    Immutable,
    /// 409: spool and stock routes while spool management is off.
    SpoolManagementDisabled,
    /// 409: an `operationKey` reused with other content.
    OperationKeyReused,
    /// 409: an action the record's state forbids.
    InvalidState,
    /// 409: the change would leave the shop without an enabled owner.
    LastOwner,
    /// 409: a different outcome for a print that has one.
    OutcomeConflict,
    /// 409: `expectedRevision` is not current.
    StaleRevision,
    /// 409: series routes while print series are off.
    PrintSeriesDisabled,
    /// 409: report of a print that is not DONE.
    ReportNotAllowed,
    /// 409: a move to PRINTING while a blocking maintenance task is overdue, without override.
    MaintenanceOverdue,
    /// 409: a quote accepted or declined after its validity date.
    QuoteExpired,
    /// 409: a DRAFT quote sent whose prints or validity date no longer make an offer.
    QuoteOutdated,
    /// 409: a change, delete or second issue of an issued invoice.
    InvoiceIssued,
    /// 409: an invoice issued while the company or the customer lacks what it must name.
    InvoiceIncomplete,
    /// 422: export above 5,000 rows.
    ExportTooLarge,
    /// 409: the integration is switched off.
    IntegrationDisabled,
    /// 422: an upload that is not a sliced file from a slicer this appliance reads.
    SlicedFileUnrecognized,
    /// 422: G-code cut off before the slicer's summary.
    SlicedFileTruncated,
    /// 422: G-code that is not UTF-8 text.
    SlicedFileNotText,
    /// 422: a zip archive that is not a 3MF package.
    SlicedFileNotPackage,
    /// 422: a damaged zip archive.
    SlicedFileBrokenArchive,
    /// 422: a 3MF whose `slice_info.config` cannot be read.
    SlicedFileBrokenMetadata,
    /// 422: a project 3MF without a sliced result.
    SlicedFileNotSliced,
    /// 422: binary G-code (`.bgcode`).
    SlicedFileBinaryGcode,
    /// 422: CuraEngine's command-line placeholders instead of an estimate.
    SlicedFilePlaceholders,
    /// 413: a file above the limit (2 GiB G-code; 512 MiB or 4,096 entries a package).
    SlicedFileTooLarge,
    /// 422: an archive entry above its limit (a zip bomb).
    SlicedFileEntryTooLarge,
    /// 422: a 3MF with more sliced plates than a print holds parts (100).
    SlicedFileTooManyPlates,
    /// 409: the integration is on but has no URL (or key), or the peer refused our credential.
    IntegrationConfig,
    /// 502: the peer gave no usable answer (refused, timeout, redirect, oversized body, 5xx).
    IntegrationUnavailable,
    /// 502: the peer answered what its contract does not allow.
    IntegrationContract,
    /// 409: a stale preview hash, an external id linked elsewhere, unresolved operations.
    IntegrationConflict,
    /// 409: a resin's or a consumable's stock linked to the spool manager or mapped to a tray.
    MaterialNotFilament,
    /// 409: a native movement or a price/metadata change on a spool the spool manager owns.
    StockOwnedExternally,
    /// 422: a tray mapped to an unknown or archived spool.
    InvalidSpool,
    /// 503: the store cannot be read or written.
    DatabaseUnavailable,
    /// 500: a bug; never for bad input.
    Internal,
}

impl Code {
    /// The one table from code to (status, wire code, message key, English message): one row
    /// per code.
    #[rustfmt::skip]
    fn facts(self) -> (StatusCode, &'static str, &'static str, &'static str) {
        use Code::*;
        use StatusCode as S;
        match self {
            Unauthenticated         => (S::UNAUTHORIZED, "UNAUTHENTICATED", "errors.unauthenticated", "Log in to continue."),
            InvalidCredentials      => (S::UNAUTHORIZED, "INVALID_CREDENTIALS", "errors.invalidCredentials", "Invalid email or password."),
            ForbiddenOrigin         => (S::FORBIDDEN, "FORBIDDEN_ORIGIN", "errors.forbiddenOrigin", "The request's Origin does not match this instance."),
            Forbidden               => (S::FORBIDDEN, "FORBIDDEN", "errors.forbidden", "Your account's role does not allow this."),
            NotFound                => (S::NOT_FOUND, "NOT_FOUND", "errors.notFound", "Not found."),
            ValidationFailed        => (S::UNPROCESSABLE_ENTITY, "VALIDATION_FAILED", "errors.validationFailed", "The request is invalid."),
            RateLimited             => (S::TOO_MANY_REQUESTS, "RATE_LIMITED", "errors.rateLimited", "Too many failed logins; try again later."),
            SetupCompleted          => (S::CONFLICT, "SETUP_COMPLETED", "errors.setupCompleted", "Setup has already been completed."),
            Referenced              => (S::CONFLICT, "REFERENCED", "errors.referenced", "The record is still in use and cannot be deleted; archive it instead."),
            Duplicate               => (S::CONFLICT, "DUPLICATE", "errors.duplicate", "That value is already taken."),
            CurrencyLocked          => (S::CONFLICT, "CURRENCY_LOCKED", "errors.currencyLocked", "The currency cannot change once a print exists."),
            SpoolManagementDisabled => (S::CONFLICT, "SPOOL_MANAGEMENT_DISABLED", "errors.spoolManagementDisabled", "Spool management is disabled."),
            Immutable               => (S::CONFLICT, "IMMUTABLE", "errors.immutable", "The print is finalized and cannot change that way."),
            PrintSeriesDisabled     => (S::CONFLICT, "PRINT_SERIES_DISABLED", "errors.printSeriesDisabled", "Print series are disabled."),
            ReportNotAllowed        => (S::CONFLICT, "REPORT_NOT_ALLOWED", "errors.reportNotAllowed", "Reports exist for DONE prints only."),
            MaintenanceOverdue      => (S::CONFLICT, "MAINTENANCE_OVERDUE", "errors.maintenanceOverdue", "A blocking maintenance task of this printer is overdue."),
            QuoteExpired            => (S::CONFLICT, "QUOTE_EXPIRED", "errors.quoteExpired", "The quote's validity date has passed."),
            QuoteOutdated           => (S::CONFLICT, "QUOTE_OUTDATED", "errors.quoteOutdated", "The quote no longer holds: change it, then send it."),
            InvoiceIssued           => (S::CONFLICT, "INVOICE_ISSUED", "errors.invoiceIssued", "The invoice was issued: correct it with a credit note."),
            InvoiceIncomplete       => (S::CONFLICT, "INVOICE_INCOMPLETE", "errors.invoiceIncomplete", "The company or the customer lacks what an invoice must name."),
            ExportTooLarge          => (S::UNPROCESSABLE_ENTITY, "EXPORT_TOO_LARGE", "errors.exportTooLarge", "The export has more than 5,000 prints; narrow the filters."),
            OperationKeyReused      => (S::CONFLICT, "OPERATION_KEY_REUSED", "errors.operationKeyReused", "That operation key was already used with other content."),
            InvalidState            => (S::CONFLICT, "INVALID_STATE", "errors.invalidState", "The record's state does not allow this action."),
            LastOwner               => (S::CONFLICT, "LAST_OWNER", "errors.lastOwner", "The shop's last owner cannot be disabled or demoted."),
            OutcomeConflict         => (S::CONFLICT, "OUTCOME_CONFLICT", "errors.outcomeConflict", "The print already has a different outcome; correct it instead."),
            StaleRevision           => (S::CONFLICT, "STALE_REVISION", "errors.staleRevision", "The outcome was corrected meanwhile; reload and try again."),
            IntegrationDisabled     => (S::CONFLICT, "INTEGRATION_DISABLED", "errors.integrationDisabled", "The integration is disabled."),
            SlicedFileUnrecognized  => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_UNRECOGNIZED", "errors.slicedFileUnrecognized", "Not a sliced file from a slicer this appliance reads (G-code from PrusaSlicer, SuperSlicer, OrcaSlicer, Bambu Studio or Cura, or a sliced 3MF)."),
            SlicedFileTruncated     => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_TRUNCATED", "errors.slicedFileTruncated", "The file ends before the slicer's summary: it is incomplete."),
            SlicedFileNotText       => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_NOT_TEXT", "errors.slicedFileNotText", "The G-code is not text (UTF-8)."),
            SlicedFileNotPackage    => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_NOT_PACKAGE", "errors.slicedFileNotPackage", "A zip archive that is not a 3MF package."),
            SlicedFileBrokenArchive => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_BROKEN_ARCHIVE", "errors.slicedFileBrokenArchive", "The archive is damaged."),
            SlicedFileBrokenMetadata => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_BROKEN_METADATA", "errors.slicedFileBrokenMetadata", "The 3MF's slice information cannot be read."),
            SlicedFileNotSliced     => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_NOT_SLICED", "errors.slicedFileNotSliced", "The 3MF holds a project but no sliced result: slice it and export the sliced file."),
            SlicedFileBinaryGcode   => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_BINARY_GCODE", "errors.slicedFileBinaryGcode", "This binary G-code's metadata cannot be read: export text G-code."),
            SlicedFilePlaceholders  => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_PLACEHOLDERS", "errors.slicedFilePlaceholders", "The file holds CuraEngine's placeholder values, not an estimate: save it from Cura."),
            SlicedFileTooLarge      => (S::PAYLOAD_TOO_LARGE, "SLICED_FILE_TOO_LARGE", "errors.slicedFileTooLarge", "The file is larger than the limit (2 GiB of G-code; 512 MiB or 4,096 entries for a 3MF)."),
            SlicedFileEntryTooLarge => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_ENTRY_TOO_LARGE", "errors.slicedFileEntryTooLarge", "An entry of the archive is larger than its limit."),
            SlicedFileTooManyPlates => (S::UNPROCESSABLE_ENTITY, "SLICED_FILE_TOO_MANY_PLATES", "errors.slicedFileTooManyPlates", "The 3MF has more sliced plates than a print holds parts (100)."),
            IntegrationConfig       => (S::CONFLICT, "INTEGRATION_CONFIG", "errors.integrationConfig", "The integration is not configured, or the peer refused its credential."),
            IntegrationUnavailable  => (S::BAD_GATEWAY, "INTEGRATION_UNAVAILABLE", "errors.integrationUnavailable", "The peer is unavailable."),
            IntegrationContract     => (S::BAD_GATEWAY, "INTEGRATION_CONTRACT", "errors.integrationContract", "The peer answered something its contract does not allow."),
            IntegrationConflict     => (S::CONFLICT, "INTEGRATION_CONFLICT", "errors.integrationConflict", "The request conflicts with the integration's state; reload and try again."),
            MaterialNotFilament     => (S::CONFLICT, "MATERIAL_NOT_FILAMENT", "errors.materialNotFilament", "Only a filament's spool can be linked to the spool manager or mapped to a tray."),
            StockOwnedExternally    => (S::CONFLICT, "STOCK_OWNED_EXTERNALLY", "errors.stockOwnedExternally", "The spool manager owns this spool's stock."),
            InvalidSpool            => (S::UNPROCESSABLE_ENTITY, "INVALID_SPOOL", "errors.invalidSpool", "The spool is unknown or archived."),
            DatabaseUnavailable     => (S::SERVICE_UNAVAILABLE, "DATABASE_UNAVAILABLE", "errors.databaseUnavailable", "The database is unavailable."),
            Internal                => (S::INTERNAL_SERVER_ERROR, "INTERNAL", "errors.internal", "Internal error."),
        }
    }

    /// The HTTP status of this code.
    pub fn status(self) -> StatusCode {
        self.facts().0
    }

    /// The i18n key of the code's message (`errors.invalidCredentials`).
    pub fn message_key(self) -> &'static str {
        self.facts().2
    }

    /// The wire name (`SETUP_COMPLETED`).
    pub fn as_str(self) -> &'static str {
        self.facts().1
    }
}

impl From<Refusal> for ApiError {
    /// The code of each refusal of a sliced file.
    fn from(refusal: Refusal) -> ApiError {
        ApiError::new(match refusal {
            Refusal::Unrecognized => Code::SlicedFileUnrecognized,
            Refusal::Truncated => Code::SlicedFileTruncated,
            Refusal::NotText => Code::SlicedFileNotText,
            Refusal::NotPackage => Code::SlicedFileNotPackage,
            Refusal::BrokenArchive => Code::SlicedFileBrokenArchive,
            Refusal::BrokenMetadata => Code::SlicedFileBrokenMetadata,
            Refusal::NotSliced => Code::SlicedFileNotSliced,
            Refusal::BinaryGcode => Code::SlicedFileBinaryGcode,
            Refusal::Placeholders => Code::SlicedFilePlaceholders,
            Refusal::TooLarge => Code::SlicedFileTooLarge,
            Refusal::EntryTooLarge => Code::SlicedFileEntryTooLarge,
            Refusal::TooManyPlates => Code::SlicedFileTooManyPlates,
        })
    }
}

/// An error answer. Build it from a [`Code`] or convert an [`actors::Error`].
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The stable code.
    pub code: Code,
    /// Human text in English.
    pub message: String,
    /// Fields at fault, where fields are.
    pub field_errors: Vec<FieldError>,
    /// Seconds for `Retry-After` (429).
    pub retry_after: Option<u64>,
}

impl ApiError {
    /// An error with the code's standard message.
    pub fn new(code: Code) -> Self {
        ApiError {
            code,
            message: code.facts().3.to_string(),
            field_errors: Vec::new(),
            retry_after: None,
        }
    }

    /// 422 with the given field errors.
    pub fn validation(field_errors: Vec<FieldError>) -> Self {
        ApiError {
            field_errors,
            ..ApiError::new(Code::ValidationFailed)
        }
    }

    /// 422 with one field error.
    pub fn field(
        path: impl Into<String>,
        message_key: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Self {
        Self::validation(vec![FieldError::new(path, message_key)])
    }

    /// Replaces the message.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// The response, with `request_id` in the body.
    pub fn render(&self, request_id: &str) -> HttpResponse {
        let (status, code, message_key, _) = self.code.facts();
        let body = ErrorBody {
            status_code: status.as_u16(),
            message: self.message.clone(),
            data: ErrorData {
                code: code.to_string(),
                message_key: message_key.to_string(),
                field_errors: (!self.field_errors.is_empty()).then(|| {
                    self.field_errors
                        .iter()
                        .map(|f| FieldErrorBody {
                            path: f.path.clone(),
                            message_key: f.message_key.to_string(),
                        })
                        .collect()
                }),
                request_id: request_id.to_string(),
            },
        };
        let mut response = HttpResponse::build(status);
        if let Some(seconds) = self.retry_after {
            response.insert_header(("Retry-After", seconds.to_string()));
        }
        response.json(body)
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        self.render("")
    }
}

/// A response already rendered for its client (a page of the UI showing an error, or a redirect
/// to the login), sent as it is: the error middleware passes it through instead of answering
/// with the JSON error body.
#[derive(Debug)]
pub struct Rendered {
    /// The status to answer with.
    pub status: StatusCode,
    /// The HTML page (empty for a redirect).
    pub body: String,
    /// Where a redirect leads.
    pub location: Option<String>,
}

impl Rendered {
    /// 303 See Other to `location`.
    pub fn redirect(location: &str) -> Rendered {
        Rendered {
            status: StatusCode::SEE_OTHER,
            body: String::new(),
            location: Some(location.to_string()),
        }
    }
}

impl fmt::Display for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "page answered {}", self.status)
    }
}

impl ResponseError for Rendered {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status);
        if let Some(location) = &self.location {
            response.insert_header((actix_web::http::header::LOCATION, location.as_str()));
        }
        response
            .content_type("text/html; charset=utf-8")
            .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
            .body(self.body.clone())
    }
}

impl From<actors::Error> for ApiError {
    fn from(error: actors::Error) -> Self {
        use actors::Error as E;
        match error {
            E::NotFound => ApiError::new(Code::NotFound),
            E::Validation(fields) => ApiError::validation(fields),
            E::Duplicate(field) => ApiError {
                field_errors: vec![field],
                ..ApiError::new(Code::Duplicate)
            },
            E::Referenced => ApiError::new(Code::Referenced),
            E::SetupCompleted => ApiError::new(Code::SetupCompleted),
            E::CurrencyLocked => ApiError::new(Code::CurrencyLocked),
            E::InvalidCredentials => ApiError::new(Code::InvalidCredentials),
            E::SpoolManagementDisabled => ApiError::new(Code::SpoolManagementDisabled),
            E::ReportNotAllowed => ApiError::new(Code::ReportNotAllowed),
            E::ExportTooLarge => ApiError::new(Code::ExportTooLarge),
            E::Immutable => ApiError::new(Code::Immutable),
            E::OperationKeyReused => ApiError::new(Code::OperationKeyReused),
            E::InvalidState => ApiError::new(Code::InvalidState),
            E::LastOwner => ApiError::new(Code::LastOwner),
            E::QuoteExpired => ApiError::new(Code::QuoteExpired),
            E::QuoteOutdated(fields) => ApiError {
                field_errors: fields,
                ..ApiError::new(Code::QuoteOutdated)
            },
            E::InvoiceIssued => ApiError::new(Code::InvoiceIssued),
            E::InvoiceIncomplete(missing) => ApiError::new(Code::InvoiceIncomplete).with_message(
                format!("An invoice needs these before it is issued: {missing}."),
            ),
            E::Panicked | E::Unexpected(_) => ApiError::new(Code::Internal),
            E::OutcomeConflict => ApiError::new(Code::OutcomeConflict),
            E::StaleRevision => ApiError::new(Code::StaleRevision),
            E::PrintSeriesDisabled => ApiError::new(Code::PrintSeriesDisabled),
            E::IntegrationDisabled => ApiError::new(Code::IntegrationDisabled),
            E::IntegrationConfig => ApiError::new(Code::IntegrationConfig),
            E::IntegrationUnavailable => ApiError::new(Code::IntegrationUnavailable),
            E::IntegrationContract => ApiError::new(Code::IntegrationContract),
            E::IntegrationConflict => ApiError::new(Code::IntegrationConflict),
            E::MaterialNotFilament => ApiError::new(Code::MaterialNotFilament),
            E::StockOwnedExternally => ApiError::new(Code::StockOwnedExternally),
            E::InvalidSpool => ApiError::new(Code::InvalidSpool),
            E::MaintenanceOverdue { task_id, task } => ApiError::new(Code::MaintenanceOverdue)
                .with_message(format!(
                    "The maintenance task \"{task}\" ({task_id}) is overdue: mark it done, or move the print with a maintenanceOverride reason."
                )),
            E::Storage(e) => {
                tracing::error!(error = %e, "store unavailable");
                ApiError::new(Code::DatabaseUnavailable)
            }
            E::WriterGone(name) => {
                tracing::error!(writer = name, "writer unavailable");
                ApiError::new(Code::DatabaseUnavailable)
            }
        }
    }
}

impl From<storage::Error> for ApiError {
    fn from(error: storage::Error) -> Self {
        actors::Error::Storage(error).into()
    }
}

/// The error body (OpenAPI schema and serializer).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// HTTP status, repeated.
    pub status_code: u16,
    /// Human text in English.
    pub message: String,
    /// What clients branch on.
    pub data: ErrorData,
}

/// The stable part of an error body.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorData {
    /// Stable code, e.g. `VALIDATION_FAILED`.
    pub code: String,
    /// i18n key, e.g. `errors.validationFailed`.
    pub message_key: String,
    /// Fields at fault; only where fields are at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field_errors: Option<Vec<FieldErrorBody>>,
    /// Equals the `X-Request-Id` response header.
    pub request_id: String,
}

/// One field at fault.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldErrorBody {
    /// JSON path of the input field, e.g. `parts[0].hotends`.
    pub path: String,
    /// i18n key, e.g. `errors.required`.
    pub message_key: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::to_bytes;

    #[actix_web::test]
    async fn the_body_has_the_contract_shape() {
        let error = ApiError::field("colorHex", "errors.invalidColor");
        let response = error.render("req-1");
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = to_bytes(response.into_body()).await.unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "statusCode": 422,
                "message": "The request is invalid.",
                "data": {
                    "code": "VALIDATION_FAILED",
                    "messageKey": "errors.validationFailed",
                    "fieldErrors": [{"path": "colorHex", "messageKey": "errors.invalidColor"}],
                    "requestId": "req-1"
                }
            })
        );
    }

    #[test]
    fn every_code_has_its_contract_status() {
        use Code::*;
        let table = [
            (Unauthenticated, 401, "UNAUTHENTICATED"),
            (InvalidCredentials, 401, "INVALID_CREDENTIALS"),
            (ForbiddenOrigin, 403, "FORBIDDEN_ORIGIN"),
            (Forbidden, 403, "FORBIDDEN"),
            (NotFound, 404, "NOT_FOUND"),
            (ValidationFailed, 422, "VALIDATION_FAILED"),
            (RateLimited, 429, "RATE_LIMITED"),
            (SetupCompleted, 409, "SETUP_COMPLETED"),
            (LastOwner, 409, "LAST_OWNER"),
            (Referenced, 409, "REFERENCED"),
            (Duplicate, 409, "DUPLICATE"),
            (CurrencyLocked, 409, "CURRENCY_LOCKED"),
            (Immutable, 409, "IMMUTABLE"),
            (OperationKeyReused, 409, "OPERATION_KEY_REUSED"),
            (InvalidState, 409, "INVALID_STATE"),
            (OutcomeConflict, 409, "OUTCOME_CONFLICT"),
            (StaleRevision, 409, "STALE_REVISION"),
            (SpoolManagementDisabled, 409, "SPOOL_MANAGEMENT_DISABLED"),
            (PrintSeriesDisabled, 409, "PRINT_SERIES_DISABLED"),
            (ReportNotAllowed, 409, "REPORT_NOT_ALLOWED"),
            (MaintenanceOverdue, 409, "MAINTENANCE_OVERDUE"),
            (QuoteExpired, 409, "QUOTE_EXPIRED"),
            (QuoteOutdated, 409, "QUOTE_OUTDATED"),
            (InvoiceIssued, 409, "INVOICE_ISSUED"),
            (InvoiceIncomplete, 409, "INVOICE_INCOMPLETE"),
            (ExportTooLarge, 422, "EXPORT_TOO_LARGE"),
            (IntegrationDisabled, 409, "INTEGRATION_DISABLED"),
            (IntegrationConfig, 409, "INTEGRATION_CONFIG"),
            (IntegrationUnavailable, 502, "INTEGRATION_UNAVAILABLE"),
            (IntegrationContract, 502, "INTEGRATION_CONTRACT"),
            (IntegrationConflict, 409, "INTEGRATION_CONFLICT"),
            (MaterialNotFilament, 409, "MATERIAL_NOT_FILAMENT"),
            (StockOwnedExternally, 409, "STOCK_OWNED_EXTERNALLY"),
            (InvalidSpool, 422, "INVALID_SPOOL"),
            (SlicedFileUnrecognized, 422, "SLICED_FILE_UNRECOGNIZED"),
            (SlicedFileTruncated, 422, "SLICED_FILE_TRUNCATED"),
            (SlicedFileNotText, 422, "SLICED_FILE_NOT_TEXT"),
            (SlicedFileNotPackage, 422, "SLICED_FILE_NOT_PACKAGE"),
            (SlicedFileBrokenArchive, 422, "SLICED_FILE_BROKEN_ARCHIVE"),
            (SlicedFileBrokenMetadata, 422, "SLICED_FILE_BROKEN_METADATA"),
            (SlicedFileNotSliced, 422, "SLICED_FILE_NOT_SLICED"),
            (SlicedFileBinaryGcode, 422, "SLICED_FILE_BINARY_GCODE"),
            (SlicedFilePlaceholders, 422, "SLICED_FILE_PLACEHOLDERS"),
            (SlicedFileTooLarge, 413, "SLICED_FILE_TOO_LARGE"),
            (SlicedFileEntryTooLarge, 422, "SLICED_FILE_ENTRY_TOO_LARGE"),
            (SlicedFileTooManyPlates, 422, "SLICED_FILE_TOO_MANY_PLATES"),
            (DatabaseUnavailable, 503, "DATABASE_UNAVAILABLE"),
            (Internal, 500, "INTERNAL"),
        ];
        for (code, status, name) in table {
            assert_eq!(code.status().as_u16(), status, "{name}");
            assert_eq!(code.as_str(), name);
        }
    }
}
