//! Opening a connection from a `postgres://` URL, with its `sslmode` and `sslrootcert` applied as
//! libpq applies them. tokio-postgres knows neither the verifying modes nor root files, so Pulse
//! takes both out of the URL and verifies the server itself, on rustls with ring.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr as _;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use diesel::{ConnectionError, ConnectionResult};
use diesel_async::AsyncPgConnection;
use percent_encoding::percent_decode_str;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::Host;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`, from the weakest to the strictest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    fn parse(value: &str) -> anyhow::Result<Self> {
        Ok(match value {
            "disable" => Self::Disable,
            "allow" => Self::Allow,
            "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => bail!("sslmode={other} is not one of disable, allow, prefer, require, verify-ca and verify-full"),
        })
    }

    const fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Allow => "allow",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }

    /// What tokio-postgres is told: whether TLS is tried and whether it must succeed. Checking
    /// the certificate is the verifier's part. `allow` tries TLS first, where libpq tries it
    /// second: either way the connection is encrypted only if the server offers it.
    const fn negotiation(self) -> tokio_postgres::config::SslMode {
        match self {
            Self::Disable => tokio_postgres::config::SslMode::Disable,
            Self::Allow | Self::Prefer => tokio_postgres::config::SslMode::Prefer,
            Self::Require | Self::VerifyCa | Self::VerifyFull => tokio_postgres::config::SslMode::Require,
        }
    }
}

/// `sslrootcert`: a PEM file of trusted certificates, or `system` for the platform's store.
#[derive(Clone, Debug, PartialEq, Eq)]
enum RootCertificates {
    File(PathBuf),
    System,
}

/// How a server's certificate is checked, decided by `sslmode` and `sslrootcert` as libpq
/// decides it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Verification {
    /// Encrypted, but any certificate is taken: safe from listeners, not from an impostor.
    None,
    /// The chain must lead to a trusted root; the name it was issued to is not compared.
    Chain(RootCertificates),
    /// The chain, and the host name (or address) the URL connects to.
    Full(RootCertificates),
}

impl Verification {
    fn trusted(&self) -> Option<String> {
        match self {
            Self::None => None,
            Self::Chain(RootCertificates::File(path)) | Self::Full(RootCertificates::File(path)) => {
                Some(format!("sslrootcert={}", path.display()))
            }
            Self::Chain(RootCertificates::System) | Self::Full(RootCertificates::System) => {
                Some("the platform's certificate store".to_owned())
            }
        }
    }

    /// libpq verifies the chain whenever a root file is given (`require` with one behaves as
    /// `verify-ca`) and refuses `sslrootcert=system` with anything weaker than `verify-full`.
    /// Without `sslrootcert` the verifying modes trust the platform's store, where libpq would
    /// look for `~/.postgresql/root.crt`.
    fn of(mode: SslMode, roots: Option<RootCertificates>) -> anyhow::Result<Self> {
        Ok(match (mode, roots) {
            (SslMode::VerifyFull, roots) => Self::Full(roots.unwrap_or(RootCertificates::System)),
            (_, Some(RootCertificates::System)) => {
                bail!("sslrootcert=system needs sslmode=verify-full (it is {})", mode.name())
            }
            (SslMode::VerifyCa, roots) => Self::Chain(roots.unwrap_or(RootCertificates::System)),
            (SslMode::Disable, _) | (_, None) => Self::None,
            (_, Some(file)) => Self::Chain(file),
        })
    }
}

/// A database to connect to: the URL's connection settings for tokio-postgres, and the TLS that
/// its `sslmode` and `sslrootcert` ask for. `Debug` shows where it connects, never a password.
#[derive(Clone)]
pub struct DatabaseTarget {
    config: tokio_postgres::Config,
    mode: SslMode,
    tls: MakeRustlsConnect,
    /// The roots a verifying mode trusts, as an error names them.
    trusted: Option<String>,
}

impl fmt::Debug for DatabaseTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// `host:port[,host:port…]/database (sslmode=…)`: what a start-up error names.
impl fmt::Display for DatabaseTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ports = self.config.get_ports();
        for (i, host) in self.config.get_hosts().iter().enumerate() {
            let separator = if i == 0 { "" } else { "," };
            let port = ports.get(i).or_else(|| ports.first()).copied().unwrap_or(5432);
            match host {
                Host::Tcp(name) => write!(f, "{separator}{name}:{port}")?,
                Host::Unix(path) => write!(f, "{separator}{}:{port}", path.display())?,
            }
        }
        write!(f, "/{} (sslmode={})", self.config.get_dbname().unwrap_or_default(), self.mode.name())
    }
}

impl DatabaseTarget {
    /// Reads a `postgres://` or `postgresql://` URL. Without `sslmode` it is `prefer`, as in
    /// libpq, or `verify-full` with `sslrootcert=system`. A root file is read here, once.
    ///
    /// # Errors
    /// When the URL is malformed, names an unknown `sslmode`, or its root certificates cannot be
    /// read. The message names the setting at fault, never the password.
    pub fn parse(url: &str) -> anyhow::Result<Self> {
        let TlsParameters { rest, mode, roots } = TlsParameters::take_from(url)?;
        let mode =
            mode.unwrap_or(if roots == Some(RootCertificates::System) { SslMode::VerifyFull } else { SslMode::Prefer });
        let mut config = tokio_postgres::Config::from_str(&rest)
            // tokio-postgres's message names the option, never its value.
            .map_err(|e| anyhow::anyhow!("the database URL is not valid: {}", with_causes(&e, None)))?;
        config.ssl_mode(mode.negotiation());
        let verification = Verification::of(mode, roots)?;
        let tls = MakeRustlsConnect::new(client_config(&verification)?);
        Ok(Self { config, mode, tls, trusted: verification.trusted() })
    }

    /// Opens a connection: TCP (or a socket), TLS as `sslmode` asks, then authentication.
    ///
    /// # Errors
    /// `BadConnection` naming the target and the cause (refused, a certificate not trusted or not
    /// issued to the host, a server that does not offer TLS), never the password.
    pub async fn connect(&self) -> ConnectionResult<AsyncPgConnection> {
        let (client, connection) = self.config.connect(self.tls.clone()).await.map_err(|e| {
            ConnectionError::BadConnection(format!(
                "connecting to {self}: {}",
                with_causes(&e, self.trusted.as_deref())
            ))
        })?;
        AsyncPgConnection::try_from_client_and_connection(client, connection).await
    }
}

/// tokio-postgres's errors say what failed and leave why to their source: a TLS handshake
/// failed, because the certificate's issuer is unknown. rustls names that cause by its variant
/// alone, so the message says it in words and which roots were trusted.
fn with_causes(error: &tokio_postgres::Error, trusted: Option<&str>) -> String {
    let mut message = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        message = format!("{message}: {inner}");
        let rustls_error = inner
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
            .and_then(|e| e.downcast_ref::<rustls::Error>());
        if let (Some(rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer)), Some(trusted)) =
            (rustls_error, trusted)
        {
            message = format!("{message} (the server's certificate was not issued by an authority in {trusted})");
        }
        cause = inner.source();
    }
    message
}

/// A URL split into what tokio-postgres reads and the two TLS parameters Pulse applies itself.
struct TlsParameters {
    rest: String,
    mode: Option<SslMode>,
    roots: Option<RootCertificates>,
}

impl TlsParameters {
    fn take_from(url: &str) -> anyhow::Result<Self> {
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            bail!("the database URL must start with postgres:// or postgresql://");
        }
        let Some((base, query)) = url.split_once('?') else {
            return Ok(Self { rest: url.to_owned(), mode: None, roots: None });
        };
        let (mut mode, mut roots, mut kept) = (None, None, Vec::new());
        for pair in query.split('&').filter(|pair| !pair.is_empty()) {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let value = percent_decode_str(value).decode_utf8().context("the database URL is not valid UTF-8")?;
            match key {
                "sslmode" => mode = Some(SslMode::parse(&value)?),
                "sslrootcert" => {
                    roots = Some(match value.as_ref() {
                        "system" => RootCertificates::System,
                        path => RootCertificates::File(PathBuf::from(path)),
                    });
                }
                _ => kept.push(pair),
            }
        }
        let rest = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
        Ok(Self { rest, mode, roots })
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn client_config(verification: &Verification) -> anyhow::Result<ClientConfig> {
    let provider = provider();
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .context("TLS protocol versions")?;
    let verifier: Arc<dyn ServerCertVerifier> = match verification {
        Verification::None => Arc::new(AnyCertificate(provider.signature_verification_algorithms)),
        Verification::Chain(roots) => Arc::new(ChainOnly(webpki_verifier(roots, provider)?)),
        Verification::Full(roots) => webpki_verifier(roots, provider)?,
    };
    Ok(builder.dangerous().with_custom_certificate_verifier(verifier).with_no_client_auth())
}

fn webpki_verifier(
    roots: &RootCertificates,
    provider: Arc<CryptoProvider>,
) -> anyhow::Result<Arc<WebPkiServerVerifier>> {
    let store = match roots {
        RootCertificates::File(path) => roots_from_file(path)?,
        RootCertificates::System => roots_of_the_platform()?,
    };
    WebPkiServerVerifier::builder_with_provider(Arc::new(store), provider)
        .build()
        .context("building the certificate verifier")
}

fn roots_from_file(path: &Path) -> anyhow::Result<RootCertStore> {
    let shown = path.display();
    let mut store = RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(path).with_context(|| format!("sslrootcert={shown}"))? {
        let certificate = certificate.with_context(|| format!("sslrootcert={shown} is not PEM"))?;
        store.add(certificate).with_context(|| format!("sslrootcert={shown} holds a certificate that is not valid"))?;
    }
    if store.is_empty() {
        bail!("sslrootcert={shown} holds no certificate");
    }
    Ok(store)
}

fn roots_of_the_platform() -> anyhow::Result<RootCertStore> {
    let found = rustls_native_certs::load_native_certs();
    let mut store = RootCertStore::empty();
    store.add_parsable_certificates(found.certs);
    if store.is_empty() {
        bail!("the platform's certificate store is empty or unreadable: install ca-certificates or set sslrootcert");
    }
    Ok(store)
}

/// `verify-ca`: the full check, less the name.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        // The chain is checked before the name, so a name error means the chain was trusted.
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            verdict => verdict,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` and `require` without a root file: any certificate, though the handshake must still
/// be signed by the key it names.
#[derive(Debug)]
struct AnyCertificate(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(url: &str) -> (String, Option<SslMode>, Option<RootCertificates>) {
        let TlsParameters { rest, mode, roots } = TlsParameters::take_from(url).expect("a URL");
        (rest, mode, roots)
    }

    #[test]
    fn the_tls_parameters_are_taken_out_and_the_rest_kept_as_written() {
        let (rest, mode, roots) = parts(
            "postgres://pulse:p%40ss@db.example.com:5432/pulse?sslmode=verify-full&application_name=pulse&sslrootcert=%2Fetc%2Fca.pem",
        );
        assert_eq!(rest, "postgres://pulse:p%40ss@db.example.com:5432/pulse?application_name=pulse");
        assert_eq!(mode, Some(SslMode::VerifyFull));
        assert_eq!(roots, Some(RootCertificates::File(PathBuf::from("/etc/ca.pem"))));

        assert_eq!(parts("postgresql://h/db?sslmode=require").0, "postgresql://h/db");
        assert_eq!(parts("postgres://h/db"), ("postgres://h/db".to_owned(), None, None));
        assert_eq!(parts("postgres://h/db?sslrootcert=system").2, Some(RootCertificates::System));
    }

    #[test]
    fn libpq_decides_the_verification() {
        let file = || Some(RootCertificates::File(PathBuf::from("ca.pem")));
        let cases = [
            (SslMode::Disable, file(), Verification::None),
            (SslMode::Prefer, None, Verification::None),
            (SslMode::Require, None, Verification::None),
            // A root file turns the chain check on below verify-ca too.
            (SslMode::Prefer, file(), Verification::Chain(RootCertificates::File("ca.pem".into()))),
            (SslMode::Require, file(), Verification::Chain(RootCertificates::File("ca.pem".into()))),
            (SslMode::VerifyCa, None, Verification::Chain(RootCertificates::System)),
            (SslMode::VerifyFull, None, Verification::Full(RootCertificates::System)),
            (SslMode::VerifyFull, file(), Verification::Full(RootCertificates::File("ca.pem".into()))),
            (SslMode::VerifyFull, Some(RootCertificates::System), Verification::Full(RootCertificates::System)),
        ];
        for (mode, roots, expected) in cases {
            assert_eq!(Verification::of(mode, roots.clone()).expect("allowed"), expected, "{mode:?} with {roots:?}");
        }
        for mode in [SslMode::Disable, SslMode::Prefer, SslMode::Require, SslMode::VerifyCa] {
            let refused = Verification::of(mode, Some(RootCertificates::System)).expect_err("weaker than verify-full");
            assert!(refused.to_string().contains("sslrootcert=system needs sslmode=verify-full"), "{refused}");
        }
    }

    #[test]
    fn without_sslmode_it_is_prefer_or_verify_full_with_the_system_roots() {
        assert_eq!(DatabaseTarget::parse("postgres://u@h/db").expect("parsed").mode, SslMode::Prefer);
        let system = DatabaseTarget::parse("postgres://u@h/db?sslrootcert=system").expect("parsed");
        assert_eq!(system.mode, SslMode::VerifyFull);
    }

    #[test]
    fn a_bad_setting_is_named_and_the_password_never_is() {
        let password = "s3cret-Pa55";
        let cases = [
            (format!("postgres://u:{password}@h/db?sslmode=verify_full"), "sslmode=verify_full is not one of"),
            (
                format!("postgres://u:{password}@h/db?sslmode=require&sslrootcert=/nonexistent/ca.pem"),
                "sslrootcert=/nonexistent/ca.pem",
            ),
            (format!("postgres://u:{password}@h/db?sslcert=client.pem"), "sslcert"),
            (format!("host=h password={password} sslmode=verify-full"), "must start with postgres://"),
        ];
        for (url, named) in cases {
            let message = format!("{:#}", DatabaseTarget::parse(&url).expect_err("refused"));
            assert!(message.contains(named), "{message} should name {named}");
            assert!(!message.contains(password), "{message} shows the password");
        }
    }

    #[test]
    fn a_target_shows_where_it_connects_and_not_who() {
        let target =
            DatabaseTarget::parse("postgres://pulse:hunter2@db-1:6432,db-2/pulse?sslmode=require").expect("parsed");
        assert_eq!(target.to_string(), "db-1:6432,db-2:5432/pulse (sslmode=require)");
        assert_eq!(format!("{target:?}"), target.to_string());
    }
}
