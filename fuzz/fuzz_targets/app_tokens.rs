//! Device access tokens and install ids: no input the service did not issue names a device at
//! a session start or admits a v1 heartbeat. (The world uses TestCrypto, whose sealing is not
//! authenticated; the `sealed` target covers the production sealing.)
#![no_main]

use futures_executor::block_on;
use libfuzzer_sys::fuzz_target;
use pulse_domain::ErrorCode;
use pulse_domain::apps::models::HeartbeatInput;
use pulse_testing::MemoryStore;
use pulse_testing::contract::World;

thread_local! {
    static WORLD: World<MemoryStore> = World::new(MemoryStore::default());
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    WORLD.with(|w| {
        let input = HeartbeatInput {
            install_id: Some(text.to_owned()),
            app_version: Some("1.0".into()),
            ..HeartbeatInput::default()
        };
        let refused = block_on(w.apps.heartbeat(input)).map(|_| ()).map_err(|e| e.code());
        assert_eq!(refused, Err(ErrorCode::InstallInvalid));
        let v2 = HeartbeatInput {
            device_id: Some(text.to_owned()),
            refresh_token: Some(text.to_owned()),
            ..HeartbeatInput::default()
        };
        let refused = block_on(w.apps.heartbeat(v2)).map(|_| ()).map_err(|e| e.code());
        assert!(matches!(refused, Err(ErrorCode::DeviceAuthInvalid | ErrorCode::ValidationFailed)));
    });
});
