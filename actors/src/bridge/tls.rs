//! TLS to an external broker: a rustls client configuration from `mqtt.tls` (the README's TLS
//! section). The ring provider is passed to rustls explicitly, never installed process-wide.
//! Files are PEM and read when the bridge starts; a fault names the key and the file.

use super::config::TlsConfig;
use rustls::crypto::ring;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::{ClientConfig, RootCertStore};
use std::path::Path;
use std::sync::Arc;

/// The client configuration of `tls`: the broker's certificate must chain to `ca_file`'s
/// certificates (or, without one, to the system's trusted roots) and name the host; the client
/// certificate and key are presented when given.
///
/// Errors: a sentence naming the configuration key and the file (unreadable, no certificate or
/// key in it, a key that does not match its certificate), or the system without trusted roots.
pub fn client_config(tls: &TlsConfig) -> Result<Arc<ClientConfig>, String> {
    let mut roots = RootCertStore::empty();
    match &tls.ca_file {
        Some(file) => {
            let (added, _) =
                roots.add_parsable_certificates(certificates(file, "mqtt.tls.ca_file")?);
            if added == 0 {
                return Err(format!(
                    "mqtt.tls.ca_file: {}: no usable CA certificate in it",
                    file.display()
                ));
            }
        }
        None => {
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
            if roots.is_empty() {
                return Err("mqtt.tls: no ca_file, and the system has no trusted CA \
                            certificates (install ca-certificates)"
                    .into());
            }
        }
    }
    let builder = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("mqtt.tls: {e}"))?
        .with_root_certificates(roots);
    let config = match (&tls.client_cert_file, &tls.client_key_file) {
        (Some(cert), Some(key_file)) => {
            let chain = certificates(cert, "mqtt.tls.client_cert_file")?;
            let key = PrivateKeyDer::from_pem_file(key_file)
                .map_err(|e| format!("mqtt.tls.client_key_file: {}: {e}", key_file.display()))?;
            builder.with_client_auth_cert(chain, key).map_err(|e| {
                format!("mqtt.tls: the client certificate and key do not go together: {e}")
            })?
        }
        _ => builder.with_no_client_auth(),
    };
    Ok(Arc::new(config))
}

/// Every certificate in the PEM `file` (at least one), for the configuration key `key`.
fn certificates(file: &Path, key: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let fault = |e: &dyn std::fmt::Display| format!("{key}: {}: {e}", file.display());
    let certificates = CertificateDer::pem_file_iter(file)
        .map_err(|e| fault(&e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| fault(&e))?;
    if certificates.is_empty() {
        return Err(fault(&"no certificate in it"));
    }
    Ok(certificates)
}
