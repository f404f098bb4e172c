//! `S3ExportStore`: the [`ExportStore`] port over an S3-compatible object store, so export files
//! live outside the database and every replica reads what any replica wrote.

use std::error::Error as StdError;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::client::{HttpError, HttpErrorKind};
use object_store::path::Path;
use object_store::{BackoffConfig, ClientOptions, ObjectStoreExt as _, PutPayload, RetryConfig};
use pulse_domain::exports::ports::ExportStore;
use pulse_domain::ids::ExportId;
use pulse_domain::{Error, Result};
use secrecy::{ExposeSecret as _, SecretString};

/// Where the files go and how to get there.
#[derive(Clone, Debug)]
pub struct S3Config {
    pub bucket: String,
    /// For S3-compatible servers; `None` means AWS itself.
    pub endpoint: Option<String>,
    pub region: String,
    pub access_key_id: SecretString,
    pub secret_access_key: SecretString,
    /// Lets the endpoint be `http://`: a local server only.
    pub allow_http: bool,
}

/// The settings could not make a client; the text names no credential.
#[derive(Debug, thiserror::Error)]
#[error("S3 export store: {0}")]
pub struct ConfigError(String);

#[derive(Clone)]
pub struct S3ExportStore {
    store: AmazonS3,
}

impl S3ExportStore {
    /// # Errors
    /// When the settings cannot make a client (a malformed endpoint, say).
    pub fn new(config: &S3Config) -> Result<Self, ConfigError> {
        // Few, short retries: a failed put is retried by the export worker as a whole, and a
        // download should fail fast rather than hold the request.
        let retry = RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
                base: 2.0,
            },
            max_retries: 3,
            retry_timeout: Duration::from_secs(30),
        };
        let client = ClientOptions::new()
            .with_allow_http(config.allow_http)
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(Duration::from_secs(60));
        // `new`, not `from_env`: only our settings configure the client, never stray AWS_* variables.
        let mut builder = AmazonS3Builder::new()
            .with_bucket_name(&config.bucket)
            .with_region(&config.region)
            .with_access_key_id(config.access_key_id.expose_secret())
            .with_secret_access_key(config.secret_access_key.expose_secret())
            .with_allow_http(config.allow_http)
            .with_retry(retry)
            .with_client_options(client);
        if let Some(endpoint) = &config.endpoint {
            builder = builder.with_endpoint(endpoint);
        }
        let store = builder.build().map_err(|e| ConfigError(e.to_string()))?;
        Ok(Self { store })
    }
}

fn key(id: ExportId) -> Path {
    Path::from(format!("exports/{id}"))
}

impl ExportStore for S3ExportStore {
    async fn put(&self, id: ExportId, bytes: Vec<u8>) -> Result<()> {
        let key = key(id);
        self.store.put(&key, PutPayload::from(bytes)).await.map_err(|e| failure("put", &key, &e))?;
        Ok(())
    }

    async fn get(&self, id: ExportId) -> Result<Option<Vec<u8>>> {
        let key = key(id);
        match self.store.get(&key).await {
            Ok(found) => found.bytes().await.map(|b| Some(Vec::from(b))).map_err(|e| failure("get", &key, &e)),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(failure("get", &key, &e)),
        }
    }

    async fn delete(&self, id: ExportId) -> Result<()> {
        let key = key(id);
        match self.store.delete(&key).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(failure("delete", &key, &e)),
        }
    }
}

/// A failure in the domain's terms. object_store's own texts name the request URL and may quote
/// the server's answer, so neither is passed on: only the operation, the key and a class.
fn failure(op: &'static str, key: &Path, error: &object_store::Error) -> Error {
    if unreachable(error) {
        return Error::Unavailable(format!("S3 export store unreachable ({op} {key})"));
    }
    let what = match error {
        object_store::Error::NotFound { .. } => "not found (does the bucket exist?)",
        object_store::Error::PermissionDenied { .. } => "permission denied",
        object_store::Error::Unauthenticated { .. } => "credentials refused",
        _ => "request failed",
    };
    Error::internal(S3Failure { op, key: key.to_string(), what })
}

/// Whether the request never got an answer (refused, reset, timed out), after object_store's retries.
fn unreachable(error: &object_store::Error) -> bool {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(http) = e.downcast_ref::<HttpError>() {
            return matches!(
                http.kind(),
                HttpErrorKind::Connect | HttpErrorKind::Request | HttpErrorKind::Timeout | HttpErrorKind::Interrupted
            );
        }
        cause = e.source();
    }
    false
}

#[derive(Debug, thiserror::Error)]
#[error("S3 {op} of {key}: {what}")]
struct S3Failure {
    op: &'static str,
    key: String,
    what: &'static str,
}
