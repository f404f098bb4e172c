//! The contract suite on the in-memory adapters.

use pulse_testing::MemoryStore;

async fn memory_store() -> ((), MemoryStore) {
    ((), MemoryStore::default())
}

pulse_testing::contract_suite!(crate::memory_store);
