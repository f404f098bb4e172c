//! Recordings of spoken answers, kept at the voice provider only while the campaign allows: Pulse
//! holds each recording's reference sealed (never the audio) until the provider confirms it
//! deleted the recording.

use time::{Duration, OffsetDateTime};

use crate::ids::{CampaignId, MessageId, RecordingId};

/// Recordings whose deletion is attempted per round.
pub const RECORDING_BATCH: u32 = 20;
/// How long a claimed recording is held before another worker may take it over: each deletion
/// is bounded by the provider's timeout (about 20 seconds).
pub const RECORDING_LEASE: Duration = Duration::minutes(15);
/// Days a recording is kept when the campaign does not set `audioRetentionDays`: long enough to
/// listen to a week's calls, and no longer.
pub const DEFAULT_AUDIO_RETENTION_DAYS: u8 = 7;
/// The longest wait between two attempts to delete one recording.
const RETRY_AT_MOST: Duration = Duration::hours(1);

/// Whether the operator records spoken answers at the voice provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AnswerRecording {
    /// Nothing is recorded: the words the provider recognised are the answer.
    #[default]
    Off,
    /// Each answer given in words is also recorded at the provider, and deleted after the
    /// campaign's `audioRetentionDays`.
    On,
}

/// When a recording made at `recorded_at` for a campaign keeping audio `retention_days` must be
/// deleted; at once when its respondent was erased.
pub fn delete_after(recorded_at: OffsetDateTime, retention_days: Option<u8>, erased: bool) -> OffsetDateTime {
    if erased {
        return recorded_at;
    }
    let days = retention_days.unwrap_or(DEFAULT_AUDIO_RETENTION_DAYS);
    recorded_at + Duration::days(i64::from(days))
}

/// The wait before the next attempt to delete a recording that failed `attempts` times: a
/// minute, doubling, at most an hour. Attempts never stop: a recording is deleted, or it shows
/// as overdue.
pub fn retry_wait(attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(6);
    (Duration::minutes(1) * 2_i32.pow(doublings)).min(RETRY_AT_MOST)
}

/// A recording the provider reported, to keep until it is due for deletion.
#[derive(Clone, PartialEq, Eq)]
pub struct NewRecording {
    pub id: RecordingId,
    pub message_id: MessageId,
    pub campaign_id: CampaignId,
    /// The keyed digest of the provider's reference: a recording reported twice is kept once.
    pub reference_digest: Vec<u8>,
    pub reference_sealed: Vec<u8>,
    pub recorded_at: OffsetDateTime,
    pub delete_after: OffsetDateTime,
}

impl std::fmt::Debug for NewRecording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewRecording")
            .field("id", &self.id)
            .field("message_id", &self.message_id)
            .finish_non_exhaustive()
    }
}

/// A recording claimed for deletion.
#[derive(Clone, PartialEq, Eq)]
pub struct DueRecording {
    pub id: RecordingId,
    pub reference_sealed: Vec<u8>,
    /// Attempts that failed so far.
    pub attempts: u32,
}

impl std::fmt::Debug for DueRecording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DueRecording").field("id", &self.id).field("attempts", &self.attempts).finish_non_exhaustive()
    }
}

/// What the provider answered to a deletion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordingDeletion {
    /// Gone at the provider (deleted now, or already).
    Deleted,
    /// Not confirmed: tried again later. The code names the failure's kind only.
    Failed { code: String },
}

/// What became of a claimed recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecordingResult {
    /// Deleted: its sealed reference is dropped.
    Deleted { at: OffsetDateTime },
    /// Tried again at `next_at`.
    Retry { next_at: OffsetDateTime, code: String },
}

/// A campaign's recordings at the provider.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordingCounts {
    /// At the provider, within the campaign's retention.
    pub held: u64,
    /// Deleted at the provider, as it confirmed.
    pub deleted: u64,
    /// Past their retention (or their respondent erased) and not yet confirmed deleted.
    pub overdue: u64,
}

/// What one round of the recordings worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordingRound {
    pub deleted: Vec<RecordingId>,
    /// Not confirmed, with the failure's code: tried again later.
    pub retried: Vec<(RecordingId, String)>,
}

impl RecordingRound {
    pub fn handled(&self) -> usize {
        self.deleted.len() + self.retried.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recording_is_kept_for_the_campaign_s_days_or_a_week_and_not_at_all_once_erased() {
        let at = time::macros::datetime!(2026-03-02 10:00 UTC);
        assert_eq!(delete_after(at, Some(30), false), time::macros::datetime!(2026-04-01 10:00 UTC));
        assert_eq!(delete_after(at, None, false), time::macros::datetime!(2026-03-09 10:00 UTC));
        assert_eq!(delete_after(at, Some(30), true), at);
    }

    #[test]
    fn retries_double_from_a_minute_up_to_an_hour() {
        let waits: Vec<i64> = (1..=9).map(|n| retry_wait(n).whole_minutes()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
    }
}
