//! The JSONB shapes of a campaign's quality, delivery and order terms. They are the stored form,
//! kept here so the domain's types carry no serialization, and they read back rows written before
//! them (the same camelCase fields, absent when unset).

use pulse_domain::campaigns::models::{Delivery, DeliveryChannel, Order, Quality};
use pulse_domain::{Error, Result};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct QualityJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    target_count: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_responses: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_duration_secs: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_coverage_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_answer_words: Option<u32>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    require_challenge: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DeliveryJson {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    channels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reminder_count: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    audio_retention_days: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    greet_by_name: Option<bool>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OrderJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    package_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quoted_price_inr: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    accepted_responses_committed: Option<u32>,
}

/// The stored form of `terms`.
pub(crate) fn to_jsonb<T: Serialize>(terms: &T) -> Result<serde_json::Value> {
    serde_json::to_value(terms).map_err(Error::internal)
}

/// Reads a stored form; `None` for one this version cannot read.
pub(crate) fn from_jsonb<T: for<'de> Deserialize<'de>>(value: serde_json::Value) -> Option<T> {
    serde_json::from_value(value).ok()
}

impl From<&Quality> for QualityJson {
    fn from(q: &Quality) -> Self {
        Self {
            target_count: q.target_count,
            max_responses: q.max_responses,
            min_duration_secs: q.min_duration_secs,
            min_coverage_ratio: q.min_coverage_ratio,
            min_answer_words: q.min_answer_words,
            require_challenge: q.require_challenge,
        }
    }
}

impl From<QualityJson> for Quality {
    fn from(q: QualityJson) -> Self {
        Self {
            target_count: q.target_count,
            max_responses: q.max_responses,
            min_duration_secs: q.min_duration_secs,
            min_coverage_ratio: q.min_coverage_ratio,
            min_answer_words: q.min_answer_words,
            require_challenge: q.require_challenge,
        }
    }
}

impl From<&Delivery> for DeliveryJson {
    fn from(d: &Delivery) -> Self {
        Self {
            channels: d.channels.iter().map(|c| c.as_str().to_owned()).collect(),
            reminder_count: d.reminder_count,
            audio_retention_days: d.audio_retention_days,
            greet_by_name: d.greet_by_name,
        }
    }
}

impl DeliveryJson {
    /// `None` when a stored channel is not one this version knows.
    pub(crate) fn into_domain(self) -> Option<Delivery> {
        let channels = self.channels.iter().map(|c| DeliveryChannel::parse(c)).collect::<Option<Vec<_>>>()?;
        Some(Delivery {
            channels,
            reminder_count: self.reminder_count,
            audio_retention_days: self.audio_retention_days,
            greet_by_name: self.greet_by_name,
        })
    }
}

impl From<&Order> for OrderJson {
    fn from(o: &Order) -> Self {
        Self {
            package_type: o.package_type.clone(),
            quoted_price_inr: o.quoted_price_inr,
            accepted_responses_committed: o.accepted_responses_committed,
        }
    }
}

impl From<OrderJson> for Order {
    fn from(o: OrderJson) -> Self {
        Self {
            package_type: o.package_type,
            quoted_price_inr: o.quoted_price_inr,
            accepted_responses_committed: o.accepted_responses_committed,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn stored_terms_read_back_and_unknown_channels_are_refused() {
        let stored = json!({"channels": ["EMAIL", "SMS"], "reminderCount": 2, "greetByName": true});
        let delivery = from_jsonb::<DeliveryJson>(stored.clone()).and_then(DeliveryJson::into_domain).expect("read");
        assert_eq!(delivery.channels, [DeliveryChannel::Email, DeliveryChannel::Sms]);
        assert_eq!(
            (delivery.reminder_count, delivery.greet_by_name, delivery.audio_retention_days),
            (Some(2), Some(true), None)
        );
        assert_eq!(to_jsonb(&DeliveryJson::from(&delivery)).expect("write"), stored, "written as it was read");
        assert!(
            from_jsonb::<DeliveryJson>(json!({"channels": ["PIGEON"]})).and_then(DeliveryJson::into_domain).is_none()
        );

        let quality = Quality { min_coverage_ratio: Some(0.5), ..Quality::default() };
        assert_eq!(to_jsonb(&QualityJson::from(&quality)).expect("write"), json!({"minCoverageRatio": 0.5}));
        assert_eq!(Quality::from(from_jsonb::<QualityJson>(json!({"minCoverageRatio": 0.5})).expect("read")), quality);
        assert_eq!(Order::from(from_jsonb::<OrderJson>(json!({})).expect("read")), Order::default());
    }
}
