//! Reading criterion's results: every `<dir>/**/new/benchmark.json` (the
//! benchmark's id and throughput) with the `new/estimates.json` beside it
//! (the median and mean time of one iteration, in nanoseconds).

use crate::error::{Error, Result};
use serde::Deserialize;
use std::cmp::Ordering;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One benchmark's latest result, as criterion saved it.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The benchmark group (`agents`, `workload_5000`, ...).
    pub group: String,
    /// The function within the group (`treebeard`), when there is one.
    pub function: Option<String>,
    /// The parameter (`1000000`), when there is one.
    pub value: Option<String>,
    /// The whole id, `group/function/value`.
    pub full_id: String,
    /// How many elements one iteration handles (criterion's
    /// `Throughput::Elements`), when the bench said so.
    pub elements: Option<u64>,
    /// The median time of one iteration, in ns.
    pub median_ns: f64,
    /// The lower bound of the median's confidence interval, in ns.
    pub lower_ns: f64,
    /// The upper bound of the median's confidence interval, in ns.
    pub upper_ns: f64,
    /// The confidence level of that interval (0.95 by default).
    pub confidence_level: f64,
    /// The mean time of one iteration, in ns.
    pub mean_ns: f64,
    /// When the estimates were written.
    pub modified: Option<SystemTime>,
}

impl Measurement {
    /// `ns` divided by the elements of one iteration (ns per agent-tick for
    /// the crowd benches), or `ns` itself when the bench set no element
    /// throughput.
    pub fn per_element(&self, ns: f64) -> f64 {
        match self.elements {
            Some(n) if n > 0 => ns / n as f64,
            _ => ns,
        }
    }

    /// The median in ns per element (see [`Measurement::per_element`]).
    pub fn median_per_element(&self) -> f64 {
        self.per_element(self.median_ns)
    }

    /// The parameter as a number, when it is one.
    pub fn value_number(&self) -> Option<f64> {
        self.value.as_deref().and_then(|v| v.trim().parse().ok())
    }
}

/// Every result found under a criterion directory, sorted by id (numbers
/// in ids compared as numbers).
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// The results, sorted by [`compare_ids`] of their full ids.
    pub measurements: Vec<Measurement>,
}

impl Results {
    /// The result of `group/function[/value]`, if measured.
    pub fn get(&self, group: &str, function: &str, value: Option<&str>) -> Option<&Measurement> {
        self.measurements.iter().find(|m| {
            m.group == group
                && m.function.as_deref() == Some(function)
                && match value {
                    None => m.value.is_none(),
                    Some(v) => m.value.as_deref() == Some(v) || same_number(m.value.as_deref(), v),
                }
        })
    }

    /// Every result of `group/function/<number>`, by increasing number.
    pub fn series(&self, group: &str, function: &str) -> Vec<(f64, &Measurement)> {
        let mut points: Vec<(f64, &Measurement)> = self
            .measurements
            .iter()
            .filter(|m| m.group == group && m.function.as_deref() == Some(function))
            .filter_map(|m| m.value_number().map(|v| (v, m)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    }

    /// The functions measured in `group`, sorted.
    pub fn functions(&self, group: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .measurements
            .iter()
            .filter(|m| m.group == group)
            .filter_map(|m| m.function.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The time the newest result was written.
    pub fn newest(&self) -> Option<SystemTime> {
        self.measurements.iter().filter_map(|m| m.modified).max()
    }
}

fn same_number(a: Option<&str>, b: &str) -> bool {
    match (
        a.and_then(|a| a.trim().parse::<f64>().ok()),
        b.trim().parse::<f64>().ok(),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// Orders benchmark ids segment by segment (`/`-separated), comparing two
/// segments that are both numbers as numbers, so `agents/treebeard/1000`
/// comes before `agents/treebeard/10000` and `threads/2` before `threads/16`.
pub fn compare_ids(a: &str, b: &str) -> Ordering {
    let mut left = a.split('/');
    let mut right = b.split('/');
    loop {
        match (left.next(), right.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(p), Ok(q)) => p.total_cmp(&q).then_with(|| x.cmp(y)),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

/// `benchmark.json` as criterion 0.8 writes it (the fields used here).
#[derive(Deserialize)]
struct BenchmarkFile {
    group_id: String,
    #[serde(default)]
    function_id: Option<String>,
    #[serde(default)]
    value_str: Option<String>,
    #[serde(default)]
    throughput: Option<serde_json::Value>,
    #[serde(default)]
    full_id: Option<String>,
}

/// `estimates.json` as criterion 0.8 writes it (the fields used here).
#[derive(Deserialize)]
struct EstimatesFile {
    mean: Estimate,
    median: Estimate,
}

#[derive(Deserialize)]
struct Estimate {
    point_estimate: f64,
    confidence_interval: Interval,
}

#[derive(Deserialize)]
struct Interval {
    #[serde(default)]
    confidence_level: Option<f64>,
    lower_bound: f64,
    upper_bound: f64,
}

/// The elements of one iteration from criterion's serialised `Throughput`:
/// `{"Elements": n}` or `{"ElementsAndBytes": {"elements": n, ...}}`; the
/// byte and bit throughputs give none.
fn elements_of(throughput: Option<&serde_json::Value>) -> Option<u64> {
    let t = throughput?;
    t.get("Elements")
        .and_then(serde_json::Value::as_u64)
        .or_else(|| {
            t.get("ElementsAndBytes")
                .and_then(|e| e.get("elements"))
                .and_then(serde_json::Value::as_u64)
        })
        .filter(|&n| n > 0)
}

/// Reads and parses one JSON file, with an error naming it.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = fs::read_to_string(path).map_err(|e| Error::io("read", path, &e))?;
    serde_json::from_str(&text).map_err(|e| {
        Error::new(format!(
            "malformed JSON in {}: {e} (delete it or rerun the benchmark that wrote it)",
            path.display()
        ))
    })
}

/// Reads every result under the criterion directory `dir`.
///
/// Fails when `dir` holds none, when a `benchmark.json` has no
/// `estimates.json` beside it, or when either is malformed (the error
/// names the file).
pub fn load(dir: &Path) -> Result<Results> {
    if !dir.is_dir() {
        return Err(Error::new(format!(
            "no criterion results under {}: run `cargo bench -p treebeard-benches` first \
             (or pass --criterion DIR)",
            dir.display()
        )));
    }
    let mut files = Vec::new();
    find_benchmark_files(dir, &mut files)?;
    files.sort();
    if files.is_empty() {
        return Err(Error::new(format!(
            "no criterion results under {} (no */new/benchmark.json): run \
             `cargo bench -p treebeard-benches` first",
            dir.display()
        )));
    }
    let mut measurements = Vec::with_capacity(files.len());
    for file in files {
        measurements.push(read_measurement(&file)?);
    }
    measurements.sort_by(|a, b| compare_ids(&a.full_id, &b.full_id));
    // Two directories naming one id (criterion would not write that): keep
    // the newer.
    measurements.dedup_by(|later, earlier| {
        if later.full_id != earlier.full_id {
            return false;
        }
        if later.modified > earlier.modified {
            std::mem::swap(later, earlier);
        }
        true
    });
    Ok(Results { measurements })
}

/// Collects every `new/benchmark.json` below `dir`, not following links.
fn find_benchmark_files(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    let entries = fs::read_dir(dir).map_err(|e| Error::io("list", dir, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("list", dir, &e))?;
        let kind = entry
            .file_type()
            .map_err(|e| Error::io("inspect", &entry.path(), &e))?;
        if !kind.is_dir() {
            continue;
        }
        let path = entry.path();
        if entry.file_name() == "new" {
            let file = path.join("benchmark.json");
            if file.is_file() {
                found.push(file);
            }
        } else {
            find_benchmark_files(&path, found)?;
        }
    }
    Ok(())
}

/// Reads one `new/benchmark.json` and its `new/estimates.json`.
fn read_measurement(benchmark: &Path) -> Result<Measurement> {
    let id: BenchmarkFile = read_json(benchmark)?;
    let estimates_path = benchmark.with_file_name("estimates.json");
    if !estimates_path.is_file() {
        return Err(Error::new(format!(
            "{} has no estimates.json beside it: rerun the benchmark (cargo bench) \
             or delete its directory",
            benchmark.display()
        )));
    }
    let estimates: EstimatesFile = read_json(&estimates_path)?;
    let median = &estimates.median;
    let numbers = [
        median.point_estimate,
        median.confidence_interval.lower_bound,
        median.confidence_interval.upper_bound,
        estimates.mean.point_estimate,
    ];
    if numbers.iter().any(|n| !n.is_finite() || *n < 0.0) {
        return Err(Error::new(format!(
            "{} holds a negative or non-finite time: rerun the benchmark",
            estimates_path.display()
        )));
    }
    let full_id = id.full_id.clone().unwrap_or_else(|| {
        [
            Some(id.group_id.as_str()),
            id.function_id.as_deref(),
            id.value_str.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("/")
    });
    let modified = fs::metadata(&estimates_path)
        .and_then(|m| m.modified())
        .ok();
    Ok(Measurement {
        elements: elements_of(id.throughput.as_ref()),
        group: id.group_id,
        function: id.function_id,
        value: id.value_str,
        full_id,
        median_ns: median.point_estimate,
        lower_ns: median.confidence_interval.lower_bound,
        upper_ns: median.confidence_interval.upper_bound,
        confidence_level: median.confidence_interval.confidence_level.unwrap_or(0.95),
        mean_ns: estimates.mean.point_estimate,
        modified,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::testdir::test_dir;

    /// Writes a result as criterion 0.8 does, under `root`.
    pub(crate) fn write_result(
        root: &Path,
        group: &str,
        function: Option<&str>,
        value: Option<&str>,
        elements: Option<u64>,
        median: f64,
    ) {
        let parts: Vec<&str> = [Some(group), function, value]
            .into_iter()
            .flatten()
            .collect();
        let full_id = parts.join("/");
        let dir = parts
            .iter()
            .fold(root.to_path_buf(), |d, p| d.join(p))
            .join("new");
        fs::create_dir_all(&dir).unwrap();
        let benchmark = serde_json::json!({
            "group_id": group,
            "function_id": function,
            "value_str": value,
            "throughput": elements.map(|n| serde_json::json!({"Elements": n})),
            "full_id": full_id,
            "directory_name": full_id,
            "title": full_id,
        });
        fs::write(dir.join("benchmark.json"), benchmark.to_string()).unwrap();
        let estimate = |p: f64| {
            serde_json::json!({
                "confidence_interval": {
                    "confidence_level": 0.95,
                    "lower_bound": p * 0.99,
                    "upper_bound": p * 1.01,
                },
                "point_estimate": p,
                "standard_error": p * 0.005,
            })
        };
        let estimates = serde_json::json!({
            "mean": estimate(median * 1.02),
            "median": estimate(median),
            "median_abs_dev": estimate(median * 0.01),
            "slope": estimate(median),
            "std_dev": estimate(median * 0.02),
        });
        fs::write(dir.join("estimates.json"), estimates.to_string()).unwrap();
    }

    #[test]
    fn reads_a_criterion_tree() {
        let dir = test_dir("criterion-tree");
        let root = dir.path();
        write_result(
            root,
            "agents",
            Some("treebeard"),
            Some("10000"),
            Some(10_000),
            50_000.0,
        );
        write_result(
            root,
            "agents",
            Some("treebeard"),
            Some("1000"),
            Some(1000),
            4_000.0,
        );
        write_result(root, "gate_5000", Some("plain"), None, Some(5000), 10_000.0);
        write_result(root, "lonely", None, None, None, 7.5);
        // criterion's own directories beside `new` are not results.
        fs::create_dir_all(root.join("agents/report")).unwrap();
        fs::create_dir_all(root.join("agents/treebeard/1000/base")).unwrap();
        fs::write(
            root.join("agents/treebeard/1000/base/benchmark.json"),
            "garbage",
        )
        .unwrap();

        let results = load(root).unwrap();
        let ids: Vec<&str> = results
            .measurements
            .iter()
            .map(|m| m.full_id.as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "agents/treebeard/1000",
                "agents/treebeard/10000",
                "gate_5000/plain",
                "lonely"
            ]
        );
        let m = results.get("agents", "treebeard", Some("1000")).unwrap();
        assert_eq!(m.elements, Some(1000));
        assert_eq!(m.median_ns, 4_000.0);
        assert!((m.lower_ns - 3_960.0).abs() < 1e-9);
        assert!((m.upper_ns - 4_040.0).abs() < 1e-9);
        assert!((m.mean_ns - 4_080.0).abs() < 1e-9);
        assert_eq!(m.median_per_element(), 4.0);
        let series = results.series("agents", "treebeard");
        assert_eq!(series.len(), 2);
        assert_eq!(series[1].0, 10_000.0);
        assert_eq!(series[1].1.median_per_element(), 5.0);
        assert_eq!(
            results
                .get("gate_5000", "plain", None)
                .unwrap()
                .median_per_element(),
            2.0
        );
        assert_eq!(results.measurements[3].median_per_element(), 7.5);
        assert!(results.newest().is_some());
    }

    #[test]
    fn a_malformed_file_is_an_error_naming_it() {
        let dir = test_dir("criterion-malformed");
        let root = dir.path();
        write_result(
            root,
            "agents",
            Some("treebeard"),
            Some("1000"),
            Some(1000),
            4_000.0,
        );
        let bad = root.join("agents/treebeard/1000/new/estimates.json");
        fs::write(&bad, "{\"median\": ").unwrap();
        let err = load(root).unwrap_err();
        assert!(err.message().contains(&bad.display().to_string()), "{err}");
        assert!(err.message().contains("malformed JSON"), "{err}");

        let bad = root.join("agents/treebeard/1000/new/benchmark.json");
        fs::write(&bad, "[1, 2]").unwrap();
        let err = load(root).unwrap_err();
        assert!(err.message().contains(&bad.display().to_string()), "{err}");
    }

    #[test]
    fn missing_results_are_a_clear_error() {
        let dir = test_dir("criterion-empty");
        let err = load(&dir.path().join("absent")).unwrap_err();
        assert!(err.message().contains("run `cargo bench"), "{err}");
        let err = load(dir.path()).unwrap_err();
        assert!(err.message().contains("no criterion results"), "{err}");

        write_result(dir.path(), "g", Some("f"), None, None, 1.0);
        fs::remove_file(dir.path().join("g/f/new/estimates.json")).unwrap();
        let err = load(dir.path()).unwrap_err();
        assert!(err.message().contains("estimates.json"), "{err}");
    }

    #[test]
    fn ids_sort_numbers_as_numbers() {
        let mut ids = vec!["a/x/10000", "a/x/1000", "a/x/200", "a/w", "a/x/abc", "b"];
        ids.sort_by(|a, b| compare_ids(a, b));
        assert_eq!(
            ids,
            ["a/w", "a/x/200", "a/x/1000", "a/x/10000", "a/x/abc", "b"]
        );
    }
}
