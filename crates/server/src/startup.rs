//! Building the application (adapters, services, HTTP server) apart from running it, so tests
//! can start the real thing on a free port.

use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{HttpServer, web};
use anyhow::Context as _;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use pulse_analysis::BuiltinAnalyzer;
use pulse_api::middleware::Deadlines;
use pulse_api::telemetry::MetricsExport;
use pulse_api::{AppState, NetworkPolicy};
use pulse_crypto::{JwtLaunchTokens, JwtStudioTokens, MasterKey, RingCrypto};
use pulse_domain::analysis::ports::Analyzer as _;
use pulse_domain::analysis::service::Analysis;
use pulse_domain::apps::models::HEARTBEAT_RATE;
use pulse_domain::apps::service::Apps;
use pulse_domain::audit::service::Audit;
use pulse_domain::campaigns::service::{Campaigns, LaunchKeys};
use pulse_domain::erasure::service::Erasures;
use pulse_domain::exports::service::Exports;
use pulse_domain::idempotency::service::Idempotency;
use pulse_domain::outreach::models::MESSAGE_CHANNELS;
use pulse_domain::outreach::ports::MessageSender as _;
use pulse_domain::outreach::service::Outreach;
use pulse_domain::quota::service::Quotas;
use pulse_domain::results::service::Results;
use pulse_domain::sessions::service::Respondents;
use pulse_domain::tenancy::service::Tenancy;
use pulse_domain::webhooks::service::{Dispatcher, Webhooks};
use pulse_export_pdf::{ExportRenderers, PdfReport};
use pulse_export_s3::S3ExportStore;
use pulse_generator::TemplateGenerator;
use pulse_outreach_senders::{Senders, SmsSender, SmtpSender, VoiceCaller};
use pulse_postgres::PgStore;
use pulse_webhook_http::{HttpTransport, TransportConfig};
use secrecy::{ExposeSecret as _, SecretString};
use tokio_util::sync::CancellationToken;

use crate::platform::{AppClock, ExportFiles, ServerAnalysis, ServerDispatcher, ServerPlatform, ServerState};
use crate::settings::{ExportStoreSettings, Settings};
use crate::workers;

/// The export file store of these settings.
fn export_files_from(settings: &Settings, store: &PgStore) -> anyhow::Result<ExportFiles> {
    Ok(match &settings.export_store {
        ExportStoreSettings::Postgres => ExportFiles::Postgres(store.clone()),
        ExportStoreSettings::S3(config) => {
            tracing::info!(bucket = %config.bucket, "export files are kept in S3");
            ExportFiles::S3(S3ExportStore::new(config)?)
        }
    })
}

/// The analysis service over the built-in analyzer.
pub fn analysis_from(store: PgStore, crypto: Arc<RingCrypto>, clock: AppClock) -> ServerAnalysis {
    Analysis::new(store, Arc::new(BuiltinAnalyzer::new()), crypto, clock)
}

/// The webhook transport and dispatcher of these settings.
///
/// # Errors
/// When the HTTP client cannot be built.
pub fn dispatcher_from(
    settings: &Settings,
    store: PgStore,
    crypto: Arc<RingCrypto>,
    clock: AppClock,
) -> anyhow::Result<(HttpTransport, ServerDispatcher)> {
    let webhooks = &settings.webhooks;
    let transport =
        HttpTransport::new(TransportConfig { timeout: webhooks.timeout, allow_private: webhooks.allow_private })
            .context("building the webhook HTTP client")?;
    // The lease outlasts a send and its recording by a wide margin; a worker that dies mid-send
    // leaves its deliveries to be claimed again when it ends.
    let lease = time::Duration::try_from(webhooks.timeout).unwrap_or(time::Duration::MINUTE) + time::Duration::MINUTE;
    let dispatcher = Dispatcher::new(store, crypto, clock, transport.clone(), webhooks.schedule.clone(), lease);
    Ok((transport, dispatcher))
}

/// The crypto adapter from the configured master key.
///
/// # Errors
/// When the master key is missing or malformed.
pub fn crypto_from(settings: &Settings) -> anyhow::Result<Arc<RingCrypto>> {
    Ok(Arc::new(RingCrypto::new(&master_key_from(settings)?)))
}

fn master_key_from(settings: &Settings) -> anyhow::Result<MasterKey> {
    let text = settings.master_key.as_ref().context(
        "PULSE_MASTER_KEY is not set: set it to 32 random bytes in base64 (or run `pulse serve --dev` locally)",
    )?;
    MasterKey::from_base64(text.expose_secret()).context("PULSE_MASTER_KEY")
}

/// Studio token verification; without `PULSE_STUDIO_JWT_SECRET` every Studio token is refused.
fn studio_tokens_from(settings: &Settings) -> JwtStudioTokens {
    if let Some(secret) = &settings.studio_jwt_secret {
        return JwtStudioTokens::new(secret);
    }
    tracing::warn!("PULSE_STUDIO_JWT_SECRET is not set: the Studio routes refuse every token");
    JwtStudioTokens::new(&SecretString::from(MasterKey::generate_base64()))
}

/// # Errors
/// When the pool cannot be configured.
pub fn store_from(settings: &Settings) -> anyhow::Result<PgStore> {
    match &settings.database_read_url {
        Some(read_url) => pulse_postgres::connect_with_reads(&settings.database_url, read_url, &settings.pool),
        None => pulse_postgres::connect(&settings.database_url, &settings.pool),
    }
}

pub struct Application {
    port: u16,
    server: Server,
    metrics_server: Option<Server>,
    metrics_server_port: Option<u16>,
    drain_grace: Duration,
    state: web::Data<ServerState>,
    dispatcher: Arc<ServerDispatcher>,
    webhook_poll: Duration,
    analysis: Arc<ServerAnalysis>,
    analysis_poll: Duration,
    export_poll: Duration,
    outreach_poll: Duration,
}

impl Application {
    /// Wires adapters and services and binds the listener (`PULSE_BIND`, port 0 for any free one).
    ///
    /// # Errors
    /// When the master key is missing, the pool cannot be built or the address cannot be bound.
    pub fn build(settings: &Settings, clock: AppClock) -> anyhow::Result<Self> {
        let listener = TcpListener::bind(settings.bind).with_context(|| format!("binding {}", settings.bind))?;
        let port = listener.local_addr()?.port();
        let metrics_listener = settings
            .metrics_bind
            .map(|bind| TcpListener::bind(bind).with_context(|| format!("binding PULSE_METRICS_BIND {bind}")))
            .transpose()?;
        let metrics = MetricsExport { handle: metrics_recorder()?, on_main_listener: metrics_listener.is_none() };
        let (base_url, survey_url) = settings.urls_bound_to(listener.local_addr()?);
        let master = master_key_from(settings)?;
        let crypto = Arc::new(RingCrypto::new(&master));
        let launch_tokens = Arc::new(JwtLaunchTokens::new(&master));
        let store = store_from(settings)?;
        let export_files = export_files_from(settings, &store)?;
        if settings.webhooks.allow_private {
            tracing::warn!(
                "PULSE_WEBHOOK_ALLOW_PRIVATE is true: webhooks may go to http:// and private addresses (tests and local development only)"
            );
        }
        let (transport, dispatcher) = dispatcher_from(settings, store.clone(), crypto.clone(), clock.clone())?;
        let analysis = analysis_from(store.clone(), crypto.clone(), clock.clone());
        let outreach = Outreach::new(
            store.clone(),
            senders_from(settings)?,
            crypto.clone(),
            clock.clone(),
            &survey_url,
            &base_url,
            settings.outreach.reminders.clone(),
        )
        .with_quiet_hours(settings.outreach.quiet_hours)
        .with_calls_at_once(Some(settings.outreach.calls_at_once))
        .with_answer_recording(settings.outreach.answer_recording);
        let results = || Results::new(store.clone(), crypto.clone(), clock.clone(), BuiltinAnalyzer::new().info());
        let state = web::Data::new(AppState::<ServerPlatform> {
            tenancy: Tenancy::new(store.clone(), crypto.clone(), clock.clone(), settings.quotas.workspace_limit()),
            idempotency: Idempotency::new(store.clone(), crypto.clone(), clock.clone()),
            quotas: Quotas::new(store.clone(), clock.clone(), settings.quotas.clone()),
            campaigns: Campaigns::new(
                store.clone(),
                TemplateGenerator,
                crypto.clone(),
                clock.clone(),
                launch_tokens.clone(),
                &survey_url,
                outreach.senders(),
            ),
            audit: Audit::new(store.clone(), crypto.clone(), clock.clone(), settings.audit_retention),
            respondents: Respondents::new(store.clone(), crypto.clone(), clock.clone(), launch_tokens)
                .with_challenges(settings.challenges),
            launch_keys: LaunchKeys::new(store.clone(), crypto.clone(), clock.clone()),
            apps: Apps::new(
                store.clone(),
                crypto.clone(),
                clock.clone(),
                settings.quotas.enabled.then_some(HEARTBEAT_RATE),
            ),
            webhooks: Webhooks::new(
                store.clone(),
                crypto.clone(),
                clock.clone(),
                transport,
                settings.webhooks.allow_private,
            ),
            results: results(),
            exports: Exports::new(
                store.clone(),
                export_files,
                renderers(),
                crypto.clone(),
                clock.clone(),
                results(),
                &base_url,
            ),
            outreach,
            erasures: Erasures::new(store.clone(), crypto.clone(), clock.clone()),
            studio_tokens: studio_tokens_from(settings),
            clock,
            network: NetworkPolicy { trusted_proxies: settings.trusted_proxies.clone() },
            health: store,
            metrics,
            deadlines: Deadlines { body: settings.body_timeout, work: settings.request_timeout },
            draining: Arc::new(AtomicBool::new(false)),
        });
        let app_state = state.clone();
        // A head that trickles is cut off by actix itself (408, no body: no hook reaches it); a body
        // that trickles by the body deadline middleware, with the envelope.
        let server = HttpServer::new(move || pulse_api::app(app_state.clone()))
            .client_request_timeout(settings.header_timeout)
            // Stop signals are ours: readiness turns 503 first, then the server drains.
            .disable_signals()
            .listen(listener)?
            .shutdown_timeout(10)
            .run();
        let metrics_server_port = metrics_listener.as_ref().map(TcpListener::local_addr).transpose()?.map(|a| a.port());
        let metrics_server = metrics_listener
            .map(|listener| {
                let metrics_state = state.clone();
                anyhow::Ok(
                    HttpServer::new(move || pulse_api::metrics_app(metrics_state.clone()))
                        .workers(1)
                        .disable_signals()
                        .listen(listener)?
                        .shutdown_timeout(1)
                        .run(),
                )
            })
            .transpose()?;
        Ok(Self {
            port,
            server,
            metrics_server,
            metrics_server_port,
            drain_grace: settings.drain_grace,
            state,
            dispatcher: Arc::new(dispatcher),
            webhook_poll: settings.webhooks.poll_every,
            analysis: Arc::new(analysis),
            analysis_poll: settings.analysis_poll_every,
            export_poll: settings.export_poll_every,
            outreach_poll: settings.outreach.poll_every,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The port of the metrics listener, when `PULSE_METRICS_BIND` gave it one.
    pub fn metrics_port(&self) -> Option<u16> {
        self.metrics_server_port
    }

    /// Serves until SIGTERM or SIGINT, then lets in-flight requests finish and stops the workers.
    ///
    /// # Errors
    /// When the server fails.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        let stop = CancellationToken::new();
        let maintenance =
            tokio::spawn(workers::maintenance(self.state.clone(), stop.clone(), Duration::from_secs(300)));
        let deliveries = tokio::spawn(workers::deliver_webhooks(self.dispatcher, stop.clone(), self.webhook_poll));
        let analyses = tokio::spawn(workers::analyze_sessions(self.analysis, stop.clone(), self.analysis_poll));
        let exports = tokio::spawn(workers::render_exports(self.state.clone(), stop.clone(), self.export_poll));
        let messages = tokio::spawn(workers::send_messages(self.state.clone(), stop.clone(), self.outreach_poll));
        let recordings = tokio::spawn(workers::delete_recordings(self.state.clone(), stop.clone(), self.outreach_poll));
        let on_signal = tokio::spawn(drain_on_stop_signal(
            self.server.handle(),
            Arc::clone(&self.state.draining),
            self.drain_grace,
        ));
        let metrics_handle = self.metrics_server.as_ref().map(Server::handle);
        let metrics_served = self.metrics_server.map(tokio::spawn);
        let served = self.server.await;
        on_signal.abort();
        if let Some(handle) = metrics_handle {
            handle.stop(true).await;
        }
        if let Some(metrics_served) = metrics_served {
            metrics_served.await??;
        }
        stop.cancel();
        maintenance.await?;
        deliveries.await?;
        analyses.await?;
        exports.await?;
        messages.await?;
        recordings.await?;
        Ok(served?)
    }
}

/// On SIGTERM or SIGINT: readiness answers 503 at once, so balancers stop sending requests here;
/// after `grace` (longer than their check interval) the server stops taking connections and lets
/// the requests in flight finish. Stopping at once would close connections whose request had
/// just arrived but was not read yet, which a balancer cannot replay.
async fn drain_on_stop_signal(server: actix_web::dev::ServerHandle, draining: Arc<AtomicBool>, grace: Duration) {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "SIGTERM cannot be watched; only SIGINT stops the server");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = terminate => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    draining.store(true, Ordering::Release);
    tracing::info!(grace_secs = grace.as_secs(), "stop signal: readiness answers 503, then the server drains");
    tokio::time::sleep(grace).await;
    server.stop(true).await;
}

/// The process's one metrics recorder: installed by the first application built (tests build
/// several in one process, and all of them record into it).
fn metrics_recorder() -> anyhow::Result<PrometheusHandle> {
    static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();
    RECORDER
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full(pulse_api::telemetry::REQUEST_DURATION.to_owned()),
                    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0],
                )
                .and_then(PrometheusBuilder::install_recorder)
                .inspect(|_| pulse_api::telemetry::register_counters())
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(|e| anyhow::anyhow!("installing the metrics recorder: {e}"))
}

/// Both export formats; PDF requests are refused (503) when the report's fonts do not load.
fn renderers() -> ExportRenderers {
    match PdfReport::new() {
        Ok(report) => ExportRenderers::new(Some(report)),
        Err(error) => {
            tracing::error!(%error, "the PDF report cannot start; PDF exports are refused");
            ExportRenderers::new(None)
        }
    }
}

/// The message senders of these settings; a channel without one cannot be sent on.
fn senders_from(settings: &Settings) -> anyhow::Result<Senders> {
    let outreach = &settings.outreach;
    let email = outreach.smtp.clone().map(SmtpSender::new).transpose()?;
    let sms = outreach.twilio.clone().map(SmsSender::new).transpose()?;
    let voice = match &outreach.twilio {
        Some(twilio) => VoiceCaller::new(twilio, outreach.voice_from.as_deref())?,
        None => None,
    };
    let senders = Senders::new(email, sms).with_voice(voice);
    let channels: Vec<&str> =
        MESSAGE_CHANNELS.into_iter().filter(|c| senders.can_send(*c)).map(|c| c.as_str()).collect();
    tracing::info!(channels = channels.join(","), "outreach channels that can be sent on");
    Ok(senders)
}
