//! App register, heartbeats, attribution and device pages.

use crate::common::*;
use futures_executor::block_on;
use pulse_domain::apps::models::{
    DeviceStatus, HEARTBEAT_RATE, HeartbeatInput, Identity, RegisterInput, Registration, UserInput,
};
use pulse_domain::error::{ErrorCode, Result};
use pulse_domain::sessions::models::StartInput;
use pulse_testing::fakes::TestCrypto;
use secrecy::ExposeSecret;

fn register_input(code: &str) -> RegisterInput {
    RegisterInput {
        campaign_code: code.to_owned(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        ..RegisterInput::default()
    }
}

fn register(w: &World, input: RegisterInput) -> Result<Registration> {
    block_on(w.apps.register(input))
}

fn v2_beat(registration: &Registration) -> HeartbeatInput {
    HeartbeatInput {
        device_id: Some(registration.device_id.to_string()),
        refresh_token: Some(registration.refresh_token.expose_secret().to_owned()),
        ..HeartbeatInput::default()
    }
}

#[test]
fn a_verified_app_user_is_attributed_at_start_and_heartbeats_are_rate_limited() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let (_, secret) = create_key(&w, &p, campaign.id);
    let user = UserInput {
        external_id: Some("user-1".into()),
        user_hash: Some(pulse_domain::shared::hex::encode(&TestCrypto::hmac_sha256(secret.as_bytes(), b"user-1"))),
        ..UserInput::default()
    };
    let registered =
        register(&w, RegisterInput { user: Some(user), ..register_input(&campaign.code) }).expect("register");
    assert_eq!(registered.identity, Identity::Verified);

    let input = StartInput {
        consent_given: Some(true),
        device_token: registered.tokens.access_token.as_ref().map(|t| t.expose_secret().to_owned()),
        ..StartInput::default()
    };
    started(block_on(w.respondents.start(&campaign.code, input)));
    let devices = block_on(w.apps.devices(&p.principal, None, None, None, None)).expect("devices");
    assert_eq!((devices.items[0].activity.feedback_count, devices.items[0].identity), (1, Identity::Verified));

    for _ in 0..HEARTBEAT_RATE.burst {
        block_on(w.apps.heartbeat(v2_beat(&registered))).expect("within the burst");
    }
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&registered)))), ErrorCode::RateLimited);
    w.clock.advance(HEARTBEAT_RATE.interval);
    block_on(w.apps.heartbeat(v2_beat(&registered))).expect("one more after the interval");
}

#[test]
fn a_register_rotates_the_refresh_token_and_a_blocked_device_is_refused() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let first = register(&w, register_input(&campaign.code)).expect("register");
    let again = register(
        &w,
        RegisterInput {
            device_id: Some(first.device_id.to_string()),
            refresh_token: Some(first.refresh_token.expose_secret().to_owned()),
            ..register_input(&campaign.code)
        },
    )
    .expect("register again");
    assert_eq!(again.device_id, first.device_id);
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&first)))), ErrorCode::DeviceAuthInvalid);

    block_on(w.apps.set_device_status(first.device_id, DeviceStatus::Blocked)).expect("block");
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&again)))), ErrorCode::DeviceAuthInvalid);
    let blocked = RegisterInput {
        device_id: Some(again.device_id.to_string()),
        refresh_token: Some(again.refresh_token.expose_secret().to_owned()),
        ..register_input(&campaign.code)
    };
    assert_eq!(code_of(register(&w, blocked)), ErrorCode::InstallBlocked);
    let unknown = pulse_domain::ids::DeviceId::new_random();
    assert_eq!(code_of(block_on(w.apps.set_device_status(unknown, DeviceStatus::Active))), ErrorCode::NotFound);
}

/// An app's first register is written without looking its vendor id up; when the store finds the
/// id taken, the register is of the device holding it, exactly as if it had been looked up.
#[test]
fn a_register_by_a_known_vendor_id_renews_that_device_and_a_blocked_one_is_refused() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let by_vendor = || RegisterInput { vendor_device_id: Some("vendor-1".into()), ..register_input(&campaign.code) };
    let first = register(&w, by_vendor()).expect("register");
    let reinstalled = register(&w, by_vendor()).expect("register again, without tokens");
    assert_eq!(reinstalled.device_id, first.device_id);
    assert_eq!(code_of(block_on(w.apps.heartbeat(v2_beat(&first)))), ErrorCode::DeviceAuthInvalid);
    block_on(w.apps.heartbeat(v2_beat(&reinstalled))).expect("the new refresh token works");
    let other_app = register(&w, RegisterInput { app_id: "com.acme.other".into(), ..by_vendor() }).expect("register");
    assert_ne!(other_app.device_id, first.device_id, "a vendor id is per app");
    let devices = block_on(w.apps.devices(&p.principal, None, None, None, None)).expect("devices");
    assert_eq!(devices.items.len(), 2);

    block_on(w.apps.set_device_status(first.device_id, DeviceStatus::Blocked)).expect("block");
    assert_eq!(code_of(register(&w, by_vendor())), ErrorCode::InstallBlocked);
}

#[test]
fn device_pages_follow_registration_order() {
    let w = world();
    let p = partner(&w, true);
    let campaign = active_open(&w, &p).campaign;
    let ids: Vec<_> =
        (0..5).map(|_| register(&w, register_input(&campaign.code)).expect("register").device_id).collect();
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = block_on(w.apps.devices(&p.principal, None, None, Some("2"), cursor.as_deref())).expect("page");
        seen.extend(page.items.iter().map(|d| d.device_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, ids);
}
