//! Download links: `DownloadClaims::decode` reads only what `encode` writes, and the service
//! refuses every token it did not mint (one NotFound for all).
#![no_main]

use futures_executor::block_on;
use libfuzzer_sys::fuzz_target;
use pulse_domain::ErrorCode;
use pulse_domain::exports::models::DownloadClaims;
use pulse_testing::MemoryStore;
use pulse_testing::contract::World;

thread_local! {
    // Built once: minting needs no state, and every fuzzed token must be refused.
    static WORLD: World<MemoryStore> = World::new(MemoryStore::default());
}

fuzz_target!(|data: &[u8]| {
    if let Some(claims) = DownloadClaims::decode(data) {
        assert_eq!(claims.encode(), data);
    }
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (token, name) = text.split_once('/').unwrap_or((text, "pulse-export.json"));
    WORLD.with(|w| {
        let refused = block_on(w.exports.download(token, name)).map(|_| ()).map_err(|e| e.code());
        assert_eq!(refused, Err(ErrorCode::NotFound));
    });
});
