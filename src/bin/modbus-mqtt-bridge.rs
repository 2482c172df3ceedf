//! `modbus-mqtt-bridge`: reads Modbus devices and publishes their points over MQTT, and writes
//! points on request. Wires the command line to `actors::bridge`.

use actors::bridge::{config, run};
use clap::Parser;
use printcost::cli::Bridge;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Bridge::parse();
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
    if let Err(problems) = config.require_sources() {
        let file = cli.config.display();
        eprintln!("modbus-mqtt-bridge: {file}: {}", problems.join("; "));
        return ExitCode::FAILURE;
    }
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
