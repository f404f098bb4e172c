//! `GET /channel/campaigns/{id}/results`, and the analysis that fills them, run on demand.

use pulse::platform::AppClock;
use pulse::startup::{crypto_from, store_from};
use serde_json::Value;

use super::TestApp;

impl TestApp {
    pub async fn results(&self, key: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{campaign}/results")))
            .query(query)
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn breakdown(&self, key: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{campaign}/results/breakdown")))
            .query(query)
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    pub async fn trend(&self, key: &str, campaign: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/channel/campaigns/{campaign}/results/trend")))
            .query(query)
            .bearer_auth(key)
            .send()
            .await
            .expect("request")
    }

    /// Analyzes every finished session that is due, and reads again those an older analyzer read,
    /// as a replica's worker does; returns what it did.
    pub async fn analyze(&self) -> Vec<pulse_domain::analysis::models::AnalysisSummary> {
        let analysis = pulse::startup::analysis_from(
            store_from(&self.settings).expect("store"),
            crypto_from(&self.settings).expect("crypto"),
            AppClock::Settable(self.clock.clone()),
        );
        analysis.announce().await.expect("the analyzer in charge");
        let mut done = Vec::new();
        loop {
            let round = analysis.run_due().await.expect("an analysis round");
            if round.is_empty() {
                return done;
            }
            done.extend(round);
        }
    }

    /// The campaign's results after analyzing what is due; `completed` finished sessions are
    /// expected, all of them analyzed.
    pub async fn analyzed_results(&self, key: &str, campaign: &str, completed: u64) -> Value {
        self.analyze().await;
        let response = self.results(key, campaign, &[]).await;
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("json");
        assert_eq!(
            (&body["metrics"]["completed"], &body["metrics"]["pendingAnalysis"]),
            (&completed.into(), &0.into())
        );
        body
    }
}
