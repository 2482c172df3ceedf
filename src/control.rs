//! The control file: how a command on the box reaches the running service.
//!
//! The service holds its database file locked, so a command-line tool cannot open it while the
//! service runs. At start the service writes `control.json` into its data folder (mode 0600:
//! only its own user, who may read the database itself, can read it): the address it listens
//! on and a random token for this run (its SHA-256 stays in the service's memory, never in the
//! store). `printcost journal verify` presents the token (`Authorization: Bearer`). The file is
//! removed when the service stops; one left by a killed run names a token no service holds.

use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The file's name in the data folder.
pub const FILE: &str = "control.json";

/// What the file holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Control {
    /// The service's base URL on this box (`http://127.0.0.1:8080`).
    pub url: String,
    /// This run's token (64 hex digits).
    pub token: String,
}

/// The file of the data folder `dir`.
pub fn path(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The base URL a process on this box reaches a service listening on `address` at (an
/// unspecified address, `0.0.0.0` or `::`, by loopback).
pub fn local_url(address: SocketAddr) -> String {
    let ip = match address.ip() {
        ip if ip.is_unspecified() && ip.is_ipv4() => "127.0.0.1".to_string(),
        ip if ip.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    format!("http://{ip}:{}", address.port())
}

/// Writes `control` into `dir`, readable by this user only.
///
/// Errors: the file cannot be written.
pub fn write(dir: &Path, control: &Control) -> std::io::Result<()> {
    use std::io::Write;
    let file = path(dir);
    let _ = std::fs::remove_file(&file);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(&file)?;
    out.write_all(&serde_json::to_vec(control).map_err(std::io::Error::other)?)?;
    out.sync_all()
}

/// Reads the control file of `dir`. Errors: there is none (no service ran here), or it is
/// not one.
pub fn read(dir: &Path) -> std::io::Result<Control> {
    let bytes = std::fs::read(path(dir))?;
    serde_json::from_slice(&bytes).map_err(std::io::Error::other)
}

/// Removes the control file of `dir` (nothing when there is none).
pub fn remove(dir: &Path) {
    let _ = std::fs::remove_file(path(dir));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unspecified_address_is_reached_by_loopback() {
        assert_eq!(
            local_url("0.0.0.0:8080".parse().unwrap()),
            "http://127.0.0.1:8080"
        );
        assert_eq!(local_url("[::]:80".parse().unwrap()), "http://[::1]:80");
        assert_eq!(
            local_url("192.168.1.5:8080".parse().unwrap()),
            "http://192.168.1.5:8080"
        );
    }

    #[test]
    fn the_file_is_written_for_its_user_only_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let control = Control {
            url: "http://127.0.0.1:1".into(),
            token: "ab".into(),
        };
        write(dir.path(), &control).unwrap();
        write(dir.path(), &control).unwrap();
        assert_eq!(read(dir.path()).unwrap().token, "ab");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        remove(dir.path());
        assert!(read(dir.path()).is_err());
    }
}
