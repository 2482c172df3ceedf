//! Read planning: which requests one poll of a source sends.
//!
//! Readable points (everything but `write_only`) of one kind are sorted by address and coalesced
//! into as few requests as possible: a request grows while the next point starts inside or right
//! after it (gaps are not read: unmapped addresses make many devices answer with an exception) and
//! while it stays within the limit, 125 registers (or the source's lower
//! `max_registers_per_request`) or 2,000 coils or discrete inputs. A point is never split.

use super::config::{Access, Kind, PointConfig, SourceConfig};
use std::collections::HashMap;
use std::sync::Arc;

/// Most registers one read may ask for (Modbus, FC3/FC4).
pub const MAX_REGISTERS: u16 = 125;
/// Most bits one read may ask for (Modbus, FC1/FC2).
pub const MAX_BITS: u16 = 2000;

/// One read request and the points it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    /// Object kind (decides the function code).
    pub kind: Kind,
    /// First address.
    pub address: u16,
    /// Registers or bits asked for.
    pub count: u16,
    /// Indices of the points it serves, into the source's `points`.
    pub points: Vec<usize>,
}

impl Read {
    fn end(&self) -> u32 {
        u32::from(self.address) + u32::from(self.count)
    }
}

/// The reads of one poll of `points`, `register_cap` limiting register reads (1-125).
pub fn plan(points: &[PointConfig], register_cap: u16) -> Vec<Read> {
    plan_due(points, register_cap, |_| true)
}

/// The reads of one poll of the points whose index `due` accepts (a tick on which only some
/// points' periods come round), coalesced as [`plan`] does; indices stay those of `points`.
pub fn plan_due(
    points: &[PointConfig],
    register_cap: u16,
    due: impl Fn(usize) -> bool,
) -> Vec<Read> {
    let mut readable: Vec<(usize, &PointConfig)> = points
        .iter()
        .enumerate()
        .filter(|(i, p)| p.access() != Access::WriteOnly && due(*i))
        .collect();
    readable.sort_by_key(|(i, p)| (p.kind as u8, p.address, *i));
    let mut reads: Vec<Read> = Vec::new();
    for (index, point) in readable {
        let cap = if point.kind.is_bit() {
            MAX_BITS
        } else {
            register_cap.clamp(1, MAX_REGISTERS)
        };
        let (start, end) = (
            u32::from(point.address),
            u32::from(point.address) + u32::from(point.count()),
        );
        if let Some(last) = reads
            .last_mut()
            .filter(|r| r.kind == point.kind && start <= r.end())
        {
            let grown = end.max(last.end()) - u32::from(last.address);
            if grown <= u32::from(cap) {
                last.count = grown as u16;
                last.points.push(index);
                continue;
            }
        }
        reads.push(Read {
            kind: point.kind,
            address: point.address,
            count: point.count(),
            points: vec![index],
        });
    }
    reads
}

/// Which reads each tick of a source's poller sends when its points have poll periods of their
/// own ([`PointConfig::poll_interval_ms`]): the poller ticks every [`SourceConfig::tick_ms`], a
/// point of `k` ticks is due on every `k`-th tick (all of them on the first), and the points due
/// on one tick are coalesced together. A tick's plan is made once per set of due periods.
#[derive(Debug)]
pub struct Schedule {
    /// Each point's period in ticks (0: never read, a write-only point).
    every: Vec<u64>,
    /// The distinct periods, ascending.
    periods: Vec<u64>,
    /// Register cap of the source's reads.
    cap: u16,
    /// Ticks so far.
    tick: u64,
    /// Plans by which of `periods` are due.
    plans: HashMap<Vec<bool>, Arc<Vec<Read>>>,
}

impl Schedule {
    /// The schedule of `source`'s points.
    pub fn new(source: &SourceConfig) -> Schedule {
        let tick = source.tick_ms().max(1);
        let every: Vec<u64> = source
            .points
            .iter()
            .map(|p| match p.access() {
                Access::WriteOnly => 0,
                _ => (p.interval_ms(source) / tick).max(1),
            })
            .collect();
        let mut periods: Vec<u64> = every.iter().copied().filter(|&k| k > 0).collect();
        periods.sort_unstable();
        periods.dedup();
        Schedule {
            every,
            periods,
            cap: source.max_registers_per_request.unwrap_or(MAX_REGISTERS),
            tick: 0,
            plans: HashMap::new(),
        }
    }

    /// The reads of the next tick of a poller of `points` (the points this schedule was made
    /// for), and on to the tick after it.
    pub fn next(&mut self, points: &[PointConfig]) -> Arc<Vec<Read>> {
        let tick = self.tick;
        self.tick = self.tick.wrapping_add(1);
        let due: Vec<bool> = self
            .periods
            .iter()
            .map(|k| tick.is_multiple_of(*k))
            .collect();
        if let Some(reads) = self.plans.get(&due) {
            return reads.clone();
        }
        let due_periods: Vec<u64> = self
            .periods
            .iter()
            .zip(&due)
            .filter(|(_, due)| **due)
            .map(|(k, _)| *k)
            .collect();
        let every = &self.every;
        let reads = Arc::new(plan_due(points, self.cap, |i| {
            due_periods.contains(&every[i])
        }));
        self.plans.insert(due, reads.clone());
        reads
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bridge::config::{DataType, Encoding, parse};

    fn point(kind: Kind, address: u16, data_type: DataType) -> PointConfig {
        PointConfig {
            name: format!("p{address}"),
            topic: format!("p{address}"),
            address,
            kind,
            data_type,
            access: None,
            count: None,
            encoding: Encoding::default(),
            scale: None,
            offset: None,
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

    #[test]
    fn adjacent_points_of_one_kind_share_a_request() {
        let points = vec![
            point(Kind::Holding, 3, DataType::F32),
            point(Kind::Holding, 0, DataType::U32),
            point(Kind::Holding, 2, DataType::U16),
            point(Kind::Holding, 10, DataType::U16),
            point(Kind::Input, 0, DataType::U16),
            point(Kind::Coil, 0, DataType::Bool),
            point(Kind::Coil, 1, DataType::Bool),
        ];
        let reads = plan(&points, 125);
        let shape: Vec<(Kind, u16, u16, Vec<usize>)> = reads
            .into_iter()
            .map(|r| (r.kind, r.address, r.count, r.points))
            .collect();
        assert_eq!(
            shape,
            vec![
                (Kind::Coil, 0, 2, vec![5, 6]),
                (Kind::Holding, 0, 5, vec![1, 2, 0]),
                (Kind::Holding, 10, 1, vec![3]),
                (Kind::Input, 0, 1, vec![4]),
            ]
        );
    }

    #[test]
    fn limits_split_between_points_never_inside_one() {
        let points: Vec<PointConfig> = (0..5)
            .map(|n| point(Kind::Holding, n * 2, DataType::U32))
            .collect();
        let reads = plan(&points, 5);
        assert_eq!(
            reads
                .iter()
                .map(|r| (r.address, r.count))
                .collect::<Vec<_>>(),
            vec![(0, 4), (4, 4), (8, 2)]
        );
        let coils: Vec<PointConfig> = (0..2500)
            .map(|n| point(Kind::Coil, n, DataType::Bool))
            .collect();
        let reads = plan(&coils, 125);
        assert_eq!(
            reads.iter().map(|r| r.count).collect::<Vec<_>>(),
            vec![2000, 500]
        );
        let registers: Vec<PointConfig> = (0..300)
            .map(|n| point(Kind::Input, n, DataType::U16))
            .collect();
        assert_eq!(
            plan(&registers, 200)
                .iter()
                .map(|r| r.count)
                .collect::<Vec<_>>(),
            vec![125, 125, 50],
            "125 at most"
        );
    }

    #[test]
    fn points_with_periods_of_their_own_are_read_on_their_ticks_together() {
        let yaml = "mqtt: {host: h}\nsources:\n  - id: meter\n    host: h\n    unit_id: 1\n    poll_interval_ms: 1000\n    points:\n      - {name: power, topic: power, address: 12, kind: input, data_type: f32}\n      - {name: energy, topic: energy, address: 14, kind: input, data_type: f32, poll_interval_ms: 3000}\n      - {name: hours, topic: hours, address: 100, kind: input, data_type: u16, poll_interval_ms: 2000}\n";
        let source = parse("c.yml", yaml).unwrap().sources[0].clone();
        assert_eq!(source.tick_ms(), 1000);
        let mut schedule = Schedule::new(&source);
        let ticks: Vec<Vec<(u16, u16, Vec<usize>)>> = (0..7)
            .map(|_| {
                schedule
                    .next(&source.points)
                    .iter()
                    .map(|r| (r.address, r.count, r.points.clone()))
                    .collect()
            })
            .collect();
        let power = (12, 2, vec![0]);
        let power_energy = (12, 4, vec![0, 1]);
        let hours = (100, 1, vec![2]);
        assert_eq!(
            ticks,
            vec![
                vec![power_energy.clone(), hours.clone()],
                vec![power.clone()],
                vec![power.clone(), hours.clone()],
                vec![power_energy.clone()],
                vec![power.clone(), hours.clone()],
                vec![power.clone()],
                vec![power_energy, hours],
            ],
            "energy every third tick, coalesced with power then; hours every second"
        );
    }

    #[test]
    fn write_only_points_are_not_read() {
        let mut only_written = point(Kind::Holding, 0, DataType::U16);
        only_written.access = Some(Access::WriteOnly);
        let reads = plan(&[only_written, point(Kind::Holding, 1, DataType::U16)], 125);
        assert_eq!(reads.len(), 1);
        assert_eq!((reads[0].address, reads[0].points.clone()), (1, vec![1]));
    }
}
