//! `LaunchRepository` and `SessionStore`: a launch link or a partner token starts one session,
//! and spent tokens are remembered until they expire.

use pulse_domain::ErrorCode;
use pulse_domain::campaigns::models::LaunchClaims;
use pulse_domain::shared::clock::Clock;
use pulse_domain::studio::models::{PERMISSION_BUILD, PERMISSION_VIEW, StudioClaims};
use secrecy::ExposeSecret;
use time::Duration;
use uuid::Uuid;

use super::{Store, World};
use crate::fakes::fake_token;

pub async fn a_minted_link_starts_one_session<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await;
    let token = w.minted_token(&partner, &campaign).await;
    w.start(&campaign.campaign.code, &token).await.expect("the first start");
    let again = w.start(&campaign.campaign.code, &token).await.expect_err("single use");
    assert_eq!(again.code(), ErrorCode::LaunchTokenInvalid);
}

pub async fn spent_partner_tokens_are_forgotten_once_expired<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let now = w.clock.now();
    let builder = StudioClaims {
        user_id: Uuid::new_v4(),
        business_id: partner.business,
        permissions: vec![PERMISSION_VIEW.into(), PERMISSION_BUILD.into()],
        issued_at: now,
        expires_at: now + Duration::HOUR,
    };
    let (key, secret) = w.keys.create(&builder, campaign.id).await.expect("launch key");
    let expiry = now + Duration::minutes(10);
    let claims = LaunchClaims {
        campaign: campaign.code.clone(),
        exp: expiry.unix_timestamp(),
        jti: "jti-purge-1".into(),
        ..LaunchClaims::default()
    };
    let token = fake_token(&key.id.to_string(), secret.expose_secret(), &claims);
    w.start(&campaign.code, &token).await.expect("started");
    let reused = w.start(&campaign.code, &token).await.expect_err("spent");
    assert_eq!(reused.code(), ErrorCode::LaunchTokenInvalid);

    assert_eq!(w.store.purge_spent_tokens(expiry).await.expect("purge"), 0);
    assert!(w.store.token_spent(campaign.id, "jti-purge-1").await.expect("spent"));
    assert_eq!(w.store.purge_spent_tokens(expiry + Duration::SECOND).await.expect("purge"), 1);
    assert!(!w.store.token_spent(campaign.id, "jti-purge-1").await.expect("forgotten"));
}
