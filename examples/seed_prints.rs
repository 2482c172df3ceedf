//! Fills a data directory with a demo shop and N prints, for load runs (`benches/http/prints.sh`).
//!
//!     cargo run --release --example seed_prints -- DATA_DIR N
//!
//! The account is `bench@example.com` / `benchmark password`. Prints go through the same rule
//! functions as the API, 1,000 per write transaction; statuses, customers, printers and sales
//! values rotate, and creation dates spread over the last two years.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use actors::accounts;
use actors::passwords;
use actors::prints::{self, PrintInput};
use actors::setup;
use actors::txn;
use actors::values::Seconds;
use storage::records::{Customer, Print, PrintStatus, Role};
use storage::{Store, StoreOptions, Timestamp, repo};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().expect("DATA_DIR"));
    let count: usize = args.next().expect("N").parse().expect("N is a number");
    seed(&dir, count);
}

/// Seeds `dir` (created if missing) with the demo shop and `count` prints (`benches/alerts.rs`
/// calls this too).
pub fn seed(dir: &std::path::Path, count: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let store = Store::open(&dir.join(printcost::DATABASE_FILE), StoreOptions::default()).unwrap();

    let now = Timestamp::now();
    let txn = txn::Txn::new(store.begin_write().unwrap());
    let setup = setup::Setup {
        account: accounts::NewAccount {
            display_name: "Bench".into(),
            email: "bench@example.com".parse().unwrap(),
            password_hash: passwords::hash_password(&"benchmark password".parse().unwrap())
                .unwrap(),
            locale: "en-US".parse().unwrap(),
            role: Role::Owner,
        },
        currency: "EUR".parse().unwrap(),
        electricity_price: "0.32".parse().unwrap(),
        create_demo_data: true,
    };
    setup::setup(&txn, &setup, [0; 32], 60, now).unwrap();
    let templates: Vec<Print> = repo::all::<Print>(&txn).unwrap();
    let customers: Vec<Customer> = repo::all::<Customer>(&txn).unwrap();
    txn.commit().unwrap();

    let statuses = [
        PrintStatus::Draft,
        PrintStatus::Printing,
        PrintStatus::Printed,
        PrintStatus::Shipped,
        PrintStatus::Done,
        PrintStatus::Done,
    ];
    let two_years = 2 * 365 * 24 * 3600;
    let started = std::time::Instant::now();
    for batch in (0..count).collect::<Vec<_>>().chunks(1000) {
        let txn = txn::Txn::new(store.begin_write().unwrap());
        for &i in batch {
            let template = &templates[i % templates.len()];
            let mut input = PrintInput::from_print(&txn, template, None, false).unwrap();
            input.name = format!("Job {i} {}", template.name).parse().unwrap();
            input.customer_id = Some(customers[i % customers.len()].id);
            input.quantity = 1 + (i % 20) as u32;
            input.sales_value = (i % 3 != 0).then(|| format!("{}.50", 5 + i % 90).parse().unwrap());
            for part in &mut input.parts {
                part.hotends.iter_mut().for_each(|h| {
                    let seconds = u64::from(h.duration_seconds.get()) + (i % 600) as u64;
                    h.duration_seconds = Seconds::try_from(seconds).unwrap();
                });
                for line in &mut part.filaments {
                    let grams = *line.used_grams.get() + rust_decimal::Decimal::from(i % 50);
                    line.used_grams = grams.to_string().parse().unwrap();
                    line.spool_id = None;
                }
            }
            let created_at = now.plus_seconds(-((i as i64 * 7919) % two_years));
            let mut print = prints::create(&txn, &input, created_at).unwrap();
            let status = statuses[i % statuses.len()];
            if status != PrintStatus::Draft {
                print = prints::set_status(&txn, print.id, status, None, created_at).unwrap();
            }
            let _ = print;
        }
        txn.commit().unwrap();
    }
    println!(
        "seeded {count} prints in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
