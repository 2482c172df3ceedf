//! `printcost`: the print-cost service. Wires the command line to [`printcost::Application`].

use actors::accounts::ResetPassword;
use actors::backup;
use actors::passwords;
use actors::runtime::writer;
use actors::values;
use clap::Parser;
use printcost::cli::{Cli, Command, JournalCommand, write_manual_pages};
use printcost::control;
use printcost::{Application, Config, open_store};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;
use storage::backup as store_backup;
use storage::journal::{self, Verdict};

fn main() -> ExitCode {
    let cli = Cli::parse();
    printcost::init_logging(&cli.log_level, false);
    let result = match &cli.command {
        None | Some(Command::Serve) => serve(cli.config(), cli.bridge_config.clone()),
        Some(Command::ResetPassword { email }) => reset_password(&cli.config(), email),
        Some(Command::Backup { file }) => backup(&cli.config(), file),
        Some(Command::Restore { file }) => restore(&cli.config(), file),
        Some(Command::Journal {
            command: JournalCommand::Verify { file },
        }) => verify_journal(&cli.config(), file.as_deref()),
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
    let store =
        open_store(config).map_err(|e| format!("cannot open the restored database: {e}"))?;
    let name = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let record = backup::RecordRestore {
        at: storage::Timestamp::now(),
        file: name,
    };
    writer::apply_offline(&store, &config.time_zone, record)
        .map_err(|e| format!("the restore was not recorded in the journal: {e}"))?;
    drop(store);
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

/// `printcost journal verify`: the file itself when no service holds it, else the running
/// service (its control file names where and with which token). Exit 1 on a broken chain.
fn verify_journal(config: &Config, file: Option<&std::path::Path>) -> Result<(), String> {
    let path = file.map_or_else(
        || config.data_dir.join(printcost::DATABASE_FILE),
        PathBuf::from,
    );
    let verdict = match journal::verify_file(&path) {
        Ok(Some(verdict)) => verdict,
        Ok(None) if file.is_none() => ask_the_service(config)?,
        Ok(None) => return Err(format!("{} is open in a running service", path.display())),
        Err(e) => {
            // A file whose writer was killed needs redb's repair, which opening it does.
            tracing::debug!(error = %e, "read-only open refused; opening the store");
            let store = storage::Store::open(&path, config.store_options())
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            let txn = store.begin_read().map_err(|e| e.to_string())?;
            journal::verify(&txn).map_err(|e| e.to_string())?
        }
    };
    match verdict {
        Verdict::Intact { entries, head } => {
            println!("The journal is intact: {entries} entries, head {head}.");
            Ok(())
        }
        Verdict::Broken { seq, reason } => {
            Err(format!("the journal is broken at entry {seq}: {reason}"))
        }
    }
}

/// Asks the running service to check its journal (`GET /api/journal/verify`).
fn ask_the_service(config: &Config) -> Result<Verdict, String> {
    let control = control::read(&config.data_dir).map_err(|e| {
        format!(
            "the database is in use, and {} cannot be read ({e}): run this as the service's user",
            control::path(&config.data_dir).display()
        )
    })?;
    let url = format!("{}/api/journal/verify", control.url);
    let answer: serde_json::Value = actix_web::rt::System::new()
        .block_on(async {
            let response = reqwest::Client::new()
                .get(&url)
                .bearer_auth(&control.token)
                .send()
                .await?
                .error_for_status()?;
            response.json().await
        })
        .map_err(|e| format!("the running service did not answer {url}: {e}"))?;
    let number = |key: &str| answer[key].as_u64().unwrap_or(0);
    let text = |key: &str| answer[key].as_str().unwrap_or_default().to_string();
    Ok(if answer["intact"] == true {
        Verdict::Intact {
            entries: number("entries"),
            head: text("head"),
        }
    } else {
        Verdict::Broken {
            seq: number("brokenSeq"),
            reason: text("reason"),
        }
    })
}
