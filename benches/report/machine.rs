//! What machine the report describes: CPU, cores, memory, OS and compiler
//! (read from /proc and `rustc --version` on the machine running the
//! tool), and the date of the newest results.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The machine section of the report; every field is text to show as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// The CPU model (`model name` of /proc/cpuinfo).
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: String,
    /// Total memory (MemTotal of /proc/meminfo), in GiB.
    pub memory: String,
    /// The OS and kernel release.
    pub os: String,
    /// `rustc --version`.
    pub rustc: String,
    /// The newest results' modification time, UTC, `YYYY-MM-DD HH:MM`.
    pub results_date: String,
}

const UNKNOWN: &str = "unknown";

impl Machine {
    /// Reads this machine's description; `newest` is the newest results'
    /// modification time.
    pub fn detect(newest: Option<SystemTime>) -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty());
        let os = match release {
            Some(r) => format!("{} {r}", os_name()),
            None => std::fs::read_to_string("/proc/version")
                .ok()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
                .unwrap_or_else(|| os_name().to_owned()),
        };
        Self {
            cpu: cpu_model(&cpuinfo).unwrap_or_else(|| UNKNOWN.to_owned()),
            cores: std::thread::available_parallelism()
                .map(|n| n.to_string())
                .unwrap_or_else(|_| UNKNOWN.to_owned()),
            memory: mem_total(&meminfo).unwrap_or_else(|| UNKNOWN.to_owned()),
            os,
            rustc: rustc_version().unwrap_or_else(|| UNKNOWN.to_owned()),
            results_date: newest.map(format_utc).unwrap_or_else(|| UNKNOWN.to_owned()),
        }
    }
}

fn os_name() -> &'static str {
    match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "macOS",
        "windows" => "Windows",
        other => other,
    }
}

/// The first `model name` (x86) or `Hardware`/`Processor` (some ARM) line
/// of /proc/cpuinfo.
pub fn cpu_model(cpuinfo: &str) -> Option<String> {
    ["model name", "Hardware", "Processor", "cpu model"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_owned())
            })
        })
}

/// MemTotal of /proc/meminfo, as `15.6 GiB`.
pub fn mem_total(meminfo: &str) -> Option<String> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: f64 = line
        .trim_start_matches("MemTotal:")
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(format!("{:.1} GiB", kib / (1024.0 * 1024.0)))
}

/// `rustc --version` (the `RUSTC` the environment names, or `rustc`).
fn rustc_version() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(rustc).arg("--version").output().ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// A time as `YYYY-MM-DD HH:MM` UTC (times before 1970 as `1970-01-01 00:00`).
pub fn format_utc(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_utc_dates() {
        let at = |s: u64| format_utc(UNIX_EPOCH + Duration::from_secs(s));
        assert_eq!(at(0), "1970-01-01 00:00");
        assert_eq!(at(951_782_400 + 3600 * 13 + 60 * 7), "2000-02-29 13:07");
        assert_eq!(at(1_798_761_599), "2026-12-31 23:59");
        assert_eq!(at(1_709_251_199), "2024-02-29 23:59");
    }

    #[test]
    fn reads_proc_files() {
        let cpuinfo = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
                       processor\t: 1\nmodel name\t: AMD EPYC 7B13\n";
        assert_eq!(cpu_model(cpuinfo).as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(cpu_model("processor : 0\n"), None);
        let meminfo = "MemTotal:       16384000 kB\nMemFree:         1000 kB\n";
        assert_eq!(mem_total(meminfo).as_deref(), Some("15.6 GiB"));
        assert_eq!(mem_total(""), None);
    }
}
