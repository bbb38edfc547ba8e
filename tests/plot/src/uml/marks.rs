// SPDX-License-Identifier: GPL-2.0-only
//! Marks by cause and drops at the bottleneck, per scenario, variant and scheme: what each rule
//! of a scheme did, as the qdisc counted it (ecnsharp's `marks_by_cause`; Linux's qdiscs count
//! marks without a cause, shown as "-").

use super::boot;
use super::load::{Jobs, Point};
use std::fmt::Write as _;

const SCENARIOS: [&str; 4] = ["flows", "long", "incast", "sched"];
const CAUSES: [&str; 5] = [
    "marks_ins",
    "marks_pst",
    "marks_red",
    "marks_deq",
    "marks_prob",
];

/// The mean over seeds of a point's metric, if any seed has it.
fn mean(jobs: &Jobs, p: &Point, metric: &str) -> Option<f64> {
    boot::mean(&jobs.num(p, metric).into_values().collect::<Vec<_>>())
}

/// Appends one table per scenario to `tables`.
pub fn section(jobs: &Jobs, tables: &mut String) {
    for sc in SCENARIOS {
        let variants = jobs.variants(sc);
        if variants.is_empty() {
            continue;
        }
        let _ = write!(
            tables,
            "\n## {sc}: marks by cause and drops at the bottleneck (mean per point over seeds)\n\n\
             | point | scheme | packets | marks | ins | pst | red | deq | prob | drops |\n\
             | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        );
        for var in &variants {
            for s in jobs.schemes(sc) {
                let p: Point = (sc.to_string(), s.clone(), var.clone());
                let Some(packets) = mean(jobs, &p, "packets") else {
                    continue;
                };
                let cell = |m: &str| mean(jobs, &p, m).map_or("-".into(), |x| format!("{x:.0}"));
                let causes: Vec<String> = CAUSES.iter().map(|c| cell(c)).collect();
                let _ = writeln!(
                    tables,
                    "| {} | {s} | {packets:.0} | {} | {} | {} |",
                    if var.is_empty() { "-" } else { var },
                    cell("marks"),
                    causes.join(" | "),
                    cell("drops")
                );
            }
        }
    }
}
