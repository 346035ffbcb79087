//! Thin entry: parse the command line and dispatch.
use clap::Parser;
use zhizhuang::cli::{AdminCmd, Cli, Cmd};

/// mimalloc: glibc's malloc/free were a quarter of the CPU of a list request (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Serve(args) => {
            // Blocking work (store reads, password hashing) is CPU-bound: past a few threads per core more threads
            // add no throughput, only memory (each keeps its allocator's pages: 64 connections of uncached lists
            // grew the default pool to 50 threads and the server by ~160 MB).
            let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
            tokio::runtime::Builder::new_multi_thread().enable_all().max_blocking_threads((4 * cores).max(8)).build()?.block_on(zhizhuang::serve::run(args))
        }
        Cmd::Backup { dir, out } => zhizhuang::admin::backup(&dir, &out),
        Cmd::Verify { file } => {
            if !zhizhuang::admin::verify(&file)? {
                std::process::exit(1);
            }
            Ok(())
        }
        Cmd::Restore { dir, file } => zhizhuang::admin::restore(&dir, &file),
        Cmd::Compact { dir } => zhizhuang::admin::compact(&dir),
        Cmd::Reindex { dir } => zhizhuang::admin::reindex(&dir),
        Cmd::Admin { cmd: AdminCmd::Passwd { dir, tenant, account, password } } => zhizhuang::admin::passwd(&dir, &tenant, &account, password),
        Cmd::Openapi { out } => {
            let doc = zhizhuang::openapi::render(&zhizhuang::engine::resources::Resources::load()?);
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
