//! The store every port is implemented on: its pools, its group writers, and the transaction
//! plumbing the aggregate modules share. It names no aggregate: each module implements its ports
//! on [`PgStore`] and reaches its own group writers through [`PgStore::writer`].

use diesel::result::Error as DieselError;
use diesel_async::AsyncPgConnection;
use diesel_async::pooled_connection::deadpool::{Object, Pool};
use pulse_domain::{Error, Result};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

use crate::batch::{Flush, GroupCommit};
use crate::error::{from_diesel, from_pool};

/// The Postgres implementation of every repository port. Cloning shares the pool and the
/// group-commit queues.
#[derive(Clone)]
pub struct PgStore {
    pool: Pool<AsyncPgConnection>,
    /// A read-only copy (`DATABASE_READ_URL`) that results and lists read from, when one is set.
    reads: Option<Pool<AsyncPgConnection>>,
    writers: Arc<Writers>,
}

/// The group writers (see `batch`), one per kind of request, keyed by their flush's type.
#[derive(Default)]
pub(crate) struct Writers(HashMap<TypeId, Box<dyn Any + Send + Sync>>);

impl Writers {
    pub(crate) fn with<F: Flush>(mut self, writer: GroupCommit<F>) -> Self {
        self.0.insert(TypeId::of::<F>(), Box::new(writer));
        self
    }
}

impl PgStore {
    pub(crate) fn new(pool: Pool<AsyncPgConnection>, reads: Option<Pool<AsyncPgConnection>>, writers: Writers) -> Self {
        Self { pool, reads, writers: Arc::new(writers) }
    }

    /// The read-only copy's pool, when one is configured.
    pub(crate) fn reads(&self) -> Option<&Pool<AsyncPgConnection>> {
        self.reads.as_ref()
    }

    pub(crate) fn pool(&self) -> &Pool<AsyncPgConnection> {
        &self.pool
    }

    pub(crate) async fn conn(&self) -> Result<Object<AsyncPgConnection>> {
        self.pool.get().await.map_err(from_pool)
    }

    /// A connection for reads that may lag behind the latest writes by the replica's delay:
    /// results and lists. The primary's when no read-only copy is configured.
    pub(crate) async fn read_conn(&self) -> Result<Object<AsyncPgConnection>> {
        self.reads.as_ref().unwrap_or(&self.pool).get().await.map_err(from_pool)
    }

    /// The group writer of `F`, made with the store.
    ///
    /// # Errors
    /// `Internal` when the store was made without it.
    pub(crate) fn writer<F: Flush>(&self) -> Result<&GroupCommit<F>> {
        self.writers
            .0
            .get(&TypeId::of::<F>())
            .and_then(|writer| writer.downcast_ref())
            .ok_or_else(|| Error::internal(format!("no group writer for {}", std::any::type_name::<F>())))
    }
}

/// An error raised inside a transaction: either the database's, or a domain refusal that rolls
/// the transaction back.
pub(crate) enum TxError {
    Db(DieselError),
    Domain(Error),
}

impl From<DieselError> for TxError {
    fn from(e: DieselError) -> Self {
        TxError::Db(e)
    }
}

impl From<TxError> for Error {
    fn from(e: TxError) -> Self {
        match e {
            TxError::Db(e) => from_diesel(e),
            TxError::Domain(e) => e,
        }
    }
}
