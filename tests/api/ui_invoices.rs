//! Invoices in the browser (issue 47), in German: "Rechnung erstellen" on a DONE print, the
//! draft made with a shipping line typed with a decimal comma, issuing refused while the company
//! lacks its details (the page names them) and then issued with its number, the XRechnung
//! download, and a credit note made from it.

use crate::support::{created_id, draft, location, page, shop, signed_in, submit};
use serde_json::json;

#[actix_web::test]
async fn an_invoice_is_made_issued_and_cancelled_in_the_browser() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);
    let customer = app
        .create(
            "/api/customers",
            &json!({"name": "Verein", "email": "kasse@verein.example",
                    "address": {"street": "Am Markt 3", "postalCode": "80331", "city": "München", "country": "DE"}}),
        )
        .await;
    let customer = customer["id"].as_str().unwrap().to_string();
    let mut body = draft(&shop, "Pokalsockel");
    body["customerId"] = json!(customer);
    body["salesValue"] = json!("20");
    let print = app.done(&body).await;
    let print = print["id"].as_str().unwrap().to_string();

    let (_, detail) = page(&client, &app, &format!("/prints/{print}")).await;
    let link = format!("/invoices/new?customerId={customer}&amp;printId={print}");
    assert!(detail.contains(&link), "{detail}");
    let (status, form) = page(&client, &app, &link.replace("&amp;", "&")).await;
    assert_eq!(status, 200);
    assert!(
        form.contains(&format!(r#"name="printIds[]" value="{print}" checked"#)),
        "{form}"
    );

    let fields = [
        ("customerId", customer.as_str()),
        ("printIds[]", print.as_str()),
        ("extras[0].name", "Versand"),
        ("extras[0].amount", "4,90"),
    ];
    let res = submit(&client, &app, "/invoices", &fields).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    let invoice = created_id(location(&res));
    let (_, shown) = page(&client, &app, &format!("/invoices/{invoice}")).await;
    assert!(shown.contains("Entwurf"), "{shown}");
    // 20 + 4.90 = 24.90 net, 19 %: 4.731 → 4.73, 29.63 gross.
    assert!(shown.contains("29,63 €"), "{shown}");

    let issue = format!("/invoices/{invoice}/actions/issue");
    let res = submit(&client, &app, &issue, &[]).await;
    assert_eq!(res.status().as_u16(), 409);
    let refused = res.text().await.unwrap();
    assert!(refused.contains("company.iban"), "{refused}");
    let company = json!({"name": "Musterdruck GmbH", "iban": "DE89370400440532013000",
        "vatId": "DE123456789", "email": "rechnung@musterdruck.example",
        "address": {"street": "Hauptstraße 1", "postalCode": "10115", "city": "Berlin", "country": "DE"}});
    assert_eq!(
        app.patch("/api/settings/company", &company).await.status(),
        200
    );
    let res = submit(&client, &app, &issue, &[]).await;
    assert_eq!(res.status().as_u16(), 303);
    let number = app.json(&format!("/api/invoices/{invoice}")).await["number"]
        .as_str()
        .unwrap()
        .to_string();
    let (_, shown) = page(&client, &app, &format!("/invoices/{invoice}")).await;
    assert!(shown.contains(&format!("Rechnung {number}")), "{shown}");
    assert!(
        shown.contains(&format!("/api/invoices/{invoice}/xrechnung.xml")),
        "{shown}"
    );
    let (_, detail) = page(&client, &app, &format!("/prints/{print}")).await;
    let named = format!(r#"<a href="/invoices/{invoice}" id="print-invoice">{number}</a>"#);
    assert!(
        detail.contains(&named),
        "the print names its invoice: {detail}"
    );
    let (_, report) = page(&client, &app, &format!("/reports/prints/{print}")).await;
    assert!(
        report.contains(&format!(r#"<dd id="report-invoice">{number}</dd>"#)),
        "the A4 report names its invoice: {report}"
    );
    let xml = client
        .get(app.url(&format!("/api/invoices/{invoice}/xrechnung.xml")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        xml.contains(&number),
        "the browser's session downloads it: {xml}"
    );

    // A payment typed with a decimal comma; too much is refused beside its field.
    let pay = format!("/invoices/{invoice}/actions/payment");
    let too_much = [
        ("paidOn", "2026-11-01"),
        ("amount", "100"),
        ("method", "TRANSFER"),
    ];
    let res = submit(&client, &app, &pay, &too_much).await;
    assert_eq!(res.status().as_u16(), 422);
    let refused = res.text().await.unwrap();
    assert!(refused.contains(r#"id="amount-fault""#), "{refused}");
    let paid = [
        ("paidOn", "2026-11-01"),
        ("amount", "29,63"),
        ("method", "CASH"),
    ];
    let res = submit(&client, &app, &pay, &paid).await;
    assert_eq!(res.status().as_u16(), 303);
    let (_, shown) = page(&client, &app, &format!("/invoices/{invoice}")).await;
    assert!(
        shown.contains("Bezahlt") && shown.contains("Bar"),
        "{shown}"
    );
    assert!(
        !shown.contains(r#"id="payment""#),
        "nothing left to pay: {shown}"
    );
    assert_eq!(
        app.json(&format!("/api/prints/{print}")).await["paid"],
        true
    );

    let res = submit(
        &client,
        &app,
        &format!("/invoices/{invoice}/actions/credit-note"),
        &[],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    let note = created_id(location(&res));
    let (_, shown) = page(&client, &app, &format!("/invoices/{note}")).await;
    assert!(shown.contains("Gutschrift"), "{shown}");
    assert!(
        shown.contains(&format!(r#"href="/invoices/{invoice}""#)),
        "{shown}"
    );
    let (_, list) = page(&client, &app, "/invoices").await;
    assert!(
        list.contains(&number) && list.contains("Gutschrift"),
        "{list}"
    );
}

#[actix_web::test]
async fn the_number_patterns_are_set_in_the_browser_with_their_faults_beside_them() {
    let (app, client) = signed_in().await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);
    let (status, form) = page(&client, &app, "/settings/numbering").await;
    assert_eq!(status, 200);
    assert!(form.contains(r#"value="{YYYY}-{NNNN}""#), "{form}");

    let mut fields = vec![
        ("invoices.pattern", "RE-{NNNNN}"),
        ("invoices.yearly", "on"),
        ("creditNotes.own", "on"),
        ("creditNotes.pattern", "GS-{YYYY}-{NNN}"),
        ("creditNotes.yearly", "on"),
    ];
    let res = submit(&client, &app, "/settings/numbering", &fields).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="invoices.pattern-fault""#), "{body}");
    assert!(body.contains("muss das Jahr enthalten"), "{body}");
    assert!(
        body.contains(r#"value="RE-{NNNNN}""#),
        "the form keeps what was typed"
    );
    fields[0] = ("invoices.pattern", "RE-{YY}{NNNNN}");
    let res = submit(&client, &app, "/settings/numbering", &fields).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    assert_eq!(
        app.json("/api/settings/numbering").await,
        json!({"invoices": {"pattern": "RE-{YY}{NNNNN}", "yearly": true},
               "creditNotes": {"pattern": "GS-{YYYY}-{NNN}", "yearly": true}})
    );
}
