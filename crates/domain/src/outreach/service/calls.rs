//! A survey by phone: each request the voice provider makes about a call is one turn. The turn
//! reads the caller's keys or words, drives the respondent's session as the page would, records
//! what changed, and answers with what to say next.

use secrecy::ExposeSecret as _;
use serde_json::{Map, Value, json};

use super::Outreach;
use crate::campaigns::models::CampaignStatus;
use crate::error::{Error, ErrorCode, Result};
use crate::ids::{MessageId, SessionId};
use crate::outreach::models::{
    AddressFamily, AnswerRecording, CallContext, CallOutcome, CallReply, CallReport, CallScript, CallStep, CallUpdate,
    Consent, DEFAULT_AUDIO_RETENTION_DAYS, OptOutSource, TurnUrls, VoiceTurn, interrupted_call, is_stop,
};
use crate::outreach::ports::{CallSessions, MessageSender, OutreachRepository};
use crate::sessions::models::{AnswerInput, StartInput, StartOutcome, Visit};
use crate::shared::clock::Clock;
use crate::shared::crypto::Crypto;

/// Where the provider sends a call's requests, under the API's public origin.
pub const CALLS_PATH: &str = "/api/v1/public/calls";
/// The last segment of the URL the provider reports a call's recordings at.
pub const RECORDING_STEP: &str = "recording";

impl<R, M, C, K> Outreach<R, M, C, K>
where
    R: OutreachRepository,
    M: MessageSender,
    C: Crypto,
    K: Clock,
{
    /// The URL the provider requests a call's `step` at.
    pub(super) fn call_url(&self, message: MessageId, step: &str) -> String {
        format!("{}{CALLS_PATH}/{message}/{step}", self.base_url)
    }

    /// One turn of a call: the provider asked at `step` (its request `params`, signed with
    /// `signature`, made to `url`); the answer is what to say next, in the provider's markup. A
    /// turn that fails once the request is known to be the provider's is answered with an apology
    /// and the line hung up, the failure beside it.
    ///
    /// # Errors
    /// `Unauthenticated` unless the provider signed the request; `NotFound` for an unknown call
    /// or step.
    pub async fn call_turn<S: CallSessions>(
        &self,
        sessions: &S,
        message: MessageId,
        step: &str,
        url: &str,
        params: &[(String, String)],
        signature: Option<&str>,
    ) -> Result<CallReply> {
        let report = self.read_call(url, params, signature)?;
        let step = CallStep::parse(step).ok_or_else(|| Error::not_found("call step"))?;
        let call = match self.repo.call(message).await {
            Ok(Some(call)) => call,
            Ok(None) => return Err(Error::not_found("call")),
            // Without the call, its language is unknown: the line is hung up without a word.
            Err(failure) => return Ok(self.call_reply(message, &VoiceTurn::hang_up(), Some(failure))),
        };
        // Only the call Twilio placed for the message drives it: a second call of the same
        // message (a placement retried after a lost answer) is hung up.
        if call.outcome.is_some() || !call.placed_as(&report) {
            return Ok(self.call_reply(message, &VoiceTurn::hang_up(), None));
        }
        Ok(match self.turn(sessions, &call, step, &report).await {
            Ok(turn) => self.call_reply(message, &turn, None),
            Err(failure) => self.call_reply(message, &interrupted_call(&call.language, call.register), Some(failure)),
        })
    }

    fn call_reply(&self, message: MessageId, turn: &VoiceTurn, failure: Option<Error>) -> CallReply {
        let action = turn.listen.map_or_else(String::new, |listen| self.call_url(message, &listen.next.segment()));
        let urls = TurnUrls { action, recording: self.call_url(message, RECORDING_STEP) };
        CallReply { markup: self.sender.render_turn(turn, &urls), failure }
    }

    /// The provider's report that a call ended: a call nobody took counts as not reached, and a
    /// session the callee left half-way is completed with what it has, to be judged as the
    /// page's are.
    ///
    /// # Errors
    /// As [`Outreach::call_turn`].
    pub async fn call_ended<S: CallSessions>(
        &self,
        sessions: &S,
        message: MessageId,
        url: &str,
        params: &[(String, String)],
        signature: Option<&str>,
    ) -> Result<()> {
        let (report, call) = self.signed_call(message, url, params, signature).await?;
        let Some(status) = report.status.filter(|s| s.ended()) else { return Ok(()) };
        if call.outcome.is_some() || !call.placed_as(&report) {
            return Ok(());
        }
        let outcome = match (CallOutcome::unreached(status), &call.session) {
            (Some(unreached), None) => unreached,
            (_, Some((session, sealed))) => {
                let token = self.open_token(&call, sealed)?;
                sessions.complete(&call.campaign_code, *session, &token).await?;
                CallOutcome::Partial
            }
            (None, None) => CallOutcome::Declined,
        };
        self.record(&call, &report, None, Some(outcome), None).await
    }

    /// A report the provider signed about the call of `message`, with what the call recorded.
    pub(super) async fn signed_call(
        &self,
        message: MessageId,
        url: &str,
        params: &[(String, String)],
        signature: Option<&str>,
    ) -> Result<(CallReport, CallContext)> {
        let report = self.read_call(url, params, signature)?;
        let call = self.repo.call(message).await?.ok_or_else(|| Error::not_found("call"))?;
        Ok((report, call))
    }

    fn read_call(&self, url: &str, params: &[(String, String)], signature: Option<&str>) -> Result<CallReport> {
        self.sender.read_call(url, params, signature).ok_or_else(|| {
            Error::refused(ErrorCode::Unauthenticated, "the request does not carry the voice provider's signature")
        })
    }

    async fn turn<S: CallSessions>(
        &self,
        sessions: &S,
        call: &CallContext,
        step: CallStep,
        report: &CallReport,
    ) -> Result<VoiceTurn> {
        let (campaign, survey) = sessions.survey(&call.campaign_code).await?;
        let language = survey.default_language().clone();
        let mut script = CallScript::new(&survey, &language, &call.workspace_name, &call.campaign_name);
        if self.answer_recording == AnswerRecording::On {
            script = script.recorded_for(call.audio_retention_days.unwrap_or(DEFAULT_AUDIO_RETENTION_DAYS));
        }
        match step {
            CallStep::Answered if report.machine => {
                self.record(call, report, None, Some(CallOutcome::Machine), None).await?;
                Ok(VoiceTurn::hang_up())
            }
            CallStep::Answered if campaign.status != CampaignStatus::Active => {
                self.record(call, report, None, Some(CallOutcome::Declined), None).await?;
                Ok(VoiceTurn::hang_up())
            }
            // They answered on the page meanwhile: thanked, and nothing asked again.
            CallStep::Answered if call.finished => {
                self.record(call, report, None, Some(CallOutcome::Declined), None).await?;
                Ok(script.thanks())
            }
            CallStep::Answered => {
                self.record(call, report, None, None, None).await?;
                Ok(script.greeting())
            }
            CallStep::Consent => match script.consent(report) {
                Consent::Stop => self.stop(call, report, &script, None).await,
                Consent::Declined => {
                    self.record(call, report, None, Some(CallOutcome::Declined), None).await?;
                    Ok(script.declined())
                }
                // A consent heard again (a repeated request) goes on with the session it started.
                Consent::Given if call.session.is_some() => {
                    Ok(script.ask(0, false, Vec::new()).unwrap_or_else(|| script.thanks()))
                }
                Consent::Given => self.begin(sessions, call, report, &script, language.as_str()).await,
            },
            CallStep::Question { index, retried } => {
                let mut turn = self.question(sessions, call, report, &script, index, retried).await?;
                // The answer just given was being recorded: the recording ends with it.
                turn.stop_recording = script.records_answer(index).then_some(step);
                Ok(turn)
            }
        }
    }

    /// The answer to question `index` (asked again when `retried`), and what to say next.
    async fn question<S: CallSessions>(
        &self,
        sessions: &S,
        call: &CallContext,
        report: &CallReport,
        script: &CallScript<'_>,
        index: u8,
        retried: bool,
    ) -> Result<VoiceTurn> {
        let Some((session, sealed)) = &call.session else { return Ok(VoiceTurn::hang_up()) };
        let token = self.open_token(call, sealed)?;
        let speech = report.speech.as_deref().unwrap_or_default();
        if is_stop(script.language().as_str(), speech) {
            sessions.complete(&call.campaign_code, *session, &token).await?;
            return self.stop(call, report, script, Some(CallOutcome::Stopped)).await;
        }
        let question_id = script.survey().questions.get(usize::from(index)).map(|q| q.id.clone());
        let (Some(question_id), answer) = (question_id, script.answer(index, report)) else {
            return Ok(VoiceTurn::hang_up());
        };
        let before = match answer {
            Some(value) => {
                let answer = AnswerInput { question_id, value };
                sessions.answer(&call.campaign_code, *session, &token, vec![answer]).await?;
                Vec::new()
            }
            None if !retried => {
                let again = script.not_understood(index);
                return Ok(script.ask(index, true, again).unwrap_or_else(VoiceTurn::hang_up));
            }
            None => script.moving_on(),
        };
        let next = index.checked_add(1).and_then(|next| script.ask(next, false, before));
        match next {
            Some(turn) => Ok(turn),
            None => {
                sessions.complete(&call.campaign_code, *session, &token).await?;
                let thanked = call.acknowledged(*session, self.clock.now());
                self.record(call, report, None, Some(CallOutcome::Completed), Some(thanked)).await?;
                Ok(script.thanks())
            }
        }
    }

    /// Consent given: the respondent's session starts through their own invitation, as if they
    /// had opened its link, and the first question is asked.
    async fn begin<S: CallSessions>(
        &self,
        sessions: &S,
        call: &CallContext,
        report: &CallReport,
        script: &CallScript<'_>,
        language: &str,
    ) -> Result<VoiceTurn> {
        let invitation = call.recipient.invitation_sealed.as_ref().and_then(|sealed| {
            super::open_field(&self.crypto, call.campaign_id, &call.recipient, "invitation", sealed)
        });
        // Without the person's own link (erased, or sealed under a lost key) a session would be
        // no one's: nothing starts.
        let Some(invitation) = invitation else {
            return self.decline(call, report, script).await;
        };
        let mut client = Map::new();
        client.insert("channel".into(), Value::String("TELEPHONY".into()));
        let input = StartInput {
            consent_given: Some(true),
            visit: Visit { invitation: Some(invitation), language: Some(language.to_owned()), launch_token: None },
            client: Some(client),
            ..StartInput::default()
        };
        let started = match sessions.start(&call.campaign_code, input).await {
            Ok(StartOutcome::Started(started)) => started,
            // No longer collecting; a link already spent (the person answered on the page) or
            // a campaign full: the refusals a page start would get.
            Ok(StartOutcome::NotStarted(_)) => return self.decline(call, report, script).await,
            Err(refused)
                if matches!(
                    refused.code(),
                    ErrorCode::LaunchTokenInvalid | ErrorCode::CampaignNotCollecting | ErrorCode::RateLimited
                ) =>
            {
                return self.decline(call, report, script).await;
            }
            Err(other) => return Err(other),
        };
        let sealed = self.crypto.seal(&token_context(call.message_id), started.token.expose_secret().as_bytes());
        self.record(call, report, Some((started.id, sealed)), None, None).await?;
        Ok(script.ask(0, false, Vec::new()).unwrap_or_else(|| script.thanks()))
    }

    async fn decline(&self, call: &CallContext, report: &CallReport, script: &CallScript<'_>) -> Result<VoiceTurn> {
        self.record(call, report, None, Some(CallOutcome::Declined), None).await?;
        Ok(script.declined())
    }

    /// The callee asked never to be called again: their number is opted out of the workspace's
    /// messages, as a STOP reply does.
    async fn stop(
        &self,
        call: &CallContext,
        report: &CallReport,
        script: &CallScript<'_>,
        outcome: Option<CallOutcome>,
    ) -> Result<VoiceTurn> {
        let phone = call
            .recipient
            .phone_sealed
            .as_ref()
            .and_then(|sealed| super::open_field(&self.crypto, call.campaign_id, &call.recipient, "phone", sealed));
        if let Some(phone) = phone {
            let digest = self.address_digest(AddressFamily::Phone, &phone);
            let now = self.clock.now();
            self.repo
                .record_opt_out(call.workspace_id, &digest, AddressFamily::Phone, OptOutSource::Reply, now)
                .await?;
        }
        self.record(call, report, None, Some(outcome.unwrap_or(CallOutcome::Stopped)), None).await?;
        Ok(script.stopped())
    }

    fn open_token(&self, call: &CallContext, sealed: &[u8]) -> Result<String> {
        let opened = self.crypto.open(&token_context(call.message_id), sealed)?;
        String::from_utf8(opened).map_err(Error::internal)
    }

    async fn record(
        &self,
        call: &CallContext,
        report: &CallReport,
        session: Option<(SessionId, Vec<u8>)>,
        outcome: Option<CallOutcome>,
        acknowledged: Option<crate::webhooks::models::NewEvent>,
    ) -> Result<()> {
        let update = CallUpdate {
            message_id: call.message_id,
            provider_call_id: report.call_id.clone(),
            session,
            outcome,
            acknowledged,
            at: self.clock.now(),
        };
        self.repo.record_call(&update).await
    }
}

/// The associated data a call's session token is sealed to.
fn token_context(message: MessageId) -> Vec<u8> {
    let context = json!({"call": message, "field": "sessionToken"});
    context.to_string().into_bytes()
}
