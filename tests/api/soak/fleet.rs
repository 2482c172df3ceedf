//! The Bambuddy double ([`crate::support::bambuddy`]) in the month's soak: the shop's first
//! printer is linked to its printer 1, and a done print on it may take its outcome from the
//! fleet's print log (attach, then import) instead of being recorded by hand. Three in ten of
//! those times the double first plays one of its faults (a redirect, 503, malformed JSON, a contract
//! break, a timeout): the attach is refused 502 with the contract's code, nothing is written,
//! and once the fault is over the attach and the import go through; an import sent twice is
//! booked once.

use super::{Dice, Model, Run, outcome_of};
use crate::support::bambuddy::{self, Fault, Fleet, log_json};
use reqwest::Method;
use serde_json::{Value, json};

/// The double, and what it was put through.
pub struct Bambuddy {
    fleet: Fleet,
    /// The shop's printer linked to the fleet's printer 1.
    pub printer: String,
    next_log: u64,
    /// Outcomes imported from the fleet's log.
    pub imported: u32,
    /// Faults played (each refused with its code).
    pub faults: u32,
}

const FAULTS: [(Fault, &str); 5] = [
    (Fault::Redirect, "INTEGRATION_UNAVAILABLE"),
    (Fault::Offline, "INTEGRATION_UNAVAILABLE"),
    (Fault::Malformed, "INTEGRATION_CONTRACT"),
    (Fault::ContractBreak, "INTEGRATION_CONTRACT"),
    (Fault::Timeout, "INTEGRATION_UNAVAILABLE"),
];

impl Bambuddy {
    /// Starts the double and links the shop's first printer to its printer 1.
    pub async fn link(run: &Run, shop: &Model) -> Bambuddy {
        let fleet = Fleet::start().await;
        let change =
            json!({"printfleet": {"enabled": true, "url": fleet.url, "apiKey": bambuddy::KEY}});
        let res = run
            .send(Method::PATCH, "/api/settings/integrations", Some(&change))
            .await;
        assert_eq!(res.status(), 200, "linked to Bambuddy");
        let printer = shop.printers[0].0.clone();
        let link = json!({"printerId": printer, "remoteId": 1});
        act(run, "LINK_PRINTER", link).await;
        Bambuddy {
            fleet,
            printer,
            next_log: 1,
            imported: 0,
            faults: 0,
        }
    }

    /// Whether done print `print` can take its outcome from the fleet: one part, on the
    /// linked printer.
    pub fn takes(&self, print: &Value) -> bool {
        let parts = print["parts"].as_array().unwrap();
        parts.len() == 1 && parts[0]["printerId"] == self.printer.as_str()
    }

    /// The fleet logs done print `id` (completed or failed), the log is attached to its part
    /// and its outcome imported (twice: booked once).
    pub async fn import(&mut self, run: &Run, shop: &mut Model, dice: &mut Dice, id: &str) {
        let (seed, day) = (run.seed, run.day.get());
        let print = run.json(&format!("/api/prints/{id}")).await;
        let failed = dice.chance(20);
        let seconds = 600 + dice.below(20_000) as u32;
        let grams = dice.grams(1, 130);
        let log = self.next_log;
        self.next_log += 1;
        let status = if failed { "failed" } else { "completed" };
        let grams_f64 = grams.to_string().parse().unwrap();
        self.fleet
            .log(log_json(log, 1, status, u64::from(seconds), grams_f64));
        let part = print["parts"][0]["id"].clone();
        let attach = json!({"printId": id, "partId": part, "remoteLogId": log});
        if dice.chance(30) {
            let (fault, code) = *dice.pick(&FAULTS);
            self.fleet.fault(fault);
            let res = send(run, "ATTACH", attach.clone()).await;
            let status = res.status();
            let body: Value = res.json().await.unwrap();
            self.fleet.fault(Fault::None);
            assert_eq!(
                (status.as_u16(), body["data"]["code"].as_str()),
                (502, Some(code)),
                "seed {seed} day {day}: {fault:?}: {body}"
            );
            assert!(!body.to_string().contains("peer-body-marker"), "{body}");
            self.faults += 1;
        }
        act(run, "ATTACH", attach).await;
        let query = format!(
            "/api/integrations/printfleet?printId={id}&partId={}",
            part.as_str().unwrap()
        );
        let hash = run.json(&query).await["link"]["previewHash"].clone();
        let outcome = outcome_of(
            &print,
            if failed { "FAILED" } else { "SUCCESS" },
            seconds,
            &grams.to_string(),
            dice,
        );
        let import = json!({"printId": id, "previews": [{"partId": part, "previewHash": hash}], "outcome": outcome});
        let first = act(run, "IMPORT", import.clone()).await;
        let again = act(run, "IMPORT", import).await;
        assert_eq!(
            (
                first["outcome"]["revision"].as_u64(),
                again["outcome"]["revision"].as_u64()
            ),
            (Some(1), Some(1)),
            "seed {seed} day {day}: imported once"
        );
        shop.prints.get_mut(id).unwrap().1 = 1;
        self.imported += 1;
    }
}

async fn send(run: &Run, name: &str, data: Value) -> reqwest::Response {
    let body = json!({"action": name, "data": data});
    run.send_allowing_502(Method::POST, "/api/integrations/printfleet", Some(&body))
        .await
}

/// Action `name` with `data`, answered 200: its body.
async fn act(run: &Run, name: &str, data: Value) -> Value {
    let res = send(run, name, data).await;
    run.answer(res, 200).await
}
