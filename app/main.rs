//! Thin entry: parse the command line and dispatch.
use clap::Parser;
use zhizhuang::cli::{AdminCmd, Cli, Cmd};

/// mimalloc: glibc's malloc/free were a quarter of the CPU of a list request (bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Serve(args) => tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(zhizhuang::serve::run(args)),
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
