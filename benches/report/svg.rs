//! The report's line plots, drawn as SVG by plotters: a title, two axes
//! (linear or logarithmic) with labelled ticks and a light mesh, one line
//! with point markers per series (or a dashed line, for reference lines),
//! an optional label at each point, and a legend. What is the report's own
//! is what a plot shows (`plots`); the drawing is plotters'.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

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
}

impl Axis {
    /// A linear axis starting at zero.
    pub fn linear(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            scale: Scale::Linear,
        }
    }

    /// A logarithmic axis.
    pub fn log(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            scale: Scale::Log,
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
const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x44, 0x44, 0x44),
];

/// The colour of palette entry `i`.
fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const WIDTH: u32 = 820;
const HEIGHT: u32 = 470;
const FONT: &str = "sans-serif";

/// A value's range on an axis of `scale`: the data's, a linear axis from
/// zero, a little room around it; values a log axis cannot show are left
/// out. A range that would be empty spans one unit (or one decade).
fn range(scale: Scale, values: impl Iterator<Item = f64>) -> (f64, f64) {
    let shown: Vec<f64> = values
        .filter(|v| v.is_finite() && (scale == Scale::Linear || *v > 0.0))
        .collect();
    let lo = shown.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = shown.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match scale {
        Scale::Linear if shown.is_empty() => (0.0, 1.0),
        Scale::Linear => {
            let lo = lo.min(0.0);
            let hi = if hi > lo { hi * 1.08 } else { lo + 1.0 };
            (lo, hi)
        }
        Scale::Log if shown.is_empty() => (1.0, 10.0),
        Scale::Log => {
            let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo * 10.0) };
            (lo / 1.25, hi * 1.25)
        }
    }
}

/// A tick label: whole numbers in short form (`2.5M`, `100k`), others
/// with up to two decimals.
pub fn tick_label(v: f64) -> String {
    let (value, suffix) = match v.abs() {
        a if a >= 1e6 => (v / 1e6, "M"),
        a if a >= 1e3 => (v / 1e3, "k"),
        _ => (v, ""),
    };
    let text = format!("{value:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}{suffix}")
}

impl Plot {
    /// The plot as a standalone SVG document.
    pub fn render(&self) -> String {
        let points = || self.series.iter().flat_map(|s| s.points.iter());
        let (x0, x1) = range(self.x.scale, points().map(|p| p.0));
        let (y0, y1) = range(self.y.scale, points().map(|p| p.1));
        // Four coordinate types, one drawing.
        match (self.x.scale, self.y.scale) {
            (Scale::Linear, Scale::Linear) => self.draw(x0..x1, y0..y1, (x0, x1), (y0, y1)),
            (Scale::Log, Scale::Linear) => {
                self.draw((x0..x1).log_scale(), y0..y1, (x0, x1), (y0, y1))
            }
            (Scale::Linear, Scale::Log) => {
                self.draw(x0..x1, (y0..y1).log_scale(), (x0, x1), (y0, y1))
            }
            (Scale::Log, Scale::Log) => self.draw(
                (x0..x1).log_scale(),
                (y0..y1).log_scale(),
                (x0, x1),
                (y0, y1),
            ),
        }
    }

    fn draw<X, Y>(&self, x: X, y: Y, xs: (f64, f64), ys: (f64, f64)) -> String
    where
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let mut svg = String::new();
        // Drawing into a string cannot fail but for plotters' own bugs,
        // which then show as a truncated picture, never a panic here.
        let _ = self.draw_into(&mut svg, x, y, xs, ys);
        svg
    }

    fn draw_into<X, Y>(
        &self,
        svg: &mut String,
        x: X,
        y: Y,
        (x0, x1): (f64, f64),
        (y0, y1): (f64, f64),
    ) -> Result<(), Box<dyn std::error::Error + '_>>
    where
        X: AsRangedCoord<Value = f64>,
        Y: AsRangedCoord<Value = f64>,
        X::CoordDescType: ValueFormatter<f64>,
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let root = SVGBackend::with_string(svg, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, (FONT, 16))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x, y)?;
        chart
            .configure_mesh()
            .x_desc(&self.x.label)
            .y_desc(&self.y.label)
            .x_label_formatter(&|v| tick_label(*v))
            .y_label_formatter(&|v| tick_label(*v))
            .label_style((FONT, 11))
            .axis_desc_style((FONT, 12))
            .light_line_style(RGBColor(0xEC, 0xEC, 0xEC))
            .bold_line_style(RGBColor(0xD8, 0xD8, 0xD8))
            .max_light_lines(4)
            .draw()?;
        for series in &self.series {
            let colour = colour(series.colour);
            let points = series.points.iter().copied();
            let dashed = series.dashed;
            let line = if dashed {
                chart.draw_series(DashedLineSeries::new(points, 6, 4, colour.stroke_width(2)))?
            } else {
                chart.draw_series(LineSeries::new(points, colour.stroke_width(2)))?
            };
            let dashed = series.dashed;
            line.label(series.name.as_str()).legend(move |(x, y)| {
                let style = colour.stroke_width(2);
                let piece = |a: i32, b: i32| PathElement::new(vec![(a, 0), (b, 0)], style);
                // Three dashes, or three pieces of one line.
                let [a, b, c] = if dashed {
                    [(0, 5), (8, 13), (16, 21)]
                } else {
                    [(0, 7), (7, 14), (14, 21)]
                };
                EmptyElement::at((x, y)) + piece(a.0, a.1) + piece(b.0, b.1) + piece(c.0, c.1)
            });
            if !series.dashed {
                chart.draw_series(
                    series
                        .points
                        .iter()
                        .map(|&p| Circle::new(p, 3, colour.filled())),
                )?;
            }
            let offset = if series.labels_below { 16 } else { -8 };
            chart.draw_series(series.points.iter().zip(&series.labels).map(|(&p, text)| {
                EmptyElement::at(p)
                    + Text::new(
                        text.clone(),
                        (-10, offset),
                        (FONT, 11).into_font().color(&colour),
                    )
            }))?;
        }
        chart
            .configure_series_labels()
            .position(self.legend_corner((x0, x1), (y0, y1)))
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0xCC, 0xCC, 0xCC))
            .draw()?;
        root.present()?;
        Ok(())
    }
}

impl Plot {
    /// The corner of the plotting area where the legend hides the fewest
    /// points (the upper right when none are there).
    fn legend_corner(&self, xs: (f64, f64), ys: (f64, f64)) -> SeriesLabelPosition {
        let at = |scale: Scale, (lo, hi): (f64, f64), v: f64| match scale {
            Scale::Linear => (v - lo) / (hi - lo),
            Scale::Log => (v.ln() - lo.ln()) / (hi.ln() - lo.ln()),
        };
        let corners = [
            (SeriesLabelPosition::UpperRight, true, true),
            (SeriesLabelPosition::LowerRight, true, false),
            (SeriesLabelPosition::UpperLeft, false, true),
            (SeriesLabelPosition::LowerLeft, false, false),
        ];
        let hidden = |right: bool, upper: bool| {
            self.series
                .iter()
                .flat_map(|s| &s.points)
                .filter(|p| {
                    let (x, y) = (at(self.x.scale, xs, p.0), at(self.y.scale, ys, p.1));
                    (if right { x > 0.55 } else { x < 0.45 })
                        && (if upper { y > 0.7 } else { y < 0.3 })
                })
                .count()
        };
        corners
            .into_iter()
            .min_by_key(|&(_, right, upper)| hidden(right, upper))
            .map_or(SeriesLabelPosition::UpperRight, |(corner, ..)| corner)
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
            if tag.starts_with('?') || tag.starts_with('!') {
                // The XML declaration or a comment.
            } else if let Some(name) = tag.strip_prefix('/') {
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
    fn renders_a_well_formed_plot_on_every_scale() {
        for (x, y) in [
            (Axis::linear("threads"), Axis::linear("ns per agent-tick")),
            (Axis::log("threads"), Axis::linear("ns per agent-tick")),
            (Axis::linear("threads"), Axis::log("ns per agent-tick")),
            (Axis::log("threads"), Axis::log("ns per agent-tick")),
        ] {
            let svg = plot(x, y).render();
            assert!(svg.contains("<svg"), "{svg}");
            assert!(svg.trim_end().ends_with("</svg>"));
            check_balanced(&svg);
            // Names are escaped; the labels and legend are there.
            assert!(svg.contains("treebeard &amp; co"), "{svg}");
            assert!(svg.contains("perfect &lt;scaling&gt;"), "{svg}");
            assert!(svg.contains("×1.78"), "{svg}");
            assert!(svg.contains("threads\n</text>"), "{svg}");
        }
    }

    #[test]
    fn tick_labels_are_compact() {
        assert_eq!(tick_label(1_000_000.0), "1M");
        assert_eq!(tick_label(2_500_000.0), "2.5M");
        assert_eq!(tick_label(100_000.0), "100k");
        assert_eq!(tick_label(12.5), "12.5");
        assert_eq!(tick_label(3.0), "3");
    }

    #[test]
    fn an_empty_plot_still_renders() {
        let p = Plot {
            title: "empty".into(),
            x: Axis::log("agents"),
            y: Axis::linear("ns"),
            series: Vec::new(),
        };
        check_balanced(&p.render());
    }
}
