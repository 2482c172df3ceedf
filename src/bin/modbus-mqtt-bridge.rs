//! `modbus-mqtt-bridge`: reads Modbus TCP devices and publishes their points over MQTT, and writes
//! points on request. Wires the command line to `actors::bridge`.

use actors::bridge::{config, run};
use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

/// Modbus TCP to MQTT bridge.
///
/// When the configuration file does not exist, a starter configuration is written there in the
/// format of its extension (commented YAML, or JSON), using the embedded broker, and the bridge
/// exits: edit it, then start again.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    /// Configuration file: .yml, .yaml or .json.
    #[arg(long, default_value = "config/config.yml")]
    config: PathBuf,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if !cli.config.exists() {
        return match printcost::write_starter_bridge_config(&cli.config) {
            Ok(told) => {
                println!("{told}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("modbus-mqtt-bridge: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let config = match config::load(&cli.config) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("modbus-mqtt-bridge: {e}");
            return ExitCode::FAILURE;
        }
    };
    printcost::init_logging(&config.logging.level, config.logging.json);
    let result = actix_rt::System::new().block_on(async move {
        let running = run::start(&config).map_err(|e| e.to_string())?;
        tracing::info!(sources = running.pollers.len(), "bridge running");
        printcost::stopped().await;
        running.link.close().await;
        Ok::<(), String>(())
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("modbus-mqtt-bridge: {message}");
            ExitCode::FAILURE
        }
    }
}
