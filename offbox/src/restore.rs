//! Point-in-time restore from a replica: the newest snapshot at or before the moment (or the newest of all),
//! then the segments after it in order, stopping before the first record committed after the moment. Records
//! carry the primary's commit time, so the moment is read by the primary's clock, never the bucket's.
//!
//! The result is a data file holding exactly the writes committed up to the moment (every record is checked
//! against its checksum, and records must follow each other without a gap), verified like any backup.
use std::path::{Path, PathBuf};

use store::ship::FileApplier;

use crate::bucket::{Bucket, Problem, What};
use crate::layout::{self, Owner};

/// What a restore rebuilt.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Restored {
    pub generation: String,
    /// The snapshot it started from: its position and when it was taken.
    pub snapshot_seq: u64,
    pub snapshot_at: i64,
    /// The last record applied and when the primary committed it.
    pub seq: u64,
    pub at: Option<i64>,
    /// Records applied after the snapshot, and segments read.
    pub records: u64,
    pub segments: u64,
    /// The moment asked for was reached inside the stream (records after it exist and were left out).
    pub stopped_at_moment: bool,
}

/// The generations of a replica, oldest first.
pub async fn generations(bucket: &Bucket) -> Result<Vec<String>, Problem> {
    bucket.dirs(layout::generations_dir()).await
}

/// The owner object, if any.
pub async fn owner(bucket: &Bucket) -> Result<Option<Owner>, Problem> {
    match bucket.get(layout::OWNER).await? {
        None => Ok(None),
        Some(b) => serde_json::from_slice(&b).map(Some).map_err(|e| Problem { what: What::Other, detail: format!("owner object: {e}") }),
    }
}

/// The snapshot to start from: (generation, name, seq, taken at).
pub async fn pick_snapshot(bucket: &Bucket, until: Option<i64>, generation: Option<&str>) -> Result<Option<(String, String, u64, i64)>, Problem> {
    let mut gens = match generation {
        Some(g) => vec![g.to_string()],
        None => generations(bucket).await?,
    };
    // Without a moment, the owner's generation comes first (the one being shipped now).
    if until.is_none() && generation.is_none()
        && let Some(o) = owner(bucket).await?
        && let Some(i) = gens.iter().position(|g| *g == o.generation) {
        let g = gens.remove(i);
        gens.push(g);
    }
    for g in gens.iter().rev() {
        let mut best: Option<(String, u64, i64)> = None;
        for n in bucket.list(&layout::snapshots_dir(g), None).await? {
            let Some((seq, at)) = layout::pair_of(&n) else { continue };
            let at = at as i64;
            if until.is_some_and(|u| at > u) {
                continue;
            }
            if best.as_ref().is_none_or(|b| seq > b.1) {
                best = Some((n, seq, at));
            }
        }
        if let Some((n, seq, at)) = best {
            return Ok(Some((g.clone(), n, seq, at)));
        }
    }
    Ok(None)
}

/// The segments of `generation` holding records after `after`, in order (l1 and l0 together; a record in both
/// is applied once).
pub async fn segments_after(bucket: &Bucket, generation: &str, after: u64) -> Result<Vec<(String, u64, u64)>, Problem> {
    let mut out = Vec::new();
    for level in [1u8, 0] {
        for n in bucket.list(&layout::level_dir(generation, level), None).await? {
            if let Some((a, b)) = layout::pair_of(&n)
                && b > after {
                out.push((n, a, b));
            }
        }
    }
    out.sort_by_key(|s| (s.1, std::cmp::Reverse(s.2)));
    Ok(out)
}

fn other(e: impl std::fmt::Display) -> Problem {
    Problem { what: What::Other, detail: e.to_string() }
}

/// Rebuilds a data file at `out` (which must not exist) from the replica: see the module's comment. `until` in
/// milliseconds since the epoch; `generation` to pick one (else the owner's, or the one holding the moment).
pub async fn restore(bucket: &Bucket, out: &Path, until: Option<i64>, generation: Option<&str>) -> Result<Restored, Problem> {
    let Some((generation, snap, snap_seq, snap_at)) = pick_snapshot(bucket, until, generation).await? else {
        return Err(Problem {
            what: What::Other,
            detail: match until {
                Some(_) => "no snapshot in the bucket was taken at or before that moment".into(),
                None => "the bucket holds no snapshot".into(),
            },
        });
    };
    let zst: PathBuf = out.with_extension("restoring.zst");
    bucket.get_to_file(&snap, &zst).await?;
    let (zst2, out2) = (zst.clone(), out.to_path_buf());
    tokio::task::spawn_blocking(move || -> std::io::Result<()> {
        let input = std::fs::File::open(&zst2)?;
        let mut dec = zstd::stream::read::Decoder::new(input)?;
        let mut f = std::fs::File::create(&out2)?;
        std::io::copy(&mut dec, &mut f)?;
        f.sync_all()?;
        std::fs::remove_file(&zst2)
    })
    .await
    .map_err(other)?
    .map_err(other)?;
    let segs = segments_after(bucket, &generation, snap_seq).await?;
    let out2 = out.to_path_buf();
    let mut applier = tokio::task::spawn_blocking(move || FileApplier::open(&out2, snap_seq)).await.map_err(other)?.map_err(other)?;
    let mut reached = false;
    let mut read = 0u64;
    // Segments are fetched a few ahead of the one being applied.
    let mut pending: std::collections::VecDeque<(u64, u64, tokio::task::JoinHandle<Result<Option<bytes::Bytes>, Problem>>)> = Default::default();
    let mut next = 0usize;
    loop {
        while pending.len() < 8 && next < segs.len() {
            let (n, a, b) = segs[next].clone();
            let bk = bucket.clone();
            pending.push_back((a, b, tokio::spawn(async move { bk.get(&n).await })));
            next += 1;
        }
        let Some((first, last, h)) = pending.pop_front() else { break };
        let at = applier.position().seq;
        if last <= at {
            h.abort();
            continue;
        }
        if first > at + 1 {
            for (_, _, h) in pending {
                h.abort();
            }
            let _ = std::fs::remove_file(out);
            return Err(Problem { what: What::Other, detail: format!("segments missing in the bucket: records {} to {} are not there", at + 1, first - 1) });
        }
        let Some(body) = h.await.map_err(other)?? else {
            let _ = std::fs::remove_file(out);
            return Err(Problem { what: What::Other, detail: "a segment disappeared while restoring (pruned or merged meanwhile): run the restore again".into() });
        };
        let recs = layout::decode_segment(&body, layout::MAX_SEGMENT_BYTES).map_err(other)?;
        read += 1;
        let (r, a) = tokio::task::spawn_blocking(move || {
            let r = applier.apply(&recs, until);
            (r, applier)
        })
        .await
        .map_err(other)?;
        applier = a;
        if r.map_err(other)? {
            reached = true;
            for (_, _, h) in pending {
                h.abort();
            }
            break;
        }
    }
    let done = applier.position();
    let restored = Restored {
        generation: generation.clone(),
        snapshot_seq: snap_seq,
        snapshot_at: snap_at,
        seq: done.seq,
        at: done.commit_ms.or(Some(snap_at).filter(|_| done.records == 0)),
        records: done.records,
        segments: read,
        stopped_at_moment: reached,
    };
    let note = serde_json::to_vec(&restored).unwrap_or_default();
    tokio::task::spawn_blocking(move || -> store::Result<()> {
        applier.put_meta("restored_from", &note)?;
        applier.finish().map(|_| ())
    })
    .await
    .map_err(other)?
    .map_err(other)?;
    Ok(restored)
}
