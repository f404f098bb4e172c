//! `AppRepository`: device pages follow registration order and stay whole under inserts;
//! heartbeats arriving together are each counted once and rated in turn; registers arriving
//! together each stand or fail alone; a new device whose vendor id is taken is refused and writes
//! nothing.

use futures_util::future::join_all;
use pulse_domain::apps::models::{
    AppFacts, AppPlatform, DeviceRegistration, DeviceStatus, HeartbeatInput, Identity, RegisterInput, UserInput,
    UserRegistration,
};
use pulse_domain::ids::{AppInstallId, AppUserId, DeviceId};
use pulse_domain::shared::clock::Clock as _;
use pulse_domain::{Error, ErrorCode, Result};
use secrecy::ExposeSecret as _;

use super::{Store, World};

fn install(code: &str) -> RegisterInput {
    RegisterInput {
        campaign_code: code.to_owned(),
        app_id: "com.acme.shop".into(),
        platform: "android".into(),
        app_version: "1.0".into(),
        ..RegisterInput::default()
    }
}

pub async fn device_pages_keep_registration_order_while_devices_arrive<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let mut registered: Vec<DeviceId> = Vec::new();
    for _ in 0..3 {
        registered.push(w.apps.register(install(&campaign.code)).await.expect("registered").device_id);
    }
    let first = w.apps.devices(&partner.principal, None, None, Some("2"), None).await.expect("a page");
    let mut seen: Vec<DeviceId> = first.items.iter().map(|d| d.device_id).collect();
    // A device registered between two pages shows up once, at the end.
    registered.push(w.apps.register(install(&campaign.code)).await.expect("registered").device_id);
    let mut cursor = first.next_cursor;
    while let Some(after) = cursor {
        let page = w.apps.devices(&partner.principal, None, None, Some("2"), Some(&after)).await.expect("a page");
        seen.extend(page.items.iter().map(|d| d.device_id));
        cursor = page.next_cursor;
    }
    assert_eq!(seen, registered);
}

fn beat(device: DeviceId, refresh_token: &str) -> HeartbeatInput {
    HeartbeatInput {
        device_id: Some(device.to_string()),
        refresh_token: Some(refresh_token.to_owned()),
        app_version: Some("1.1".into()),
        ..HeartbeatInput::default()
    }
}

pub async fn heartbeats_arriving_together_are_each_counted_once_and_rated_in_turn<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let beats_each = 5;

    // What one device's beats at one instant give, one after the other.
    let alone = w.apps.register(install(&campaign.code)).await.expect("registered");
    let mut allowed = 0;
    for _ in 0..beats_each {
        allowed +=
            usize::from(w.apps.heartbeat(beat(alone.device_id, alone.refresh_token.expose_secret())).await.is_ok());
    }
    assert!(allowed > 0 && allowed < beats_each, "the burst admits some of {beats_each} beats, not {allowed}");

    let mut devices = Vec::new();
    for _ in 0..4 {
        devices.push(w.apps.register(install(&campaign.code)).await.expect("registered"));
    }
    let mut owners = Vec::new();
    let mut calls = Vec::new();
    for round in 0..beats_each {
        for device in &devices {
            owners.push(Some(device.device_id));
            calls.push(w.apps.heartbeat(beat(device.device_id, device.refresh_token.expose_secret())));
        }
        if round == 0 {
            owners.push(None);
            calls.push(w.apps.heartbeat(beat(devices[0].device_id, "not-the-refresh-token")));
        }
    }
    let results: Vec<(Option<DeviceId>, Result<_>)> = owners.into_iter().zip(join_all(calls).await).collect();

    let forged: Vec<ErrorCode> = results
        .iter()
        .filter(|(owner, _)| owner.is_none())
        .map(|(_, r)| r.as_ref().map_or_else(Error::code, |_| ErrorCode::Internal))
        .collect();
    assert_eq!(forged, [ErrorCode::DeviceAuthInvalid]);
    let page = w.apps.devices(&partner.principal, None, None, Some("10"), None).await.expect("a page");
    for device in &devices {
        let own: Vec<_> =
            results.iter().filter(|(owner, _)| *owner == Some(device.device_id)).map(|(_, r)| r).collect();
        let refusals: Vec<ErrorCode> = own.iter().filter_map(|r| r.as_ref().err()).map(Error::code).collect();
        assert_eq!(own.len() - refusals.len(), allowed, "each device admits as many beats as one alone");
        assert!(refusals.iter().all(|c| *c == ErrorCode::RateLimited), "{refusals:?}");
        let view = page.items.iter().find(|d| d.device_id == device.device_id).expect("listed");
        assert_eq!(view.activity.heartbeat_count, allowed as u64, "every admitted beat is counted once");
        assert_eq!(view.app_version, "1.1");
    }
}

pub async fn registers_arriving_together_each_stand_or_fail_alone<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let with_vendor =
        |vendor: &str| RegisterInput { vendor_device_id: Some(vendor.to_owned()), ..install(&campaign.code) };
    let known = w.apps.register(with_vendor("vendor-known")).await.expect("registered");
    let again = || RegisterInput {
        device_id: Some(known.device_id.to_string()),
        refresh_token: Some(known.refresh_token.expose_secret().to_owned()),
        ..with_vendor("vendor-known")
    };

    // Each new device says something of its own in every field it may, and two name a person, so
    // a store writing the group together cannot mix their fields up.
    let described = |i: usize| RegisterInput {
        device_model: Some(format!("model-{i}")),
        os_version: (i != 1).then(|| format!("os-{i}")),
        locale: Some(["en-GB", "fr-FR", "de-DE", "es-ES"][i].to_owned()),
        metadata: Some(serde_json::Map::from_iter([("n".to_owned(), serde_json::Value::from(format!("device-{i}")))])),
        user: i.is_multiple_of(2).then(|| UserInput {
            external_id: Some(format!("person-{i}")),
            email: Some(format!("person-{i}@example.com")),
            ..UserInput::default()
        }),
        ..with_vendor(&format!("vendor-{i}"))
    };

    // The same device twice with one refresh token, one new device twice (one vendor id), and
    // four other new devices, all at once: the stores may write them together. Which of a pair
    // goes first is a race: the second renews the same device or is told to register again.
    let mut inputs = vec![again(), again(), with_vendor("vendor-new"), with_vendor("vendor-new")];
    inputs.extend((0..4).map(described));
    let results = join_all(inputs.into_iter().map(|input| w.apps.register(input))).await;
    let refused: Vec<ErrorCode> = results.iter().filter_map(|r| r.as_ref().err().map(Error::code)).collect();
    assert!(refused.iter().all(|code| *code == ErrorCode::Conflict), "{refused:?}");
    assert!(results[4..].iter().all(Result::is_ok), "the others stand alone: {refused:?}");
    assert!(results[0..2].iter().any(Result::is_ok) && results[2..4].iter().any(Result::is_ok));
    let devices = w.apps.devices(&partner.principal, None, None, Some("50"), None).await.expect("a page");
    assert_eq!(devices.items.len(), 6, "the known device, one for vendor-new and four others");
    let installs = w.apps.installs(&partner.principal, None, campaign.id, Some("50"), None).await.expect("a page");
    for (i, result) in results[4..].iter().enumerate() {
        let registered = result.as_ref().expect("registered");
        let asked = described(i);
        let device = devices.items.iter().find(|d| d.device_id == registered.device_id).expect("listed");
        let facts = (&device.device_model, &device.os_version, &device.locale);
        assert_eq!(facts, (&asked.device_model, &asked.os_version, &asked.locale), "device {i}");
        assert_eq!(device.metadata, asked.metadata, "device {i}");
        assert_eq!((device.user_id, device.identity), (registered.user_id, registered.identity), "device {i}");
        assert_eq!(
            (device.user_id.is_some(), device.has_email),
            (i.is_multiple_of(2), i.is_multiple_of(2)),
            "device {i}"
        );
        assert_eq!((device.app_version.as_str(), device.status), ("1.0", DeviceStatus::Active), "device {i}");
        assert_eq!(device.activity.heartbeat_count, 0, "device {i}");
        let install = installs.items.iter().find(|d| d.device_id == registered.device_id).expect("an install");
        let facts = (&install.device_model, &install.os_version, &install.locale);
        assert_eq!(facts, (&asked.device_model, &asked.os_version, &asked.locale), "install {i}");
        assert_eq!((install.user_id, install.identity), (registered.user_id, registered.identity), "install {i}");
    }
}

/// The service writes an app's first register without looking its vendor id up, and looks the
/// device up only when the store refuses the vendor id as taken: the store must refuse exactly
/// that device, store nothing of it, and write the others that arrive with it.
pub async fn a_new_device_whose_vendor_id_is_taken_is_refused_and_writes_nothing<S: Store>(store: S) {
    let w = World::new(store);
    let partner = w.partner("Acme").await;
    let campaign = w.open_campaign(&partner).await.campaign;
    let now = w.clock.now();
    let new_device = |vendor: &[u8], refresh: &[u8]| DeviceRegistration {
        workspace_id: partner.workspace,
        campaign_id: campaign.id,
        device_id: DeviceId::new_random(),
        replaces_refresh_digest: None,
        new_install_id: AppInstallId::new_random(),
        vendor_digest: Some(vendor.to_vec()),
        app: AppFacts {
            app_id: "com.acme.shop".into(),
            platform: AppPlatform::Android,
            app_version: "1.0".into(),
            device_model: None,
            os_version: None,
            locale: None,
            metadata: None,
        },
        user: None,
        identity: Identity::Anonymous,
        refresh_digest: refresh.to_vec(),
        refresh_expires_at: now + time::Duration::days(30),
        now,
    };
    let known = new_device(b"vendor-known", b"refresh-known");
    w.store.save_registration(&known).await.expect("the first device of the vendor id");

    // The taken vendor id three times (once naming a person), among new devices with free ones,
    // all at once: a store may write them together.
    let same_app_elsewhere = DeviceRegistration {
        app: AppFacts { app_id: "com.acme.other".into(), ..known.app.clone() },
        ..new_device(b"vendor-known", b"refresh-other-app")
    };
    let person = UserRegistration {
        id: AppUserId::new_random(),
        has_external_id: true,
        email_sealed: Some(b"sealed email".to_vec()),
        phone_sealed: None,
        verified: false,
    };
    let naming_a_person = DeviceRegistration {
        user: Some(person.clone()),
        identity: Identity::SelfDeclared,
        ..new_device(b"vendor-known", b"refresh-taken-3")
    };
    let inputs = [
        new_device(b"vendor-known", b"refresh-taken-1"),
        new_device(b"vendor-1", b"refresh-1"),
        new_device(b"vendor-known", b"refresh-taken-2"),
        new_device(b"vendor-2", b"refresh-2"),
        same_app_elsewhere,
        naming_a_person,
    ];
    let results = join_all(inputs.iter().map(|r| w.store.save_registration(r))).await;
    let stored = w.store.find_app_user(partner.workspace, person.id).await.expect("a read");
    assert_eq!(stored, None, "a refused register stores nobody it names");
    for taken in [0, 2, 5] {
        let code = results[taken].as_ref().err().map(Error::code);
        assert_eq!(code, Some(ErrorCode::Conflict), "register {taken} claims a taken vendor id");
        let stored = w.store.find_device(partner.workspace, inputs[taken].device_id).await.expect("a read");
        assert!(stored.is_none(), "register {taken} stored no device");
    }
    for free in [1, 3, 4] {
        assert_eq!(results[free].as_ref().ok(), Some(&inputs[free].new_install_id), "register {free} stands");
    }
    let kept = w.store.find_device(partner.workspace, known.device_id).await.expect("a read").expect("kept");
    assert_eq!(kept.refresh_digest, b"refresh-known", "the device holding the vendor id is untouched");
    let installs = w.apps.installs(&partner.principal, None, campaign.id, Some("50"), None).await.expect("a page");
    let mut owners: Vec<DeviceId> = installs.items.iter().map(|i| i.device_id).collect();
    owners.sort_by_key(|d| d.0);
    let mut expected: Vec<DeviceId> =
        [&known, &inputs[1], &inputs[3], &inputs[4]].iter().map(|r| r.device_id).collect();
    expected.sort_by_key(|d| d.0);
    assert_eq!(owners, expected, "an install for each device stored, none for the refused");
}
