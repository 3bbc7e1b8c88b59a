//! A small hand-written SVG line-plot writer: a title, two axes (linear or
//! logarithmic) with labelled ticks and gridlines, one polyline with point
//! markers per series (optionally dashed, optionally with a label at each
//! point) and a legend. Light background, colour-blind-friendly colours,
//! the system's sans-serif font.

use std::fmt::Write as _;

/// How an axis maps values to positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// Evenly spaced values.
    Linear,
    /// Evenly spaced powers of ten (values ≤ 0 are left out).
    Log,
}

/// One axis of a plot.
#[derive(Debug, Clone)]
pub struct Axis {
    /// The label under (x) or beside (y) the axis.
    pub label: String,
    /// Linear or logarithmic.
    pub scale: Scale,
    /// Whether a linear axis starts at zero whatever the data.
    pub from_zero: bool,
    /// Ticks to use instead of the computed ones (a linear axis then spans
    /// them and the data).
    pub ticks: Option<Vec<f64>>,
}

impl Axis {
    /// A linear axis starting at zero.
    pub fn linear(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            scale: Scale::Linear,
            from_zero: true,
            ticks: None,
        }
    }

    /// A logarithmic axis.
    pub fn log(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            scale: Scale::Log,
            from_zero: false,
            ticks: None,
        }
    }
}

/// One line of a plot.
#[derive(Debug, Clone)]
pub struct Series {
    /// The name in the legend.
    pub name: String,
    /// The points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Index into the palette.
    pub colour: usize,
    /// Drawn dashed, without markers (for reference lines).
    pub dashed: bool,
    /// A label to write at each point (empty: none).
    pub labels: Vec<String>,
    /// Whether the labels go below the points rather than above.
    pub labels_below: bool,
}

impl Series {
    /// A solid line with markers.
    pub fn new(name: &str, colour: usize, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.to_owned(),
            points,
            colour,
            dashed: false,
            labels: Vec::new(),
            labels_below: false,
        }
    }
}

/// A line plot.
#[derive(Debug, Clone)]
pub struct Plot {
    /// The title above the plot.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The lines.
    pub series: Vec<Series>,
}

/// The series colours: Okabe and Ito's palette, distinct to most eyes.
const PALETTE: [&str; 7] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#444444",
];

/// The colour of palette entry `i`.
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

const WIDTH: f64 = 820.0;
const HEIGHT: f64 = 470.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = WIDTH - 250.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = HEIGHT - 64.0;
const FONT: &str =
    "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";

/// An axis's value range, its ticks and how it maps values to pixels.
struct Mapped {
    scale: Scale,
    lo: f64,
    hi: f64,
    /// (value, label, major): majors are labelled and drawn darker.
    ticks: Vec<(f64, String, bool)>,
}

impl Mapped {
    /// The fraction of the way from `lo` to `hi` of `v`.
    fn fraction(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => (v - self.lo) / (self.hi - self.lo),
            Scale::Log => (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10()),
        }
    }

    fn x(&self, v: f64) -> f64 {
        LEFT + self.fraction(v) * (RIGHT - LEFT)
    }

    fn y(&self, v: f64) -> f64 {
        BOTTOM - self.fraction(v) * (BOTTOM - TOP)
    }
}

/// Whether `v` can be drawn on an axis of `scale`.
fn drawable(scale: Scale, v: f64) -> bool {
    v.is_finite() && (scale == Scale::Linear || v > 0.0)
}

/// A round step near `span / 5`: 1, 2 or 5 times a power of ten.
fn nice_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let m = raw / magnitude;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

/// A tick label: `k` and `M` for round thousands and millions, otherwise
/// `decimals` decimals.
pub fn tick_label(v: f64, decimals: usize) -> String {
    let a = v.abs();
    if a >= 1e6 && (v / 1e5).fract().abs() < 1e-9 {
        return trim(format!("{:.1}", v / 1e6)) + "M";
    }
    if a >= 1e3 && (v / 1e2).fract().abs() < 1e-9 {
        return trim(format!("{:.1}", v / 1e3)) + "k";
    }
    format!("{v:.decimals$}")
}

fn trim(s: String) -> String {
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// Works out an axis's range and ticks from the values drawn on it.
fn map_axis(axis: &Axis, values: &[f64]) -> Mapped {
    let values: Vec<f64> = values
        .iter()
        .copied()
        .chain(axis.ticks.iter().flatten().copied())
        .filter(|&v| drawable(axis.scale, v))
        .collect();
    let min = values.iter().copied().reduce(f64::min);
    let max = values.iter().copied().reduce(f64::max);
    match axis.scale {
        Scale::Log => {
            let (min, max) = (min.unwrap_or(1.0), max.unwrap_or(10.0));
            if let Some(t) = &axis.ticks {
                // Given ticks (thread counts): span the data with a margin
                // rather than whole decades.
                let (lo, hi) = if max > min {
                    (min, max)
                } else {
                    (min / 2.0, min * 2.0)
                };
                let pad = (hi / lo).powf(0.05);
                return Mapped {
                    scale: Scale::Log,
                    lo: lo / pad,
                    hi: hi * pad,
                    ticks: t
                        .iter()
                        .filter(|&&v| drawable(Scale::Log, v))
                        .map(|&v| (v, tick_label(v, 0), true))
                        .collect(),
                };
            }
            let lo_exp = min.log10().floor() as i32;
            let mut hi_exp = max.log10().ceil() as i32;
            if hi_exp <= lo_exp {
                hi_exp = lo_exp + 1;
            }
            let (lo, hi) = (10f64.powi(lo_exp), 10f64.powi(hi_exp));
            let few = hi_exp - lo_exp <= 2;
            let mut ticks = Vec::new();
            for e in lo_exp..=hi_exp {
                let p = 10f64.powi(e);
                let decimals = (-e).max(0) as usize;
                ticks.push((p, tick_label(p, decimals), true));
                if e < hi_exp {
                    for m in 2..=9 {
                        let v = p * f64::from(m);
                        let labelled = few && (m == 2 || m == 5);
                        let label = if labelled {
                            tick_label(v, decimals)
                        } else {
                            String::new()
                        };
                        ticks.push((v, label, labelled));
                    }
                }
            }
            Mapped {
                scale: Scale::Log,
                lo,
                hi,
                ticks,
            }
        }
        Scale::Linear => {
            let (mut min, mut max) = (min.unwrap_or(0.0), max.unwrap_or(1.0));
            if axis.from_zero {
                min = min.min(0.0);
                max = max.max(0.0);
            }
            if max - min <= f64::EPSILON * max.abs().max(1.0) {
                let pad = if max == 0.0 { 1.0 } else { max.abs() * 0.1 };
                min -= pad;
                max += pad;
                if axis.from_zero && min < 0.0 && max > 0.0 && max.abs() > pad {
                    min = 0.0;
                }
            }
            let step = nice_step(max - min);
            let decimals = (-step.log10().floor()).max(0.0) as usize;
            match &axis.ticks {
                Some(t) => {
                    let ticks = t
                        .iter()
                        .filter(|v| v.is_finite())
                        .map(|&v| (v, tick_label(v, decimals), true))
                        .collect();
                    Mapped {
                        scale: Scale::Linear,
                        lo: min,
                        hi: max + (max - min) * 0.04,
                        ticks,
                    }
                }
                None => {
                    let lo = (min / step).floor() * step;
                    let hi = (max / step).ceil() * step;
                    let hi = if hi <= lo { lo + step } else { hi };
                    let count = ((hi - lo) / step).round() as i64;
                    let ticks = (0..=count)
                        .map(|i| {
                            let v = lo + i as f64 * step;
                            // Snap -0.0 and float noise to the round value.
                            let v = (v / step).round() * step + 0.0;
                            (v, tick_label(v, decimals), true)
                        })
                        .collect();
                    Mapped {
                        scale: Scale::Linear,
                        lo,
                        hi,
                        ticks,
                    }
                }
            }
        }
    }
}

/// Escapes text for SVG content and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

impl Plot {
    /// The plot as a standalone SVG document.
    pub fn render(&self) -> String {
        let xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.0))
            .collect();
        let ys: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .collect();
        let mx = map_axis(&self.x, &xs);
        let my = map_axis(&self.y, &ys);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"{FONT}\" font-size=\"12\" fill=\"#333333\">"
        );
        let _ = writeln!(s, "<title>{}</title>", escape(&self.title));
        let _ = writeln!(
            s,
            "<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>"
        );
        let _ = writeln!(
            s,
            "<rect x=\"{LEFT}\" y=\"{TOP}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\"/>",
            RIGHT - LEFT,
            BOTTOM - TOP
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"30\" text-anchor=\"middle\" font-size=\"16\" \
             font-weight=\"600\">{}</text>",
            WIDTH / 2.0,
            escape(&self.title)
        );
        // Gridlines and ticks.
        s.push_str("<g class=\"grid\" stroke-width=\"1\">\n");
        for (v, _, major) in &mx.ticks {
            let x = mx.x(*v);
            if !(LEFT - 0.5..=RIGHT + 0.5).contains(&x) {
                continue;
            }
            let stroke = if *major { "#d8d8d8" } else { "#ececec" };
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{BOTTOM}\" stroke=\"{stroke}\"/>"
            );
        }
        for (v, _, major) in &my.ticks {
            let y = my.y(*v);
            if !(TOP - 0.5..=BOTTOM + 0.5).contains(&y) {
                continue;
            }
            let stroke = if *major { "#d8d8d8" } else { "#ececec" };
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{RIGHT}\" y2=\"{y:.1}\" stroke=\"{stroke}\"/>"
            );
        }
        s.push_str("</g>\n");
        // Axes, tick marks and tick labels.
        let _ = writeln!(
            s,
            "<g class=\"axes\" stroke=\"#555555\" stroke-width=\"1\">\n\
             <line x1=\"{LEFT}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\"/>\n\
             <line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{BOTTOM}\"/>\n</g>"
        );
        s.push_str("<g class=\"ticks\" font-size=\"11\" fill=\"#555555\">\n");
        for (v, label, major) in &mx.ticks {
            let x = mx.x(*v);
            if !(LEFT - 0.5..=RIGHT + 0.5).contains(&x) {
                continue;
            }
            let len = if *major { 5.0 } else { 3.0 };
            let _ = writeln!(
                s,
                "<line x1=\"{x:.1}\" y1=\"{BOTTOM}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#555555\"/>",
                BOTTOM + len
            );
            if !label.is_empty() {
                let _ = writeln!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    BOTTOM + 18.0,
                    escape(label)
                );
            }
        }
        for (v, label, major) in &my.ticks {
            let y = my.y(*v);
            if !(TOP - 0.5..=BOTTOM + 0.5).contains(&y) {
                continue;
            }
            let len = if *major { 5.0 } else { 3.0 };
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{LEFT}\" y2=\"{y:.1}\" stroke=\"#555555\"/>",
                LEFT - len
            );
            if !label.is_empty() {
                let _ = writeln!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                    LEFT - 8.0,
                    y + 4.0,
                    escape(label)
                );
            }
        }
        s.push_str("</g>\n");
        // Axis labels.
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
            (LEFT + RIGHT) / 2.0,
            HEIGHT - 20.0,
            escape(&self.x.label)
        );
        let (lx, ly) = (22.0, (TOP + BOTTOM) / 2.0);
        let _ = writeln!(
            s,
            "<text x=\"{lx}\" y=\"{ly:.1}\" text-anchor=\"middle\" font-size=\"13\" \
             transform=\"rotate(-90 {lx} {ly:.1})\">{}</text>",
            escape(&self.y.label)
        );
        // Series.
        for series in &self.series {
            let points: Vec<(f64, f64, usize)> = series
                .points
                .iter()
                .enumerate()
                .filter(|(_, p)| drawable(self.x.scale, p.0) && drawable(self.y.scale, p.1))
                .map(|(i, p)| (mx.x(p.0), my.y(p.1), i))
                .collect();
            let colour = colour(series.colour);
            let coords: Vec<String> = points
                .iter()
                .map(|(x, y, _)| format!("{x:.1},{y:.1}"))
                .collect();
            let dash = if series.dashed {
                " stroke-dasharray=\"6 4\""
            } else {
                ""
            };
            let width = if series.dashed { 1.5 } else { 2.0 };
            let _ = writeln!(
                s,
                "<g class=\"series\">\n<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" \
                 stroke-width=\"{width}\" stroke-linejoin=\"round\"{dash}/>",
                coords.join(" ")
            );
            if !series.dashed {
                for (x, y, _) in &points {
                    let _ = writeln!(
                        s,
                        "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{colour}\" \
                         stroke=\"#ffffff\" stroke-width=\"1\"/>"
                    );
                }
            }
            for (x, y, i) in &points {
                if let Some(label) = series.labels.get(*i).filter(|l| !l.is_empty()) {
                    let _ = writeln!(
                        s,
                        "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\" \
                         fill=\"{colour}\" stroke=\"#ffffff\" stroke-width=\"3\" \
                         paint-order=\"stroke\">{}</text>",
                        if series.labels_below {
                            y + 18.0
                        } else {
                            y - 9.0
                        },
                        escape(label)
                    );
                }
            }
            s.push_str("</g>\n");
        }
        // Legend.
        s.push_str("<g class=\"legend\">\n");
        let lx = RIGHT + 18.0;
        for (i, series) in self.series.iter().enumerate() {
            let y = TOP + 12.0 + 22.0 * i as f64;
            let colour = colour(series.colour);
            let dash = if series.dashed {
                " stroke-dasharray=\"6 4\""
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "<line x1=\"{lx}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" \
                 stroke-width=\"2\"{dash}/>",
                lx + 26.0
            );
            if !series.dashed {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{colour}\"/>",
                    lx + 13.0
                );
            }
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                lx + 34.0,
                y + 4.0,
                escape(&series.name)
            );
        }
        s.push_str("</g>\n</svg>\n");
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Checks that every element of `svg` is closed in order (a small
    /// well-formedness check: tags balance, attributes are quoted), and
    /// returns the names of the elements opened.
    pub(crate) fn check_balanced(svg: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').expect("unterminated tag") + start;
            let tag = &rest[start + 1..end];
            assert!(!tag.contains('<'), "tag inside tag: {tag}");
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes: {tag}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.trim()),
                    "misnested </{name}>"
                );
            } else {
                let name = tag
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .trim_end_matches('/');
                seen.push(name.to_owned());
                if !tag.ends_with('/') {
                    stack.push(name.to_owned());
                }
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        seen
    }

    fn plot(x: Axis, y: Axis) -> Plot {
        let mut dashed = Series::new("perfect <scaling>", 1, vec![(1.0, 8.0), (4.0, 2.0)]);
        dashed.dashed = true;
        let mut solid = Series::new(
            "treebeard & co",
            0,
            vec![(1.0, 8.0), (2.0, 4.5), (4.0, 3.0)],
        );
        solid.labels = vec!["×1.00".into(), "×1.78".into(), "×2.67".into()];
        Plot {
            title: "ns per agent-tick".into(),
            x,
            y,
            series: vec![solid, dashed],
        }
    }

    #[test]
    fn renders_a_well_formed_plot() {
        let svg = plot(Axis::linear("threads"), Axis::linear("ns per agent-tick")).render();
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.trim_end().ends_with("</svg>"));
        let elements = check_balanced(&svg);
        assert_eq!(elements.iter().filter(|e| *e == "polyline").count(), 2);
        assert!(svg.contains(">threads</text>"));
        assert!(svg.contains(">ns per agent-tick</text>"));
        assert!(svg.contains("treebeard &amp; co"));
        assert!(svg.contains("perfect &lt;scaling&gt;"));
        assert!(svg.contains("stroke-dasharray"));
        assert!(svg.contains(">×1.78</text>"));
        assert!(svg.contains("sans-serif"));
        // Markers on the solid line only: three points plus its legend.
        assert_eq!(elements.iter().filter(|e| *e == "circle").count(), 4);
    }

    #[test]
    fn log_axes_tick_at_powers_of_ten() {
        let mut p = plot(Axis::log("agents"), Axis::log("ns"));
        p.series[0].points = vec![(1000.0, 2.0), (10_000.0, 3.0), (1_000_000.0, 5.0)];
        p.series[1].points = vec![(0.0, 1.0), (-1.0, 3.0)];
        let svg = p.render();
        check_balanced(&svg);
        for label in [">1k<", ">10k<", ">100k<", ">1M<"] {
            assert!(svg.contains(label), "{label} missing");
        }
        // Points a log axis cannot show are left out, not drawn at infinity.
        assert!(svg.contains("<polyline points=\"\""));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn tick_labels_are_compact() {
        assert_eq!(tick_label(1_000_000.0, 0), "1M");
        assert_eq!(tick_label(2_500_000.0, 0), "2.5M");
        assert_eq!(tick_label(100_000.0, 0), "100k");
        assert_eq!(tick_label(1500.0, 0), "1.5k");
        assert_eq!(tick_label(12.0, 0), "12");
        assert_eq!(tick_label(0.5, 1), "0.5");
        assert_eq!(nice_step(10.0), 2.0);
        assert_eq!(nice_step(37.0), 10.0);
    }

    #[test]
    fn an_empty_plot_still_renders() {
        let p = Plot {
            title: "empty".into(),
            x: Axis::linear("x"),
            y: Axis::log("y"),
            series: vec![Series::new("none", 0, vec![])],
        };
        let svg = p.render();
        check_balanced(&svg);
        assert!(!svg.contains("NaN"));
    }
}
