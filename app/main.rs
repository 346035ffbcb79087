//! Thin entry: parse the command line and dispatch.
use clap::Parser;
use zhizhuang::cli::{AdminCmd, Cli, Cmd};

/// mimalloc: glibc's malloc/free were a quarter of the CPU of a list request (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    // Everything this process creates — the data file, its logs, the index, the secret key, backups, restores,
    // exports — is readable by its own user only, whatever umask it was started with.
    #[cfg(target_os = "linux")]
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    let cli = Cli::parse();
    // Every file this process writes records which build wrote it last.
    store::set_binary(zhizhuang::BINARY);
    // The data directory an operator command works in: what it made there as root is given to the directory's
    // owner afterwards (the service's user could not open it otherwise).
    let touched = match &cli.cmd {
        Cmd::Restore { dir, .. } | Cmd::Recover { dir, .. } | Cmd::Compact { dir } | Cmd::Reindex { dir } | Cmd::Promote { dir, .. } => Some(dir.clone()),
        Cmd::Admin { cmd: AdminCmd::Passwd { dir, .. } } | Cmd::Backup { dir, .. } | Cmd::Cert { dir, .. } => Some(dir.clone()),
        Cmd::Verify { file } => file.parent().map(|p| p.to_path_buf()),
        _ => None,
    };
    let result = run(cli);
    if let Some(dir) = touched {
        zhizhuang::admin::give_back_to_owner(&dir);
    }
    result
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::Serve(args) => {
            // No transparent huge pages for this process: mimalloc asks for them on its arenas, and the kernel
            // then zeroes 2 MiB at each first touch — a large list answer's buffer (a picker's 999 rows, ~450 KB)
            // faulted in a fresh huge page on nearly every request (40% of its CPU in `clear_page_erms`; without:
            // the 999-row page at c=1 p90 10.7 -> 4.6 ms, bench/README.md).
            #[cfg(target_os = "linux")]
            if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
                eprintln!("transparent huge pages stay on: {e}");
            }
            // Blocking work (store reads, password hashing) is CPU-bound: past a few threads per core more threads
            // add no throughput, only memory (each keeps its allocator's pages: 64 connections of uncached lists
            // grew the default pool to 50 threads and the server by ~160 MB).
            let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
            tokio::runtime::Builder::new_multi_thread().enable_all().max_blocking_threads((4 * cores).max(8)).build()?.block_on(zhizhuang::serve::run(args))
        }
        Cmd::Backup { dir, out, with_logs } => zhizhuang::admin::backup(&dir, &out, with_logs),
        Cmd::Verify { file } => {
            if !zhizhuang::admin::verify(&file)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Cmd::Restore { dir, file, logs, from, at, tz, replica_credentials, without_logs } => match (file, from) {
            (Some(file), None) => zhizhuang::admin::restore(&dir, &file, logs.as_deref()),
            (None, Some(url)) => {
                zhizhuang::replica::restore_from(&dir, &url, at.as_deref(), &tz, replica_credentials.as_deref(), !without_logs && logs.is_none())?;
                match logs {
                    Some(l) => zhizhuang::admin::restore_logs(&dir, &l),
                    None => Ok(()),
                }
            }
            _ => anyhow::bail!("give a backup FILE or --from s3://bucket/prefix"),
        },
        Cmd::Promote { dir, replicate, replica_credentials, public_url, force } => zhizhuang::replica::promote(&dir, replicate.as_deref(), replica_credentials.as_deref(), &public_url, force),
        Cmd::Fenced { dir, out } => zhizhuang::replica::fenced(&dir, out.as_deref()),
        Cmd::Recover { dir, accept_loss } => zhizhuang::admin::recover(&dir, accept_loss),
        Cmd::Compact { dir } => zhizhuang::admin::compact(&dir),
        Cmd::Reindex { dir } => zhizhuang::admin::reindex(&dir),
        Cmd::Admin { cmd: AdminCmd::Passwd { dir, tenant, account, password } } => zhizhuang::admin::passwd(&dir, &tenant, &account, password),
        Cmd::Install { dir, http, https, tls_cert, tls_key, hosts, insecure_http, user, root, no_start } => {
            let plan = zhizhuang::install::Plan { dir, http, https, tls_cert, tls_key, user, bin: Default::default(), env_file: zhizhuang::install::ENV_FILE.into(), hosts, insecure_http };
            zhizhuang::install::install(plan, root.as_deref(), !no_start)
        }
        Cmd::Uninstall { root } => zhizhuang::install::uninstall(root.as_deref()),
        Cmd::Cert { hosts, dir, out, ca_dir } => zhizhuang::cert::run(&out.unwrap_or_else(|| dir.join("tls")), ca_dir.as_deref(), &hosts),
        Cmd::Openapi { out } => {
            let doc = zhizhuang::openapi::render(&zhizhuang::decl::Resources::load()?);
            match out {
                Some(path) => std::fs::write(&path, doc).map_err(|e| anyhow::anyhow!("{}: {e}", path.display())),
                None => {
                    print!("{doc}");
                    Ok(())
                }
            }
        }
    }
}
