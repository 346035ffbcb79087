//! Which addresses a bucket may be reached at. A company's administrator types an object-storage endpoint; the
//! server then connects to it, so without a rule a tenant could make the server fetch its own loopback services,
//! the LAN, or a cloud's metadata address (server-side request forgery). A guarded bucket:
//!
//! - takes only `http` and `https` endpoints;
//! - never connects to a loopback, private, link-local (cloud metadata included), shared, unique-local,
//!   multicast, unspecified or reserved address, nor to one of those hidden in an IPv4-mapped or NAT64 IPv6
//!   address — unless the server's operator allows it (`--oss-allow-hosts`: `host[:port]` and CIDR entries; an
//!   on-premise MinIO on the LAN is normal, and only the operator decides that);
//! - checks the rule on the endpoint when it is saved, and again on every address the name resolves to at every
//!   connect (a name that resolved to a public address when saved and to 127.0.0.1 later is refused then);
//! - follows no redirect and uses no proxy from the environment (a proxy would resolve the name itself).
//!
//! The operator's own buckets (`serve --replicate` with `AWS_ENDPOINT_URL`) are not guarded: the operator chose
//! them on the command line.
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;

/// Starts the resolver's error when it drops every address of a name (`Problem` reads it as `Forbidden`).
pub(crate) const REFUSED: &str = "zz-guard: address not allowed";

/// Addresses the operator allows a guarded bucket to reach besides public ones.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Allow {
    /// `host` or `host:port` (a name or an address, as written in the endpoint).
    hosts: Vec<(String, Option<u16>)>,
    nets: Vec<IpNet>,
}

impl Allow {
    /// Parses `minio.lan:9000,10.0.0.0/8,192.168.1.20` (commas or spaces). Names the first entry that does not read.
    pub fn parse(spec: &str) -> Result<Allow, String> {
        let mut a = Allow::default();
        for item in spec.split([',', ' ', '\n', '\t']).map(str::trim).filter(|s| !s.is_empty()) {
            if item.contains('/') {
                let net: IpNet = item.parse().map_err(|_| format!("{item}: not a CIDR block like 10.0.0.0/8"))?;
                a.nets.push(net.trunc());
                continue;
            }
            if let Ok(ip) = item.trim_matches(['[', ']']).parse::<IpAddr>() {
                a.nets.push(IpNet::from(ip));
                continue;
            }
            let (host, port) = split_host_port(item).ok_or_else(|| format!("{item}: expected host, host:port or a CIDR block"))?;
            a.hosts.push((host.to_ascii_lowercase(), port));
        }
        Ok(a)
    }

    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.nets.is_empty()
    }

    fn host_allowed(&self, host: &str, port: u16) -> bool {
        let host = host.trim_matches(['[', ']']).to_ascii_lowercase();
        self.hosts.iter().any(|(h, p)| *h == host && p.is_none_or(|p| p == port))
    }

    fn ip_allowed(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.nets.iter().any(|n| n.contains(&ip))
    }
}

fn split_host_port(item: &str) -> Option<(String, Option<u16>)> {
    if let Some(rest) = item.strip_prefix('[') {
        let (h, tail) = rest.split_once(']')?;
        let port = match tail.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None if tail.is_empty() => None,
            None => return None,
        };
        return Some((h.to_string(), port));
    }
    match item.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => Some((h.to_string(), Some(p.parse().ok()?))),
        Some(_) => None,
        None => Some((item.to_string(), None)),
    }
    .filter(|(h, _)| !h.is_empty() && h.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_'))
}

/// The IPv4 address an IPv6 address stands for (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`,
/// compatible `::a.b.c.d`), else the address itself.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return IpAddr::V4(v4);
            }
            let s = v6.segments();
            if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
                let o = v6.octets();
                return IpAddr::V4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
            }
            if s[..6] == [0; 6] && v6 != Ipv6Addr::UNSPECIFIED && v6 != Ipv6Addr::LOCALHOST {
                let o = v6.octets();
                return IpAddr::V4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
            }
            IpAddr::V6(v6)
        }
        v4 => v4,
    }
}

/// Whether an address is reachable from the internet at large (not this machine, the LAN, a cloud's metadata
/// service or a reserved range).
pub fn is_public(ip: IpAddr) -> bool {
    match canonical(ip) {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_unspecified()
                || v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_broadcast()
                || v4.is_multicast()
                || v4.is_documentation()
                || o[0] == 0
                // shared address space (carrier-grade NAT), 100.64.0.0/10
                || (o[0] == 100 && (o[1] & 0xc0) == 64)
                // IETF protocol assignments 192.0.0.0/24, benchmarking 198.18.0.0/15, reserved 240.0.0.0/4
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || (o[0] == 198 && (o[1] & 0xfe) == 18)
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            !(v6.is_unspecified()
                || v6.is_loopback()
                || v6.is_multicast()
                // unique local fc00::/7 (AWS's metadata fd00:ec2::254 among them), link-local fe80::/10
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                // documentation 2001:db8::/32, discard 100::/64
                || (s[0] == 0x2001 && s[1] == 0x0db8)
                || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]))
        }
    }
}

/// Why an endpoint or an address is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Not `http://` or `https://`.
    Scheme,
    /// No host, or a URL that does not read.
    Malformed,
    /// An address (written, or resolved from the name) that is not public and not allowed by the operator.
    Address(IpAddr),
}

impl Refusal {
    pub fn zh(&self) -> String {
        match self {
            Refusal::Scheme => "资源地址只能以 http:// 或 https:// 开头".into(),
            Refusal::Malformed => "资源地址不是有效的网址".into(),
            Refusal::Address(ip) => format!("资源地址指向本机、内网或保留地址({ip}),不允许连接;如需使用内网对象存储,请服务器管理员用 --oss-allow-hosts 放行"),
        }
    }
    pub fn en(&self) -> String {
        match self {
            Refusal::Scheme => "The endpoint must start with http:// or https://".into(),
            Refusal::Malformed => "The endpoint is not a valid URL".into(),
            Refusal::Address(ip) => format!("The endpoint points at this machine, a private network or a reserved address ({ip}); the server's operator can allow an internal object store with --oss-allow-hosts"),
        }
    }
}

/// The rule a bucket's connections follow.
#[derive(Clone, Debug, Default)]
pub enum Rule {
    /// Anything: the operator's own bucket.
    #[default]
    Open,
    /// Public addresses, and what the operator allows.
    Guarded(Arc<Allow>),
}

/// An endpoint as the bucket uses it: a bare `host[:port][/path]` gets `https://`; anything else is kept as
/// written (and refused by `parse_endpoint` when it is not http or https).
pub fn with_scheme(endpoint: &str) -> String {
    let e = endpoint.trim().trim_end_matches('/');
    if e.contains("://") {
        return e.to_string();
    }
    let authority = e.split(['/', '?', '#']).next().unwrap_or("");
    if split_host_port(authority).is_some() { format!("https://{e}") } else { e.to_string() }
}

/// An endpoint's parts: scheme, host (a name, or an address without brackets) and port.
pub fn parse_endpoint(endpoint: &str) -> Result<(String, String, u16), Refusal> {
    let e = with_scheme(endpoint);
    let e = e.as_str();
    let (scheme, rest) = e.split_once("://").ok_or(Refusal::Scheme)?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return Err(Refusal::Scheme),
    };
    // Userinfo, control characters and backslashes have no place in an endpoint (they confuse parsers).
    if e.chars().any(|c| c.is_control() || c == '\\' || c.is_whitespace()) {
        return Err(Refusal::Malformed);
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty() || authority.contains('@') {
        return Err(Refusal::Malformed);
    }
    let (host, port) = split_host_port(authority).ok_or(Refusal::Malformed)?;
    let port = port.unwrap_or(default_port);
    Ok((scheme, host, port))
}

impl Rule {
    pub fn guarded(allow: Allow) -> Rule {
        Rule::Guarded(Arc::new(allow))
    }

    /// Checks an endpoint as written (scheme; an address written in it). A name is checked when it is resolved
    /// (`check_resolved`, and at every connect).
    pub fn check_endpoint(&self, endpoint: &str) -> Result<(), Refusal> {
        let (_, host, port) = parse_endpoint(endpoint)?;
        let Rule::Guarded(allow) = self else { return Ok(()) };
        if allow.host_allowed(&host, port) {
            return Ok(());
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            return check_ip(allow, ip);
        }
        Ok(())
    }

    /// `check_endpoint`, then the addresses the endpoint's name resolves to now: every one must be allowed. A
    /// name that does not resolve (yet) passes; it is checked again at every connect.
    pub async fn check_resolved(&self, endpoint: &str) -> Result<(), Refusal> {
        self.check_endpoint(endpoint)?;
        let Rule::Guarded(allow) = self else { return Ok(()) };
        let (_, host, port) = parse_endpoint(endpoint)?;
        if allow.host_allowed(&host, port) || host.parse::<IpAddr>().is_ok() {
            return Ok(());
        }
        if let Ok(addrs) = tokio::net::lookup_host((host.as_str(), port)).await {
            for a in addrs {
                check_ip(allow, a.ip())?;
            }
        }
        Ok(())
    }

    /// A resolver for the HTTP client that drops the addresses the rule forbids (None when the rule is open).
    pub(crate) fn resolver(&self, endpoint: &str) -> Option<Arc<GuardedResolver>> {
        let Rule::Guarded(allow) = self else { return None };
        let port = parse_endpoint(endpoint).map(|(_, _, p)| p).unwrap_or(443);
        Some(Arc::new(GuardedResolver { allow: allow.clone(), port }))
    }
}

fn check_ip(allow: &Allow, ip: IpAddr) -> Result<(), Refusal> {
    if is_public(ip) || allow.ip_allowed(ip) { Ok(()) } else { Err(Refusal::Address(ip)) }
}

/// Resolves names for a guarded bucket's HTTP client: the forbidden addresses are dropped, and a name left with
/// none fails to resolve (the connection is never made).
pub(crate) struct GuardedResolver {
    allow: Arc<Allow>,
    port: u16,
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (allow, port) = (self.allow.clone(), self.port);
        let host = name.as_str().to_string();
        Box::pin(async move {
            if allow.host_allowed(&host, port) {
                let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
                return Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs);
            }
            let mut kept = Vec::new();
            let mut refused = None;
            for a in tokio::net::lookup_host((host.as_str(), 0)).await? {
                match check_ip(&allow, a.ip()) {
                    Ok(()) => kept.push(a),
                    Err(r) => refused = Some(r),
                }
            }
            if kept.is_empty() {
                let why = match refused {
                    Some(r) => format!("{REFUSED}: {}", r.en()),
                    None => format!("{host} has no address"),
                };
                return Err(why.into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_and_special_addresses_are_not_public() {
        for a in [
            "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.10", "169.254.169.254", "0.0.0.0", "100.64.0.1", "255.255.255.255",
            "224.0.0.1", "::1", "::", "fe80::1", "fd00:ec2::254", "::ffff:169.254.169.254", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe",
            "::127.0.0.1", "240.0.0.1", "198.18.0.1",
        ] {
            assert!(!is_public(a.parse().unwrap()), "{a}");
        }
        for a in ["8.8.8.8", "47.96.1.2", "2400:3200::1", "::ffff:8.8.8.8"] {
            assert!(is_public(a.parse().unwrap()), "{a}");
        }
    }

    #[test]
    fn endpoints_are_checked_as_written() {
        let g = Rule::guarded(Allow::default());
        assert_eq!(g.check_endpoint("file:///etc/passwd"), Err(Refusal::Scheme));
        assert_eq!(g.check_endpoint("gopher://127.0.0.1:6379/_INFO"), Err(Refusal::Scheme));
        assert_eq!(g.check_endpoint("javascript:alert(1)"), Err(Refusal::Scheme));
        assert!(matches!(g.check_endpoint("http://127.0.0.1:9000"), Err(Refusal::Address(_))));
        assert!(matches!(g.check_endpoint("http://169.254.169.254/latest/meta-data"), Err(Refusal::Address(_))));
        assert!(matches!(g.check_endpoint("http://[::ffff:169.254.169.254]"), Err(Refusal::Address(_))));
        assert!(matches!(g.check_endpoint("http://10.0.0.1:9000"), Err(Refusal::Address(_))));
        assert_eq!(g.check_endpoint("http://user@8.8.8.8"), Err(Refusal::Malformed));
        assert_eq!(g.check_endpoint("http://a.com\t/x"), Err(Refusal::Malformed));
        assert_eq!(g.check_endpoint("https://oss-cn-hangzhou.aliyuncs.com"), Ok(()));
        assert_eq!(g.check_endpoint("https://47.96.1.2:443"), Ok(()));
        // The operator's list: a LAN MinIO by name and port, a block.
        let g = Rule::guarded(Allow::parse("minio.lan:9000, 192.168.1.0/24 [::1]").unwrap());
        assert_eq!(g.check_endpoint("http://minio.lan:9000"), Ok(()));
        assert_eq!(g.check_endpoint("http://192.168.1.20:9000"), Ok(()));
        assert_eq!(g.check_endpoint("http://[::1]:9000"), Ok(()));
        assert!(matches!(g.check_endpoint("http://192.168.2.20:9000"), Err(Refusal::Address(_))));
        assert!(Allow::parse("10.0.0.0/33").is_err());
        assert!(Allow::parse("a b:x").is_err());
        // Open: the operator's own replica may be anywhere.
        assert_eq!(Rule::Open.check_endpoint("http://127.0.0.1:9000"), Ok(()));
        assert_eq!(Rule::Open.check_endpoint("ftp://x"), Err(Refusal::Scheme));
    }

    #[tokio::test]
    async fn names_are_checked_on_what_they_resolve_to() {
        let g = Rule::guarded(Allow::default());
        assert!(matches!(g.check_resolved("http://localhost:9000").await, Err(Refusal::Address(_))));
        let allowed = Rule::guarded(Allow::parse("localhost:9000").unwrap());
        assert_eq!(allowed.check_resolved("http://localhost:9000").await, Ok(()));
        assert!(matches!(allowed.check_resolved("http://localhost:9001").await, Err(Refusal::Address(_))));
    }
}
