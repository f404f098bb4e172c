//! `/public/pulse/{code}/...`: what the respondent page calls (access, start, answers, complete).

use serde_json::Value;

use super::TestApp;

impl TestApp {
    /// `GET .../access` with query pairs such as `("lt", token)`.
    pub async fn access(&self, code: &str, query: &[(&str, &str)]) -> reqwest::Response {
        self.client
            .get(self.url(&format!("/api/v1/public/pulse/{code}/access")))
            .query(query)
            .send()
            .await
            .expect("request")
    }

    pub async fn start(&self, code: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/start")))
            .json(body)
            .send()
            .await
            .expect("request")
    }

    /// Starts a session with consent and `extra` fields; returns the 201 body.
    pub async fn started(&self, code: &str, extra: &Value) -> Value {
        let mut body = serde_json::json!({"consentGiven": true});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        let response = self.start(code, &body).await;
        assert_eq!(response.status(), 201);
        response.json().await.expect("json")
    }

    pub async fn answer(&self, code: &str, session: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/answers")))
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("request")
    }

    pub async fn complete(&self, code: &str, session: &str, token: &str) -> reqwest::Response {
        self.client
            .post(self.url(&format!("/api/v1/public/pulse/{code}/sessions/{session}/complete")))
            .bearer_auth(token)
            .send()
            .await
            .expect("request")
    }

    /// Starts a session (with `extra` start fields), answers `answers` (`[[questionId, value]]`)
    /// and completes it; returns the session id.
    pub async fn respond(&self, code: &str, extra: &Value, answers: &[(&str, Value)]) -> String {
        let started = self.started(code, extra).await;
        let session = started["sessionId"].as_str().expect("session").to_owned();
        let token = started["sessionToken"].as_str().expect("token").to_owned();
        let body = serde_json::json!({"answers": answers.iter()
            .map(|(q, v)| serde_json::json!({"questionId": q, "value": v})).collect::<Vec<_>>()});
        assert_eq!(self.answer(code, &session, &token, &body).await.status(), 200);
        self.clock.advance(time::Duration::seconds(90));
        assert_eq!(self.complete(code, &session, &token).await.status(), 200);
        session
    }
}
