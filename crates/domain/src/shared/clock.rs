//! The clock port. Every "now" in the service comes from here, so tests walk through expiries and
//! schedules without sleeping.

use std::sync::{Arc, Mutex};
use time::{Duration, OffsetDateTime};

pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> OffsetDateTime;
}

impl<C: Clock> Clock for Arc<C> {
    fn now(&self) -> OffsetDateTime {
        (**self).now()
    }
}

/// A clock that stands still until told to move. Cloning shares the same time.
#[derive(Clone, Debug)]
pub struct SettableClock {
    now: Arc<Mutex<OffsetDateTime>>,
}

impl SettableClock {
    pub fn new(start: OffsetDateTime) -> Self {
        Self { now: Arc::new(Mutex::new(start)) }
    }

    pub fn set(&self, to: OffsetDateTime) {
        *self.lock() = to;
    }

    pub fn advance(&self, by: Duration) {
        let mut now = self.lock();
        *now += by;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OffsetDateTime> {
        // A poisoned clock still holds a valid time: a panicking test thread must not stop others.
        self.now.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clock for SettableClock {
    fn now(&self) -> OffsetDateTime {
        *self.lock()
    }
}
