//! `S3ExportStore` against a real S3 protocol server: moto's server mode, started per test.

use std::io::{Read as _, Write as _};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pulse_domain::exports::ports::ExportStore;
use pulse_domain::ids::ExportId;
use pulse_domain::{Error, ErrorCode};
use pulse_export_s3::{S3Config, S3ExportStore};
use secrecy::SecretString;

const INSTALL: &str = "these tests need moto's S3 server: install it with `pip install 'moto[server]'`";
const SECRET: &str = "test-secret-access-key";

/// A moto server on a free loopback port, killed on drop.
struct Moto {
    child: Child,
    port: u16,
}

impl Moto {
    /// Starts moto and creates `bucket` (object_store cannot create buckets).
    fn start(bucket: &str) -> Self {
        let port = free_port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run moto_server ({e}): {INSTALL}"));
        let mut moto = Self { child, port };
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // A shim (pyenv) may exist without moto behind it: it exits at once.
            if let Ok(Some(status)) = moto.child.try_wait() {
                panic!("moto_server exited with {status}: {INSTALL}");
            }
            // Creating the bucket is also the readiness probe.
            if http_put(port, &format!("/{bucket}")) == Some(200) {
                return moto;
            }
            assert!(Instant::now() < deadline, "moto_server did not answer on port {port} within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn store(&self, bucket: &str) -> S3ExportStore {
        S3ExportStore::new(&config(self.port, bucket)).expect("store")
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config(port: u16, bucket: &str) -> S3Config {
    S3Config {
        bucket: bucket.to_owned(),
        endpoint: Some(format!("http://127.0.0.1:{port}")),
        region: "us-east-1".to_owned(),
        access_key_id: SecretString::from("test-access-key-id"),
        secret_access_key: SecretString::from(SECRET),
        allow_http: true,
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port()
}

/// A bare HTTP/1.1 PUT without a body; the status, or `None` when nothing answers.
fn http_put(port: u16, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let request =
        format!("PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    answer.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test]
async fn put_then_get_returns_the_bytes_and_put_replaces() {
    let moto = Moto::start("exports");
    let store = moto.store("exports");
    let id = ExportId::new_random();
    store.put(id, b"first".to_vec()).await.expect("put");
    assert_eq!(store.get(id).await.expect("get"), Some(b"first".to_vec()));
    store.put(id, b"second, longer".to_vec()).await.expect("put again");
    assert_eq!(store.get(id).await.expect("get"), Some(b"second, longer".to_vec()));
}

#[tokio::test]
async fn a_missing_file_is_none() {
    let moto = Moto::start("exports");
    let store = moto.store("exports");
    assert_eq!(store.get(ExportId::new_random()).await.expect("get"), None);
}

#[tokio::test]
async fn delete_removes_and_deleting_twice_is_fine() {
    let moto = Moto::start("exports");
    let store = moto.store("exports");
    let (id, other) = (ExportId::new_random(), ExportId::new_random());
    store.put(id, b"file".to_vec()).await.expect("put");
    store.put(other, b"other".to_vec()).await.expect("put");
    store.delete(id).await.expect("delete");
    assert_eq!(store.get(id).await.expect("get"), None);
    store.delete(id).await.expect("delete again");
    store.delete(ExportId::new_random()).await.expect("delete of a file never stored");
    assert_eq!(store.get(other).await.expect("get"), Some(b"other".to_vec()), "only its own file goes");
}

#[tokio::test]
async fn two_replicas_see_each_others_files() {
    let moto = Moto::start("exports");
    let (one, two) = (moto.store("exports"), moto.store("exports"));
    let id = ExportId::new_random();
    one.put(id, b"rendered by one".to_vec()).await.expect("put");
    assert_eq!(two.get(id).await.expect("get"), Some(b"rendered by one".to_vec()));
    two.delete(id).await.expect("delete");
    assert_eq!(one.get(id).await.expect("get"), None);
}

#[tokio::test]
async fn a_closed_port_is_unavailable() {
    let store = S3ExportStore::new(&config(free_port(), "exports")).expect("store");
    let id = ExportId::new_random();
    let failures = [
        store.put(id, b"file".to_vec()).await.expect_err("put"),
        store.get(id).await.expect_err("get"),
        store.delete(id).await.expect_err("delete"),
    ];
    for error in failures {
        assert!(matches!(error, Error::Unavailable(_)), "{error:?}");
        assert_eq!(error.code(), ErrorCode::Unavailable);
        let text = format!("{error} {error:?}");
        assert!(!text.contains(SECRET) && !text.contains("http://"), "{text}");
    }
}

#[tokio::test]
async fn a_missing_bucket_is_internal_and_names_no_secret() {
    let moto = Moto::start("exports");
    let store = moto.store("no-such-bucket");
    let error = store.put(ExportId::new_random(), b"file".to_vec()).await.expect_err("put");
    assert!(matches!(error, Error::Internal(_)), "{error:?}");
    let text = format!("{error} {error:?}");
    assert!(!text.contains(SECRET) && !text.contains("http://"), "{text}");
}
