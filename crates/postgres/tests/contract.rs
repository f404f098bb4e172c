//! The contract suite on `PgStore`, each case over a fresh database cloned from the migrated
//! template.

use pulse_postgres::test_db::TestDatabase;
use pulse_postgres::{PgStore, PoolSettings, connect};

async fn pg_store() -> (TestDatabase, PgStore) {
    let database = TestDatabase::create().await;
    let store = connect(database.url(), &PoolSettings { max_size: 4, ..PoolSettings::default() }).expect("a pool");
    (database, store)
}

pulse_testing::contract_suite!(crate::pg_store);
