//! The vendored redb's second change (vendor/redb/PATCH.md): a durable commit (our checkpoint) writes the pages
//! that the non-durable commits since the last one freed as one packed record set, not one record (room for 400
//! pages, near empty) per commit. These tests hold redb to what must not change with it: no page is reused while a
//! reader can still see it, every freed page is reused in the end (the file does not grow), and the file is whole
//! after a reopen. The first shows the change itself: the checkpoint writes a few pages, not one per commit.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use redb::backends::InMemoryBackend;
use redb::{Durability, ReadableDatabase, StorageBackend, TableDefinition};

const T: TableDefinition<u64, &[u8]> = TableDefinition::new("t");
/// Keys a leaf holds about (700-byte values in 4 KiB pages): key `i * LEAF` starts leaf `i`, roughly.
const LEAF: u64 = 5;
const LEAVES: u64 = 200;

/// redb's in-memory file, counting the bytes written to it.
#[derive(Debug)]
struct Counting(InMemoryBackend, Arc<AtomicU64>);

impl StorageBackend for Counting {
    fn len(&self) -> std::io::Result<u64> {
        self.0.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        self.0.read(offset, out)
    }
    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.0.set_len(len)
    }
    fn sync_data(&self) -> std::io::Result<()> {
        self.0.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.1.fetch_add(data.len() as u64, Ordering::Relaxed);
        self.0.write(offset, data)
    }
}

fn value(round: u64) -> Vec<u8> {
    vec![(round % 251) as u8; 700]
}

/// Every key set to `value(round)` in one durable commit.
fn fill(db: &redb::Database, round: u64) {
    let tx = db.begin_write().unwrap();
    {
        let mut t = tx.open_table(T).unwrap();
        for k in 0..LEAVES * LEAF {
            t.insert(k, value(round).as_slice()).unwrap();
        }
    }
    tx.commit().unwrap();
}

/// `commits` non-durable commits, each changing one key of a different leaf (each frees pages of the last durable
/// state), then a durable commit of nothing else.
fn round(db: &redb::Database, round: u64, commits: u64) {
    non_durable(db, round, commits);
    db.begin_write().unwrap().commit().unwrap();
}

/// `commits` non-durable commits, commit `c` setting key `(c % LEAVES) * LEAF` to `value(round)`.
fn non_durable(db: &redb::Database, round: u64, commits: u64) {
    for c in 0..commits {
        let mut tx = db.begin_write().unwrap();
        tx.set_durability(Durability::None).unwrap();
        tx.open_table(T).unwrap().insert((c % LEAVES) * LEAF, value(round).as_slice()).unwrap();
        tx.commit().unwrap();
    }
}

fn allocated(db: &redb::Database) -> u64 {
    db.begin_write().unwrap().stats().unwrap().allocated_pages()
}

#[test]
fn a_checkpoint_writes_the_freed_pages_of_its_commits_packed() {
    let written = Arc::new(AtomicU64::new(0));
    let db = redb::Database::builder().create_with_backend(Counting(InMemoryBackend::new(), written.clone())).unwrap();
    fill(&db, 0);
    for r in 1..4 {
        round(&db, r, 150);
    }
    // 150 commits, each freeing the pages of its own leaf's path.
    non_durable(&db, 9, 150);
    let before = written.load(Ordering::Relaxed);
    db.begin_write().unwrap().commit().unwrap();
    let pages = (written.load(Ordering::Relaxed) - before) / 4096;
    // The 150 commits' own pages (their leaves and the branches above) are written here too: about 160. One record
    // a commit added one near-empty leaf each, 150 more.
    assert!(pages < 250, "the checkpoint wrote {pages} pages");
}

#[test]
fn freed_pages_are_reused_once_no_reader_sees_them_and_never_before() {
    let db = redb::Database::builder().create_with_backend(InMemoryBackend::new()).unwrap();
    fill(&db, 0);
    // A reader of the first state, held across many checkpoints: none of its pages may be reused under it.
    let reader = db.begin_read().unwrap();
    for r in 1..=20 {
        round(&db, r, 60);
        let t = reader.open_table(T).unwrap();
        for k in 0..LEAVES * LEAF {
            assert_eq!(t.get(k).unwrap().unwrap().value(), value(0).as_slice(), "key {k} after round {r}");
        }
    }
    drop(reader);
    // Without it, the pages freed go back to use: after the rounds settle, more of them allocate nothing new.
    for r in 21..=30 {
        round(&db, r, 60);
    }
    let settled = allocated(&db);
    for r in 31..=80 {
        round(&db, r, 60);
    }
    let later = allocated(&db);
    assert!(later <= settled + 8, "pages allocated grew from {settled} to {later}: freed pages are not reused");
    // Every key holds the last value written to it; the file is whole.
    let rx = db.begin_read().unwrap();
    let t = rx.open_table(T).unwrap();
    for c in 0..LEAVES {
        let last = if c < 60 { 80 } else { 0 };
        assert_eq!(t.get(c * LEAF).unwrap().unwrap().value(), value(last).as_slice(), "key {}", c * LEAF);
        assert_eq!(t.get(c * LEAF + 1).unwrap().unwrap().value(), value(0).as_slice());
    }
    drop(t);
    drop(rx);
    let mut db = db;
    assert!(db.check_integrity().unwrap());
}

#[test]
fn the_file_is_whole_after_a_reopen_between_checkpoints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        fill(&db, 0);
        for r in 1..=10 {
            round(&db, r, 80);
        }
        // Non-durable commits after the last checkpoint, then a clean close (which makes them durable).
        non_durable(&db, 11, 40);
    }
    let mut db = redb::Database::open(&path).unwrap();
    assert!(db.check_integrity().unwrap());
    let rx = db.begin_read().unwrap();
    let t = rx.open_table(T).unwrap();
    for c in 0..40u64 {
        assert_eq!(t.get(c * LEAF).unwrap().unwrap().value(), value(11).as_slice());
    }
    assert_eq!(t.get(LEAF * 50).unwrap().unwrap().value(), value(10).as_slice());
    assert_eq!(t.get(LEAF * 100).unwrap().unwrap().value(), value(0).as_slice());
    drop(t);
    drop(rx);
    for r in 12..=40 {
        round(&db, r, 80);
    }
    assert!(db.check_integrity().unwrap());
}

/// A savepoint restored after a checkpoint: its restore deletes the freed-page records after it, so the checkpoint
/// must not have packed pages freed before the savepoint into them (they would never be freed again). The
/// allocator's state must match the tree's afterwards (`check_integrity`).
#[test]
fn a_savepoint_restored_after_a_checkpoint_leaves_no_page_behind() {
    let mut db = redb::Database::builder().create_with_backend(InMemoryBackend::new()).unwrap();
    fill(&db, 0);
    // A commit freeing pages of the durable state, then one taking a savepoint of it and freeing others.
    non_durable(&db, 1, 1);
    let mut tx = db.begin_write().unwrap();
    tx.set_durability(Durability::None).unwrap();
    let savepoint = tx.ephemeral_savepoint().unwrap();
    tx.open_table(T).unwrap().insert(LEAF * 7, value(2).as_slice()).unwrap();
    tx.commit().unwrap();
    // The checkpoint, then the restore.
    db.begin_write().unwrap().commit().unwrap();
    let mut tx = db.begin_write().unwrap();
    tx.restore_savepoint(&savepoint).unwrap();
    tx.commit().unwrap();
    drop(savepoint);
    {
        // The savepoint's state: the first commit's change, not the second's.
        let rx = db.begin_read().unwrap();
        let t = rx.open_table(T).unwrap();
        assert_eq!(t.get(0).unwrap().unwrap().value(), value(1).as_slice());
        assert_eq!(t.get(LEAF * 7).unwrap().unwrap().value(), value(0).as_slice());
    }
    for r in 3..6 {
        round(&db, r, 20);
    }
    assert!(db.check_integrity().unwrap(), "the allocator's state does not match the tree: pages leaked");
}
