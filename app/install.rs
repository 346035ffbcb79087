//! `zhizhuang install` / `uninstall`: the server as a systemd service in one command, as the one administrator of
//! a small company would want it. Install (as root) creates the system user, the data directory (0700, the
//! user's), an environment file for settings and secrets (`/etc/zhizhuang/zhizhuang.env`, 0600: the first
//! administrator password, the secret key), copies the binary to `/usr/local/bin` and this README to
//! `/usr/local/share/doc/zhizhuang`, writes a hardened unit and starts it, then prints the addresses and where the
//! first password is. Served on the network it is HTTPS unless told otherwise: without `--https` or
//! `--insecure-http` it makes a local certificate authority and a certificate for this machine's name and address
//! (`crate::cert`), so no password crosses the office network readable. Uninstall stops and removes the unit and
//! the binary and keeps the data and the environment file. `--root` writes everything under a staging directory
//! instead (packaging, tests) and runs no system command.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

pub const UNIT: &str = "zhizhuang.service";

/// What `install` sets up.
#[derive(Debug, Clone)]
pub struct Plan {
    pub dir: PathBuf,
    pub http: String,
    pub https: Option<String>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub user: String,
    pub bin: PathBuf,
    pub env_file: PathBuf,
    /// More names and addresses for the certificate `install` makes (besides this machine's own).
    pub hosts: Vec<String>,
    /// Plain HTTP on the network, as asked (behind the company's own TLS proxy).
    pub insecure_http: bool,
}

impl Plan {
    /// Ports below 1024 need the one capability to bind them; nothing else is kept.
    fn low_port(&self) -> bool {
        let port = |a: &str| a.rsplit(':').next().and_then(|p| p.parse::<u16>().ok()).unwrap_or(8090);
        port(&self.http) < 1024 || self.https.as_deref().is_some_and(|a| port(a) < 1024)
    }
}

/// The unit: the service runs as its own user with the usual hardening; the data directory is the only place it
/// writes; a stop gives the writer time to finish (SIGTERM drains requests and closes the files).
pub fn unit_text(p: &Plan) -> String {
    let caps = if p.low_port() { "CapabilityBoundingSet=CAP_NET_BIND_SERVICE\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n" } else { "CapabilityBoundingSet=\n" };
    let mut read_only = String::new();
    for f in [&p.tls_cert, &p.tls_key].into_iter().flatten() {
        if !f.starts_with(&p.dir) {
            read_only.push_str(&format!("ReadOnlyPaths=-{}\n", f.display()));
        }
    }
    format!(
        "[Unit]
Description=智装 Zhizhuang back-office
Documentation=file://{doc}
After=network-online.target
Wants=network-online.target

[Service]
Type=simple
User={user}
Group={user}
EnvironmentFile={env}
ExecStart={bin} serve
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5
# SIGTERM: stop accepting, finish the requests under way, checkpoint and close the files.
KillSignal=SIGTERM
TimeoutStopSec=90
LimitNOFILE=65536
UMask=0077
NoNewPrivileges=yes
ProtectSystem=strict
ReadWritePaths={dir} -{backups}
{read_only}ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
MemoryDenyWriteExecute=yes
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX
SystemCallArchitectures=native
{caps}
[Install]
WantedBy=multi-user.target
",
        dir = p.dir.display(),
        doc = DOC_FILE,
        backups = BACKUP_DIR,
        user = p.user,
        env = p.env_file.display(),
        bin = p.bin.display(),
    )
}

/// The environment file: where the server listens and keeps its data, the first administrator password (only
/// used on the first start), and the secret key (kept here as well as in the data directory: a restored or new
/// data directory on this machine still opens the companies' secrets).
pub fn env_text(p: &Plan, admin_password: &str, secret_key: &str) -> String {
    let mut s = format!(
        "# 智装 Zhizhuang: settings of the service (read by systemd as root; readable by root only).\n\
         # Every flag of `zhizhuang serve --help` has a ZZ_* variable.\n\
         ZZ_DIR={}\nZZ_HTTP={}\n",
        p.dir.display(),
        p.http
    );
    if let (Some(h), Some(c), Some(k)) = (&p.https, &p.tls_cert, &p.tls_key) {
        s.push_str(&format!("ZZ_HTTPS={h}\nZZ_TLS_CERT={}\nZZ_TLS_KEY={}\n", c.display(), k.display()));
    } else if p.insecure_http && !loopback(&p.http) {
        s.push_str("# Plain HTTP on the network (`install --insecure-http`): passwords cross it readable by anyone on\n# it. Only behind your own TLS proxy; else `zhizhuang cert --host <address>`, then ZZ_HTTPS, ZZ_TLS_CERT, ZZ_TLS_KEY.\nZZ_INSECURE_HTTP=1\n");
    }
    s.push_str(&format!(
        "# The first administrators' password (every tenant's `admin`), used only when the data file is created;\n\
         # each administrator sets his own at the first sign-in.\nZZ_ADMIN_PASSWORD={admin_password}\nZZ_ADMIN_PASSWORD_ONCE=1\n\
         # The key that seals the companies' secrets and signs tokens: keep a copy with your backups.\n\
         ZZ_SECRET_KEY={secret_key}\n"
    ));
    s
}

fn under(root: Option<&Path>, p: &Path) -> PathBuf {
    match root {
        Some(r) => r.join(p.strip_prefix("/").unwrap_or(p)),
        None => p.to_path_buf(),
    }
}

fn run(cmd: &mut Command, what: &str) -> anyhow::Result<()> {
    let out = cmd.output().with_context(|| format!("{what}: could not run it"))?;
    if !out.status.success() {
        bail!("{what} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

fn write_mode(path: &Path, text: &str, mode: u32) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d)?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(mode).open(&tmp).with_context(|| format!("write {}", tmp.display()))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(())
}

/// A system directory (`/usr/local/share/doc/zhizhuang`, `/usr/local/bin`): the ones missing are made readable by
/// everyone (0755), whatever this process's umask (0077, for the data files).
fn public_dir(d: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut missing = Vec::new();
    let mut at = Some(d);
    while let Some(p) = at.filter(|p| !p.as_os_str().is_empty() && !p.exists()) {
        missing.push(p.to_path_buf());
        at = p.parent();
    }
    for p in missing.iter().rev() {
        std::fs::create_dir(p).with_context(|| format!("create {}", p.display()))?;
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

fn is_root() -> bool {
    #[cfg(target_os = "linux")]
    {
        rustix::process::geteuid().is_root()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The service's backup directory: `zhizhuang backup --out` of a running service writes here (owned by the
/// service's user, private).
pub const BACKUP_DIR: &str = "/var/backups/zhizhuang";
/// The service's settings and secrets (root only).
pub const ENV_FILE: &str = "/etc/zhizhuang/zhizhuang.env";
/// Where the binary goes, so that the unit outlives the download folder.
pub const BIN_FILE: &str = "/usr/local/bin/zhizhuang";
/// The README, which the unit's `Documentation=` names (`systemctl help zhizhuang`).
pub const DOC_FILE: &str = "/usr/local/share/doc/zhizhuang/README.md";
const README: &str = include_str!("../README.md");
/// The HTTPS port `install` serves on when it makes the certificate itself.
const HTTPS_PORT: u16 = 8443;

fn loopback(addr: &str) -> bool {
    addr.starts_with("127.") || addr.starts_with("[::1]") || addr.starts_with("localhost")
}

/// A name a certificate can carry (what `cert::make` accepts).
fn certifiable(h: &str) -> bool {
    !h.is_empty() && (h.parse::<std::net::IpAddr>().is_ok() || h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'))
}

/// The names people may type to reach this machine: the asked ones first, then its host name, the address its
/// default route leaves from (a UDP socket "connected" to a documentation address sends nothing), the address it
/// was told to listen on, and localhost for the administrator on the machine itself.
fn this_machine(asked: &[String], http: &str) -> Vec<String> {
    let mut v: Vec<String> = asked.to_vec();
    if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        v.push(h.trim().to_string());
    }
    v.extend(local_addresses(&std::fs::read_to_string("/proc/net/fib_trie").unwrap_or_default()));
    if let Ok(sock) = std::net::UdpSocket::bind("0.0.0.0:0")
        && sock.connect("192.0.2.1:9").is_ok()
        && let Ok(a) = sock.local_addr()
        && !a.ip().is_unspecified() {
        v.push(a.ip().to_string());
    }
    if let Ok(a) = http.parse::<std::net::SocketAddr>()
        && !a.ip().is_unspecified() {
        v.push(a.ip().to_string());
    }
    v.extend(["localhost".to_string(), "127.0.0.1".to_string()]);
    let mut seen = std::collections::HashSet::new();
    v.retain(|h| certifiable(h) && h != "localhost.localdomain" && seen.insert(h.clone()));
    v
}

/// This machine's own IPv4 addresses but loopback (`/proc/net/fib_trie`'s `/32 host LOCAL` entries): every
/// interface's, so a machine whose LAN has no default route still has its address in the certificate.
fn local_addresses(fib_trie: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut last: Option<&str> = None;
    for line in fib_trie.lines() {
        let t = line.trim_start();
        if let Some(a) = t.strip_prefix("|-- ") {
            last = Some(a.trim());
        } else if t.starts_with("/32 host LOCAL")
            && let Some(a) = last
            && let Ok(ip) = a.parse::<std::net::Ipv4Addr>()
            && !ip.is_loopback()
            && !out.contains(&a.to_string()) {
            out.push(a.to_string());
        }
    }
    out
}

/// An address `serve` will take (`ZZ_HTTP`, `ZZ_HTTPS`): an IP and a port. Checked here, so that an install
/// never leaves a service that cannot start.
fn check_addr(flag: &str, a: &str) -> anyhow::Result<std::net::SocketAddr> {
    a.parse::<std::net::SocketAddr>()
        .ok()
        .filter(|s| s.port() != 0)
        .ok_or_else(|| anyhow::anyhow!("{flag} {a}: give an IP address and a port, like 0.0.0.0:8090 (every address of this machine) or 192.168.1.10:8090"))
}

/// The settings an earlier install wrote (`KEY=value` lines), which a second install keeps.
fn env_values(text: &str) -> std::collections::HashMap<String, String> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect()
}

/// `zhizhuang install`.
pub fn install(mut p: Plan, root: Option<&Path>, start: bool) -> anyhow::Result<()> {
    if root.is_none() && !is_root() {
        bail!("install sets up a system service: run it as root (sudo zhizhuang install …)");
    }
    if p.tls_cert.is_some() != p.tls_key.is_some() || (p.tls_cert.is_some() && p.https.is_none()) {
        bail!("your own certificate needs --https ADDR, --tls-cert FILE and --tls-key FILE together (without them install makes one)");
    }
    if p.https.is_some() && p.insecure_http {
        bail!("--insecure-http is for plain HTTP without --https: with --https the --http address only redirects to it");
    }
    let http = check_addr("--http", &p.http)?;
    if let Some(h) = &p.https {
        let https = check_addr("--https", h)?;
        if https.port() == http.port() {
            bail!("--http and --https need different ports ({} and {h})", p.http);
        }
    } else if !p.insecure_http && !loopback(&p.http) && http.port() == HTTPS_PORT {
        bail!("--http {}: port {HTTPS_PORT} is where install serves HTTPS; give --http another port, or --https with the address you want", p.http);
    }
    // systemd is what starts, restarts and stops the service; without it (a container, an init without it) the
    // rest is still set up, and the end says how to start the server by hand.
    let systemd = root.is_none() && Path::new("/run/systemd/system").is_dir();
    if root.is_none() && !systemd {
        println!("systemd is not running on this machine (no /run/systemd/system): the user, the data directory, the settings and the unit are set up, the service is not started (how to start it by hand is printed at the end)");
    }
    let target_bin = PathBuf::from(BIN_FILE);
    let me = std::env::current_exe().context("where is this binary")?;
    let bin_dest = under(root, &target_bin);
    if std::fs::canonicalize(&me).ok() != std::fs::canonicalize(&bin_dest).ok() {
        if let Some(d) = bin_dest.parent() {
            public_dir(d)?;
        }
        let tmp = bin_dest.with_extension("new");
        std::fs::copy(&me, &tmp).with_context(|| format!("copy the binary to {}", bin_dest.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
        std::fs::rename(&tmp, &bin_dest).with_context(|| format!("put the binary at {}", bin_dest.display()))?;
        println!("copied the binary to {}", bin_dest.display());
    }
    p.bin = target_bin;
    let doc = under(root, Path::new(DOC_FILE));
    if let Some(d) = doc.parent() {
        public_dir(d)?;
    }
    write_mode(&doc, README, 0o644)?;
    // The system user.
    if root.is_none() && Command::new("id").arg("-u").arg(&p.user).output().map(|o| !o.status.success()).unwrap_or(true) {
        run(Command::new("useradd").args(["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "--home-dir"]).arg(&p.dir).arg(&p.user), "useradd")?;
        println!("created the system user {}", p.user);
    }
    // The data directory: private to the user.
    let data = under(root, &p.dir);
    crate::admin::private_dir(&data).with_context(|| format!("make the data directory {}", data.display()))?;
    // Where `zhizhuang backup` of the running service writes: the service may write only its data directory and
    // this one (the unit's ReadWritePaths; it never sees /tmp as the admin does).
    let backups = under(root, Path::new(BACKUP_DIR));
    crate::admin::private_dir(&backups).with_context(|| format!("make the backup directory {}", backups.display()))?;
    // The environment file: made once (the password and key it holds must not change under a running install);
    // a second install keeps it and the addresses it names.
    let env = under(root, &p.env_file);
    let first = !env.exists();
    let mut made_ca = None;
    if first {
        // On the network and not told otherwise: HTTPS with a certificate of a local authority made here.
        // (--https without a certificate of yours: the same, at that address.) The authority stays root's, in
        // /etc/zhizhuang/tls; the service gets the server's certificate and key alone.
        if p.tls_cert.is_none() && (p.https.is_some() || (!p.insecure_http && !loopback(&p.http))) {
            let hosts = this_machine(&p.hosts, &p.http);
            let made = crate::cert::make_with(&under(root, Path::new(crate::cert::INSTALL_CA_DIR)), &data.join("tls"), &hosts)?;
            if p.https.is_none() {
                p.https = Some(std::net::SocketAddr::new(http.ip(), HTTPS_PORT).to_string());
            }
            p.tls_cert = Some(p.dir.join("tls/server.crt"));
            p.tls_key = Some(p.dir.join("tls/server.key"));
            println!("made a certificate for {} signed by a local certificate authority ({}; it may sign only for this office's names and addresses)", hosts.join(", "), made.ca.display());
            made_ca = Some((made.ca, hosts));
        }
        if std::fs::metadata(crate::admin::data_file(&data)).is_ok() {
            println!("the data directory already holds a data file: its accounts keep their passwords (ZZ_ADMIN_PASSWORD applies to a new data file only; `zhizhuang admin passwd` resets one)");
        }
        let key = match crate::secrets::Secrets::load(&data) {
            // A data directory that already has a key keeps it.
            Ok(_) => std::fs::read_to_string(crate::secrets::key_path(&data)).map(|k| k.trim().to_string()).unwrap_or_default(),
            Err(e) => return Err(e),
        };
        let password = format!("Zz#{}", crate::auth::token::random_hex(6));
        write_mode(&env, &env_text(&p, &password, &key), 0o600)?;
        println!("wrote {} (settings, the first password, the secret key; root only)", env.display());
    } else {
        let text = std::fs::read_to_string(&env).with_context(|| format!("read {}", env.display()))?;
        let v = env_values(&text);
        let asked = (p.http.clone(), p.https.clone(), p.insecure_http);
        if let Some(h) = v.get("ZZ_HTTP") {
            p.http = h.clone();
        }
        p.https = v.get("ZZ_HTTPS").cloned();
        p.tls_cert = v.get("ZZ_TLS_CERT").map(PathBuf::from);
        p.tls_key = v.get("ZZ_TLS_KEY").map(PathBuf::from);
        p.insecure_http = v.get("ZZ_INSECURE_HTTP").is_some_and(|x| x == "1");
        println!("kept the existing {} and the addresses it names", env.display());
        if (asked.0 != p.http && asked.0 != "0.0.0.0:8090") || (asked.1.is_some() && asked.1 != p.https) || (asked.2 && !p.insecure_http) {
            println!("  (the addresses given now are not used: change ZZ_HTTP, ZZ_HTTPS or ZZ_INSECURE_HTTP in {} and restart the service)", p.env_file.display());
        }
        // More names for the certificate install made: it is signed again for the old and the new ones.
        let ours = p.tls_cert.as_deref() == Some(p.dir.join("tls/server.crt").as_path());
        let ca = under(root, Path::new(crate::cert::INSTALL_CA_DIR));
        if ours && !p.hosts.is_empty() && ca.join("ca.crt").exists() {
            let mut hosts: Vec<String> = std::fs::read_to_string(data.join("tls/server.hosts")).unwrap_or_default().lines().map(str::to_string).filter(|h| !h.is_empty()).collect();
            let new: Vec<String> = p.hosts.iter().filter(|h| !hosts.contains(h)).cloned().collect();
            if !new.is_empty() {
                hosts.extend(new.iter().cloned());
                let made = crate::cert::make_with(&ca, &data.join("tls"), &hosts)?;
                println!("signed the certificate again for {} (added {}); the running service reads it by itself", hosts.join(", "), new.join(", "));
                made_ca = Some((made.ca, hosts));
            }
        }
    }
    if root.is_none() {
        // Everything in the data directory (the key, the certificate) and the backup directory is the user's.
        run(Command::new("chown").arg("-R").arg(format!("{0}:{0}", p.user)).arg(&data), "chown")?;
        run(Command::new("chown").arg(format!("{0}:{0}", p.user)).arg(&backups), "chown")?;
        // A certificate of the company's own must be readable by the service's user, or it cannot start.
        for f in [&p.tls_cert, &p.tls_key].into_iter().flatten() {
            let readable = Command::new("setpriv").arg(format!("--reuid={}", p.user)).arg(format!("--regid={}", p.user)).arg("--init-groups").args(["test", "-r"]).arg(f).status();
            if readable.is_ok_and(|s| s.code() == Some(1)) {
                bail!("the service's user {} cannot read {}: give it the file (chgrp {} {} && chmod g+r {}) and install again", p.user, f.display(), p.user, f.display(), f.display());
            }
        }
    }
    let unit = under(root, &Path::new("/etc/systemd/system").join(UNIT));
    write_mode(&unit, &unit_text(&p), 0o644)?;
    println!("wrote {}", unit.display());
    if root.is_some() {
        println!("staged under {} (no system command run)", root.map(|r| r.display().to_string()).unwrap_or_default());
        return Ok(());
    }
    let started = systemd && {
        run(Command::new("systemctl").arg("daemon-reload"), "systemctl daemon-reload")?;
        if start {
            run(Command::new("systemctl").args(["enable", "--now", UNIT]), "systemctl enable --now")?;
        } else {
            run(Command::new("systemctl").args(["enable", UNIT]), "systemctl enable")?;
        }
        start
    };
    println!();
    let port = |a: &str| a.rsplit(':').next().unwrap_or("").to_string();
    let certified: Vec<String> = std::fs::read_to_string(data.join("tls/server.hosts")).unwrap_or_default().lines().map(str::to_string).filter(|h| !h.is_empty()).collect();
    let hosts = match &made_ca {
        Some((_, h)) => h.clone(),
        None if p.tls_cert.as_deref() == Some(p.dir.join("tls/server.crt").as_path()) && !certified.is_empty() => certified,
        None => this_machine(&p.hosts, &p.http),
    };
    let addrs: Vec<String> = match &p.https {
        Some(h) => hosts.iter().filter(|h| *h != "127.0.0.1").map(|n| format!("https://{n}:{}", port(h))).collect(),
        None if loopback(&p.http) => vec![format!("http://{}", p.http)],
        None => hosts.iter().filter(|h| *h != "127.0.0.1").map(|n| format!("http://{n}:{}", port(&p.http))).collect(),
    };
    println!("智装 is {} at {}", if started { "running" } else { "installed" }, addrs.join("  "));
    if p.https.is_some() {
        println!("(plain HTTP on {} only redirects there)", p.http);
    } else if p.insecure_http {
        println!("(plain HTTP, as --insecure-http asked: passwords cross the network readable unless a TLS proxy is in front)");
    }
    if let Some((ca, _)) = &made_ca {
        println!();
        crate::cert::trust_advice(ca);
    }
    if first {
        println!();
        println!("The first administrators (account `admin` of each tenant: 000000 管理平台, 157270, 741487) sign in with the password");
        println!("in {}:  sudo grep ZZ_ADMIN_PASSWORD {}", p.env_file.display(), p.env_file.display());
        println!("Each sets his own at the first sign-in.");
    }
    println!("Data: {} (back it up with `zhizhuang backup --dir {} --out {BACKUP_DIR}/zz-$(date +%F).redb`, and keep {} with it).", p.dir.display(), p.dir.display(), p.env_file.display());
    if systemd {
        println!("Logs: journalctl -u zhizhuang   Status: systemctl status zhizhuang   Stop: systemctl stop zhizhuang   Manual: {DOC_FILE}");
    } else {
        println!("Start it by hand (no systemd here), as its user with its settings:");
        println!("  sudo sh -c 'set -a; . {}; exec setpriv --reuid={u} --regid={u} --init-groups {BIN_FILE} serve'", p.env_file.display(), u = p.user);
        println!("Manual: {DOC_FILE}");
    }
    Ok(())
}

/// `zhizhuang uninstall`: stops and removes the unit, the binary and the manual; the data and the environment
/// file stay.
pub fn uninstall(root: Option<&Path>) -> anyhow::Result<()> {
    if root.is_none() && !is_root() {
        bail!("uninstall removes a system service: run it as root");
    }
    let systemd = root.is_none() && Path::new("/run/systemd/system").is_dir();
    let unit = under(root, &Path::new("/etc/systemd/system").join(UNIT));
    if systemd {
        let _ = Command::new("systemctl").args(["disable", "--now", UNIT]).status();
    }
    for (path, what) in [(unit.clone(), "the unit"), (under(root, Path::new(BIN_FILE)), "the binary"), (under(root, Path::new(DOC_FILE)), "the manual")] {
        match std::fs::remove_file(&path) {
            Ok(()) => println!("removed {what} {}", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => println!("{what} {} was not there", path.display()),
            Err(e) => return Err(anyhow::anyhow!("remove {}: {e}", path.display())),
        }
    }
    if let Some(d) = under(root, Path::new(DOC_FILE)).parent() {
        let _ = std::fs::remove_dir(d);
    }
    if systemd {
        let _ = Command::new("systemctl").arg("daemon-reload").status();
    }
    println!("kept the system user zhizhuang, the data directory, {BACKUP_DIR}, {} (the local certificate authority the office's PCs trust) and {ENV_FILE} (the secret key the data needs): remove them by hand if you mean to", crate::cert::INSTALL_CA_DIR);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(http: &str) -> Plan {
        Plan {
            dir: "/var/lib/zhizhuang".into(),
            http: http.into(),
            https: None,
            tls_cert: None,
            tls_key: None,
            user: "zhizhuang".into(),
            bin: "/usr/local/bin/zhizhuang".into(),
            env_file: "/etc/zhizhuang/zhizhuang.env".into(),
            hosts: Vec::new(),
            insecure_http: false,
        }
    }

    #[test]
    fn the_unit_is_hardened_and_writes_only_the_data_directory() {
        let u = unit_text(&plan("0.0.0.0:8090"));
        for line in [
            "User=zhizhuang", "EnvironmentFile=/etc/zhizhuang/zhizhuang.env", "ExecStart=/usr/local/bin/zhizhuang serve", "Restart=on-failure",
            "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/zhizhuang -/var/backups/zhizhuang", "PrivateTmp=yes", "LimitNOFILE=65536",
            "TimeoutStopSec=90", "KillSignal=SIGTERM", "CapabilityBoundingSet=\n", "WantedBy=multi-user.target", "UMask=0077",
        ] {
            assert!(u.contains(line), "{line:?} missing:\n{u}");
        }
        assert!(!u.contains("AmbientCapabilities"));
        // Port 443 keeps exactly the capability to bind it.
        let mut p = plan("0.0.0.0:80");
        p.https = Some("0.0.0.0:443".into());
        p.tls_cert = Some("/etc/ssl/zz/server.crt".into());
        p.tls_key = Some("/etc/ssl/zz/server.key".into());
        let u = unit_text(&p);
        assert!(u.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE") && u.contains("ReadOnlyPaths=-/etc/ssl/zz/server.crt"), "{u}");
        let e = env_text(&p, "Zz#pw", "00");
        assert!(e.contains("ZZ_HTTPS=0.0.0.0:443") && e.contains("ZZ_TLS_KEY=/etc/ssl/zz/server.key") && !e.contains("ZZ_INSECURE_HTTP"), "{e}");
        // Plain HTTP on the network only when asked for; the first password must be replaced.
        let mut p = plan("0.0.0.0:8090");
        p.insecure_http = true;
        let e = env_text(&p, "Zz#pw", "00");
        assert!(e.contains("ZZ_INSECURE_HTTP=1") && e.contains("ZZ_ADMIN_PASSWORD=Zz#pw\nZZ_ADMIN_PASSWORD_ONCE=1\n") && e.contains("ZZ_SECRET_KEY=00"), "{e}");
        assert!(!env_text(&plan("0.0.0.0:8090"), "p", "k").contains("ZZ_INSECURE_HTTP"));
        assert!(!env_text(&plan("127.0.0.1:8090"), "p", "k").contains("ZZ_INSECURE_HTTP"));
        assert!(u.contains("Documentation=file:///usr/local/share/doc/zhizhuang/README.md"), "{u}");
    }

    #[test]
    fn systemd_accepts_the_unit_where_it_is_installed() {
        // `systemd-analyze verify` checks the unit as systemd reads it (skipped where systemd is not installed).
        let Ok(out) = Command::new("systemd-analyze").arg("--version").output() else { return };
        if !out.status.success() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        let mut p = plan("0.0.0.0:8090");
        p.bin = std::env::current_exe().unwrap();
        p.env_file = d.path().join("zz.env");
        std::fs::write(&p.env_file, "ZZ_DIR=/tmp\n").unwrap();
        let unit = d.path().join(UNIT);
        std::fs::write(&unit, unit_text(&p)).unwrap();
        let out = Command::new("systemd-analyze").arg("verify").arg(&unit).output().unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!text.contains(UNIT) || text.lines().all(|l| !l.contains(&*unit.to_string_lossy()) || l.contains("Documentation")), "{text}");
    }

    #[test]
    fn a_staged_install_writes_the_unit_the_env_file_and_a_private_data_directory() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        install(plan("127.0.0.1:8090"), Some(root.path()), false).unwrap();
        let env = root.path().join("etc/zhizhuang/zhizhuang.env");
        let dir = root.path().join("var/lib/zhizhuang");
        assert_eq!(std::fs::metadata(&env).unwrap().permissions().mode() & 0o777, 0o600);
        assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
        assert!(root.path().join("etc/systemd/system").join(UNIT).exists());
        assert!(root.path().join("usr/local/bin/zhizhuang").exists());
        let text = std::fs::read_to_string(&env).unwrap();
        let key = std::fs::read_to_string(dir.join("secret.key")).unwrap();
        assert!(text.contains(&format!("ZZ_SECRET_KEY={}", key.trim())), "the env file holds the data directory's key");
        // Again: the env file (its password and key) stays as it was.
        install(plan("127.0.0.1:8090"), Some(root.path()), false).unwrap();
        assert_eq!(std::fs::read_to_string(&env).unwrap(), text);
        assert_eq!(std::fs::read_to_string(root.path().join("usr/local/share/doc/zhizhuang/README.md")).unwrap(), README, "the manual the unit names");
        for d in ["usr/local/share", "usr/local/share/doc", "usr/local/share/doc/zhizhuang", "usr/local/bin"] {
            assert_eq!(std::fs::metadata(root.path().join(d)).unwrap().permissions().mode() & 0o777, 0o755, "{d} made readable to all");
        }
        uninstall(Some(root.path())).unwrap();
        assert!(!root.path().join("etc/systemd/system").join(UNIT).exists() && env.exists() && dir.exists());
        assert!(!root.path().join("usr/local/bin/zhizhuang").exists() && !root.path().join("usr/local/share/doc/zhizhuang").exists(), "the binary and the manual go");
    }

    #[test]
    fn on_the_network_install_serves_https_with_a_certificate_it_makes() {
        let root = tempfile::tempdir().unwrap();
        let mut p = plan("0.0.0.0:8090");
        p.hosts = vec!["erp.example.local".into(), "bad name!".into()];
        install(p, Some(root.path()), false).unwrap();
        let env = std::fs::read_to_string(root.path().join("etc/zhizhuang/zhizhuang.env")).unwrap();
        for line in ["ZZ_HTTP=0.0.0.0:8090\n", "ZZ_HTTPS=0.0.0.0:8443\n", "ZZ_TLS_CERT=/var/lib/zhizhuang/tls/server.crt\n", "ZZ_TLS_KEY=/var/lib/zhizhuang/tls/server.key\n", "ZZ_ADMIN_PASSWORD_ONCE=1\n"] {
            assert!(env.contains(line), "{line:?} missing:\n{env}");
        }
        assert!(!env.contains("ZZ_INSECURE_HTTP"), "{env}");
        let tls = root.path().join("var/lib/zhizhuang/tls");
        let chain = std::fs::read_to_string(tls.join("server.crt")).unwrap();
        assert_eq!(chain.matches("BEGIN CERTIFICATE").count(), 2);
        assert!(tls.join("server.key").exists() && tls.join("server.hosts").exists());
        // The authority is root's, apart from the data directory the service holds, and may sign only locally.
        use std::os::unix::fs::PermissionsExt;
        let ca = root.path().join("etc/zhizhuang/tls");
        assert!(!tls.join("ca.key").exists() && ca.join("ca.key").exists() && ca.join("ca.crt").exists());
        assert_eq!(std::fs::metadata(ca.join("ca.key")).unwrap().permissions().mode() & 0o777, 0o600);
        let ca_der = rustls_pemfile_first(&std::fs::read_to_string(ca.join("ca.crt")).unwrap());
        assert!(contains(&ca_der, &[0x55, 0x1d, 0x1e]), "the authority carries name constraints");
        // The certificate names the asked host and localhost; a name no certificate can carry is left out.
        let der = rustls_pemfile_first(&chain);
        assert!(contains(&der, b"erp.example.local") && contains(&der, b"localhost") && !contains(&der, b"bad name"));
        // Installed again with another local name: the certificate is signed again for the old names and it; a
        // public name is outside what the authority may sign, and said so.
        let mut p = plan("0.0.0.0:8090");
        p.hosts = vec!["erp2.local".into()];
        install(p, Some(root.path()), false).unwrap();
        let hosts = std::fs::read_to_string(tls.join("server.hosts")).unwrap();
        assert!(hosts.contains("erp.example.local") && hosts.contains("erp2.local"), "{hosts}");
        let mut p = plan("0.0.0.0:8090");
        p.hosts = vec!["www.icbc.com.cn".into()];
        let e = install(p, Some(root.path()), false).unwrap_err().to_string();
        assert!(e.contains("www.icbc.com.cn is outside them"), "{e}");
        // Addresses serve would refuse are refused here.
        for bad in ["8090", "erp.local:8090", "0.0.0.0:99999", "0.0.0.0:8443"] {
            let root3 = tempfile::tempdir().unwrap();
            assert!(install(plan(bad), Some(root3.path()), false).is_err(), "{bad}");
        }
        // Asked for plain HTTP: no certificate.
        let root2 = tempfile::tempdir().unwrap();
        let mut p = plan("0.0.0.0:8090");
        p.insecure_http = true;
        install(p, Some(root2.path()), false).unwrap();
        assert!(!root2.path().join("var/lib/zhizhuang/tls").exists());
        assert!(std::fs::read_to_string(root2.path().join("etc/zhizhuang/zhizhuang.env")).unwrap().contains("ZZ_INSECURE_HTTP=1"));
        // --insecure-http beside --https makes no sense.
        let mut p = plan("0.0.0.0:8090");
        p.insecure_http = true;
        (p.https, p.tls_cert, p.tls_key) = (Some("0.0.0.0:8443".into()), Some("/c".into()), Some("/k".into()));
        assert!(install(p, Some(root2.path()), false).is_err());
    }

    fn rustls_pemfile_first(pem: &str) -> Vec<u8> {
        use base64::Engine;
        let body: String = pem.lines().skip(1).take_while(|l| !l.starts_with("-----END")).collect();
        base64::engine::general_purpose::STANDARD.decode(body).unwrap()
    }

    fn contains(hay: &[u8], needle: &[u8]) -> bool {
        hay.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn every_interface_address_is_found() {
        let fib = "Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n     +-- 127.0.0.0/8 2 0 2\n           |-- 127.0.0.1\n              /32 host LOCAL\n     +-- 192.168.1.0/24 2 0 2\n           |-- 192.168.1.0\n              /24 link UNICAST\n           |-- 192.168.1.10\n              /32 host LOCAL\n        |-- 192.168.1.255\n           /32 link BROADCAST\n           |-- 10.8.0.2\n              /32 host LOCAL\nLocal:\n           |-- 192.168.1.10\n              /32 host LOCAL\n";
        assert_eq!(local_addresses(fib), vec!["192.168.1.10".to_string(), "10.8.0.2".to_string()]);
    }

    #[test]
    fn a_second_install_keeps_the_addresses_of_the_first() {
        // Installed on 443 with the company's certificate, installed again without the flags (an upgrade by the
        // README's steps): the unit keeps the capability to bind 443, from the environment file.
        let root = tempfile::tempdir().unwrap();
        let mut p = plan("0.0.0.0:80");
        (p.https, p.tls_cert, p.tls_key) = (Some("0.0.0.0:443".into()), Some("/etc/ssl/zz/server.crt".into()), Some("/etc/ssl/zz/server.key".into()));
        install(p, Some(root.path()), false).unwrap();
        install(plan("0.0.0.0:8090"), Some(root.path()), false).unwrap();
        let unit = std::fs::read_to_string(root.path().join("etc/systemd/system").join(UNIT)).unwrap();
        assert!(unit.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE") && unit.contains("ReadOnlyPaths=-/etc/ssl/zz/server.key"), "{unit}");
        assert!(!root.path().join("var/lib/zhizhuang/tls").exists(), "no certificate made beside the company's");
    }
}
