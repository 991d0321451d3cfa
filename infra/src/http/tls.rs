//! The TLS set-up every outbound client shares: one rustls client configuration for the whole
//! process (TLS 1.3 and 1.2, `http/1.1` over ALPN, the process's crypto provider) whose
//! certificate verifier is the platform's (`rustls-platform-verifier`, the one reqwest would
//! build) loaded on the first certificate it has to check rather than when a client is built.
//! Building the platform verifier reads and parses every root certificate of the system (two
//! copies where both `SSL_CERT_FILE` and `SSL_CERT_DIR` are set), which each of the five
//! clients a server builds at start did again: a few milliseconds each before the first
//! request could be served, and a root store per client. Now the roots are read once, on the
//! first HTTPS handshake of the process (a server that never talks to the outside never reads
//! them), and every client shares them and the TLS session cache. A platform without usable
//! roots fails that handshake (and every later one) with the verifier's error; it does not
//! stop a client from being built. It holds no policy of its own: redirects, deadlines and caps
//! stay with [`super::HttpPolicy`].

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// The platform verifier, built the first time a certificate is checked.
#[derive(Debug)]
pub(super) struct LazyPlatformVerifier {
    provider: Arc<CryptoProvider>,
    inner: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl LazyPlatformVerifier {
    pub(super) fn new(provider: Arc<CryptoProvider>) -> LazyPlatformVerifier {
        LazyPlatformVerifier { provider, inner: OnceLock::new() }
    }

    /// Whether the root certificates have been read (tests).
    #[cfg(test)]
    pub(super) fn is_loaded(&self) -> bool {
        self.inner.get().is_some()
    }

    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        let built = self.inner.get_or_init(|| {
            let verifier = rustls_platform_verifier::Verifier::new(self.provider.clone());
            match &verifier {
                Ok(_) => tracing::debug!(target: "relay::startup", "loaded the platform's root certificates"),
                Err(e) => tracing::warn!(error = %e, "the platform's root certificates cannot be used"),
            }
            verifier
        });
        built.as_ref().map_err(Clone::clone)
    }
}

impl ServerCertVerifier for LazyPlatformVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    // The handshake signatures need no roots: they are checked with the provider's algorithms,
    // as the platform verifier's own WebPKI verifier does.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

/// The process's shared client configuration (built once; each client gets a clone, which
/// shares the verifier and the session cache).
pub(super) fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    static SHARED: OnceLock<Result<rustls::ClientConfig, rustls::Error>> = OnceLock::new();
    SHARED.get_or_init(build_client_config).clone()
}

fn build_client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    // As reqwest does: a provider the process installed, else aws-lc-rs.
    let provider = CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::aws_lc_rs::default_provider()));
    let mut config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(LazyPlatformVerifier::new(provider)))
        .with_no_client_auth();
    // The clients speak HTTP/1.1 only (reqwest is built without HTTP/2).
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roots_are_read_on_the_first_certificate_check_not_before() {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = LazyPlatformVerifier::new(provider);
        assert!(!verifier.supported_verify_schemes().is_empty());
        assert!(!verifier.is_loaded(), "nothing read while no certificate was checked");
        let name = ServerName::try_from("example.com").unwrap();
        let garbage = CertificateDer::from(vec![0x30, 0x03, 0x02, 0x01, 0x00]);
        let checked = verifier.verify_server_cert(&garbage, &[], &name, &[], UnixTime::now());
        assert!(checked.is_err(), "a malformed certificate is refused");
        assert!(verifier.is_loaded(), "the first check read the platform's roots");
    }

    // A throwaway self-signed certificate for `localhost` and its key, made for this test only
    // (`openssl req -x509 -newkey ec ...`); no platform root vouches for it.
    const TEST_ONLY_CERT: &str = "-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUW5zKIGDcj7kQ9uwIkzR3HHNYkx4wCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTIwNzIxNTUzMloYDzIxMjYxMTEz
MjE1NTMyWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAS155x2TNU6q+o2HZHt0iVAg1Z5qyoz5Mxt0mHyAvSuJK2N4UbSRSCR
X6RxjTrKlxrOGBqMnTm6pUpX/6P8lXAgo2kwZzAdBgNVHQ4EFgQUgojNAYjq1S8G
K8BCiJFALPDht3YwHwYDVR0jBBgwFoAUgojNAYjq1S8GK8BCiJFALPDht3YwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
SQAwRgIhAJ5ixYqTBwzNqZpNT1RuK08HzHeDAhTi8ZV4b42EtMsaAiEA+wVQydBw
5peqlYfcIu7/KO2kq/m5l1eKHvI0INwX2EE=
-----END CERTIFICATE-----
";
    const TEST_ONLY_KEY: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg1rVGBDPZXagJ6yPI
tHTqrbr5KYAXRJnFj6Uo9r3Je9qhRANCAAS155x2TNU6q+o2HZHt0iVAg1Z5qyoz
5Mxt0mHyAvSuJK2N4UbSRSCRX6RxjTrKlxrOGBqMnTm6pUpX/6P8lXAg
-----END PRIVATE KEY-----
";

    /// A client built by the policy speaks TLS through the shared configuration and checks the
    /// server's certificate against the platform's roots: a loopback server with a self-signed
    /// certificate sees the client refuse it with a certificate alert (red if the verifier
    /// accepted everything, or if reqwest did not take the preconfigured TLS).
    #[test]
    fn a_policy_client_refuses_a_certificate_no_platform_root_vouches_for() {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::PrivateKeyDer;
        use std::time::Duration;
        let cert = CertificateDer::from_pem_slice(TEST_ONLY_CERT.as_bytes()).unwrap();
        let key = PrivateKeyDer::from_pem_slice(TEST_ONLY_KEY.as_bytes()).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let server = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let handshake = std::thread::spawn(move || {
            let (mut tcp, _) = listener.accept().unwrap();
            tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            let mut tls = rustls::ServerConnection::new(Arc::new(server)).unwrap();
            for _ in 0..100 {
                match tls.complete_io(&mut tcp) {
                    Err(e) => return e.to_string(),
                    Ok(_) if !tls.is_handshaking() => return "handshake completed".to_string(),
                    Ok(_) => {}
                }
            }
            "handshake did not finish".to_string()
        });
        let client = super::super::HttpPolicy::relay_peer().build().unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let url = format!("https://127.0.0.1:{port}/");
        let sent = runtime.block_on(async { client.get(&url).send().await });
        assert!(sent.is_err(), "a self-signed certificate was accepted");
        let seen = handshake.join().unwrap();
        let refused = ["UnknownCA", "BadCertificate", "CertificateUnknown"];
        assert!(refused.iter().any(|alert| seen.contains(alert)), "server saw: {seen}");
    }

    #[test]
    fn every_client_shares_one_configuration_speaking_http1() {
        let a = client_config().unwrap();
        let b = client_config().unwrap();
        assert_eq!(a.alpn_protocols, vec![b"http/1.1".to_vec()]);
        assert!(Arc::ptr_eq(&a.crypto_provider().clone(), &b.crypto_provider().clone()));
    }
}
