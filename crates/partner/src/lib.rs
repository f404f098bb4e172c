//! What a partner's server codes against Pulse, and nothing of the server:
//!
//! - [`sign_launch_token`]: a launch token for `?lt=`, signed with a campaign's launch key, so an
//!   app opens the survey without asking Pulse for a link;
//! - [`user_hash`]: the `user.userHash` an app sends at register to have its user verified;
//! - [`verify_webhook`]: checks a delivery's `X-SVC-Signature` over the raw body within the
//!   300-second tolerance, and parses it into a typed [`Event`];
//! - [`challenge::solve`]: solves the proof-of-work challenge an open campaign's start can ask
//!   for, into the `altcha` the start takes.
//!
//! Every secret is compared in constant time; no function logs or keeps what it is given.

pub mod challenge;
mod hex;
mod launch;
mod user_hash;
mod webhook;

pub use launch::{LaunchClaims, LaunchTokenError, MAX_LAUNCH_TOKEN_LIFETIME_SECS, sign_launch_token};
pub use user_hash::user_hash;
pub use webhook::{
    Envelope, Event, ExportReady, FeedbackAnalyzed, FeedbackReceived, RespondentAcknowledged, SIGNATURE_TOLERANCE_SECS,
    WebhookError, WebhookTest, WorkspaceApproved, verify_webhook, verify_webhook_at,
};
