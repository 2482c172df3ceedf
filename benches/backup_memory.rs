//! Memory of a checked backup (`Store::backup_checked`, what the nightly run and
//! `POST /api/backups` take) of a store of some tens of MB, in a process that holds the store open
//! as the service does (the service's default 4 MiB page cache). Prints the store's size, the
//! resident set before, its peak during and what stays after, from `/proc/self/status` (`VmRSS`,
//! `VmHWM`). Not a timed test: run it by hand, `cargo bench --bench backup_memory`
//! (`CUSTOMERS=N`, default 80,000 customers of about 300 bytes each: a store of about 30 MB).

use actors::inventory::Kind;
use actors::inventory::customers::{BillingInput, CustomerInput, Customers};
use actors::txn::Txn;
use storage::{Store, StoreOptions, Timestamp};

#[path = "support/proc_status.rs"]
mod proc_status;

/// A store at `path` of `customers` customers made by the API's rule function, 1,000 to a
/// transaction.
fn seed(path: &std::path::Path, customers: usize) {
    let store = Store::open(path, StoreOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let now = Timestamp(1_700_000_000);
    for chunk in 0..customers.div_ceil(1000) {
        let txn = Txn::new(store.begin_write().unwrap_or_else(|e| panic!("{e}")));
        for k in 0..1000.min(customers - chunk * 1000) {
            let input = CustomerInput {
                name: parsed(format!("Customer {chunk}-{k}")),
                email: Some(parsed(format!("c{chunk}-{k}@example.com"))),
                note: Some(parsed(
                    "a regular who prints brackets and spare parts ".repeat(6),
                )),
                exclude_from_dashboard: false,
                discount_percent: None,
                billing: BillingInput::default(),
            };
            Customers::create(&txn, &input, now).unwrap_or_else(|e| panic!("{e}"));
        }
        txn.commit().unwrap_or_else(|e| panic!("{e}"));
    }
}

/// `text` as the value a field of the API takes.
fn parsed<T: std::str::FromStr<Err: std::fmt::Debug>>(text: String) -> T {
    text.parse().unwrap_or_else(|e| panic!("{e:?}"))
}

/// Opens the store at `path` as the service does and takes two checked backups beside it.
fn back_up(path: &std::path::Path) {
    let options = StoreOptions {
        cache_bytes: 4 * 1024 * 1024,
    };
    let store = Store::open(path, options).unwrap_or_else(|e| panic!("{e}"));
    let opened = proc_status::kib("VmRSS:");
    for night in 1..=2 {
        let target = path.with_file_name(format!("backup-{night}.redb"));
        let entries = store
            .backup_checked(&target)
            .unwrap_or_else(|e| panic!("{e}"));
        println!(
            "backup {night}: {entries} entries; RSS {opened} KiB before the first, peak {} KiB, {} KiB after",
            proc_status::kib("VmHWM:"),
            proc_status::kib("VmRSS:")
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, mode, path, ..] = args.as_slice()
        && mode == "back-up"
    {
        back_up(std::path::Path::new(path));
        return;
    }
    let customers: usize = std::env::var("CUSTOMERS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(80_000);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("printcost.redb");
    seed(&path, customers);
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    println!("a store of {customers} customers: {size} bytes");
    // The backups in a process of their own, so that the seeding's memory is not counted.
    let me = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
    let out = std::process::Command::new(me)
        .arg("back-up")
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
}
