//! A table of a read snapshot opened when first used. A read opens the tables it touches only: most requests make
//! several reads, each a point read or two of the records, and every open is a lookup in redb's table of tables.
use std::borrow::Borrow;
use std::ops::RangeBounds;
use std::sync::{Arc, OnceLock};

use redb::{AccessGuard, Key, Range, ReadOnlyTable, ReadTransaction, ReadableTable, ReadableTableMetadata, StorageError, TableDefinition, TableError, TableStats, Value};

pub struct LazyTable<K: Key + 'static, V: Value + 'static> {
    txn: Arc<ReadTransaction>,
    def: TableDefinition<'static, K, V>,
    table: OnceLock<ReadOnlyTable<K, V>>,
}

impl<K: Key + 'static, V: Value + 'static> LazyTable<K, V> {
    pub fn new(txn: &Arc<ReadTransaction>, def: TableDefinition<'static, K, V>) -> Self {
        LazyTable { txn: txn.clone(), def, table: OnceLock::new() }
    }

    /// The table, opened now if it was not yet. Every table of the store exists from its first open (`tables`), so
    /// a failure here is the file's.
    pub fn table(&self) -> Result<&ReadOnlyTable<K, V>, StorageError> {
        if let Some(t) = self.table.get() {
            return Ok(t);
        }
        let t = self.txn.open_table(self.def).map_err(|e| match e {
            TableError::Storage(s) => s,
            other => StorageError::Corrupted(format!("opening table {}: {other}", self.def)),
        })?;
        Ok(self.table.get_or_init(|| t))
    }
}

impl<K: Key + 'static, V: Value + 'static> ReadableTableMetadata for LazyTable<K, V> {
    fn stats(&self) -> Result<TableStats, StorageError> {
        self.table()?.stats()
    }

    fn len(&self) -> Result<u64, StorageError> {
        self.table()?.len()
    }
}

impl<K: Key + 'static, V: Value + 'static> ReadableTable<K, V> for LazyTable<K, V> {
    fn get<'a>(&self, key: impl Borrow<K::SelfType<'a>>) -> Result<Option<AccessGuard<'_, V>>, StorageError> {
        self.table()?.get(key)
    }

    fn range<'a, KR>(&self, range: impl RangeBounds<KR> + 'a) -> Result<Range<'_, K, V>, StorageError>
    where
        KR: Borrow<K::SelfType<'a>> + 'a,
    {
        self.table()?.range(range)
    }

    fn first(&self) -> Result<Option<(AccessGuard<'_, K>, AccessGuard<'_, V>)>, StorageError> {
        self.table()?.first()
    }

    fn last(&self) -> Result<Option<(AccessGuard<'_, K>, AccessGuard<'_, V>)>, StorageError> {
        self.table()?.last()
    }
}
