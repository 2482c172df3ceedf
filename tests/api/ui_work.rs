//! Work in the browser (issue 46): labour rates, charges and post-processing steps (with a
//! machine) made through the inventory forms in German, and a draft with work lines saved from
//! the editor, its faults beside their fields, the lines kept on edit.

use crate::support::{created_id, draft, location, page, shop, signed_in, submit};
use serde_json::Value;

#[actix_web::test]
async fn work_is_made_through_forms_and_a_draft_carries_it_from_the_editor() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);

    let (status, list) = page(&client, &app, "/labour-rates").await;
    assert_eq!(status, 200);
    assert!(list.contains("Stundensätze"), "{list}");
    let rate = [("name", "Nachbearbeitung"), ("hourlyRate", "45,5")];
    let res = submit(&client, &app, "/labour-rates", &rate).await;
    assert_eq!(res.status().as_u16(), 303);
    let rate = created_id(location(&res));
    assert_eq!(
        app.json(&format!("/api/labour-rates/{rate}")).await["hourlyRate"],
        "45.5"
    );

    let fee = [("name", "Grundgebühr"), ("amount", "3,50"), ("per", "JOB")];
    let res = submit(&client, &app, "/charges", &fee).await;
    assert_eq!(res.status().as_u16(), 303);
    let fee = created_id(location(&res));

    // A step whose machine lacks its lifetime: the fault stands beside that field.
    let mut step = vec![
        ("name", "Waschen und Härten"),
        ("labourRateId", rate.as_str()),
        ("minutes", "2"),
        ("per", "PIECE"),
        ("machine.name", "Wash & Cure"),
        ("machine.purchasePrice", "250"),
        ("machine.averagePowerWatts", "60"),
        ("machine.minutes", "6"),
    ];
    let res = submit(&client, &app, "/post-processing-steps", &step).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(r#"id="machine.expectedLifetimeHours-fault""#),
        "{body}"
    );
    step.push(("machine.expectedLifetimeHours", "1000"));
    let res = submit(&client, &app, "/post-processing-steps", &step).await;
    assert_eq!(res.status().as_u16(), 303);
    let step = created_id(location(&res));
    let stored = app
        .json(&format!("/api/post-processing-steps/{step}"))
        .await;
    assert_eq!(stored["machine"]["expectedLifetimeHours"], "1000");
    let (_, form) = page(&client, &app, &format!("/post-processing-steps/{step}")).await;
    assert!(form.contains(r#"value="Wash &#38; Cure""#), "{form}");

    let (status, editor) = page(&client, &app, "/prints/new").await;
    assert_eq!(status, 200);
    assert!(editor.contains(r#"name="work[0].sourceId""#), "{editor}");
    assert!(editor.contains(&format!(r#"value="{fee}" data-kind="CHARGE""#)));
    let mut draft = vec![
        ("name", "Halter"),
        ("quantity", "4"),
        ("parts[0].printerId", shop.printer.as_str()),
        ("parts[0].buildPlateId", shop.plate.as_str()),
        ("parts[0].hotends[0].componentId", shop.hotend.as_str()),
        ("parts[0].hotends[0].durationMinutes", "90"),
        ("parts[0].filaments[0].filamentId", shop.filament.as_str()),
        ("parts[0].filaments[0].usedGrams", "42,5"),
        ("work[0].kind", "LABOUR"),
        ("work[0].sourceId", rate.as_str()),
        ("work[0].per", "PIECE"),
        ("work[1].kind", "CHARGE"),
        ("work[1].sourceId", fee.as_str()),
        ("work[2].kind", "STEP"),
        ("work[2].sourceId", step.as_str()),
    ];
    let res = submit(&client, &app, "/prints", &draft).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(
        body.contains(r#"data-fault-for="work[0].minutes""#),
        "{body}"
    );
    draft.push(("work[0].minutes", "7"));
    let res = submit(&client, &app, "/prints", &draft).await;
    assert_eq!(res.status().as_u16(), 303);
    let id = created_id(location(&res));
    let print: Value = app.json(&format!("/api/prints/{id}")).await;
    let costs: Vec<&str> = print["work"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["cost"].as_str().unwrap())
        .collect();
    // 7 min × 4 × 45.5 / 60; 3.50 once; 2 min × 4 × 45.5 / 60 + 0.1 + 0.00768.
    assert_eq!(costs, ["21.2333333333", "3.5", "6.1743466667"]);
    let (_, edit) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert!(edit.contains(r#"name="work[2].sourceId""#), "{edit}");
    assert!(
        edit.contains(r#"<option value="CHARGE" selected>Pauschale</option>"#),
        "{edit}"
    );
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(detail.contains("Arbeit"), "{detail}");

    // The outcome form asks for the labour's and the step's actual minutes (not the charge's),
    // prefilled with the plan.
    let res = app
        .patch(
            &format!("/api/prints/{id}"),
            &serde_json::json!({"status": "DONE"}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(
        detail.contains(r#"name="workMinutes[1].minutes""#),
        "{detail}"
    );
    assert!(
        !detail.contains(r#"name="workMinutes[2].minutes""#),
        "{detail}"
    );
    let usage = print["usages"][0]["id"].as_str().unwrap();
    let labour = print["work"][0]["id"].as_str().unwrap();
    let step_line = print["work"][2]["id"].as_str().unwrap();
    let outcome = [
        ("status", "SUCCESS"),
        ("durationMinutes", "90"),
        ("filaments[0].usageId", usage),
        ("filaments[0].usedGrams", "42,5"),
        ("workMinutes[0].workLineId", labour),
        ("workMinutes[0].minutes", "12"),
        ("workMinutes[1].workLineId", step_line),
        ("workMinutes[1].minutes", "2"),
    ];
    let res = submit(&client, &app, &format!("/prints/{id}/outcome"), &outcome).await;
    assert_eq!(res.status().as_u16(), 303);
    let done = app.json(&format!("/api/prints/{id}")).await;
    let minutes: Vec<&str> = done["outcome"]["workMinutes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["minutes"].as_str().unwrap())
        .collect();
    assert_eq!(minutes, ["12", "2"]);
}

#[actix_web::test]
async fn settings_pricing_is_set_by_its_form_and_a_draft_shows_its_price_with_vat() {
    let (app, client) = signed_in().await;
    let shop = shop(&app).await;
    let res = submit(&client, &app, "/settings/language", &[("locale", "de-DE")]).await;
    assert_eq!(res.status().as_u16(), 303);
    let (status, settings) = page(&client, &app, "/settings").await;
    assert_eq!(status, 200);
    assert!(settings.contains(r#"href="/settings/pricing""#));
    let mut rule = vec![
        ("enabled", "on"),
        ("basis", "MARGIN"),
        ("percent", "100"),
        ("minimumPerJob", ""),
        ("rounding", "CENT"),
        ("vatPercent", "19"),
    ];
    let res = submit(&client, &app, "/settings/pricing", &rule).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="percent-fault""#), "{body}");
    rule[2] = ("percent", "30");
    rule[3] = ("minimumPerJob", "2,50");
    let res = submit(&client, &app, "/settings/pricing", &rule).await;
    assert_eq!(res.status().as_u16(), 303);
    let stored = app.json("/api/settings/pricing").await;
    assert_eq!(stored["minimumPerJob"], "2.5");
    assert_eq!(stored["basis"], "MARGIN");
    let (_, form) = page(&client, &app, "/settings/pricing").await;
    assert!(form.contains(r#"value="2,5""#), "{form}");

    let print = app.create("/api/prints", &draft(&shop, "Halter")).await;
    assert_eq!(print["salesValue"], "2.55");
    let id = print["id"].as_str().unwrap();
    let (_, detail) = page(&client, &app, &format!("/prints/{id}")).await;
    assert!(detail.contains("Preisvorschlag (netto)"), "{detail}");
    assert!(detail.contains("3,03"), "gross 3.03 in German: {detail}");
    // The editor leaves a suggested sales value out, so that the next save prices anew.
    let (_, edit) = page(&client, &app, &format!("/prints/{id}/edit")).await;
    assert!(!edit.contains(r#"value="2,55""#), "{edit}");
    assert!(
        edit.contains(r#"<dl class="figures" id="preview-price">"#),
        "{edit}"
    );
    assert!(
        edit.contains(r#"<dd id="preview-suggested">2,55"#),
        "{edit}"
    );
}

#[actix_web::test]
async fn a_customers_billing_details_are_kept_through_its_form() {
    let (app, client) = signed_in().await;
    let mut form = vec![
        ("name", "Stadt Musterhausen"),
        ("discountPercent", "10"),
        ("address.street", "Rathausplatz 1"),
        ("address.postalCode", "12345"),
        ("address.city", "Musterhausen"),
        ("address.country", "XX"),
        ("vatId", "DE123456789"),
        ("language", "de-DE"),
        ("paymentTermsDays", "30"),
    ];
    let res = submit(&client, &app, "/customers", &form).await;
    assert_eq!(res.status().as_u16(), 422);
    let body = res.text().await.unwrap();
    assert!(body.contains(r#"id="address.country-fault""#), "{body}");
    form[5] = ("address.country", "de");
    let res = submit(&client, &app, "/customers", &form).await;
    assert_eq!(res.status().as_u16(), 303);
    let id = created_id(location(&res));
    let stored = app.json(&format!("/api/customers/{id}")).await;
    assert_eq!(stored["address"]["country"], "DE");
    assert_eq!(stored["paymentTermsDays"], 30);
    assert_eq!(stored["discountPercent"], "10");
    let (_, page) = page(&client, &app, &format!("/customers/{id}")).await;
    assert!(page.contains(r#"value="Rathausplatz 1""#), "{page}");
}
