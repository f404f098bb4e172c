//! The one error catalog of the service and the error type every port and service returns.

use std::fmt;

/// Stable class codes. Partners branch on these; titles and descriptions may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    Unauthenticated,
    InsufficientPermission,
    NoOrg,
    WorkspaceRequired,
    ValidationFailed,
    NotFound,
    MethodNotAllowed,
    UnsupportedMediaType,
    PayloadTooLarge,
    RequestTimeout,
    Conflict,
    RefConflict,
    LaunchSignatureRequired,
    LaunchTokenInvalid,
    ChallengeRequired,
    NotLaunchReady,
    CampaignNotCollecting,
    LaunchKeySlotsFull,
    UserHashInvalid,
    InstallInvalid,
    DeviceAuthInvalid,
    InstallBlocked,
    RateLimited,
    Internal,
    Unavailable,
    ExportUnavailable,
}

impl ErrorCode {
    /// Every code, in catalog order (for documentation and the OpenAPI document).
    pub const ALL: [ErrorCode; 26] = [
        ErrorCode::Unauthenticated,
        ErrorCode::InsufficientPermission,
        ErrorCode::NoOrg,
        ErrorCode::WorkspaceRequired,
        ErrorCode::ValidationFailed,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::PayloadTooLarge,
        ErrorCode::RequestTimeout,
        ErrorCode::Conflict,
        ErrorCode::RefConflict,
        ErrorCode::LaunchSignatureRequired,
        ErrorCode::LaunchTokenInvalid,
        ErrorCode::ChallengeRequired,
        ErrorCode::NotLaunchReady,
        ErrorCode::CampaignNotCollecting,
        ErrorCode::LaunchKeySlotsFull,
        ErrorCode::UserHashInvalid,
        ErrorCode::InstallInvalid,
        ErrorCode::DeviceAuthInvalid,
        ErrorCode::InstallBlocked,
        ErrorCode::RateLimited,
        ErrorCode::Internal,
        ErrorCode::Unavailable,
        ErrorCode::ExportUnavailable,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::InsufficientPermission => "INSUFFICIENT_PERMISSION",
            ErrorCode::NoOrg => "NO_ORG",
            ErrorCode::WorkspaceRequired => "WORKSPACE_REQUIRED",
            ErrorCode::ValidationFailed => "VALIDATION_FAILED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::RequestTimeout => "REQUEST_TIMEOUT",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::RefConflict => "REF_CONFLICT",
            ErrorCode::LaunchSignatureRequired => "LAUNCH_SIGNATURE_REQUIRED",
            ErrorCode::LaunchTokenInvalid => "LAUNCH_TOKEN_INVALID",
            ErrorCode::ChallengeRequired => "CHALLENGE_REQUIRED",
            ErrorCode::NotLaunchReady => "NOT_LAUNCH_READY",
            ErrorCode::CampaignNotCollecting => "CAMPAIGN_NOT_COLLECTING",
            ErrorCode::LaunchKeySlotsFull => "LAUNCH_KEY_SLOTS_FULL",
            ErrorCode::UserHashInvalid => "USER_HASH_INVALID",
            ErrorCode::InstallInvalid => "INSTALL_INVALID",
            ErrorCode::DeviceAuthInvalid => "DEVICE_AUTH_INVALID",
            ErrorCode::InstallBlocked => "INSTALL_BLOCKED",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::ExportUnavailable => "EXPORT_UNAVAILABLE",
        }
    }

    pub const fn title(self) -> &'static str {
        match self {
            ErrorCode::Unauthenticated => "Authentication required",
            ErrorCode::InsufficientPermission => "Insufficient permission",
            ErrorCode::NoOrg => "No business",
            ErrorCode::WorkspaceRequired => "Workspace required",
            ErrorCode::ValidationFailed => "Invalid request",
            ErrorCode::NotFound => "Not found",
            ErrorCode::MethodNotAllowed => "Method not allowed",
            ErrorCode::UnsupportedMediaType => "Unsupported media type",
            ErrorCode::PayloadTooLarge => "Request body too large",
            ErrorCode::RequestTimeout => "Request too slow",
            ErrorCode::Conflict => "Conflict",
            ErrorCode::RefConflict => "Reference conflict",
            ErrorCode::LaunchSignatureRequired => "Signed launch required",
            ErrorCode::LaunchTokenInvalid => "Launch token invalid",
            ErrorCode::ChallengeRequired => "Challenge required",
            ErrorCode::NotLaunchReady => "Campaign not ready to launch",
            ErrorCode::CampaignNotCollecting => "Campaign not collecting",
            ErrorCode::LaunchKeySlotsFull => "Launch key slots full",
            ErrorCode::UserHashInvalid => "User hash invalid",
            ErrorCode::InstallInvalid => "Install id invalid",
            ErrorCode::DeviceAuthInvalid => "Device authentication failed",
            ErrorCode::InstallBlocked => "Device blocked",
            ErrorCode::RateLimited => "Too many requests",
            ErrorCode::Internal => "Internal error",
            ErrorCode::Unavailable => "Service unavailable",
            ErrorCode::ExportUnavailable => "Exports unavailable",
        }
    }

    /// When a partner sees this code, in one sentence (documentation).
    pub const fn meaning(self) -> &'static str {
        match self {
            ErrorCode::Unauthenticated => "No API key, or the key is malformed, unknown, revoked or expired.",
            ErrorCode::InsufficientPermission => "The key lacks the scope the route needs; the description names it.",
            ErrorCode::NoOrg => "The key belongs to no business, so it reaches no workspace.",
            ErrorCode::WorkspaceRequired => {
                "The key reaches several workspaces (or none) and X-SVC-Workspace was not sent."
            }
            ErrorCode::ValidationFailed => {
                "The request is malformed or breaks a field rule; the description names the field."
            }
            ErrorCode::NotFound => {
                "Unknown route or resource, or a resource of another tenant (the same answer for both)."
            }
            ErrorCode::MethodNotAllowed => "The route exists but not with this HTTP method.",
            ErrorCode::UnsupportedMediaType => {
                "A request body was sent without Content-Type: application/json, or with a Content-Encoding."
            }
            ErrorCode::PayloadTooLarge => "The request body is larger than the route accepts.",
            ErrorCode::RequestTimeout => "The request body did not arrive in time; send the request again.",
            ErrorCode::Conflict => {
                "Idempotency-Key reused with a different body, or the first request with it is still in flight; a concurrent register of the same app device went first; or a campaign change (launch, pause, resume) that its status does not allow."
            }
            ErrorCode::RefConflict => "A workspace with this externalRef exists with different details.",
            ErrorCode::LaunchSignatureRequired => {
                "The campaign requires a signed launch token and the start came without one; open the survey from the app."
            }
            ErrorCode::LaunchTokenInvalid => {
                "The launch token or link is expired, already used, badly signed or for another campaign; mint a fresh link."
            }
            ErrorCode::ChallengeRequired => {
                "Public start of an open campaign that asks for proof of work: the request carried no solved challenge, or one that is wrong, expired, already used or another campaign's; solve the access check's challenge and start again."
            }
            ErrorCode::NotLaunchReady => "The campaign cannot launch yet; the description names the blocker.",
            ErrorCode::CampaignNotCollecting => {
                "The campaign is not ACTIVE (a draft, paused or closed), so no links can be minted for it and no app can register against it; the description says what would make it collect."
            }
            ErrorCode::LaunchKeySlotsFull => "Both launch-key slots hold an active key; revoke one first.",
            ErrorCode::UserHashInvalid => {
                "App register: user.userHash did not verify against an active launch key, or a verified user was sent without one."
            }
            ErrorCode::InstallInvalid => {
                "v1 heartbeat: the installId is forged, expired, unknown or another campaign's, or its device is blocked; register again."
            }
            ErrorCode::DeviceAuthInvalid => {
                "v2 heartbeat: unknown device, or a wrong, expired or replaced refresh token; register again."
            }
            ErrorCode::InstallBlocked => "App register from a device the workspace has blocked.",
            ErrorCode::RateLimited => "An hourly quota or a rate limit is exhausted; see Retry-After.",
            ErrorCode::Internal => "An unexpected failure on our side; the request id identifies it in our logs.",
            ErrorCode::Unavailable => "A dependency (the database) is unreachable; retry later.",
            ErrorCode::ExportUnavailable => {
                "No export worker is running, or the file format cannot be rendered now; retry later."
            }
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The state of a metered quota window, for `RateLimit-*` and `Retry-After` headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitState {
    /// What is limited: a quota family's name, or `heartbeat`, `download_fetch`, `max_responses`.
    pub family: &'static str,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the window resets.
    pub reset_secs: u64,
}

/// A refusal a client may see: a catalog code and a description that never carries a secret or
/// personal data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub description: String,
    pub rate_limit: Option<RateLimitState>,
}

/// The error of every service and port.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {}", .0.code, .0.description)]
    Refused(Refusal),
    /// A dependency is unreachable; clients see 503 and may retry.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Anything else that went wrong on our side; logged, never shown to a client.
    #[error("internal: {0}")]
    Internal(#[source] Box<dyn std::error::Error + Send + Sync>),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn refused(code: ErrorCode, description: impl Into<String>) -> Self {
        Error::Refused(Refusal { code, description: description.into(), rate_limit: None })
    }

    pub fn validation(field: &str, problem: impl fmt::Display) -> Self {
        Self::refused(ErrorCode::ValidationFailed, format!("`{field}`: {problem}"))
    }

    pub fn not_found(what: &str) -> Self {
        Self::refused(ErrorCode::NotFound, format!("{what} not found"))
    }

    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Error::Internal(error.into())
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            Error::Refused(refusal) => refusal.code,
            Error::Unavailable(_) => ErrorCode::Unavailable,
            Error::Internal(_) => ErrorCode::Internal,
        }
    }
}
