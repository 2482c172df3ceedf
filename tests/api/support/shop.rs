//! A shop to price prints from: a manufacturer, a printer, hotend, build plate and other
//! component, a filament and a customer, made through the API; and draft bodies over it.

use super::TestApp;
use serde_json::{Value, json};

/// The inventory of the reference example (docs/costing.md).
pub struct Shop {
    pub maker: String,
    pub printer: String,
    pub hotend: String,
    pub plate: String,
    pub belts: String,
    pub filament: String,
    pub customer: String,
}

pub async fn shop(app: &TestApp) -> Shop {
    let maker = app.manufacturer("Reference Works").await;
    let id = |v: Value| v["id"].as_str().unwrap().to_string();
    let printer = id(app
        .create("/api/printers", &json!({"name": "Ref printer", "manufacturerId": maker, "purchasePrice": "1200", "expectedLifetimeHours": "6000", "averagePowerWatts": 120}))
        .await);
    let component = |kind: &str, name: &str, price: &str, hours: &str| json!({"type": kind, "name": name, "purchasePrice": price, "expectedLifetimeHours": hours});
    let hotend = id(app
        .create(
            "/api/components",
            &component("HOTEND", "Ref hotend", "100", "2000"),
        )
        .await);
    let plate = id(app
        .create(
            "/api/components",
            &component("BUILD_PLATE", "Ref plate", "60", "1200"),
        )
        .await);
    let belts = id(app
        .create(
            "/api/components",
            &component("OTHER", "Belts", "45", "3000"),
        )
        .await);
    let filament = id(app
        .create(
            "/api/filaments",
            &json!({"manufacturerId": maker, "material": "PLA", "colorName": "Black", "colorHex": "#000000", "purchasePrice": "29.99", "netWeightGrams": "1000"}),
        )
        .await);
    let customer = id(app
        .create("/api/customers", &json!({"name": "Jane Doe"}))
        .await);
    Shop {
        maker,
        printer,
        hotend,
        plate,
        belts,
        filament,
        customer,
    }
}

pub fn part(shop: &Shop, seconds: u32, grams: &str) -> Value {
    json!({
        "printerId": shop.printer,
        "buildPlateId": shop.plate,
        "hotends": [{"componentId": shop.hotend, "durationSeconds": seconds}],
        "filaments": [{"filamentId": shop.filament, "usedGrams": grams}]
    })
}

pub fn draft(shop: &Shop, name: &str) -> Value {
    json!({"name": name, "parts": [part(shop, 5400, "42.5")]})
}

pub fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
