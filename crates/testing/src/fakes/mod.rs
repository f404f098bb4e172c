//! Fakes of the ports whose real adapters are slow, secret or outside: crypto, the webhook
//! transport, the survey generator, launch-token signing, the analyzer, the export renderer and
//! the message sender.

mod analyzer;
mod crypto;
mod generator;
mod renderer;
mod sender;
mod tokens;
mod transport;

pub use analyzer::FakeAnalyzer;
pub use crypto::TestCrypto;
pub use generator::FakeGenerator;
pub use renderer::FakeRenderer;
pub use sender::{GENUINE_REPLY, RecordingSender};
pub use tokens::{FakeTokens, SERVER_SECRET, fake_token};
pub use transport::RecordingTransport;
