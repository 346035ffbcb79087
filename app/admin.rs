//! Operator commands: backup, verify, restore, recover, compact and password reset. Each works on a data directory no server
//! holds by opening the file directly, and (backup, password reset) through the running server's admin socket
//! `DIR/admin.sock` (mode 0600: only whoever can read DIR can use it) when one does.
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::{Value, json};
use store::{Store, StoreError};

use crate::auth::password;
use crate::decl::Resources;

pub const SOCKET: &str = "admin.sock";

pub fn data_file(dir: &Path) -> PathBuf {
    dir.join(store::DATA_FILE)
}

/// An operator command's data directory holds a data file: a wrong or forgotten `--dir` is named as such (it
/// said only "No such file or directory"), and nothing is made there.
pub fn need_data(dir: &Path) -> anyhow::Result<()> {
    let f = data_file(dir);
    if !f.exists() {
        bail!(
            "no data file {} here: --dir names the server's data directory (an installed service's is /var/lib/zhizhuang; without --dir it is ./zz_data). / 找不到数据文件 {}:请用 --dir 指定服务器的数据目录。",
            f.display(),
            f.display()
        );
    }
    Ok(())
}

/// How an operator command opens `file`: a data file whose directory ships to a replica keeps its logs in the
/// ship directory (what it folds reaches the bucket at the next `serve --replicate`, instead of a silent gap).
pub fn offline_options(file: &Path) -> store::Options {
    let ship = file.parent().map(crate::replica::ship_dir).filter(|d| d.is_dir() && file.file_name().is_some_and(|n| n == store::DATA_FILE));
    // Offline commands (`compact`, `backup`, `verify`, `restore`, …) leave a file in its format: an optional upgrade
    // is the server's to make at its start, where a file upgraded restarts its replica's stream (and a backup
    // checked by `verify` stays one the release that made it can restore).
    store::Options { ship_dir: ship, format: store::REQUIRED_FORMAT, ..Default::default() }
}

fn call(dir: &Path, req: &Value) -> anyhow::Result<Value> {
    let mut s = UnixStream::connect(dir.join(SOCKET)).context("the data file is in use, but no server answers on its admin socket")?;
    writeln!(s, "{req}")?;
    let mut line = String::new();
    BufReader::new(s).read_line(&mut line)?;
    let v: Value = serde_json::from_str(&line).context("bad answer from the server")?;
    if v["ok"].as_bool() != Some(true) {
        bail!("server: {}", v["error"].as_str().unwrap_or("failed"));
    }
    Ok(v)
}

/// The data directory made private: created 0700 when missing; an existing one whose directory, files or
/// folders others may read is tightened (0700 folders, 0600 files, once, logged). Everything the product makes
/// there afterwards is private anyway (`main` sets the umask to 077). Returns what could not be tightened (a
/// file of another owner), for `serve` to warn about.
pub fn private_dir(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if !dir.exists() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).with_context(|| format!("create {}", dir.display()))?;
        return Ok(Vec::new());
    }
    let mut tightened = 0usize;
    let mut refused = Vec::new();
    let mut visit = vec![dir.to_path_buf()];
    while let Some(p) = visit.pop() {
        let Ok(meta) = std::fs::symlink_metadata(&p) else { continue };
        if meta.file_type().is_symlink() {
            continue;
        }
        let want = if meta.is_dir() { 0o700 } else { 0o600 };
        if meta.permissions().mode() & 0o077 != 0 {
            match std::fs::set_permissions(&p, std::fs::Permissions::from_mode(meta.permissions().mode() & !0o077 | (want & 0o700))) {
                Ok(()) => tightened += 1,
                Err(_) => refused.push(p.clone()),
            }
        }
        if meta.is_dir() {
            // The data directory, its search index and the shipper's folder: nothing deeper is the product's.
            if p == dir || p.parent() == Some(dir) {
                for e in std::fs::read_dir(&p).into_iter().flatten().flatten() {
                    visit.push(e.path());
                }
            }
        }
    }
    if tightened > 0 {
        tracing::warn!(target: "zz::serve", dir = %dir.display(), files = tightened, "the data directory was readable by other users of this machine; made private (0700 folders, 0600 files)");
    }
    Ok(refused)
}

/// Whether another local user may read into `dir` (its mode gives group or others any right).
pub fn readable_by_others(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o077 != 0)
}

pub fn server_running(dir: &Path) -> bool {
    UnixStream::connect(dir.join(SOCKET)).is_ok()
}

fn absolute(p: &Path) -> anyhow::Result<PathBuf> {
    Ok(if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir()?.join(p) })
}

/// Where `backup --with-logs` writes the logs' copy: FILE with `-logs` before its extension.
pub fn logs_backup_path(out: &Path) -> PathBuf {
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let ext = out.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    out.with_file_name(format!("{stem}-logs{ext}"))
}

/// A backup of one store's file `file` to `out`, offline (no server holds it) — None when a server does.
fn backup_offline(file: &Path, out: &Path) -> anyhow::Result<Option<Value>> {
    match Store::open(file, &offline_options(file)) {
        Ok(st) => {
            let res = crate::decl::Resources::load()?;
            res.load_generated(&st)?;
            let r = st.backup_to(out, &|name| res.try_get(name));
            st.close();
            Ok(Some(serde_json::to_value(r?)?))
        }
        Err(StoreError::Locked) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// A backup's place: never inside the data directory (a copy beside the live files is lost with the disk, and
/// `--out DIR/zhizhuang.redb` would write over the live file).
fn check_out(dir: &Path, out: &Path) -> anyhow::Result<()> {
    let canon_dir = std::fs::canonicalize(dir).unwrap_or_else(|_| absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    let parent = out.parent().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())).unwrap_or_default();
    let target = parent.join(out.file_name().unwrap_or_default());
    if target.starts_with(&canon_dir) {
        bail!("--out {} is inside the data directory {}: write the backup elsewhere (another disk or machine is best)", out.display(), dir.display());
    }
    Ok(())
}

pub fn backup(dir: &Path, out: &Path, with_logs: bool) -> anyhow::Result<()> {
    need_data(dir)?;
    let out = absolute(out)?;
    check_out(dir, &out)?;
    let logs_out = with_logs.then(|| logs_backup_path(&out));
    let (report, logs_report) = match backup_offline(&data_file(dir), &out)? {
        Some(r) => {
            let l = match &logs_out {
                Some(lo) => {
                    let f = crate::logsink::file_for(&data_file(dir));
                    if f.exists() { backup_offline(&f, lo)? } else { None }
                }
                None => None,
            };
            (r, l)
        }
        None => {
            // The service writes it, as its own user: a place that user may not write is named as such.
            let v = call(dir, &json!({"cmd": "backup", "out": out, "logs_out": logs_out})).map_err(|e| {
                if e.to_string().contains("Permission denied") || e.to_string().contains("Read-only file system") {
                    let owner = std::fs::metadata(dir).ok().map(|m| { use std::os::unix::fs::MetadataExt; m.uid() }).unwrap_or(0);
                    anyhow::anyhow!(
                        "the running server may not write {} (it writes the backup as its own user, uid {owner}; an installed service may write only its data directory and /var/backups/zhizhuang): {e}. / 运行中的服务无权写入 {}:请备份到服务可写的目录(如 /var/backups/zhizhuang)。",
                        out.display(),
                        out.display()
                    )
                } else {
                    e
                }
            })?;
            // The running server wrote the file: a service with a private /tmp or a read-only system (the unit's
            // PrivateTmp, ProtectSystem) writes where this command cannot see. Never report a backup the admin
            // does not have.
            for f in std::iter::once(&out).chain(logs_out.iter().filter(|_| !v["logs_report"].is_null())) {
                if !std::fs::metadata(f).is_ok_and(|m| m.is_file() && m.len() > 0) {
                    bail!(
                        "the server wrote its backup to {0}, but this command does not find it there: the service sees another {0} (its private /tmp, or a directory it may not write to). Write the backup to a directory the service may write (the unit's ReadWritePaths, e.g. /var/backups/zhizhuang). / 服务器已写出备份,但本命令在 {0} 找不到该文件:服务使用的是私有或只读的目录。请备份到服务可写的目录(如 /var/backups/zhizhuang)。",
                        f.display()
                    );
                }
            }
            (v["report"].clone(), Some(v["logs_report"].clone()).filter(|x| !x.is_null()))
        }
    };
    println!("backup written to {}", out.display());
    print_counts(&report);
    // Secrets in the file are sealed with the install's key (`crate::secrets`): a backup alone cannot open them.
    let env = crate::install::ENV_FILE;
    match std::env::var(crate::secrets::KEY_ENV).ok().filter(|v| !v.trim().is_empty()) {
        Some(_) => println!("keep the key with it: the secrets in this backup are sealed with {} (set in this environment); the server you restore on needs it in its {}", crate::secrets::KEY_ENV, crate::secrets::KEY_ENV),
        None if Path::new(env).exists() => println!("keep the key with it: the secrets in this backup are sealed with the installed service's key, {} in {env} (the same as {}); the server you restore on needs it in its {env}", crate::secrets::KEY_ENV, crate::secrets::key_path(dir).display()),
        None => println!("keep the key with it: the secrets in this backup are sealed with {} (copy it to the data directory you restore into, or set its digits as {} there)", crate::secrets::key_path(dir).display(), crate::secrets::KEY_ENV),
    }
    if let (Some(lo), Some(r)) = (&logs_out, &logs_report) {
        println!("logs backup written to {}", lo.display());
        print_counts(r);
    }
    Ok(())
}

/// `zhizhuang recover --dir DIR --accept-loss`: opens the data file and the logs' file accepting the loss of what
/// a damaged log holds after the damage; prints what was applied and discarded.
pub fn recover(dir: &Path, accept_loss: bool) -> anyhow::Result<()> {
    if !accept_loss {
        bail!("recover discards the records of a damaged write-ahead log after the damage: add --accept-loss to do it (or restore a backup)");
    }
    need_data(dir)?;
    if server_running(dir) {
        bail!("a server is running on {}; it opened its files, so there is nothing to recover", dir.display());
    }
    let data = data_file(dir);
    for file in [data.clone(), crate::logsink::file_for(&data)] {
        if !file.exists() {
            continue;
        }
        // Logs an earlier release set aside: each applied when it continues the file, else discarded (kept).
        for orphan in store::wal::set_aside_logs(&file) {
            let accepting = store::Options { accept_loss: true, ..offline_options(&file) };
            // The live log first (what this file's last run left), so the set-aside one comes after it.
            Store::open(&file, &accepting)?.close();
            std::fs::rename(&orphan, store::wal::path_for(&file))?;
            let st = Store::open(&file, &accepting)?;
            let rep = st.replayed().clone();
            st.close();
            match &rep.set_aside {
                None => println!("{}: {} records applied to {}", orphan.display(), rep.records, file.display()),
                Some(to) => println!("{}: it does not continue {} and was discarded, kept as {}", orphan.display(), file.display(), to.display()),
            }
        }
        let refused = match Store::open(&file, &offline_options(&file)) {
            Ok(st) => {
                st.close();
                println!("{}: opens as it is; nothing to recover", file.display());
                continue;
            }
            Err(StoreError::LogRefused(r)) => r,
            Err(StoreError::Locked) => bail!("another process holds {}", file.display()),
            Err(e) => return Err(e.into()),
        };
        let st = Store::open(&file, &store::Options { accept_loss: true, ..offline_options(&file) })?;
        let rep = st.replayed().clone();
        st.close();
        println!(
            "{}: {} records applied; the log was set aside as {} ({} records after byte {} discarded)",
            file.display(),
            rep.records,
            rep.set_aside.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            refused.discarded,
            refused.position
        );
    }
    Ok(())
}

/// Files an operator command made in the data directory as root (a restore, a reindex, a certificate, a log
/// folded in, a copy kept before an upgrade) belong to the directory's owner — the service's user — or the service
/// cannot open them at its next start ("Permission denied"). Only root's own files are given back, and only when
/// run as root; the service's own files are left as they are.
pub fn give_back_to_owner(dir: &Path) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        if !rustix::process::geteuid().is_root() {
            return;
        }
        let Ok(d) = std::fs::metadata(dir) else { return };
        if d.uid() == 0 {
            return;
        }
        fn walk(p: &Path, uid: u32, gid: u32, depth: usize) {
            let Ok(entries) = std::fs::read_dir(p) else { return };
            for e in entries.flatten() {
                let path = e.path();
                let Ok(m) = std::fs::symlink_metadata(&path) else { continue };
                if m.file_type().is_symlink() {
                    continue;
                }
                if m.uid() == 0
                    && let Err(err) = std::os::unix::fs::chown(&path, Some(uid), Some(gid)) {
                    eprintln!("note: {} stays root's ({err}): give it to the service's user (chown)", path.display());
                }
                if m.is_dir() && depth < 8 {
                    walk(&path, uid, gid, depth + 1);
                }
            }
        }
        walk(dir, d.uid(), d.gid(), 0);
    }
}

/// A copy `verify` checks instead of a backup, removed when done.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        for l in [store::wal::path_for(&self.0), store::wal::folded_path_for(&self.0)] {
            let _ = std::fs::remove_file(l);
        }
    }
}

/// Whether `file` is a data directory's own file (the data file or the logs' file), which a server opens as it is.
fn is_live(file: &Path) -> bool {
    let data = file.with_file_name(store::DATA_FILE);
    file.file_name().is_some_and(|n| n == store::DATA_FILE) || crate::logsink::file_for(&data) == file
}

/// A backup is checked on a copy: opening a file stamps it and may extend it, and a backup must stay byte for
/// byte as it was made (its checksum kept off the box, a read-only mount, the release that made it restoring it).
/// The copy goes to the system's temporary directory, else beside the backup.
fn scratch_copy(file: &Path) -> anyhow::Result<Scratch> {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tag = format!("zz-verify-{}-{name}", std::process::id());
    let mut why = Vec::new();
    for dir in [std::env::temp_dir(), file.parent().map(Path::to_path_buf).unwrap_or_default()] {
        let to = dir.join(&tag);
        match std::fs::copy(file, &to) {
            Ok(_) => return Ok(Scratch(to)),
            Err(e) => {
                let _ = std::fs::remove_file(&to);
                why.push(format!("{}: {e}", dir.display()));
            }
        }
    }
    bail!("verify checks a backup on a copy so that the backup stays as it was made, and no copy could be written ({}); free room in the temporary directory (TMPDIR)", why.join("; "))
}

pub fn verify(file: &Path) -> anyhow::Result<bool> {
    let ok = if is_live(file) || !file.is_file() {
        verify_one(file, file)?
    } else {
        let copy = scratch_copy(file)?;
        verify_one(&copy.0, file)?
    };
    // The logs' file beside a data file (a backup's `-logs` copy beside it too).
    let mut logs_ok = true;
    let beside = if file.file_name().is_some_and(|n| n == store::DATA_FILE) { crate::logsink::file_for(file) } else { logs_backup_path(file) };
    for l in [beside] {
        if l.exists() && l != file {
            println!();
            let copy = if is_live(&l) { None } else { Some(scratch_copy(&l)?) };
            let report = store::verify_file(copy.as_ref().map_or(&l, |c| &c.0))?;
            println!("{} (logs): {}", l.display(), if report.ok { "OK" } else { "DAMAGED" });
            print_counts(&serde_json::to_value(&report)?);
            for p in &report.problems {
                println!("problem: {p}");
            }
            logs_ok &= report.ok;
            break;
        }
    }
    Ok(ok && logs_ok)
}

/// Checks `file` (a backup's copy, or a data directory's own file), naming it as `shown`.
fn verify_one(file: &Path, shown: &Path) -> anyhow::Result<bool> {
    // Commits the last run left in the write-ahead log are part of the data: fold them in first (what the server
    // does at start), so the file checked is the one it will serve.
    if store::wal::path_for(file).exists() || store::wal::folded_path_for(file).exists() {
        match Store::open(file, &offline_options(file)) {
            Ok(st) => {
                let r = st.replayed().clone();
                st.close();
                println!("write-ahead log: {} commits folded into the file{}", r.records, if r.torn_tail { " (a torn last record, never acknowledged, cut off)" } else { "" });
            }
            Err(StoreError::Locked) => println!("write-ahead log: a server holds the file; its log is checked when it stops"),
            Err(e) => return Err(e.into()),
        }
    }
    let report = store::verify_file(file)?;
    let v = serde_json::to_value(&report)?;
    println!("{}: {}", shown.display(), if report.ok { "OK" } else { "DAMAGED" });
    print_counts(&v);
    for p in &report.problems {
        println!("problem: {p}");
    }
    let ledger_ok = if report.ok { audit_ledger(file)? } else { true };
    // The search index beside a data file: how far it is behind the change log (a cache: never a problem).
    let dir = crate::indexer::index_dir(shown);
    if dir.is_dir() {
        match search::Index::peek(&dir, None) {
            Ok(seq) => println!("search index: holds changes up to {seq} of {} (lag {})", report.change_seq, report.change_seq.saturating_sub(seq)),
            Err(why) => println!("search index: not usable as it is ({why}); rebuilt at the next start"),
        }
    }
    Ok(report.ok && ledger_ok)
}

/// What each area checks of a data file's records (`api::Area::verify`): the stock ledger's balances against the
/// moves, every approval against its tasks, the contract ledgers and day-work totals.
fn audit_ledger(file: &Path) -> anyhow::Result<bool> {
    let st = match Store::open(file, &offline_options(file)) {
        Err(StoreError::Locked) => {
            println!("stock ledger: not checked (a server holds the file; run verify on a backup or a stopped server)");
            return Ok(true);
        }
        other => other?,
    };
    let res = crate::decl::Resources::load()?;
    let mut ok = true;
    for area in crate::api::AREAS {
        let Some(verify) = area.verify else { continue };
        let (line, problems) = match st.read(|r| verify(r, &res)) {
            Ok(v) => v,
            Err(e) => {
                st.close();
                return Err(e.into());
            }
        };
        println!("{line}");
        for p in problems.iter().take(50) {
            println!("problem: {p}");
        }
        ok &= problems.is_empty();
    }
    st.close();
    Ok(ok)
}

/// Rebuilds DIR's search index offline and prints the figures.
pub fn reindex(dir: &Path) -> anyhow::Result<()> {
    if server_running(dir) {
        bail!("a server is running on {}; it keeps its index itself (stop it to rebuild offline)", dir.display());
    }
    need_data(dir)?;
    let file = data_file(dir);
    let st = match Store::open(&file, &offline_options(&file)) {
        Err(StoreError::Locked) => bail!("another process holds {}", file.display()),
        other => other?,
    };
    let res = crate::decl::Resources::load()?;
    res.load_generated(&st)?;
    let index_dir = crate::indexer::index_dir(&file);
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir)?;
    }
    let started = std::time::Instant::now();
    let ix = crate::indexer::Indexer::open(&st, &res)?;
    let docs = ix.rebuild_now()?;
    let secs = started.elapsed().as_secs_f64();
    let bytes = ix.index().disk_bytes();
    drop(ix);
    st.close();
    let data = std::fs::metadata(&file)?.len();
    println!(
        "search index rebuilt: {docs} documents in {secs:.1} s ({:.0}/s), {:.1} MiB on disk ({:.2}x the data file)",
        docs as f64 / secs.max(0.001),
        bytes as f64 / 1048576.0,
        bytes as f64 / data.max(1) as f64
    );
    Ok(())
}

/// Compacts DIR's data file and logs' file (no server may hold them) and prints their sizes before and after.
pub fn compact(dir: &Path) -> anyhow::Result<()> {
    need_data(dir)?;
    compact_file(&data_file(dir))?;
    let logs = crate::logsink::file_for(&data_file(dir));
    if logs.exists() {
        compact_file(&logs)?;
    }
    Ok(())
}

fn compact_file(file: &Path) -> anyhow::Result<()> {
    let file = file.to_path_buf();
    // Opening the store first tells a running server (locked) apart from a missing file.
    match Store::open(&file, &offline_options(&file)) {
        Ok(st) => st.close(),
        Err(StoreError::Locked) => anyhow::bail!("a running server holds {}: stop it first, then compact", file.display()),
        Err(e) => return Err(e.into()),
    }
    let (before, after) = store::compact_file(&file)?;
    println!("{}: {} -> {} bytes ({} bytes returned to the disk)", file.display(), before.file_bytes, after.file_bytes, before.file_bytes.saturating_sub(after.file_bytes));
    print_space(&serde_json::to_value(after)?);
    Ok(())
}

fn print_space(space: &Value) {
    let mib = |k: &str| space[k].as_u64().unwrap_or(0) as f64 / 1048576.0;
    println!(
        "file {:.1} MiB, in use {:.1} MiB (data {:.1} MiB), free {:.1} MiB",
        mib("file_bytes"),
        mib("allocated_bytes"),
        mib("stored_bytes"),
        mib("free_bytes")
    );
}

fn print_counts(report: &Value) {
    println!("schema version {}", report["schema_version"]);
    if report["space"].is_object() {
        print_space(&report["space"]);
    }
    for t in report["tables"].as_array().into_iter().flatten() {
        let n = |k: &str| t[k].as_u64().unwrap_or(0);
        // Pages are 4 KiB: what the table takes in the file, and per row.
        let bytes = n("pages") * 4096;
        let per_row = if n("rows") > 0 { format!("{:>6} B/row", bytes / n("rows")) } else { String::new() };
        println!(
            "  table {:<16} {:>10} rows {:>9.1} MiB in {:>8} pages (keys and values {:.1} MiB, tree {:.1} MiB, unused {:.1} MiB) {per_row}",
            t["name"].as_str().unwrap_or(""),
            n("rows"),
            bytes as f64 / 1048576.0,
            n("pages"),
            n("stored_bytes") as f64 / 1048576.0,
            n("metadata_bytes") as f64 / 1048576.0,
            n("fragmented_bytes") as f64 / 1048576.0
        );
    }
    for (name, n) in report["resources"].as_object().into_iter().flatten() {
        println!("  resource {:<13} {:>10} live records", name, n);
    }
}

/// Replaces DIR's data file (and, given `logs`, the logs' file) with a verified backup; the previous file is kept
/// beside it.
pub fn restore(dir: &Path, file: &Path, logs: Option<&Path>) -> anyhow::Result<()> {
    if server_running(dir) {
        bail!("a server is running on {}; stop it before restoring", dir.display());
    }
    if let Some(l) = logs {
        restore_logs(dir, l)?;
    }
    restore_data(dir, file)
}

/// Replaces the logs' file of DIR with a verified backup of it.
pub fn restore_logs(dir: &Path, l: &Path) -> anyhow::Result<()> {
    if server_running(dir) {
        bail!("a server is running on {}; stop it before restoring", dir.display());
    }
    let target = crate::logsink::file_for(&data_file(dir));
    replace_file(dir, l, &target)?;
    println!("restored the logs {} into {}", l.display(), target.display());
    Ok(())
}

/// Puts a copy of the backup `from` in place of `target` through a synced temporary file, keeping the old one (and
/// a write-ahead log left beside it) aside. The copy is what is verified (opening a file stamps it): the backup is
/// only read, and stays byte for byte as it was made. A copy that fails verification changes nothing.
fn replace_file(dir: &Path, from: &Path, target: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!("{name}.restoring"));
    std::fs::copy(from, &tmp)?;
    std::fs::File::open(&tmp)?.sync_all()?;
    let verified = store::verify_file(&tmp).map(|r| r.ok);
    if !matches!(verified, Ok(true)) {
        let _ = std::fs::remove_file(&tmp);
        for l in [store::wal::path_for(&tmp), store::wal::folded_path_for(&tmp)] {
            let _ = std::fs::remove_file(l);
        }
        verified?;
        bail!("{} fails verification; nothing changed", from.display());
    }
    if target.exists() {
        let aside = dir.join(format!("{name}.before-restore-{}", store::now_millis()));
        std::fs::rename(target, &aside)?;
        println!("previous file kept as {}", aside.display());
        for (log, to) in [(store::wal::path_for(target), store::wal::path_for(&aside)), (store::wal::folded_path_for(target), store::wal::folded_path_for(&aside))] {
            if log.exists() {
                std::fs::rename(&log, to)?;
            }
        }
    }
    std::fs::rename(&tmp, target)?;
    std::fs::File::open(dir)?.sync_all()?;
    Ok(())
}

fn restore_data(dir: &Path, file: &Path) -> anyhow::Result<()> {
    let target = data_file(dir);
    if target.exists() {
        match Store::open(&target, &offline_options(&target)) {
            Ok(st) => st.close(),
            Err(StoreError::Locked) => bail!("another process holds {}; stop it before restoring", target.display()),
            Err(e) => eprintln!("note: the current data file does not open ({e}); replacing it"),
        }
    }
    // A log left beside the old file (it did not open) goes aside with it; the backup is only read.
    replace_file(dir, file, &target)?;
    crate::replica::restart_stream(dir)?;
    // The search index described the replaced file: it is rebuilt from the restored one at the next start.
    let index_dir = crate::indexer::index_dir(&target);
    if index_dir.exists() {
        std::fs::remove_dir_all(&index_dir)?;
        println!("search index removed; the server rebuilds it at start");
    }
    println!("restored {} into {}", file.display(), dir.display());
    Ok(())
}

/// Sets a new password (given, or generated and printed) for an account, revoking its sessions.
pub fn passwd(dir: &Path, tenant: &str, account: &str, given: Option<String>) -> anyhow::Result<()> {
    need_data(dir)?;
    let pw = given.unwrap_or_else(password::random_password);
    let md5 = password::md5_hex(&pw);
    match Store::open(&data_file(dir), &offline_options(&data_file(dir))) {
        Ok(st) => {
            let r = reset_password(&st, &Resources::load()?, tenant, account, &md5);
            st.close();
            r?;
        }
        Err(StoreError::Locked) => {
            call(dir, &json!({"cmd": "passwd", "tenant": tenant, "account": account, "md5": md5}))?;
        }
        Err(e) => return Err(e.into()),
    }
    println!("new password for {account} in tenant {tenant}: {pw}");
    Ok(())
}

/// The recovery reset, in one write: new hash, token version bumped, every session of the user revoked.
pub fn reset_password(st: &Store, res: &Resources, tenant: &str, account: &str, md5: &str) -> anyhow::Result<()> {
    let hash = password::hash(md5);
    let (def, t, a) = (res.get("user"), tenant.to_string(), account.to_string());
    let found = st.write(move |w| {
        let Some(uid) = w.find_unique(&def, &t, "account", &a)? else { return Ok(false) };
        let user = w.get(&def, &t, uid)?.ok_or(StoreError::NotFound)?;
        let ver = user.get("tokenVersion").and_then(Value::as_i64).unwrap_or(0) + 1;
        let patch = json!({"passwordHash": hash, "tokenVersion": ver, "status": 1});
        w.update(&def, &t, uid, patch.as_object().cloned().unwrap_or_default(), &store::Actor::default())?;
        for (sid, mut s) in w.sessions_of_tenant(&t)? {
            if s["uid"].as_u64() == Some(uid) {
                s["revoked"] = json!(true);
                w.put_session(&t, &sid, &s)?;
            }
        }
        Ok(true)
    })?;
    if !found {
        bail!("no account {account} in tenant {tenant}");
    }
    Ok(())
}

/// The server side of the admin socket.
pub async fn serve_socket(dir: PathBuf, st: crate::state::AppState) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let path = dir.join(SOCKET);
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    loop {
        let (conn, _) = listener.accept().await?;
        let st = st.clone();
        tokio::spawn(async move {
            let (r, mut w) = conn.into_split();
            let mut line = String::new();
            if tokio::io::BufReader::new(r).read_line(&mut line).await.is_err() {
                return;
            }
            let answer = match serde_json::from_str::<Value>(&line) {
                Ok(req) => handle(&st, req).await,
                Err(_) => json!({"ok": false, "error": "bad request"}),
            };
            let _ = w.write_all(format!("{answer}\n").as_bytes()).await;
        });
    }
}

async fn handle(st: &crate::state::AppState, req: Value) -> Value {
    let st = st.clone();
    let r = tokio::task::spawn_blocking(move || -> anyhow::Result<Value> {
        match req["cmd"].as_str() {
            Some("backup") => {
                let out = PathBuf::from(req["out"].as_str().unwrap_or(""));
                tracing::info!(target: "zz::admin", out = %out.display(), "online backup started");
                let res = st.res.clone();
                let report = st.store.backup_to(&out, &|name| res.try_get(name))?;
                let logs_report = match req["logs_out"].as_str() {
                    Some(lo) => Some(st.log_store.backup_to(Path::new(lo), &|name| res.try_get(name))?),
                    None => None,
                };
                tracing::info!(target: "zz::admin", out = %out.display(), "online backup done");
                Ok(json!({"ok": true, "report": report, "logs_report": logs_report}))
            }
            Some("passwd") => {
                let (t, a, m) = (req["tenant"].as_str().unwrap_or(""), req["account"].as_str().unwrap_or(""), req["md5"].as_str().unwrap_or(""));
                reset_password(&st.store, &st.res, t, a, m)?;
                st.perms.invalidate();
                tracing::info!(target: "zz::admin", tenant = t, account = a, "password reset by operator");
                Ok(json!({"ok": true}))
            }
            _ => bail!("unknown command"),
        }
    })
    .await;
    match r {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => json!({"ok": false, "error": e.to_string()}),
        Err(e) => json!({"ok": false, "error": e.to_string()}),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Offline commands leave every file in its format (only a required upgrade happens): an upgrade made by
    /// `compact` or `verify` would not restart the replica's stream, and would make a backup unreadable to the
    /// release that wrote it.
    #[test]
    fn offline_opens_leave_files_in_their_format() {
        let format = |p: &str| super::offline_options(Path::new(p)).format;
        for f in ["/var/lib/zhizhuang/zhizhuang-logs.redb", "/mnt/backup/zz-2026-12-02-logs.redb", "/var/lib/zhizhuang/zhizhuang.redb", "/mnt/backup/zz.redb"] {
            assert_eq!(format(f), store::REQUIRED_FORMAT, "{f}");
        }
    }

    /// Run as root on a data directory of the service's user, an operator command's new files become that user's
    /// (a restore made as root left a data file the service could not open). Only where the tests run as root.
    #[test]
    #[cfg(target_os = "linux")]
    fn files_root_makes_in_the_data_directory_become_its_owners() {
        use std::os::unix::fs::MetadataExt;
        if !rustix::process::geteuid().is_root() {
            return;
        }
        let tmp = std::env::temp_dir().join(format!("zz-owner-{}", std::process::id()));
        let dir = tmp.join("data");
        std::fs::create_dir_all(dir.join("tls")).unwrap();
        std::fs::write(dir.join("zhizhuang.redb"), b"x").unwrap();
        std::fs::write(dir.join("tls/server.key"), b"k").unwrap();
        std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
        super::give_back_to_owner(&dir);
        for p in ["zhizhuang.redb", "tls", "tls/server.key"] {
            let m = std::fs::metadata(dir.join(p)).unwrap();
            assert_eq!((m.uid(), m.gid()), (65534, 65534), "{p}");
        }
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
