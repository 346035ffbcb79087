//! `zhizhuang cert --host 192.168.1.10 --host erp.local`: HTTPS for an office LAN that has no certificate. Makes a
//! small local certificate authority once (`ca.crt`, `ca.key`, kept: the office's PCs trust it once) and a server
//! certificate for the given names and addresses signed by it (`server.crt` with the chain, `server.key`), then
//! says how to start the server with them and how to trust the CA on Windows PCs. Run again with other hosts, it
//! signs a new server certificate with the same CA (nothing to trust again).
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rcgen::{BasicConstraints, CertificateParams, CidrSubnet, DnType, ExtendedKeyUsagePurpose, GeneralSubtree, IsCa, Issuer, KeyPair, KeyUsagePurpose, NameConstraints};

/// Days a server certificate is valid (browsers accept up to 825 for a private CA's).
const SERVER_DAYS: i64 = 825;
/// Years the local CA is valid.
const CA_YEARS: i32 = 10;

/// Where `install` keeps its authority: apart from the data directory, root's alone, so that the service (and
/// whoever might break into it) holds the server's key but never the key that signs for the office's PCs.
pub const INSTALL_CA_DIR: &str = "/etc/zhizhuang/tls";
/// Names an authority made here may sign besides the ones it was made for: the networks' own suffixes, never a
/// public domain.
const LOCAL_SUFFIXES: &[&str] = &["localhost", "local", "lan", "internal", "home.arpa", "localdomain"];
/// Address ranges it may sign: loopback, the private and link-local ranges.
const PRIVATE_RANGES: &[&str] = &["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10", "::1/128", "fc00::/7", "fe80::/10"];

/// What an authority may sign (its name constraints), kept beside it in `ca.names`, one `dns NAME` or `ip CIDR` a
/// line, so that a later request for a name outside them is refused with the reason instead of making a
/// certificate every browser rejects.
struct Permitted {
    dns: Vec<String>,
    ip: Vec<(std::net::IpAddr, u8)>,
}

impl Permitted {
    fn for_hosts(hosts: &[String]) -> Permitted {
        let mut dns: Vec<String> = LOCAL_SUFFIXES.iter().map(|s| s.to_string()).collect();
        let mut ip: Vec<(std::net::IpAddr, u8)> = PRIVATE_RANGES.iter().filter_map(|r| cidr(r)).collect();
        for h in hosts {
            match h.parse::<std::net::IpAddr>() {
                Ok(a) if !ip.iter().any(|r| within(a, *r)) => ip.push((a, if a.is_ipv4() { 32 } else { 128 })),
                Ok(_) => {}
                Err(_) => {
                    let h = h.to_ascii_lowercase();
                    if !dns.iter().any(|d| covers(d, &h)) {
                        dns.push(h);
                    }
                }
            }
        }
        Permitted { dns, ip }
    }

    fn read(path: &Path) -> Option<Permitted> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut p = Permitted { dns: Vec::new(), ip: Vec::new() };
        for l in text.lines() {
            match l.split_once(' ') {
                Some(("dns", n)) => p.dns.push(n.trim().to_string()),
                Some(("ip", c)) => p.ip.extend(cidr(c.trim())),
                _ => {}
            }
        }
        Some(p)
    }

    fn text(&self) -> String {
        let mut s: String = self.dns.iter().map(|d| format!("dns {d}\n")).collect();
        for (a, bits) in &self.ip {
            s.push_str(&format!("ip {a}/{bits}\n"));
        }
        s
    }

    fn allows(&self, host: &str) -> bool {
        match host.parse::<std::net::IpAddr>() {
            Ok(a) => self.ip.iter().any(|r| within(a, *r)),
            Err(_) => self.dns.iter().any(|d| covers(d, &host.to_ascii_lowercase())),
        }
    }

    fn constraints(&self) -> NameConstraints {
        let mut permitted: Vec<GeneralSubtree> = self.dns.iter().map(|d| GeneralSubtree::DnsName(d.clone())).collect();
        for (a, bits) in &self.ip {
            permitted.push(GeneralSubtree::IpAddress(CidrSubnet::from_addr_prefix(*a, *bits)));
        }
        NameConstraints { permitted_subtrees: permitted, excluded_subtrees: Vec::new() }
    }
}

/// A DNS constraint covers the name itself and every name below it.
fn covers(constraint: &str, host: &str) -> bool {
    host == constraint || host.ends_with(&format!(".{constraint}"))
}

fn cidr(s: &str) -> Option<(std::net::IpAddr, u8)> {
    let (a, b) = s.split_once('/')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn within(a: std::net::IpAddr, (net, bits): (std::net::IpAddr, u8)) -> bool {
    match (a, net) {
        (std::net::IpAddr::V4(a), std::net::IpAddr::V4(n)) => match bits {
            0 => true,
            b if b >= 32 => a == n,
            b => (u32::from(a) ^ u32::from(n)) >> (32 - b as u32) == 0,
        },
        (std::net::IpAddr::V6(a), std::net::IpAddr::V6(n)) => match bits {
            0 => true,
            b if b >= 128 => a == n,
            b => (u128::from(a) ^ u128::from(n)) >> (128 - b as u32) == 0,
        },
        _ => false,
    }
}

pub struct Made {
    pub ca: PathBuf,
    pub cert: PathBuf,
    pub key: PathBuf,
    pub new_ca: bool,
}

fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp).with_context(|| format!("write {}", tmp.display()))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Makes (or reuses) the CA in `out` and a server certificate for `hosts`.
pub fn make(out: &Path, hosts: &[String]) -> anyhow::Result<Made> {
    make_with(out, out, hosts)
}

/// Makes (or reuses) the CA in `ca_dir` and a server certificate for `hosts` in `out` (`server.crt` with the
/// chain, `server.key`, and `server.hosts`: the names it is for, which a later install adds to).
pub fn make_with(ca_dir: &Path, out: &Path, hosts: &[String]) -> anyhow::Result<Made> {
    if hosts.is_empty() {
        bail!("give at least one --host: the address or name people type to reach the server (192.168.1.10, erp.local)");
    }
    for h in hosts {
        let ok = !h.is_empty() && (h.parse::<std::net::IpAddr>().is_ok() || h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'));
        if !ok {
            bail!("--host {h}: an IP address or a DNS name (letters, digits, dots, hyphens)");
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("create {}", out.display()))?;
    std::fs::create_dir_all(ca_dir).with_context(|| format!("create {}", ca_dir.display()))?;
    let days_from_now = |days: i64| {
        use chrono::Datelike;
        let t = chrono::Utc::now() + chrono::Duration::days(days);
        rcgen::date_time_ymd(t.year(), t.month() as u8, t.day() as u8)
    };
    let (ca_crt, ca_key, ca_names) = (ca_dir.join("ca.crt"), ca_dir.join("ca.key"), ca_dir.join("ca.names"));
    let new_ca = !(ca_crt.exists() && ca_key.exists());
    // An authority signs only for this office's names and addresses (name constraints): its key, were it ever
    // taken, could not vouch for a bank's site to the PCs that trust it.
    let permitted = if new_ca { Permitted::for_hosts(hosts) } else { Permitted::read(&ca_names).unwrap_or_else(|| Permitted::for_hosts(hosts)) };
    if !new_ca && ca_names.exists() {
        let outside: Vec<&String> = hosts.iter().filter(|h| !permitted.allows(h)).collect();
        if !outside.is_empty() {
            bail!(
                "the local certificate authority {} may sign only for the names it was made for ({}) and local ones: {} is outside them. To add it, make a new authority (move {} and {} away and run this again; each PC then trusts the new ca.crt)",
                ca_crt.display(),
                permitted.dns.iter().filter(|d| !LOCAL_SUFFIXES.contains(&d.as_str())).cloned().collect::<Vec<_>>().join(", "),
                outside.iter().map(|h| h.as_str()).collect::<Vec<_>>().join(", "),
                ca_crt.display(),
                ca_key.display()
            );
        }
    }
    let (ca_pem, ca_key_pair) = if new_ca {
        let key = KeyPair::generate()?;
        let mut p = CertificateParams::new(Vec::<String>::new())?;
        p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        p.distinguished_name.push(DnType::OrganizationName, "智装 Zhizhuang");
        p.distinguished_name.push(DnType::CommonName, format!("智装本地证书颁发机构 {}", &crate::auth::token::random_hex(4)));
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        p.name_constraints = Some(permitted.constraints());
        p.not_before = days_from_now(-1);
        p.not_after = days_from_now(365 * CA_YEARS as i64);
        let cert = p.self_signed(&key)?;
        write_private(&ca_key, &key.serialize_pem())?;
        write_private(&ca_crt, &cert.pem())?;
        write_private(&ca_names, &permitted.text())?;
        (cert.pem(), key)
    } else {
        let key = KeyPair::from_pem(&std::fs::read_to_string(&ca_key)?).with_context(|| format!("{}: not a key", ca_key.display()))?;
        (std::fs::read_to_string(&ca_crt)?, key)
    };
    let issuer = Issuer::from_ca_cert_pem(&ca_pem, ca_key_pair).with_context(|| format!("{}: not a CA certificate", ca_crt.display()))?;
    let key = KeyPair::generate()?;
    let mut p = CertificateParams::new(hosts.to_vec())?;
    p.distinguished_name.push(DnType::CommonName, hosts[0].clone());
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    p.not_before = days_from_now(-1);
    p.not_after = days_from_now(SERVER_DAYS);
    let cert = p.signed_by(&key, &issuer)?;
    let (crt, k) = (out.join("server.crt"), out.join("server.key"));
    write_private(&k, &key.serialize_pem())?;
    // The chain: the server's certificate, then the CA's.
    write_private(&crt, &format!("{}{}", cert.pem(), ca_pem))?;
    write_private(&out.join("server.hosts"), &hosts.iter().map(|h| format!("{h}\n")).collect::<String>())?;
    Ok(Made { ca: ca_crt, cert: crt, key: k, new_ca })
}

/// `zhizhuang cert`: makes them and says what to do next. The authority is `ca_dir`'s, else an install's
/// (`INSTALL_CA_DIR`, when this machine has one), else `out`'s.
pub fn run(out: &Path, ca_dir: Option<&Path>, hosts: &[String]) -> anyhow::Result<()> {
    let installed = Path::new(INSTALL_CA_DIR);
    let ca_dir = ca_dir.map(Path::to_path_buf).unwrap_or_else(|| if installed.join("ca.crt").exists() { installed.to_path_buf() } else { out.to_path_buf() });
    let m = make_with(&ca_dir, out, hosts)?;
    if m.new_ca {
        println!("made a local certificate authority: {} (its key {} stays on this server)", m.ca.display(), ca_dir.join("ca.key").display());
    } else {
        println!("signed with the existing local certificate authority {}", m.ca.display());
    }
    println!("server certificate for {}: {} (key {}), valid {SERVER_DAYS} days", hosts.join(", "), m.cert.display(), m.key.display());
    println!();
    println!("start the server with it:");
    println!("  zhizhuang serve --https 0.0.0.0:8443 --tls-cert {} --tls-key {} --http 0.0.0.0:8090", m.cert.display(), m.key.display());
    println!("  (the certificate is read again on SIGHUP or when the files change; --http then only redirects to HTTPS)");
    println!();
    trust_advice(&m.ca);
    println!("  then open https://{}:8443 in the browser (restart the browser if it was open).", hosts[0]);
    Ok(())
}

/// How the office's PCs come to trust the local authority (once each).
pub fn trust_advice(ca: &Path) {
    println!("trust the authority once on each Windows PC (copy {} there), either:", ca.display());
    println!("  - double-click ca.crt → 安装证书(Install Certificate) → 本地计算机(Local Machine) → 将所有的证书都放入下列存储 → 受信任的根证书颁发机构(Trusted Root Certification Authorities) → 完成; or");
    println!("  - in a command prompt run as administrator: certutil -addstore -f Root ca.crt");
    println!("  (until then the browser warns that the connection is not private)");
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_server_certificate_for_an_address_and_a_name_signed_by_one_ca() {
        let d = tempfile::tempdir().unwrap();
        let hosts = vec!["192.168.1.10".to_string(), "erp.local".to_string()];
        let m = super::make(d.path(), &hosts).unwrap();
        assert!(m.new_ca);
        let ca = std::fs::read_to_string(&m.ca).unwrap();
        let chain = std::fs::read_to_string(&m.cert).unwrap();
        assert_eq!(chain.matches("BEGIN CERTIFICATE").count(), 2);
        assert!(chain.ends_with(&ca), "the chain ends with the CA");
        // The authority may sign the office's names and addresses only: a public one is refused with the reason.
        let d2 = tempfile::tempdir().unwrap();
        super::make(d2.path(), &["erp.local".to_string(), "192.168.1.10".to_string()]).unwrap();
        for ok in ["erp.local", "a.erp.local", "x.lan", "10.1.2.3", "172.20.0.1", "localhost"] {
            assert!(super::make(d2.path(), &[ok.to_string()]).is_ok(), "{ok}");
        }
        for bad in ["www.icbc.com.cn", "8.8.8.8", "erplocal"] {
            let e = super::make(d2.path(), &[bad.to_string()]).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(e.contains(&format!("{bad} is outside them")), "{bad}: {e}");
        }
        // Made again for another host: the same CA signs it.
        let m2 = super::make(d.path(), &["erp2.local".to_string()]).unwrap();
        assert!(!m2.new_ca);
        assert_eq!(std::fs::read_to_string(&m2.ca).unwrap(), ca);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(d.path().join("ca.key")).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(super::make(d.path(), &["bad host".to_string()]).is_err());
    }
}
