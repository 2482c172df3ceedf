//! TLS and credentials against Debian's mosquitto, configured here with a CA and certificates
//! this test makes (rcgen) and a password file (`mosquitto_passwd`): states travel over TLS with
//! a client certificate and a password read from a file; a wrong password, a CA the bridge does
//! not trust and an expired broker certificate each give a clear error in the bridge's log and
//! retries with a growing delay, never a silent stall.

use super::{HOLDING, config};
use crate::peers::{
    Peer, Subscriber, free_port, log_lines, logged_bridge, modbus_device, mosquitto_with,
};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use std::path::Path;
use std::process::Command;

/// A self-signed CA named `name`.
fn certificate_authority(name: &str) -> CertifiedIssuer<'static, KeyPair> {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// A certificate for 127.0.0.1 and localhost signed by `ca`, as `(certificate, key)` in PEM;
/// valid only in January 2020 when `expired`.
fn certificate(ca: &CertifiedIssuer<'static, KeyPair>, expired: bool) -> (String, String) {
    let mut params =
        CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    if expired {
        params.not_before = rcgen::date_time_ymd(2020, 1, 1);
        params.not_after = rcgen::date_time_ymd(2020, 1, 31);
    }
    let key = KeyPair::generate().unwrap();
    let signed = params.signed_by(&key, ca).unwrap();
    (signed.pem(), key.serialize_pem())
}

/// Writes `name.pem` and `name.key` into `dir`.
fn write_pair(dir: &Path, name: &str, (certificate, key): (String, String)) {
    std::fs::write(dir.join(format!("{name}.pem")), certificate).unwrap();
    std::fs::write(dir.join(format!("{name}.key")), key).unwrap();
}

/// The shop's broker: mosquitto on a TLS listener with `server.pem`/`server.key` from `dir`,
/// client certificates of `ca.pem` required, user `bridge` with password `s3cret`.
fn broker(port: u16, dir: &Path) -> Peer {
    let passwords = dir.join("passwd");
    let made = Command::new("mosquitto_passwd")
        .args(["-c", "-b", passwords.to_str().unwrap(), "bridge", "s3cret"])
        .output()
        .expect("mosquitto_passwd (scripts/test installs mosquitto)");
    assert!(made.status.success(), "{made:?}");
    let d = dir.display();
    mosquitto_with(
        port,
        dir,
        &format!(
            "cafile {d}/ca.pem\ncertfile {d}/server.pem\nkeyfile {d}/server.key\nrequire_certificate true\nallow_anonymous false\npassword_file {d}/passwd\n"
        ),
    )
}

/// The bridge's configuration for the broker on `mqtt` over TLS, with `ca_file` and the given
/// password file, presenting `client.pem`.
fn tls_config(mqtt: u16, device: u16, dir: &Path, ca_file: &str, password_file: &str) -> String {
    let d = dir.display();
    config(mqtt, device, "every_poll").replacen(
        "  host: 127.0.0.1\n",
        &format!(
            "  host: mqtts://127.0.0.1\n  username: bridge\n  password_file: {d}/{password_file}\n  tls:\n    ca_file: {d}/{ca_file}\n    client_cert_file: {d}/client.pem\n    client_key_file: {d}/client.key\n"
        ),
        1,
    )
}

/// A CA, the broker's and the bridge's certificates (the broker's expired when `expired`), a
/// second CA nobody uses, and the two password files, in `dir`.
fn make_files(dir: &Path, expired: bool) {
    let ca = certificate_authority("printcost test CA");
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    write_pair(dir, "server", certificate(&ca, expired));
    write_pair(dir, "client", certificate(&ca, false));
    let stranger = certificate_authority("a CA nobody uses");
    std::fs::write(dir.join("other-ca.pem"), stranger.pem()).unwrap();
    std::fs::write(dir.join("password"), "s3cret\n").unwrap();
    std::fs::write(dir.join("wrong-password"), "guess\n").unwrap();
}

#[test]
fn states_travel_over_tls_with_a_client_certificate_and_a_password_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    make_files(dir.path(), false);
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &HOLDING);
    let _broker = broker(mqtt, dir.path());
    let d = dir.path().display().to_string();
    let (ca, cert, key) = (
        format!("{d}/ca.pem"),
        format!("{d}/client.pem"),
        format!("{d}/client.key"),
    );
    let mut watcher = Subscriber::start_with(
        mqtt,
        "e2e/#",
        &[
            "--cafile",
            &ca,
            "--cert",
            &cert,
            "--key",
            &key,
            "--insecure",
            "-u",
            "bridge",
            "-P",
            "s3cret",
        ],
    );
    let yaml = tls_config(mqtt, device_port, dir.path(), "ca.pem", "password");
    let (_bridge, log) = logged_bridge(&yaml, dir.path());
    assert_eq!(watcher.next_on("e2e/status").payload, "online");
    assert_eq!(watcher.next_on("e2e/dryer/count").payload, "1234");
    let text = std::fs::read_to_string(log).unwrap();
    assert!(
        !text.contains("s3cret"),
        "the password is never logged:\n{text}"
    );
}

/// Starts a bridge that cannot connect and returns the log lines of its first three failures.
fn failures(expired: bool, ca_file: &str, password_file: &str, needle: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    make_files(dir.path(), expired);
    let (device_port, mqtt) = (free_port(), free_port());
    let _device = modbus_device(device_port, &HOLDING);
    let _broker = broker(mqtt, dir.path());
    let yaml = tls_config(mqtt, device_port, dir.path(), ca_file, password_file);
    let (_bridge, log) = logged_bridge(&yaml, dir.path());
    log_lines(&log, needle, 3)
}

/// The `retry_in_secs` of a log line.
fn retry_in(line: &str) -> u64 {
    let (_, after) = line
        .split_once("retry_in_secs=")
        .unwrap_or_else(|| panic!("no retry_in_secs in {line}"));
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn a_wrong_password_is_named_and_retried_with_a_growing_delay() {
    let lines = failures(
        false,
        "ca.pem",
        "wrong-password",
        "refused the user name or password",
    );
    let waits: Vec<u64> = lines.iter().map(|l| retry_in(l)).collect();
    assert_eq!(waits[..3], [1, 2, 4], "{lines:#?}");
}

#[test]
fn a_broker_certificate_of_an_unknown_ca_is_named() {
    let lines = failures(
        false,
        "other-ca.pem",
        "password",
        "not signed by a CA the bridge trusts (mqtt.tls.ca_file)",
    );
    assert!(retry_in(&lines[1]) > retry_in(&lines[0]), "{lines:#?}");
}

#[test]
fn an_expired_broker_certificate_is_named() {
    let lines = failures(
        true,
        "ca.pem",
        "password",
        "the broker's certificate has expired",
    );
    assert!(retry_in(&lines[1]) > retry_in(&lines[0]), "{lines:#?}");
}

#[test]
fn tls_files_that_cannot_be_used_stop_the_bridge_at_start_naming_key_and_file() {
    let dir = tempfile::tempdir().unwrap();
    make_files(dir.path(), false);
    std::fs::write(dir.path().join("empty.pem"), "").unwrap();
    let (device_port, mqtt) = (free_port(), free_port());
    for (ca_file, password_file, named) in [
        ("missing.pem", "password", "mqtt.tls.ca_file"),
        ("empty.pem", "password", "mqtt.tls.ca_file"),
        ("ca.pem", "missing-password", "mqtt.password_file"),
    ] {
        let config = dir.path().join("bridge.yml");
        std::fs::write(
            &config,
            tls_config(mqtt, device_port, dir.path(), ca_file, password_file),
        )
        .unwrap();
        let ran = Command::new(env!("CARGO_BIN_EXE_modbus-mqtt-bridge"))
            .arg("--config")
            .arg(&config)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&ran.stderr);
        assert!(!ran.status.success(), "{ca_file}: {said}");
        assert!(said.contains(named), "{ca_file}, {password_file}: {said}");
        let file = if named == "mqtt.tls.ca_file" {
            ca_file
        } else {
            password_file
        };
        assert!(said.contains(file), "{file} named: {said}");
    }
}
