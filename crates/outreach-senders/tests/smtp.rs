//! `SmtpSender` against a real SMTP server: Python's aiosmtpd (`python3 -m pip install aiosmtpd`),
//! started on a free loopback port with a handler that stores each message in a maildir and
//! refuses some recipients the way real servers do.

use std::fs;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mail_parser::MessageParser;
use pulse_domain::campaigns::models::DeliveryChannel;
use pulse_domain::ids::MessageId;
use pulse_domain::outreach::models::{EmailContent, OutgoingMessage, SendOutcome};
use pulse_domain::outreach::ports::MessageSender;
use pulse_outreach_senders::{SmtpSender, SmtpSettings};
use tempfile::TempDir;
use tokio::net::{TcpListener, TcpStream};

/// The server's handler: aiosmtpd's `Mailbox` (one file per message under `new/`), except for
/// recipients whose local part asks for a refusal. The refusals quote the address, as real
/// servers do, so the tests can check that no code repeats them.
const HANDLER: &str = r#"
from aiosmtpd.handlers import Mailbox

class Picky(Mailbox):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.startswith("bounce@"):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        if address.startswith("busy@"):
            return "451 4.3.0 <%s>: Temporary lookup failure" % address
        if address.startswith("locked@"):
            return "530 5.7.0 Authentication required"
        envelope.rcpt_tos.append(address)
        return "250 OK"
"#;

/// An aiosmtpd process, killed on drop, and the folders it uses.
struct SmtpServer {
    child: Child,
    port: u16,
    maildir: PathBuf,
    dir: TempDir,
}

impl SmtpServer {
    async fn start() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        fs::write(dir.path().join("picky.py"), HANDLER).expect("the handler is written");
        let maildir = dir.path().join("maildir");
        let log = fs::File::create(dir.path().join("server.log")).expect("the log file is created");
        let port = free_port().await;
        let child = Command::new("python3")
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}"), "-c", "picky.Picky"])
            .arg(&maildir)
            .env("PYTHONPATH", dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|error| panic!("python3 could not be started ({error}): aiosmtpd needs python3"));
        let mut server = Self { child, port, maildir, dir };
        server.wait_until_listening().await;
        server
    }

    async fn wait_until_listening(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("the server's status can be read") {
                let log = fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default();
                panic!(
                    "aiosmtpd exited ({status}) before listening; install it with `python3 -m pip install aiosmtpd`:\n{log}"
                );
            }
            if TcpStream::connect(("127.0.0.1", self.port)).await.is_ok() {
                return;
            }
            assert!(Instant::now() < deadline, "aiosmtpd did not listen on 127.0.0.1:{} within 20 s", self.port);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}?tls=none", self.port)
    }

    /// The messages the server stored, as raw bytes.
    fn stored(&self) -> Vec<Vec<u8>> {
        let Ok(entries) = fs::read_dir(self.maildir.join("new")) else {
            return Vec::new();
        };
        entries.map(|entry| fs::read(entry.expect("a maildir entry").path()).expect("a stored message")).collect()
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port that was free a moment ago.
async fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    listener.local_addr().expect("the listener has an address").port()
}

fn sender(url: String, timeout: Duration) -> SmtpSender {
    SmtpSender::new(SmtpSettings {
        url,
        from_address: "surveys@pulse.example.org".to_owned(),
        username: None,
        password: None,
        timeout,
    })
    .expect("the settings are valid")
}

const SUBJECT: &str = "आपकी राय: « Café Lumière » a une question pour vous";
const TEXT: &str = "Bonjour Ada,\nDonnez-nous votre avis : https://pulse.example.org/s/c1/n0nce\n";
const HTML: &str = "<p>Bonjour Ada,</p><p><a href=\"https://pulse.example.org/s/c1/n0nce\">Répondre</a></p>";
const UNSUBSCRIBE: &str = "https://pulse.example.org/u/AAECAwQFBgcICQoLDA0ODxBF.c2lnbmF0dXJl";

fn invitation(to: &str) -> OutgoingMessage {
    OutgoingMessage {
        id: MessageId::new_random(),
        channel: DeliveryChannel::Email,
        to: to.to_owned(),
        unsubscribe_url: Some(UNSUBSCRIBE.to_owned()),
        sender_name: "Café \"Lumière\", Paris".to_owned(),
        email: Some(EmailContent { subject: SUBJECT.to_owned(), text: TEXT.to_owned(), html: HTML.to_owned() }),
        text: None,
        call: None,
    }
}

fn assert_code_is_clean(outcome: &SendOutcome, address: &str) {
    let code = match outcome {
        SendOutcome::Rejected { code } | SendOutcome::Deferred { code, .. } => code,
        SendOutcome::Accepted { .. } => return,
    };
    let local = address.split('@').next().unwrap_or(address);
    assert!(!code.contains(address) && !code.to_lowercase().contains(local), "{code}");
    assert!(!code.contains("Recipient") && !code.contains("lookup"), "no server text: {code}");
}

#[tokio::test]
async fn an_invitation_arrives_with_its_headers_and_both_bodies() {
    let server = SmtpServer::start().await;
    let message = invitation("ada@example.com");
    let outcome = sender(server.url(), Duration::from_secs(10)).send(&message).await;
    assert_eq!(outcome, SendOutcome::Accepted { provider_id: None });

    let stored = server.stored();
    assert_eq!(stored.len(), 1, "one message is stored");
    let email = MessageParser::default().parse(&stored[0]).expect("the stored message parses");

    let from = email.from().and_then(|from| from.first()).expect("a From mailbox");
    assert_eq!(from.name(), Some("Café \"Lumière\", Paris via Pulse"));
    assert_eq!(from.address(), Some("surveys@pulse.example.org"));
    let to = email.to().and_then(|to| to.first()).expect("a To mailbox");
    assert_eq!(to.address(), Some("ada@example.com"));
    assert_eq!(email.subject(), Some(SUBJECT), "the non-ASCII subject survives its encoding");
    assert_eq!(email.message_id(), Some(format!("{}@pulse.example.org", message.id).as_str()));

    let header =
        |name: &'static str| email.header_raw(name).map(str::trim).unwrap_or_else(|| panic!("no {name} header"));
    assert!(header("Content-Type").starts_with("multipart/alternative"), "{}", header("Content-Type"));
    assert_eq!(header("List-Unsubscribe"), format!("<{UNSUBSCRIBE}>"));
    assert_eq!(header("List-Unsubscribe-Post"), "List-Unsubscribe=One-Click");
    assert_eq!((email.text_body_count(), email.html_body_count()), (1, 1));
    assert_eq!(email.body_text(0).as_deref().map(str::trim_end), Some(TEXT.trim_end()));
    assert_eq!(email.body_html(0).as_deref().map(str::trim_end), Some(HTML));
}

#[tokio::test]
async fn refusals_are_rejected_or_deferred_by_their_reply_code_and_never_quoted() {
    let server = SmtpServer::start().await;
    let sender = sender(server.url(), Duration::from_secs(10));

    let bounced = sender.send(&invitation("bounce@example.com")).await;
    assert_eq!(bounced, SendOutcome::Rejected { code: "EMAIL_REJECTED".to_owned() });
    assert_code_is_clean(&bounced, "bounce@example.com");

    let busy = sender.send(&invitation("busy@example.com")).await;
    assert_eq!(busy, SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None });
    assert_code_is_clean(&busy, "busy@example.com");

    // What a submission server says to a client that did not log in: the account, not the
    // message, is wrong, so the message waits for an operator.
    let locked = sender.send(&invitation("locked@example.com")).await;
    assert_eq!(locked, SendOutcome::Deferred { code: "EMAIL_AUTH_FAILED".to_owned(), retry_after: None });

    let invalid = sender.send(&invitation("ada at example.com")).await;
    assert_eq!(invalid, SendOutcome::Rejected { code: "EMAIL_ADDRESS_INVALID".to_owned() });
    assert!(server.stored().is_empty(), "nothing was stored");
}

#[tokio::test]
async fn a_server_without_starttls_is_not_used_unless_the_url_says_so() {
    let server = SmtpServer::start().await;
    let url = format!("smtp://127.0.0.1:{}", server.port);
    let outcome = sender(url, Duration::from_secs(10)).send(&invitation("ada@example.com")).await;
    assert_eq!(outcome, SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None });
    assert!(server.stored().is_empty(), "nothing went out in plain text");
}

#[tokio::test]
async fn a_closed_port_or_a_silent_server_defers() {
    let closed = free_port().await;
    let outcome = sender(format!("smtp://127.0.0.1:{closed}?tls=none"), Duration::from_secs(5))
        .send(&invitation("ada@example.com"))
        .await;
    assert_eq!(outcome, SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None });

    // Accepts the connection and never greets.
    let silent = TcpListener::bind("127.0.0.1:0").await.expect("a loopback port is free");
    let port = silent.local_addr().expect("the listener has an address").port();
    let held = tokio::spawn(async move {
        let (stream, _) = silent.accept().await.expect("the sender connects");
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(stream);
    });
    let started = Instant::now();
    let outcome = sender(format!("smtp://127.0.0.1:{port}?tls=none"), Duration::from_millis(500))
        .send(&invitation("ada@example.com"))
        .await;
    assert_eq!(outcome, SendOutcome::Deferred { code: "EMAIL_UNAVAILABLE".to_owned(), retry_after: None });
    assert!(started.elapsed() < Duration::from_secs(5), "the timeout held: {:?}", started.elapsed());
    held.abort();
}
