//! Configuration from the environment (the names are fixed: operators rely on them).

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use pulse_domain::audit::models::DEFAULT_RETENTION;
use pulse_domain::challenges::models::{ChallengePolicy, ChallengeWork};
use pulse_domain::outreach::models::{AnswerRecording, QuietHours, ReminderSchedule};
use pulse_domain::quota::models::{QuotaFamily, QuotaPolicy};
use pulse_domain::webhooks::models::RetrySchedule;
use pulse_export_s3::S3Config;
use pulse_outreach_senders::{SmtpSettings, TWILIO_API_BASE, TwilioSettings};
use pulse_postgres::PoolSettings;
use secrecy::SecretString;

pub const DEFAULT_DATABASE_URL: &str = "postgres://postgres@127.0.0.1:5432/pulse";
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";
/// Where `--dev` keeps its generated secrets, relative to the working directory.
pub const DEV_DIR: &str = ".pulse-dev";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    Json,
    Pretty,
}

pub struct Settings {
    pub database_url: String,
    /// A read-only copy (streaming replica) that results and lists read from (`DATABASE_READ_URL`).
    pub database_read_url: Option<String>,
    pub bind: SocketAddr,
    /// Where `/metrics` is served instead of the main listener (`PULSE_METRICS_BIND`).
    pub metrics_bind: Option<SocketAddr>,
    /// How long readiness answers 503 after a stop signal before the server stops taking requests
    /// (`PULSE_DRAIN_SECS`): longer than the balancer takes to notice.
    pub drain_grace: std::time::Duration,
    /// How long a client may take to send a request's head (`PULSE_HEADER_TIMEOUT_SECS`).
    pub header_timeout: std::time::Duration,
    /// How long a client may take to send a request's body once its head is read
    /// (`PULSE_BODY_TIMEOUT_SECS`).
    pub body_timeout: std::time::Duration,
    /// How long a request's work may take once its body has arrived (`PULSE_REQUEST_TIMEOUT_SECS`).
    pub request_timeout: std::time::Duration,
    pub base_url: String,
    pub survey_url: String,
    pub master_key: Option<SecretString>,
    pub studio_jwt_secret: Option<SecretString>,
    pub quotas: QuotaPolicy,
    /// When open starts need a solved proof-of-work challenge, and how costly one is.
    pub challenges: ChallengePolicy,
    /// How long audit entries are kept (`PULSE_AUDIT_RETENTION_DAYS`).
    pub audit_retention: time::Duration,
    pub log_filter: String,
    pub log_format: LogFormat,
    pub pool: PoolSettings,
    /// Proxies whose `X-Forwarded-For` names the client (for per-network limits).
    pub trusted_proxies: Vec<ipnet::IpNet>,
    pub webhooks: WebhookSettings,
    /// How often an idle analysis worker looks for finished sessions.
    pub analysis_poll_every: std::time::Duration,
    /// How often an idle export worker beats and looks for queued exports and expired files.
    pub export_poll_every: std::time::Duration,
    pub export_store: ExportStoreSettings,
    pub outreach: OutreachSettings,
}

/// How invitations, reminders and thank-you messages are sent.
#[derive(Clone, Debug)]
pub struct OutreachSettings {
    /// Email is sent only when an SMTP server is set.
    pub smtp: Option<SmtpSettings>,
    /// SMS and WhatsApp are sent only when a Twilio account (and the channel's sender) is set.
    pub twilio: Option<TwilioSettings>,
    /// The number calls (TELEPHONY) are placed from, with the same Twilio account; `None` leaves
    /// calls off.
    pub voice_from: Option<String>,
    /// At most this many calls under way per workspace.
    pub calls_at_once: u32,
    /// Whether spoken answers are also recorded at the voice provider.
    pub answer_recording: AnswerRecording,
    pub reminders: ReminderSchedule,
    /// The hours of the person's day in which no text or call goes out; `None` is any hour.
    pub quiet_hours: Option<QuietHours>,
    /// How often an idle outreach worker plans and looks for due messages.
    pub poll_every: std::time::Duration,
}

/// Where rendered export files are kept.
#[derive(Clone, Debug)]
pub enum ExportStoreSettings {
    Postgres,
    S3(S3Config),
}

fn export_store_settings(var: &impl Fn(&str) -> Option<String>) -> anyhow::Result<ExportStoreSettings> {
    match var("PULSE_EXPORT_STORE").as_deref() {
        None | Some("postgres") => return Ok(ExportStoreSettings::Postgres),
        Some("s3") => {}
        Some(other) => bail!("PULSE_EXPORT_STORE must be `postgres` or `s3`, not `{other}`"),
    }
    let required = |name: &str| var(name).with_context(|| format!("{name} is required when PULSE_EXPORT_STORE is s3"));
    let allow_http = match var("PULSE_S3_ALLOW_HTTP").as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => bail!("PULSE_S3_ALLOW_HTTP must be `true` or `false`, not `{other}`"),
    };
    let endpoint = var("PULSE_S3_ENDPOINT");
    if let Some(text) = &endpoint {
        // The value is not echoed: it might hold credentials or a signed query.
        let url = url::Url::parse(text).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https")
                && u.has_host()
                && u.username().is_empty()
                && u.password().is_none()
                && u.query().is_none()
                && u.fragment().is_none()
        });
        let url = url.context("PULSE_S3_ENDPOINT must be an http(s) URL without credentials, query or fragment")?;
        if url.scheme() == "http" && !allow_http {
            bail!("PULSE_S3_ENDPOINT is http://: set PULSE_S3_ALLOW_HTTP=true (local servers only) or use https://");
        }
    }
    Ok(ExportStoreSettings::S3(S3Config {
        bucket: required("PULSE_S3_BUCKET")?,
        endpoint,
        region: var("PULSE_S3_REGION").unwrap_or_else(|| "us-east-1".to_owned()),
        access_key_id: SecretString::from(required("PULSE_S3_ACCESS_KEY_ID")?),
        secret_access_key: SecretString::from(required("PULSE_S3_SECRET_ACCESS_KEY")?),
        allow_http,
    }))
}

/// Calls under way per workspace at most, unless set: a handful of lines, as a small call centre
/// would have, and far below a voice provider's account limits.
const DEFAULT_CALLS_AT_ONCE: u32 = 5;

/// Provider calls give up after this long; the message is retried later.
const PROVIDER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

fn outreach_settings(var: &impl Fn(&str) -> Option<String>) -> anyhow::Result<OutreachSettings> {
    let smtp = match var("PULSE_SMTP_URL") {
        None => None,
        Some(url) => Some(SmtpSettings {
            url,
            from_address: var("PULSE_SMTP_FROM").context("PULSE_SMTP_FROM is required when PULSE_SMTP_URL is set")?,
            username: var("PULSE_SMTP_USERNAME"),
            password: var("PULSE_SMTP_PASSWORD").map(SecretString::from),
            timeout: PROVIDER_TIMEOUT,
        }),
    };
    let twilio = match var("PULSE_SMS_ACCOUNT_SID") {
        None => None,
        Some(account_sid) => {
            let base = var("PULSE_SMS_API_URL").unwrap_or_else(|| TWILIO_API_BASE.to_owned());
            let api_base = url::Url::parse(&base)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host() && u.username().is_empty())
                .context("PULSE_SMS_API_URL must be an http(s) URL without credentials")?;
            Some(TwilioSettings {
                api_base,
                account_sid,
                auth_token: SecretString::from(
                    var("PULSE_SMS_AUTH_TOKEN")
                        .context("PULSE_SMS_AUTH_TOKEN is required when PULSE_SMS_ACCOUNT_SID is set")?,
                ),
                sms_from: var("PULSE_SMS_FROM"),
                whatsapp_from: var("PULSE_WHATSAPP_FROM"),
                timeout: PROVIDER_TIMEOUT,
            })
        }
    };
    let reminders = match var("PULSE_REMINDER_DAYS") {
        None => ReminderSchedule::default(),
        Some(list) => {
            let waits = list
                .split(',')
                .map(|days| days.trim().parse::<f64>().ok().filter(|d| d.is_finite() && *d > 0.0))
                .map(|days| days.map(time::Duration::seconds_f64).map(|d| d * 86_400))
                .collect::<Option<Vec<_>>>()
                .context("PULSE_REMINDER_DAYS must list days, such as `2,4`")?;
            ReminderSchedule::new(waits).map_err(|e| anyhow::anyhow!("PULSE_REMINDER_DAYS: {e}"))?
        }
    };
    let quiet_hours = match var("PULSE_QUIET_HOURS").as_deref() {
        None => Some(QuietHours::default()),
        Some("off") => None,
        Some(window) => Some(
            QuietHours::parse(window)
                .map_err(|_| anyhow::anyhow!("PULSE_QUIET_HOURS must be `off` or HH:MM-HH:MM, such as 20:00-09:00"))?,
        ),
    };
    Ok(OutreachSettings {
        smtp,
        twilio,
        voice_from: var("PULSE_VOICE_FROM"),
        calls_at_once: match var("PULSE_VOICE_CALLS_PER_WORKSPACE") {
            None => DEFAULT_CALLS_AT_ONCE,
            Some(text) => text
                .parse()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .context("PULSE_VOICE_CALLS_PER_WORKSPACE must be a number from 1 to 100")?,
        },
        answer_recording: match var("PULSE_VOICE_RECORDING").as_deref() {
            None | Some("off") => AnswerRecording::Off,
            Some("on") => AnswerRecording::On,
            Some(other) => bail!("PULSE_VOICE_RECORDING must be `on` or `off`, not `{other}`"),
        },
        reminders,
        quiet_hours,
        poll_every: poll_every(var, "PULSE_OUTREACH_POLL_MS", 60_000)?,
    })
}

/// How webhooks are sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookSettings {
    /// Lets URLs be `http://` and reach loopback and private addresses: tests and local development only.
    pub allow_private: bool,
    pub schedule: RetrySchedule,
    /// How long an endpoint has to answer.
    pub timeout: std::time::Duration,
    /// How often an idle worker looks for due deliveries.
    pub poll_every: std::time::Duration,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            allow_private: false,
            schedule: RetrySchedule::default(),
            timeout: std::time::Duration::from_secs(10),
            poll_every: std::time::Duration::from_secs(1),
        }
    }
}

fn webhook_settings(var: &impl Fn(&str) -> Option<String>) -> anyhow::Result<WebhookSettings> {
    let allow_private = match var("PULSE_WEBHOOK_ALLOW_PRIVATE").as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => bail!("PULSE_WEBHOOK_ALLOW_PRIVATE must be `true` or `false`, not `{other}`"),
    };
    let mut settings = WebhookSettings {
        allow_private,
        poll_every: poll_every(var, "PULSE_WEBHOOK_POLL_MS", 60_000)?,
        ..WebhookSettings::default()
    };
    if let Some(secs) = var("PULSE_WEBHOOK_TIMEOUT_SECS") {
        let secs: u64 = secs.parse().context("PULSE_WEBHOOK_TIMEOUT_SECS must be a whole number of seconds")?;
        if !(1..=60).contains(&secs) {
            bail!("PULSE_WEBHOOK_TIMEOUT_SECS must be from 1 to 60");
        }
        settings.timeout = std::time::Duration::from_secs(secs);
    }
    let delays = var("PULSE_WEBHOOK_RETRY_DELAYS");
    let attempts = var("PULSE_WEBHOOK_MAX_ATTEMPTS");
    if delays.is_some() || attempts.is_some() {
        let delays = match delays {
            None => [60, 300, 1800, 7200, 43200].into_iter().map(time::Duration::seconds).collect(),
            Some(list) => list
                .split(',')
                .map(|d| {
                    d.trim().parse::<u32>().map(|s| time::Duration::seconds(i64::from(s))).with_context(|| {
                        format!("PULSE_WEBHOOK_RETRY_DELAYS: `{}` is not a whole number of seconds", d.trim())
                    })
                })
                .collect::<anyhow::Result<Vec<_>>>()?,
        };
        let attempts = match attempts {
            None => 5,
            Some(n) => n.parse().context("PULSE_WEBHOOK_MAX_ATTEMPTS must be a whole number")?,
        };
        settings.schedule = RetrySchedule::new(delays, attempts)
            .map_err(|e| anyhow::anyhow!("PULSE_WEBHOOK_RETRY_DELAYS / PULSE_WEBHOOK_MAX_ATTEMPTS: {e}"))?;
    }
    Ok(settings)
}

impl Settings {
    /// # Errors
    /// When a variable is set to a value that cannot be used; the message names the variable.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// The base and survey URLs once the listener is bound to `bound`: one that defaulted to
    /// `http://<PULSE_BIND>` with port 0 ("any free port") names the port actually taken, so the
    /// links and download URLs the service writes reach it.
    pub fn urls_bound_to(&self, bound: std::net::SocketAddr) -> (String, String) {
        let defaulted = format!("http://{}", self.bind);
        let resolve = |url: &str| {
            if self.bind.port() == 0 && url == defaulted { format!("http://{bound}") } else { url.to_owned() }
        };
        (resolve(&self.base_url), resolve(&self.survey_url))
    }

    /// # Errors
    /// As [`Settings::from_env`].
    pub fn from_lookup(var: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let bind_text = var("PULSE_BIND").unwrap_or_else(|| DEFAULT_BIND.to_owned());
        let bind = bind_text.parse().with_context(|| format!("PULSE_BIND `{bind_text}` is not host:port"))?;
        let header_timeout = seconds(&var, "PULSE_HEADER_TIMEOUT_SECS", 5, 1..=60)?;
        let drain_grace = seconds(&var, "PULSE_DRAIN_SECS", 5, 0..=60)?;
        let body_timeout = seconds(&var, "PULSE_BODY_TIMEOUT_SECS", 10, 1..=300)?;
        let request_timeout = seconds(&var, "PULSE_REQUEST_TIMEOUT_SECS", 10, 1..=300)?;
        let metrics_bind = var("PULSE_METRICS_BIND")
            .map(|text| text.parse().with_context(|| format!("PULSE_METRICS_BIND `{text}` is not host:port")))
            .transpose()?;
        let base_url = var("PULSE_BASE_URL").unwrap_or_else(|| format!("http://{bind_text}"));
        let base_url = base_url.trim_end_matches('/').to_owned();
        let survey_url =
            var("PULSE_SURVEY_URL").map_or_else(|| base_url.clone(), |u| u.trim_end_matches('/').to_owned());
        let rate_limits = match var("PULSE_RATE_LIMITS").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(other) => bail!("PULSE_RATE_LIMITS must be `on` or `off`, not `{other}`"),
        };
        let mut quotas = QuotaPolicy::default();
        quotas.enabled = rate_limits;
        if let Some(spec) = var("PULSE_QUOTAS") {
            quotas = parse_quotas(quotas, &spec)?;
        }
        if let Some(limit) = var("PULSE_WORKSPACES_PER_BUSINESS") {
            quotas.workspaces_per_business =
                limit.parse().context("PULSE_WORKSPACES_PER_BUSINESS must be a whole number")?;
        }
        let challenges = challenge_policy(&var, rate_limits)?;
        let audit_retention = match var("PULSE_AUDIT_RETENTION_DAYS") {
            None => DEFAULT_RETENTION,
            Some(text) => text
                .parse::<i64>()
                .ok()
                .filter(|days| (1..=3650).contains(days))
                .map(time::Duration::days)
                .context("PULSE_AUDIT_RETENTION_DAYS must be a whole number of days from 1 to 3650")?,
        };
        let log_format = match var("PULSE_LOG_FORMAT").as_deref() {
            None | Some("json") => LogFormat::Json,
            Some("pretty") => LogFormat::Pretty,
            Some(other) => bail!("PULSE_LOG_FORMAT must be `json` or `pretty`, not `{other}`"),
        };
        let mut pool = PoolSettings::default();
        if let Some(size) = var("PULSE_DB_POOL_SIZE") {
            pool.max_size = size.parse().context("PULSE_DB_POOL_SIZE must be a whole number")?;
        }
        let trusted_proxies = var("PULSE_TRUSTED_PROXIES")
            .map(|list| {
                list.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        p.parse::<ipnet::IpNet>()
                            .or_else(|_| p.parse::<IpAddr>().map(ipnet::IpNet::from))
                            .with_context(|| format!("PULSE_TRUSTED_PROXIES: `{p}` is not an IP address or range"))
                    })
                    .collect::<anyhow::Result<Vec<ipnet::IpNet>>>()
            })
            .transpose()?
            .unwrap_or_default();
        let analysis_poll_every = poll_every(&var, "PULSE_ANALYSIS_POLL_MS", 60_000)?;
        // Requests are refused while no export worker beat in the last 30 seconds, so the worker
        // must beat well within that.
        let export_poll_every = poll_every(&var, "PULSE_EXPORT_POLL_MS", 10_000)?;
        Ok(Self {
            outreach: outreach_settings(&var)?,
            analysis_poll_every,
            export_poll_every,
            export_store: export_store_settings(&var)?,
            webhooks: webhook_settings(&var)?,
            trusted_proxies,
            database_url: var("DATABASE_URL").unwrap_or_else(|| DEFAULT_DATABASE_URL.to_owned()),
            database_read_url: var("DATABASE_READ_URL"),
            bind,
            metrics_bind,
            header_timeout,
            body_timeout,
            request_timeout,
            drain_grace,
            base_url,
            survey_url,
            master_key: var("PULSE_MASTER_KEY").map(SecretString::from),
            studio_jwt_secret: var("PULSE_STUDIO_JWT_SECRET").map(SecretString::from),
            quotas,
            challenges,
            audit_retention,
            log_filter: var("PULSE_LOG").unwrap_or_else(|| "info".to_owned()),
            log_format,
            pool,
        })
    }

    /// Fills the secrets `--dev` may make up, keeping them in `dir` so restarts keep working.
    ///
    /// # Errors
    /// When the directory or files cannot be written or read.
    pub fn with_dev_secrets(mut self, dir: &Path) -> anyhow::Result<Self> {
        if self.master_key.is_none() {
            self.master_key = Some(dev_secret(dir, "master.key", pulse_crypto::MasterKey::generate_base64)?);
        }
        if self.studio_jwt_secret.is_none() {
            self.studio_jwt_secret =
                Some(dev_secret(dir, "studio-jwt.secret", pulse_crypto::MasterKey::generate_base64)?);
        }
        Ok(self)
    }

    /// The development secrets of `dir`, if `--dev` made them, for secrets that are not set.
    ///
    /// # Errors
    /// When an existing file cannot be read.
    pub fn with_existing_dev_secrets(mut self, dir: &Path) -> anyhow::Result<Self> {
        let read = |name: &str| -> anyhow::Result<Option<SecretString>> {
            let path = dir.join(name);
            if path.exists() {
                // Only the development setup has these files, and an operator command's output is
                // its JSON: a warning on every successful command would be noise.
                tracing::debug!(path = %path.display(), "using the development secret of `pulse serve --dev`");
                Ok(Some(SecretString::from(std::fs::read_to_string(&path)?.trim().to_owned())))
            } else {
                Ok(None)
            }
        };
        if self.master_key.is_none() {
            self.master_key = read("master.key")?;
        }
        if self.studio_jwt_secret.is_none() {
            self.studio_jwt_secret = read("studio-jwt.secret")?;
        }
        Ok(self)
    }
}

/// A worker's idle wait in `name`, milliseconds from 10 to `max_ms`; a second when not set.
fn poll_every(var: &impl Fn(&str) -> Option<String>, name: &str, max_ms: u64) -> anyhow::Result<std::time::Duration> {
    match var(name) {
        None => Ok(std::time::Duration::from_secs(1)),
        Some(ms) => match ms.parse::<u64>() {
            Ok(ms) if (10..=max_ms).contains(&ms) => Ok(std::time::Duration::from_millis(ms)),
            _ => bail!("{name} must be a whole number of milliseconds from 10 to {max_ms}"),
        },
    }
}

pub fn dev_dir() -> PathBuf {
    PathBuf::from(DEV_DIR)
}

fn dev_secret(dir: &Path, name: &str, make: impl Fn() -> String) -> anyhow::Result<SecretString> {
    let path = dir.join(name);
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return Ok(SecretString::from(existing.trim().to_owned()));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let value = make();
    write_private(&path, &value).with_context(|| format!("writing {}", path.display()))?;
    tracing::warn!(path = %path.display(), "development mode: generated a local secret and kept it in this file");
    Ok(SecretString::from(value))
}

#[cfg(unix)]
fn write_private(path: &Path, value: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    file.write_all(value.as_bytes())
}

#[cfg(not(unix))]
fn write_private(path: &Path, value: &str) -> std::io::Result<()> {
    std::fs::write(path, value)
}

/// `family=limit,family=limit`, e.g. `workspace_create=50,identity=1000`.
fn parse_quotas(mut policy: QuotaPolicy, spec: &str) -> anyhow::Result<QuotaPolicy> {
    for pair in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, limit) =
            pair.split_once('=').with_context(|| format!("PULSE_QUOTAS: `{pair}` is not family=limit"))?;
        let family = QuotaFamily::parse(name.trim()).with_context(|| {
            let known: Vec<&str> = QuotaFamily::ALL.iter().map(|f| f.as_str()).collect();
            format!("PULSE_QUOTAS: unknown family `{name}` (known: {})", known.join(", "))
        })?;
        let limit = limit.trim().parse().with_context(|| format!("PULSE_QUOTAS: `{limit}` is not a whole number"))?;
        policy = policy.with_hourly(family, limit);
    }
    Ok(policy)
}

/// The challenge settings; with rate limits off (load tests) only campaigns that ask for a
/// challenge get one.
fn challenge_policy(var: &impl Fn(&str) -> Option<String>, rate_limits: bool) -> anyhow::Result<ChallengePolicy> {
    let defaults = ChallengePolicy::default();
    let whole =
        |name: &str, default: u32, range: std::ops::RangeInclusive<u32>| -> anyhow::Result<u32> {
            match var(name) {
                None => Ok(default),
                Some(text) => text.parse::<u32>().ok().filter(|n| range.contains(n)).with_context(|| {
                    format!("{name} must be a whole number from {} to {}", range.start(), range.end())
                }),
            }
        };
    let hourly = |name: &str, default: Option<u32>| -> anyhow::Result<Option<u32>> {
        match var(name).as_deref() {
            None => Ok(default),
            Some("off") => Ok(None),
            Some(text) => text
                .parse::<u32>()
                .map(Some)
                .with_context(|| format!("{name} must be a whole number of starts per hour, or `off`")),
        }
    };
    let lifetime = seconds(var, "PULSE_CHALLENGE_LIFETIME_SECS", 600, 60..=3600)?;
    let policy = ChallengePolicy {
        work: ChallengeWork {
            // Issuing derives one key on the request's thread: 100,000 iterations take about 20 ms.
            iterations: whole("PULSE_CHALLENGE_COST", defaults.work.iterations, 1..=100_000)?,
            max_tries: whole("PULSE_CHALLENGE_MAX_TRIES", defaults.work.max_tries, 1..=1_000_000)?,
        },
        lifetime: time::Duration::try_from(lifetime).context("PULSE_CHALLENGE_LIFETIME_SECS")?,
        network_starts_per_hour: hourly("PULSE_CHALLENGE_NETWORK_STARTS", defaults.network_starts_per_hour)?,
        campaign_starts_per_hour: hourly("PULSE_CHALLENGE_CAMPAIGN_STARTS", defaults.campaign_starts_per_hour)?,
    };
    Ok(if rate_limits { policy } else { policy.on_request_only() })
}

/// A whole number of seconds from `name`, within `range`, or `default`.
fn seconds(
    var: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> anyhow::Result<std::time::Duration> {
    let secs = match var(name) {
        None => default,
        Some(text) => text.parse::<u64>().ok().filter(|s| range.contains(s)).with_context(|| {
            format!("{name} must be a whole number of seconds from {} to {}", range.start(), range.end())
        })?,
    };
    Ok(std::time::Duration::from_secs(secs))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn settings(vars: &[(&str, &str)]) -> anyhow::Result<Settings> {
        let map: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Settings::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn urls_defaulted_from_a_bind_to_any_port_name_the_port_taken() {
        let bound: SocketAddr = "127.0.0.1:43117".parse().expect("address");
        let any = settings(&[("PULSE_BIND", "127.0.0.1:0")]).expect("settings");
        let taken = "http://127.0.0.1:43117".to_owned();
        assert_eq!(any.urls_bound_to(bound), (taken.clone(), taken.clone()));
        let survey = settings(&[("PULSE_BIND", "127.0.0.1:0"), ("PULSE_SURVEY_URL", "https://survey.example")]);
        assert_eq!(survey.expect("settings").urls_bound_to(bound), (taken, "https://survey.example".to_owned()));
        let fixed = settings(&[("PULSE_BIND", "127.0.0.1:8081")]).expect("settings");
        let own = "http://127.0.0.1:8081".to_owned();
        assert_eq!(fixed.urls_bound_to("127.0.0.1:8081".parse().expect("address")), (own.clone(), own));
    }

    #[test]
    fn trusted_proxies_are_addresses_or_ranges() {
        let s = settings(&[("PULSE_TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.1,fd00::/8")]).expect("parsed");
        let listed: Vec<String> = s.trusted_proxies.iter().map(ToString::to_string).collect();
        assert_eq!(listed, ["10.0.0.0/8", "192.0.2.1/32", "fd00::/8"]);
        let error = settings(&[("PULSE_TRUSTED_PROXIES", "10.0.0.0/33")]).err().expect("refused").to_string();
        assert!(error.contains("PULSE_TRUSTED_PROXIES") && error.contains("10.0.0.0/33"), "{error}");
    }

    #[test]
    fn request_timeouts_are_whole_seconds_in_range() {
        let secs = |s: &Settings| (s.header_timeout.as_secs(), s.body_timeout.as_secs(), s.request_timeout.as_secs());
        assert_eq!(secs(&settings(&[]).expect("defaults")), (5, 10, 10));
        let s = settings(&[
            ("PULSE_HEADER_TIMEOUT_SECS", "2"),
            ("PULSE_BODY_TIMEOUT_SECS", "30"),
            ("PULSE_REQUEST_TIMEOUT_SECS", "4"),
        ])
        .expect("set");
        assert_eq!(secs(&s), (2, 30, 4));
        for (name, bad) in [
            ("PULSE_HEADER_TIMEOUT_SECS", "0"),
            ("PULSE_BODY_TIMEOUT_SECS", "301"),
            ("PULSE_BODY_TIMEOUT_SECS", "1.5"),
            ("PULSE_REQUEST_TIMEOUT_SECS", "0"),
            ("PULSE_REQUEST_TIMEOUT_SECS", "301"),
        ] {
            let error = settings(&[(name, bad)]).err().expect("refused").to_string();
            assert!(error.contains(name), "{error}");
        }
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let s = settings(&[]).expect("defaults");
        assert_eq!(s.database_url, DEFAULT_DATABASE_URL);
        assert_eq!(s.bind.to_string(), DEFAULT_BIND);
        assert_eq!(s.base_url, "http://127.0.0.1:8080");
        assert_eq!(s.survey_url, s.base_url);
        assert!(s.quotas.enabled);
        assert_eq!(s.log_format, LogFormat::Json);
        assert!(s.master_key.is_none());
        assert_eq!(s.webhooks, WebhookSettings::default());
        assert_eq!(s.webhooks.schedule.max_attempts(), 5);
        assert_eq!(s.analysis_poll_every, std::time::Duration::from_secs(1));
        assert_eq!(s.export_poll_every, std::time::Duration::from_secs(1));
        assert!(matches!(s.export_store, ExportStoreSettings::Postgres));
        assert_eq!(s.outreach.quiet_hours, Some(QuietHours::default()));
        assert_eq!((s.outreach.voice_from.as_deref(), s.outreach.calls_at_once), (None, 5));
        assert_eq!(s.outreach.answer_recording, AnswerRecording::Off);
    }

    #[test]
    fn answers_are_recorded_only_when_the_operator_says_so() {
        let on = settings(&[("PULSE_VOICE_RECORDING", "on")]).expect("settings");
        assert_eq!(on.outreach.answer_recording, AnswerRecording::On);
        let off = settings(&[("PULSE_VOICE_RECORDING", "off")]).expect("settings");
        assert_eq!(off.outreach.answer_recording, AnswerRecording::Off);
        let Err(refused) = settings(&[("PULSE_VOICE_RECORDING", "yes")]) else { panic!("`yes` is refused") };
        assert!(refused.to_string().contains("PULSE_VOICE_RECORDING"), "{refused}");
    }

    #[test]
    fn quiet_hours_are_a_window_or_off() {
        let evening = settings(&[("PULSE_QUIET_HOURS", "21:30-08:00")]).expect("settings");
        assert_eq!(evening.outreach.quiet_hours, Some(QuietHours::parse("21:30-08:00").expect("valid")));
        assert_eq!(settings(&[("PULSE_QUIET_HOURS", "off")]).expect("settings").outreach.quiet_hours, None);
    }

    const S3: [(&str, &str); 4] = [
        ("PULSE_EXPORT_STORE", "s3"),
        ("PULSE_S3_BUCKET", "pulse-exports"),
        ("PULSE_S3_ACCESS_KEY_ID", "key-id"),
        ("PULSE_S3_SECRET_ACCESS_KEY", "very-secret"),
    ];

    #[test]
    fn the_s3_export_store_is_read() {
        let s = settings(&S3).expect("settings");
        let ExportStoreSettings::S3(s3) = &s.export_store else { panic!("not s3: {:?}", s.export_store) };
        assert_eq!(
            (s3.bucket.as_str(), s3.region.as_str(), s3.endpoint.as_deref()),
            ("pulse-exports", "us-east-1", None)
        );
        assert!(!s3.allow_http);
        assert!(!format!("{:?}", s.export_store).contains("very-secret"));
        let local = [
            &S3[..],
            &[
                ("PULSE_S3_ENDPOINT", "http://127.0.0.1:9000"),
                ("PULSE_S3_ALLOW_HTTP", "true"),
                ("PULSE_S3_REGION", "eu-west-1"),
            ],
        ]
        .concat();
        let ExportStoreSettings::S3(s3) = settings(&local).expect("settings").export_store else { panic!("not s3") };
        assert_eq!((s3.endpoint.as_deref(), s3.region.as_str()), (Some("http://127.0.0.1:9000"), "eu-west-1"));
        assert!(s3.allow_http);
    }

    #[test]
    fn the_s3_export_store_needs_its_settings() {
        for missing in ["PULSE_S3_BUCKET", "PULSE_S3_ACCESS_KEY_ID", "PULSE_S3_SECRET_ACCESS_KEY"] {
            let vars: Vec<_> = S3.into_iter().filter(|(name, _)| *name != missing).collect();
            let err = settings(&vars).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(missing), "{missing}: {err}");
        }
        for (var, value) in [
            ("PULSE_S3_ENDPOINT", "ftp://store.example"),
            ("PULSE_S3_ENDPOINT", "https://user:pw@store.example"),
            ("PULSE_S3_ENDPOINT", "https://store.example/?X-Amz-Signature=abc"),
            ("PULSE_S3_ENDPOINT", "http://127.0.0.1:9000"),
            ("PULSE_S3_ALLOW_HTTP", "yes"),
        ] {
            let err = settings(&[&S3[..], &[(var, value)]].concat()).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(var) && !err.contains("pw@") && !err.contains("Signature"), "{var}={value}: {err}");
        }
    }

    #[test]
    fn poll_intervals_are_read() {
        let s = settings(&[("PULSE_ANALYSIS_POLL_MS", "250"), ("PULSE_EXPORT_POLL_MS", "10000")]).expect("settings");
        assert_eq!(s.analysis_poll_every, std::time::Duration::from_millis(250));
        assert_eq!(s.export_poll_every, std::time::Duration::from_secs(10));
    }

    #[test]
    fn webhook_knobs_are_read() {
        let s = settings(&[
            ("PULSE_WEBHOOK_ALLOW_PRIVATE", "true"),
            ("PULSE_WEBHOOK_TIMEOUT_SECS", "2"),
            ("PULSE_WEBHOOK_RETRY_DELAYS", "1, 2"),
            ("PULSE_WEBHOOK_MAX_ATTEMPTS", "3"),
            ("PULSE_WEBHOOK_POLL_MS", "250"),
        ])
        .expect("settings");
        assert!(s.webhooks.allow_private);
        assert_eq!(s.webhooks.poll_every, std::time::Duration::from_millis(250));
        assert_eq!(s.webhooks.timeout, std::time::Duration::from_secs(2));
        assert_eq!(s.webhooks.schedule.after_failures(2), Some(time::Duration::seconds(2)));
        assert_eq!(s.webhooks.schedule.after_failures(3), None);
        let raised = settings(&[("PULSE_WEBHOOK_MAX_ATTEMPTS", "6")]).expect("settings");
        assert_eq!(raised.webhooks.schedule.after_failures(5), Some(time::Duration::hours(12)));
    }

    #[test]
    fn quotas_and_switches_are_read() {
        let s = settings(&[
            ("PULSE_RATE_LIMITS", "off"),
            ("PULSE_QUOTAS", "workspace_create=5, identity=7"),
            ("PULSE_SURVEY_URL", "https://survey.example/"),
        ])
        .expect("settings");
        assert!(!s.quotas.enabled);
        assert_eq!(s.quotas.hourly(QuotaFamily::WorkspaceCreate), 5);
        assert_eq!(s.quotas.hourly(QuotaFamily::Identity), 7);
        assert_eq!(s.quotas.hourly(QuotaFamily::WorkspaceRead), 3600);
        assert_eq!(s.survey_url, "https://survey.example");
    }

    #[test]
    fn challenge_and_audit_settings_are_read() {
        let s = settings(&[
            ("PULSE_CHALLENGE_COST", "2000"),
            ("PULSE_CHALLENGE_MAX_TRIES", "300"),
            ("PULSE_CHALLENGE_LIFETIME_SECS", "120"),
            ("PULSE_CHALLENGE_NETWORK_STARTS", "off"),
            ("PULSE_CHALLENGE_CAMPAIGN_STARTS", "50"),
            ("PULSE_AUDIT_RETENTION_DAYS", "30"),
        ])
        .expect("settings");
        assert_eq!((s.challenges.work.iterations, s.challenges.work.max_tries), (2000, 300));
        assert_eq!(s.challenges.lifetime, time::Duration::minutes(2));
        assert_eq!((s.challenges.network_starts_per_hour, s.challenges.campaign_starts_per_hour), (None, Some(50)));
        assert_eq!(s.audit_retention, time::Duration::days(30));
        let unlimited = settings(&[("PULSE_RATE_LIMITS", "off")]).expect("settings");
        assert_eq!(
            (unlimited.challenges.network_starts_per_hour, unlimited.challenges.campaign_starts_per_hour),
            (None, None)
        );
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (var, value) in [
            ("PULSE_BIND", "nope"),
            ("PULSE_RATE_LIMITS", "maybe"),
            ("PULSE_LOG_FORMAT", "xml"),
            ("PULSE_QUOTAS", "bogus=1"),
            ("PULSE_WEBHOOK_ALLOW_PRIVATE", "yes"),
            ("PULSE_WEBHOOK_TIMEOUT_SECS", "0"),
            ("PULSE_WEBHOOK_RETRY_DELAYS", "60,soon"),
            ("PULSE_WEBHOOK_MAX_ATTEMPTS", "9"),
            ("PULSE_WEBHOOK_POLL_MS", "60001"),
            ("PULSE_ANALYSIS_POLL_MS", "5"),
            ("PULSE_EXPORT_POLL_MS", "30000"),
            ("PULSE_EXPORT_STORE", "disk"),
            ("PULSE_QUIET_HOURS", "8pm-9am"),
            ("PULSE_VOICE_CALLS_PER_WORKSPACE", "0"),
            ("PULSE_CHALLENGE_COST", "100001"),
            ("PULSE_CHALLENGE_MAX_TRIES", "0"),
            ("PULSE_CHALLENGE_LIFETIME_SECS", "30"),
            ("PULSE_CHALLENGE_NETWORK_STARTS", "lots"),
            ("PULSE_AUDIT_RETENTION_DAYS", "0"),
        ] {
            let err = settings(&[(var, value)]).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(err.contains(var), "{var}: {err}");
        }
    }
}
