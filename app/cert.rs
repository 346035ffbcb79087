//! `zhizhuang cert --host 192.168.1.10 --host erp.local`: HTTPS for an office LAN that has no certificate. Makes a
//! small local certificate authority once (`ca.crt`, `ca.key`, kept: the office's PCs trust it once) and a server
//! certificate for the given names and addresses signed by it (`server.crt` with the chain, `server.key`), then
//! says how to start the server with them and how to trust the CA on Windows PCs. Run again with other hosts, it
//! signs a new server certificate with the same CA (nothing to trust again).
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose};

/// Days a server certificate is valid (browsers accept up to 825 for a private CA's).
const SERVER_DAYS: i64 = 825;
/// Years the local CA is valid.
const CA_YEARS: i32 = 10;

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
    let days_from_now = |days: i64| {
        use chrono::Datelike;
        let t = chrono::Utc::now() + chrono::Duration::days(days);
        rcgen::date_time_ymd(t.year(), t.month() as u8, t.day() as u8)
    };
    let (ca_crt, ca_key) = (out.join("ca.crt"), out.join("ca.key"));
    let new_ca = !(ca_crt.exists() && ca_key.exists());
    let (ca_pem, ca_key_pair) = if new_ca {
        let key = KeyPair::generate()?;
        let mut p = CertificateParams::new(Vec::<String>::new())?;
        p.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        p.distinguished_name.push(DnType::OrganizationName, "智装 Zhizhuang");
        p.distinguished_name.push(DnType::CommonName, format!("智装本地证书颁发机构 {}", &crate::auth::token::random_hex(4)));
        p.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
        p.not_before = days_from_now(-1);
        p.not_after = days_from_now(365 * CA_YEARS as i64);
        let cert = p.self_signed(&key)?;
        write_private(&ca_key, &key.serialize_pem())?;
        write_private(&ca_crt, &cert.pem())?;
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
    Ok(Made { ca: ca_crt, cert: crt, key: k, new_ca })
}

/// `zhizhuang cert`: makes them and says what to do next.
pub fn run(out: &Path, hosts: &[String]) -> anyhow::Result<()> {
    let m = make(out, hosts)?;
    if m.new_ca {
        println!("made a local certificate authority: {} (its key {} stays on this server)", m.ca.display(), out.join("ca.key").display());
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
        // Made again for another host: the same CA signs it.
        let m2 = super::make(d.path(), &["erp2.local".to_string()]).unwrap();
        assert!(!m2.new_ca);
        assert_eq!(std::fs::read_to_string(&m2.ca).unwrap(), ca);
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(d.path().join("ca.key")).unwrap().permissions().mode() & 0o777, 0o600);
        assert!(super::make(d.path(), &["bad host".to_string()]).is_err());
    }
}
