//! Where the session chart's labels go: one mark per pixel column, faint
//! dense classes, labels on three rows by their measured width, the lines'
//! labels spread apart. Pure geometry, tested natively.

use crate::chart::Mark;

/// Width of one character of chart text (11–12 px sans-serif), for
/// placing labels so that none overlaps another.
pub const CHAR: f64 = 7.0;

/// The marks drawn: the first of each class and label in each pixel
/// column (`x` is a mark's position in px); the rest would be drawn on top
/// of it.
pub fn one_per_column(marks: &[Mark], x: impl Fn(&Mark) -> f64) -> Vec<&Mark> {
    let mut seen = std::collections::HashSet::new();
    marks
        .iter()
        .filter(|m| seen.insert((m.class, m.label.as_str(), x(m).round() as i64)))
        .collect()
}

/// The mark classes drawn in more than a quarter of the plot's pixel
/// columns (`span` px wide): drawn faint, so that the series and the lines
/// stay visible through them (a session with a boundary every other
/// request would be a solid block).
pub fn dense_classes(shown: &[&Mark], span: f64) -> Vec<&'static str> {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for m in shown {
        match counts.iter_mut().find(|(c, _)| *c == m.class) {
            Some((_, n)) => *n += 1,
            None => counts.push((m.class, 1)),
        }
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n as f64 > span / 4.0)
        .map(|(c, _)| c)
        .collect()
}

/// The width a label takes on the chart.
pub fn text_width(label: &str) -> f64 {
    label.chars().count() as f64 * CHAR + 4.0
}

/// Which marks get a text label, on which of three rows, and whether it
/// ends at its line (past the plot's right edge it would run into the
/// lines' labels). A label needs its own width of room on its row; the
/// rest keep their line and tooltip (the event list names them all).
pub fn labelled(xs: &[f64], widths: &[f64], left: f64, right: f64) -> Vec<(f64, Option<(usize, bool)>)> {
    let mut ends = [left; 3];
    xs.iter()
        .zip(widths)
        .map(|(&x, &w)| {
            let end = x + 3.0 + w > right;
            let (from, to) = if end { (x - 3.0 - w, x) } else { (x, x + 3.0 + w) };
            let row = ends.iter().position(|&e| from >= e && from >= left - 3.0);
            if let Some(r) = row {
                ends[r] = to + 4.0;
            }
            (x, row.map(|r| (r, end)))
        })
        .collect()
}

/// Label positions near `ys` but at least `gap` apart, keeping their order
/// (the lines' labels never overlap).
pub fn spread(ys: &[f64], gap: f64) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ys.len()).collect();
    order.sort_by(|&a, &b| ys[b].total_cmp(&ys[a]));
    let mut out = ys.to_vec();
    let mut floor = f64::INFINITY;
    for &i in &order {
        out[i] = ys[i].min(floor - gap);
        floor = out[i];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crowded_marks_lose_their_text_not_their_line() {
        let rows: Vec<_> = labelled(&[0.0, 10.0, 20.0, 30.0, 100.0], &[80.0; 5], 0.0, 1000.0)
            .into_iter()
            .map(|(_, r)| r.map(|(row, _)| row))
            .collect();
        assert_eq!(rows, [Some(0), Some(1), Some(2), None, Some(0)]);
        // A label that would pass the plot's right edge ends at its line.
        let end = labelled(&[950.0], &[80.0], 0.0, 1000.0);
        assert_eq!(end[0].1, Some((0, true)));
    }

    #[test]
    fn marks_in_one_pixel_column_are_drawn_once_per_class_and_label() {
        let mark = |at, label: &str, class| Mark {
            at,
            label: label.to_owned(),
            class,
        };
        // 100k boundaries over 1,000 px: one mark per column.
        let many: Vec<Mark> = (0..100_000)
            .map(|at| mark(at, "real boundary", "m-real"))
            .collect();
        let shown = one_per_column(&many, |m| m.at as f64 / 100.0);
        assert_eq!(shown.len(), 1_001);
        // Two tiers firing at the same request both stay.
        let two = [
            mark(5, "microcompact", "m-tier"),
            mark(5, "snip", "m-tier"),
            mark(5, "snip", "m-tier"),
        ];
        let labels: Vec<&str> = one_per_column(&two, |m| m.at as f64)
            .iter()
            .map(|m| m.label.as_str())
            .collect();
        assert_eq!(labels, ["microcompact", "snip"]);
    }

    #[test]
    fn a_class_in_most_columns_is_dense() {
        let mark = |at| Mark {
            at,
            label: "real boundary".to_owned(),
            class: "m-real",
        };
        let many: Vec<Mark> = (0..300).map(mark).collect();
        let few: Vec<Mark> = (0..3).map(mark).collect();
        assert_eq!(
            dense_classes(&many.iter().collect::<Vec<_>>(), 1_000.0),
            ["m-real"]
        );
        assert!(dense_classes(&few.iter().collect::<Vec<_>>(), 1_000.0).is_empty());
        // A dense mark is given no room for a label: it gets none.
        assert_eq!(labelled(&[10.0], &[f64::INFINITY], 0.0, 1_000.0)[0].1, None);
    }

    #[test]
    fn labels_are_spread_apart_in_order() {
        let y = spread(&[100.0, 95.0, 50.0, 97.0], 10.0);
        assert_eq!(y, [100.0, 80.0, 50.0, 90.0]);
    }
}
