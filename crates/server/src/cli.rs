//! The operator interface. Every command prints JSON on stdout; failures print one line on stderr
//! and exit non-zero.

use std::io::Write as _;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use pulse_clock::SystemClock;
use pulse_crypto::JwtStudioTokens;
use pulse_domain::apps::models::DeviceStatus;
use pulse_domain::apps::service::Apps;
use pulse_domain::ids::{BusinessId, CampaignId, DeviceId, WorkspaceId};
use pulse_domain::studio::service::issue_studio_token;
use pulse_domain::tenancy::service::{Admin, KeyRequest};
use secrecy::ExposeSecret as _;
use serde_json::json;
use time::Duration;
use uuid::Uuid;

use crate::platform::AppClock;
use crate::settings::{Settings, dev_dir};
use crate::startup::{Application, crypto_from, store_from};
use crate::telemetry::{build_subscriber, init_subscriber};

#[derive(Debug, Parser)]
#[command(name = "pulse", version, about = "Pulse partner-channel feedback service")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply pending database migrations.
    Migrate,
    /// Run the HTTP server and the background workers until SIGTERM or SIGINT.
    Serve {
        /// Local development: find or start a local PostgreSQL, create the database, migrate, and
        /// make up secrets that are not set (kept in .pulse-dev/).
        #[arg(long)]
        dev: bool,
    },
    /// Operator commands.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Businesses: the tenants that own workspaces and keys.
    Business {
        #[command(subcommand)]
        command: BusinessCommand,
    },
    /// API keys.
    Key {
        #[command(subcommand)]
        command: KeyCommand,
    },
    /// Workspaces.
    Workspace {
        #[command(subcommand)]
        command: WorkspaceCommand,
    },
    /// App devices.
    Device {
        #[command(subcommand)]
        command: DeviceCommand,
    },
    /// Sign a Studio session token.
    StudioToken(StudioTokenArgs),
    /// Session analysis.
    Analysis {
        #[command(subcommand)]
        command: AnalysisCommand,
    },
}

#[derive(Debug, Subcommand)]
pub enum AnalysisCommand {
    /// Analyze every finished session of a campaign again (after an analyzer upgrade): unchanged
    /// results are reused and no second `feedback.analyzed` is sent.
    Rerun {
        /// The campaign's id (a UUID, as `POST /campaigns` answered it).
        #[arg(long)]
        campaign: Uuid,
    },
}

#[derive(Debug, Subcommand)]
pub enum DeviceCommand {
    /// Block a device: its registers are refused, its heartbeats fail and its feedback is no
    /// longer attributed to it.
    Block {
        /// The device's id (a UUID, as `POST /apps/register` answered it and `GET /devices` lists).
        id: Uuid,
    },
    /// Let a blocked device back in.
    Unblock {
        /// The device's id (a UUID).
        id: Uuid,
    },
}

#[derive(Debug, Subcommand)]
pub enum BusinessCommand {
    /// Create a business; prints its id (a UUID), which `key create --business` and
    /// `studio-token --business` take.
    Create {
        #[arg(long)]
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Mint a key for a new service account; the key is printed once.
    Create(KeyCreateArgs),
    /// Revoke a key at once.
    Revoke {
        #[arg(long)]
        prefix: String,
    },
}

#[derive(Debug, Args)]
pub struct KeyCreateArgs {
    /// The business the key acts for: its id (a UUID), as `business create` printed it.
    #[arg(long, required_unless_present = "no_business", conflicts_with = "no_business")]
    pub business: Option<Uuid>,
    /// A key that belongs to no business (channel routes answer 403 NO_ORG).
    #[arg(long)]
    pub no_business: bool,
    /// Comma-separated scopes, each one of: channel:audience, channel:audit, channel:export,
    /// channel:provision, channel:results, channel:transcripts, channel:webhooks,
    /// channel:workspaces, sessions:launch.
    #[arg(long, value_delimiter = ',', required = true)]
    pub scopes: Vec<String>,
    /// A workspace the key reaches, by its id (a UUID, as `POST /orgs` answered it); repeat for
    /// several.
    #[arg(long = "workspace")]
    pub workspaces: Vec<Uuid>,
    /// Lifetime in seconds; without it the key lives until revoked.
    #[arg(long)]
    pub expires_in: Option<u32>,
}

#[derive(Debug, Subcommand)]
pub enum WorkspaceCommand {
    /// Approve a workspace: PENDING_APPROVAL becomes ACTIVE.
    Approve {
        /// The workspace's id (a UUID, as `POST /orgs` answered it).
        id: Uuid,
    },
}

#[derive(Debug, Args)]
pub struct StudioTokenArgs {
    /// The business whose Studio the token opens: its id (a UUID), as `business create` printed it.
    #[arg(long)]
    pub business: Uuid,
    /// The Studio user's id: a UUID, the user's id in your identity system (the token's `sub`).
    #[arg(long)]
    pub user: Uuid,
    /// A permission such as campaign:view; repeat for several.
    #[arg(long = "perm", required = true)]
    pub perms: Vec<String>,
    /// Lifetime in seconds (default 3600, at most 86400).
    #[arg(long)]
    pub ttl: Option<u32>,
}

fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{value}")?;
    Ok(())
}

/// Runs one command.
///
/// # Errors
/// Whatever stops the command; `main` prints it as one line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    match cli.command {
        Command::Serve { dev } => {
            init_subscriber(build_subscriber(&settings.log_filter, settings.log_format, std::io::stdout))?;
            serve(settings, dev).await
        }
        Command::Migrate => {
            init_subscriber(build_subscriber(&settings.log_filter, settings.log_format, std::io::stderr))?;
            let applied = pulse_postgres::run_migrations(&settings.database_url).await.context("DATABASE_URL")?;
            print_json(&json!({ "applied": applied }))
        }
        Command::Admin { command } => {
            init_subscriber(build_subscriber("warn", settings.log_format, std::io::stderr))?;
            admin(settings.with_existing_dev_secrets(&dev_dir())?, command).await
        }
    }
}

async fn serve(settings: Settings, dev: bool) -> anyhow::Result<()> {
    let settings = if dev {
        tracing::warn!("development mode: not for production");
        let settings = settings.with_dev_secrets(&dev_dir())?;
        pulse_postgres::local::ensure_database(&settings.database_url).await?;
        let applied = pulse_postgres::run_migrations(&settings.database_url).await?;
        tracing::info!(?applied, "migrations applied");
        settings
    } else {
        let pending = pulse_postgres::pending_migrations(&settings.database_url).await.context("DATABASE_URL")?;
        anyhow::ensure!(
            pending.is_empty(),
            "the database has pending migrations ({}); run `pulse migrate` first",
            pending.join(", ")
        );
        settings
    };
    if let Some(read_url) = &settings.database_read_url {
        pulse_postgres::check_connection(read_url).await.context("DATABASE_READ_URL")?;
    }
    if !settings.quotas.enabled {
        tracing::warn!("PULSE_RATE_LIMITS=off: every quota and rate limit is lifted; for load tests only");
    }
    let app = Application::build(&settings, AppClock::System(SystemClock))?;
    let (base_url, _) = settings.urls_bound_to(std::net::SocketAddr::new(settings.bind.ip(), app.port()));
    tracing::info!(port = app.port(), base_url = %base_url, "pulse is listening");
    app.run_until_stopped().await
}

async fn admin(settings: Settings, command: AdminCommand) -> anyhow::Result<()> {
    let clock = SystemClock;
    let store = store_from(&settings)?;
    let crypto = crypto_from(&settings)?;
    let admin = Admin::new(store.clone(), crypto.clone(), clock);
    match command {
        AdminCommand::Device { command } => {
            let (id, status) = match command {
                DeviceCommand::Block { id } => (id, DeviceStatus::Blocked),
                DeviceCommand::Unblock { id } => (id, DeviceStatus::Active),
            };
            let status = Apps::new(store, crypto, clock, None).set_device_status(DeviceId(id), status).await?;
            print_json(&json!({ "deviceId": id, "status": status.as_str() }))
        }
        AdminCommand::Business { command: BusinessCommand::Create { name } } => {
            let business = admin.create_business(&name).await?;
            print_json(&json!({ "id": business.id }))
        }
        AdminCommand::Key { command: KeyCommand::Create(args) } => {
            let issued = admin
                .create_key(KeyRequest {
                    business_id: if args.no_business { None } else { args.business.map(BusinessId) },
                    scopes: args.scopes,
                    workspaces: args.workspaces.into_iter().map(WorkspaceId).collect(),
                    expires_in: args.expires_in.map(|s| Duration::seconds(i64::from(s))),
                })
                .await?;
            print_json(&json!({
                "key": issued.key.expose_secret(),
                "keyPrefix": issued.prefix,
                "serviceAccountId": issued.service_account_id,
            }))
        }
        AdminCommand::Key { command: KeyCommand::Revoke { prefix } } => {
            admin.revoke_key(&prefix).await?;
            print_json(&json!({ "revoked": true }))
        }
        AdminCommand::Workspace { command: WorkspaceCommand::Approve { id } } => {
            let workspace = admin.approve_workspace(WorkspaceId(id)).await?;
            print_json(&json!({ "id": workspace.id, "status": workspace.status.as_str() }))
        }
        AdminCommand::Analysis { command: AnalysisCommand::Rerun { campaign } } => {
            let queued = crate::startup::analysis_from(store, crypto, AppClock::System(clock))
                .rerun(CampaignId(campaign))
                .await?;
            print_json(&json!({ "campaignId": campaign, "queued": queued }))
        }
        AdminCommand::StudioToken(args) => {
            let secret = settings.studio_jwt_secret.as_ref().context("PULSE_STUDIO_JWT_SECRET is not set")?;
            let token = issue_studio_token(
                &JwtStudioTokens::new(secret),
                &clock,
                BusinessId(args.business),
                args.user,
                args.perms,
                args.ttl.map(|s| Duration::seconds(i64::from(s))),
            )
            .await?;
            print_json(&json!({ "token": token }))
        }
    }
}
