//! `printcost`: the print-cost service. Wires the command line to [`printcost::Application`].

use actors::accounts::ResetPassword;
use actors::backup;
use actors::passwords;
use actors::runtime::writer;
use actors::values;
use clap::Parser;
use printcost::cli::{Cli, Command, write_manual_pages};
use printcost::{Application, Config, open_store};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use storage::backup as store_backup;

fn main() -> ExitCode {
    let cli = Cli::parse();
    printcost::init_logging(&cli.log_level, false);
    let result = match &cli.command {
        None | Some(Command::Serve) => serve(cli.config(), cli.bridge_config.clone()),
        Some(Command::ResetPassword { email }) => reset_password(&cli.config(), email),
        Some(Command::Backup { file }) => backup(&cli.config(), file),
        Some(Command::Restore { file }) => restore(&cli.config(), file),
        Some(Command::ManualPages { dir }) => manual_pages(dir),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("printcost: {message}");
            ExitCode::FAILURE
        }
    }
}

fn serve(config: Config, bridge: Option<PathBuf>) -> Result<(), String> {
    if let Some(path) = bridge.as_ref().filter(|p| !p.exists()) {
        println!("{}", printcost::write_starter_bridge_config(path)?);
        return Ok(());
    }
    let mut config = config;
    config.bridge = bridge
        .map(|path| printcost::load_bridge_config(&path))
        .transpose()?;
    actix_web::rt::System::new().block_on(async move {
        let app = Application::build(&config).map_err(|e| e.to_string())?;
        tracing::info!(address = %app.address(), data_dir = %config.data_dir.display(), "printcost serving");
        app.run_until_stopped().await.map_err(|e| e.to_string())
    })
}

fn reset_password(config: &Config, email: &str) -> Result<(), String> {
    let store = open_store(config).map_err(|e| format!("{e} (stop the service first)"))?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the new password from standard input: {e}"))?;
    let password = values::Password::from_str(line.trim_end_matches(['\r', '\n']))
        .map_err(|_| "the new password must have at least 12 characters".to_string())?;
    let reset = ResetPassword {
        email: email.to_string(),
        password_hash: passwords::hash_password(&password).map_err(|e| e.to_string())?,
    };
    let account = writer::apply_offline(&store, &config.time_zone, reset).map_err(|e| match e {
        actors::Error::NotFound => format!("no account has the email {email}"),
        e => e.to_string(),
    })?;
    println!(
        "Password of {} reset; every session of the account has ended.",
        account.email
    );
    Ok(())
}

fn backup(config: &Config, file: &std::path::Path) -> Result<(), String> {
    let store = open_store(config).map_err(|e| format!("{e} (stop the service first)"))?;
    store
        .backup_to(file)
        .map_err(|e| format!("cannot write the backup to {}: {e}", file.display()))?;
    println!("Backup written to {}.", file.display());
    Ok(())
}

fn manual_pages(dir: &std::path::Path) -> Result<(), String> {
    write_manual_pages(dir)
        .map_err(|e| format!("cannot write the manual pages into {}: {e}", dir.display()))
}

fn restore(config: &Config, file: &std::path::Path) -> Result<(), String> {
    std::fs::create_dir_all(&config.data_dir)
        .map_err(|e| format!("cannot create {}: {e}", config.data_dir.display()))?;
    let target = config.data_dir.join(printcost::DATABASE_FILE);
    let label = backup::stamp(storage::Timestamp::now());
    let restored = store_backup::restore(file, &target, &label)
        .map_err(|e| format!("{} was not restored, nothing changed: {e}", file.display()))?;
    println!("Restored {} as {}.", file.display(), target.display());
    if let Some(kept) = restored.kept {
        println!("The previous database is kept as {}.", kept.display());
    }
    if restored.credentials_left_out > 0 {
        println!(
            "Backups leave out the integrations' credentials ({} here): enter them again under Settings › Integrations.",
            restored.credentials_left_out
        );
    }
    Ok(())
}
