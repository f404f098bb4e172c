//! A webhook transport that records requests and answers from a script.
use pulse_domain::error::Result;
use pulse_domain::webhooks::models::{OutboundRequest, PostOutcome, WebhookUrl, address_refusal, refused_address};
use pulse_domain::webhooks::ports::WebhookTransport;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A transport that sends nothing: it records each request and answers from a script (204 once
/// the script runs out). Its address check refuses IP literals in forbidden ranges and `localhost`.
#[derive(Clone, Debug, Default)]
pub struct RecordingTransport {
    inner: Arc<Mutex<RecordingState>>,
}

#[derive(Debug, Default)]
struct RecordingState {
    script: std::collections::VecDeque<PostOutcome>,
    sent: Vec<OutboundRequest>,
}

impl RecordingTransport {
    /// Answers the next POSTs with these outcomes, in order.
    pub fn answer(&self, outcomes: impl IntoIterator<Item = PostOutcome>) {
        self.lock().script.extend(outcomes);
    }

    /// What was posted so far.
    pub fn sent(&self) -> Vec<OutboundRequest> {
        self.lock().sent.clone()
    }

    fn lock(&self) -> MutexGuard<'_, RecordingState> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl WebhookTransport for RecordingTransport {
    async fn check_target(&self, url: &WebhookUrl) -> Result<()> {
        let refused = |host: &str, ip: std::net::IpAddr| {
            address_refusal(ip).map_or(Ok(()), |why| Err(refused_address(host, ip, why)))
        };
        match url.as_url().host() {
            Some(url::Host::Ipv4(ip)) => refused(&ip.to_string(), ip.into()),
            Some(url::Host::Ipv6(ip)) => refused(&ip.to_string(), ip.into()),
            Some(url::Host::Domain("localhost")) => refused("localhost", std::net::Ipv4Addr::LOCALHOST.into()),
            _ => Ok(()),
        }
    }

    async fn post(&self, request: &OutboundRequest) -> PostOutcome {
        let mut state = self.lock();
        state.sent.push(request.clone());
        state.script.pop_front().unwrap_or(PostOutcome { status_code: Some(204), error: None, duration_ms: 1 })
    }
}
