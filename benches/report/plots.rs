//! The report's three plots, built from the results: `agents.svg`,
//! `threads.svg` and `tree_size.svg`. A plot with no data is not made.

use crate::criterion::Results;
use crate::figures::{self, AGENTS, IMPLEMENTATIONS, THREADS, TREE_SIZE, TREE_VARIANTS};
use crate::markdown::ratio;
use crate::svg::{Axis, Plot, Series};

/// One plot to write: its file name in the plots directory and its text.
#[derive(Debug, Clone)]
pub struct PlotFile {
    /// The file name (`agents.svg`).
    pub name: &'static str,
    /// What it shows, for links and messages.
    pub caption: &'static str,
    /// The plot, or `None` when its data is absent.
    pub plot: Option<Plot>,
}

/// The colour of an implementation or variant: stable across plots.
fn colour_of(name: &str, preferred: &[&str], others: &mut usize) -> usize {
    match preferred.iter().position(|p| *p == name) {
        Some(i) => i,
        None => {
            *others += 1;
            preferred.len() + *others - 1
        }
    }
}

/// The lines of a family as plot series of ns per element.
fn series(results: &Results, group: &str, preferred: &[&str]) -> Vec<Series> {
    let mut others = 0;
    figures::lines(results, group, preferred)
        .iter()
        .map(|line| {
            let points = line
                .points
                .iter()
                .map(|(v, m)| (*v, m.median_per_element()))
                .collect();
            Series::new(
                &line.name,
                colour_of(&line.name, preferred, &mut others),
                points,
            )
        })
        .collect()
}

/// ns per agent-tick against agents (log x), one line per implementation.
pub fn agents(results: &Results) -> Option<Plot> {
    let series = series(results, AGENTS, &IMPLEMENTATIONS);
    (!series.is_empty()).then(|| Plot {
        title: "One tick, 1 thread: time per agent against agents".into(),
        x: Axis::log("agents"),
        y: Axis::linear("ns per agent-tick (median)"),
        series,
    })
}

/// ns per agent-tick against threads at 100 000 agents, a dashed perfect
/// scaling line from each implementation's 1-thread point, and the
/// speed-up over 1 thread written at each point.
pub fn threads(results: &Results) -> Option<Plot> {
    let measured = series(results, THREADS, &IMPLEMENTATIONS);
    if measured.is_empty() {
        return None;
    }
    let mut all = Vec::new();
    for (i, mut line) in measured.into_iter().enumerate() {
        // The second line's labels go below its points, away from the
        // first's.
        line.labels_below = i % 2 == 1;
        let one = line.points.iter().find(|p| p.0 == 1.0).map(|p| p.1);
        let mut perfect = None;
        if let Some(one) = one {
            line.labels = line
                .points
                .iter()
                .map(|p| format!("×{}", ratio(one / p.1)))
                .collect();
            let mut ideal = Series::new(
                &format!("{}, perfect scaling", line.name),
                line.colour,
                line.points.iter().map(|p| (p.0, one / p.0)).collect(),
            );
            ideal.dashed = true;
            perfect = Some(ideal);
        }
        all.push(line);
        all.extend(perfect);
    }
    // Log on both axes: perfect scaling is a straight line.
    Some(Plot {
        title: "One tick of 100 000 agents: time per agent against threads".into(),
        x: Axis::log("threads"),
        y: Axis::log("ns per agent-tick (median)"),
        series: all,
    })
}

/// ns per agent-tick against tree nodes (log x), one line per variant.
pub fn tree_size(results: &Results) -> Option<Plot> {
    let series = series(results, TREE_SIZE, &TREE_VARIANTS);
    (!series.is_empty()).then(|| Plot {
        title: "5000 agents idling in the last branch: time per agent against tree size".into(),
        x: Axis::log("tree nodes"),
        y: Axis::linear("ns per agent-tick (median)"),
        series,
    })
}

/// All three plots, in the report's order.
pub fn all(results: &Results) -> Vec<PlotFile> {
    vec![
        PlotFile {
            name: "agents.svg",
            caption: "ns per agent-tick against agents",
            plot: agents(results),
        },
        PlotFile {
            name: "threads.svg",
            caption: "ns per agent-tick against threads at 100 000 agents",
            plot: threads(results),
        },
        PlotFile {
            name: "tree_size.svg",
            caption: "ns per agent-tick against tree nodes",
            plot: tree_size(results),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::criterion::{self, tests::write_result};
    use crate::svg::tests::check_balanced;
    use crate::testdir::test_dir;

    #[test]
    fn plots_from_results() {
        let dir = test_dir("plots");
        let root = dir.path();
        for (k, ns) in [(1, 2e6), (2, 1.1e6), (4, 0.6e6)] {
            let k = k.to_string();
            write_result(
                root,
                THREADS,
                Some("treebeard"),
                Some(&k),
                Some(100_000),
                ns,
            );
            write_result(
                root,
                THREADS,
                Some("handcoded"),
                Some(&k),
                Some(100_000),
                ns / 2.0,
            );
        }
        write_result(
            root,
            AGENTS,
            Some("treebeard"),
            Some("1000"),
            Some(1000),
            8000.0,
        );
        let results = criterion::load(root).unwrap();

        let plots = all(&results);
        assert!(plots[2].plot.is_none(), "no tree_size data, no plot");
        let threads = plots[1].plot.as_ref().unwrap();
        assert_eq!(threads.series.len(), 4);
        assert!(threads.series[1].dashed);
        assert_eq!(
            threads.series[1].points,
            [(1.0, 20.0), (2.0, 10.0), (4.0, 5.0)]
        );
        assert_eq!(threads.series[0].labels, ["×1.00", "×1.82", "×3.33"]);
        let svg = threads.render();
        check_balanced(&svg);
        assert!(svg.contains("treebeard, perfect scaling"));
        assert!(svg.contains("×1.82"));
        assert!(svg.contains("threads\n</text>"));

        let agents = plots[0].plot.as_ref().unwrap().render();
        check_balanced(&agents);
        assert!(agents.contains("agents\n</text>"));
    }
}
