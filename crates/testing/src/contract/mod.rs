//! The contract suite: what the services rely on from the repository ports, written once and run
//! against every adapter. `pulse-testing` runs it on [`crate::MemoryStore`]; `pulse-postgres` runs
//! it on `PgStore` over a fresh database per case. A rule kept in SQL and again in memory is
//! tested here, on both, so the two cannot drift apart.
//!
//! An adapter's test target runs every case with [`contract_suite!`](crate::contract_suite),
//! naming an async function that makes a fresh, empty store (and whatever must outlive it).

pub mod analysis;
pub mod apps;
pub mod campaigns;
pub mod erasure;
pub mod exports;
pub mod idempotency;
pub mod outreach;
pub mod quota;
pub mod results;
pub mod sessions;
pub mod tenancy;
pub mod webhooks;

use pulse_domain::analysis::ports::AnalysisRepository;
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::apps::models::HEARTBEAT_RATE;
use pulse_domain::apps::ports::AppRepository;
use pulse_domain::apps::service::Apps;
use pulse_domain::audit::ports::AuditTrail;
use pulse_domain::campaigns::models::{BriefInput, CampaignOverview, LaunchInput, ProvisionInput};
use pulse_domain::campaigns::ports::{CampaignRepository, LaunchRepository};
use pulse_domain::campaigns::service::{Campaigns, LaunchKeys};
use pulse_domain::challenges::models::ChallengePolicy;
use pulse_domain::erasure::ports::ErasureRepository;
use pulse_domain::erasure::service::Erasures;
use pulse_domain::exports::ports::{ExportRepository, ExportStore, WorkerPresence};
use pulse_domain::exports::service::Exports;
use pulse_domain::idempotency::ports::IdempotencyStore;
use pulse_domain::ids::{BusinessId, WorkspaceId};
use pulse_domain::outreach::models::{MESSAGE_CHANNELS, QuietHours, ReminderSchedule};
use pulse_domain::outreach::ports::{MessageSender as _, OutreachRepository};
use pulse_domain::outreach::service::Outreach;
use pulse_domain::quota::ports::QuotaCounter;
use pulse_domain::results::ports::ResultsRepository;
use pulse_domain::results::service::Results;
use pulse_domain::sessions::models::{StartInput, StartOutcome, StartedSession, Visit};
use pulse_domain::sessions::ports::SessionStore;
use pulse_domain::sessions::service::Respondents;
use pulse_domain::shared::clock::SettableClock;
use pulse_domain::tenancy::models::{Principal, WorkspaceInput};
use pulse_domain::tenancy::ports::TenancyRepository;
use pulse_domain::tenancy::service::{Admin, KeyRequest, Tenancy};
use pulse_domain::webhooks::models::RetrySchedule;
use pulse_domain::webhooks::ports::WebhookRepository;
use pulse_domain::webhooks::service::{Dispatcher, Webhooks};
use secrecy::ExposeSecret;
use time::Duration;
use time::macros::datetime;

use crate::fakes::{
    FakeAnalyzer, FakeGenerator, FakeRenderer, FakeTokens, RecordingSender, RecordingTransport, TestCrypto,
};

/// Every repository port: what an adapter under contract implements.
pub trait Store:
    TenancyRepository
    + IdempotencyStore
    + QuotaCounter
    + CampaignRepository
    + LaunchRepository
    + SessionStore
    + AppRepository
    + WebhookRepository
    + pulse_domain::shared::health::Backlogs
    + AnalysisRepository
    + ResultsRepository
    + ExportRepository
    + ExportStore
    + WorkerPresence
    + OutreachRepository
    + ErasureRepository
    + AuditTrail
    + Clone
{
}

impl<T> Store for T where
    T: TenancyRepository
        + IdempotencyStore
        + QuotaCounter
        + CampaignRepository
        + LaunchRepository
        + SessionStore
        + AppRepository
        + WebhookRepository
        + pulse_domain::shared::health::Backlogs
        + AnalysisRepository
        + ResultsRepository
        + ExportRepository
        + ExportStore
        + WorkerPresence
        + OutreachRepository
        + ErasureRepository
        + AuditTrail
        + Clone
{
}

/// Every service over one store, a settable clock and the fakes. Contract cases set the scene
/// through the services and then hold the store to its promises; the domain's own tests use it
/// over a `MemoryStore`.
pub struct World<S> {
    pub store: S,
    pub clock: SettableClock,
    pub crypto: TestCrypto,
    pub admin: Admin<S, TestCrypto, SettableClock>,
    pub tenancy: Tenancy<S, TestCrypto, SettableClock>,
    pub campaigns: Campaigns<S, FakeGenerator, TestCrypto, SettableClock, FakeTokens>,
    pub respondents: Respondents<S, TestCrypto, SettableClock, FakeTokens>,
    pub keys: LaunchKeys<S, TestCrypto, SettableClock>,
    pub apps: Apps<S, TestCrypto, SettableClock>,
    pub webhooks: Webhooks<S, TestCrypto, SettableClock, RecordingTransport>,
    pub dispatcher: Dispatcher<S, TestCrypto, SettableClock, RecordingTransport>,
    /// What the dispatcher sent, and the answers it is to get.
    pub transport: RecordingTransport,
    /// Exports kept in the same store, rendered by a fake.
    pub exports: Exports<S, S, FakeRenderer, TestCrypto, SettableClock>,
    pub renderer: FakeRenderer,
    /// Invitations, reminders and thank-you messages, sent through a recording fake.
    pub outreach: Outreach<S, RecordingSender, TestCrypto, SettableClock>,
    pub sender: RecordingSender,
    pub erasures: Erasures<S, TestCrypto, SettableClock>,
}

/// A business with one approved workspace and a key reaching it.
pub struct Partner {
    pub principal: Principal,
    pub workspace: WorkspaceId,
    pub business: BusinessId,
}

/// The scopes of a partner's key.
pub const SCOPES: [&str; 6] = [
    "channel:provision",
    "channel:audience",
    "sessions:launch",
    "channel:results",
    "channel:workspaces",
    "channel:webhooks",
];

/// Where minted links point.
pub const SURVEY_URL: &str = "https://survey.example";

impl<S: Store> World<S> {
    /// Every service over `store`, with a sender that can send on every channel.
    pub fn new(store: S) -> Self {
        Self::with_sender(store, RecordingSender::with_voice())
    }

    /// As [`World::new`], with `sender`: one without a channel makes campaigns asking for it
    /// unready.
    pub fn with_sender(store: S, sender: RecordingSender) -> Self {
        let sendable = MESSAGE_CHANNELS.into_iter().filter(|c| sender.can_send(*c)).collect();
        let crypto = TestCrypto::default();
        // Microseconds, as PostgreSQL keeps them: a time written reads back equal.
        let clock = SettableClock::new(datetime!(2026-01-01 10:00 UTC));
        let transport = RecordingTransport::default();
        let renderer = FakeRenderer::default();
        let results = Results::new(store.clone(), crypto.clone(), clock.clone(), FakeAnalyzer::default().info());
        Self {
            exports: Exports::new(
                store.clone(),
                store.clone(),
                renderer.clone(),
                crypto.clone(),
                clock.clone(),
                results,
                "https://pulse.example",
            ),
            renderer,
            outreach: Outreach::new(
                store.clone(),
                sender.clone(),
                crypto.clone(),
                clock.clone(),
                SURVEY_URL,
                "https://pulse.example",
                ReminderSchedule::default(),
            )
            .with_quiet_hours(Some(QuietHours::default())),
            sender,
            webhooks: Webhooks::new(store.clone(), crypto.clone(), clock.clone(), transport.clone(), false),
            dispatcher: Dispatcher::new(
                store.clone(),
                crypto.clone(),
                clock.clone(),
                transport.clone(),
                RetrySchedule::default(),
                Duration::seconds(70),
            ),
            transport,
            apps: Apps::new(store.clone(), crypto.clone(), clock.clone(), Some(HEARTBEAT_RATE)),
            admin: Admin::new(store.clone(), crypto.clone(), clock.clone()),
            tenancy: Tenancy::new(store.clone(), crypto.clone(), clock.clone(), 3),
            campaigns: Campaigns::new(
                store.clone(),
                FakeGenerator,
                crypto.clone(),
                clock.clone(),
                FakeTokens,
                SURVEY_URL,
                sendable,
            ),
            // Tests start hundreds of sessions in one instant; the challenge rates have tests of
            // their own, with a policy of their own.
            respondents: Respondents::new(store.clone(), crypto.clone(), clock.clone(), FakeTokens)
                .with_challenges(ChallengePolicy::default().on_request_only()),
            keys: LaunchKeys::new(store.clone(), crypto.clone(), clock.clone()),
            erasures: Erasures::new(store.clone(), crypto.clone(), clock.clone()),
            store,
            clock,
            crypto,
        }
    }

    /// A business named `name` with one approved workspace and a key of [`SCOPES`] reaching it.
    ///
    /// # Panics
    /// When the services refuse what a fresh store must accept.
    pub async fn partner(&self, name: &str) -> Partner {
        self.partner_with(name, true).await
    }

    /// As [`World::partner`], with the workspace approved or left pending.
    ///
    /// # Panics
    /// When the services refuse what a fresh store must accept.
    pub async fn partner_with(&self, name: &str, approved: bool) -> Partner {
        let business = self.admin.create_business(name).await.expect("business");
        let request = KeyRequest {
            business_id: Some(business.id),
            scopes: SCOPES.iter().map(|s| (*s).to_owned()).collect(),
            ..KeyRequest::default()
        };
        let issued = self.admin.create_key(request).await.expect("key");
        let principal = self.tenancy.authenticate(Some(issued.key.expose_secret())).await.expect("principal");
        let input =
            WorkspaceInput { external_ref: "client-1".into(), name: "Client".into(), ..WorkspaceInput::default() };
        let (workspace, _) = self.tenancy.create_workspace(&principal, &input).await.expect("workspace");
        if approved {
            self.admin.approve_workspace(workspace.id).await.expect("approved");
        }
        // The allowlist grew with the workspace: authenticate again to see it.
        let principal = self.tenancy.authenticate(Some(issued.key.expose_secret())).await.expect("principal");
        Partner { principal, workspace: workspace.id, business: business.id }
    }

    /// A launched open campaign of `partner`.
    ///
    /// # Panics
    /// When provisioning or launching is refused.
    pub async fn open_campaign(&self, partner: &Partner) -> CampaignOverview {
        let input = ProvisionInput {
            brief: Some(BriefInput {
                intent_text: "How was the delivery today?".into(),
                question_count: Some(2),
                languages: Some(vec!["en".into()]),
                ..BriefInput::default()
            }),
            ..ProvisionInput::default()
        };
        let draft = self.campaigns.provision(&partner.principal, None, input).await.expect("provisioned");
        self.campaigns.launch(&partner.principal, None, draft.campaign.id).await.expect("launched")
    }

    /// The `lt` token of a freshly minted link to `campaign`.
    ///
    /// # Panics
    /// When minting is refused.
    pub async fn minted_token(&self, partner: &Partner, campaign: &CampaignOverview) -> String {
        let input = LaunchInput {
            campaign_id: campaign.campaign.id,
            external_user_ref: None,
            language: None,
            device: None,
            attributes: None,
        };
        let link = self.campaigns.mint_link(&partner.principal, None, input).await.expect("minted");
        let (_, rest) = link.url.split_once("?lt=").expect("an lt link");
        rest.split('&').next().expect("a token").to_owned()
    }

    /// Starts a session with consent and `launch_token`.
    ///
    /// # Errors
    /// As the respondents service refuses.
    pub async fn start(&self, code: &str, launch_token: &str) -> pulse_domain::Result<StartedSession> {
        let visit = Visit { launch_token: Some(launch_token.to_owned()), ..Visit::default() };
        match self
            .respondents
            .start(code, StartInput { consent_given: Some(true), visit, ..StartInput::default() })
            .await?
        {
            StartOutcome::Started(session) => Ok(session),
            StartOutcome::NotStarted(why) => panic!("not started: {why:?}"),
        }
    }
}

/// Runs every case of the contract suite against the stores `$make` makes. `$make` names an async
/// function returning `(guard, store)`: the guard (a test database, say) lives as long as the case.
#[macro_export]
macro_rules! contract_suite {
    ($make:path) => {
        $crate::contract_suite!(@cases $make;
            tenancy {
                a_key_is_found_by_its_prefix_and_a_revoked_key_stays_revoked,
                one_reference_means_one_workspace_and_the_business_limit_holds,
                a_key_is_usable_until_revoked_or_expired,
                the_operators_approvals_and_keys_are_audited_and_an_approval_announced_once,
                audit_entries_past_the_retention_are_purged_and_the_rest_kept,
            }
            idempotency {
                a_claim_is_exclusive_until_completed_then_replays,
                a_released_expired_or_stale_claim_is_taken_again,
                only_the_claiming_request_completes_or_releases,
            }
            quota {
                hits_count_per_subject_family_and_window,
                old_windows_are_purged,
            }
            campaigns {
                a_taken_code_is_refused_and_reads_stay_in_their_tenant,
                the_overview_counts_the_audience_and_its_sessions_as_they_are_written,
                a_paused_or_closed_campaign_takes_no_link_start_or_register_even_from_an_old_copy,
                links_written_together_are_each_answered_by_their_own_campaign,
                campaign_status_changes_follow_the_lifecycle_and_the_list_follows_them,
                each_status_change_and_audience_upload_is_audited_once_and_a_change_to_nothing_not_at_all,
            }
            sessions {
                a_minted_link_starts_one_session,
                spent_partner_tokens_are_forgotten_once_expired,
                a_link_is_spent_once_and_never_after_it_expires,
                two_concurrent_starts_spend_a_link_once,
                a_solved_challenge_starts_one_session_until_it_is_forgotten,
                a_start_the_store_cannot_write_fails_alone,
                starts_arriving_together_are_each_answered_by_their_own_campaign,
                a_start_without_a_token_is_refused_once_the_campaign_requires_signing,
            }
            apps {
                device_pages_keep_registration_order_while_devices_arrive,
                heartbeats_arriving_together_are_each_counted_once_and_rated_in_turn,
                registers_arriving_together_each_stand_or_fail_alone,
                a_new_device_whose_vendor_id_is_taken_is_refused_and_writes_nothing,
            }
            analysis {
                a_finished_sessions_job_is_claimed_once_per_lease_and_released_by_its_holder,
                the_backlog_counts_due_work_and_the_age_of_the_oldest,
                analyses_an_older_analyzer_read_are_read_again_by_the_one_in_charge,
            }
            results {
                tallied_results_equal_results_computed_from_every_answer,
                tallied_means_on_rounding_boundaries_equal_those_computed_from_every_answer,
                sessions_without_launch_labels_are_filtered_by_their_devices_labels_now,
                groups_are_counted_as_from_every_answer,
                trends_count_sessions_by_the_day_they_were_completed,
                trend_days_are_the_local_days_of_each_time_zone,
            }
            exports {
                an_export_is_read_back_only_in_its_workspace,
                an_export_is_claimed_once_per_lease_and_only_its_holder_finishes_it,
                a_failed_attempt_is_queued_again_or_fails_for_good,
                files_are_kept_replaced_and_deleted,
                fetches_are_counted_per_link_and_hour_and_workers_are_alive_while_they_beat,
                a_finished_export_announces_itself_to_subscribed_endpoints_once,
                a_requested_export_is_audited_once_and_a_refused_request_not_at_all,
            }
            webhooks {
                a_claimed_delivery_is_held_by_its_lease_and_only_its_holder_records,
                attempts_recorded_at_once_each_count_once_in_their_endpoints_run,
                deliveries_of_every_event_type_and_aggregate_are_claimed_as_written,
                a_rotated_secret_is_claimed_with_its_deliveries_until_it_expires,
                a_redelivery_requeues_finished_deliveries_and_leaves_a_held_one_to_its_lease,
                a_bulk_redelivery_takes_exactly_the_statuses_of_its_range_or_nothing_beyond_its_cap,
                events_past_their_retention_are_purged_once_every_delivery_is_finished,
                each_endpoint_action_writes_one_audit_entry_and_one_that_does_nothing_none,
            }
            erasure {
                an_erased_respondent_leaves_a_tombstone_that_keeps_the_counts,
                an_erased_app_user_or_device_is_gone_from_its_workspace_only,
                each_erasure_is_audited_once_by_an_id_and_one_that_erases_nothing_not_at_all,
            }
            outreach {
                planning_queues_each_invitation_once_on_every_channel_a_person_can_be_reached_by,
                reminders_follow_the_schedule_and_stop_for_people_who_finished,
                a_claimed_message_is_held_by_its_lease_and_only_its_holder_records,
                a_deferred_message_comes_back_when_due_and_a_thank_you_acknowledges_once,
                opt_outs_belong_to_a_workspace_and_are_found_by_the_address_written_to,
                texts_wait_for_the_morning_where_the_person_is_and_email_goes_at_once,
                a_call_keeps_its_session_and_first_outcome_and_counts_as_not_reached_when_nobody_took_it,
                a_recording_is_kept_once_and_deleted_when_its_days_pass_or_its_person_is_erased,
                a_claimed_recording_is_held_by_its_lease,
            }
        );
    };
    (@cases $make:path; $($module:ident { $($case:ident),* $(,)? })*) => {
        $(
            mod $module {
                $(
                    #[tokio::test]
                    async fn $case() {
                        let (_guard, store) = $make().await;
                        $crate::contract::$module::$case(store).await;
                    }
                )*
            }
        )*
    };
}
