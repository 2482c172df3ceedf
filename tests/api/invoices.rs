//! Invoices over HTTP (issue 47, its first part): a DONE print billed with a shipping line and a
//! discount, issued with the next number of the year and frozen, its XRechnung XML passing the
//! official rules (`../shared/einvoice/validate`), a credit note naming it; the VAT the buyer
//! calls for (reverse charge to a French business, export to Switzerland, § 19 UStG); every
//! refusal with its status and code.

use crate::support::{Shop, TestApp, assert_error, assert_field_error, draft, shop};
use serde_json::{Value, json};
use std::process::Command;

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

pub(crate) fn company(small_business: bool) -> Value {
    json!({
        "name": "Musterdruck GmbH",
        "address": {"street": "Hauptstraße 1", "postalCode": "10115", "city": "Berlin", "country": "DE"},
        "vatId": "DE123456789",
        "taxNumber": "30/123/45678",
        "iban": "DE89370400440532013000",
        "bic": "COBADEFFXXX",
        "email": "rechnung@musterdruck.example",
        "phone": "+49 30 1234567",
        "paymentTermsDays": 14,
        "paymentTermsText": "Zahlbar innerhalb von 14 Tagen ohne Abzug.",
        "language": "de-DE",
        "smallBusiness": small_business
    })
}

pub(crate) fn customer(name: &str, country: &str, vat_id: Option<&str>) -> Value {
    json!({"name": name, "email": "einkauf@kunde.example", "vatId": vat_id,
           "buyerReference": "991-12345-67",
           "address": {"street": "Rue 1", "postalCode": "75002", "city": "Paris", "country": country}})
}

/// A DONE print of `customer` sold for `price`.
pub(crate) async fn done(app: &TestApp, shop: &Shop, customer: &str, price: &str) -> String {
    let mut body = draft(shop, "Roboter-Chassis");
    body["customerId"] = json!(customer);
    body["salesValue"] = json!(price);
    id(&app.done(&body).await)
}

/// A DRAFT invoice to the customer `buyer` (created) of a DONE print sold for 60, with
/// shipping at 4.90 and an allowance of 5.
async fn shipped(app: &TestApp, buyer: &Value) -> Value {
    let buyer = app.create("/api/customers", buyer).await;
    let shop = shop(app).await;
    let print = done(app, &shop, &id(&buyer), "60").await;
    let body = json!({"customerId": id(&buyer), "printIds": [print],
                      "extras": [{"name": "Versand", "amount": "4.90"}],
                      "allowances": [{"reason": "Treuerabatt", "amount": "5"}]});
    app.create("/api/invoices", &body).await
}

/// The judge's verdict on `files` (name, content) under `profile`, in one call: (accepted,
/// report).
fn judge_all(files: &[(String, Vec<u8>)], profile: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    let out = Command::new("../shared/einvoice/validate")
        .args(["--profile", profile])
        .arg(dir.path())
        .output()
        .expect("the judge ../shared/einvoice/validate runs");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_ne!(out.status.code(), Some(2), "the judge cannot run: {report}");
    (out.status.success(), report)
}

/// The judge's verdict on `xml` as XRechnung: (accepted, report).
fn judged(xml: &str) -> (bool, String) {
    judge_all(&[("invoice.xml".into(), xml.into())], "xrechnung")
}

/// The text of `pdf`, page by page as laid out (poppler's pdftotext).
fn pdf_text(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("invoice.pdf");
    std::fs::write(&file, pdf).unwrap();
    let out = Command::new("pdftotext")
        .args(["-layout"])
        .arg(&file)
        .arg("-")
        .output()
        .expect("pdftotext runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The file `factur-x.xml` embedded in `pdf` (qpdf).
fn embedded_xml(pdf: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("invoice.pdf");
    std::fs::write(&file, pdf).unwrap();
    let out = Command::new("qpdf")
        .arg("--show-attachment=factur-x.xml")
        .arg(&file)
        .output()
        .expect("qpdf runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[actix_web::test]
async fn an_invoice_is_issued_frozen_and_passes_the_official_rules_and_a_credit_note_names_it() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let buyer = customer("Atelier Lumière", "DE", Some("DE987654321"));
    let draft = shipped(&app, &buyer).await;
    let print = draft["printIds"][0].as_str().unwrap().to_string();
    let body = json!({"customerId": draft["customerId"], "printIds": [print]});
    assert_eq!(draft["status"], "DRAFT");
    assert_eq!(draft["number"], Value::Null);
    // 60 + 4.90 − 5 = 59.90 net, 19 % = 11.381 → 11.38, 71.28 gross.
    assert_eq!(draft["totals"]["lineTotal"], "64.9");
    assert_eq!(draft["totals"]["taxBasis"], "59.9");
    assert_eq!(draft["totals"]["tax"], "11.38");
    assert_eq!(draft["totals"]["grandTotal"], "71.28");
    assert_eq!(draft["lines"][0]["vatCategory"], "STANDARD");
    let path = format!("/api/invoices/{}", id(&draft));
    for document in ["xrechnung.xml", "pdf"] {
        assert_error(
            app.get(&format!("{path}/{document}")).await,
            409,
            "INVALID_STATE",
        )
        .await;
    }

    // Without the company's details it cannot be issued, and nothing changes.
    let res = app.post(&format!("{path}/issue"), &json!({})).await;
    let refused = assert_error(res, 409, "INVOICE_INCOMPLETE").await;
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("company.iban"),
        "{refused}"
    );
    assert_eq!(app.json(&path).await["status"], "DRAFT");
    let res = app.patch("/api/settings/company", &company(false)).await;
    assert_eq!(res.status(), 200);

    let res = app.post(&format!("{path}/issue"), &json!({})).await;
    assert_eq!(res.status(), 200);
    let issued: Value = res.json().await.unwrap();
    assert_eq!(issued["status"], "ISSUED");
    let number = issued["number"].as_str().unwrap().to_string();
    assert!(number.ends_with("-0001") && number.len() == 9, "{number}");
    assert!(issued["dueOn"].is_string());

    let res = app.get(&format!("{path}/xrechnung.xml")).await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(&format!("{number}.xml"))
    );
    let xml = res.text().await.unwrap();
    let (accepted, report) = judged(&xml);
    assert!(accepted, "{report}\n{xml}");

    // The ZUGFeRD PDF: the invoice in German with the same XML inside, but for its guideline.
    let res = app.get(&format!("{path}/pdf")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    let pdf = res.bytes().await.unwrap().to_vec();
    let (accepted, report) = judge_all(&[("invoice.pdf".into(), pdf.clone())], "en16931");
    assert!(accepted, "{report}");
    assert!(report.contains("pdfaid:part=3"), "{report}");
    assert!(report.contains("AFRelationship=/Alternative"), "{report}");
    assert!(report.contains("fx:ConformanceLevel=EN 16931"), "{report}");
    assert_eq!(
        embedded_xml(&pdf),
        xml.replace(
            "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0",
            "urn:cen.eu:en16931:2017"
        )
    );
    let text = pdf_text(&pdf);
    for expected in [
        format!("Rechnung {number}"),
        "Atelier Lumière".to_string(),
        "Treuerabatt".to_string(),
        "USt. 19 % auf 59,90 €".to_string(),
        "71,28 €".to_string(),
        "Seite 1 von 1".to_string(),
    ] {
        assert!(text.contains(&expected), "{expected} in\n{text}");
    }
    // The same invoice gives the same bytes.
    let again = app.get(&format!("{path}/pdf")).await.bytes().await.unwrap();
    assert_eq!(again.to_vec(), pdf);

    // Issued is frozen: the company changes, the document does not; no second issue, no delete.
    let mut renamed = company(false);
    renamed["name"] = json!("Anders GmbH");
    assert_eq!(
        app.patch("/api/settings/company", &renamed).await.status(),
        200
    );
    let again = app
        .get(&format!("{path}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(again, xml);
    let res = app.post(&format!("{path}/issue"), &json!({})).await;
    assert_error(res, 409, "INVOICE_ISSUED").await;
    assert_error(app.delete(&path).await, 409, "INVOICE_ISSUED").await;
    // The print is billed once.
    let res = app.post("/api/invoices", &body).await;
    assert_field_error(res, "printIds[0]", "errors.invoiced").await;

    // Payments: partial ones add up; the print's paid flag follows once it is paid in full.
    assert_eq!(issued["paymentStatus"], "OPEN");
    let payments = format!("{path}/payments");
    let pay = |amount: &str, on: &str| json!({"paidOn": on, "amount": amount, "method": "TRANSFER", "note": "Überweisung"});
    let res = app.post(&payments, &pay("71.29", "2026-11-01")).await;
    assert_field_error(res, "amount", "errors.overpaid").await;
    let res = app.post(&payments, &pay("1", "2099-01-01")).await;
    assert_field_error(res, "paidOn", "errors.inTheFuture").await;
    let res = app.post(&payments, &pay("50", "2026-11-01")).await;
    assert_eq!(res.status(), 201);
    let partly: Value = res.json().await.unwrap();
    assert_eq!(partly["paymentStatus"], "PARTLY_PAID");
    let owed = app.json("/api/dashboard").await["receivables"].clone();
    assert_eq!(
        (&owed["open"], &owed["openAmount"]),
        (&json!(1), &json!("21.28"))
    );
    assert_eq!(owed["overdue"], 0, "due in 14 days");
    assert_eq!(partly["outstanding"], "21.28");
    assert_eq!(
        app.json(&format!("/api/prints/{print}")).await["paid"],
        false
    );
    let res = app.post(&payments, &pay("21.28", "2026-11-01")).await;
    let paid: Value = res.json().await.unwrap();
    assert_eq!(paid["paymentStatus"], "PAID");
    assert_eq!(paid["payments"].as_array().unwrap().len(), 2);
    assert_eq!(
        app.json(&format!("/api/prints/{print}")).await["paid"],
        true
    );
    let res = app.post(&payments, &pay("0.01", "2026-11-01")).await;
    assert_field_error(res, "amount", "errors.overpaid").await;

    // A credit note cancels it, naming it, with the next number of the range.
    let res = app.post(&format!("{path}/credit-note"), &json!({})).await;
    assert_eq!(res.status(), 201);
    let note: Value = res.json().await.unwrap();
    assert_eq!(note["kind"], "CREDIT_NOTE");
    assert_eq!(note["correctsId"], draft["id"]);
    assert_eq!(note["totals"]["grandTotal"], "71.28");
    let note_path = format!("/api/invoices/{}", id(&note));
    let res = app.post(&format!("{note_path}/issue"), &json!({})).await;
    let note: Value = res.json().await.unwrap();
    assert_eq!(note["number"], number.replace("-0001", "-0002"));
    let xml = app
        .get(&format!("{note_path}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();
    assert!(xml.contains("<ram:TypeCode>381</ram:TypeCode>"), "{xml}");
    assert!(xml.contains(&format!(
        "<ram:IssuerAssignedID>{number}</ram:IssuerAssignedID>"
    )));
    let (accepted, report) = judged(&xml);
    assert!(accepted, "{report}\n{xml}");
    let res = app
        .post(&format!("{note_path}/credit-note"), &json!({}))
        .await;
    assert_error(res, 409, "INVALID_STATE").await;

    let list = app.json("/api/invoices").await;
    assert_eq!(list["total"], 2);
    assert_eq!(list["items"][0]["kind"], "CREDIT_NOTE", "newest first");
    // Archived: out of the list, never gone.
    let res = app
        .post(&format!("{path}/archive"), &json!({"archived": true}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(app.json("/api/invoices").await["total"], 1);
    assert_eq!(
        app.json("/api/invoices?includeArchived=true").await["total"],
        2
    );
    assert_eq!(app.json(&path).await["archived"], true);
}

#[actix_web::test]
async fn the_buyer_calls_for_its_vat_and_each_passes_the_official_rules() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(
        app.patch("/api/settings/company", &company(false))
            .await
            .status(),
        200
    );
    let shop = shop(&app).await;
    let mut cases = vec![
        (
            customer("Atelier Lumière SARL", "FR", Some("FR12345678901")),
            "REVERSE_CHARGE",
        ),
        (customer("Uhrenteile AG", "CH", None), "EXPORT"),
        (customer("Madame Dupont", "FR", None), "STANDARD"),
    ];
    let mut issued = Vec::new();
    for (body, vat) in cases.drain(..) {
        let buyer = app.create("/api/customers", &body).await;
        let print = done(&app, &shop, &id(&buyer), "42.50").await;
        let invoice = app
            .create(
                "/api/invoices",
                &json!({"customerId": id(&buyer), "printIds": [print]}),
            )
            .await;
        assert_eq!(invoice["lines"][0]["vatCategory"], vat, "{body}");
        let path = format!("/api/invoices/{}/issue", id(&invoice));
        assert_eq!(app.post(&path, &json!({})).await.status(), 200);
        issued.push(id(&invoice));
    }
    // § 19 UStG: exempt, stated.
    assert_eq!(
        app.patch("/api/settings/company", &company(true))
            .await
            .status(),
        200
    );
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let print = done(&app, &shop, &id(&buyer), "10").await;
    let invoice = app
        .create(
            "/api/invoices",
            &json!({"customerId": id(&buyer), "printIds": [print]}),
        )
        .await;
    assert_eq!(invoice["lines"][0]["vatCategory"], "SMALL_BUSINESS");
    assert_eq!(invoice["totals"]["tax"], "0");
    let path = format!("/api/invoices/{}/issue", id(&invoice));
    assert_eq!(app.post(&path, &json!({})).await.status(), 200);
    issued.push(id(&invoice));

    let (mut xmls, mut pdfs) = (Vec::new(), Vec::new());
    for invoice in &issued {
        let path = format!("/api/invoices/{invoice}");
        let xml = app.get(&format!("{path}/xrechnung.xml")).await;
        xmls.push((
            format!("{invoice}.xml"),
            xml.bytes().await.unwrap().to_vec(),
        ));
        let pdf = app.get(&format!("{path}/pdf")).await;
        pdfs.push((
            format!("{invoice}.pdf"),
            pdf.bytes().await.unwrap().to_vec(),
        ));
    }
    let (accepted, report) = judge_all(&xmls, "xrechnung");
    assert!(
        accepted && report.contains("4 files: 4 accepted"),
        "{report}"
    );
    let (accepted, report) = judge_all(&pdfs, "en16931");
    assert!(
        accepted && report.contains("4 files: 4 accepted"),
        "{report}"
    );
    // Each PDF states why it charges no VAT.
    let notes = [
        "Reverse Charge",
        "Ausfuhrlieferung",
        "19 %",
        "§ 19 UStG wird keine Umsatzsteuer",
    ];
    for ((_, pdf), note) in pdfs.iter().zip(notes) {
        let text = pdf_text(pdf);
        assert!(text.contains(note), "{note} in\n{text}");
    }
}

#[actix_web::test]
async fn an_invoice_refuses_what_it_cannot_bill_at_the_field_at_fault() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let buyer = id(&app
        .create("/api/customers", &customer("A", "DE", None))
        .await);
    let other = id(&app
        .create("/api/customers", &customer("B", "DE", None))
        .await);
    let mut body = draft(&shop, "Draft");
    body["customerId"] = json!(buyer);
    body["salesValue"] = json!("10");
    let not_done = id(&app.create("/api/prints", &body).await);
    body["salesValue"] = Value::Null;
    let unpriced = id(&app.done(&body).await);
    let theirs = done(&app, &shop, &other, "10").await;
    let fine = done(&app, &shop, &buyer, "10").await;
    let invoice = |prints: &[&str]| json!({"customerId": buyer, "printIds": prints});
    for (body, path, key) in [
        (invoice(&[&not_done]), "printIds[0]", "errors.notDone"),
        (invoice(&[&unpriced]), "printIds[0]", "errors.unpriced"),
        (invoice(&[&theirs]), "printIds[0]", "errors.otherCustomer"),
        (invoice(&[&fine, &fine]), "printIds[1]", "errors.duplicate"),
        (invoice(&[]), "printIds", "errors.tooFew"),
    ] {
        assert_field_error(app.post("/api/invoices", &body).await, path, key).await;
    }
    let mut many = invoice(&[&fine]);
    many["extras"] = json!(
        (0..21)
            .map(|_| json!({"name": "x", "amount": "1"}))
            .collect::<Vec<_>>()
    );
    assert_field_error(
        app.post("/api/invoices", &many).await,
        "extras",
        "errors.tooMany",
    )
    .await;
    let mut huge = invoice(&[&fine]);
    huge["extras"] = json!([{"name": "a", "amount": "999999999999999"}, {"name": "b", "amount": "999999999999999"}]);
    assert_field_error(
        app.post("/api/invoices", &huge).await,
        "extras",
        "errors.outOfRange",
    )
    .await;
    let mut zero = invoice(&[&fine]);
    zero["extras"] = json!([{"name": "Versand", "amount": "0"}]);
    assert_field_error(
        app.post("/api/invoices", &zero).await,
        "extras[0].amount",
        "errors.notPositive",
    )
    .await;
    assert_eq!(
        app.json("/api/invoices").await["total"],
        0,
        "nothing half-written"
    );
    // A draft is deleted; its print can be billed again.
    let draft = app.create("/api/invoices", &invoice(&[&fine])).await;
    let path = format!("/api/invoices/{}", id(&draft));
    assert_eq!(app.delete(&path).await.status(), 204);
    assert_error(app.get(&path).await, 404, "NOT_FOUND").await;
    assert_eq!(
        app.post("/api/invoices", &invoice(&[&fine])).await.status(),
        201
    );
}

#[actix_web::test]
async fn sixteen_invoices_issued_at_once_take_the_numbers_one_to_sixteen_each_once() {
    let app = TestApp::spawn().await;
    app.setup().await;
    assert_eq!(
        app.patch("/api/settings/company", &company(false))
            .await
            .status(),
        200
    );
    let shop = shop(&app).await;
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let mut drafts = Vec::new();
    for _ in 0..16 {
        let print = done(&app, &shop, &id(&buyer), "10").await;
        let body = json!({"customerId": id(&buyer), "printIds": [print]});
        drafts.push(id(&app.create("/api/invoices", &body).await));
    }
    let issues = drafts.iter().map(|invoice| {
        let path = format!("/api/invoices/{invoice}/issue");
        let app = &app;
        async move {
            let res = app.post(&path, &json!({})).await;
            assert_eq!(res.status(), 200);
            let issued: Value = res.json().await.unwrap();
            let number = issued["number"].as_str().unwrap().to_string();
            number.rsplit('-').next().unwrap().parse::<u32>().unwrap()
        }
    });
    let mut numbers = futures_util::future::join_all(issues).await;
    numbers.sort_unstable();
    assert_eq!(numbers, (1..=16).collect::<Vec<u32>>());
}

#[actix_web::test]
async fn a_partial_credit_note_credits_what_is_left_of_a_line_and_the_rest_goes_whole() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app.patch("/api/settings/company", &company(false)).await;
    assert_eq!(res.status(), 200);
    let invoice = shipped(&app, &customer("Verein", "DE", None)).await;
    let path = format!("/api/invoices/{}", id(&invoice));
    assert_eq!(
        app.post(&format!("{path}/issue"), &json!({}))
            .await
            .status(),
        200
    );
    let credit = format!("{path}/credit-note");

    // Only the shipping is credited: 4.90 + 19 % = 5.83.
    let res = app
        .post(&credit, &json!({"lines": [{"line": 1, "quantity": "1"}]}))
        .await;
    assert_eq!(res.status(), 201);
    let shipping: Value = res.json().await.unwrap();
    assert_eq!(shipping["lines"].as_array().unwrap().len(), 1);
    assert_eq!(shipping["lines"][0]["name"], "Versand");
    assert_eq!(shipping["allowances"], json!([]));
    assert_eq!(shipping["totals"]["grandTotal"], "5.83");
    // What is credited is credited once; the line must exist and be named once.
    for (lines, path, key) in [
        (
            json!([{"line": 1, "quantity": "1"}]),
            "lines[0].quantity",
            "errors.overCredited",
        ),
        (
            json!([{"line": 7, "quantity": "1"}]),
            "lines[0].line",
            "errors.notFound",
        ),
        (
            json!([{"line": 0, "quantity": "0.5"}, {"line": 0, "quantity": "0.5"}]),
            "lines[1].line",
            "errors.duplicate",
        ),
        (json!([]), "lines", "errors.tooFew"),
        (
            json!([{"line": 0, "quantity": "0"}]),
            "lines[0].quantity",
            "errors.notPositive",
        ),
    ] {
        let res = app.post(&credit, &json!({ "lines": lines })).await;
        assert_field_error(res, path, key).await;
    }
    // The rest, whole: the print's line and the allowance.
    let res = app.post(&credit, &json!({})).await;
    assert_eq!(res.status(), 201);
    let rest: Value = res.json().await.unwrap();
    assert_eq!(rest["lines"].as_array().unwrap().len(), 1);
    assert_eq!(rest["allowances"][0]["reason"], "Treuerabatt");
    // 60 − 5 = 55 net, 10.45 VAT: the two notes add up to the invoice (65.45 + 5.83 = 71.28).
    assert_eq!(rest["totals"]["grandTotal"], "65.45");
    assert_error(app.post(&credit, &json!({})).await, 409, "INVALID_STATE").await;

    // Both pass the official rules, as XML and as PDF.
    let (mut xmls, mut pdfs) = (Vec::new(), Vec::new());
    for note in [&shipping, &rest] {
        let note_path = format!("/api/invoices/{}", id(note));
        let res = app.post(&format!("{note_path}/issue"), &json!({})).await;
        assert_eq!(res.status(), 200);
        let xml = app.get(&format!("{note_path}/xrechnung.xml")).await;
        xmls.push((
            format!("{}.xml", id(note)),
            xml.bytes().await.unwrap().to_vec(),
        ));
        let pdf = app.get(&format!("{note_path}/pdf")).await;
        pdfs.push((
            format!("{}.pdf", id(note)),
            pdf.bytes().await.unwrap().to_vec(),
        ));
    }
    let (accepted, report) = judge_all(&xmls, "xrechnung");
    assert!(accepted, "{report}");
    let (accepted, report) = judge_all(&pdfs, "en16931");
    assert!(accepted, "{report}");
    let text = pdf_text(&pdfs[0].1);
    assert!(
        text.contains("Gutschrift") && text.contains("korrigiert die Rechnung"),
        "{text}"
    );
}

#[actix_web::test]
async fn numbers_follow_the_shops_patterns_and_a_number_is_never_given_twice() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app.patch("/api/settings/company", &company(false)).await;
    assert_eq!(res.status(), 200);
    assert_eq!(
        app.json("/api/settings/numbering").await,
        json!({"invoices": {"pattern": "{YYYY}-{NNNN}", "yearly": true}, "creditNotes": null})
    );
    for (body, path, key) in [
        (
            json!({"invoices": {"pattern": "RE-{YYYY}", "yearly": true}}),
            "invoices.pattern",
            "errors.invalidPattern",
        ),
        (
            json!({"invoices": {"pattern": "RE-{NNNN}", "yearly": true}}),
            "invoices.pattern",
            "errors.patternYear",
        ),
        (
            json!({"invoices": {"pattern": "RE-{NNNN}", "yearly": false},
                   "creditNotes": {"pattern": "RE-{NNNN}", "yearly": false}}),
            "creditNotes.pattern",
            "errors.duplicate",
        ),
    ] {
        let res = app.patch("/api/settings/numbering", &body).await;
        assert_field_error(res, path, key).await;
    }
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let shop = shop(&app).await;
    let mut drafts = Vec::new();
    for price in ["10", "20", "30"] {
        let print = done(&app, &shop, &id(&buyer), price).await;
        let body = json!({"customerId": id(&buyer), "printIds": [print]});
        drafts.push(format!(
            "/api/invoices/{}",
            id(&app.create("/api/invoices", &body).await)
        ));
    }
    let issue = |path: String| {
        let app = &app;
        async move { app.post(&format!("{path}/issue"), &json!({})).await }
    };
    let first: Value = issue(drafts[0].clone()).await.json().await.unwrap();
    let number = first["number"].as_str().unwrap().to_string();
    let year = &number[..4];
    assert_eq!(number, format!("{year}-0001"));

    // The same pattern counted without years would give 0001 again: refused, nothing taken.
    let continuous = json!({"invoices": {"pattern": "{YYYY}-{NNNN}", "yearly": false}});
    let res = app.patch("/api/settings/numbering", &continuous).await;
    assert_eq!(res.status(), 200);
    let body = assert_error(issue(drafts[1].clone()).await, 409, "DUPLICATE").await;
    assert_eq!(body["data"]["fieldErrors"][0]["path"], "invoices.pattern");
    assert_eq!(
        body["data"]["fieldErrors"][0]["messageKey"],
        "errors.numberTaken"
    );
    assert_eq!(app.json(&drafts[1]).await["status"], "DRAFT");

    // The shop's own patterns: invoices RE-YY and five digits, credit notes their own range.
    let own = json!({"invoices": {"pattern": "RE-{YY}{NNNNN}", "yearly": true},
                     "creditNotes": {"pattern": "GS-{YYYY}-{NNN}", "yearly": true}});
    let res = app.patch("/api/settings/numbering", &own).await;
    assert_eq!(res.status(), 200);
    assert_eq!(app.json("/api/settings/numbering").await, own);
    // The yearly invoice counter goes on where it stood (1 taken), under the new pattern.
    let second: Value = issue(drafts[1].clone()).await.json().await.unwrap();
    assert_eq!(second["number"], format!("RE-{}00002", &year[2..]));
    let note = app
        .post(&format!("{}/credit-note", drafts[0]), &json!({}))
        .await;
    assert_eq!(note.status(), 201);
    let note: Value = note.json().await.unwrap();
    let issued: Value = issue(format!("/api/invoices/{}", id(&note)))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(issued["number"], format!("GS-{year}-001"));
    let third: Value = issue(drafts[2].clone()).await.json().await.unwrap();
    assert_eq!(third["number"], format!("RE-{}00003", &year[2..]));
    let xml = app
        .get(&format!("{}/xrechnung.xml", drafts[2]))
        .await
        .text()
        .await
        .unwrap();
    let (accepted, report) = judged(&xml);
    assert!(
        accepted && xml.contains(&format!("RE-{}00003", &year[2..])),
        "{report}"
    );
}

#[actix_web::test]
async fn a_quote_accepted_after_its_print_was_billed_changes_no_issued_figure() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let res = app.patch("/api/settings/company", &company(false)).await;
    assert_eq!(res.status(), 200);
    let buyer = app
        .create("/api/customers", &customer("Verein", "DE", None))
        .await;
    let shop = shop(&app).await;
    let mut body = draft(&shop, "Pokal");
    body["customerId"] = buyer["id"].clone();
    body["salesValue"] = json!("60");
    let print = id(&app.create("/api/prints", &body).await);
    let quote = app
        .create(
            "/api/quotes",
            &json!({"customerId": buyer["id"], "printIds": [print], "validUntil": "2099-12-31"}),
        )
        .await;
    let quote = format!("/api/quotes/{}", id(&quote));
    assert_eq!(
        app.post(&format!("{quote}/send"), &json!({}))
            .await
            .status(),
        200
    );
    // The print is made and billed before the customer answers.
    let res = app
        .post(&format!("/api/prints/{print}/complete"), &json!({}))
        .await;
    assert_eq!(res.status(), 200);
    let invoice = app
        .create(
            "/api/invoices",
            &json!({"customerId": buyer["id"], "printIds": [print]}),
        )
        .await;
    let invoice = format!("/api/invoices/{}", id(&invoice));
    assert_eq!(
        app.post(&format!("{invoice}/issue"), &json!({}))
            .await
            .status(),
        200
    );
    let xml = app
        .get(&format!("{invoice}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();

    let res = app.post(&format!("{quote}/accept"), &json!({})).await;
    assert_error(res, 409, "INVOICE_ISSUED").await;
    assert_eq!(app.json(&quote).await["status"], "SENT");
    assert_eq!(
        app.json(&format!("/api/prints/{print}")).await["salesValue"],
        "60"
    );
    let again = app
        .get(&format!("{invoice}/xrechnung.xml"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(again, xml);
}
