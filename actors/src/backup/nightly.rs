//! The nightly backup: at the schedule's minute (instance time zone) a backup of the last commit
//! is written to the schedule's folder as `printcost-YYYYMMDD-HHMMSS.redb` (UTC), checked by
//! opening it ([`storage::Store::backup_checked`]), and the folder is rotated
//! ([`super::rotation`]): only files of that name pattern are ever removed.
//!
//! [`Backups`] is the handle the scheduler (`crate::runtime::scheduler`) and the routes share: it runs one
//! backup at a time and remembers the last run's result, which Settings › Backup shows (a
//! failure stays there, and in the log, until a run succeeds). It reads nothing of the store but
//! the copy itself (a snapshot by nature): the schedule it runs by is read through the one read
//! path ([`ReadPlan`]) and handed to it.

use super::rotation;
use super::stamp;
use crate::command::SettingsWriter;
use crate::command::{Command, Query, Snapshot};
use crate::error::FieldError;
use crate::txn::Txn;
use crate::{Error, Result};
use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use storage::records::BackupSchedule;
use storage::{Store, Timestamp, repo};

/// The name of every backup file: this, the UTC stamp, [`SUFFIX`].
const PREFIX: &str = "printcost-";
/// See [`PREFIX`].
const SUFFIX: &str = ".redb";
/// The folder beside the data that backups go to when the schedule names none.
pub const DEFAULT_FOLDER: &str = "backups";

/// A backup file in the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupFile {
    /// File name, `printcost-YYYYMMDD-HHMMSS.redb`.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// When its snapshot was taken (from the name).
    pub taken_at: Timestamp,
}

/// The file name of a backup taken at `at`.
pub fn file_name(at: Timestamp) -> String {
    format!("{PREFIX}{}{SUFFIX}", stamp(at))
}

/// When the backup named `name` was taken; `None` for a name of any other pattern (such files
/// are never listed or removed).
pub fn taken_at(name: &str) -> Option<Timestamp> {
    let stamp = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    if stamp.len() != "YYYYMMDD-HHMMSS".len() {
        return None;
    }
    let at = jiff::civil::DateTime::strptime("%Y%m%d-%H%M%S", stamp).ok()?;
    let at = at.to_zoned(TimeZone::UTC).ok()?.timestamp();
    Some(Timestamp(at.as_second()))
}

/// The backups in `folder`, newest first; none when the folder does not exist. A file removed
/// while the folder is read (a rotation running beside a listing) is left out, not an error.
///
/// Errors: the folder cannot be read.
pub fn list(folder: &Path) -> std::io::Result<Vec<BackupFile>> {
    let entries = match std::fs::read_dir(folder) {
        Err(e) if gone(&e) => return Ok(Vec::new()),
        found => found?,
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(taken_at) = taken_at(&name) else {
            continue;
        };
        let meta = match entry.metadata() {
            Err(e) if gone(&e) => continue,
            meta => meta?,
        };
        if meta.is_file() {
            files.push(BackupFile {
                name,
                bytes: meta.len(),
                taken_at,
            });
        }
    }
    files.sort_by(|a, b| b.taken_at.cmp(&a.taken_at).then(b.name.cmp(&a.name)));
    Ok(files)
}

/// Whether `e` says the file or folder is not there (any more).
fn gone(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::NotFound
}

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The backup written.
    pub file: BackupFile,
    /// Entries the check found, as many as the snapshot held.
    pub entries: u64,
    /// Backups the rotation removed, by name.
    pub removed: Vec<String>,
}

/// The last run's result, as shown on Settings › Backup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRun {
    /// When it ran.
    pub at: Timestamp,
    /// The file written, or why none was.
    pub result: std::result::Result<String, String>,
}

/// What the nightly backup is decided by: its schedule and whether setup has run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// The schedule as saved.
    pub schedule: BackupSchedule,
    /// Whether setup has run (no backup of an empty box).
    pub set_up: bool,
}

/// Reads the [`Plan`]. Errors: the store cannot be read.
#[derive(Debug, Clone, Copy)]
pub struct ReadPlan;

impl Query for ReadPlan {
    type Answer = Plan;

    fn run(self, snapshot: &Snapshot<'_>) -> Result<Plan> {
        Ok(Plan {
            schedule: repo::backup_schedule(snapshot)?,
            set_up: repo::settings(snapshot)?.is_some(),
        })
    }
}

/// Why a run wrote no backup: the text names the folder and the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RunError(String);

/// The nightly backups of one store: its schedule, folder and the last run's result. Cheap to
/// clone; runs are serialised.
#[derive(Debug, Clone)]
pub struct Backups {
    store: Store,
    time_zone: TimeZone,
    data_dir: PathBuf,
    last: Arc<Mutex<Option<LastRun>>>,
    running: Arc<Mutex<()>>,
}

impl Backups {
    /// The backups of `store`, days taken in `time_zone`; the default folder lies beside the
    /// store's file (the working directory for a store in memory).
    pub fn new(store: Store, time_zone: TimeZone) -> Backups {
        let data_dir = store.dir().unwrap_or_else(|| PathBuf::from("."));
        Backups {
            store,
            time_zone,
            data_dir,
            last: Arc::default(),
            running: Arc::default(),
        }
    }

    /// The folder `schedule`'s backups go to.
    pub fn folder(&self, schedule: &BackupSchedule) -> PathBuf {
        schedule
            .folder
            .as_ref()
            .map_or_else(|| self.data_dir.join(DEFAULT_FOLDER), PathBuf::from)
    }

    /// The last run's result since the service started.
    pub fn last_run(&self) -> Option<LastRun> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Writes a backup taken `now` to `schedule`'s folder (created if missing), checks it and
    /// rotates the folder by the schedule; records the result as the last run. Blocking: the
    /// copy reads the whole store.
    ///
    /// Errors: [`RunError`] naming the folder and the cause (the folder cannot be made or
    /// written, the store cannot be read, the check failed).
    pub fn run(
        &self,
        now: Timestamp,
        schedule: &BackupSchedule,
    ) -> std::result::Result<Run, RunError> {
        let _one_at_a_time = self.running.lock().unwrap_or_else(|p| p.into_inner());
        let run = self.write(now, schedule);
        let result = match &run {
            Ok(run) => Ok(run.file.name.clone()),
            Err(e) => Err(e.to_string()),
        };
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(LastRun { at: now, result });
        run
    }

    fn write(
        &self,
        now: Timestamp,
        schedule: &BackupSchedule,
    ) -> std::result::Result<Run, RunError> {
        let folder = self.folder(schedule);
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            RunError(format!("{what} {}: {e}", folder.display()))
        };
        std::fs::create_dir_all(&folder).map_err(|e| fail("cannot create", &e))?;
        let name = file_name(now);
        let path = folder.join(&name);
        let entries = self
            .store
            .backup_checked(&path)
            .map_err(|e| fail("cannot write a checked backup to", &e))?;
        let bytes = std::fs::metadata(&path)
            .map_err(|e| fail("cannot read", &e))?
            .len();
        let files = list(&folder).map_err(|e| fail("cannot list", &e))?;
        let taken: Vec<Timestamp> = files.iter().map(|f| f.taken_at).collect();
        let today = rotation::date_of(now, &self.time_zone);
        let kept = rotation::keep(
            &taken,
            today,
            &self.time_zone,
            schedule.keep_days,
            schedule.keep_weeks,
        );
        let mut removed = Vec::new();
        for file in files {
            if file.name != name && !kept.contains(&file.taken_at) {
                match std::fs::remove_file(folder.join(&file.name)) {
                    Ok(()) => removed.push(file.name),
                    // Removed since the listing (by hand): what the rotation wanted.
                    Err(e) if gone(&e) => {}
                    Err(e) => return Err(fail(&format!("cannot remove {} from", file.name), &e)),
                }
            }
        }
        Ok(Run {
            file: BackupFile {
                name,
                bytes,
                taken_at: now,
            },
            entries,
            removed,
        })
    }

    /// Whether the nightly backup is due at `now` by `plan`, given the day of the last nightly
    /// run (`last_day`): the schedule is on, setup has run, today's minute has come and no
    /// nightly run happened today.
    pub fn due(&self, now: Timestamp, last_day: Option<Date>, plan: &Plan) -> bool {
        let (today, time) = self.local(now);
        plan.schedule.enabled
            && plan.set_up
            && time >= time_of(plan.schedule.minute_of_day)
            && last_day != Some(today)
    }

    /// The day the last nightly run counts for, at start: the newest backup's day; with none,
    /// today once today's minute has passed (a new box has its first backup the next night,
    /// not at once). A box that was off at the minute catches up at start.
    /// `schedule` is the one saved (the default when it cannot be read).
    pub fn first_last_day(&self, now: Timestamp, schedule: &BackupSchedule) -> Option<Date> {
        let newest = list(&self.folder(schedule))
            .ok()
            .and_then(|files| files.first().map(|f| f.taken_at));
        let (today, time) = self.local(now);
        match newest {
            Some(at) => Some(rotation::date_of(at, &self.time_zone)),
            None => (time >= time_of(schedule.minute_of_day)).then_some(today),
        }
    }

    /// The day of `at` in the instance time zone.
    pub fn date_of(&self, at: Timestamp) -> Date {
        self.local(at).0
    }

    fn local(&self, now: Timestamp) -> (Date, Time) {
        let zoned = jiff::Timestamp::from_second(now.0)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
            .to_zoned(self.time_zone.clone());
        (zoned.date(), zoned.time())
    }
}

/// The time of day `minute` minutes after midnight.
fn time_of(minute: u16) -> Time {
    let minute = minute.min(24 * 60 - 1);
    Time::new((minute / 60) as i8, (minute % 60) as i8, 0, 0).unwrap_or_default()
}

/// The schedule as entered on Settings › Backup or `PUT /api/backups/schedule`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleInput {
    /// Whether the nightly backup runs.
    pub enabled: bool,
    /// `HH:MM`, 24-hour, instance time zone.
    pub time: String,
    /// An absolute folder, or none (or empty) for the default beside the data.
    pub folder: Option<String>,
    /// Days kept, 1–366.
    pub keep_days: u32,
    /// Weeks kept, 0–260.
    pub keep_weeks: u32,
}

impl ScheduleInput {
    /// The schedule, once every field is valid and the folder can be made and written by this
    /// process (checked by creating it and a probe file in it). Blocking (file system).
    ///
    /// Errors: [`Error::Validation`] listing `time` (`errors.invalidTime`), `folder`
    /// (`errors.notAbsolute`, `errors.folderNotWritable`), `keepDays` and `keepWeeks`
    /// (`errors.outOfRange`).
    pub fn validate(&self) -> Result<BackupSchedule> {
        let mut faults = Vec::new();
        let minute_of_day = parse_time(&self.time);
        if minute_of_day.is_none() {
            faults.push(FieldError::new("time", "errors.invalidTime"));
        }
        let folder = self
            .folder
            .as_deref()
            .map(str::trim)
            .filter(|f| !f.is_empty());
        if let Some(folder) = folder {
            if !Path::new(folder).is_absolute() {
                faults.push(FieldError::new("folder", "errors.notAbsolute"));
            } else if !writable(Path::new(folder)) {
                faults.push(FieldError::new("folder", "errors.folderNotWritable"));
            }
        }
        let keep_days = u16::try_from(self.keep_days)
            .ok()
            .filter(|d| (1..=366).contains(d));
        if keep_days.is_none() {
            faults.push(FieldError::new("keepDays", "errors.outOfRange"));
        }
        let keep_weeks = u16::try_from(self.keep_weeks).ok().filter(|w| *w <= 260);
        if keep_weeks.is_none() {
            faults.push(FieldError::new("keepWeeks", "errors.outOfRange"));
        }
        match (minute_of_day, keep_days, keep_weeks) {
            (Some(minute_of_day), Some(keep_days), Some(keep_weeks)) if faults.is_empty() => {
                Ok(BackupSchedule {
                    enabled: self.enabled,
                    minute_of_day,
                    folder: folder.map(str::to_owned),
                    keep_days,
                    keep_weeks,
                })
            }
            _ => Err(Error::Validation(faults)),
        }
    }
}

/// `HH:MM` as minutes after midnight.
fn parse_time(text: &str) -> Option<u16> {
    let (hours, minutes) = text.split_once(':')?;
    let digits = |s: &str, max: u16| {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u16>().ok())
            .flatten()
            .filter(|v| *v <= max)
    };
    Some(digits(hours, 23)? * 60 + digits(minutes, 59)?)
}

/// `minute_of_day` as `HH:MM`.
pub fn format_time(minute_of_day: u16) -> String {
    format!("{:02}:{:02}", minute_of_day / 60, minute_of_day % 60)
}

/// Whether this process can create `folder` and write a file in it.
fn writable(folder: &Path) -> bool {
    let probe = folder.join(".printcost-write-test");
    let written = std::fs::create_dir_all(folder).and_then(|()| std::fs::write(&probe, b""));
    let _ = std::fs::remove_file(&probe);
    written.is_ok()
}

/// Stores a validated schedule ([`ScheduleInput::validate`]); replies with it.
#[derive(Debug, Clone)]
pub struct SetSchedule(pub BackupSchedule);

impl Command for SetSchedule {
    type Writer = SettingsWriter;
    type Reply = BackupSchedule;

    fn apply(&mut self, txn: &Txn) -> Result<BackupSchedule> {
        repo::put_backup_schedule(txn, &self.0)?;
        Ok(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::PrintIndex;
    use storage::StoreOptions;
    use storage::records::Settings;

    const DAY: i64 = 86_400;
    /// 2026-11-02T03:00:00Z, a Monday.
    const FIRST_NIGHT: i64 = 1_793_588_400;

    fn store_in(dir: &Path) -> Store {
        Store::open(&dir.join("printcost.redb"), StoreOptions::default()).unwrap()
    }

    fn set_up(store: &Store) {
        let txn = store.begin_write().unwrap();
        repo::put_settings(
            &txn,
            &Settings {
                currency: "EUR".into(),
                default_language: "de-DE".into(),
                electricity_price: rust_decimal::Decimal::new(32, 2),
                print_series_enabled: false,
                spool_management_enabled: false,
            },
        )
        .unwrap();
        txn.commit().unwrap();
    }

    #[test]
    fn sixty_nights_leave_the_rotations_files_and_nothing_else_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let backups = Backups::new(store_in(dir.path()), TimeZone::UTC);
        let folder = dir.path().join(DEFAULT_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("notes.txt"), b"mine").unwrap();
        std::fs::write(folder.join("printcost.redb"), b"not a backup").unwrap();
        for night in 0..60 {
            let run = backups
                .run(
                    Timestamp(FIRST_NIGHT + night * DAY),
                    &BackupSchedule::default(),
                )
                .unwrap();
            assert!(folder.join(&run.file.name).is_file());
        }
        let kept: Vec<String> = list(&folder)
            .unwrap()
            .iter()
            .rev()
            .map(|f| rotation::date_of(f.taken_at, &TimeZone::UTC).to_string())
            .collect();
        // The last seven days to Thursday 2026-12-31 and the newest of the three weeks before.
        assert_eq!(
            kept,
            [
                "2026-12-13",
                "2026-12-20",
                "2026-12-25",
                "2026-12-26",
                "2026-12-27",
                "2026-12-28",
                "2026-12-29",
                "2026-12-30",
                "2026-12-31",
            ]
        );
        assert_eq!(std::fs::read(folder.join("notes.txt")).unwrap(), b"mine");
        assert!(folder.join("printcost.redb").is_file());
        let last = backups.last_run().unwrap();
        assert_eq!(last.at, Timestamp(FIRST_NIGHT + 59 * DAY));
        assert_eq!(
            last.result,
            Ok("printcost-20261231-030000.redb".to_string())
        );
    }

    #[test]
    fn a_listing_beside_files_being_removed_lists_what_is_left_and_never_fails() {
        use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().to_path_buf();
        let names: Vec<String> = (0..8)
            .map(|night| file_name(Timestamp(FIRST_NIGHT + night * DAY)))
            .collect();
        // Rounds of writing the files and removing them, until told to stop.
        let (rounds, stop) = (
            Arc::new(AtomicU32::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let churn = std::thread::spawn({
            let (folder, names) = (folder.clone(), names.clone());
            let (rounds, stop) = (rounds.clone(), stop.clone());
            move || {
                while !stop.load(Ordering::Relaxed) {
                    for name in &names {
                        std::fs::write(folder.join(name), b"backup").unwrap();
                    }
                    for name in &names {
                        std::fs::remove_file(folder.join(name)).unwrap();
                    }
                    rounds.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        let (mut listings, mut seen) = (0u32, 0usize);
        while (rounds.load(Ordering::Relaxed) < 500 || seen == 0) && listings < 1_000_000 {
            let files = list(&folder).expect("a listing beside removals");
            assert!(files.iter().all(|f| names.contains(&f.name)), "{files:?}");
            seen += files.len();
            listings += 1;
        }
        stop.store(true, Ordering::Relaxed);
        churn.join().unwrap();
        let churned = rounds.load(Ordering::Relaxed);
        assert!(
            churned >= 500 && seen > 0,
            "{churned} rounds, {seen} files seen"
        );
    }

    #[test]
    fn the_nightly_run_is_due_once_a_day_after_its_minute_once_set_up() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        let backups = Backups::new(store.clone(), TimeZone::UTC);
        let at_three = Timestamp(FIRST_NIGHT);
        let before = Timestamp(FIRST_NIGHT - 60);
        assert!(
            !backups.due(at_three, None, &plan(&store)),
            "not before setup"
        );
        set_up(&store);
        assert!(!backups.due(before, None, &plan(&store)));
        assert!(backups.due(at_three, None, &plan(&store)));
        let (today, _) = backups.local(at_three);
        assert!(
            !backups.due(at_three, Some(today), &plan(&store)),
            "once a day"
        );
        let yesterday = today.yesterday().unwrap();
        assert!(backups.due(at_three, Some(yesterday), &plan(&store)));
        let txn = store.begin_write().unwrap();
        let off = BackupSchedule {
            enabled: false,
            ..BackupSchedule::default()
        };
        repo::put_backup_schedule(&txn, &off).unwrap();
        txn.commit().unwrap();
        assert!(!backups.due(at_three, None, &plan(&store)), "switched off");
    }

    #[test]
    fn a_night_whose_minute_is_skipped_runs_after_it_and_one_whose_minute_comes_twice_runs_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_in(dir.path());
        set_up(&store);
        let txn = store.begin_write().unwrap();
        let half_past_two = BackupSchedule {
            minute_of_day: 150,
            ..BackupSchedule::default()
        };
        repo::put_backup_schedule(&txn, &half_past_two).unwrap();
        txn.commit().unwrap();
        let berlin = TimeZone::get("Europe/Berlin").unwrap();
        let backups = Backups::new(store.clone(), berlin.clone());
        let at = |utc: &str| Timestamp(utc.parse::<jiff::Timestamp>().unwrap().as_second());
        let day_of = |utc: &str| backups.date_of(at(utc));
        // 2027-03-28: 02:00 CET is 03:00 CEST, there is no 02:30.
        let before = day_of("2027-03-27T12:00:00Z");
        assert!(!backups.due(at("2027-03-28T00:59:59Z"), Some(before), &plan(&store)));
        assert!(
            backups.due(at("2027-03-28T01:00:00Z"), Some(before), &plan(&store)),
            "03:00 CEST, the first minute after the skipped one"
        );
        // 2027-10-31: 03:00 CEST is 02:00 CET, 02:30 comes twice.
        let first = "2027-10-31T00:30:00Z";
        let before = day_of("2027-10-30T12:00:00Z");
        assert!(!backups.due(at("2027-10-31T00:29:59Z"), Some(before), &plan(&store)));
        assert!(backups.due(at(first), Some(before), &plan(&store)));
        assert!(
            !backups.due(
                at("2027-10-31T01:30:00Z"),
                Some(day_of(first)),
                &plan(&store)
            ),
            "the second 02:30 (CET) of the night is not a second run"
        );
        assert_eq!(day_of(first), day_of("2027-10-31T01:30:00Z"));
    }

    /// The plan as the one read path reads it.
    fn plan(store: &Store) -> Plan {
        let index = PrintIndex::load(store, TimeZone::UTC).unwrap();
        let txn = store.begin_read().unwrap();
        ReadPlan
            .run(&Snapshot {
                txn: &txn,
                index: &index,
            })
            .unwrap()
    }

    #[test]
    fn a_new_box_waits_for_the_night_and_one_that_was_off_catches_up() {
        let dir = tempfile::tempdir().unwrap();
        let backups = Backups::new(store_in(dir.path()), TimeZone::UTC);
        let (today, _) = backups.local(Timestamp(FIRST_NIGHT));
        let schedule = BackupSchedule::default();
        assert_eq!(
            backups.first_last_day(Timestamp(FIRST_NIGHT - 60), &schedule),
            None
        );
        assert_eq!(
            backups.first_last_day(Timestamp(FIRST_NIGHT), &schedule),
            Some(today)
        );
        backups
            .run(Timestamp(FIRST_NIGHT - 3 * DAY), &schedule)
            .unwrap();
        let three_days_ago = today.checked_sub(jiff::ToSpan::days(3)).unwrap();
        assert_eq!(
            backups.first_last_day(Timestamp(FIRST_NIGHT), &schedule),
            Some(three_days_ago),
            "due at once: its day is not today"
        );
    }

    #[test]
    fn only_backup_names_have_a_time() {
        let at = Timestamp(1_795_507_509);
        assert_eq!(file_name(at), "printcost-20261124-080509.redb");
        assert_eq!(taken_at(&file_name(at)), Some(at));
        for other in [
            "printcost.redb",
            "printcost-20261124-080509.redb.partial",
            "printcost-2026112-080509.redb",
            "notes-20261124-080509.redb",
            "printcost-20261324-080509.redb",
        ] {
            assert_eq!(taken_at(other), None, "{other}");
        }
    }

    #[test]
    fn times_are_hours_and_minutes() {
        assert_eq!(parse_time("03:00"), Some(180));
        assert_eq!(parse_time("23:59"), Some(1439));
        assert_eq!(parse_time("00:00"), Some(0));
        for bad in [
            "24:00", "3:00", "03:60", "0300", "", "ab:cd", "+3:00", "03:00 ", " 03:00",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
        assert_eq!(format_time(185), "03:05");
        assert_eq!(time_of(1439), Time::constant(23, 59, 0, 0));
    }

    #[test]
    fn every_field_at_fault_is_named() {
        let input = ScheduleInput {
            enabled: true,
            time: "25:00".into(),
            folder: Some("relative/path".into()),
            keep_days: 0,
            keep_weeks: 261,
        };
        let Err(Error::Validation(faults)) = input.validate() else {
            panic!("refused");
        };
        let named: Vec<_> = faults
            .iter()
            .map(|f| (f.path.as_str(), f.message_key.as_ref()))
            .collect();
        assert_eq!(
            named,
            [
                ("time", "errors.invalidTime"),
                ("folder", "errors.notAbsolute"),
                ("keepDays", "errors.outOfRange"),
                ("keepWeeks", "errors.outOfRange"),
            ]
        );
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, b"").unwrap();
        let input = ScheduleInput {
            enabled: true,
            time: "03:00".into(),
            folder: Some(file.join("inside").display().to_string()),
            keep_days: 7,
            keep_weeks: 4,
        };
        let Err(Error::Validation(faults)) = input.validate() else {
            panic!("refused");
        };
        assert_eq!(
            faults,
            [FieldError::new("folder", "errors.folderNotWritable")]
        );
        let fine = ScheduleInput {
            folder: Some(format!("  {}  ", dir.path().join("usb").display())),
            ..input
        };
        let schedule = fine.validate().unwrap();
        assert_eq!(
            schedule.folder,
            Some(dir.path().join("usb").display().to_string())
        );
        assert!(dir.path().join("usb").is_dir());
        assert!(!dir.path().join("usb/.printcost-write-test").exists());
    }
}
