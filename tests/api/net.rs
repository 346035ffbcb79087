//! Driving the real binary: start `zhizhuang serve` on a free loopback port, and a minimal HTTP/1 client.
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;

pub const BIN: &str = env!("CARGO_BIN_EXE_zhizhuang");
pub const PW: &str = "Crash#Test1";

pub struct Server {
    pub child: Child,
    pub addr: String,
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Server {
    pub async fn start(dir: &Path) -> Server {
        Self::start_with(dir, &[], &[]).await
    }

    /// `serve` with more arguments and environment variables.
    pub async fn start_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
        let addr = format!("127.0.0.1:{}", free_port());
        let child = Command::new(BIN)
            .args(["serve", "--http", &addr, "--dir"])
            .arg(dir)
            .args(args)
            .env("ZZ_ADMIN_PASSWORD", PW)
            .env("ZZ_LOG", "warn")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let s = Server { child, addr };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            // Started: it serves reads (a fenced primary or a failed disk answers /api/health 503, and still reads).
            if let Ok((200, _)) = request(&s.addr, "GET", "/api/ready", &[], "").await {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("server did not start");
    }

    pub fn kill9(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then wait for a clean exit.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().unwrap();
        self.child.wait().unwrap()
    }

    pub async fn sign_in(&self, tenant: &str) -> String {
        let md5 = zhizhuang::auth::password::md5_hex(PW);
        let path = format!("/api/blade-auth/oauth/token?tenantId={tenant}&username=admin&password={md5}&grant_type=password");
        let (s, body) = request(&self.addr, "POST", &path, &[("authorization", crate::support::BASIC)], "").await.unwrap();
        assert_eq!(s, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["access_token"].as_str().unwrap().to_string()
    }

    /// Waits until the search index is built and holds every write so far (the status screen's figures).
    pub async fn wait_indexed(&self) {
        let p = self.sign_in("000000").await;
        for _ in 0..600 {
            let (_, body) = request(&self.addr, "GET", "/api/blade-system/status", &[("blade-auth", &format!("bearer {p}"))], "").await.unwrap();
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            let ix = &v["data"]["index"];
            if ix["ready"] == true && ix["seq"].as_u64() >= ix["storeSeq"].as_u64() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the search index did not catch up");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One request on a new connection. Errors are connection failures (a killed server).
pub async fn request(addr: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Result<(u16, String), String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| e.to_string())?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let mut b = Request::builder().method(method).uri(path).header("host", addr);
    if !body.is_empty() {
        b = b.header("content-type", "application/json");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let resp = sender.send_request(b.body(Full::new(bytes::Bytes::from(body.to_string()))).unwrap()).await.map_err(|e| e.to_string())?;
    let status = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

/// Runs the binary with arguments; returns (exit code, stdout + stderr).
pub fn run(args: &[&str]) -> (i32, String) {
    run_with(args, &[])
}

/// `run` with environment variables.
pub fn run_with(args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let out = Command::new(BIN).args(args).envs(env.iter().copied()).output().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}
