//! The benchmark families the report knows (the crowd workload, agent
//! counts, thread counts, tree sizes): their ids, the lines they give, and
//! which of the expected benchmarks have no result.

use crate::criterion::{Measurement, Results};

/// One tick of the crowd workload, 5000 agents, 1 thread:
/// `workload_5000/<implementation>`.
pub const WORKLOAD: &str = "workload_5000";
/// One tick of N agents on 1 thread: `agents/<implementation>/<N>`.
pub const AGENTS: &str = "agents";
/// One tick of 100 000 agents on k threads: `threads_100k/<implementation>/<k>`.
pub const THREADS: &str = "threads_100k";
/// 5000 agents idling in the last branch of a tree of some size:
/// `tree_size/<variant>/<nodes>`.
pub const TREE_SIZE: &str = "tree_size";

/// The implementations compared, in the order tables and plots show them.
pub const IMPLEMENTATIONS: [&str; 3] = ["treebeard", "handcoded", "bonsai"];
/// The crowd workload's implementations, in the order its table shows
/// them: the interpreter, the compiled tree, the baselines.
pub const WORKLOAD_IMPLEMENTATIONS: [&str; 4] = ["treebeard", "compiled", "handcoded", "bonsai"];
/// The agent counts of the `agents` family.
pub const AGENT_COUNTS: [u64; 4] = [1000, 10_000, 100_000, 1_000_000];
/// The tree variants of the `tree_size` family.
pub const TREE_VARIANTS: [&str; 3] = ["reactive", "stored", "monitors"];

/// The measured points of one function of a family, by increasing
/// parameter.
#[derive(Debug)]
pub struct Line<'a> {
    /// The function (implementation or variant).
    pub name: String,
    /// (parameter, result), by increasing parameter.
    pub points: Vec<(f64, &'a Measurement)>,
}

/// Sorts names by their place in `preferred`, then the others by name.
pub fn order_names(names: &mut [String], preferred: &[&str]) {
    names.sort_by(|a, b| {
        let rank = |n: &str| {
            preferred
                .iter()
                .position(|p| *p == n)
                .unwrap_or(preferred.len())
        };
        rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
    });
}

/// The lines of a parameterised family (`agents`, `threads_100k`,
/// `tree_size`): one per function with numeric parameters, in `preferred`
/// order then by name.
pub fn lines<'a>(results: &'a Results, group: &str, preferred: &[&str]) -> Vec<Line<'a>> {
    let mut names = results.functions(group);
    order_names(&mut names, preferred);
    names
        .into_iter()
        .map(|name| Line {
            points: results.series(group, &name),
            name,
        })
        .filter(|line| !line.points.is_empty())
        .collect()
}

/// The parameters measured across `lines`, sorted and without repeats.
pub fn parameters(lines: &[Line<'_>]) -> Vec<f64> {
    let mut values: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    values
}

/// The point of `line` at parameter `value`.
pub fn at<'a>(line: &Line<'a>, value: f64) -> Option<&'a Measurement> {
    line.points.iter().find(|p| p.0 == value).map(|p| p.1)
}

/// The thread counts expected in `threads_100k`: 1, 2 and the machine's
/// logical core count when more.
pub fn expected_threads(cores: usize) -> Vec<u64> {
    let mut threads = vec![1, 2];
    if cores > 2 {
        threads.push(cores as u64);
    }
    threads
}

/// The known benchmarks with no result, by family, as ids
/// (`agents/handcoded/1000000`); a tree-size variant with no result at all
/// is named as `tree_size/<variant>/*`.
pub fn missing(results: &Results, cores: usize) -> Vec<(&'static str, Vec<String>)> {
    let absent = |group: &str, function: &str, value: Option<String>| {
        let found = results.get(group, function, value.as_deref()).is_some();
        (!found).then(|| match value {
            Some(v) => format!("{group}/{function}/{v}"),
            None => format!("{group}/{function}"),
        })
    };
    let workload = IMPLEMENTATIONS
        .iter()
        .filter_map(|i| absent(WORKLOAD, i, None))
        .collect();
    let agents = IMPLEMENTATIONS[..2]
        .iter()
        .flat_map(|i| AGENT_COUNTS.iter().map(move |n| (i, n)))
        .filter_map(|(i, n)| absent(AGENTS, i, Some(n.to_string())))
        .collect();
    let threads = IMPLEMENTATIONS[..2]
        .iter()
        .flat_map(|i| expected_threads(cores).into_iter().map(move |k| (i, k)))
        .filter_map(|(i, k)| absent(THREADS, i, Some(k.to_string())))
        .collect();
    let tree = TREE_VARIANTS
        .iter()
        .filter(|v| results.series(TREE_SIZE, v).is_empty())
        .map(|v| format!("{TREE_SIZE}/{v}/*"))
        .collect();
    vec![
        (WORKLOAD, workload),
        (AGENTS, agents),
        (THREADS, threads),
        (TREE_SIZE, tree),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criterion::{self, tests::write_result};
    use crate::testdir::test_dir;

    #[test]
    fn lines_and_missing_ids() {
        let dir = test_dir("figures");
        let root = dir.path();
        write_result(
            root,
            WORKLOAD,
            Some("treebeard"),
            None,
            Some(5000),
            50_000.0,
        );
        write_result(
            root,
            AGENTS,
            Some("handcoded"),
            Some("1000"),
            Some(1000),
            1000.0,
        );
        write_result(
            root,
            AGENTS,
            Some("treebeard"),
            Some("1000000"),
            Some(1_000_000),
            9e6,
        );
        write_result(
            root,
            AGENTS,
            Some("treebeard"),
            Some("1000"),
            Some(1000),
            8000.0,
        );
        write_result(root, AGENTS, Some("zeta"), Some("1000"), Some(1000), 8000.0);
        write_result(
            root,
            TREE_SIZE,
            Some("stored"),
            Some("10"),
            Some(5000),
            8000.0,
        );
        let results = criterion::load(root).unwrap();

        let agents = lines(&results, AGENTS, &IMPLEMENTATIONS);
        let names: Vec<&str> = agents.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["treebeard", "handcoded", "zeta"]);
        assert_eq!(parameters(&agents), [1000.0, 1_000_000.0]);
        assert_eq!(
            at(&agents[0], 1_000_000.0).unwrap().median_per_element(),
            9.0
        );
        assert!(at(&agents[1], 1_000_000.0).is_none());

        let missing = missing(&results, 4);
        let get = |family: &str| missing.iter().find(|m| m.0 == family).unwrap().1.clone();
        assert_eq!(
            get(WORKLOAD),
            ["workload_5000/handcoded", "workload_5000/bonsai"]
        );
        assert_eq!(get(AGENTS).len(), 5);
        assert!(get(AGENTS).contains(&"agents/handcoded/1000000".to_owned()));
        assert_eq!(
            get(THREADS),
            [
                "threads_100k/treebeard/1",
                "threads_100k/treebeard/2",
                "threads_100k/treebeard/4",
                "threads_100k/handcoded/1",
                "threads_100k/handcoded/2",
                "threads_100k/handcoded/4"
            ]
        );
        assert_eq!(
            get(TREE_SIZE),
            ["tree_size/reactive/*", "tree_size/monitors/*"]
        );
        assert_eq!(expected_threads(2), [1, 2]);
    }
}
