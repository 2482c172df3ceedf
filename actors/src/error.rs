//! The domain error of this crate. The web crate maps each variant to exactly one API code.

use std::borrow::Cow;
use std::fmt;

/// One field at fault: `path` is the JSON path of the API input (`parts[0].hotends`,
/// `manufacturerId`), `message_key` a stable i18n key (`errors.required`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// JSON path of the offending input field.
    pub path: String,
    /// Stable message key, `errors.<name>`.
    pub message_key: Cow<'static, str>,
}

impl FieldError {
    /// A field error at `path` with `message_key`.
    pub fn new(path: impl Into<String>, message_key: impl Into<Cow<'static, str>>) -> Self {
        FieldError {
            path: path.into(),
            message_key: message_key.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message_key)
    }
}

/// Why a command or read was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// The addressed record does not exist (404 `NOT_FOUND`).
    #[error("not found")]
    NotFound,
    /// Input is invalid; every field at fault is listed (422 `VALIDATION_FAILED`).
    #[error("validation failed: {}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
    Validation(Vec<FieldError>),
    /// A unique value is taken (409 `DUPLICATE`); the field names which.
    #[error("{0} is already taken")]
    Duplicate(FieldError),
    /// The record is still referenced and cannot be deleted (409 `REFERENCED`).
    #[error("the record is still referenced")]
    Referenced,
    /// Setup has already run (409 `SETUP_COMPLETED`).
    #[error("setup has already been completed")]
    SetupCompleted,
    /// The currency cannot change once a print exists (409 `CURRENCY_LOCKED`).
    #[error("the currency cannot change once a print exists")]
    CurrencyLocked,
    /// Unknown email or wrong password; deliberately indistinguishable (401 `INVALID_CREDENTIALS`).
    #[error("invalid email or password")]
    InvalidCredentials,
    /// The print is finalized (left DRAFT) and cannot be edited or sent back to DRAFT
    /// (409 `IMMUTABLE`).
    #[error("the print is finalized and cannot change")]
    Immutable,
    /// The record's state forbids the action (409 `INVALID_STATE`): an outcome on a print that is
    /// not DONE or is archived, a retry of a print that did not fail.
    #[error("the print's state does not allow this")]
    InvalidState,
    /// The change would leave no enabled owner: the last owner cannot be disabled or demoted
    /// (409 `LAST_OWNER`).
    #[error("the shop's last owner cannot be disabled or demoted")]
    LastOwner,
    /// A different outcome for a print that has one (409 `OUTCOME_CONFLICT`).
    #[error("the print already has a different outcome")]
    OutcomeConflict,
    /// `expectedRevision` is not the current revision (409 `STALE_REVISION`).
    #[error("the outcome has a newer revision")]
    StaleRevision,
    /// An operation key reused with other content (409 `OPERATION_KEY_REUSED`).
    #[error("the operation key was already used with other content")]
    OperationKeyReused,
    /// An export above 5,000 prints (422 `EXPORT_TOO_LARGE`): narrow the filters.
    #[error("the export holds more than 5000 prints")]
    ExportTooLarge,
    /// A report of a print that is not DONE (409 `REPORT_NOT_ALLOWED`).
    #[error("only a DONE print has a report")]
    ReportNotAllowed,
    /// Series routes while print series are off (409 `PRINT_SERIES_DISABLED`).
    #[error("print series are disabled")]
    PrintSeriesDisabled,
    /// The route needs spool management, which is off (409 `SPOOL_MANAGEMENT_DISABLED`).
    #[error("spool management is disabled")]
    SpoolManagementDisabled,
    /// The integration is switched off (409 `INTEGRATION_DISABLED`).
    #[error("the integration is disabled")]
    IntegrationDisabled,
    /// The integration is on but not usable: no URL, or the peer refused our credential (409
    /// `INTEGRATION_CONFIG`).
    #[error("the integration is not configured")]
    IntegrationConfig,
    /// The peer gave no usable answer (502 `INTEGRATION_UNAVAILABLE`).
    #[error("the peer is unavailable")]
    IntegrationUnavailable,
    /// The peer answered what its contract does not allow (502 `INTEGRATION_CONTRACT`).
    #[error("the peer broke its contract")]
    IntegrationContract,
    /// A stale preview hash, an external id linked elsewhere, a changed authority with
    /// unresolved operations, an operation in another state (409 `INTEGRATION_CONFLICT`).
    #[error("the request conflicts with the integration's state")]
    IntegrationConflict,
    /// A resin's or a consumable's stock where only filament goes: linked to the spool manager,
    /// or mapped to a printer-fleet tray (409 `MATERIAL_NOT_FILAMENT`).
    #[error("only a filament's spool can be linked or mapped")]
    MaterialNotFilament,
    /// A native movement or a price or metadata change on a spool whose stock the spool manager
    /// owns (409 `STOCK_OWNED_EXTERNALLY`).
    #[error("the spool manager owns this spool's stock")]
    StockOwnedExternally,
    /// A tray mapped to an unknown or archived spool (422 `INVALID_SPOOL`).
    #[error("the spool is unknown or archived")]
    InvalidSpool,
    /// A blocking maintenance task of the print's printer or components is overdue, and no
    /// override was given (409 `MAINTENANCE_OVERDUE`); names the task.
    #[error("the maintenance task \"{task}\" is overdue")]
    MaintenanceOverdue {
        /// The task.
        task_id: storage::Id,
        /// Its name.
        task: String,
    },
    /// A change, delete or second issue of an issued invoice or credit note (409
    /// `INVOICE_ISSUED`): it is corrected by a credit note only.
    #[error("the invoice was issued and cannot change")]
    InvoiceIssued,
    /// An invoice issued while the company or the customer lacks what it must name (409
    /// `INVOICE_INCOMPLETE`): the fields, comma-separated.
    #[error("an invoice needs {0}")]
    InvoiceIncomplete(String),
    /// A quote accepted or declined after its validity date (409 `QUOTE_EXPIRED`).
    #[error("the quote is no longer valid")]
    QuoteExpired,
    /// A DRAFT quote sent when what it holds no longer makes an offer (409 `QUOTE_OUTDATED`):
    /// its fields at fault, as [`Error::Validation`] names them (a print since gone from DRAFT
    /// or without a sales value, a validity date now past). Nothing in the request is at fault.
    #[error("the quote must be changed before it is sent")]
    QuoteOutdated(Vec<FieldError>),
    /// The store cannot be read or written (503 `DATABASE_UNAVAILABLE`).
    #[error(transparent)]
    Storage(#[from] storage::Error),
    /// The command panicked: a bug, contained by the writer (500 `INTERNAL`).
    #[error("the command failed unexpectedly")]
    Panicked,
    /// A part with fixed input failed (a bug, never the caller's doing): what failed
    /// (500 `INTERNAL`).
    #[error("{0} failed unexpectedly")]
    Unexpected(&'static str),
    /// A writer actor is gone (shutting down or crashed) (503 `DATABASE_UNAVAILABLE`).
    #[error("the {0} writer is not running")]
    WriterGone(&'static str),
}

impl Error {
    /// A validation error with one field.
    pub fn field(path: impl Into<String>, message_key: &'static str) -> Self {
        Error::Validation(vec![FieldError::new(path, message_key)])
    }

    /// The same error with field errors at `from` moved to `to` (a rule written for one input
    /// field reused for another: the ledger's grams for millilitres or pieces).
    pub fn moved(self, from: &str, to: &str) -> Self {
        match self {
            Error::Validation(errors) => Error::Validation(
                errors
                    .into_iter()
                    .map(|e| match e.path == from {
                        true => FieldError::new(to, e.message_key),
                        false => e,
                    })
                    .collect(),
            ),
            other => other,
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;
