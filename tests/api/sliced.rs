//! `POST /api/prints/sliced` over a real socket: a sliced file's preview with suggestions, the
//! draft made from it, and every refusal with its code.

use crate::support::{TestApp, logged_in, shop};
use futures_util::StreamExt;
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::io::{Cursor, Write};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

/// A sliced file of `actors/tests/fixtures/sliced`.
pub(crate) fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/actors/tests/fixtures/sliced/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// POSTs `bytes` as the multipart field `field` named `name` to `path` with `client`.
pub(crate) async fn post_file(
    client: &Client,
    app: &TestApp,
    path: &str,
    field: &str,
    name: &str,
    bytes: &[u8],
) -> Response {
    let boundary = "----printcost-test-boundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    client
        .post(app.url(path))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body)
        .send()
        .await
        .unwrap()
}

/// Uploads `bytes` named `name` in the field `field` to the API; its status and body.
async fn upload(app: &TestApp, field: &str, name: &str, bytes: &[u8]) -> (StatusCode, Value) {
    let res = post_file(&app.client, app, "/api/prints/sliced", field, name, bytes).await;
    let status = res.status();
    (status, res.json().await.unwrap())
}

fn code(body: &Value) -> &str {
    body["data"]["code"].as_str().unwrap_or_default()
}

#[actix_web::test]
async fn a_sliced_gcode_previews_with_suggestions_and_makes_a_draft() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let filament = |material: &str, name: &str, hex: &str| json!({"manufacturerId": shop.maker, "material": material, "colorName": name, "colorHex": hex, "purchasePrice": "25", "netWeightGrams": "1000"});
    let orange = app
        .create("/api/filaments", &filament("PLA", "Orange", "#FF7F00"))
        .await;
    app.create("/api/filaments", &filament("PETG", "Orange", "#FF8000"))
        .await;
    app.create("/api/filaments", &filament("PLA", "Red", "#FF0000"))
        .await;

    let mk3 = json!({"name": "Mk3 in the corner", "manufacturerId": shop.maker, "model": "MK3S", "purchasePrice": "700", "expectedLifetimeHours": "5000", "averagePowerWatts": 90});
    let mk3 = app.create("/api/printers", &mk3).await;
    let two = fixture("prusa-two-filaments.gcode");
    let (_, preview) = upload(&app, "file", "two.gcode", &two).await;
    assert_eq!(
        preview["parts"][0]["printerId"], mk3["id"],
        "the printer of the file's model"
    );
    let slots: Vec<&Value> = preview["parts"][0]["filaments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &f["filamentId"])
        .collect();
    assert_eq!(slots.len(), 2);
    assert_ne!(
        slots[0], slots[1],
        "PLA and PETG slots get their own materials"
    );
    app.patch(
        &format!("/api/printers/{}", mk3["id"].as_str().unwrap()),
        &json!({"archived": true}),
    )
    .await;

    let bytes = fixture("prusa-one-filament.gcode");
    let (status, preview) = upload(&app, "file", "dir/cube.gcode", &bytes).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let sha: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        preview["file"],
        json!({"name": "cube.gcode", "sha256": sha, "bytes": bytes.len()})
    );
    assert_eq!(preview["slicer"], "PrusaSlicer");
    assert_eq!(preview["printerModel"], "MK4");
    let part = &preview["parts"][0];
    assert_eq!(part["durationSeconds"], 825);
    assert_eq!(
        part["printerId"],
        json!(shop.printer),
        "the only active printer"
    );
    assert_eq!(
        part["hotendId"],
        json!(shop.hotend),
        "the only hotend that fits"
    );
    assert_eq!(part["buildPlateId"], json!(shop.plate));
    let slot = &part["filaments"][0];
    assert_eq!(slot["grams"], "4.45");
    assert_eq!(slot["gramsDerived"], false);
    assert_eq!(slot["colour"], "#FF8000");
    assert_eq!(slot["filamentId"], orange["id"], "PLA, nearest colour");

    let mut draft = json!({"name": "cube", "parts": [{
        "printerId": part["printerId"], "buildPlateId": part["buildPlateId"],
        "hotends": [{"componentId": part["hotendId"], "durationSeconds": part["durationSeconds"]}],
        "filaments": [{"filamentId": slot["filamentId"], "usedGrams": slot["grams"]}],
    }]});
    draft["source"] = json!({"fileName": "cube.gcode", "sha256": "zz", "slicer": "PrusaSlicer"});
    let res = app.post("/api/prints", &draft).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refused: Value = res.json().await.unwrap();
    assert_eq!(
        refused["data"]["fieldErrors"],
        json!([{"path": "source.sha256", "messageKey": "errors.invalidValue"}])
    );
    draft["source"] = json!({
        "fileName": preview["file"]["name"], "sha256": preview["file"]["sha256"],
        "slicer": preview["slicer"], "slicerVersion": preview["slicerVersion"],
    });
    assert_eq!(
        preview["existingPrints"],
        json!([]),
        "a file not seen before"
    );
    let print = app.create("/api/prints", &draft).await;
    assert_eq!(print["parts"][0]["usages"][0]["usedGrams"], "4.45");
    assert_eq!(print["parts"][0]["durationSeconds"], 825);
    let id = print["id"].as_str().unwrap();
    let got: Value = app
        .get(&format!("/api/prints/{id}"))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        got["source"],
        json!({"fileName": "cube.gcode", "sha256": sha, "slicer": "PrusaSlicer", "slicerVersion": "2.5.0+linux-x64-GTK3"})
    );
    let listed: Value = app.get("/api/prints").await.json().await.unwrap();
    assert_eq!(
        listed["items"][0].get("source"),
        None,
        "lists leave the source out"
    );
    let (_, again) = upload(&app, "file", "cube-copy.gcode", &bytes).await;
    assert_eq!(
        again["existingPrints"],
        json!([{"id": print["id"], "name": "cube"}]),
        "the same bytes name the print they made"
    );
}

#[actix_web::test]
async fn a_multi_plate_3mf_previews_one_part_per_plate() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default();
    zip.start_file("Metadata/slice_info.config", options)
        .unwrap();
    zip.write_all(&fixture("slice-info-two-plates.xml"))
        .unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let (status, preview) = upload(&app, "file", "box.gcode.3mf", &bytes).await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let plates: Vec<(u64, u64, usize)> = preview["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["plate"].as_u64().unwrap(),
                p["durationSeconds"].as_u64().unwrap(),
                p["filaments"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(plates, [(1, 600, 1), (2, 3600, 2)]);
    assert_eq!(
        preview["parts"][0]["printerId"],
        Value::Null,
        "no printer yet"
    );
}

#[actix_web::test]
async fn every_refusal_answers_its_code() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let cases: [(&[u8], u16, &str); 5] = [
        (b"just some notes\n", 422, "SLICED_FILE_UNRECOGNIZED"),
        (
            &fixture("cura-placeholders.gcode"),
            422,
            "SLICED_FILE_PLACEHOLDERS",
        ),
        (
            &fixture("prusa-truncated.gcode"),
            422,
            "SLICED_FILE_TRUNCATED",
        ),
        (b"GCDE\x01\x00\x00\x00", 422, "SLICED_FILE_BINARY_GCODE"),
        (
            b"PK\x03\x04 not really a zip",
            422,
            "SLICED_FILE_BROKEN_ARCHIVE",
        ),
    ];
    for (bytes, status, expected) in cases {
        let (got, body) = upload(&app, "file", "x.gcode", bytes).await;
        assert_eq!((got.as_u16(), code(&body)), (status, expected), "{body}");
    }
    // A 3MF whose central directory lists more entries than a package holds is refused before
    // the directory is read into memory.
    let mut crowded = ZipWriter::new(Cursor::new(Vec::new()));
    let stored = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    for k in 0..5_000 {
        crowded
            .start_file(format!("Metadata/e{k}"), stored)
            .unwrap();
    }
    let crowded = crowded.finish().unwrap().into_inner();
    let (got, body) = upload(&app, "file", "x.gcode.3mf", &crowded).await;
    assert_eq!(
        (got.as_u16(), code(&body)),
        (413, "SLICED_FILE_TOO_LARGE"),
        "{body}"
    );

    // More sliced plates than a print holds parts.
    let plate = |k: usize| {
        format!(
            "<plate><metadata key=\"index\" value=\"{k}\"/><metadata key=\"prediction\" value=\"60\"/><filament id=\"1\" type=\"PLA\" color=\"#000000\" used_m=\"1\" used_g=\"3\"/></plate>"
        )
    };
    let info = format!(
        "<?xml version=\"1.0\"?><config>{}</config>",
        (1..=101).map(plate).collect::<String>()
    );
    let mut plates = ZipWriter::new(Cursor::new(Vec::new()));
    plates
        .start_file("Metadata/slice_info.config", SimpleFileOptions::default())
        .unwrap();
    plates.write_all(info.as_bytes()).unwrap();
    let plates = plates.finish().unwrap().into_inner();
    let (got, body) = upload(&app, "file", "x.gcode.3mf", &plates).await;
    assert_eq!(
        (got.as_u16(), code(&body)),
        (422, "SLICED_FILE_TOO_MANY_PLATES"),
        "{body}"
    );

    let (status, body) = upload(&app, "other", "x.gcode", b"; generated by PrusaSlicer").await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        body["data"]["fieldErrors"],
        json!([{"path": "file", "messageKey": "errors.required"}])
    );
    let res = app.post("/api/prints/sliced", &json!({"file": "x"})).await;
    assert_eq!(
        res.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "not multipart"
    );
}

#[actix_web::test]
async fn the_ui_reads_a_sliced_file_into_the_editor_in_german() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    app.patch("/api/auth/preferences", &json!({"locale": "de-DE"}))
        .await;
    let client = logged_in(&app).await;
    let res = post_file(
        &client,
        &app,
        "/prints/sliced",
        "file",
        "Würfel.gcode",
        &fixture("bambu-header.gcode"),
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = res.text().await.unwrap();
    assert!(page.contains("Aus der geslicten Datei"), "German: {page}");
    assert!(
        page.contains("BambuStudio 01.08.00.62 Bambu Lab X1 Carbon"),
        "{page}"
    );
    assert!(
        page.contains("3,68 g") && page.contains("0,61 g"),
        "grams in German: {page}"
    );
    assert!(page.contains(r#"value="Würfel""#), "named after the file");
    assert!(
        page.contains(r#"<input type="hidden" name="source.slicer" value="BambuStudio">"#),
        "the source rides along: {page}"
    );
    assert!(
        page.contains(r#"name="parts[0].filaments[1].usedGrams""#),
        "a line per slot"
    );
    let selected = |id: &str| {
        page.split("<option ")
            .any(|o| o.starts_with(&format!(r#"value="{id}""#)) && o.contains(" selected>"))
    };
    assert!(selected(&shop.printer), "the only printer, selected");
    assert!(
        selected(&shop.hotend) && selected(&shop.plate),
        "the components that fit"
    );
    // The plate's 9m 22s, in the editor's minutes (562 / 60, to the hundredth, which comes back
    // to the second), with the German decimal comma.
    assert!(
        page.contains(r#"durationMinutes" inputmode="decimal" value="9,37""#),
        "{page}"
    );
    let refused = post_file(
        &client,
        &app,
        "/prints/sliced",
        "file",
        "notes.txt",
        b"hello",
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let page = refused.text().await.unwrap();
    assert!(
        page.contains("Keine geslicte Datei"),
        "the localized message: {page}"
    );
}

/// A client may send a file's first bytes in a chunk of their own: the kind is told from the
/// first four bytes however they arrive.
#[actix_web::test]
async fn a_package_whose_first_bytes_arrive_alone_is_read() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file("Metadata/slice_info.config", SimpleFileOptions::default())
        .unwrap();
    zip.write_all(&fixture("slice-info-two-plates.xml"))
        .unwrap();
    let bytes = zip.finish().unwrap().into_inner();
    let boundary = "----printcost-test-boundary";
    let mut first = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"box.gcode.3mf\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    first.extend_from_slice(&bytes[..2]);
    let mut rest = bytes[2..].to_vec();
    rest.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let chunks = futures_util::stream::iter([first, rest]).then(|chunk| async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        Ok::<_, std::io::Error>(chunk)
    });
    let res = app
        .client
        .post(app.url("/api/prints/sliced"))
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    let status = res.status();
    let preview: Value = res.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(
        preview["parts"].as_array().map(Vec::len),
        Some(2),
        "{preview}"
    );
}
