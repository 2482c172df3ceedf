//! This process's memory as the kernel counts it, for the benches and examples that measure it
//! (included with `#[path]`: `benches/zip_directory.rs`, `benches/backup_memory.rs`,
//! `examples/history_queue.rs`).

/// A line of `/proc/self/status` in KiB: `VmRSS:` (resident now) or `VmHWM:` (the peak so
/// far); 0 where there is no such file.
pub fn kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kib| kib.parse().ok())
        })
        .unwrap_or(0)
}
