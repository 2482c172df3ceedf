//! Resin printers, resin parts and consumables over HTTP (issue 51): an MSLA printer's part has
//! a vat in its hotends' place and uses resin in millilitres; any part may use consumables;
//! outcomes record millilitres and pieces and book them from their bottles and packs.

use crate::materials::{gloves, opening};
use crate::sliced::post_file;
use crate::support::{Shop, TestApp, assert_field_error, draft, page, shop, signed_in, submit};
use serde_json::{Value, json};

/// The resin twin of the reference inventory (docs/costing.md, "The resin reference
/// example").
struct ResinShop {
    /// The reference example's shop: its FDM printer, hotend, build plate and filament.
    fdm: Shop,
    printer: String,
    vat: String,
    resin: String,
    gloves: String,
    alcohol: String,
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

async fn resin_shop(app: &TestApp) -> ResinShop {
    let fdm = shop(app).await;
    let maker = app.manufacturer("Anycubic").await;
    let printer = app
        .create("/api/printers", &json!({"name": "Resin printer", "manufacturerId": maker, "purchasePrice": "600", "expectedLifetimeHours": "3000", "averagePowerWatts": 60, "technology": "MSLA"}))
        .await;
    assert_eq!(printer["technology"], "MSLA");
    let vat = app
        .create("/api/components", &json!({"type": "VAT", "name": "Vat with FEP", "purchasePrice": "30", "expectedLifetimeHours": "500"}))
        .await;
    assert_eq!(vat["type"], "VAT");
    let bottle = app
        .create("/api/materials", &json!({"kind": "RESIN", "manufacturerId": maker, "material": "Standard", "colorName": "Grey", "colorHex": "#808080", "purchasePrice": "34.99", "netQuantity": "1000", "densityGramsPerMillilitre": "1.1"}))
        .await;
    let alcohol = app
        .create("/api/materials", &json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": maker, "material": "Isopropyl alcohol", "purchasePrice": "9.50", "netQuantity": "1000"}))
        .await;
    ResinShop {
        printer: id(&printer),
        vat: id(&vat),
        resin: id(&bottle),
        gloves: id(&gloves(app, &maker).await),
        alcohol: id(&alcohol),
        fdm,
    }
}

/// The resin reference part: 5,400 s, 36.4 ml of resin, 2 gloves, 50 ml of alcohol.
fn resin_part(shop: &ResinShop, ml: &str) -> Value {
    json!({
        "printerId": shop.printer,
        "buildPlateId": shop.fdm.plate,
        "vat": {"componentId": shop.vat, "durationSeconds": 5400},
        "materials": [
            {"materialId": shop.resin, "quantity": ml},
            {"materialId": shop.gloves, "quantity": "2"},
            {"materialId": shop.alcohol, "quantity": "50"}
        ]
    })
}

/// The quantity left in the one spool (bottle, pack) of `material`.
async fn left(app: &TestApp, material: &str) -> String {
    let spool = opening(app, material).await;
    spool["remainingQuantity"].as_str().unwrap().to_string()
}

/// The outcome body of the resin reference print: `seconds`, `ml` of resin, the consumables as
/// planned.
fn resin_outcome(print: &Value, seconds: u32, ml: &str) -> Value {
    let usages = print["usages"].as_array().unwrap();
    let planned = [ml, "2", "50"];
    let materials: Vec<Value> = usages
        .iter()
        .zip(planned)
        .map(|(u, q)| json!({"usageId": u["id"], "quantity": q}))
        .collect();
    json!({"status": "SUCCESS", "durationSeconds": seconds, "materials": materials})
}

#[actix_web::test]
async fn the_resin_reference_example_prices_to_2_482436_and_books_millilitres_and_pieces() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let body = json!({"name": "Resin reference", "parts": [resin_part(&shop, "36.4")]});
    let res = app.post("/api/prints/calculate", &body).await;
    assert_eq!(res.status(), 200);
    let preview: Value = res.json().await.unwrap();
    assert_eq!(preview["totalCost"], "2.482436", "{preview}");
    let lines: Vec<(&str, &str)> = preview["costLines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["category"].as_str().unwrap(), l["cost"].as_str().unwrap()))
        .collect();
    assert_eq!(
        lines,
        [
            ("PRINTER", "0.3"),
            ("VAT", "0.09"),
            ("BUILD_PLATE", "0.075"),
            ("RESIN", "1.273636"),
            ("CONSUMABLE", "0.24"),
            ("CONSUMABLE", "0.475"),
            ("ELECTRICITY", "0.0288"),
        ]
    );

    let print = app.done(&body).await;
    let part = &print["parts"][0];
    assert_eq!(part["hotends"], json!([]));
    assert_eq!(part["vat"]["componentId"], shop.vat.as_str());
    assert_eq!(part["durationSeconds"], 5400);
    let usage = &print["usages"][0];
    assert_eq!(
        (
            &usage["materialKind"],
            &usage["quantity"],
            &usage["usedGrams"]
        ),
        (&json!("RESIN"), &json!("36.4"), &Value::Null)
    );
    assert_eq!(print["usages"][1]["materialKind"], "CONSUMABLE");

    // 10 % longer and 40 ml: the vat and the resin repriced at their frozen rates.
    let path = format!("/api/prints/{}/outcome", id(&print));
    let res = app.post(&path, &resin_outcome(&print, 5940, "40")).await;
    let recorded: Value = res.json().await.unwrap();
    assert_eq!(recorded["actualCost"], "2.65778", "{recorded}");
    assert_eq!(recorded["outcome"]["filaments"], json!([]));
    assert_eq!(recorded["outcome"]["materials"][0]["quantity"], "40");
    assert_eq!(left(&app, &shop.resin).await, "960");
    assert_eq!(left(&app, &shop.gloves).await, "98");
    assert_eq!(left(&app, &shop.alcohol).await, "950");

    // A correction books the difference only.
    let mut correction = resin_outcome(&print, 5940, "38");
    correction["correctionNote"] = json!("Weighed the vat");
    correction["expectedRevision"] = json!(1);
    correction["operationKey"] = json!("0196f0a0-0000-7000-8000-000000000051");
    let res = app
        .post(
            &format!("/api/prints/{}/outcome/correct", id(&print)),
            &correction,
        )
        .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    assert_eq!(left(&app, &shop.resin).await, "962");

    // A copy keeps the vat and every material line.
    let copy = app
        .create(&format!("/api/prints/{}/duplicate", id(&print)), &json!({}))
        .await;
    assert_eq!(copy["totalCost"], "2.482436");
    assert_eq!(copy["parts"][0]["vat"]["componentId"], shop.vat.as_str());
}

/// A vat whose FEP film is counted in prints: its line is a print's share (`PER_PRINT`) however
/// long the part ran, and its wear counts runs; the lifetime is given in one unit only.
#[actix_web::test]
async fn a_vat_counted_in_prints_costs_its_share_per_run_and_wears_by_runs() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let mut shop = resin_shop(&app).await;
    let film = json!({"type": "VAT", "name": "Vat, FEP by prints", "purchasePrice": "30", "expectedLifetimePrints": 200});
    let vat = app.create("/api/components", &film).await;
    assert_eq!(
        (
            &vat["expectedLifetimePrints"],
            &vat["expectedLifetimeHours"]
        ),
        (&json!(200), &Value::Null)
    );
    // One lifetime, in hours or in prints, of 1 to 1,000,000 prints.
    let mut both = film.clone();
    both["expectedLifetimeHours"] = json!("500");
    let res = app.post("/api/components", &both).await;
    assert_field_error(res, "expectedLifetimePrints", "errors.oneLifetime").await;
    let mut none = film.clone();
    none.as_object_mut()
        .unwrap()
        .remove("expectedLifetimePrints");
    let res = app.post("/api/components", &none).await;
    assert_field_error(res, "expectedLifetimeHours", "errors.required").await;
    for out in [0, 1_000_001] {
        let mut wrong = film.clone();
        wrong["expectedLifetimePrints"] = json!(out);
        let res = app.post("/api/components", &wrong).await;
        assert_field_error(res, "expectedLifetimePrints", "errors.outOfRange").await;
    }

    shop.vat = id(&vat);
    let body = json!({"name": "Resin by prints", "parts": [resin_part(&shop, "36.4")]});
    let print = app.done(&body).await;
    let film_line = &print["costLines"][1];
    assert_eq!(
        (
            &film_line["category"],
            &film_line["quantity"],
            &film_line["cost"]
        ),
        (&json!("PER_PRINT"), &json!("1"), &json!("0.15")),
        "{print}"
    );
    // The resin reference example with its vat by hours (0.09) replaced by a print's share.
    assert_eq!(print["totalCost"], "2.542436");
    let path = format!("/api/prints/{}/outcome", id(&print));
    let res = app
        .post(&path, &resin_outcome(&print, 10_800, "36.4"))
        .await;
    let recorded: Value = res.json().await.unwrap();
    // Twice the time: the printer, the plate and the electricity double (0.3 + 0.075 + 0.0288
    // more); the film's share stays (doubled, it would be 3.096236).
    assert_eq!(recorded["actualCost"], "2.946236", "{recorded}");

    let wear: Value = app
        .get(&format!("/api/components/{}/wear", shop.vat))
        .await
        .json()
        .await
        .unwrap();
    let figures = [
        "runs",
        "expectedLifetimePrints",
        "remainingPrints",
        "wearCostPerPrint",
        "realizedWearCost",
        "expectedLifetimeHours",
        "remainingHours",
        "wearCostPerHour",
        "actualHours",
    ]
    .map(|k| wear[k].clone());
    assert_eq!(
        figures,
        [
            json!(1),
            json!(200),
            json!(199),
            json!("0.15"),
            json!("0.15"),
            Value::Null,
            Value::Null,
            Value::Null,
            json!("3")
        ],
        "{wear}"
    );
    // A component's lifetime may change its unit: the frozen costs stay.
    let mut by_hours = film.clone();
    by_hours
        .as_object_mut()
        .unwrap()
        .remove("expectedLifetimePrints");
    by_hours["expectedLifetimeHours"] = json!("500");
    let res = app
        .patch(&format!("/api/components/{}", shop.vat), &by_hours)
        .await;
    assert_eq!(res.status(), 200);
    let changed: Value = res.json().await.unwrap();
    assert_eq!(changed["expectedLifetimePrints"], Value::Null);
    let again: Value = app
        .get(&format!("/api/prints/{}", id(&print)))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again["costLines"][1]["category"], "PER_PRINT");
    assert_eq!(again["totalCost"], "2.542436");
}

#[actix_web::test]
async fn a_part_takes_what_its_printer_prints_with() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let calculate = |part: Value| {
        let app = &app;
        async move {
            let body = json!({"name": "Faulty", "parts": [part]});
            app.post("/api/prints/calculate", &body).await
        }
    };
    let mut hotends = resin_part(&shop, "10");
    hotends["hotends"] = json!([{"componentId": shop.fdm.hotend, "durationSeconds": 60}]);
    let res = calculate(hotends).await;
    assert_field_error(res, "parts[0].hotends", "errors.notForPrinter").await;

    let mut no_vat = resin_part(&shop, "10");
    no_vat.as_object_mut().unwrap().remove("vat");
    let res = calculate(no_vat).await;
    assert_field_error(res, "parts[0].vat", "errors.required").await;

    let mut hotend_as_vat = resin_part(&shop, "10");
    hotend_as_vat["vat"]["componentId"] = json!(shop.fdm.hotend);
    let res = calculate(hotend_as_vat).await;
    assert_field_error(res, "parts[0].vat.componentId", "errors.wrongComponentType").await;

    let mut filament = resin_part(&shop, "10");
    filament["materials"][0]["materialId"] = json!(shop.fdm.filament);
    let res = calculate(filament).await;
    assert_field_error(
        res,
        "parts[0].materials[0].materialId",
        "errors.notForPrinter",
    )
    .await;

    let mut no_resin = resin_part(&shop, "10");
    no_resin["materials"] = json!([{"materialId": shop.gloves, "quantity": "2"}]);
    let res = calculate(no_resin).await;
    assert_field_error(res, "parts[0].materials", "errors.required").await;

    let mut half_a_glove = resin_part(&shop, "10");
    half_a_glove["materials"][1]["quantity"] = json!("1.5");
    let res = calculate(half_a_glove).await;
    assert_field_error(res, "parts[0].materials[1].quantity", "errors.wholeNumber").await;

    // On an FDM printer: no vat, and resin is not its printing material.
    let fdm = |extra: Value| {
        let mut part = json!({
            "printerId": shop.fdm.printer, "buildPlateId": shop.fdm.plate,
            "hotends": [{"componentId": shop.fdm.hotend, "durationSeconds": 5400}],
            "filaments": [{"filamentId": shop.fdm.filament, "usedGrams": "42.5"}]
        });
        for (k, v) in extra.as_object().unwrap() {
            part[k] = v.clone();
        }
        part
    };
    let res = calculate(fdm(
        json!({"vat": {"componentId": shop.vat, "durationSeconds": 1}}),
    ))
    .await;
    assert_field_error(res, "parts[0].vat", "errors.notForPrinter").await;
    let resin_line = json!([{"materialId": shop.resin, "quantity": "5"}]);
    let res = calculate(fdm(json!({"materials": resin_line}))).await;
    assert_field_error(
        res,
        "parts[0].materials[0].materialId",
        "errors.notForPrinter",
    )
    .await;
    let bottle_as_filament = json!([{"filamentId": shop.resin, "usedGrams": "5"}]);
    let res = calculate(fdm(json!({"filaments": bottle_as_filament}))).await;
    assert_field_error(
        res,
        "parts[0].filaments[0].filamentId",
        "errors.notFilament",
    )
    .await;

    // A printer keeps its technology.
    let path = format!("/api/printers/{}", shop.printer);
    let printer: Value = app.get(&path).await.json().await.unwrap();
    let body = json!({"name": "Resin printer", "manufacturerId": printer["manufacturerId"], "purchasePrice": "600", "expectedLifetimeHours": "3000", "averagePowerWatts": 60, "technology": "FDM"});
    let res = app.patch(&path, &body).await;
    assert_field_error(res, "technology", "errors.immutable").await;
    let mut kept = body.clone();
    kept.as_object_mut().unwrap().remove("technology");
    let res = app.patch(&path, &kept).await;
    let replaced: Value = res.json().await.unwrap();
    assert_eq!(replaced["technology"], "MSLA", "left out, kept");
}

#[actix_web::test]
async fn an_outcome_gives_millilitres_and_whole_pieces_in_materials() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let body = json!({"name": "Resin", "parts": [resin_part(&shop, "36.4")]});
    let print = app.done(&body).await;
    let path = format!("/api/prints/{}/outcome", id(&print));
    let usages = print["usages"].as_array().unwrap();

    let mut in_grams = resin_outcome(&print, 5400, "36.4");
    in_grams["filaments"] = json!([{"usageId": usages[0]["id"], "usedGrams": "40"}]);
    in_grams["materials"].as_array_mut().unwrap().remove(0);
    let res = app.post(&path, &in_grams).await;
    assert_field_error(res, "filaments[0].usedGrams", "errors.wrongUnit").await;

    let mut missing = resin_outcome(&print, 5400, "36.4");
    missing["materials"].as_array_mut().unwrap().remove(2);
    let res = app.post(&path, &missing).await;
    assert_field_error(res, "materials", "errors.missingUsage").await;

    let mut half = resin_outcome(&print, 5400, "36.4");
    half["materials"][1]["quantity"] = json!("2.5");
    let res = app.post(&path, &half).await;
    assert_field_error(res, "materials[1].quantity", "errors.wholeNumber").await;
    assert_eq!(left(&app, &shop.resin).await, "1000", "nothing booked");

    // A failure books what was used.
    let mut failed = resin_outcome(&print, 1200, "9");
    failed["status"] = json!("FAILED");
    failed["failureReason"] = json!("Peeled off the plate");
    let res = app.post(&path, &failed).await;
    assert_eq!(res.status(), 200);
    assert_eq!(left(&app, &shop.resin).await, "991");
}

#[actix_web::test]
async fn an_fdm_part_uses_consumables_beside_its_filament() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let mut body = draft(&shop.fdm, "Reference with gloves");
    body["parts"][0]["materials"] = json!([{"materialId": shop.gloves, "quantity": "2"}]);
    let print = app.create("/api/prints", &body).await;
    // The reference example, plus 2 gloves of a box of 100 for 12.
    assert_eq!(print["totalCost"], "2.022175");
    let categories: Vec<&str> = print["usages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["materialKind"].as_str().unwrap())
        .collect();
    assert_eq!(categories, ["FILAMENT", "CONSUMABLE"]);
    assert_eq!(print["usages"][0]["usedGrams"], "42.5");
}

/// The value of `key` in the `config.ini` of the SLA archive `bytes`, read here on its own.
fn config_value(bytes: &[u8], key: &str) -> String {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut config = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("config.ini").unwrap(), &mut config)
        .unwrap();
    config
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key} in {config}"))
        .to_string()
}

/// The real PrusaSlicer (Debian's, installed by `scripts/test`) slices three models for an SL1S
/// (a slab, a tower, a supported tower); each archive's preview suggests the resin printer, its
/// vat and the resin, and the draft made from it uses the archive's millilitres exactly and
/// its time to the second.
#[actix_web::test]
async fn drafts_from_real_sla_archives_take_their_millilitres_and_seconds() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let dir = tempfile::tempdir().unwrap();
    let models = format!(
        "{}/actors/tests/fixtures/models",
        env!("CARGO_MANIFEST_DIR")
    );
    for (model, layer, supports) in [
        ("slab-30x10x4", "0.05", "0"),
        ("tower-8x8x30", "0.1", "0"),
        ("tower-8x8x30", "0.05", "1"),
    ] {
        let config = dir.path().join("sla.ini");
        std::fs::write(
            &config,
            format!(
                "printer_technology = SLA\nprinter_model = SL1S\nlayer_height = {layer}\n\
                 supports_enable = {supports}\npad_enable = {supports}\n"
            ),
        )
        .unwrap();
        let out = dir.path().join(format!("{model}.sl1s"));
        let status = std::process::Command::new("prusa-slicer")
            .args(["--export-sla", "--load"])
            .arg(&config)
            .arg("--output")
            .arg(&out)
            .arg(format!("{models}/{model}.stl"))
            .output()
            .expect("prusa-slicer runs");
        assert!(status.status.success(), "{status:?}");
        let bytes = std::fs::read(&out).unwrap();
        let name = format!("{model}.sl1s");
        let res = post_file(
            &app.client,
            &app,
            "/api/prints/sliced",
            "file",
            &name,
            &bytes,
        )
        .await;
        assert_eq!(res.status(), 200);
        let preview: Value = res.json().await.unwrap();
        let part = &preview["parts"][0];
        assert_eq!(
            (&part["printerId"], &part["vatId"], &part["hotendId"]),
            (&json!(shop.printer), &json!(shop.vat), &Value::Null),
            "{preview}"
        );
        let resin = &part["resin"];
        assert_eq!(resin["materialId"], shop.resin.as_str());
        let written = config_value(&bytes, "usedMaterial");
        let ml: rust_decimal::Decimal = written.parse().unwrap();
        assert_eq!(resin["millilitres"], ml.normalize().to_string());
        // The editor shows the archive's resin above the draft it makes.
        let res = post_file(&app.client, &app, "/prints/sliced", "file", &name, &bytes).await;
        assert_eq!(res.status(), 200);
        let editor = res.text().await.unwrap();
        let shown = format!(
            r#"<span class="slot resin">Resin: {} ml</span>"#,
            ml.normalize()
        );
        assert!(editor.contains(&shown), "{shown} in {editor}");
        let body = json!({"name": model, "parts": [{
            "printerId": part["printerId"],
            "buildPlateId": part["buildPlateId"],
            "vat": {"componentId": part["vatId"], "durationSeconds": part["durationSeconds"]},
            "materials": [{"materialId": resin["materialId"], "quantity": resin["millilitres"], "spoolId": resin["spoolId"]}]
        }]});
        let draft = app.create("/api/prints", &body).await;
        let time: rust_decimal::Decimal = config_value(&bytes, "printTime").parse().unwrap();
        assert_eq!(
            draft["parts"][0]["durationSeconds"],
            time.round().to_string().parse::<u64>().unwrap(),
            "{model}"
        );
        assert_eq!(
            draft["usages"][0]["quantity"],
            ml.normalize().to_string(),
            "{model}"
        );
    }
}

/// In German: the editor of a resin draft shows its vat and material lines (the hotends hidden
/// and disabled, so they are never sent) and saves them as they are; its page writes the resin
/// in ml; the outcome form asks for the resin's and the consumables' quantities in
/// `materials[k]` and books them.
#[actix_web::test]
async fn a_resin_draft_is_edited_and_finished_on_its_pages_in_german() {
    let (app, client) = signed_in().await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert!(res.status().is_redirection());
    let shop = resin_shop(&app).await;
    let body = json!({"name": "Harzfigur", "parts": [resin_part(&shop, "36.4")]});
    let print = app.create("/api/prints", &body).await;
    let id = id(&print);

    let (status, editor) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert_eq!(status, 200);
    assert!(
        editor.contains(r#"<fieldset class="technology" data-technology="FDM" hidden disabled>"#),
        "{editor}"
    );
    assert!(editor.contains(r#"name="parts[0].vat.componentId""#));
    assert!(editor.contains(r#"name="parts[0].materials[2].quantity""#));
    assert!(editor.contains("Harz und Verbrauchsmaterial"));
    let minutes = "90";
    let form = [
        ("name", "Harzfigur"),
        ("quantity", "1"),
        ("parts[0].id", print["parts"][0]["id"].as_str().unwrap()),
        ("parts[0].printerId", shop.printer.as_str()),
        ("parts[0].buildPlateId", shop.fdm.plate.as_str()),
        ("parts[0].vat.componentId", shop.vat.as_str()),
        ("parts[0].vat.durationMinutes", minutes),
        ("parts[0].materials[0].materialId", shop.resin.as_str()),
        ("parts[0].materials[0].quantity", "40"),
        ("parts[0].materials[1].materialId", shop.gloves.as_str()),
        ("parts[0].materials[1].quantity", "2"),
    ];
    let res = submit(&client, &app, &format!("/prints/{id}/edit"), &form).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    let saved = app.json(&format!("/api/prints/{id}")).await;
    let quantities: Vec<&str> = saved["usages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["quantity"].as_str().unwrap())
        .collect();
    assert_eq!(
        quantities,
        ["40", "2"],
        "the alcohol line left out: {saved}"
    );
    assert_eq!(saved["parts"][0]["vat"]["durationSeconds"], 5400);

    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(detail.contains("40 ml"), "{detail}");
    let res = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let (_, done) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(done.contains(r#"name="materials[0].quantity""#), "{done}");
    assert!(done.contains("Menge (ml)"), "{done}");
    let usages = saved["usages"].as_array().unwrap();
    let outcome = [
        ("status", "SUCCESS"),
        ("durationMinutes", "95"),
        ("materials[0].usageId", usages[0]["id"].as_str().unwrap()),
        ("materials[0].quantity", "41,5"),
        ("materials[1].usageId", usages[1]["id"].as_str().unwrap()),
        ("materials[1].quantity", "3"),
    ];
    let res = submit(&client, &app, &format!("/prints/{id}/outcome"), &outcome).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    assert_eq!(left(&app, &shop.resin).await, "958.5");
    assert_eq!(left(&app, &shop.gloves).await, "97");
}

/// In German: a vat whose film is counted in prints is made on the components form (the hours
/// left empty), the list writes its lifetime in prints, and after a run its wear card counts
/// runs and gives the cost per print; both lifetimes at once are refused at the field.
#[actix_web::test]
async fn a_vat_counted_in_prints_is_made_and_worn_on_its_pages_in_german() {
    let (app, client) = signed_in().await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert!(res.status().is_redirection());
    let mut shop = resin_shop(&app).await;
    let mut form = vec![
        ("type", "VAT"),
        ("name", "Wanne FEP"),
        ("purchasePrice", "30"),
        ("expectedLifetimeHours", "500"),
        ("expectedLifetimePrints", "200"),
    ];
    let res = submit(&client, &app, "/components", &form).await;
    assert_eq!(res.status().as_u16(), 422);
    let refused = res.text().await.unwrap();
    assert!(refused.contains("nicht beides"), "{refused}");
    form[3] = ("expectedLifetimeHours", "");
    let res = submit(&client, &app, "/components", &form).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    let (status, list) = page(&client, &app, "/components").await;
    assert_eq!(status, 200);
    assert!(list.contains("200 Drucke"), "{list}");
    let found: Value = app
        .get("/api/components?search=Wanne%20FEP")
        .await
        .json()
        .await
        .unwrap();
    shop.vat = id(&found["items"][0]);
    assert_eq!(found["items"][0]["expectedLifetimePrints"], 200);

    let body = json!({"name": "Harz je Druck", "parts": [resin_part(&shop, "36.4")]});
    let print = app.done(&body).await;
    let path = format!("/api/prints/{}/outcome", id(&print));
    let res = app.post(&path, &resin_outcome(&print, 5400, "36.4")).await;
    assert_eq!(res.status(), 200);
    let (status, card) = page(&client, &app, &format!("/components/{}", shop.vat)).await;
    assert_eq!(status, 200);
    for shown in [
        "1 von 200 Drucke",
        "199 Drucke",
        "Verschleißkosten je Druck",
        r#"name="expectedLifetimePrints""#,
    ] {
        assert!(card.contains(shown), "{shown} in {card}");
    }
    let (_, detail) = page(&client, &app, &format!("/prints/{}", id(&print))).await;
    assert!(detail.contains("Verschleiß je Druck"), "{detail}");
}

/// A material line whose cost leaves the amounts a print may store is refused at its quantity,
/// in a draft (`parts[i].materials[k].quantity`) and in an outcome (`materials[i].quantity`),
/// and nothing is booked.
#[actix_web::test]
async fn a_material_lines_cost_beyond_the_bound_is_refused_at_its_quantity() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let maker = app.manufacturer("Dear Supplies").await;
    let precious = app
        .create("/api/materials", &json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": maker, "material": "Rare solvent", "purchasePrice": "100000000000000", "netQuantity": "0.000001"}))
        .await;
    opening(&app, &id(&precious)).await;
    let mut part = resin_part(&shop, "36.4");
    part["materials"][1] = json!({"materialId": id(&precious), "quantity": "1"});
    let body = json!({"name": "Beyond", "parts": [part.clone()]});
    let res = app.post("/api/prints", &body).await;
    assert_field_error(res, "parts[0].materials[1].quantity", "errors.outOfRange").await;

    // Planned at a millionth of a millilitre (100,000,000,000,000 in all), used at one.
    part["materials"][1]["quantity"] = json!("0.000001");
    let print = app.done(&json!({"name": "Within", "parts": [part]})).await;
    let usages = print["usages"].as_array().unwrap();
    let materials: Vec<Value> = usages
        .iter()
        .zip(["36.4", "1", "50"])
        .map(|(u, q)| json!({"usageId": u["id"], "quantity": q}))
        .collect();
    let path = format!("/api/prints/{}/outcome", id(&print));
    let outcome = json!({"status": "SUCCESS", "durationSeconds": 5400, "materials": materials});
    let res = app.post(&path, &outcome).await;
    assert_field_error(res, "materials[1].quantity", "errors.outOfRange").await;
    assert_eq!(left(&app, &shop.resin).await, "1000", "nothing booked");
}

/// A print's own consumables: a pair of gloves per piece and 50 ml of alcohol per job, priced
/// from their packs after the parts, scaled by the quantity, booked by the outcome and its
/// correction, kept by copies; refused at their fields when they are not consumables, not whole
/// pieces or missing from an outcome.
#[actix_web::test]
async fn a_print_uses_consumables_per_piece_and_per_job() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = resin_shop(&app).await;
    let mut body = draft(&shop.fdm, "Boxed stands");
    body["quantity"] = json!(3);
    body["materials"] = json!([
        {"materialId": shop.gloves, "amount": "1", "per": "PIECE"},
        {"materialId": shop.alcohol, "amount": "50", "per": "JOB"}
    ]);
    let print = app.done(&body).await;
    // The reference example (1.782175), 3 gloves at 0.12 and 50 ml at 0.0095.
    assert_eq!(print["totalCost"], "2.617175", "{print}");
    let own = print["materials"].as_array().unwrap();
    let figures: Vec<(&str, &str, &str, &str)> = own
        .iter()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap();
            (
                field("per"),
                field("amount"),
                field("quantity"),
                field("cost"),
            )
        })
        .collect();
    assert_eq!(
        figures,
        [("PIECE", "1", "3", "0.36"), ("JOB", "50", "50", "0.475")]
    );
    let lines = print["costLines"].as_array().unwrap();
    let last = &lines[lines.len() - 1];
    assert_eq!(
        (&last["category"], &last["partId"], &last["cost"]),
        (&json!("CONSUMABLE"), &Value::Null, &json!("0.475"))
    );

    // The outcome names every usage: the part's filament and the print's own.
    let path = format!("/api/prints/{}/outcome", id(&print));
    let filament = json!([{"usageId": print["usages"][0]["id"], "usedGrams": "42.5"}]);
    let only_parts = json!({"status": "SUCCESS", "durationSeconds": 5400, "filaments": filament});
    let res = app.post(&path, &only_parts).await;
    assert_field_error(res, "materials", "errors.missingUsage").await;
    let given = |gloves: &str, ml: &str| {
        json!([
            {"usageId": own[0]["usageId"], "quantity": gloves},
            {"usageId": own[1]["usageId"], "quantity": ml}
        ])
    };
    let mut outcome = only_parts.clone();
    outcome["materials"] = given("4", "60");
    let res = app.post(&path, &outcome).await;
    let recorded: Value = res.json().await.unwrap();
    // One pair more and 10 ml more: 0.12 + 0.095 above the plan.
    assert_eq!(recorded["actualCost"], "2.832175", "{recorded}");
    assert_eq!(left(&app, &shop.gloves).await, "96");
    assert_eq!(left(&app, &shop.alcohol).await, "940");
    let mut correction = outcome.clone();
    correction["materials"] = given("3", "60");
    correction["correctionNote"] = json!("Counted the gloves");
    correction["expectedRevision"] = json!(1);
    correction["operationKey"] = json!("0196f0a0-0000-7000-8000-000000000052");
    let res = app.post(&format!("{path}/correct"), &correction).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    assert_eq!(left(&app, &shop.gloves).await, "97");
    // The dashboard's filament is the filament's grams alone, not the gloves and millilitres.
    let dashboard = app.json("/api/dashboard?period=all").await;
    assert_eq!(dashboard["kpis"]["filamentGrams"], "42.5", "{dashboard}");

    // A copy keeps them; a draft of another quantity scales the per-piece line.
    let copy = app
        .create(&format!("/api/prints/{}/duplicate", id(&print)), &json!({}))
        .await;
    assert_eq!(copy["materials"][0]["quantity"], "3");
    let mut more = body.clone();
    more["quantity"] = json!(5);
    let res = app
        .patch(&format!("/api/prints/{}", id(&copy)), &more)
        .await;
    let changed: Value = res.json().await.unwrap();
    assert_eq!(changed["materials"][0]["quantity"], "5", "{changed}");

    for (line, field, key) in [
        (
            json!({"materialId": shop.resin, "amount": "1", "per": "JOB"}),
            "materialId",
            "errors.notConsumable",
        ),
        (
            json!({"materialId": shop.gloves, "amount": "1.5", "per": "PIECE"}),
            "amount",
            "errors.wholeNumber",
        ),
        (
            json!({"materialId": shop.fdm.filament, "amount": "1", "per": "JOB"}),
            "materialId",
            "errors.notConsumable",
        ),
    ] {
        let mut wrong = body.clone();
        wrong["materials"] = json!([line]);
        let res = app.post("/api/prints", &wrong).await;
        assert_field_error(res, &format!("materials[0].{field}"), key).await;
    }
    // Beyond what a usage holds (a trillion gloves), beyond the money a line may hold, more
    // than 100 lines, and a pack of another material.
    let mut many = body.clone();
    many["quantity"] = json!(10);
    many["materials"] =
        json!([{"materialId": shop.gloves, "amount": "999999999999", "per": "PIECE"}]);
    let res = app.post("/api/prints", &many).await;
    assert_field_error(res, "materials[0].amount", "errors.outOfRange").await;
    let maker = app.manufacturer("Dear Supplies").await;
    let precious = app
        .create("/api/materials", &json!({"kind": "CONSUMABLE", "unit": "MILLILITRE", "manufacturerId": maker, "material": "Rare solvent", "purchasePrice": "100000000000000", "netQuantity": "0.000001"}))
        .await;
    let mut dear = body.clone();
    dear["materials"] = json!([{"materialId": id(&precious), "amount": "1", "per": "JOB"}]);
    let res = app.post("/api/prints", &dear).await;
    assert_field_error(res, "materials[0].amount", "errors.outOfRange").await;
    let mut lines = body.clone();
    lines["materials"] = json!(vec![json!({"materialId": shop.gloves, "amount": "1"}); 101]);
    let res = app.post("/api/prints", &lines).await;
    assert_field_error(res, "materials", "errors.tooMany").await;
    let bottle = opening(&app, &shop.alcohol).await;
    let mut other = body.clone();
    other["materials"] =
        json!([{"materialId": shop.gloves, "amount": "1", "spoolId": bottle["id"]}]);
    let res = app.post("/api/prints", &other).await;
    assert_field_error(res, "materials[0].spoolId", "errors.wrongFilament").await;
}

/// In German: the editor gives a print consumables of its own (the per-piece line scales with
/// the quantity), the print page lists them as the whole print's, and the outcome form asks
/// for their quantities beside the part's filament and books them.
#[actix_web::test]
async fn a_prints_own_consumables_are_edited_and_booked_on_its_pages_in_german() {
    let (app, client) = signed_in().await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert!(res.status().is_redirection());
    let shop = resin_shop(&app).await;
    let print = app
        .create("/api/prints", &draft(&shop.fdm, "Verpackt"))
        .await;
    let id = id(&print);
    let (status, editor) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert_eq!(status, 200);
    assert!(
        editor.contains("Verbrauchsmaterial des ganzen Drucks"),
        "{editor}"
    );
    assert!(editor.contains(r#"name="materials[0].amount""#), "{editor}");
    let part = &print["parts"][0];
    let form = [
        ("name", "Verpackt"),
        ("quantity", "4"),
        ("parts[0].id", part["id"].as_str().unwrap()),
        ("parts[0].printerId", shop.fdm.printer.as_str()),
        ("parts[0].buildPlateId", shop.fdm.plate.as_str()),
        ("parts[0].hotends[0].componentId", shop.fdm.hotend.as_str()),
        ("parts[0].hotends[0].durationMinutes", "90"),
        (
            "parts[0].filaments[0].filamentId",
            shop.fdm.filament.as_str(),
        ),
        ("parts[0].filaments[0].usedGrams", "42,5"),
        ("materials[0].materialId", shop.gloves.as_str()),
        ("materials[0].amount", "2"),
        ("materials[0].per", "PIECE"),
        ("materials[1].materialId", shop.alcohol.as_str()),
        ("materials[1].amount", "12,5"),
    ];
    let res = submit(&client, &app, &format!("/prints/{id}/edit"), &form).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    let saved = app.json(&format!("/api/prints/{id}")).await;
    let own: Vec<(&str, &str, &str)> = saved["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let field = |k: &str| m[k].as_str().unwrap();
            (field("per"), field("amount"), field("quantity"))
        })
        .collect();
    assert_eq!(
        own,
        [("PIECE", "2", "8"), ("JOB", "12.5", "12.5")],
        "{saved}"
    );

    let res = app
        .post(&format!("/api/prints/{id}/complete"), &json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let (_, done) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(done.contains("<td>Druck</td>"), "{done}");
    assert!(done.contains(r#"name="materials[1].quantity""#), "{done}");
    let usage = saved["usages"][0]["id"].as_str().unwrap();
    let own = saved["materials"].as_array().unwrap();
    let outcome = [
        ("status", "SUCCESS"),
        ("durationMinutes", "90"),
        ("filaments[0].usageId", usage),
        ("filaments[0].usedGrams", "42,5"),
        ("materials[0].usageId", own[0]["usageId"].as_str().unwrap()),
        ("materials[0].quantity", "9"),
        ("materials[1].usageId", own[1]["usageId"].as_str().unwrap()),
        ("materials[1].quantity", "12,5"),
    ];
    let res = submit(&client, &app, &format!("/prints/{id}/outcome"), &outcome).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    assert_eq!(left(&app, &shop.gloves).await, "91");
    assert_eq!(left(&app, &shop.alcohol).await, "987.5");
}
