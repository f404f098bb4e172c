//! The monitoring pack's dashboard (`deploy/monitoring/dashboard.json`) queries only series a
//! running Pulse serves, so no panel stays empty because a name drifted.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::helpers::spawn_app_with;

/// A histogram is served as its `_bucket`, `_sum` and `_count` series.
fn base_name(series: &str) -> &str {
    ["_bucket", "_sum", "_count"].iter().find_map(|suffix| series.strip_suffix(suffix)).unwrap_or(series)
}

/// The `pulse_…` names a PromQL expression reads.
fn pulse_series(expr: &str) -> Vec<&str> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    expr.split(|c: char| !is_name(c)).filter(|token| token.starts_with("pulse_")).collect()
}

/// Every `targets[].expr` of the dashboard's panels, rows' panels included.
fn expressions(panels: &[Value], found: &mut Vec<String>) {
    for panel in panels {
        for target in panel["targets"].as_array().into_iter().flatten() {
            if let Some(expr) = target["expr"].as_str() {
                found.push(expr.to_owned());
            }
        }
        expressions(panel["panels"].as_array().map_or(&[], Vec::as_slice), found);
    }
}

#[tokio::test]
async fn every_series_the_dashboard_queries_is_served() {
    // With a read-only copy, so the replica's lag is served too.
    let app = spawn_app_with(|s| s.database_read_url = Some(s.database_url.clone())).await;
    assert_eq!(app.client.get(app.url("/readyz")).send().await.expect("response").status(), 200);
    let text = app.client.get(app.url("/metrics")).send().await.expect("response").text().await.expect("text");
    let served: BTreeSet<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| line.split(['{', ' ']).next())
        .map(base_name)
        .collect();

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../deploy/monitoring/dashboard.json");
    let dashboard: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the dashboard")).expect("JSON");
    let mut exprs = Vec::new();
    expressions(dashboard["panels"].as_array().expect("panels"), &mut exprs);
    assert!(exprs.len() >= 8, "the dashboard's queries were found: {exprs:?}");
    for expr in &exprs {
        let names = pulse_series(expr);
        assert!(!names.is_empty(), "a query that reads no series of Pulse: {expr}");
        for name in names {
            assert!(served.contains(base_name(name)), "{name} (in {expr}) is not served; served: {served:?}");
        }
    }
}

#[test]
fn names_are_read_from_queries_and_histograms_by_their_base() {
    let expr =
        r#"histogram_quantile(0.99, sum by (le) (rate(pulse_http_request_duration_seconds_bucket{job="pulse"}[5m])))"#;
    assert_eq!(pulse_series(expr), ["pulse_http_request_duration_seconds_bucket"]);
    assert_eq!(base_name("pulse_http_request_duration_seconds_bucket"), "pulse_http_request_duration_seconds");
    assert_eq!(base_name("pulse_queue_due"), "pulse_queue_due");
}
