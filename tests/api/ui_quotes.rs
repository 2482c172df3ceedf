//! Quotes and the company in the browser (issue 46): Settings › Company saved in German with a
//! fault beside the IBAN; a quote put together from a customer's priced drafts, its faults
//! beside their fields; sent (the A4 document in the customer's language with the shop's name
//! and address), accepted; the list filtered by state.

use crate::support::{created_id, draft, location, page, shop, signed_in, submit};
use serde_json::json;

#[actix_web::test]
async fn a_quote_is_put_together_sent_and_accepted_in_the_browser() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);

    let mut company = vec![
        ("name", "Musterdruck GmbH"),
        ("address.street", "Hauptstraße 1"),
        ("address.postalCode", "10115"),
        ("address.city", "Berlin"),
        ("address.country", "DE"),
        ("iban", "DE88 3704 0044 0532 0130 00"),
        ("paymentTermsDays", "14"),
    ];
    let res = submit(&client, &app, "/settings/company", &company).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="iban-fault""#), "{body}");
    assert!(body.contains("Prüfziffern"), "{body}");
    assert!(
        body.contains(r#"value="Hauptstraße 1""#),
        "the form keeps what was typed"
    );
    company[5] = ("iban", "DE89 3704 0044 0532 0130 00");
    let res = submit(&client, &app, "/settings/company", &company).await;
    assert_eq!(res.status().as_u16(), 303, "{}", res.text().await.unwrap());
    let stored = app.json("/api/settings/company").await;
    assert_eq!(stored["iban"], "DE89370400440532013000");
    assert_eq!(stored["address"]["city"], "Berlin");
    let (_, form) = page(&client, &app, "/settings/company").await;
    assert!(form.contains(r#"value="Musterdruck GmbH""#), "{form}");

    let customer = app
        .create(
            "/api/customers",
            &json!({"name": "Club", "language": "en-US",
                    "address": {"street": "1 Main St", "postalCode": "12345", "city": "Springfield", "country": "US"}}),
        )
        .await;
    let customer = customer["id"].as_str().unwrap().to_string();
    let mut body = draft(&shop, "Trophy");
    body["customerId"] = json!(customer);
    body["salesValue"] = json!("20");
    let trophy = app.create("/api/prints", &body).await;
    let trophy = trophy["id"].as_str().unwrap().to_string();
    let mut body = draft(&shop, "Unpriced");
    body["customerId"] = json!(customer);
    app.create("/api/prints", &body).await;

    let (status, form) = page(&client, &app, &format!("/quotes/new?customerId={customer}")).await;
    assert_eq!(status, 200);
    assert!(form.contains("Trophy"), "{form}");
    assert!(
        !form.contains("Unpriced"),
        "a draft without a price is not offered: {form}"
    );

    let fields = [
        ("customerId", customer.as_str()),
        ("validUntil", "2099-12-31"),
    ];
    let res = submit(&client, &app, "/quotes", &fields).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="printIds-fault""#), "{body}");
    let fields = [
        ("customerId", customer.as_str()),
        ("printIds[]", trophy.as_str()),
        ("validUntil", "2099-12-31"),
        ("note", "Delivery in two weeks."),
    ];
    let res = submit(&client, &app, "/quotes", &fields).await;
    assert_eq!(res.status().as_u16(), 303);
    let quote = created_id(location(&res));
    let (status, shown) = page(&client, &app, &format!("/quotes/{quote}")).await;
    assert_eq!(status, 200);
    assert!(shown.contains("Entwurf"), "{shown}");
    assert!(shown.contains("20,00 €"), "{shown}");
    assert!(shown.contains("23,80 €"), "19 % VAT: {shown}");

    let res = submit(&client, &app, &format!("/quotes/{quote}/actions/send"), &[]).await;
    assert_eq!(res.status().as_u16(), 303);
    assert_eq!(location(&res), format!("/quotes/{quote}/document"));
    let (status, document) = page(&client, &app, location(&res)).await;
    assert_eq!(status, 200);
    assert!(
        document.contains(r#"<html lang="en-US">"#),
        "the customer's language"
    );
    assert!(document.contains("Musterdruck GmbH"), "{document}");
    assert!(document.contains("10115 Berlin"), "{document}");
    assert!(document.contains("Springfield"), "{document}");
    assert!(document.contains("€23.80"), "{document}");
    assert!(document.contains("Valid until"), "{document}");
    let number = app.json(&format!("/api/quotes/{quote}")).await["number"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(document.contains(&number), "{document}");
    let (_, shown) = page(&client, &app, &format!("/quotes/{quote}")).await;
    assert!(
        shown.contains(&format!(r#"<a href="/prints/{trophy}">Trophy</a>"#)),
        "{shown}"
    );

    let res = submit(
        &client,
        &app,
        &format!("/quotes/{quote}/actions/delete"),
        &[],
    )
    .await;
    assert_eq!(res.status().as_u16(), 409, "a sent quote is not deleted");
    let res = submit(
        &client,
        &app,
        &format!("/quotes/{quote}/actions/accept"),
        &[],
    )
    .await;
    assert_eq!(res.status().as_u16(), 303);
    assert_eq!(
        app.json(&format!("/api/quotes/{quote}")).await["status"],
        "ACCEPTED"
    );

    let (status, list) = page(&client, &app, "/quotes?status=ACCEPTED").await;
    assert_eq!(status, 200);
    assert!(list.contains(&number), "{list}");
    assert!(list.contains("Angenommen"), "{list}");
    let (_, list) = page(&client, &app, "/quotes?status=DECLINED").await;
    assert!(!list.contains(&number), "{list}");
}
