//! Command line: `serve`, `backup`, `verify`, `compact`, `restore`, `promote`, `recover`, `reindex`, `admin passwd`. Every flag has a `ZZ_*` variable; the
//! doc comments are the help text.
use std::net::SocketAddr;
use std::path::PathBuf;

use clap::builder::BoolishValueParser;
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(name = "zhizhuang", version = crate::VERSION, about = "智装 back-office: one binary, one data file")]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Serve the API and the UI.
    Serve(ServeArgs),
    /// Write a consistent backup of DIR's data file to FILE (online through a running server, or offline).
    Backup {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// The backup file to write (outside the data directory; a running service must be able to write there:
        /// /var/backups/zhizhuang for an installed one).
        #[arg(long)]
        out: PathBuf,
        /// Also back up the logs' file (api, error, sign-in and general logs), to FILE with `-logs` added to its name.
        #[arg(long)]
        with_logs: bool,
    },
    /// Check a data file or backup (and the logs' file beside it) and print per-table counts. Exit code 1 when damaged.
    Verify {
        /// The data file or backup to check (read only: a copy is checked).
        file: PathBuf,
    },
    /// Give the free space inside DIR's data file and logs' file back to the disk (refused while a server holds DIR).
    Compact {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
    },
    /// Replace DIR's data file with a verified backup FILE (refused while a server holds DIR); `--logs` also
    /// replaces the logs' file with a backup of it (else the logs stay as they are). Or rebuild it from a replica
    /// (`--from s3://bucket/prefix`, see `serve --replicate`): the newest snapshot and the changes after it, up to
    /// `--at` when given.
    Restore {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// The backup file to put in place (checked first).
        #[arg(required_unless_present = "from", conflicts_with = "from")]
        file: Option<PathBuf>,
        /// A backup of the logs' file to put in place too (`backup --with-logs` writes it).
        #[arg(long)]
        logs: Option<PathBuf>,
        /// The replica to rebuild from (credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION,
        /// AWS_ENDPOINT_URL, or --replica-credentials).
        #[arg(long)]
        from: Option<String>,
        /// The moment to restore, like "2026-11-27 10:00:00" in the zone of --tz: every change committed up to
        /// then, none after. The latest when absent.
        #[arg(long, requires = "from")]
        at: Option<String>,
        /// The time zone of --at, like +08:00.
        #[arg(long, env = "ZZ_TZ", default_value = "+08:00")]
        tz: String,
        /// A file of KEY=VALUE lines with the AWS_* variables.
        #[arg(long, env = "ZZ_REPLICA_CREDENTIALS")]
        replica_credentials: Option<PathBuf>,
        /// With --from: rebuild the data file only, not the logs' file (api, sign-in and error logs).
        #[arg(long, requires = "from")]
        without_logs: bool,
    },
    /// Make a stopped standby (`serve --follow`) the primary of its replica: the bucket's owner object names it,
    /// so the old primary takes no writes if it comes back. Then start it with `serve --replicate`.
    Promote {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// The replica (default: the one it followed).
        #[arg(long)]
        replicate: Option<String>,
        /// A file of KEY=VALUE lines with the AWS_* variables.
        #[arg(long, env = "ZZ_REPLICA_CREDENTIALS")]
        replica_credentials: Option<PathBuf>,
        /// Where people reach this server (shown by a standby when it refuses a write).
        #[arg(long, env = "ZZ_PUBLIC_URL", default_value = "")]
        public_url: String,
        /// Take over even though the current primary renewed its lease within the last minute, or this copy does
        /// not follow the replica's current generation (you know the old primary is gone for good).
        #[arg(long)]
        force: bool,
    },
    /// List the changes this server acknowledged after its last upload to the replica, when another server took
    /// over meanwhile (fenced): one JSON line per log record with the business records it wrote or removed.
    Fenced {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// Write them to this file instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Open DIR after a write-ahead log was refused as untrustworthy: the records before the damage are applied,
    /// the log is set aside (kept, renamed) and the number of records discarded printed. Restoring a backup loses
    /// less when one is recent; this is for when none is.
    Recover {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// Required: you accept that the records after the damage are lost.
        #[arg(long)]
        accept_loss: bool,
    },
    /// Rebuild the search index of DIR (`DIR/index/`) from the data file (refused while a server holds DIR). A
    /// server rebuilds it by itself when it is missing or damaged; this does it offline, and prints how long.
    Reindex {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
    },
    /// Operator tools.
    Admin {
        #[command(subcommand)]
        cmd: AdminCmd,
    },
    /// Install the server as a systemd service (as root): a system user, a private data directory, an
    /// environment file for settings and secrets (/etc/zhizhuang/zhizhuang.env), the binary in /usr/local/bin,
    /// a hardened unit, started. On the network it serves HTTPS (port 8443) with a certificate it makes, unless
    /// --https names yours or --insecure-http asks for plain HTTP. Prints the addresses and where the first
    /// password is.
    Install {
        /// The data directory (the data file, its logs, the search index, the secret key, the certificate).
        #[arg(long, default_value = "/var/lib/zhizhuang")]
        dir: PathBuf,
        /// Where to listen with plain HTTP (with HTTPS: only a redirect to it).
        #[arg(long, default_value = "0.0.0.0:8090")]
        http: String,
        /// Where to listen with HTTPS. With --tls-cert and --tls-key, with your certificate; else install makes
        /// one (a local authority's). Default: port 8443 of the --http address.
        #[arg(long)]
        https: Option<String>,
        /// Your certificate chain, PEM (with --https).
        #[arg(long)]
        tls_cert: Option<PathBuf>,
        /// Your certificate's private key, PEM (with --https).
        #[arg(long)]
        tls_key: Option<PathBuf>,
        /// Another address or DNS name people type to reach the server, for the certificate install makes
        /// (repeat for several; this machine's name and address are always in it).
        #[arg(long = "host")]
        hosts: Vec<String>,
        /// Serve plain HTTP on the network, no certificate: only behind your own TLS proxy (passwords would
        /// cross the network readable).
        #[arg(long, conflicts_with = "https")]
        insecure_http: bool,
        /// The system user the service runs as (created when missing).
        #[arg(long, default_value = "zhizhuang")]
        user: String,
        /// Write everything under this directory instead of the system (packaging); runs no system command.
        #[arg(long)]
        root: Option<PathBuf>,
        /// Install and enable, but do not start it now.
        #[arg(long)]
        no_start: bool,
    },
    /// Stop and remove the systemd service, the binary and the manual; the data directory, the backups and the
    /// environment file (with the secret key) stay.
    Uninstall {
        /// Remove what `install --root` staged there instead of the system.
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// Make HTTPS possible on a LAN without a certificate: a local certificate authority (once; the office's PCs
    /// trust it) and a server certificate for the given addresses and names, in `DIR/tls/` (or --out).
    Cert {
        /// An IP address or DNS name people use to reach the server (repeat for several).
        #[arg(long = "host", required = true)]
        hosts: Vec<String>,
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// Where to write server.crt and server.key (default DIR/tls).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Where the local certificate authority is, or is made (ca.crt, ca.key): default an install's
        /// /etc/zhizhuang/tls when this machine has one, else the --out directory.
        #[arg(long)]
        ca_dir: Option<PathBuf>,
    },
    /// Print the HTTP contract as OpenAPI 3.1 JSON (the committed `openapi.json`), or write it to --out.
    Openapi {
        /// The file to write (stdout when absent).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
pub enum AdminCmd {
    /// Reset an account's password (recovery). Prints the new password; sessions of the account are revoked.
    Passwd {
        /// The server's data directory (an installed service's is /var/lib/zhizhuang).
        #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
        dir: PathBuf,
        /// The account's tenant id (000000 is the platform's).
        #[arg(long)]
        tenant: String,
        /// The account (sign-in name), like admin.
        #[arg(long)]
        account: String,
        /// The new password; generated when absent.
        #[arg(long, env = "ZZ_NEW_PASSWORD")]
        password: Option<String>,
    },
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum LogFormat {
    Human,
    Json,
}

#[derive(Parser, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on with plain HTTP. With --https it only redirects to HTTPS (and answers /api/health).
    /// Plain HTTP on an address other than loopback is refused unless --insecure-http says so (passwords and
    /// tokens would cross the network readable by anyone on it).
    #[arg(long, env = "ZZ_HTTP", default_value = "127.0.0.1:8090")]
    pub http: SocketAddr,
    /// Address to listen on with HTTPS, like 0.0.0.0:8443 (needs --tls-cert and --tls-key).
    #[arg(long, env = "ZZ_HTTPS", requires_all = ["tls_cert", "tls_key"])]
    pub https: Option<SocketAddr>,
    /// The server's certificate chain, PEM (read again on SIGHUP and when it changes). `zhizhuang cert` makes one.
    #[arg(long, env = "ZZ_TLS_CERT")]
    pub tls_cert: Option<PathBuf>,
    /// The certificate's private key, PEM.
    #[arg(long, env = "ZZ_TLS_KEY")]
    pub tls_key: Option<PathBuf>,
    /// Serve the application over plain HTTP on a non-loopback --http address (only behind your own TLS proxy
    /// on a network you trust).
    #[arg(long, env = "ZZ_INSECURE_HTTP", value_parser = BoolishValueParser::new())]
    pub insecure_http: bool,
    /// Connections at once from one address (beyond it a connection is closed at once); not applied with
    /// --trust-proxy, where every connection comes from the proxy.
    #[arg(long, env = "ZZ_MAX_CONNS_PER_IP", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub max_conns_per_ip: u64,
    /// Seconds a request's headers may take to arrive, and an idle keep-alive connection may wait for its next
    /// request, before the connection is closed.
    #[arg(long, env = "ZZ_HEADER_TIMEOUT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub header_timeout: u64,
    /// Data directory (holds the one data file).
    #[arg(long, env = "ZZ_DIR", default_value = "./zz_data")]
    pub dir: PathBuf,
    /// Seed demo departments, posts, roles and users (once).
    #[arg(long, env = "ZZ_DEMO", value_parser = BoolishValueParser::new())]
    pub demo: bool,
    /// Log format: human lines, or JSON for collectors.
    #[arg(long, env = "ZZ_LOG_FORMAT", value_enum, default_value = "human")]
    pub log_format: LogFormat,
    /// First admin password (otherwise generated and printed once at first start).
    #[arg(long, env = "ZZ_ADMIN_PASSWORD", hide_env_values = true)]
    pub admin_password: Option<String>,
    /// The first administrators must replace --admin-password at their first sign-in (`install` sets it: its
    /// generated password stays readable in the environment file).
    #[arg(long, env = "ZZ_ADMIN_PASSWORD_ONCE", value_parser = BoolishValueParser::new())]
    pub admin_password_once: bool,
    /// Access token lifetime in seconds.
    #[arg(long, env = "ZZ_ACCESS_TTL", default_value_t = 1800)]
    pub access_ttl: u64,
    /// Time zone offset for dates on the wire, like +08:00, or `local`.
    #[arg(long, env = "ZZ_TZ", default_value = "+08:00")]
    pub tz: String,
    /// Trust X-Forwarded-For for the client address (only behind your own reverse proxy).
    #[arg(long, env = "ZZ_TRUST_PROXY", value_parser = BoolishValueParser::new())]
    pub trust_proxy: bool,
    /// Launcher URLs of the desk, like `BIM=https://bim.example,ERP=https://erp.example`.
    #[arg(long, env = "ZZ_APP_URLS")]
    pub app_urls: Option<String>,
    /// Authorisation page of the social-messaging app (its in-app browser is sent there without a code).
    #[arg(long, env = "ZZ_SOCIAL_AUTH_URL")]
    pub social_auth_url: Option<String>,
    /// External site of the header's feedback icon (a tenant's 参数管理 `site.feedback` comes first; 未配置 without).
    #[arg(long, env = "ZZ_FEEDBACK_URL", default_value = "")]
    pub feedback_url: String,
    /// External site of the header's appraise icon (a tenant's 参数管理 `site.appraise` comes first; 未配置 without).
    #[arg(long, env = "ZZ_APPRAISE_URL", default_value = "")]
    pub appraise_url: String,
    /// Serve every page as the client-rendered shell (for comparing first paint with SSR off).
    #[arg(long, env = "ZZ_NO_SSR", value_parser = BoolishValueParser::new())]
    pub no_ssr: bool,
    /// Page cache of the data file, in MiB; 0 (the default) follows the machine: a quarter of its memory, no
    /// more than the data file, at least 32.
    #[arg(long, env = "ZZ_CACHE_MB", default_value_t = 0)]
    pub cache_mb: usize,
    /// Environment name recorded in the api log (BladeX `env`: dev, test, prod).
    #[arg(long, env = "ZZ_ENV", default_value = "prod")]
    pub env: String,
    /// Days the api, error, sign-in and general logs are kept; older entries are deleted hourly.
    #[arg(long, env = "ZZ_LOG_RETENTION_DAYS", default_value_t = 90, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub log_retention_days: u32,
    /// Longest a list that walks records (a text filter, a deep page) may take, waiting included, in ms;
    /// beyond it the request is answered 503 naming the filter.
    #[arg(long, env = "ZZ_WALK_DEADLINE_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub walk_deadline_ms: u64,
    /// Lists that walk records run at most this many at once (0: one fewer than the cores, at least one), so
    /// they cannot starve the other requests.
    #[arg(long, env = "ZZ_WALK_SLOTS", default_value_t = 0)]
    pub walk_slots: usize,
    /// Which requests the api log records: `writes` (the default, as BladeX: every change and every refused or
    /// failed request; successful reads are counted per route on the status screen and at /api/metrics), or
    /// `all` (successful reads too, one entry each; those may be shed under load, counted).
    #[arg(long, env = "ZZ_API_LOG", default_value = "writes", value_parser = ["all", "writes"])]
    pub api_log: String,
    /// The most the logs' file (zhizhuang-logs.redb) may hold in use, in MiB; beyond it the oldest entries go.
    #[arg(long, env = "ZZ_LOG_MAX_MB", default_value_t = 2048, value_parser = clap::value_parser!(u64).range(16..=1_048_576))]
    pub log_max_mb: u64,
    /// A token a monitoring system sends (`Authorization: Bearer <token>`) to scrape /api/metrics; without it
    /// only the platform administrator may read them. Set it in the environment, not on the command line.
    #[arg(long, env = "ZZ_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    /// Run without the search index (for comparison): text filters walk the records, the search box answers 503.
    #[arg(long, env = "ZZ_NO_SEARCH_INDEX", value_parser = BoolishValueParser::new())]
    pub no_search_index: bool,
    /// Ship every change of the data file to this replica (`s3://bucket/prefix`): continuous backup with
    /// point-in-time restore (`restore --from`), and the stream a standby follows. Credentials: AWS_ACCESS_KEY_ID,
    /// AWS_SECRET_ACCESS_KEY, AWS_REGION and AWS_ENDPOINT_URL (a store that is not AWS), or --replica-credentials.
    #[arg(long, env = "ZZ_REPLICATE", conflicts_with = "follow")]
    pub replicate: Option<String>,
    /// Serve as a read-only standby of this replica: a copy kept up to date from the bucket; writes answer 503
    /// naming the primary. `zhizhuang promote` makes it the primary.
    #[arg(long, env = "ZZ_FOLLOW")]
    pub follow: Option<String>,
    /// A file of KEY=VALUE lines with the AWS_* variables (instead of the environment).
    #[arg(long, env = "ZZ_REPLICA_CREDENTIALS")]
    pub replica_credentials: Option<PathBuf>,
    /// Where people reach this server, like https://erp.example.com (a standby names the primary by it).
    #[arg(long, env = "ZZ_PUBLIC_URL", default_value = "")]
    pub public_url: String,
    /// Internal addresses a company's object storage (资源管理 › 对象存储) and the replica set on 系统状态 may
    /// use, like `minio.lan:9000,192.168.1.0/24` (`host`, `host:port` or CIDR). Without them only public
    /// addresses are reached: never this machine, the LAN or a cloud's metadata service.
    #[arg(long, env = "ZZ_OSS_ALLOW_HOSTS", default_value = "", value_parser = parse_allow)]
    pub oss_allow_hosts: offbox::guard::Allow,
}

fn parse_allow(s: &str) -> Result<offbox::guard::Allow, String> {
    offbox::guard::Allow::parse(s)
}

#[cfg(test)]
mod help_tests {
    /// `zhizhuang <command> --help` says what every command and argument is (an administrator's only manual on a
    /// server without the README at hand).
    #[test]
    fn every_command_and_argument_says_what_it_is() {
        use clap::CommandFactory;
        fn walk(c: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in c.get_arguments() {
                let id = a.get_id().as_str();
                if id != "help" && id != "version" && a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sc in c.get_subcommands() {
                let p = format!("{path} {}", sc.get_name());
                if sc.get_about().is_none() && sc.get_name() != "help" {
                    missing.push(p.clone());
                }
                walk(sc, &p, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "zhizhuang", &mut missing);
        assert!(missing.is_empty(), "without help text: {missing:#?}");
    }
}
