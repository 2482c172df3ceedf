//! What the bridge's history queue costs on disk and per write: appends `--samples` samples of
//! `--points` points (one batch per poll, as the pollers hand them over), then reads the file's
//! size, the time of a batch and the process's resident memory (the queue's page cache holds
//! what it writes only up to its bound).
//!
//! ```sh
//! cargo run --release --example history_queue -- --points 100 --samples 1000000
//! ```
//!
//! A day of 100 points every second is 8,640,000 samples: the figure per sample times that.

use actors::bridge::history::{Queue, Sample};
use actors::bridge::link::Topic;
use clap::Parser;
use std::time::Instant;

#[path = "../benches/support/proc_status.rs"]
mod proc_status;

/// The run's settings.
#[derive(Parser)]
struct Args {
    /// Points sampled by each poll (one batch each).
    #[arg(long, default_value_t = 100)]
    points: usize,
    /// Samples appended in all.
    #[arg(long, default_value_t = 1_000_000)]
    samples: u64,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("history.redb");
    let mut queue = Queue::open(&path, args.samples)?;
    let topics: Vec<Topic> = (0..args.points)
        .map(|p| Topic::new(&format!("modbus/meter{}/power{p}/history", p / 10)))
        .collect();
    let mut ts = 1_764_434_400_000i64;
    let mut written = 0u64;
    let mut batch_times = Vec::new();
    while written < args.samples {
        let batch: Vec<Sample> = topics
            .iter()
            .enumerate()
            .map(|(p, topic)| Sample {
                topic: topic.clone(),
                ts,
                value: format!("{}.{}", 200 + (ts / 1000 + p as i64) % 50, p % 10)
                    .into_bytes()
                    .into(),
            })
            .collect();
        let started = Instant::now();
        queue.append(&batch)?;
        batch_times.push(started.elapsed());
        written += batch.len() as u64;
        ts += 1000;
    }
    batch_times.sort();
    let size = std::fs::metadata(&path)?.len();
    let per_sample = size as f64 / written as f64;
    println!(
        "{written} samples of {} points: file {:.1} MiB, {per_sample:.1} bytes a sample; a day of 100 points every second {:.0} MiB",
        args.points,
        size as f64 / 1_048_576.0,
        per_sample * 8_640_000.0 / 1_048_576.0
    );
    println!(
        "a batch (one durable transaction): median {:?}, p99 {:?}",
        batch_times[batch_times.len() / 2],
        batch_times[batch_times.len() * 99 / 100]
    );
    println!(
        "resident: {} KiB at the end, {} KiB at the peak",
        proc_status::kib("VmRSS:"),
        proc_status::kib("VmHWM:")
    );
    Ok(())
}
