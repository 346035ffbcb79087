//! `zhizhuang install` / `uninstall`: the server as a systemd service in one command, as the one administrator of
//! a small company would want it. Install (as root) creates the system user, the data directory (0700, the
//! user's), an environment file for settings and secrets (`/etc/zhizhuang/zhizhuang.env`, 0600: the first
//! administrator password, the secret key), copies the binary to `/usr/local/bin`, writes a hardened unit and
//! starts it, then prints the address and where the first password is. Uninstall stops and removes the unit and
//! keeps the data and the environment file. `--root` writes everything under a staging directory instead
//! (packaging, tests) and runs no system command.
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
Documentation=file://{dir}/README.md
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
    } else if !p.http.starts_with("127.") && !p.http.starts_with("[::1]") && !p.http.starts_with("localhost") {
        s.push_str("# Plain HTTP on the network: passwords cross it readable by anyone on it. Prefer HTTPS\n# (`zhizhuang cert --host <address>`, then ZZ_HTTPS, ZZ_TLS_CERT, ZZ_TLS_KEY).\nZZ_INSECURE_HTTP=1\n");
    }
    s.push_str(&format!(
        "# The first administrators' password (every tenant's `admin`), used only when the data file is created.\n\
         # Change it after signing in.\nZZ_ADMIN_PASSWORD={admin_password}\n\
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

/// `zhizhuang install`.
/// The service's backup directory: `zhizhuang backup --out` of a running service writes here (owned by the
/// service's user, private).
pub const BACKUP_DIR: &str = "/var/backups/zhizhuang";

pub fn install(mut p: Plan, root: Option<&Path>, start: bool) -> anyhow::Result<()> {
    if root.is_none() && !is_root() {
        bail!("install sets up a system service: run it as root (sudo zhizhuang install …)");
    }
    if p.https.is_some() != (p.tls_cert.is_some() && p.tls_key.is_some()) {
        bail!("--https needs --tls-cert and --tls-key (`zhizhuang cert --host <address>` makes them)");
    }
    // The binary at a fixed place, so that the unit outlives the download folder.
    let target_bin = PathBuf::from("/usr/local/bin/zhizhuang");
    let me = std::env::current_exe().context("where is this binary")?;
    let bin_dest = under(root, &target_bin);
    if std::fs::canonicalize(&me).ok() != std::fs::canonicalize(&bin_dest).ok() {
        if let Some(d) = bin_dest.parent() {
            std::fs::create_dir_all(d)?;
        }
        let tmp = bin_dest.with_extension("new");
        std::fs::copy(&me, &tmp).with_context(|| format!("copy the binary to {}", bin_dest.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))?;
        std::fs::rename(&tmp, &bin_dest)?;
    }
    p.bin = target_bin;
    // The system user.
    if root.is_none() && Command::new("id").arg("-u").arg(&p.user).output().map(|o| !o.status.success()).unwrap_or(true) {
        run(Command::new("useradd").args(["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "--home-dir"]).arg(&p.dir).arg(&p.user), "useradd")?;
        println!("created the system user {}", p.user);
    }
    // The data directory: private to the user.
    let data = under(root, &p.dir);
    crate::admin::private_dir(&data)?;
    if root.is_none() {
        run(Command::new("chown").arg("-R").arg(format!("{0}:{0}", p.user)).arg(&data), "chown")?;
    }
    // Where `zhizhuang backup` of the running service writes: the service may write only its data directory and
    // this one (the unit's ReadWritePaths; it never sees /tmp as the admin does).
    let backups = under(root, Path::new(BACKUP_DIR));
    crate::admin::private_dir(&backups)?;
    if root.is_none() {
        run(Command::new("chown").arg(format!("{0}:{0}", p.user)).arg(&backups), "chown")?;
    }
    // The environment file: made once (the password and key it holds must not change under a running install).
    let env = under(root, &p.env_file);
    let first = !env.exists();
    if first {
        let key = match crate::secrets::Secrets::load(&data) {
            // A data directory that already has a key keeps it.
            Ok(_) => std::fs::read_to_string(crate::secrets::key_path(&data)).map(|k| k.trim().to_string()).unwrap_or_default(),
            Err(e) => return Err(e),
        };
        if root.is_none() {
            let _ = Command::new("chown").arg(format!("{0}:{0}", p.user)).arg(crate::secrets::key_path(&data)).status();
        }
        let password = format!("Zz#{}", crate::auth::token::random_hex(6));
        write_mode(&env, &env_text(&p, &password, &key), 0o600)?;
    } else {
        println!("kept the existing {}", env.display());
    }
    let unit = under(root, &Path::new("/etc/systemd/system").join(UNIT));
    write_mode(&unit, &unit_text(&p), 0o644)?;
    println!("wrote {}", unit.display());
    if root.is_some() {
        println!("staged under {} (no system command run)", root.map(|r| r.display().to_string()).unwrap_or_default());
        return Ok(());
    }
    run(Command::new("systemctl").arg("daemon-reload"), "systemctl daemon-reload")?;
    if start {
        run(Command::new("systemctl").args(["enable", "--now", UNIT]), "systemctl enable --now")?;
    } else {
        run(Command::new("systemctl").args(["enable", UNIT]), "systemctl enable")?;
    }
    let addr = p.https.as_ref().map(|h| format!("https://{h}")).unwrap_or_else(|| format!("http://{}", p.http));
    println!();
    println!("智装 is {} at {addr} (0.0.0.0 means every address of this machine).", if start { "running" } else { "installed" });
    if first {
        println!("The first administrators (account `admin` of each tenant) sign in with ZZ_ADMIN_PASSWORD from {} (root only): change it after signing in.", p.env_file.display());
    }
    println!("Data: {} (back it up with `zhizhuang backup --dir {} --out FILE`, and keep {} with it).", p.dir.display(), p.dir.display(), p.env_file.display());
    println!("Logs: journalctl -u zhizhuang   Status: systemctl status zhizhuang   Stop: systemctl stop zhizhuang");
    Ok(())
}

/// `zhizhuang uninstall`: stops and removes the unit; the data and the environment file stay.
pub fn uninstall(root: Option<&Path>) -> anyhow::Result<()> {
    if root.is_none() && !is_root() {
        bail!("uninstall removes a system service: run it as root");
    }
    let unit = under(root, &Path::new("/etc/systemd/system").join(UNIT));
    if root.is_none() {
        let _ = Command::new("systemctl").args(["disable", "--now", UNIT]).status();
    }
    match std::fs::remove_file(&unit) {
        Ok(()) => println!("removed {}", unit.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => println!("{} was not installed", unit.display()),
        Err(e) => return Err(e.into()),
    }
    if root.is_none() {
        let _ = Command::new("systemctl").arg("daemon-reload").status();
    }
    println!("the data directory and /etc/zhizhuang/zhizhuang.env are kept (remove them by hand if you mean to)");
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
        let e = env_text(&plan("0.0.0.0:8090"), "Zz#pw", "00");
        assert!(e.contains("ZZ_INSECURE_HTTP=1") && e.contains("ZZ_ADMIN_PASSWORD=Zz#pw") && e.contains("ZZ_SECRET_KEY=00"), "{e}");
        assert!(!env_text(&plan("127.0.0.1:8090"), "p", "k").contains("ZZ_INSECURE_HTTP"));
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
        uninstall(Some(root.path())).unwrap();
        assert!(!root.path().join("etc/systemd/system").join(UNIT).exists() && env.exists() && dir.exists());
    }
}
