//! The vendored redb's second change (vendor/redb/PATCH.md): a durable commit (our checkpoint) writes the pages
//! that the non-durable commits since the last one freed as one packed record set, not one record (room for 400
//! pages, near empty) per commit. These tests hold redb to what must not change with it: no page is reused while a
//! reader can still see it, every freed page is reused in the end (the file does not grow), and the file is whole
//! after a reopen, or after any power loss. The first shows the change itself: the checkpoint writes a few pages, not
//! one per commit.
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
    non_durable(db, round, 0..commits);
    db.begin_write().unwrap().commit().unwrap();
}

/// A non-durable commit for each `c` of `commits`, setting key `(c % LEAVES) * LEAF` to `value(round)`.
fn non_durable(db: &redb::Database, round: u64, commits: std::ops::Range<u64>) {
    for c in commits {
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
    non_durable(&db, 9, 0..150);
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
        non_durable(&db, 11, 0..40);
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
    non_durable(&db, 1, 0..1);
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

/// A reader whose state falls between the non-durable commits that one checkpoint packs together: the pages it sees
/// were freed by the commits after it (their ids newer than its own), the pages freed before it it does not see. It
/// reads its state whole across many checkpoints; once it is gone, the pages go back to use.
#[test]
fn a_reader_between_the_commits_of_a_packed_checkpoint_reads_its_state_whole() {
    let mut db = redb::Database::builder().create_with_backend(InMemoryBackend::new()).unwrap();
    fill(&db, 0);
    round(&db, 1, 150);
    // Half of round 2's commits, the reader, the other half: the next checkpoint packs all 150 under the newest id.
    non_durable(&db, 2, 0..75);
    let reader = db.begin_read().unwrap();
    non_durable(&db, 2, 75..150);
    db.begin_write().unwrap().commit().unwrap();
    // What the reader must see: the first 75 leaves' keys from round 2, the next 75 from round 1, the rest as filled.
    let seen = |c: u64| {
        if c < 75 {
            value(2)
        } else if c < 150 {
            value(1)
        } else {
            value(0)
        }
    };
    for r in 3..=20 {
        round(&db, r, 200);
        let t = reader.open_table(T).unwrap();
        for c in 0..LEAVES {
            assert_eq!(t.get(c * LEAF).unwrap().unwrap().value(), seen(c).as_slice(), "key {} after round {r}", c * LEAF);
            for k in c * LEAF + 1..(c + 1) * LEAF {
                assert_eq!(t.get(k).unwrap().unwrap().value(), value(0).as_slice(), "key {k} after round {r}");
            }
        }
    }
    drop(reader);
    for r in 21..=30 {
        round(&db, r, 200);
    }
    let settled = allocated(&db);
    for r in 31..=70 {
        round(&db, r, 200);
    }
    let later = allocated(&db);
    assert!(later <= settled + 8, "pages allocated grew from {settled} to {later}: freed pages are not reused");
    assert!(db.check_integrity().unwrap());
}

/// What reached the file, in order: writes, length changes, syncs, and marks the test puts between them.
#[derive(Debug, Clone)]
enum Op {
    Write(u64, Vec<u8>),
    SetLen(u64),
    Sync,
    /// The durable commit of round `n` returned here.
    Mark(u64),
}

/// redb's in-memory file, recording every change made to it.
#[derive(Debug)]
struct Recording(InMemoryBackend, Arc<std::sync::Mutex<Vec<Op>>>);

impl StorageBackend for Recording {
    fn len(&self) -> std::io::Result<u64> {
        self.0.len()
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        self.0.read(offset, out)
    }
    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.1.lock().unwrap().push(Op::SetLen(len));
        self.0.set_len(len)
    }
    fn sync_data(&self) -> std::io::Result<()> {
        self.1.lock().unwrap().push(Op::Sync);
        self.0.sync_data()
    }
    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.1.lock().unwrap().push(Op::Write(offset, data.to_vec()));
        self.0.write(offset, data)
    }
}

/// How a power loss treats the changes made since the last sync.
#[derive(Debug, Clone, Copy)]
enum Loss {
    /// None reached the disk.
    Dropped,
    /// All did.
    Kept,
    /// The first half did, the next up to its first 512-byte sector boundary, none after.
    Torn,
    /// Each did or did not, at random (a disk reorders what it was not told to sync).
    Any(u64),
}

/// The file a power loss after the first `at` ops leaves.
fn rebuild(ops: &[Op], at: usize, loss: Loss) -> Vec<u8> {
    fn apply(b: &mut Vec<u8>, o: &Op, cut: Option<usize>) {
        match o {
            Op::Write(off, data) => {
                let data = &data[..cut.unwrap_or(data.len()).min(data.len())];
                let end = *off as usize + data.len();
                if b.len() < end {
                    b.resize(end, 0);
                }
                b[*off as usize..end].copy_from_slice(data);
            }
            Op::SetLen(n) => b.resize(*n as usize, 0),
            _ => {}
        }
    }
    let ops = &ops[..at];
    let synced = ops.iter().rposition(|o| matches!(o, Op::Sync)).map(|s| s + 1).unwrap_or(0);
    let mut b = Vec::new();
    for o in &ops[..synced] {
        apply(&mut b, o, None);
    }
    let flight: Vec<&Op> = ops[synced..].iter().filter(|o| matches!(o, Op::Write(..) | Op::SetLen(_))).collect();
    let mut rng = match loss {
        Loss::Any(seed) => seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1,
        _ => 1,
    };
    for (i, o) in flight.iter().enumerate() {
        match loss {
            Loss::Dropped => {}
            Loss::Kept => apply(&mut b, o, None),
            Loss::Torn if i < flight.len() / 2 => apply(&mut b, o, None),
            Loss::Torn if i == flight.len() / 2 => {
                if let Op::Write(off, _) = o {
                    let cut = (512 - (*off as usize % 512)) % 512;
                    if cut > 0 {
                        apply(&mut b, o, Some(cut));
                    }
                }
            }
            Loss::Torn => {}
            Loss::Any(_) => {
                // xorshift64: each change kept with even odds, a length change always (the file system's own
                // metadata, journalled apart from the data).
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                if matches!(o, Op::SetLen(_)) || rng & 1 == 1 {
                    apply(&mut b, o, None);
                }
            }
        }
    }
    b
}

/// The state round `r` left: the keys of the first `COMMITS` leaves hold `value(r)`, every other key the fill's.
const COMMITS: u64 = 120;
fn check_state(db: &redb::Database, r: u64, what: &str) {
    let rx = db.begin_read().unwrap();
    let t = rx.open_table(T).unwrap();
    for k in 0..LEAVES * LEAF {
        let want = if k % LEAF == 0 && k / LEAF < COMMITS { value(r) } else { value(0) };
        assert_eq!(t.get(k).unwrap().map(|v| v.value().to_vec()), Some(want), "{what}: key {k} (round {r})");
    }
}

/// Every state a power loss can leave while checkpoints pack the freed pages of many commits (with a reader held
/// between a round's commits for a while, so some packed pages wait for it) opens whole, holds the last durable
/// round or the one being made durable, and goes on: more rounds reuse its freed pages and leave it whole.
#[test]
fn every_state_a_power_loss_leaves_between_packed_checkpoints_opens_whole() {
    let ops = Arc::new(std::sync::Mutex::new(Vec::new()));
    {
        let db = redb::Database::builder().create_with_backend(Recording(InMemoryBackend::new(), ops.clone())).unwrap();
        fill(&db, 0);
        ops.lock().unwrap().push(Op::Mark(0));
        let mut reader = None;
        for r in 1..=12 {
            if r == 3 {
                non_durable(&db, r, 0..COMMITS / 2);
                reader = Some(db.begin_read().unwrap());
                non_durable(&db, r, COMMITS / 2..COMMITS);
                db.begin_write().unwrap().commit().unwrap();
            } else {
                round(&db, r, COMMITS);
            }
            if r == 7 {
                reader = None;
            }
            ops.lock().unwrap().push(Op::Mark(r));
        }
        drop(reader);
        // The clean close's own commit comes after the last mark: a loss there leaves round 12 as well.
    }
    let ops: Vec<Op> = ops.lock().unwrap().clone();
    let syncs: Vec<usize> = ops.iter().enumerate().filter(|(_, o)| matches!(o, Op::Sync)).map(|(i, _)| i).collect();
    assert!(syncs.len() >= 13, "{} syncs: one or more a durable commit", syncs.len());
    // The points: just before and after every sync, and halfway to the next, from the first durable round on.
    let first = ops.iter().position(|o| matches!(o, Op::Mark(0))).unwrap() + 1;
    let mut points: Vec<usize> = vec![first];
    for w in syncs.windows(2) {
        points.extend([w[0], w[0] + 1, (w[0] + w[1]) / 2]);
    }
    points.extend([*syncs.last().unwrap(), syncs.last().unwrap() + 1, ops.len()]);
    points.retain(|&p| p >= first);
    points.sort_unstable();
    points.dedup();
    let (mut checked, mut next) = (0, 0);
    for (n, &at) in points.iter().enumerate() {
        let last = ops[..at].iter().rev().find_map(|o| if let Op::Mark(r) = o { Some(*r) } else { None }).unwrap();
        for loss in [Loss::Dropped, Loss::Kept, Loss::Torn, Loss::Any(n as u64), Loss::Any(n as u64 + 1000)] {
            let what = format!("a loss after op {at} of {} ({loss:?}), round {last} durable", ops.len());
            let image = rebuild(&ops, at, loss);
            let backend = InMemoryBackend::new();
            backend.set_len(image.len() as u64).unwrap();
            backend.write(0, &image).unwrap();
            let mut db = match redb::Database::builder().create_with_backend(backend) {
                Ok(db) => db,
                Err(e) => panic!("{what}: does not open: {e}"),
            };
            assert!(db.check_integrity().unwrap(), "{what}: not whole");
            // The last durable round, or the next one if its commit was on its way.
            let key0 = {
                let rx = db.begin_read().unwrap();
                let t = rx.open_table(T).unwrap();
                t.get(0).unwrap().unwrap().value().to_vec()
            };
            let r = if key0 == value(last) { last } else { last + 1 };
            assert!(r <= 12 && (r == last || key0 == value(r)), "{what}: key 0 holds neither round {last} nor the next");
            check_state(&db, r, &what);
            next += usize::from(r > last);
            // It goes on: a few more rounds, then whole again; every other point also settles its pages.
            if n % 4 == 0 || matches!(loss, Loss::Any(_)) && n % 4 == 1 {
                let before = allocated(&db);
                for more in 0..6 {
                    round(&db, 100 + more, COMMITS);
                }
                assert!(db.check_integrity().unwrap(), "{what}: not whole after more rounds");
                check_state(&db, 105, &what);
                let after = allocated(&db);
                assert!(after <= before + 64, "{what}: pages allocated grew from {before} to {after} in 6 rounds");
            }
            checked += 1;
        }
    }
    // Both kinds of state were met: the last durable round, and the next one whose commit had reached the disk.
    assert!(checked >= 100 && next >= 10 && next < checked, "{checked} states checked, {next} holding the round in flight");
}
