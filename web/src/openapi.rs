//! The OpenAPI 3.1 document's frame: info, tags (one per domain) and the cookie security scheme.
//! Paths and schemas are collected from the handlers by utoipa-actix-web.

use crate::api::printers;
use crate::api::printfleet;
use crate::api::prints::filters;
use crate::api::prints::input;
use crate::api::prints::outcome_dto;
use crate::api::search;
use crate::body_forms::Alternative;
use crate::roles::{self, Role};
use crate::session;
use serde_json::{Value, json};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

/// The document frame.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Print Cost Service API",
        description = "Exact 3D print pricing, inventory and stock for one print shop. Authentication is the `print-cost-session` cookie set by `POST /api/auth/login`; every write also needs an `Origin` matching the instance. Decimals are JSON strings; timestamps are ISO 8601 UTC; ids are UUID strings. Errors share one body: `{statusCode, message, data: {code, messageKey, fieldErrors?, requestId}}`."
    ),
    tags(
        (name = "health", description = "Liveness and database health"),
        (name = "auth", description = "First-run setup, login, sessions, account preferences"),
        (name = "settings", description = "Instance settings and feature flags"),
        (name = "customers", description = "Customers prints are made for"),
        (name = "manufacturers", description = "Makers of printers, components and filament"),
        (name = "printers", description = "Printers and their hourly depreciation"),
        (name = "components", description = "Hotends, build plates and other wear parts"),
        (name = "filaments", description = "Filament products and stock thresholds"),
        (name = "materials", description = "Materials of every kind: filaments (grams), resins (millilitres), consumables (pieces or millilitres)"),
        (name = "labour rates", description = "What an hour of work costs"),
        (name = "charges", description = "Fixed charges per job or per piece: setup fees, packaging"),
        (name = "post-processing steps", description = "Named work at a labour rate, optionally on a machine"),
        (name = "prints", description = "Prints with frozen cost snapshots: pricing, lifecycle, export, reports"),
        (name = "series", description = "Print series and their histories"),
        (name = "invoices", description = "Invoices and credit notes from DONE prints: gapless numbers, frozen when issued, XRechnung 3.0 XML"),
        (name = "quotes", description = "Quotes: drafts offered to a customer, numbered and frozen when sent, accepted, declined or expired"),
        (name = "spools", description = "Filament spools and their stock ledger"),
        (name = "search", description = "Search across prints and inventory"),
        (name = "dashboard", description = "Money, material and success rates over a period"),
        (name = "maintenance", description = "Wear of printers and components, maintenance tasks"),
        (name = "meters", description = "Printers' energy meters: the link, live and kept readings"),
        (name = "alerts", description = "Alerts standing now, their thresholds, MQTT channel and webhooks"),
        (name = "journal", description = "The hash-chained record of every change: who changed what, when, before and after; its export"),
    ),
    modifiers(&SessionCookie)
)]
pub struct ApiDoc;

/// Adds the security schemes: `session`, the `print-cost-session` cookie, and `metricsToken`,
/// the bearer token of `GET /metrics`.
struct SessionCookie;

impl Modify for SessionCookie {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::new(session::SESSION_COOKIE))),
        );
        components.add_security_scheme(
            "metricsToken",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
        components.add_security_scheme(
            "controlToken",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// Finishes the collected document (as JSON) where utoipa's derive cannot say enough: bodies
/// that take one of several groups of fields become `oneOf` their groups, the `where`
/// parameters are JSON documents with their grammar's schema, `q` of search gets its
/// non-blank pattern (built from [`actors::values::NOT_BLANK`], which an attribute cannot use),
/// and an action body's variants admit no other field.
pub fn finish(document: &mut Value) {
    let schemas = &mut document["components"]["schemas"];
    refer_patch_inputs(schemas);
    close_actions(schemas, &["FleetAction", "SpoolmgrAction"]);
    one_of_groups(schemas, "PrintInputDto", &input::FORMS);
    one_of_groups(schemas, "PrinterInput", &printers::MANUFACTURER);
    one_of_groups(schemas, "LogImportData", &printfleet::FINGERPRINTS);
    outcome_dto::document_statuses(schemas);
    filters::document_where(document);
    document_roles(document);
    let q = &mut document["paths"]["/api/search"]["get"]["parameters"];
    if let Some(q) = q
        .as_array_mut()
        .and_then(|p| p.iter_mut().find(|p| p["name"] == "q"))
    {
        q["schema"]["pattern"] = json!(search::q_pattern());
    }
}

/// States each operation's role ([`roles::API_ROLES`]) as the scope of its `session` security
/// requirement (OpenAPI 3.1: an API key scheme's scopes are role names), and the 403
/// `FORBIDDEN` that an account below it gets.
fn document_roles(document: &mut Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, operation) in item.iter_mut() {
            let Some(role) = roles::API_ROLES.get(method, path) else {
                continue;
            };
            let Some(security) = operation.get_mut("security").and_then(Value::as_array_mut) else {
                continue;
            };
            let mut session = false;
            for requirement in security.iter_mut() {
                if requirement.get("session").is_some() {
                    requirement["session"] = json!([roles::name(role)]);
                    session = true;
                }
            }
            if !session || role == Role::Viewer {
                continue;
            }
            let forbidden = &mut operation["responses"]["403"];
            let told = forbidden["description"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if !told.contains("FORBIDDEN:") {
                let role_text = format!(
                    "FORBIDDEN: the account's role is below {}",
                    roles::name(role)
                );
                forbidden["description"] = json!(if told.is_empty() {
                    role_text
                } else {
                    format!("{told}; {role_text}")
                });
                forbidden["content"]["application/json"]["schema"] =
                    json!({"$ref": "#/components/schemas/ErrorBody"});
            }
        }
    }
}

/// Marks each variant of the action bodies `names` (`{action, data}`, as
/// `input::shape::action` parses them) `additionalProperties: false`: utoipa leaves an
/// adjacently tagged enum's variants open.
fn close_actions(schemas: &mut Value, names: &[&str]) {
    for name in names {
        if let Some(variants) = schemas[*name]["oneOf"].as_array_mut() {
            for variant in variants {
                variant["additionalProperties"] = json!(false);
            }
        }
    }
}

/// Points each `Patch_<Input>` (utoipa inlines a generic's argument) at the `<Input>` component,
/// so the input is documented once and finished once.
fn refer_patch_inputs(schemas: &mut Value) {
    let Some(names) = schemas
        .as_object()
        .map(|s| s.keys().cloned().collect::<Vec<_>>())
    else {
        return;
    };
    for name in names {
        let Some(input) = name.strip_prefix("Patch_") else {
            continue;
        };
        if schemas[input].is_object()
            && let Some(variants) = schemas[&name]["oneOf"].as_array_mut()
        {
            for variant in variants.iter_mut().filter(|v| v["$ref"].is_null()) {
                *variant = json!({"$ref": format!("#/components/schemas/{input}")});
            }
        }
    }
}

/// Replaces the object schema `name` of `schemas` by `oneOf` one object per group of `groups`:
/// the fields of no group, and the group's own (its needed fields required and not null), none
/// of the others'.
fn one_of_groups(schemas: &mut Value, name: &str, groups: &[Alternative]) {
    let derived = schemas[name].clone();
    if !derived.is_object() {
        return;
    }
    let grouped = |field: &str| groups.iter().any(|g| g.fields.contains(&field));
    let variant = |group: &Alternative| {
        let mut variant = derived.clone();
        variant.as_object_mut().map(|v| v.remove("description"));
        if let Some(properties) = variant["properties"].as_object_mut() {
            properties.retain(|field, _| !grouped(field) || group.fields.contains(&field.as_str()));
            for field in group.required {
                if let Some(property) = properties.get_mut(*field) {
                    not_null(property);
                }
            }
        }
        if !variant["required"].is_array() {
            variant["required"] = json!([]);
        }
        if let Some(required) = variant["required"].as_array_mut() {
            required.extend(group.required.iter().map(|f| json!(f)));
        }
        variant
    };
    schemas[name] = json!({
        "description": derived["description"],
        "oneOf": groups.iter().map(variant).collect::<Vec<Value>>(),
    });
}
/// `property` without its `null` alternative: `type: [T, "null"]` becomes `T`, and a `oneOf`
/// with a `{type: null}` keeps its other member.
fn not_null(property: &mut Value) {
    if let Some(types) = property["type"].as_array() {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        property["type"] = match kept.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(kept),
        };
    }
    let one_of = property["oneOf"].as_array().cloned();
    if let Some(options) = one_of {
        let kept: Vec<Value> = options
            .into_iter()
            .filter(|o| o["type"] != "null")
            .collect();
        if let [one] = kept.as_slice() {
            *property = one.clone();
        }
    }
}
