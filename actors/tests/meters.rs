//! The meters' recorder against the embedded broker with a real MQTT client publishing: a
//! Tasmota plug (`ENERGY.Total`, kWh) and a Shelly Gen2 (`aenergy.total`, Wh) linked to two
//! printers, a bare number on a bridge point's topic linked later (the recorder told to
//! reload), and a message without a counter ignored. Each meter's live reading follows every
//! message; its first reading is kept (then one a minute), durably, in its history.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::bridge::{broker, config};
use actors::inventory::Kind;
use actors::inventory::printers::{ManufacturerRef, PrinterInput, Printers};
use actors::meters::history::Sample;
use actors::meters::links::{LinkMeter, MeterOf, MeterReadings};
use actors::prints::PrintIndex;
use actors::runtime::reader::Reader;
use actors::runtime::recorder::Recorder;
use actors::runtime::writer::Writers;
use actors::txn::Txn;
use actors::values;
use jiff::tz::TimeZone;
use rumqttc::{AsyncClient, MqttOptions, QoS};
use rust_decimal::Decimal;
use std::sync::Arc;
use std::time::Duration;
use storage::records::{EnergyUnit, MeterLink, MeterSource};
use storage::{Id, Store, StoreOptions, Timestamp};

#[path = "support/device.rs"]
mod device;
use device::free_address;

fn d(text: &str) -> Decimal {
    text.parse().unwrap()
}

fn printer(store: &Store, name: &str) -> Id {
    let txn = Txn::new(store.begin_write().unwrap());
    let input = PrinterInput {
        name: name.parse().unwrap(),
        manufacturer: ManufacturerRef::Name("Prusa Research".parse().unwrap()),
        model: None,
        purchase_price: "999".parse().unwrap(),
        expected_lifetime_hours: "5000".parse().unwrap(),
        average_power_watts: values::Watts::try_from(120u64).unwrap(),
        note: None,
        technology: None,
    };
    let id = Printers::create(&txn, &input, Timestamp::now())
        .unwrap()
        .printer
        .id;
    txn.commit().unwrap();
    id
}

fn link(source: MeterSource, unit: EnergyUnit) -> Option<MeterLink> {
    Some(MeterLink {
        source,
        unit,
        updated_at: Timestamp::now(),
    })
}

/// Waits up to 10 s for `printer`'s live reading to be `kwh`.
async fn live_is(recorder: &Recorder, printer: Id, kwh: &str) -> Sample {
    for _ in 0..100 {
        if let Some(sample) = recorder.live.of(printer)
            && sample.kwh == d(kwh)
        {
            return sample;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "no live reading of {kwh} kWh: {:?}",
        recorder.live.of(printer)
    );
}

#[actix_rt::test]
async fn linked_meters_are_read_from_the_broker_and_their_readings_kept() {
    let address = free_address();
    broker::start(address).unwrap();
    let yaml = format!(
        "mqtt:\n  host: 127.0.0.1\n  port: {}\n  base_topic: shop\n  client_id: printcost-test\nsources:\n  - id: sdm120\n    host: 127.0.0.1\n    port: 1502\n    unit_id: 1\n    points:\n      - {{name: Import energy, topic: import_kwh, address: 72, kind: input, data_type: f32}}\n",
        address.port()
    );
    let bridge = config::parse("meters.yml", &yaml).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
    let index = Arc::new(PrintIndex::load(&store, TimeZone::UTC).unwrap());
    let (writers, _arbiters) = Writers::start(&store, &index);
    let reader = Reader::new(store.clone(), index.clone());
    let (mk4, p1s, xl) = (
        printer(&store, "MK4S"),
        printer(&store, "P1S"),
        printer(&store, "XL"),
    );
    let tasmota = MeterSource::Mqtt {
        topic: "tele/plug-mk4/SENSOR".into(),
        json_path: Some("ENERGY.Total".into()),
    };
    let shelly = MeterSource::Mqtt {
        topic: "shellyplug-p1s/status/switch:0".into(),
        json_path: Some("aenergy.total".into()),
    };
    writers
        .send(LinkMeter {
            printer: mk4,
            link: link(tasmota, EnergyUnit::Kwh),
        })
        .await
        .unwrap();
    writers
        .send(LinkMeter {
            printer: p1s,
            link: link(shelly, EnergyUnit::Wh),
        })
        .await
        .unwrap();
    let recorder = Recorder::start(reader.clone(), writers.clone(), &bridge);

    let mut options = MqttOptions::new("devices", "127.0.0.1", address.port());
    options.set_keep_alive(Duration::from_secs(5));
    let (devices, mut events) = AsyncClient::new(options, 16);
    tokio::spawn(async move { while events.poll().await.is_ok() {} });
    let publish = |topic: &'static str, payload: String| {
        let devices = devices.clone();
        async move {
            devices
                .publish(topic, QoS::AtLeastOnce, false, payload)
                .await
                .unwrap();
        }
    };
    // The recorder subscribes once it is connected: publish until the first reading is live.
    let tasmota_message = |total: &str| {
        format!(r#"{{"Time":"2026-11-27T10:00:00","ENERGY":{{"Total":{total},"Power":118}}}}"#)
    };
    for _ in 0..50 {
        publish("tele/plug-mk4/SENSOR", tasmota_message("12.345")).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        if recorder.live.of(mk4).is_some() {
            break;
        }
    }
    live_is(&recorder, mk4, "12.345").await;
    publish(
        "shellyplug-p1s/status/switch:0",
        r#"{"id":0,"apower":98.5,"aenergy":{"total":45678.9}}"#.into(),
    )
    .await;
    live_is(&recorder, p1s, "45.6789").await;
    // A message without the counter changes nothing; a newer one is live at once.
    publish("tele/plug-mk4/SENSOR", r#"{"ENERGY":{}}"#.into()).await;
    publish("tele/plug-mk4/SENSOR", tasmota_message("12.351")).await;
    live_is(&recorder, mk4, "12.351").await;

    // The first reading of each meter is kept (the next ones within a minute are not).
    let (kept, _) = reader.query(MeterOf(mk4)).await.unwrap().unwrap();
    assert_eq!(kept.unit, EnergyUnit::Kwh);
    let all = |printer| MeterReadings {
        printer,
        from: Timestamp(0),
        to: Timestamp(i64::from(u32::MAX)),
    };
    let history = reader.query(all(mk4)).await.unwrap();
    assert_eq!(
        history.iter().map(|s| s.kwh).collect::<Vec<_>>(),
        vec![d("12.345")]
    );
    let history = reader.query(all(p1s)).await.unwrap();
    assert_eq!(
        history.iter().map(|s| s.kwh).collect::<Vec<_>>(),
        vec![d("45.6789")]
    );

    // A bridge point linked later: the recorder subscribes it when told to reload.
    let point = MeterSource::BridgePoint {
        source: "sdm120".into(),
        point: "Import energy".into(),
    };
    writers
        .send(LinkMeter {
            printer: xl,
            link: link(point, EnergyUnit::Kwh),
        })
        .await
        .unwrap();
    recorder.reload();
    for _ in 0..50 {
        publish("shop/sdm120/import_kwh", "1234.5".into()).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        if recorder.live.of(xl).is_some() {
            break;
        }
    }
    live_is(&recorder, xl, "1234.5").await;
    let (_, last) = reader.query(MeterOf(xl)).await.unwrap().unwrap();
    assert_eq!(last.map(|s| s.kwh), Some(d("1234.5")));
}
