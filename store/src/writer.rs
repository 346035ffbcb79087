//! The single writer thread. Concurrent writes queue here and are group-committed: one transaction and one
//! fsync for every batch, so throughput does not collapse to one fsync per request. An operation that fails is
//! answered alone and the batch is re-run without it, so no refused operation leaves a partial write.
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::error::{Result, StoreError};
use crate::{Inner, WriteCtx, engine, meta, tables};

type AnyBox = Box<dyn Any + Send>;
type Op = Box<dyn FnMut(&mut WriteCtx) -> Result<AnyBox> + Send>;
type Done = Box<dyn FnOnce(Result<AnyBox>) + Send>;

struct Item {
    op: Op,
    done: Done,
}

enum Msg {
    Item(Item),
    Close,
}

/// Largest number of operations committed together.
const MAX_BATCH: usize = 512;

#[derive(Clone)]
pub(crate) struct WriterHandle {
    tx: Sender<Msg>,
    join: Arc<Mutex<Option<JoinHandle<()>>>>,
}

pub(crate) fn start(inner: Arc<Inner>) -> WriterHandle {
    let (tx, rx) = channel();
    let join = std::thread::Builder::new()
        .name("zz-writer".into())
        .spawn(move || run(&inner, rx))
        .expect("spawn writer thread");
    WriterHandle { tx, join: Arc::new(Mutex::new(Some(join))) }
}

impl WriterHandle {
    pub(crate) fn submit<R: Send + 'static>(
        &self,
        mut op: impl FnMut(&mut WriteCtx) -> Result<R> + Send + 'static,
        done: impl FnOnce(Result<R>) + Send + 'static,
    ) {
        let item = Item {
            op: Box::new(move |ctx| op(ctx).map(|r| Box::new(r) as AnyBox)),
            done: Box::new(move |r| {
                done(r.map(|b| *b.downcast::<R>().expect("writer result type")));
            }),
        };
        if let Err(e) = self.tx.send(Msg::Item(item)) {
            if let Msg::Item(item) = e.0 {
                (item.done)(Err(StoreError::Closed));
            }
        }
    }

    /// Commits what is queued, then stops the thread and waits for it.
    pub(crate) fn close(&self) {
        let _ = self.tx.send(Msg::Close);
        if let Some(j) = self.join.lock().ok().and_then(|mut g| g.take()) {
            let _ = j.join();
        }
    }
}

fn run(inner: &Inner, rx: Receiver<Msg>) {
    let mut closing = false;
    while !closing {
        let mut batch = match rx.recv() {
            Ok(Msg::Item(i)) => vec![i],
            Ok(Msg::Close) | Err(_) => break,
        };
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(Msg::Item(i)) => batch.push(i),
                Ok(Msg::Close) => {
                    closing = true;
                    break;
                }
                Err(_) => break,
            }
        }
        commit_batch(inner, batch);
    }
    // Anything queued after Close is refused, not silently dropped.
    while let Ok(m) = rx.try_recv() {
        if let Msg::Item(i) = m {
            (i.done)(Err(StoreError::Closed));
        }
    }
}

enum Failed {
    Op(usize, StoreError),
    Storage(String),
}

fn commit_batch(inner: &Inner, mut batch: Vec<Item>) {
    while !batch.is_empty() {
        match try_batch(inner, &mut batch) {
            Ok(results) => {
                for (item, r) in batch.into_iter().zip(results) {
                    (item.done)(Ok(r));
                }
                return;
            }
            Err(Failed::Op(i, e)) => {
                let item = batch.remove(i);
                (item.done)(Err(e));
            }
            Err(Failed::Storage(e)) => {
                for item in batch {
                    (item.done)(Err(StoreError::Storage(e.clone())));
                }
                return;
            }
        }
    }
}

fn try_batch(inner: &Inner, batch: &mut [Item]) -> std::result::Result<Vec<AnyBox>, Failed> {
    let mut touched = std::collections::HashSet::new();
    let storage = |e: StoreError| Failed::Storage(e.to_string());
    let mut txn = inner.db.begin_write().map_err(|e| storage(e.into()))?;
    txn.set_quick_repair(true);
    let mut results = Vec::with_capacity(batch.len());
    let outcome = (|| -> std::result::Result<(), Failed> {
        let mut ctx = WriteCtx {
            chunks: txn.open_table(tables::FILE_CHUNKS)?,
            touched: std::collections::HashSet::new(),
            rec: engine::RecordWriter {
                tables: engine::Tables {
                    records: txn.open_table(tables::RECORDS)?,
                    index: txn.open_table(tables::INDEX)?,
                    unique: txn.open_table(tables::UNIQUE)?,
                    counters: txn.open_table(tables::COUNTERS)?,
                },
                deleted: txn.open_table(tables::DELETED)?,
            },
            sessions: txn.open_table(tables::SESSIONS)?,
            meta: txn.open_table(tables::META)?,
            ids: &inner.ids,
        };
        for (i, item) in batch.iter_mut().enumerate() {
            match catch_unwind(AssertUnwindSafe(|| (item.op)(&mut ctx))) {
                Ok(Ok(r)) => results.push(r),
                Ok(Err(e)) if e.is_storage() => return Err(Failed::Storage(e.to_string())),
                Ok(Err(e)) => return Err(Failed::Op(i, e)),
                Err(_) => return Err(Failed::Op(i, StoreError::Rule("internal error".into()))),
            }
        }
        meta::put_last_id(&mut ctx.meta, inner.ids.last()).map_err(|e| Failed::Storage(e.to_string()))?;
        touched = std::mem::take(&mut ctx.touched);
        Ok(())
    })();
    match outcome {
        Ok(()) => {
            txn.commit().map_err(|e| storage(e.into()))?;
            // Only now, with the batch durable and visible, may cached readers see a new version.
            inner.versions.bump(&touched);
            Ok(results)
        }
        Err(f) => {
            let _ = txn.abort();
            Err(f)
        }
    }
}

impl From<redb::TableError> for Failed {
    fn from(e: redb::TableError) -> Self {
        Failed::Storage(e.to_string())
    }
}
