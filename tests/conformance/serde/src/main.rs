//! serde-replica: reads a Llama `config.json` the way candle or mistral.rs does and
//! prints what the runtime ends up holding, as one JSON object (the probe contract).
//!
//! Usage: serde-replica candle|mistralrs PATH_TO_CONFIG_JSON
//!
//! Exit status 0 whenever the runtime's behaviour was observed, including a load
//! error or panic; 2 when the probe itself was misused (bad arguments, unreadable file).

mod candle_llama;
mod generated_families;
mod mistralrs_llama;
mod report;

use std::io::ErrorKind;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::process::ExitCode;

use report::{Outcome, Report};

const CANDLE_VERSION: &str = "candle-transformers 0.11.0";
const MISTRALRS_VERSION: &str = "mistral.rs 9e922623f24b32d41f3892b74f0eed18707f4e6c";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (consumer, path) = match args.as_slice() {
        [_, consumer, path] => (consumer.as_str(), Path::new(path)),
        _ => return usage(),
    };
    let report = match consumer {
        "candle" => candle(path),
        "mistralrs" => mistralrs(path),
        family if family.starts_with("candle:") => std::fs::read(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
            .and_then(|bytes| generated_families::run(&family["candle:".len()..], &bytes)),
        _ => return usage(),
    };
    match report {
        Ok(report) => {
            println!("{}", report.into_json());
            ExitCode::SUCCESS
        }
        Err(problem) => {
            eprintln!("serde-replica: {problem}");
            ExitCode::from(2)
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: serde-replica candle|mistralrs PATH_TO_CONFIG_JSON");
    ExitCode::from(2)
}

/// candle's example: `serde_json::from_slice(&std::fs::read(path)?)`, then `into_config`.
fn candle(path: &Path) -> Result<Report, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let outcome = match candle_llama::parse(&bytes) {
        Err(e) => Outcome::Error(e.to_string()),
        Ok(cfg) => match catch_panic(|| candle_llama::runtime_values(cfg)) {
            Ok(values) => Outcome::Loads(values),
            Err(panic_message) => Outcome::Panic(panic_message),
        },
    };
    Ok(Report { runtime: "candle", version: CANDLE_VERSION, outcome })
}

/// mistral.rs's loader: `std::fs::read_to_string(path)?`, then `serde_json::from_str`.
fn mistralrs(path: &Path) -> Result<Report, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        // Not UTF-8: the runtime's own read fails, so this is its outcome, not ours.
        Err(e) if e.kind() == ErrorKind::InvalidData => {
            return Ok(Report {
                runtime: "mistralrs",
                version: MISTRALRS_VERSION,
                outcome: Outcome::Error(e.to_string()),
            })
        }
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let outcome = match mistralrs_llama::parse(&text) {
        Err(e) => Outcome::Error(e.to_string()),
        Ok(cfg) => match catch_panic(|| mistralrs_llama::runtime_values(cfg)) {
            Ok(Ok(values)) => Outcome::Loads(values),
            Ok(Err(load_error)) => Outcome::Error(load_error),
            Err(panic_message) => Outcome::Panic(panic_message),
        },
    };
    Ok(Report { runtime: "mistralrs", version: MISTRALRS_VERSION, outcome })
}

/// Runs a derivation that may panic the way the runtime would (e.g. dividing by zero
/// heads) and turns the panic into its message instead of a crash of the probe.
fn catch_panic<T>(derive: impl FnOnce() -> T) -> Result<T, String> {
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let result = panic::catch_unwind(AssertUnwindSafe(derive));
    panic::set_hook(default_hook);
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic with a non-string payload".to_string())
    })
}

