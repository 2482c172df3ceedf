//! Quotes over HTTP (issue 46): a customer's drafts offered at their prices, the lines spread
//! from each print's price to the cent, numbered from a gapless range and frozen when sent (an
//! inventory price changed afterwards changes nothing), accepted into the prints' sales values,
//! declined; every refusal with its status, code and field.

use crate::support::{TestApp, assert_error, assert_field_error, draft, shop};
use crate::work::{rate_and_fee, worked};
use serde_json::{Value, json};

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

fn quote(customer: &str, prints: &[&str]) -> Value {
    json!({"customerId": customer, "printIds": prints, "validUntil": "2099-12-31",
           "note": "Lieferung ab Werk"})
}

fn lines(quote: &Value) -> Vec<(String, u64, String, String)> {
    quote["offer"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["description"].as_str().unwrap().to_string(),
                l["quantity"].as_u64().unwrap(),
                l["unitPrice"].as_str().unwrap().to_string(),
                l["net"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[actix_web::test]
async fn a_quote_is_numbered_and_frozen_when_sent_and_its_acceptance_prices_its_prints() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let (rate, fee) = rate_and_fee(&app).await;
    let customer = app
        .create(
            "/api/customers",
            &json!({"name": "Verein", "language": "de-DE"}),
        )
        .await;
    let customer = id(&customer);
    // The reference example with work, 4 pieces: 1.782175 + 4 × 5.25 + 3.50 = 26.282175,
    // sold for 60.
    let mut body = worked(&shop, &rate, &fee);
    body["quantity"] = json!(4);
    body["customerId"] = json!(customer);
    body["salesValue"] = json!("60");
    let print = app.create("/api/prints", &body).await;
    assert_eq!(print["totalCost"], "26.282175");
    let print_path = format!("/api/prints/{}", id(&print));

    let res = app
        .post("/api/quotes", &quote(&customer, &[&id(&print)]))
        .await;
    assert_eq!(res.status(), 201);
    let draft_quote: Value = res.json().await.unwrap();
    assert_eq!(draft_quote["status"], "DRAFT");
    assert_eq!(draft_quote["number"], Value::Null);
    assert_eq!(draft_quote["language"], "de-DE");
    assert_eq!(draft_quote["customerName"], "Verein");
    // Each line worth cost × 60 / 26.282175: the item 4.0685… over 4 pieces → 1.02; the
    // labour 47.941… over 4 → 11.99; the fee 7.990… → 7.99, less the 0.03 the cents left over
    // (the print's lines add up to its price).
    assert_eq!(
        lines(&draft_quote),
        [
            (
                "Worked".to_string(),
                4,
                "1.02".to_string(),
                "4.08".to_string()
            ),
            (
                "Nachbearbeitung".to_string(),
                4,
                "11.99".to_string(),
                "47.96".to_string()
            ),
            (
                "Grundgebühr".to_string(),
                1,
                "7.96".to_string(),
                "7.96".to_string()
            ),
        ]
    );
    assert_eq!(draft_quote["offer"]["net"], "60");
    assert_eq!(draft_quote["offer"]["vatPercent"], "19");
    assert_eq!(draft_quote["offer"]["vat"], "11.4");
    assert_eq!(draft_quote["offer"]["gross"], "71.4");
    let path = format!("/api/quotes/{}", id(&draft_quote));

    assert_error(app.get(&format!("{path}/pdf")).await, 409, "INVALID_STATE").await;
    let res = app.post(&format!("{path}/send"), &json!({})).await;
    assert_eq!(res.status(), 200);
    let sent: Value = res.json().await.unwrap();
    assert_eq!(sent["status"], "SENT");
    let number = sent["number"].as_str().unwrap().to_string();
    assert!(
        number.starts_with("A-") && number.ends_with("-0001") && number.len() == 11,
        "{number}"
    );
    assert!(sent["sentAt"].is_string());
    // The sent quote as a PDF/A-3 in the customer's language, its lines and totals in it.
    let res = app.get(&format!("{path}/pdf")).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    let pdf = res.bytes().await.unwrap().to_vec();
    assert!(String::from_utf8_lossy(&pdf).contains("<pdfaid:part>3</pdfaid:part>"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("quote.pdf"), &pdf).unwrap();
    let text = std::process::Command::new("pdftotext")
        .args(["-layout", "quote.pdf", "-"])
        .current_dir(dir.path())
        .output()
        .expect("pdftotext runs");
    let text = String::from_utf8_lossy(&text.stdout);
    for expected in [
        format!("Angebot {number}"),
        "Nachbearbeitung".into(),
        "11,99 €".into(),
        "71,40 €".into(),
        "Seite 1 von 1".into(),
    ] {
        assert!(text.contains(&expected), "{expected} in\n{text}");
    }

    // The draft is repriced after the quote went out: a dearer labour rate, another sales
    // value. The quote keeps what it offered.
    let res = app
        .patch(
            &format!("/api/labour-rates/{rate}"),
            &json!({"name": "Nachbearbeitung", "hourlyRate": "90"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    body["salesValue"] = json!("99");
    assert_eq!(app.patch(&print_path, &body).await.status(), 200);
    let again = app.json(&path).await;
    assert_eq!(lines(&again), lines(&sent));
    assert_eq!(again["offer"]["gross"], "71.4");

    // Sent: no more changes, no delete.
    let res = app.patch(&path, &quote(&customer, &[&id(&print)])).await;
    assert_error(res, 409, "INVALID_STATE").await;
    assert_error(app.delete(&path).await, 409, "INVALID_STATE").await;
    // The print is bound by the quote: it goes on no other.
    let res = app
        .post("/api/quotes", &quote(&customer, &[&id(&print)]))
        .await;
    assert_field_error(res, "printIds[0]", "errors.quoted").await;

    let res = app.post(&format!("{path}/accept"), &json!({})).await;
    assert_eq!(res.status(), 200);
    let accepted: Value = res.json().await.unwrap();
    assert_eq!(accepted["status"], "ACCEPTED");
    assert!(accepted["decidedAt"].is_string());
    let print = app.json(&print_path).await;
    assert_eq!(print["salesValue"], "60", "the price the customer accepted");
    assert_eq!(print["status"], "DRAFT");
    let res = app.post(&format!("{path}/decline"), &json!({})).await;
    assert_error(res, 409, "INVALID_STATE").await;

    // The next quote takes the next number of the range.
    let mut other = draft(&shop, "Zweites Teil");
    other["customerId"] = json!(customer);
    other["salesValue"] = json!("12.50");
    let other = app.create("/api/prints", &other).await;
    let second = app
        .create("/api/quotes", &quote(&customer, &[&id(&other)]))
        .await;
    let second_path = format!("/api/quotes/{}", id(&second));
    let sent = app.post(&format!("{second_path}/send"), &json!({})).await;
    let sent: Value = sent.json().await.unwrap();
    assert_eq!(
        sent["number"].as_str().unwrap(),
        number.replace("-0001", "-0002")
    );
    let res = app
        .post(&format!("{second_path}/decline"), &json!({}))
        .await;
    let declined: Value = res.json().await.unwrap();
    assert_eq!(declined["status"], "DECLINED");
    // A declined quote frees its print for a new one; a DRAFT quote is deleted.
    let third = app
        .create("/api/quotes", &quote(&customer, &[&id(&other)]))
        .await;
    let third_path = format!("/api/quotes/{}", id(&third));
    assert_eq!(app.delete(&third_path).await.status(), 204);
    assert_error(app.delete(&third_path).await, 404, "NOT_FOUND").await;

    let list = app.json("/api/quotes?status=DECLINED").await;
    assert_eq!(list["total"], 1);
    assert_eq!(list["items"][0]["id"], second["id"]);
    let list = app
        .json(&format!("/api/quotes?customerId={customer}"))
        .await;
    assert_eq!(list["total"], 2);
    let res = app.get("/api/quotes?status=MAYBE").await;
    assert_field_error(res, "status", "errors.invalidValue").await;
}

#[actix_web::test]
async fn a_quote_refuses_what_it_cannot_offer_at_the_field_at_fault() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let shop = shop(&app).await;
    let customer = id(&app.create("/api/customers", &json!({"name": "A"})).await);
    let stranger = id(&app.create("/api/customers", &json!({"name": "B"})).await);
    let mut priced = draft(&shop, "Priced");
    priced["customerId"] = json!(customer);
    priced["salesValue"] = json!("10");
    let priced = id(&app.create("/api/prints", &priced).await);
    let mut unpriced = draft(&shop, "Unpriced");
    unpriced["customerId"] = json!(customer);
    let unpriced = id(&app.create("/api/prints", &unpriced).await);
    let mut theirs = draft(&shop, "Theirs");
    theirs["customerId"] = json!(stranger);
    theirs["salesValue"] = json!("10");
    let theirs = id(&app.create("/api/prints", &theirs).await);
    let mut printing = draft(&shop, "Printing");
    printing["customerId"] = json!(customer);
    printing["salesValue"] = json!("10");
    let printing = id(&app.create("/api/prints", &printing).await);
    let res = app
        .patch(
            &format!("/api/prints/{printing}"),
            &json!({"status": "PRINTING"}),
        )
        .await;
    assert_eq!(res.status(), 200);

    let cases = [
        (
            quote(&customer, &[&unpriced]),
            "printIds[0]",
            "errors.unpriced",
        ),
        (
            quote(&customer, &[&theirs]),
            "printIds[0]",
            "errors.otherCustomer",
        ),
        (
            quote(&customer, &[&printing]),
            "printIds[0]",
            "errors.notDraft",
        ),
        (
            quote(&customer, &[&priced, &priced]),
            "printIds[1]",
            "errors.duplicate",
        ),
        (
            quote(&customer, &["0190b5a0-0000-7000-8000-000000000000"]),
            "printIds[0]",
            "errors.notFound",
        ),
        (quote(&customer, &[]), "printIds", "errors.tooFew"),
        (
            quote("0190b5a0-0000-7000-8000-000000000000", &[&priced]),
            "customerId",
            "errors.notFound",
        ),
    ];
    for (body, path, key) in cases {
        assert_field_error(app.post("/api/quotes", &body).await, path, key).await;
    }
    let mut past = quote(&customer, &[&priced]);
    past["validUntil"] = json!("2020-01-31");
    assert_field_error(
        app.post("/api/quotes", &past).await,
        "validUntil",
        "errors.inThePast",
    )
    .await;
    past["validUntil"] = json!("2026-02-30");
    assert_field_error(
        app.post("/api/quotes", &past).await,
        "validUntil",
        "errors.invalidDate",
    )
    .await;
    let many: Vec<String> = (0..101).map(|_| priced.clone()).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert_field_error(
        app.post("/api/quotes", &quote(&customer, &many)).await,
        "printIds",
        "errors.tooMany",
    )
    .await;
    // Two prints at the largest sales value: their sum leaves the money range.
    let mut huge = Vec::new();
    for name in ["Huge 1", "Huge 2"] {
        let mut body = draft(&shop, name);
        body["customerId"] = json!(customer);
        body["salesValue"] = json!("999999999999999");
        huge.push(id(&app.create("/api/prints", &body).await));
    }
    let res = app
        .post("/api/quotes", &quote(&customer, &[&huge[0], &huge[1]]))
        .await;
    assert_field_error(res, "printIds", "errors.outOfRange").await;
    assert_eq!(
        app.json("/api/quotes").await["total"],
        0,
        "nothing half-written"
    );

    let unknown = "/api/quotes/0190b5a0-0000-7000-8000-000000000000";
    assert_error(app.get(unknown).await, 404, "NOT_FOUND").await;
    let res = app.post(&format!("{unknown}/send"), &json!({})).await;
    assert_error(res, 404, "NOT_FOUND").await;
    // Only a SENT quote is accepted.
    let open = app
        .create("/api/quotes", &quote(&customer, &[&priced]))
        .await;
    let res = app
        .post(&format!("/api/quotes/{}/accept", id(&open)), &json!({}))
        .await;
    assert_error(res, 409, "INVALID_STATE").await;
    // A draft quote whose print started meanwhile is not sent: the quote is at fault, not the
    // request (which has no body), so 409 naming the quote's field.
    let res = app
        .patch(
            &format!("/api/prints/{priced}"),
            &json!({"status": "PRINTING"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let res = app
        .post(&format!("/api/quotes/{}/send", id(&open)), &json!({}))
        .await;
    let body = assert_error(res, 409, "QUOTE_OUTDATED").await;
    assert_eq!(
        body["data"]["fieldErrors"],
        json!([{"path": "printIds[0]", "messageKey": "errors.notDraft"}])
    );
    let unsent = app.json(&format!("/api/quotes/{}", id(&open))).await;
    assert_eq!(unsent["status"], "DRAFT");
    assert_eq!(unsent["number"], Value::Null);
}

#[actix_web::test]
async fn the_company_is_checked_at_each_field_and_a_small_business_quotes_without_vat() {
    let app = TestApp::spawn().await;
    app.setup().await;
    let blank = app.json("/api/settings/company").await;
    assert_eq!(blank["name"], "");
    assert_eq!(blank["paymentTermsDays"], 14);
    let company = json!({
        "name": "Musterdruck GmbH",
        "address": {"street": "Hauptstraße 1", "postalCode": "10115", "city": "Berlin", "country": "de"},
        "vatId": "DE123456789",
        "taxNumber": "30/123/45678",
        "iban": "de89 3704 0044 0532 0130 00",
        "bic": "COBADEFFXXX",
        "email": "shop@example.com",
        "phone": "+49 30 1234567",
        "paymentTermsDays": 30,
        "paymentTermsText": "Zahlbar innerhalb von 30 Tagen ohne Abzug.",
        "language": "de-DE",
        "smallBusiness": true
    });
    let res = app.patch("/api/settings/company", &company).await;
    assert_eq!(res.status(), 200);
    let saved: Value = res.json().await.unwrap();
    assert_eq!(saved["iban"], "DE89370400440532013000");
    assert_eq!(saved["address"]["country"], "DE");
    assert_eq!(saved["language"], "de-DE");
    assert_eq!(
        saved["paymentTermsText"],
        "Zahlbar innerhalb von 30 Tagen ohne Abzug."
    );
    assert_eq!(app.json("/api/settings/company").await, saved);

    for (field, value, key) in [
        (
            "iban",
            json!("DE88370400440532013000"),
            "errors.invalidIban",
        ),
        ("bic", json!("COBA"), "errors.invalidBic"),
        ("vatId", json!("123"), "errors.invalidVatId"),
        ("vatId", json!("DE12345678"), "errors.invalidVatId"),
        ("language", json!("fr-FR"), "errors.unsupportedLocale"),
        ("paymentTermsDays", json!(366), "errors.outOfRange"),
    ] {
        let mut bad = company.clone();
        bad[field] = value;
        let res = app.patch("/api/settings/company", &bad).await;
        assert_field_error(res, field, key).await;
    }
    let mut bad = company.clone();
    bad["address"]["country"] = json!("XX");
    let res = app.patch("/api/settings/company", &bad).await;
    assert_field_error(res, "address.country", "errors.invalidCountry").await;
    assert_eq!(
        app.json("/api/settings/company").await,
        saved,
        "nothing half-written"
    );

    // § 19 UStG: no VAT on the quote.
    let shop = shop(&app).await;
    let customer = id(&app.create("/api/customers", &json!({"name": "A"})).await);
    let mut body = draft(&shop, "Teil");
    body["customerId"] = json!(customer);
    body["salesValue"] = json!("10");
    let print = id(&app.create("/api/prints", &body).await);
    let quote = app
        .create("/api/quotes", &quote(&customer, &[&print]))
        .await;
    assert_eq!(quote["offer"]["vatPercent"], "0");
    assert_eq!(quote["offer"]["gross"], "10");
    assert_eq!(quote["language"], "de-DE", "the company's language");
}
