//! Bridge codec: decoding registers to JSON and encoding writes, per point.
//!
//!     cargo bench --bench codec
#![allow(clippy::unwrap_used, missing_docs)]

use actors::bridge::codec::{decode_registers, encode};
use actors::bridge::config::{DataType, Encoding, Kind, Order, PointConfig};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;

fn point(data_type: DataType, count: Option<u16>, scale: Option<f64>) -> PointConfig {
    PointConfig {
        name: "p".into(),
        topic: "p".into(),
        address: 0,
        kind: Kind::Holding,
        data_type,
        access: None,
        count,
        encoding: Encoding {
            byte_order: Order::Little,
            word_order: Order::Little,
        },
        scale,
        offset: scale.map(|_| -40.0),
        retain: true,
        publish_mode: None,
        deadband: None,
        bit: None,
        unit_of_measurement: None,
        device_class: None,
        state_class: None,
        poll_interval_ms: None,
        history: false,
    }
}

fn bench_codec(c: &mut Criterion) {
    let mut group = c.benchmark_group("codec");
    let cases = [
        ("u16", point(DataType::U16, None, None), vec![0x3412]),
        (
            "i16 scaled",
            point(DataType::I16, None, Some(0.1)),
            vec![0x8F02],
        ),
        (
            "f32",
            point(DataType::F32, None, None),
            vec![0x0FDB, 0x4049],
        ),
        (
            "u32 scaled",
            point(DataType::U32, None, Some(0.01)),
            vec![0x0002, 0x0001],
        ),
        (
            "string x8",
            point(DataType::String, Some(8), None),
            vec![0x4142; 8],
        ),
    ];
    for (name, p, registers) in &cases {
        group.bench_function(format!("decode {name}"), |b| {
            b.iter(|| decode_registers(black_box(p), black_box(registers)))
        });
    }
    let writes = [
        ("u16", point(DataType::U16, None, None), json!(4660)),
        (
            "i16 scaled",
            point(DataType::I16, None, Some(0.1)),
            json!(25.5),
        ),
        ("f32", point(DataType::F32, None, None), json!(21.875)),
    ];
    for (name, p, value) in &writes {
        group.bench_function(format!("encode {name}"), |b| {
            b.iter(|| encode(black_box(p), black_box(value)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_codec);
criterion_main!(benches);
