//! Group commit: requests of one kind that arrive while the database is busy are written together,
//! in one statement and one commit, and each caller is answered only after that commit.
//!
//! There is no timer. A request that finds a free flush slot is written at once, alone; requests
//! that arrive while every slot is busy queue up and leave together when one frees. So a batch is
//! as large as the load makes it: one at low load, dozens when the database is the bottleneck.
//! A crash loses only requests that were never answered.

use std::future::Future;
use std::sync::{Arc, OnceLock};

use pulse_domain::{Error, Result};
use tokio::runtime::Handle;
use tokio::sync::{Semaphore, mpsc, oneshot};

/// Writes a batch; implemented once per kind of request.
pub(crate) trait Flush: Send + Sync + 'static {
    type Item: Send + Sync + 'static;
    type Output: Send + 'static;

    /// Writes every item in one transaction and returns one output per item, in order.
    fn flush(&self, items: &[Self::Item]) -> impl Future<Output = Result<Vec<Self::Output>>> + Send;
}

/// How large batches may grow and how many may be in flight at once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchLimits {
    pub max_items: usize,
    pub in_flight: usize,
}

/// For small rows (heartbeats, links, sessions, new devices): a group of a few hundred is still one
/// short statement (a start that spends a link or token adds one more). One group of a kind is in
/// flight at a time: a second one's commit only waited for the first's WAL flush and then flushed
/// again, while the requests it took would have joined the next, larger group
/// (docs/performance.md, "one group in flight").
pub(crate) const SMALL_ROWS: BatchLimits = BatchLimits { max_items: 256, in_flight: 1 };

type Waiting<F> = (<F as Flush>::Item, oneshot::Sender<Result<<F as Flush>::Output>>);

/// The queue in front of one [`Flush`]. Its writer task starts with the first request and ends
/// when the last handle to the queue is dropped.
pub(crate) struct GroupCommit<F: Flush> {
    flusher: Arc<F>,
    limits: BatchLimits,
    queue: OnceLock<mpsc::UnboundedSender<Waiting<F>>>,
    /// The runtime the store was made on. The server makes it on its main runtime, so the writer
    /// does not live on one of the HTTP workers' runtimes, which stop with their worker.
    runtime: Option<Handle>,
}

impl<F: Flush> GroupCommit<F> {
    pub(crate) fn new(flusher: F, limits: BatchLimits) -> Self {
        Self { flusher: Arc::new(flusher), limits, queue: OnceLock::new(), runtime: Handle::try_current().ok() }
    }

    /// Writes `item` with whatever else is waiting and returns its output after the commit.
    ///
    /// # Errors
    /// The batch's error when its transaction failed; `Unavailable` when the writer is gone.
    pub(crate) async fn submit(&self, item: F::Item) -> Result<F::Output> {
        let queue = self.queue.get_or_init(|| {
            let (sender, receiver) = mpsc::unbounded_channel();
            let writer = write(Arc::clone(&self.flusher), receiver, self.limits);
            match &self.runtime {
                Some(runtime) => runtime.spawn(writer),
                None => tokio::spawn(writer),
            };
            sender
        });
        let (reply, answer) = oneshot::channel();
        queue.send((item, reply)).map_err(|_| writer_gone())?;
        answer.await.map_err(|_| writer_gone())?
    }
}

fn writer_gone() -> Error {
    Error::Unavailable("the database writer stopped".to_owned())
}

async fn write<F: Flush>(flusher: Arc<F>, mut queue: mpsc::UnboundedReceiver<Waiting<F>>, limits: BatchLimits) {
    let slots = Arc::new(Semaphore::new(limits.in_flight.max(1)));
    while let Some(first) = queue.recv().await {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { return };
        // Whatever arrived while waiting for the slot leaves with the first.
        let mut batch = vec![first];
        while batch.len() < limits.max_items.max(1) {
            match queue.try_recv() {
                Ok(waiting) => batch.push(waiting),
                Err(_) => break,
            }
        }
        let flusher = Arc::clone(&flusher);
        tokio::spawn(async move {
            let (items, replies): (Vec<_>, Vec<_>) = batch.into_iter().unzip();
            let outputs = match flush_all(flusher.as_ref(), &items).await {
                Err(Error::Internal(cause)) if items.len() > 1 => {
                    // Nothing of the group was written. Writing its requests one by one means a
                    // request the database refuses fails alone, not with everyone it arrived with.
                    tracing::warn!(requests = items.len(), %cause, "a group write failed; writing its requests one by one");
                    let mut alone = Vec::with_capacity(items.len());
                    for item in &items {
                        alone.push(
                            flush_all(flusher.as_ref(), std::slice::from_ref(item)).await.map(|mut o| o.remove(0)),
                        );
                    }
                    alone
                }
                Ok(outputs) => outputs.into_iter().map(Ok).collect(),
                Err(error) => items.iter().map(|_| Err(copy_of(&error))).collect(),
            };
            for (reply, output) in replies.into_iter().zip(outputs) {
                // A caller that went away no longer needs its answer; the write stands.
                let _ = reply.send(output);
            }
            drop(slot);
        });
    }
}

/// The group's outputs, one per item.
async fn flush_all<F: Flush>(flusher: &F, items: &[F::Item]) -> Result<Vec<F::Output>> {
    let outputs = flusher.flush(items).await?;
    if outputs.len() == items.len() {
        Ok(outputs)
    } else {
        Err(Error::internal(format!("a group of {} gave {} answers", items.len(), outputs.len())))
    }
}

/// Every caller of a group that could not be written gets the group's error.
fn copy_of(error: &Error) -> Error {
    match error {
        Error::Refused(refusal) => Error::Refused(refusal.clone()),
        Error::Unavailable(why) => Error::Unavailable(why.clone()),
        Error::Internal(source) => Error::internal(source.to_string()),
    }
}
