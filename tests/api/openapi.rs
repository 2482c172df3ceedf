//! The OpenAPI document and the offline API reference.

use crate::support;
use crate::support::TestApp;
use actors::integrations::settings;
use serde_json::{Value, json};

/// The document as served.
async fn document() -> Value {
    let app = TestApp::spawn().await;
    app.setup().await;
    app.get("/api/openapi.json").await.json().await.unwrap()
}

#[actix_web::test]
async fn the_document_is_for_signed_in_users_only() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let anonymous = app.browser().get(app.url("/api/openapi.json")).send();
    support::assert_error(anonymous.await.unwrap(), 401, "UNAUTHENTICATED").await;
    let signed_in = app.get("/api/openapi.json").await;
    assert_eq!(signed_in.status(), 200);
}

/// Every route the API has: (method, path).
fn routes() -> Vec<(String, String)> {
    let expected = [
        ("get", "/api/health"),
        ("get", "/api/auth/setup-status"),
        ("post", "/api/auth/setup"),
        ("post", "/api/auth/login"),
        ("get", "/api/auth/session"),
        ("post", "/api/auth/logout"),
        ("patch", "/api/auth/preferences"),
        ("patch", "/api/auth/password"),
        ("get", "/api/settings"),
        ("patch", "/api/settings"),
        ("get", "/api/settings/features"),
        ("get", "/api/settings/pricing"),
        ("patch", "/api/settings/pricing"),
        ("get", "/api/settings/company"),
        ("patch", "/api/settings/company"),
        ("get", "/api/settings/numbering"),
        ("patch", "/api/settings/numbering"),
        ("patch", "/api/settings/features"),
        ("get", "/api/settings/integrations"),
        ("patch", "/api/settings/integrations"),
        ("get", "/api/integrations/spoolmgr"),
        ("post", "/api/integrations/spoolmgr"),
        ("get", "/api/integrations/printfleet"),
        ("post", "/api/integrations/printfleet"),
        ("get", "/api/filaments/{id}/stock"),
        ("patch", "/api/filaments/{id}/stock"),
        ("post", "/api/prints/calculate"),
        ("post", "/api/prints/sliced"),
        ("get", "/api/prints"),
        ("post", "/api/prints"),
        ("get", "/api/prints/{id}"),
        ("patch", "/api/prints/{id}"),
        ("post", "/api/prints/{id}/complete"),
        ("post", "/api/prints/{id}/duplicate"),
        ("post", "/api/prints/{id}/repeat"),
        ("get", "/api/prints/export"),
        ("get", "/api/prints/{id}/report"),
        ("get", "/api/series"),
        ("post", "/api/series"),
        ("get", "/api/series/{id}"),
        ("patch", "/api/series/{id}"),
        ("post", "/api/series/{id}/state"),
        ("post", "/api/series/{id}/archive"),
        ("post", "/api/series/{id}/next-run"),
        ("get", "/api/series/{id}/history"),
        ("get", "/api/customers/{id}/history"),
        ("get", "/api/quotes"),
        ("post", "/api/quotes"),
        ("get", "/api/quotes/{id}"),
        ("patch", "/api/quotes/{id}"),
        ("delete", "/api/quotes/{id}"),
        ("post", "/api/quotes/{id}/send"),
        ("post", "/api/quotes/{id}/accept"),
        ("post", "/api/quotes/{id}/decline"),
        ("get", "/api/invoices"),
        ("post", "/api/invoices"),
        ("get", "/api/invoices/{id}"),
        ("delete", "/api/invoices/{id}"),
        ("post", "/api/invoices/{id}/issue"),
        ("post", "/api/invoices/{id}/credit-note"),
        ("post", "/api/invoices/{id}/payments"),
        ("post", "/api/invoices/{id}/archive"),
        ("get", "/api/invoices/{id}/xrechnung.xml"),
        ("get", "/api/invoices/{id}/pdf"),
        ("get", "/api/quotes/{id}/pdf"),
        ("get", "/api/search"),
        ("get", "/api/version-latest"),
        ("get", "/api/backup"),
        ("get", "/api/backups"),
        ("post", "/api/backups"),
        ("put", "/api/backups/schedule"),
        ("get", "/api/backups/{name}"),
        ("get", "/api/accounts"),
        ("post", "/api/accounts"),
        ("patch", "/api/accounts/{id}"),
        ("get", "/api/accounts/{id}/sessions"),
        ("delete", "/api/accounts/{id}/sessions/{session}"),
        ("get", "/api/journal"),
        ("get", "/api/journal/export"),
        ("get", "/api/journal/verify"),
        ("get", "/api/settings/metrics"),
        ("put", "/api/settings/metrics"),
        ("get", "/metrics"),
        ("get", "/api/maintenance"),
        ("post", "/api/maintenance"),
        ("get", "/api/maintenance/{id}"),
        ("patch", "/api/maintenance/{id}"),
        ("post", "/api/maintenance/{id}/done"),
        ("get", "/api/printers/{id}/wear"),
        ("get", "/api/printers/{id}/meter"),
        ("put", "/api/printers/{id}/meter"),
        ("delete", "/api/printers/{id}/meter"),
        ("get", "/api/printers/{id}/meter/readings"),
        ("get", "/api/printers/{id}/power"),
        ("post", "/api/printers/{id}/power/adopt"),
        ("get", "/api/components/{id}/wear"),
        ("post", "/api/components/{id}/replace"),
        ("get", "/api/alerts"),
        ("get", "/api/settings/alerts"),
        ("put", "/api/settings/alerts"),
        ("post", "/api/settings/alerts/webhooks"),
        ("put", "/api/settings/alerts/webhooks/{id}"),
        ("delete", "/api/settings/alerts/webhooks/{id}"),
        ("post", "/api/settings/alerts/webhooks/{id}/test"),
        ("post", "/api/settings/alerts/mqtt/test"),
        ("post", "/api/prints/{id}/status"),
        ("get", "/api/spools"),
        ("post", "/api/spools"),
        ("get", "/api/spools/{id}"),
        ("patch", "/api/spools/{id}"),
        ("post", "/api/spools/{id}/archive"),
        ("post", "/api/spools/{id}/movements"),
        ("get", "/api/spools/{id}/qr"),
        ("post", "/api/prints/{id}/outcome"),
        ("post", "/api/prints/{id}/outcome/correct"),
        ("post", "/api/prints/{id}/retry"),
        ("get", "/api/dashboard"),
    ];
    let mut routes: Vec<(String, String)> = expected
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    for resource in [
        "customers",
        "manufacturers",
        "printers",
        "components",
        "filaments",
        "materials",
        "labour-rates",
        "charges",
        "post-processing-steps",
    ] {
        routes.push(("get".into(), format!("/api/{resource}")));
        routes.push(("post".into(), format!("/api/{resource}")));
        for method in ["get", "patch", "delete"] {
            routes.push((method.into(), format!("/api/{resource}/{{id}}")));
        }
    }
    routes
}

#[actix_web::test]
async fn every_route_is_documented_with_its_schemas() {
    let doc = document().await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    for (method, path) in &routes() {
        let operation = &doc["paths"][path][method];
        assert!(operation.is_object(), "{method} {path} missing");
        assert!(
            operation["tags"][0].is_string(),
            "{method} {path} has no tag"
        );
        let responses = operation["responses"].as_object().unwrap();
        assert!(
            responses.keys().any(|s| s.starts_with('2')),
            "{method} {path} has no success response"
        );
        let bodiless = [
            "/logout",
            "/complete",
            "/duplicate",
            "/repeat",
            "/retry",
            "/backups",
            "/test",
            "/send",
            "/accept",
            "/decline",
            "/issue",
        ];
        if ["post", "patch"].contains(&method.as_str())
            && !bodiless.iter().any(|b| path.ends_with(b))
        {
            let content = &operation["requestBody"]["content"];
            let schema = match path.as_str() {
                "/api/prints/sliced" => &content["multipart/form-data"]["schema"],
                _ => &content["application/json"]["schema"],
            };
            assert!(schema.is_object(), "{method} {path} has no request schema");
        }
    }
}

#[actix_web::test]
async fn the_document_has_no_other_routes_and_describes_the_session() {
    let doc = document().await;
    let documented: usize = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p.as_object().unwrap().len())
        .sum();
    assert_eq!(documented, routes().len(), "no undocumented or stub routes");
    let scheme = &doc["components"]["securitySchemes"]["session"];
    assert_eq!(scheme["type"], "apiKey");
    assert_eq!(scheme["in"], "cookie");
    assert_eq!(scheme["name"], "print-cost-session");
    let error = &doc["components"]["schemas"]["ErrorBody"];
    assert!(error["properties"]["data"].is_object());
}

#[actix_web::test]
async fn the_reference_is_served_from_this_instance() {
    let app = TestApp::spawn().await;
    let redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = redirect
        .get(app.url("/api-reference"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 308);
    let page = app.get("/api-reference/").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "nothing loaded from elsewhere"
    );
    let scripts: Vec<&str> = html.split("<script").skip(1).collect();
    assert!(!scripts.is_empty());
    for script in scripts {
        assert!(
            script.trim_start().starts_with("src=\"./"),
            "inline or foreign script: {script}"
        );
    }
    let init = app
        .get("/api-reference/swagger-initializer.js")
        .await
        .text()
        .await
        .unwrap();
    assert!(init.contains("/api/openapi.json"));
    assert!(init.contains("\"validatorUrl\": \"none\""));
    let bundle = app.get("/api-reference/swagger-ui-bundle.js").await;
    assert_eq!(bundle.status(), 200);
}

/// A route that reads a query, or a body, can answer 422 for a bad one: the document says so.
#[actix_web::test]
async fn every_route_with_a_query_or_a_body_documents_its_422() {
    let doc = document().await;
    let mut missing = Vec::new();
    for (method, path) in &routes() {
        let operation = &doc["paths"][path][method];
        let has_query = operation["parameters"]
            .as_array()
            .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));
        let has_body = operation["requestBody"].is_object();
        if (has_query || has_body) && operation["responses"]["422"].is_null() {
            missing.push(format!("{method} {path}"));
        }
    }
    assert_eq!(missing, Vec::<String>::new());
    let period = &doc["paths"]["/api/dashboard"]["get"]["parameters"][0]["schema"];
    assert_eq!(period["pattern"], "^(30d|90d|all)$", "{period}");
}

/// Every id a request takes is a UUID to generated clients: its schema says `format: uuid`.
#[actix_web::test]
async fn input_ids_are_uuids() {
    let doc = document().await;
    let line = &doc["components"]["schemas"]["FilamentLine"]["properties"];
    assert_eq!(line["filamentId"]["format"], "uuid", "{line}");
    let text = doc.to_string();
    assert!(
        text.matches(r#""format":"uuid""#).count() >= 46,
        "every WireId field and id query parameter is marked"
    );
    let params = doc["paths"]["/api/prints"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let customer = params.iter().find(|p| p["name"] == "customerId").unwrap();
    assert_eq!(customer["schema"]["format"], "uuid", "{customer}");
    let status = params.iter().find(|p| p["name"] == "status").unwrap();
    assert!(status["schema"]["pattern"].is_string(), "{status}");
}

#[actix_web::test]
async fn value_patterns_admit_only_what_the_parsers_take() {
    use actors::values::{
        Amount, Currency, Email, Grams, HexColor, Locale, Name, PositiveAmount, PositiveGrams,
        PurchaseDate,
    };
    use std::str::FromStr;
    let doc = document().await;
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["SpoolInputDto"]["oneOf"][0]["properties"]["purchasePrice"]["$ref"],
        "#/components/schemas/Amount",
        "decimal fields refer to their value's schema"
    );
    let samples = [
        "0",
        "1",
        "12.5",
        "-12.5",
        "-0",
        "0.000001",
        "0.0000001",
        "1e3",
        "+1",
        "1.",
        ".5",
        " 1",
        "999999999999",
        "1000000000000",
        "0000000000001.5",
        "123456789012345",
        "1234567890123456",
        "x",
        "",
        " ",
        "Ada",
        "#a1B2c3",
        "#12345",
        "EUR",
        "eu",
        "en-US",
        "de-DE",
        "fr-FR",
        "a@b",
        "a@b@c",
        "a b@c",
        "2026-02-28",
        "2026-13-01",
        "   ",
    ];
    type Parser = fn(&str) -> bool;
    let parsers: [(&str, Parser); 10] = [
        ("Amount", |t| Amount::from_str(t).is_ok()),
        ("Grams", |t| Grams::from_str(t).is_ok()),
        ("PositiveGrams", |t| PositiveGrams::from_str(t).is_ok()),
        ("PositiveAmount", |t| PositiveAmount::from_str(t).is_ok()),
        ("Name", |t| Name::from_str(t).is_ok()),
        ("Email", |t| Email::from_str(t).is_ok()),
        ("PurchaseDate", |t| PurchaseDate::from_str(t).is_ok()),
        ("Locale", |t| Locale::from_str(t).is_ok()),
        ("Currency", |t| Currency::from_str(t).is_ok()),
        ("HexColor", |t| HexColor::from_str(t).is_ok()),
    ];
    for (name, parses) in parsers {
        let pattern = pattern_of(&schemas[name]);
        let admitted: Vec<&str> = samples
            .iter()
            .copied()
            .filter(|s| pattern.is_match(s))
            .collect();
        assert!(!admitted.is_empty(), "{name} admits something");
        for sample in admitted {
            assert!(
                parses(sample),
                "{name}'s pattern admits {sample:?}, its parser refuses it"
            );
        }
    }
    let params = doc["paths"]["/api/search"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let q = params.iter().find(|p| p["name"] == "q").unwrap();
    assert_admits(
        &q["schema"],
        &[
            ("ab", true),
            (" a b ", true),
            ("\u{85}\u{85}0", false),
            ("a", false),
        ],
    );
    let url = pattern_of(&schemas["PeerUrl"]);
    for text in [
        "http://spoolman.lan:7912",
        "https://10.0.0.5/api/",
        "http://a.123",
        "http://999.1.1.1",
        "http://u:p@host",
        "http://host?x=1",
        "ftp://host",
        "http://host:65536",
    ] {
        if url.is_match(text) {
            assert!(
                settings::PeerUrl::parse(text).is_ok(),
                "PeerUrl's pattern admits {text:?}, its parser refuses it"
            );
        }
    }
    assert!(url.is_match("http://spoolman.lan:7912"));
    assert_admits(&schemas["PositiveGrams"], &[("0.5", true)]);
}

/// The pattern of `schema`, compiled. Panics when it has none.
fn pattern_of(schema: &Value) -> regex::Regex {
    let pattern = schema["pattern"]
        .as_str()
        .unwrap_or_else(|| panic!("a pattern in {schema}"));
    regex::Regex::new(pattern).unwrap()
}

/// Asserts which of `cases` the pattern of `schema` admits.
fn assert_admits(schema: &Value, cases: &[(&str, bool)]) {
    let pattern = pattern_of(schema);
    for (text, admitted) in cases {
        assert_eq!(pattern.is_match(text), *admitted, "{pattern} on {text:?}");
    }
}

#[actix_web::test]
async fn each_schema_name_is_one_type() {
    let doc = document().await;
    let fleet = &doc["components"]["schemas"]["LogImportData"]["oneOf"][0]["properties"];
    let spools = &doc["components"]["schemas"]["SpoolImportData"]["properties"];
    assert!(fleet["printId"].is_object(), "{fleet}");
    assert!(spools["remoteId"].is_object(), "{spools}");
    assert!(
        doc["components"]["schemas"]["ImportData"].is_null(),
        "no name is shared by two types, so neither is lost"
    );
}

#[actix_web::test]
async fn a_movement_is_one_object_per_kind() {
    let doc = document().await;
    let kinds = doc["components"]["schemas"]["MovementInputDto"]["oneOf"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(kinds.len(), 6, "two kinds in three units");
    let kind = |name: &str, field: &str| {
        kinds
            .iter()
            .find(|k| {
                k["properties"]["kind"]["enum"] == json!([name])
                    && k["properties"][field].is_object()
            })
            .unwrap_or_else(|| panic!("{name} in {field} in {kinds:?}"))
            .clone()
    };
    let receipt = kind("RECEIPT", "grams");
    assert_admits(
        &receipt["properties"]["grams"],
        &[
            ("12.5", true),
            ("0.000001", true),
            ("0", false),
            ("-1", false),
        ],
    );
    assert_eq!(receipt["additionalProperties"], false);
    assert_eq!(receipt["required"], json!(["kind", "grams"]));
    let correction = kind("CORRECTION", "millilitres");
    assert_admits(
        &correction["properties"]["millilitres"],
        &[
            ("-12.5", true),
            ("3", true),
            ("0", false),
            ("-0.000", false),
        ],
    );
    let pieces = kind("CORRECTION", "pieces");
    assert_admits(
        &pieces["properties"]["pieces"],
        &[
            ("-3", true),
            ("2.000", true),
            ("1.5", false),
            ("0", false),
            ("-0.0", false),
        ],
    );
}

/// A material's input is one object per kind (and a consumable's per unit): a filament and a
/// resin are coloured, only a resin has a density, a consumable names its unit, and pieces
/// are whole.
#[actix_web::test]
async fn a_material_is_one_object_per_kind_and_unit() {
    let doc = document().await;
    let variants = doc["components"]["schemas"]["MaterialInput"]["oneOf"]
        .as_array()
        .unwrap()
        .clone();
    let variant = |kind: &str, unit: &str| {
        variants
            .iter()
            .find(|v| {
                let properties = &v["properties"];
                properties["kind"]["enum"] == json!([kind])
                    && properties["unit"].to_string().contains(unit)
            })
            .unwrap_or_else(|| panic!("{kind} {unit} in {variants:?}"))
            .clone()
    };
    let required = |v: &Value| v["required"].as_array().unwrap().clone();
    let filament = variant("FILAMENT", "GRAM");
    assert!(required(&filament).contains(&json!("colorHex")));
    assert!(filament["properties"]["densityGramsPerMillilitre"].is_null());
    let resin = variant("RESIN", "MILLILITRE");
    assert!(resin["properties"]["densityGramsPerMillilitre"].is_object());
    let pieces = variant("CONSUMABLE", "PIECE");
    assert!(required(&pieces).contains(&json!("unit")));
    assert!(!required(&pieces).contains(&json!("colorHex")));
    assert_admits(
        &pieces["properties"]["netQuantity"],
        &[("100", true), ("100.0", true), ("2.5", false), ("0", false)],
    );
    let liquid = variant("CONSUMABLE", "MILLILITRE");
    assert_admits(
        &liquid["properties"]["netQuantity"],
        &[("2.5", true), ("0", false)],
    );
}

#[actix_web::test]
async fn bodies_that_take_one_of_two_forms_document_both() {
    let doc = document().await;
    let schemas = &doc["components"]["schemas"];
    let forms = schemas["PrintInputDto"]["oneOf"].as_array().unwrap();
    assert_eq!(forms.len(), 2);
    let parts = &forms[0];
    assert!(parts["properties"]["parts"].is_object() && parts["properties"]["printerId"].is_null());
    assert_eq!(parts["properties"]["parts"]["type"], "array", "not null");
    assert!(
        parts["required"]
            .as_array()
            .unwrap()
            .contains(&json!("parts"))
    );
    let flat = &forms[1];
    assert!(flat["properties"]["parts"].is_null());
    for field in ["printerId", "buildPlateId", "hotends", "filaments"] {
        assert!(
            flat["required"].as_array().unwrap().contains(&json!(field)),
            "{field}"
        );
    }
    assert_eq!(
        schemas["Patch_PrinterInput"]["oneOf"][1]["$ref"], "#/components/schemas/PrinterInput",
        "a PATCH body refers to its input, documented once"
    );
    let statuses = schemas["OutcomeInputDto"]["oneOf"].as_array().unwrap();
    assert_eq!(
        statuses[1]["properties"]["status"]["enum"],
        json!(["FAILED"])
    );
    assert!(
        statuses[1]["required"]
            .as_array()
            .unwrap()
            .contains(&json!("failureReason"))
    );
    let params = doc["paths"]["/api/prints"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let group = params.iter().find(|p| p["name"] == "where").unwrap();
    assert!(group["schema"].is_null(), "{group}");
    assert_eq!(
        group["content"]["application/json"]["schema"]["oneOf"][1]["properties"]["AND"]["maxItems"],
        20
    );
    let every_parameter_list = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .all(|operation| operation.get("parameters").is_none_or(Value::is_array));
    assert!(every_parameter_list, "no operation has `parameters: null`");
}

#[actix_web::test]
async fn the_where_date_admits_every_valid_date() {
    let doc = document().await;
    let list = &doc["paths"]["/api/prints"]["get"]["parameters"];
    let param = list
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "where")
        .unwrap();
    let text = param["content"]["application/json"]["schema"].to_string();
    let pattern = regex::Regex::new(
        text.split("\"pattern\":\"")
            .find(|p| p.starts_with("^([0-9]{4}"))
            .and_then(|p| p.split('"').next())
            .unwrap(),
    )
    .unwrap();
    for date in [
        "2024-02-29",
        "2000-02-29",
        "2026-01-31",
        "2026-12-30",
        "2026-11-01",
        "2026-04-30",
        "0000-02-29",
    ] {
        assert!(pattern.is_match(date), "{date}");
    }
    for wrong in [
        "2026-13-01",
        "2026-00-10",
        "2026-01-32",
        "2026-1-01",
        "3500-06-31",
        "2026-02-29",
        "1900-02-29",
        "2026-02-30",
    ] {
        assert!(!pattern.is_match(wrong), "{wrong}");
    }
    // Every day of a leap and a common year that exists is admitted, and parsed.
    let mut day = jiff::civil::date(2023, 1, 1);
    while day.year() < 2025 {
        assert!(pattern.is_match(&day.to_string()), "{day}");
        day = day.tomorrow().unwrap();
    }
    assert!(text.contains("\"format\":\"date\""), "{text}");
    let app = TestApp::spawn().await;
    app.setup().await;
    let filter = r#"{"dateTo":{"lte":"2024-02-29"}}"#;
    let url = format!("/api/prints?where={}", support::urlencode(filter));
    assert_eq!(app.get(&url).await.status(), 200);
}

#[actix_web::test]
async fn head_answers_every_get_route_as_get_does_without_a_body() {
    let doc = document().await;
    let app = TestApp::spawn().await;
    app.setup().await;
    let ghost = "01a1fca8-547d-7442-9d4e-aa020ca898c4";
    let mut paths: Vec<String> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| item["get"].is_object())
        .map(|(path, _)| {
            regex::Regex::new(r"\{[^}]+\}")
                .unwrap()
                .replace_all(path, ghost)
                .into_owned()
        })
        .collect();
    paths.extend([
        "/".into(),
        "/static/app.css".into(),
        "/api-reference/".into(),
    ]);
    for path in paths {
        let get = app.get(&path).await;
        let head = app.client.head(app.url(&path)).send().await.unwrap();
        assert_eq!(head.status(), get.status(), "HEAD {path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "HEAD {path}"
        );
        assert!(
            head.bytes().await.unwrap().is_empty(),
            "HEAD {path} has a body"
        );
    }
}

/// Every `otherComponentIds` in `value` (recursively): its schema.
fn other_component_lists<'a>(value: &'a Value, found: &mut Vec<&'a Value>) {
    match value {
        Value::Object(fields) => {
            for (name, child) in fields {
                if name == "otherComponentIds" {
                    found.push(child);
                }
                other_component_lists(child, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|i| other_component_lists(i, found)),
        _ => {}
    }
}

#[actix_web::test]
async fn a_component_listed_twice_is_refused_by_the_schema_too() {
    let doc = document().await;
    let mut found = Vec::new();
    other_component_lists(&doc["components"]["schemas"], &mut found);
    assert!(found.len() >= 2, "{found:?}");
    for schema in found {
        assert!(
            schema.to_string().contains("\"uniqueItems\":true"),
            "{schema}"
        );
    }
}

/// A run's times and kWh carry their parsers' patterns, so a generated client (or a fuzzer)
/// sends only what the server takes.
#[actix_web::test]
async fn run_times_and_kwh_carry_their_patterns() {
    let doc = document().await;
    let schemas = &doc["components"]["schemas"];
    let run = &schemas["RunIn"]["properties"];
    let pattern = |name: &str| {
        let reference = run[name]["oneOf"][0]["$ref"].as_str().unwrap_or_default();
        let component = reference.trim_start_matches("#/components/schemas/");
        let pattern = schemas[component]["pattern"].as_str().unwrap_or_default();
        assert!(!pattern.is_empty(), "{name}: {}", run[name]);
        pattern.to_string()
    };
    assert!(pattern("startedAt").ends_with("(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"));
    assert_eq!(pattern("endedAt"), pattern("startedAt"));
    assert!(pattern("kwh").starts_with('^'));
}
