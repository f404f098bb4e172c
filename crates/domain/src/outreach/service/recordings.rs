//! Recordings of spoken answers: the provider reports each one it made, Pulse keeps its reference
//! sealed, and the worker deletes it at the provider once the campaign's `audioRetentionDays`
//! have passed (at once when its respondent was erased), trying again until the provider
//! confirms.

use serde_json::json;

use super::Outreach;
use crate::error::Result;
use crate::ids::{MessageId, RecordingId};
use crate::outreach::models::{
    NewRecording, RECORDING_BATCH, RECORDING_LEASE, RecordingDeletion, RecordingResult, RecordingRound, delete_after,
    retry_wait,
};
use crate::outreach::ports::{MessageSender, OutreachRepository};
use crate::shared::clock::Clock;
use crate::shared::crypto::{Crypto, DigestPurpose};

impl<R, M, C, K> Outreach<R, M, C, K>
where
    R: OutreachRepository,
    M: MessageSender,
    C: Crypto,
    K: Clock,
{
    /// The provider's report that it made a recording during a call (its request `params`,
    /// signed with `signature`, made to `url`): the reference is kept sealed until the recording
    /// is deleted. A report without a recording changes nothing.
    ///
    /// # Errors
    /// `Unauthenticated` unless the provider signed the request; `NotFound` for an unknown call;
    /// port errors.
    pub async fn call_recorded(
        &self,
        message: MessageId,
        url: &str,
        params: &[(String, String)],
        signature: Option<&str>,
    ) -> Result<()> {
        // Even a recording made on another call of the message (or after the call's outcome) is
        // audio at the provider: it is kept, so that it is deleted too.
        let (report, call) = self.signed_call(message, url, params, signature).await?;
        let Some(reference) = report.recording else { return Ok(()) };
        let now = self.clock.now();
        let id = RecordingId::new_random();
        let erased = call.recipient.reference.is_none();
        let recording = NewRecording {
            id,
            message_id: message,
            campaign_id: call.campaign_id,
            reference_digest: self.crypto.keyed_digest(DigestPurpose::RecordingRef, reference.as_bytes()),
            reference_sealed: self.crypto.seal(&reference_context(id), reference.as_bytes()),
            recorded_at: now,
            delete_after: delete_after(now, call.audio_retention_days, erased),
        };
        self.repo.record_recording(&recording).await
    }

    /// Deletes a batch of recordings due for deletion at the provider, and records each result.
    ///
    /// # Errors
    /// Port errors of claiming or recording; a deletion that fails is a result.
    pub async fn delete_due_recordings(&self) -> Result<RecordingRound> {
        let now = self.clock.now();
        let mut round = RecordingRound::default();
        for due in self.repo.claim_recordings(now, now + RECORDING_LEASE, RECORDING_BATCH).await? {
            let deletion = match self.crypto.open(&reference_context(due.id), &due.reference_sealed) {
                Ok(reference) => self.sender.delete_recording(&String::from_utf8_lossy(&reference)).await,
                // Sealed under a key this process lacks: another replica, or a restored key, may
                // still open it.
                Err(_) => RecordingDeletion::Failed { code: "RECORDING_REFERENCE_UNREADABLE".into() },
            };
            let at = self.clock.now();
            let result = match deletion {
                RecordingDeletion::Deleted => {
                    round.deleted.push(due.id);
                    RecordingResult::Deleted { at }
                }
                RecordingDeletion::Failed { code } => {
                    round.retried.push((due.id, code.clone()));
                    RecordingResult::Retry { next_at: at + retry_wait(due.attempts.saturating_add(1)), code }
                }
            };
            self.repo.finish_recording(due.id, &result).await?;
        }
        Ok(round)
    }
}

/// The associated data a recording's reference is sealed to.
fn reference_context(recording: RecordingId) -> Vec<u8> {
    json!({"recording": recording, "field": "reference"}).to_string().into_bytes()
}
