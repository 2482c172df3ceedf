//! A print's actual electricity over the API: each part's kWh, its source and, where it is not
//! metered, why. The meter's history is written straight into the store (a reading a minute,
//! 120 W: 0.002 kWh a minute, three hours ago) so that runs of an hour can be priced at once;
//! the way readings reach the history from real devices is tested in `meters.rs`.

use crate::alerts::device::free_address;
use crate::support::*;
use actors::bridge::config;
use actors::meters::history::{self, Sample};
use reqwest::Response;
use rust_decimal::Decimal;
use serde_json::{Value, json};
use storage::{Id, Store, StoreOptions, Timestamp};

fn d(text: &str) -> Decimal {
    text.parse().unwrap()
}

/// A shop whose printer has a meter (a Tasmota plug on the bridge's embedded broker), the store
/// behind the app, and `T`: three hours ago, on a whole minute.
struct Metered {
    app: TestApp,
    store: Store,
    shop: Shop,
    t: i64,
    _dir: tempfile::TempDir,
}

impl Metered {
    async fn start() -> Metered {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.redb"), StoreOptions::default()).unwrap();
        let port = free_address().port();
        let yaml = format!(
            "broker:\n  enabled: true\n  listen: 127.0.0.1:{port}\nmqtt:\n  host: 127.0.0.1\n  port: {port}\n  base_topic: shop\n  client_id: printcost-metered-test\nsources: []\n"
        );
        let bridge = config::parse("metered.yml", &yaml).unwrap();
        let app = TestApp::spawn_with_store_and(store.clone(), |c| c.bridge = Some(bridge)).await;
        app.setup().await;
        let shop = shop(&app).await;
        let tasmota = json!({"kind": "MQTT", "topic": "tele/plug-ref/SENSOR", "jsonPath": "ENERGY.Total", "unit": "KWH"});
        let linked = app
            .put(&format!("/api/printers/{}/meter", shop.printer), &tasmota)
            .await;
        assert_eq!(linked.status(), 200);
        let now = Timestamp::now().0;
        Metered {
            app,
            store,
            shop,
            t: now - now.rem_euclid(60) - 3 * 3600,
            _dir: dir,
        }
    }

    /// `T + minutes`, in RFC 3339.
    fn at(&self, minutes: f64) -> String {
        let at = self.t + (minutes * 60.0) as i64;
        jiff::Timestamp::from_second(at).unwrap().to_string()
    }

    /// Readings of the shop's printer's meter each minute of `minutes`, the counter from
    /// `counter(minute)`.
    fn readings(&self, minutes: std::ops::Range<i64>, counter: impl Fn(i64) -> Decimal) {
        let meter: Id = self.shop.printer.parse().unwrap();
        let txn = self.store.begin_write().unwrap();
        for minute in minutes {
            let sample = Sample {
                at: Timestamp(self.t + minute * 60),
                kwh: counter(minute),
            };
            history::keep(&txn, meter, sample).unwrap();
        }
        txn.commit().unwrap();
    }

    /// 120 W from `T` for two hours: 100 kWh plus 0.002 a minute.
    fn steady(&self) {
        self.readings(0..121, |m| d("100") + d("0.002") * Decimal::from(m));
    }

    /// A DONE print of one part of 3,600 s on the shop's printer.
    async fn done(&self, name: &str) -> Value {
        self.app
            .done(&json!({"name": name, "parts": [part(&self.shop, 3600, "40")]}))
            .await
    }

    /// Records the outcome of one-part `print`: 3,600 s, 40 g, and `electricity`.
    async fn record(&self, print: &Value, electricity: Value) -> Response {
        self.record_for(print, 3600, electricity).await
    }

    /// Records the outcome of one-part `print`: `seconds`, 40 g, and `electricity`.
    async fn record_for(&self, print: &Value, seconds: u32, electricity: Value) -> Response {
        let body = json!({
            "status": "SUCCESS", "durationSeconds": seconds,
            "filaments": [{"usageId": print["usages"][0]["id"], "usedGrams": "40"}],
            "electricity": electricity
        });
        let id = print["id"].as_str().unwrap();
        self.app
            .post(&format!("/api/prints/{id}/outcome"), &body)
            .await
    }

    /// The part's electricity of a recorded outcome (asserting it was recorded).
    async fn part_of(&self, res: Response) -> Value {
        assert_eq!(res.status(), 200);
        let print: Value = res.json().await.unwrap();
        print["outcome"]["electricity"][0].clone()
    }

    /// A DONE print named `name` recorded with a run from `T + from` to `T + to` minutes,
    /// asserted estimated for `reason`.
    async fn flagged(&self, name: &str, (from, to): (f64, f64), reason: &str) {
        let print = self.done(name).await;
        assert_estimated(&self.recorded_run(&print, from, to).await, reason);
    }

    /// The part's electricity once `print`'s outcome is recorded with a run from `T + from` to
    /// `T + to` minutes.
    async fn recorded_run(&self, print: &Value, from: f64, to: f64) -> Value {
        self.part_of(self.record(print, self.run(print, from, to)).await)
            .await
    }

    /// The part's electricity once `print`'s outcome is corrected (revision 1 to 2) with `note`
    /// and `electricity`.
    async fn corrected(&self, print: &Value, note: &str, electricity: Value) -> Value {
        let correction = json!({
            "status": "SUCCESS", "durationSeconds": 3600,
            "filaments": [{"usageId": print["usages"][0]["id"], "usedGrams": "40"}],
            "correctionNote": note,
            "expectedRevision": 1, "operationKey": uuid::Uuid::now_v7().to_string(),
            "electricity": electricity
        });
        let id = print["id"].as_str().unwrap();
        let res = self
            .app
            .post(&format!("/api/prints/{id}/outcome/correct"), &correction)
            .await;
        self.part_of(res).await
    }

    /// The run of `print`'s part from `T + from` to `T + to` minutes.
    fn run(&self, print: &Value, from: f64, to: f64) -> Value {
        json!([{"partId": print["parts"][0]["id"], "startedAt": self.at(from), "endedAt": self.at(to)}])
    }
}

/// The estimate of a 3,600 s part at the shop printer's 120 W: 0.12 kWh, 0.0384 at 0.32.
fn assert_estimated(part: &Value, reason: &str) {
    assert_eq!(part["source"], "ESTIMATED", "{part}");
    assert_eq!(part["reason"], reason, "{part}");
    assert_eq!(
        (part["kwh"].as_str(), part["cost"].as_str()),
        (Some("0.12"), Some("0.0384"))
    );
}

#[actix_web::test]
async fn a_run_is_priced_from_its_meter_interpolated_between_readings() {
    let m = Metered::start().await;
    m.steady();
    let print = m.done("Metered bracket").await;
    // 10.5 to 70 minutes: 59.5 minutes at 0.002 kWh, the start between two readings.
    let part = m.recorded_run(&print, 10.5, 70.0).await;
    assert_eq!(part["source"], "METERED", "{part}");
    assert_eq!(part["reason"], Value::Null);
    assert_eq!(part["overlapped"], false);
    assert_eq!(part["kwh"], "0.119");
    assert_eq!(part["cost"], "0.03808", "0.119 kWh at the frozen 0.32");
    assert_eq!(part["startedAt"], m.at(10.5));
    let actual = m
        .app
        .json(&format!("/api/prints/{}", print["id"].as_str().unwrap()))
        .await;
    let estimated_total = d(print["totalCost"].as_str().unwrap());
    let actual_total = d(actual["outcome"]["history"][0]["actualCost"]
        .as_str()
        .unwrap());
    assert_eq!(
        estimated_total - actual_total,
        d("0.0384") - d("0.03808"),
        "only the electricity line changed: {actual}"
    );
}

#[actix_web::test]
async fn a_counter_that_went_back_mid_run_is_flagged_and_never_priced() {
    let m = Metered::start().await;
    // A reset at minute 40: the counter starts again from 0.
    m.readings(0..121, |minute| match minute {
        ..40 => d("100") + d("0.002") * Decimal::from(minute),
        _ => d("0.002") * Decimal::from(minute - 40),
    });
    m.flagged("Reset bracket", (10.0, 70.0), "COUNTER_WENT_BACK")
        .await;
}

#[actix_web::test]
async fn a_meter_silent_at_the_start_or_the_end_is_flagged() {
    let m = Metered::start().await;
    m.steady();
    m.flagged("Early bracket", (-60.0, 30.0), "METER_SILENT_AT_START")
        .await;
    // The last reading is at minute 120: 15 minutes of silence before the end at 135.
    m.flagged("Late bracket", (60.0, 135.0), "METER_SILENT_AT_END")
        .await;
    // Nine minutes after the last reading is within the ten allowed, but nothing was read after
    // the end yet.
    m.flagged("Fresh bracket", (60.0, 129.0), "METER_SILENT_AT_END")
        .await;
}

#[actix_web::test]
async fn a_print_without_run_times_or_without_a_meter_is_estimated_with_why() {
    let m = Metered::start().await;
    m.steady();
    let untimed = m.done("Untimed bracket").await;
    let untimed = m.part_of(m.record(&untimed, json!([])).await).await;
    assert_estimated(&untimed, "NO_RUN_TIMES");
    assert_eq!(untimed["startedAt"], Value::Null);

    let body = json!({"name": "Unmetered printer", "manufacturerId": m.shop.maker, "purchasePrice": "1200", "expectedLifetimeHours": "6000", "averagePowerWatts": 120});
    let unmetered = m.app.create("/api/printers", &body).await;
    let mut draft = json!({"name": "Unmetered bracket", "parts": [part(&m.shop, 3600, "40")]});
    draft["parts"][0]["printerId"] = unmetered["id"].clone();
    let print = m.app.done(&draft).await;
    let part = m.recorded_run(&print, 10.0, 70.0).await;
    assert_estimated(&part, "NO_METER");
}

#[actix_web::test]
async fn two_prints_overlapping_on_one_meter_split_the_shared_time_and_are_flagged() {
    let m = Metered::start().await;
    m.steady();
    let first = m.done("First plate").await;
    let second = m.done("Second plate").await;
    // The second run (40 to 100) is recorded first: the first's times are not known yet.
    let alone = m.recorded_run(&second, 40.0, 100.0).await;
    assert_eq!(
        (alone["kwh"].as_str(), alone["overlapped"].as_bool()),
        (Some("0.12"), Some(false))
    );
    // The first (10 to 70) shares 40 to 70 with it: 30 minutes alone, 30 shared by two.
    let split = m.recorded_run(&first, 10.0, 70.0).await;
    assert_eq!(split["source"], "METERED");
    assert_eq!(
        (split["kwh"].as_str(), split["overlapped"].as_bool()),
        (Some("0.09"), Some(true))
    );
    // A correction of the second re-measures it against the first's recorded run.
    let run = m.run(&second, 40.0, 100.0);
    let resplit = m
        .corrected(&second, "Both plates shared the printer's socket", run)
        .await;
    assert_eq!(
        (resplit["kwh"].as_str(), resplit["overlapped"].as_bool()),
        (Some("0.09"), Some(true))
    );
    assert_eq!(
        d(split["kwh"].as_str().unwrap()) + d(resplit["kwh"].as_str().unwrap()),
        d("0.18"),
        "the meter's 90 minutes from 10 to 100, counted once"
    );
}

#[actix_web::test]
async fn the_maker_may_enter_or_correct_a_figure_and_bad_runs_are_refused() {
    let m = Metered::start().await;
    m.steady();
    let print = m.done("Plug-read bracket").await;
    let part_id = print["parts"][0]["id"].clone();
    let backwards = m.record(&print, m.run(&print, 70.0, 10.0)).await;
    assert_field_error(backwards, "electricity[0].endedAt", "errors.endBeforeStart").await;
    let unknown = json!([{"partId": Id::new().to_string(), "kwh": "1"}]);
    assert_field_error(
        m.record(&print, unknown).await,
        "electricity[0].partId",
        "errors.notFound",
    )
    .await;
    let twice = json!([{"partId": part_id, "kwh": "1"}, {"partId": part_id, "kwh": "2"}]);
    assert_field_error(
        m.record(&print, twice).await,
        "electricity[1].partId",
        "errors.duplicate",
    )
    .await;
    let bad = json!([{"partId": part_id, "kwh": "-1", "startedAt": "yesterday"}]);
    let res = m.record(&print, bad).await;
    assert_eq!(res.status(), 422);
    let body: Value = res.json().await.unwrap();
    let faults: Vec<(String, String)> = body["data"]["fieldErrors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["messageKey"].as_str().unwrap().into(),
            )
        })
        .collect();
    for (path, key) in [
        ("electricity[0].kwh", "errors.negative"),
        ("electricity[0].startedAt", "errors.invalidMoment"),
    ] {
        assert!(
            faults.contains(&(path.into(), key.into())),
            "{path}: {faults:?}"
        );
    }

    let metered = m.recorded_run(&print, 10.0, 70.0).await;
    assert_eq!(metered["kwh"], "0.12");
    let plug = json!([{"partId": part_id, "kwh": "0.5"}]);
    let entered = m
        .corrected(&print, "The plug's own counter says 0.5", plug)
        .await;
    assert_eq!(entered["source"], "ENTERED");
    assert_eq!(
        (entered["kwh"].as_str(), entered["cost"].as_str()),
        (Some("0.5"), Some("0.16"))
    );
    assert_eq!(entered["reason"], Value::Null);
}

#[actix_web::test]
async fn the_outcome_form_shows_the_runs_times_and_records_the_metered_kwh() {
    let m = Metered::start().await;
    m.steady();
    let print = m.done("Form bracket").await;
    let id = print["id"].as_str().unwrap();
    let browser = logged_in(&m.app).await;
    let (status, html) = page(&browser, &m.app, &format!("/prints/{id}")).await;
    assert_eq!(status, 200);
    assert!(
        html.contains(r#"name="electricity[0].startedAt""#),
        "the form asks for the run"
    );
    // The shop's wall clock (the tests' zone is UTC), as a datetime-local field sends it.
    let field = |minutes: f64| m.at(minutes).trim_end_matches(":00Z").to_string();
    let form = [
        ("status", "SUCCESS"),
        ("durationMinutes", "60"),
        (
            "filaments[0].usageId",
            print["usages"][0]["id"].as_str().unwrap(),
        ),
        ("filaments[0].usedGrams", "40"),
        (
            "electricity[0].partId",
            print["parts"][0]["id"].as_str().unwrap(),
        ),
        ("electricity[0].startedAt", &field(10.0)),
        ("electricity[0].endedAt", &field(70.0)),
        ("electricity[0].kwh", ""),
    ];
    let res = submit(&browser, &m.app, &format!("/prints/{id}/outcome"), &form).await;
    assert_eq!(res.status(), 303, "{}", res.text().await.unwrap());
    let (_, html) = page(&browser, &m.app, &format!("/prints/{id}")).await;
    assert!(
        html.contains("0.12 kWh · metered"),
        "the part's electricity is shown"
    );
    let shown = m.at(10.0).trim_end_matches('Z').to_string();
    assert!(
        html.contains(&format!(r#"value="{shown}""#)),
        "the correction form shows the run's start, to the second"
    );
    let recorded = m.app.json(&format!("/api/prints/{id}")).await;
    assert_eq!(recorded["outcome"]["electricity"][0]["source"], "METERED");
    let (_, report) = page(&browser, &m.app, &format!("/reports/prints/{id}")).await;
    assert!(
        report.contains("0.12 kWh · metered"),
        "the A4 report names it too"
    );
}

#[actix_web::test]
async fn the_dashboard_and_the_csv_set_metered_electricity_beside_the_plan() {
    let m = Metered::start().await;
    m.steady();
    let metered = m.done("Metered plate").await;
    m.recorded_run(&metered, 10.5, 70.0).await;
    let untimed = m.done("Untimed plate").await;
    m.part_of(m.record(&untimed, json!([])).await).await;
    m.done("Pending plate").await;
    let board = m.app.json("/api/dashboard").await;
    let printer = &board["electricity"][0];
    assert_eq!(printer["printerId"], m.shop.printer.as_str(), "{board}");
    assert_eq!(
        (printer["runs"].as_u64(), printer["meteredRuns"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        printer["plannedKwh"], "0.24",
        "two recorded runs of 0.12 planned"
    );
    assert_eq!(
        printer["actualKwh"], "0.239",
        "0.119 metered + 0.12 estimated"
    );
    assert_eq!(printer["actualCost"], "0.07648");
    let browser = logged_in(&m.app).await;
    let (_, html) = page(&browser, &m.app, "/dashboard").await;
    assert!(
        html.contains(r#"id="electricity""#) && html.contains("1 / 2"),
        "the dashboard's table"
    );

    let csv = m.app.get("/api/prints/export").await.text().await.unwrap();
    let mut reader = csv::Reader::from_reader(csv.trim_start_matches('\u{feff}').as_bytes());
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    let row = |name: &str| rows.iter().find(|r| &r[1] == name).unwrap().clone();
    let metered = row("Metered plate");
    assert_eq!(
        (&metered[24], &metered[25], &metered[26], &metered[27]),
        ("0.12", "0.119", "0.03808", "METERED")
    );
    let pending = row("Pending plate");
    assert_eq!((&pending[24], &pending[25], &pending[27]), ("0.12", "", ""));
}

#[actix_web::test]
async fn five_metered_runs_teach_the_printers_power_which_the_maker_may_adopt() {
    let m = Metered::start().await;
    // The printer really draws 180 W (0.003 kWh a minute) where 120 W was planned.
    m.readings(0..121, |minute| {
        d("100") + d("0.003") * Decimal::from(minute)
    });
    let power = format!("/api/printers/{}/power", m.shop.printer);
    let mut first = None;
    for run in 0..5 {
        let print = m.done(&format!("Run {run}")).await;
        let from = f64::from(run * 20);
        let res = m
            .record_for(&print, 1200, m.run(&print, from, from + 20.0))
            .await;
        let part = m.part_of(res).await;
        assert_eq!(
            (part["kwh"].as_str(), part["overlapped"].as_bool()),
            (Some("0.06"), Some(false))
        );
        first.get_or_insert(print);
        if run == 3 {
            let early = m.app.json(&power).await;
            assert_eq!(
                (early["meteredRuns"].as_u64(), early["runsNeeded"].as_u64()),
                (Some(4), Some(5))
            );
            assert_eq!(
                early["learned"],
                Value::Null,
                "nothing learned from four runs"
            );
        }
    }
    let learned = m.app.json(&power).await;
    assert_eq!(learned["averagePowerWatts"], 120);
    let overall = &learned["learned"]["overall"];
    assert_eq!(
        (overall["watts"].as_u64(), overall["kwhPerHour"].as_str()),
        (Some(180), Some("0.18"))
    );
    assert_eq!(learned["learned"]["byMaterial"][0]["material"], "PLA");
    assert_eq!(learned["learned"]["byMaterial"][0]["runs"], 5);
    // Planned 0.12 kWh (an hour at 120 W) against 0.06 metered: 100 % off; the learned 180 W
    // predicts each run exactly.
    assert_eq!(learned["learned"]["plannedError"]["median"], "1");
    assert_eq!(learned["learned"]["learnedError"]["median"], "0");

    let browser = logged_in(&m.app).await;
    let page_path = format!("/printers/{}", m.shop.printer);
    let (_, html) = page(&browser, &m.app, &page_path).await;
    assert!(
        html.contains(r#"id="power-measured">180 W"#),
        "the printer's page shows it"
    );
    let res = submit(
        &browser,
        &m.app,
        &format!("{page_path}/power"),
        &[("watts", "175")],
    )
    .await;
    assert_eq!(res.status(), 303);
    let printer = m
        .app
        .json(&format!("/api/printers/{}", m.shop.printer))
        .await;
    assert_eq!(printer["averagePowerWatts"], 175, "adopted in one click");

    let adopted = m
        .app
        .post(&format!("{power}/adopt"), &json!({"watts": 180}))
        .await;
    assert_eq!(adopted.status(), 200);
    let printer: Value = adopted.json().await.unwrap();
    assert_eq!(printer["averagePowerWatts"], 180);
    let refused = m
        .app
        .post(&format!("{power}/adopt"), &json!({"watts": 100_001}))
        .await;
    assert_field_error(refused, "watts", "errors.outOfRange").await;
    // Frozen snapshots keep the watts they were priced with; a new draft takes the adopted.
    let first = first.unwrap();
    let frozen = m
        .app
        .json(&format!("/api/prints/{}", first["id"].as_str().unwrap()))
        .await;
    assert_eq!(frozen["totalCost"], first["totalCost"]);
    let draft = m
        .app
        .create(
            "/api/prints",
            &json!({"name": "After", "parts": [part(&m.shop, 3600, "40")]}),
        )
        .await;
    let electricity = draft["costLines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["category"] == "ELECTRICITY")
        .cloned()
        .unwrap();
    assert_eq!(electricity["quantity"], "0.18", "{electricity}");
    let missing = m
        .app
        .get(&format!("/api/printers/{}/power", Id::new()))
        .await;
    assert_error(missing, 404, "NOT_FOUND").await;
}
