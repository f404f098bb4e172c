//! `AppRepository`: device pages follow registration order and stay whole under inserts.

use pulse_domain::apps::models::RegisterInput;
use pulse_domain::ids::DeviceId;

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
