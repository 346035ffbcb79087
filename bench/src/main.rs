//! Benchmarks against the real binary over loopback, with a hello-world baseline measured in the same run.
//!
//! `bench suite --bin target/release/zhizhuang --work /tmp/zzbench` runs everything and prints the figures;
//! `bench load ...` and `bench gen ...` are the pieces.
mod datagen;
mod load;
mod shiplag;
mod flowgen;
mod wmsgen;
mod costgen;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Insert COUNT parameter records into tenant TENANT of a (seeded, not served) data file.
    Gen {
        #[arg(long)]
        file: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 1_000_000)]
        count: u64,
        #[arg(long, default_value_t = 300)]
        value_bytes: usize,
    },
    /// Issue 9's data into a (seeded, not served) data file: 20 companies, PROJECTS projects with a contract each,
    /// CONSTRUCTS constructs; prints the id of the company to filter by.
    /// Write an .xlsx of ROWS rooms in the building import template (20 buildings × 2 units × floors × 4 rooms).
    GenRooms {
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 100_000)]
        rows: u64,
    },
    /// Issue 10's catalogue: 40 categories and COUNT products in tenant TENANT.
    GenProducts {
        #[arg(long)]
        file: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 100_000)]
        count: u64,
    },
    GenProjects {
        #[arg(long)]
        file: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 100_000)]
        projects: u64,
        #[arg(long, default_value_t = 1_000_000)]
        constructs: u64,
    },
    /// Issue 11's data through the real ledger: GOODS goods, MOVES receipts over 2,000 bins, 1,000 released
    /// picking lines and a hot line of HOT units; writes spread.jsonl and hot.jsonl into OUT (pick bodies) and
    /// prints "<a goods id> <the hot goods id>".
    /// Issue 10: one project with ISSUES warehouse issues and DAYS day-work rows (its cost sources), beside 50
    /// other projects; prints the project id.
    GenCost {
        #[arg(long)]
        file: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 90_000)]
        issues: u64,
        #[arg(long, default_value_t = 10_000)]
        days: u64,
    },
    GenStock {
        #[arg(long)]
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 100_000)]
        goods: u64,
        #[arg(long, default_value_t = 1_000_000)]
        moves: u64,
        #[arg(long, default_value_t = 20_000)]
        hot: u64,
    },
    /// Issue 12's data: people, a one-step process, running instances (some waiting on the admin) and finished ones.
    GenFlow {
        #[arg(long)]
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value = "157270")]
        tenant: String,
        #[arg(long, default_value_t = 2_000)]
        users: u64,
        #[arg(long, default_value_t = 100_000)]
        running: u64,
        #[arg(long, default_value_t = 30_000)]
        mine: u64,
        #[arg(long, default_value_t = 1_000_000)]
        finished: u64,
    },
    /// The disk's own durable-append latency (issue 57 item 2): N appends of 200 bytes to a file in DIR, each
    /// followed by fdatasync — the floor under a durable create on that file system.
    Fsync {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long, default_value_t = 2000)]
        n: usize,
    },
    /// Load one URL with N keep-alive connections.
    Load {
        #[arg(long)]
        addr: String,
        #[arg(long, default_value = "GET")]
        method: String,
        #[arg(long)]
        path: String,
        #[arg(long)]
        body: Option<String>,
        /// A file of bodies, one per line, used in turn (request n sends line n mod count).
        #[arg(long)]
        bodies: Option<PathBuf>,
        /// Send each of `--bodies` once and stop (the rate is over the time they took).
        #[arg(long)]
        once: bool,
        #[arg(long)]
        token: Option<String>,
        /// Sends the token as the browser does for pages: `Cookie: zz-token=…` (server-rendered screens).
        #[arg(long)]
        cookie: Option<String>,
        #[arg(long, default_value_t = 64)]
        conns: usize,
        #[arg(long, default_value_t = 10)]
        secs: u64,
        /// Requests per second over all connections, spread evenly over each period (default: back to back).
        #[arg(long)]
        rate: Option<f64>,
        /// With --rate: an open loop, each request timed from when it was due (see `load::Spec::open`).
        #[arg(long)]
        open: bool,
    },
    /// Issue 28: paced creates against a replicating server while the replica's bucket is watched — how long
    /// after its commit each change is in the bucket (first seen in a listing every 20 ms) — and, with
    /// `--standby`, how far behind a standby is (its status, sampled every 100 ms). Credentials: the AWS_* variables.
    ShipLag {
        #[arg(long)]
        addr: String,
        #[arg(long)]
        token: String,
        /// The replica, `s3://bucket/prefix`.
        #[arg(long)]
        replica: String,
        #[arg(long, default_value_t = 1000.0)]
        rate: f64,
        #[arg(long, default_value_t = 8)]
        conns: usize,
        #[arg(long, default_value_t = 20)]
        secs: u64,
        /// A standby's address and a platform admin token for its status screen.
        #[arg(long)]
        standby: Option<String>,
        #[arg(long)]
        standby_token: Option<String>,
    },
    /// The user list of issue 4: 1,000,000 users, a department filter and data scope 4.
    Users {
        #[arg(long)]
        bin: PathBuf,
        #[arg(long, default_value = "/tmp/zzbench-users")]
        work: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        count: u64,
        #[arg(long, default_value_t = 10)]
        secs: u64,
        /// Reuse a data directory generated by an earlier run.
        #[arg(long)]
        reuse: bool,
    },
    /// Search (issue 8): while CONNS connections create parameters, a probe creates one record at a time and
    /// polls the search box until it finds it; prints the time from the create's answer to the first hit.
    Findable {
        #[arg(long)]
        addr: String,
        #[arg(long)]
        token: String,
        #[arg(long, default_value_t = 64)]
        conns: usize,
        #[arg(long, default_value_t = 20)]
        secs: u64,
    },
    /// A plain hello-world server (the baseline). With `--durable DIR`, each request is also made durable the
    /// way the store makes a write durable, and nothing else: a 200-byte record appended to a file in DIR and
    /// `fdatasync`ed by one writer thread (group commit: one sync for all the requests waiting), then the answer.
    /// The floor of any HTTP server that makes a write durable on this machine and disk (issue 57 item 2).
    Hello {
        addr: String,
        #[arg(long)]
        durable: Option<PathBuf>,
    },
    /// The whole suite of the backbone issue.
    Suite {
        #[arg(long)]
        bin: PathBuf,
        #[arg(long, default_value = "/tmp/zzbench")]
        work: PathBuf,
        #[arg(long, default_value_t = 1_000_000)]
        records: u64,
        #[arg(long, default_value_t = 300)]
        value_bytes: usize,
        #[arg(long, default_value_t = 10)]
        secs: u64,
        /// Reuse an already generated data directory.
        #[arg(long)]
        reuse: bool,
    },
}

const PW: &str = "Bench#2026";

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    match cli.cmd {
        Cmd::Gen { file, tenant, count, value_bytes } => datagen::params(&file, &tenant, count, value_bytes),
        Cmd::GenRooms { out, rows } => {
            let xl = |e: rust_xlsxwriter::XlsxError| anyhow::anyhow!("{e}");
            let mut book = rust_xlsxwriter::Workbook::new();
            let sheet = book.add_worksheet();
            for (c, h) in ["楼栋", "单元", "楼层", "房号", "户型", "面积(㎡)"].iter().enumerate() {
                sheet.write_string(0, c as u16, *h).map_err(xl)?;
            }
            let per_building = rows.div_ceil(20).max(1);
            for i in 0..rows {
                let r = i as u32 + 1;
                let (b, rest) = (i / per_building, i % per_building);
                let (unit, floor, room) = (rest % 2 + 1, rest / 8 + 1, (rest / 2) % 4 + 1);
                sheet.write_string(r, 0, format!("{}#", b + 1)).map_err(xl)?;
                sheet.write_string(r, 1, unit.to_string()).map_err(xl)?;
                sheet.write_number(r, 2, (floor % 200) as f64).map_err(xl)?;
                sheet.write_string(r, 3, format!("{floor}{room:02}")).map_err(xl)?;
                sheet.write_string(r, 4, if room % 2 == 0 { "两室一厅" } else { "三室两厅" }).map_err(xl)?;
                sheet.write_string(r, 5, if room % 2 == 0 { "89.00" } else { "118.50" }).map_err(xl)?;
            }
            book.save(&out).map_err(xl)?;
            Ok(())
        }
        Cmd::GenProducts { file, tenant, count } => datagen::products(&file, &tenant, count),
        Cmd::GenProjects { file, tenant, projects, constructs } => {
            println!("{}", datagen::projects(&file, &tenant, projects, constructs)?);
            Ok(())
        }
        Cmd::GenFlow { file, out, tenant, users, running, mine, finished } => {
            println!("{}", flowgen::flows(&file, &out, &tenant, users, running, mine, finished)?);
            Ok(())
        }
        Cmd::GenCost { file, tenant, issues, days } => {
            println!("{}", costgen::cost(&file, &tenant, issues, days)?);
            Ok(())
        }
        Cmd::GenStock { file, out, tenant, goods, moves, hot } => {
            println!("{}", wmsgen::stock(&file, &out, &tenant, goods, moves, hot)?);
            Ok(())
        }
        Cmd::Load { addr, method, path, body, bodies, once, token, cookie, conns, secs, rate, open } => {
            let mut headers = token.map(|t| vec![("blade-auth".to_string(), format!("bearer {t}"))]).unwrap_or_default();
            if let Some(c) = cookie {
                headers.push(("cookie".to_string(), format!("zz-token={c}")));
            }
            let bodies = match bodies {
                Some(f) => std::fs::read_to_string(f)?.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
                None => Vec::new(),
            };
            let spec = load::Spec { addr, method, path, body, bodies, headers, conns, duration: Duration::from_secs(secs), once, rate, open };
            println!("{}", rt.block_on(load::run(spec))?.line("load"));
            Ok(())
        }
        Cmd::Fsync { dir, n } => {
            use std::io::Write;
            let path = dir.join(".bench-fsync");
            let mut f = std::fs::OpenOptions::new().create(true).truncate(true).write(true).open(&path)?;
            let rec = [7u8; 200];
            let mut lat = Vec::with_capacity(n);
            for _ in 0..n {
                let t = std::time::Instant::now();
                f.write_all(&rec)?;
                f.sync_data()?;
                lat.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            drop(f);
            let _ = std::fs::remove_file(&path);
            lat.sort_by(f64::total_cmp);
            let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
            println!("fsync (200-byte append + fdatasync, {n} times): p50={:.3}ms p99={:.3}ms p99.9={:.3}ms max={:.3}ms", pct(0.5), pct(0.99), pct(0.999), lat[lat.len() - 1]);
            Ok(())
        }
        Cmd::Findable { addr, token, conns, secs } => rt.block_on(findable(&addr, &token, conns, secs)),
        Cmd::ShipLag { addr, token, replica, rate, conns, secs, standby, standby_token } => rt.block_on(shiplag::run(addr, token, replica, rate, conns, secs, standby, standby_token)),
        Cmd::Hello { addr, durable } => rt.block_on(async {
            let app = match durable {
                None => axum::Router::new().route("/", axum::routing::get(|| async { "hello" })),
                Some(dir) => {
                    let tx = durable_writer(&dir)?;
                    let ack = move || {
                        let tx = tx.clone();
                        async move {
                            // A failed append or sync ends the writer: every request after it is an error, never
                            // counted as a durable write.
                            let gone = (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "the writer failed");
                            let (done, wait) = tokio::sync::oneshot::channel();
                            tx.send(done).map_err(|_| gone)?;
                            wait.await.map_err(|_| gone)
                        }
                    };
                    axum::Router::new().route("/", axum::routing::get(ack.clone()).post(ack))
                }
            };
            let l = tokio::net::TcpListener::bind(&addr).await?;
            axum::serve(l, app).await?;
            Ok(())
        }),
        Cmd::Suite { bin, work, records, value_bytes, secs, reuse } => rt.block_on(suite(&bin, &work, records, value_bytes, secs, reuse)),
        Cmd::Users { bin, work, count, secs, reuse } => rt.block_on(users_bench(&bin, &work, count, secs, reuse)),
    }
}

/// The writer thread of `bench hello --durable`: takes every request waiting, appends one 200-byte record for
/// each, `fdatasync`s once, then answers them all.
fn durable_writer(dir: &Path) -> anyhow::Result<std::sync::mpsc::Sender<tokio::sync::oneshot::Sender<&'static str>>> {
    use std::io::Write;
    let path = dir.join(".bench-hello-durable");
    let mut f = std::fs::OpenOptions::new().create(true).truncate(true).write(true).open(&path)?;
    let (tx, rx) = std::sync::mpsc::channel::<tokio::sync::oneshot::Sender<&'static str>>();
    std::thread::Builder::new().name("hello-writer".into()).spawn(move || {
        let rec = [7u8; 200];
        let mut written = 0u64;
        while let Ok(first) = rx.recv() {
            let mut batch = vec![first];
            batch.extend(rx.try_iter());
            let mut ok = batch.iter().all(|_| f.write_all(&rec).is_ok());
            ok = ok && f.sync_data().is_ok();
            if !ok {
                // Dropping the batch's senders answers them with an error; the writer stops.
                eprintln!("bench hello --durable: appending to or syncing {} failed", path.display());
                break;
            }
            written += batch.len() as u64;
            // Start again at 64 MiB so that a long run does not fill the disk.
            if written * 200 > 64 << 20 {
                if f.set_len(0).and_then(|_| std::io::Seek::rewind(&mut f)).is_err() {
                    eprintln!("bench hello --durable: truncating {} failed", path.display());
                    break;
                }
                written = 0;
            }
            for done in batch {
                let _ = done.send("durable");
            }
        }
        let _ = std::fs::remove_file(&path);
    })?;
    Ok(tx)
}

fn free_addr() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

struct Proc(Child);
impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(bin: &Path, dir: &Path, addr: &str) -> anyhow::Result<Proc> {
    Ok(Proc(
        Command::new(bin)
            .args(["serve", "--http", addr, "--dir"])
            .arg(dir)
            .env("ZZ_ADMIN_PASSWORD", PW)
            .env("ZZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?,
    ))
}

async fn wait_ready(addr: &str, path: &str) -> Duration {
    let t = Instant::now();
    loop {
        if let Ok((200, _)) = load::once(addr, "GET", path, &[]).await {
            return t.elapsed();
        }
        if t.elapsed() > Duration::from_secs(120) {
            panic!("server at {addr} never answered");
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

fn stop(p: &mut Proc) {
    let _ = Command::new("kill").args(["-TERM", &p.0.id().to_string()]).status();
    let _ = p.0.wait();
}

fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

async fn sign_in(addr: &str) -> anyhow::Result<(String, Duration)> {
    sign_in_as(addr, "admin", PW).await
}

async fn sign_in_as(addr: &str, account: &str, pw: &str) -> anyhow::Result<(String, Duration)> {
    let md5 = format!("{:032x}", md5_of(pw));
    let path = format!("/api/blade-auth/oauth/token?tenantId=157270&username={account}&password={md5}&grant_type=password&scope=all");
    let t = Instant::now();
    let (s, body) = load::once(addr, "POST", &path, &[("authorization", "Basic c2FiZXI6c2FiZXJfc2VjcmV0")]).await?;
    let took = t.elapsed();
    anyhow::ensure!(s == 200, "sign-in failed: {body}");
    let v: serde_json::Value = serde_json::from_str(&body)?;
    Ok((v["access_token"].as_str().unwrap_or("").to_string(), took))
}

fn md5_of(s: &str) -> u128 {
    // md5 via the system tool keeps the bench free of another crypto dependency.
    let out = Command::new("sh").arg("-c").arg(format!("printf '%s' '{s}' | md5sum")).output().expect("md5sum");
    u128::from_str_radix(String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or("0"), 16).unwrap_or(0)
}

async fn suite(bin: &Path, work: &Path, records: u64, value_bytes: usize, secs: u64, reuse: bool) -> anyhow::Result<()> {
    let me = std::env::current_exe()?;
    let dur = Duration::from_secs(secs);
    let mut lines = vec![format!("machine: {} cores; load generator and server share them", std::thread::available_parallelism()?.get())];

    // Baseline: a plain hello-world handler, same machine, same load generator.
    let hello_addr = free_addr();
    let _hello = Proc(Command::new(&me).args(["hello", &hello_addr]).spawn()?);
    wait_ready(&hello_addr, "/").await;
    let spec = |addr: &str, method: &str, path: &str, body: Option<&str>, token: Option<&str>| load::Spec {
        addr: addr.to_string(),
        method: method.to_string(),
        path: path.to_string(),
        body: body.map(str::to_string),
        bodies: Vec::new(),
        headers: token.map(|t| vec![("blade-auth".to_string(), format!("bearer {t}"))]).unwrap_or_default(),
        conns: 64,
        duration: dur,
        once: false,
        rate: None,
        open: false,
    };
    let hello = load::run(spec(&hello_addr, "GET", "/", None, None)).await?;
    lines.push(hello.line("hello-world baseline, 64 conns"));
    let hello1 = load::run(load::Spec { conns: 1, ..spec(&hello_addr, "GET", "/", None, None) }).await?;
    lines.push(hello1.line("hello-world baseline, 1 conn"));
    drop(_hello);

    // The data file: seeded by the real binary, then filled by the generator.
    let dir = work.join("data");
    let file = dir.join("zhizhuang.redb");
    if !reuse {
        let _ = std::fs::remove_dir_all(work);
        std::fs::create_dir_all(&dir)?;
        let addr = free_addr();
        let mut p = serve(bin, &dir, &addr)?;
        wait_ready(&addr, "/api/health").await;
        stop(&mut p);
        let t = Instant::now();
        datagen::params(&file, "157270", records, value_bytes)?;
        lines.push(format!("generated {records} parameter records in {:.1}s", t.elapsed().as_secs_f64()));
    }
    let size_mb = std::fs::metadata(&file)?.len() as f64 / 1048576.0;
    lines.push(format!("data file: {size_mb:.0} MiB"));

    // Cold start to the first 200 (page cache warm from the generator: the honest cold-cache figure needs
    // root to drop caches; see bench/README.md).
    let addr = free_addr();
    let t = Instant::now();
    let mut server = serve(bin, &dir, &addr)?;
    wait_ready(&addr, "/api/health").await;
    lines.push(format!("cold start to first 200: {:.0} ms", t.elapsed().as_secs_f64() * 1000.0));
    tokio::time::sleep(Duration::from_secs(3)).await;
    lines.push(format!("idle RSS after start: {:.1} MiB", rss_mb(server.0.id())));

    let mut signins = Vec::new();
    let mut token = String::new();
    for _ in 0..10 {
        let (t, took) = sign_in(&addr).await?;
        token = t;
        signins.push(took.as_secs_f64() * 1000.0);
    }
    signins.sort_by(f64::total_cmp);
    lines.push(format!("sign-in (sequential, 10): p50={:.0} ms max={:.0} ms", signins[5], signins[9]));

    let list = load::run(spec(&addr, "GET", "/api/blade-system/param/list?current=1&size=20", None, Some(&token))).await?;
    lines.push(list.line(&format!("param list 20 rows + total over {records} records, 64 conns")));
    let miss = load::run(spec(&addr, "GET", "/api/blade-system/param/list?current=1&size=20&_t={n}", None, Some(&token))).await?;
    lines.push(miss.line("same list, answer cache defeated (a new `_t` each request)"));
    let (r, w) = tokio::join!(
        load::run(load::Spec { conns: 48, ..spec(&addr, "GET", "/api/blade-system/param/list?current=1&size=20", None, Some(&token)) }),
        load::run(load::Spec {
            conns: 16,
            ..spec(&addr, "POST", "/api/blade-system/param/submit", Some(r#"{"paramName":"混合{n}","paramKey":"mix.{n}","paramValue":"v"}"#), Some(&token))
        })
    );
    lines.push(r?.line("mixed: list (48 conns) while creates run (16 conns) — list side"));
    lines.push(w?.line("mixed: creates side"));
    // Text filters walk every record until the search index answers them: they are bounded (a deadline, one
    // walk slot per spare core) so the other requests keep their latency. paramName=参数123 matches 0.22%.
    let (_, first) = get_json(&addr, "/api/blade-system/param/list?current=1&size=1", &token).await?;
    let first: serde_json::Value = serde_json::from_str(&first)?;
    let id = first["data"]["records"][0]["id"].as_str().unwrap_or("0").to_string();
    let base_list = load::run(load::Spec { conns: 8, ..spec(&addr, "GET", "/api/blade-system/param/list?current=1&size=20", None, Some(&token)) }).await?;
    lines.push(base_list.line("quiet: list (8 conns)"));
    let base_detail = load::run(load::Spec { conns: 8, ..spec(&addr, "GET", &format!("/api/blade-system/param/detail?id={id}"), None, Some(&token)) }).await?;
    lines.push(base_detail.line("quiet: detail (8 conns)"));
    let scan_path = "/api/blade-system/param/list?paramName=%E5%8F%82%E6%95%B0123&current=1&size=10";
    let (s, l, d) = tokio::join!(
        load::run(load::Spec { conns: 16, duration: dur + Duration::from_secs(6), ..spec(&addr, "GET", scan_path, None, Some(&token)) }),
        load::run(load::Spec { conns: 8, ..spec(&addr, "GET", "/api/blade-system/param/list?current=1&size=20", None, Some(&token)) }),
        load::run(load::Spec { conns: 8, ..spec(&addr, "GET", &format!("/api/blade-system/param/detail?id={id}"), None, Some(&token)) }),
    );
    lines.push(s?.line("contains filter paramName=参数123 (16 conns; errors = 503 past the walk deadline)"));
    lines.push(l?.line("… list (8 conns) meanwhile"));
    lines.push(d?.line("… detail (8 conns) meanwhile"));
    let deep = load::run(spec(&addr, "GET", "/api/blade-system/param/list?current=50&size=20&descs=paramKey", None, Some(&token))).await?;
    lines.push(deep.line("param list page 50 sorted by paramKey desc, 64 conns"));
    lines.push(format!("idle-to-loaded RSS: {:.1} MiB", rss_mb(server.0.id())));

    let body = r#"{"paramName":"压测{n}","paramKey":"load.{n}","paramValue":"value {n}"}"#;
    let creates = load::run(spec(&addr, "POST", "/api/blade-system/param/submit", Some(body), Some(&token))).await?;
    lines.push(creates.line("durable creates (fsync before answer), 64 conns"));
    let body1 = r#"{"paramName":"单连接{n}","paramKey":"one.{n}","paramValue":"value {n}"}"#;
    let one = load::run(load::Spec { conns: 1, ..spec(&addr, "POST", "/api/blade-system/param/submit", Some(body1), Some(&token)) }).await?;
    lines.push(one.line("durable creates one after another, 1 conn"));

    // Online backup while creates keep running.
    let body2 = r#"{"paramName":"备份中{n}","paramKey":"during.{n}","paramValue":"v"}"#;
    let mut during = spec(&addr, "POST", "/api/blade-system/param/submit", Some(body2), Some(&token));
    during.duration = Duration::from_secs(600);
    during.conns = 16;
    let out = work.join("backup.redb");
    let _ = std::fs::remove_file(&out);
    let (bin2, dir2, out2) = (bin.to_path_buf(), dir.clone(), out.clone());
    let writer = tokio::spawn(load::run(load::Spec { duration: Duration::from_secs(120), ..during }));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let t = Instant::now();
    let live_before = std::fs::metadata(&file)?.len() as f64 / 1048576.0;
    let res = tokio::task::spawn_blocking(move || Command::new(bin2).args(["backup", "--dir"]).arg(dir2).arg("--out").arg(out2).output()).await??;
    let backup_secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(res.status.success(), "backup failed: {}", String::from_utf8_lossy(&res.stderr));
    let live_after = std::fs::metadata(&file)?.len() as f64 / 1048576.0;
    writer.abort();
    let during = writer.await.ok().and_then(Result::ok);
    lines.push(format!(
        "online backup while creates run (16 conns{}): {backup_secs:.1} s, backup file {:.0} MiB; live file {live_before:.0} → {live_after:.0} MiB",
        during.map(|d| format!(", {:.0} creates/s", d.rps())).unwrap_or_default(),
        std::fs::metadata(&out)?.len() as f64 / 1048576.0
    ));
    stop(&mut server);

    lines.push(format!(
        "ratios to hello-world: list p50 {:.1}x, list throughput {:.2}x, create throughput {:.2}x",
        list.p50_ms / hello.p50_ms.max(0.001),
        list.rps() / hello.rps(),
        creates.rps() / hello.rps()
    ));
    println!("\n== results");
    for l in &lines {
        println!("{l}");
    }
    Ok(())
}

async fn get_json(addr: &str, path: &str, token: &str) -> anyhow::Result<(u16, String)> {
    use http_body_util::{BodyExt, Empty};
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, c) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(c);
    let req = hyper::Request::get(path)
        .header("host", addr)
        .header("blade-auth", format!("bearer {token}"))
        .body(Empty::<hyper::body::Bytes>::new())?;
    let resp = sender.send_request(req).await?;
    let status = resp.status().as_u16();
    Ok((status, String::from_utf8_lossy(&resp.into_body().collect().await?.to_bytes()).into_owned()))
}

async fn post_json(addr: &str, path: &str, token: &str, body: &str) -> anyhow::Result<(u16, String)> {
    use http_body_util::{BodyExt, Full};
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, c) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await?;
    tokio::spawn(c);
    let req = hyper::Request::post(path)
        .header("host", addr)
        .header("content-type", "application/json")
        .header("blade-auth", format!("bearer {token}"))
        .body(Full::new(hyper::body::Bytes::from(body.to_string())))?;
    let resp = sender.send_request(req).await?;
    let status = resp.status().as_u16();
    Ok((status, String::from_utf8_lossy(&resp.into_body().collect().await?.to_bytes()).into_owned()))
}

async fn users_bench(bin: &Path, work: &Path, count: u64, secs: u64, reuse: bool) -> anyhow::Result<()> {
    let dur = Duration::from_secs(secs);
    let mut lines = Vec::new();
    let me = std::env::current_exe()?;
    let hello_addr = free_addr();
    let hello_proc = Proc(Command::new(&me).args(["hello", &hello_addr]).spawn()?);
    wait_ready(&hello_addr, "/").await;
    let hello = load::run(load::Spec { addr: hello_addr.clone(), method: "GET".into(), path: "/".into(), body: None, bodies: Vec::new(), headers: vec![], conns: 64, duration: dur, once: false, rate: None, open: false }).await?;
    lines.push(hello.line("hello-world baseline, 64 conns"));
    drop(hello_proc);

    let dir = work.join("data");
    let addr = free_addr();
    let org: datagen::Org = if reuse {
        serde_json::from_slice(&std::fs::read(work.join("org.json"))?)?
    } else {
        let _ = std::fs::remove_dir_all(work);
        std::fs::create_dir_all(&dir)?;
        let mut p = serve(bin, &dir, &addr)?;
        wait_ready(&addr, "/api/health").await;
        stop(&mut p);
        let t = Instant::now();
        let org = datagen::users(&dir.join("zhizhuang.redb"), "157270", count)?;
        lines.push(format!("generated {count} users over 1,111 departments in {:.1}s", t.elapsed().as_secs_f64()));
        std::fs::write(work.join("org.json"), serde_json::to_vec(&org)?)?;
        org
    };
    lines.push(format!("data file: {:.0} MiB", std::fs::metadata(dir.join("zhizhuang.redb"))?.len() as f64 / 1048576.0));

    let mut server = serve(bin, &dir, &addr)?;
    wait_ready(&addr, "/api/health").await;
    let (admin, _) = sign_in(&addr).await?;
    let body = format!(
        r#"{{"account":"viewer","name":"查看员","realName":"查看员","password":"Viewer#2026","password2":"Viewer#2026","deptId":"{}","roleId":"{}"}}"#,
        org.division, org.role
    );
    let (s, b) = post_json(&addr, "/api/blade-user/submit", &admin, &body).await?;
    anyhow::ensure!(s == 200 || (reuse && b.contains("account")), "creating the viewer failed: {b}");
    let (viewer, _) = sign_in_as(&addr, "viewer", "Viewer#2026").await?;
    let path = format!("/api/blade-user/page?current=1&size=20&deptId={}", org.dept);
    let (s, b) = load::once(&addr, "GET", &path, &[("blade-auth", &format!("bearer {viewer}"))]).await?;
    anyhow::ensure!(s == 200, "page failed: {b}");
    let v: serde_json::Value = serde_json::from_str(&b)?;
    lines.push(format!("viewer (data scope 4 on a division) filtering one department: total {} users", v["data"]["total"]));
    let spec = |path: String, conns: usize| load::Spec {
        addr: addr.clone(),
        method: "GET".into(),
        path,
        body: None,
        bodies: Vec::new(),
        headers: vec![("blade-auth".to_string(), format!("bearer {viewer}"))],
        conns,
        duration: dur,
        once: false,
        rate: None,
        open: false,
    };
    let r = load::run(spec(path.clone(), 64)).await?;
    lines.push(r.line("user page, dept filter + data scope 4, 1,000,000 users, 64 conns"));
    let miss = load::run(spec(format!("/api/blade-user/page?current={{n}}&size=20&deptId={}", org.dept), 64)).await?;
    lines.push(miss.line("same with a different page each request (answer cache always missed), 64 conns"));
    let one = load::run(spec(format!("/api/blade-user/page?current={{n}}&size=20&deptId={}", org.dept), 1)).await?;
    lines.push(one.line("cache-missed page, 1 connection (the cost of one request)"));
    stop(&mut server);
    lines.push(format!("ratio to hello-world: p50 {:.1}x", r.p50_ms / hello.p50_ms.max(0.001)));
    println!("\n== results");
    for l in &lines {
        println!("{l}");
    }
    Ok(())
}

async fn findable(addr: &str, token: &str, conns: usize, secs: u64) -> anyhow::Result<()> {
    let auth = format!("bearer {token}");
    let headers = vec![("blade-auth".to_string(), auth.clone())];
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_millis();
    let body = format!(r#"{{"paramName":"负载参数{{n}}","paramKey":"load{stamp}.{{n}}","paramValue":"v"}}"#);
    let spec = load::Spec { addr: addr.to_string(), method: "POST".into(), path: "/api/blade-system/param/submit".into(), body: Some(body), bodies: Vec::new(), headers, conns, duration: Duration::from_secs(secs), once: false, rate: None, open: false };
    let load = tokio::spawn(load::run(spec));
    let h = [("blade-auth", auth.as_str())];
    let until = Instant::now() + Duration::from_secs(secs.saturating_sub(2).max(1));
    let mut lat = Vec::new();
    let mut missed = 0;
    let mut i = 0u64;
    tokio::time::sleep(Duration::from_millis(500)).await;
    while Instant::now() < until {
        i += 1;
        let key = format!("probe{stamp}x{i}");
        let body = format!(r#"{{"paramName":"探针{key}","paramKey":"{key}","paramValue":"v"}}"#);
        let (s, b) = load::once_body(addr, "POST", "/api/blade-system/param/submit", &h, &body).await?;
        anyhow::ensure!(s == 200, "probe create answered {s}: {b}");
        let acked = Instant::now();
        let path = format!("/api/blade-search/search?resources=param&size=1&q={key}");
        let mut found = false;
        while acked.elapsed() < Duration::from_secs(10) {
            let (s, b) = load::once(addr, "GET", &path, &h).await?;
            if s == 200 && !b.contains("\"total\":0") {
                found = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        if found { lat.push(acked.elapsed().as_secs_f64() * 1000.0) } else { missed += 1 }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let report = load.await??;
    lat.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| lat.get(((lat.len() as f64 * p).ceil() as usize).saturating_sub(1).min(lat.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
    println!("{}", report.line("creates under probe"));
    println!(
        "findable after create: probes={} not found in 10 s={} p50={:.0}ms p90={:.0}ms p99={:.0}ms max={:.0}ms",
        lat.len(),
        missed,
        pct(0.5),
        pct(0.9),
        pct(0.99),
        lat.last().copied().unwrap_or(f64::NAN)
    );
    Ok(())
}
