// SPDX-License-Identifier: GPL-2.0-only
//! `ecnsharp-plot uml DIR`: the virtual-time testbed's results (tests/uml/experiments.sh) as
//! the lines `make experiments` prints, DIR/tables.md (every scheme against DCTCP-RED-Tail, the
//! paper's figures beside ours), DIR/summary.json and SVG charts. Every ratio has a bootstrap
//! 95% interval (boot.rs); nothing here is tuned to the data: the metrics and their
//! definitions are fixed in docs/results/uml/README.md.

mod boot;
mod figures;
mod load;
mod marks;
mod paper;

use boot::{Ratio, Rng, Stat};
use figures::Series;
use load::{var_get, Flow, Jobs, Point, Probe};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

const BASE: &str = "red_tail";

/// A flow metric: its name, the statistic, and which flows it covers.
type Kind = (&'static str, Stat, fn(&Flow) -> bool);
/// Ratios by scheme, each against the load.
type ByScheme = BTreeMap<String, Vec<(f64, Ratio)>>;
const SHORT: u64 = 100_000;
const LARGE: u64 = 10_000_000;

/// What the run produced: printed lines, the tables, the JSON entries.
#[derive(Default)]
struct Report {
    lines: Vec<String>,
    tables: String,
    json: Vec<String>,
    /// The paper's claims judged by paper::Claim::verdict, as table rows.
    claims: String,
}

impl Report {
    /// A ratio of SCHEME to the baseline, into the tables and the JSON (and with the paper's
    /// figure when it reports one under the same key).
    fn ratio(&mut self, key: &str, r: Option<Ratio>, n: usize) -> String {
        let Some(r) = r else {
            let _ = writeln!(self.tables, "| {key} | - | | |");
            return "-".into();
        };
        let claim = paper::lookup(key);
        if let Some(c) = claim {
            self.judge(c, &r);
        }
        let _ = writeln!(
            self.tables,
            "| {key} | {r} | {n} | {} |",
            claim.map_or(String::new(), |c| format!("{:.3} ({})", c.value, c.source))
        );
        let num = |x: f64| {
            if !x.is_finite() {
                // JSON has no NaN or infinity (a baseline mean of 0 gives one).
                "null".to_string()
            } else {
                format!("{x:.4}")
            }
        };
        self.json.push(format!(
            "{{\"key\":\"{key}\",\"ratio\":{},\"lo\":{},\"hi\":{},\"n\":{n}{}}}",
            num(r.value),
            num(r.lo),
            num(r.hi),
            claim.map_or(String::new(), |c| format!(
                ",\"paper\":{:.4},\"verdict\":\"{}\"",
                c.value,
                c.verdict(&r)
            ))
        ));
        r.to_string()
    }

    /// One of the paper's claims against ours, by paper::Claim::verdict.
    fn judge(&mut self, c: &paper::Claim, ours: &Ratio) {
        let ours_s = if ours.lo.is_nan() {
            format!("{:.3} (no interval)", ours.value)
        } else {
            ours.to_string()
        };
        let _ = writeln!(
            self.claims,
            "| {} | {:.3} | {ours_s} | {} |",
            c.source,
            c.value,
            c.verdict(ours)
        );
    }

    fn table_head(&mut self, title: &str) {
        let _ = write!(
            self.tables,
            "\n## {title}\n\n| ratio | ours [95% interval] | samples | the paper |\n| --- | --- | --- | --- |\n"
        );
    }
}

pub fn run(dir: &Path) -> Result<(), String> {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| format!("{f}: {e}"));
    let jobs = Jobs::parse(&read("jobs.tsv")?)?;
    let flows = if dir.join("flows.tsv.gz").exists() {
        load::read_flows(&dir.join("flows.tsv.gz"))?
    } else {
        Vec::new()
    };
    let run_txt = read("run.txt").unwrap_or_default();
    let mut rep = Report::default();
    let mut rng = Rng::new(2019);
    regime(&jobs, &flows, &run_txt, &mut rep);
    flows_section(dir, &jobs, &flows, &mut rep, &mut rng)?;
    sensitivity_section(&flows, &mut rep, &mut rng);
    long_section(dir, &jobs, &mut rep, &mut rng)?;
    sensitivity_all_mean(&flows, &mut rep, &mut rng);
    incast_section(dir, &jobs, &mut rep, &mut rng)?;
    sched_section(&jobs, &mut rep, &mut rng);
    marks::section(&jobs, &mut rep.tables);
    probe_section(dir, &jobs, &mut rep, &mut rng)?;
    window_section(dir, &mut rep, &mut rng)?;
    let tables = format!(
        "# Virtual-time testbed: every ratio against DCTCP-RED-Tail\n\n\
         Drawn by `ecnsharp-plot uml` from jobs.tsv and flows.tsv.gz; intervals are bootstrap \
         95% intervals over seeds and flows. The paper's column quotes its text (testbed unless \
         it says simulation).\n\n```\n{}\n```\n\n## The paper's claims, judged by one rule\n\n\
         Each claim listed in paper.rs (a figure the paper states as one number at one point), \
         against ours at the same point, judged by `Claim::verdict` (tests/plot/src/uml/paper.rs), one rule for every claim and every run: \
         where our 95% interval lies against 1 and against the paper's value. A claim at a \
         point this run does not have is not listed.\n\n\
         | the paper | its value | ours [95% interval] | verdict |\n| --- | --- | --- | --- |\n{}{}",
        rep.lines.join("\n"),
        rep.claims,
        rep.tables
    );
    std::fs::write(dir.join("tables.md"), tables).map_err(|e| e.to_string())?;
    std::fs::write(
        dir.join("summary.json"),
        format!("[\n{}\n]\n", rep.json.join(",\n")),
    )
    .map_err(|e| e.to_string())?;
    for l in &rep.lines {
        println!("{l}");
    }
    Ok(())
}

fn regime(jobs: &Jobs, flows: &[Flow], run_txt: &str, rep: &mut Report) {
    let classes = jobs
        .values
        .iter()
        .find(|(((_, _, v), m), _)| {
            m == "rtt_classes" && !v.contains("SPREAD=2") && !v.contains("SPREAD=5")
        })
        .and_then(|(_, m)| m.values().next())
        .map(|t| load::classes(t))
        .unwrap_or_default();
    let lo = classes.iter().map(|c| c.0).fold(f64::MAX, f64::min);
    let hi = classes.iter().map(|c| c.0).fold(0.0, f64::max);
    // The smallest number of short flows any (workload, load, scheme) point has over its seeds.
    let mut short: BTreeMap<(&str, &str, &str), usize> = BTreeMap::new();
    for f in flows.iter().filter(|f| f.size < SHORT) {
        *short.entry((&f.workload, &f.load, &f.scheme)).or_default() += 1;
    }
    // The seeds per scenario, as the plan ran them (the long flows have more).
    let seeds: Vec<String> = jobs
        .scenarios()
        .iter()
        .map(|sc| format!("{sc}:{}", jobs.seeds(sc).len()))
        .collect();
    rep.lines.push(format!(
        "regime: kernel=uml time=virtual rate=10gbit rtt_us={lo:.0}-{hi:.0} senders=7 seeds={} short_flows={}",
        seeds.join(","),
        short.values().min().copied().unwrap_or(0)
    ));
    let det = run_txt
        .lines()
        .find_map(|l| l.strip_prefix("determinism: "))
        .map_or("not checked".to_string(), |d| {
            d.split(" (point").next().unwrap_or(d).to_string()
        });
    rep.lines.push(format!("determinism: {det}"));
}

/// FCTs of one (workload, load, scheme) by seed, for flows the filter keeps.
/// The headline points' variant (the sensitivity points name what they change).
const HEADLINE: &str = "-";

/// Where flows come from: (workload, load, variant).
type At<'a> = (&'a str, &'a str, &'a str);

fn fcts(flows: &[Flow], at: At<'_>, s: &str, keep: impl Fn(&Flow) -> bool) -> Vec<Vec<f64>> {
    let (w, l, v) = at;
    let mut by: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for f in flows
        .iter()
        .filter(|f| f.workload == w && f.load == l && f.variant == v && f.scheme == s && keep(f))
    {
        if let Some(fct) = f.fct_us {
            by.entry(f.seed).or_default().push(fct);
        }
    }
    by.into_values().collect()
}

fn flows_section(
    dir: &Path,
    jobs: &Jobs,
    flows: &[Flow],
    rep: &mut Report,
    rng: &mut Rng,
) -> Result<(), String> {
    let mut points: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for v in jobs.variants("flows") {
        if let (Some(w), Some(l), 2) = (
            var_get(&v, "WORKLOAD"),
            var_get(&v, "LOAD"),
            v.split(',').count(),
        ) {
            points.entry(w.to_string()).or_default().push(l.to_string());
        }
    }
    let schemes = jobs.schemes("flows");
    let kinds: [Kind; 4] = [
        ("short_mean", Stat::Mean, |f| f.size < SHORT),
        ("short_p99", Stat::P99, |f| f.size < SHORT),
        ("large_mean", Stat::Mean, |f| f.size > LARGE),
        ("all_mean", Stat::Mean, |_| true),
    ];
    let tail = tail_classes(jobs);
    for (w, loads) in &points {
        rep.table_head(&format!(
            "{w}: flow completion times (short < 100 KB, large > 10 MB)"
        ));
        // metric -> scheme -> (load, ratio)
        let mut plot: BTreeMap<&str, ByScheme> = BTreeMap::new();
        for l in loads {
            let mut line = format!("{w}: load {l}");
            for (name, stat, keep) in kinds {
                let base = fcts(flows, (w, l, HEADLINE), BASE, keep);
                for s in &schemes {
                    if s == BASE {
                        continue;
                    }
                    let a = fcts(flows, (w, l, HEADLINE), s, keep);
                    let n = a.iter().map(Vec::len).sum();
                    let r = boot::ratio(&a, &base, stat, rng);
                    let txt = rep.ratio(&format!("{w} load {l} {name} {s}/{BASE}"), r, n);
                    if s == "ecnsharp" {
                        let _ = write!(line, " {name} ecnsharp/{BASE}={txt}");
                    }
                    if let Some(r) = r {
                        plot.entry(name)
                            .or_default()
                            .entry(s.clone())
                            .or_default()
                            .push((l.parse().unwrap_or(0.0), r));
                    }
                }
                // ECN#'s own comparison with DCTCP-RED-Avg (the paper's large-flow claim).
                if name == "large_mean" && schemes.iter().any(|s| s == "red_avg") {
                    let a = fcts(flows, (w, l, HEADLINE), "ecnsharp", keep);
                    let b = fcts(flows, (w, l, HEADLINE), "red_avg", keep);
                    let n = a.iter().map(Vec::len).sum();
                    let r = boot::ratio(&a, &b, stat, rng);
                    rep.ratio(&format!("{w} load {l} {name} ecnsharp/red_avg"), r, n);
                }
            }
            // Throughput of the flows with the longest RTTs (where a low threshold costs
            // throughput): goodput of flows above 1 MB in the tail RTT classes.
            let base = goodputs(flows, (w, l, HEADLINE), BASE, &tail);
            for s in schemes.iter().filter(|s| *s != BASE) {
                let a = goodputs(flows, (w, l, HEADLINE), s, &tail);
                let n = a.iter().map(Vec::len).sum();
                let r = boot::ratio(&a, &base, Stat::Mean, rng);
                let txt = rep.ratio(&format!("{w} load {l} tail_rtt_goodput {s}/{BASE}"), r, n);
                if s == "ecnsharp" {
                    let _ = write!(line, " tail_rtt_goodput ecnsharp/{BASE}={txt}");
                }
            }
            let unfinished = flows
                .iter()
                .filter(|f| {
                    f.workload == *w && f.load == *l && f.variant == HEADLINE && f.fct_us.is_none()
                })
                .count();
            let n_short = fcts(flows, (w, l, HEADLINE), "ecnsharp", |f| f.size < SHORT)
                .iter()
                .map(Vec::len)
                .sum::<usize>();
            let _ = write!(
                line,
                " short_flows={n_short} unfinished_all_schemes={unfinished}"
            );
            rep.lines.push(line);
            // The short flows' FCT distribution at this load, every scheme.
            let series: Vec<(String, Vec<f64>)> = schemes
                .iter()
                .map(|s| {
                    let v = fcts(flows, (w, l, HEADLINE), s, |f| f.size < SHORT).concat();
                    (s.clone(), v.iter().map(|x| x / 1e3).collect())
                })
                .collect();
            figures::cdfs(
                &dir.join(format!("{w}-load{l}-short-cdf.svg")),
                &format!("{w}, load {l}: FCT of short flows (< 100 KB), all seeds"),
                "flow completion time (ms, log)",
                &series,
            )?;
        }
        for (name, by_scheme) in plot {
            let series: Vec<Series> = by_scheme
                .into_iter()
                .map(|(s, pts)| Series {
                    name: s,
                    points: pts.iter().map(|(x, r)| (*x, r.value, r.lo, r.hi)).collect(),
                })
                .collect();
            figures::ratio_lines(
                &dir.join(format!("{w}-{name}.svg")),
                &format!("{w}: {name} FCT normalized to DCTCP-RED-Tail (95% intervals)"),
                "load",
                &format!("{name} / DCTCP-RED-Tail"),
                &series,
                &paper::marks(&format!("{w}-{name}")),
            )?;
        }
    }
    Ok(())
}

/// The RTT classes (1-based) of the distribution's tail: the highest classes that together
/// carry at least 10% of the flows (at 3x: 200 and 210 us, 11%).
fn tail_classes(jobs: &Jobs) -> Vec<usize> {
    let classes = jobs
        .values
        .iter()
        .find(|(((sc, _, _), m), _)| sc == "flows" && m == "rtt_classes")
        .and_then(|(_, m)| m.values().next())
        .map(|t| load::classes(t))
        .unwrap_or_default();
    let total: f64 = classes.iter().map(|c| c.1).sum();
    let mut acc = 0.0;
    let mut v = Vec::new();
    for k in (0..classes.len()).rev() {
        if acc >= 0.1 * total {
            break;
        }
        acc += classes[k].1;
        v.push(k + 1);
    }
    v
}

/// Goodput (Mbit/s) of flows above 1 MB in the given RTT classes, by seed.
fn goodputs(flows: &[Flow], at: At<'_>, s: &str, classes: &[usize]) -> Vec<Vec<f64>> {
    let (w, l, v) = at;
    let mut by: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for f in flows.iter().filter(|f| {
        f.workload == w
            && f.load == l
            && f.variant == v
            && f.scheme == s
            && f.size > 1_000_000
            && classes.contains(&f.class)
    }) {
        if let Some(fct) = f.fct_us {
            by.entry(f.seed)
                .or_default()
                .push(f.size as f64 * 8.0 / fct);
        }
    }
    by.into_values().collect()
}

/// The sensitivity points (make experiments-full): every scheme at a changed setting against
/// DCTCP-RED-Tail at the same setting where it ran, else at the headline's; one labelled line
/// and table row each.
fn sensitivity_section(flows: &[Flow], rep: &mut Report, rng: &mut Rng) {
    let at = sensitivity_points(flows);
    if at.is_empty() {
        return;
    }
    rep.table_head("sensitivity: one setting changed (labelled), against DCTCP-RED-Tail");
    let kinds: [Kind; 3] = [
        ("short_mean", Stat::Mean, |f| f.size < SHORT),
        ("short_p99", Stat::P99, |f| f.size < SHORT),
        ("large_mean", Stat::Mean, |f| f.size > LARGE),
    ];
    for (v, w, l) in &at {
        let (schemes, own) = sensitivity_schemes(flows, (w, l, v));
        let base_v = if own { v.as_str() } else { HEADLINE };
        for s in schemes.into_iter().filter(|s| *s != BASE) {
            let mut line = format!(
                "sensitivity: {v} {w} load {l} {s}/{BASE}{}",
                if base_v == HEADLINE { "(headline)" } else { "" }
            );
            for (name, stat, keep) in kinds {
                let a = fcts(flows, (w, l, v), s, keep);
                let b = fcts(flows, (w, l, base_v), BASE, keep);
                let n = a.iter().map(Vec::len).sum();
                let r = boot::ratio(&a, &b, stat, rng);
                let txt = rep.ratio(&format!("{v} {w} load {l} {name} {s}/{BASE}"), r, n);
                let _ = write!(line, " {name}={txt}");
            }
            rep.lines.push(line);
        }
    }
}

/// The sensitivity points: (variant, workload, load), sorted.
fn sensitivity_points(flows: &[Flow]) -> Vec<(String, String, String)> {
    let mut at: Vec<(String, String, String)> = flows
        .iter()
        .filter(|f| f.variant != HEADLINE)
        .map(|f| (f.variant.clone(), f.workload.clone(), f.load.clone()))
        .collect();
    at.sort();
    at.dedup();
    at
}

/// The schemes at a sensitivity point, and whether DCTCP-RED-Tail ran it (its baseline is then
/// the point's own, else the headline's).
fn sensitivity_schemes<'a>(flows: &'a [Flow], at: At<'_>) -> (Vec<&'a str>, bool) {
    let (w, l, v) = at;
    let mut schemes: Vec<&str> = flows
        .iter()
        .filter(|f| f.variant == v && f.workload == w && f.load == l)
        .map(|f| f.scheme.as_str())
        .collect();
    schemes.sort_by_key(|s| load::scheme_rank(s));
    schemes.dedup();
    let own = schemes.contains(&BASE);
    (schemes, own)
}

/// The overall mean FCT (`all_mean`) at each sensitivity point, as its own table: the metric of
/// the paper's Figure 8a. Drawn after the other ratios (it was added after the runs), so that
/// their bootstrap draws, from one stream, stay as they were.
fn sensitivity_all_mean(flows: &[Flow], rep: &mut Report, rng: &mut Rng) {
    let at = sensitivity_points(flows);
    if at.is_empty() {
        return;
    }
    rep.table_head(
        "sensitivity: overall mean FCT (all flows; Figure 8a's metric), one setting changed, \
         against DCTCP-RED-Tail",
    );
    for (v, w, l) in &at {
        let (schemes, own) = sensitivity_schemes(flows, (w, l, v));
        let base_v = if own { v.as_str() } else { HEADLINE };
        let b = fcts(flows, (w, l, base_v), BASE, |_| true);
        for s in schemes.into_iter().filter(|s| *s != BASE) {
            let a = fcts(flows, (w, l, v), s, |_| true);
            let n = a.iter().map(Vec::len).sum();
            let r = boot::ratio(&a, &b, Stat::Mean, rng);
            rep.ratio(&format!("{v} {w} load {l} all_mean {s}/{BASE}"), r, n);
        }
    }
}

/// A per-seed metric of every scheme at a variant of a scenario: scheme -> values by seed.
fn per_seed(
    jobs: &Jobs,
    sc: &str,
    var: &str,
    metric: &str,
) -> BTreeMap<String, BTreeMap<u32, f64>> {
    jobs.schemes(sc)
        .into_iter()
        .map(|s| {
            let p: Point = (sc.into(), s.clone(), var.into());
            (s, jobs.num(&p, metric))
        })
        .filter(|(_, m)| !m.is_empty())
        .collect()
}

/// Values of two schemes over the seeds both have.
fn paired(a: &BTreeMap<u32, f64>, b: &BTreeMap<u32, f64>) -> (Vec<f64>, Vec<f64>) {
    a.iter()
        .filter_map(|(s, x)| b.get(s).map(|y| (*x, *y)))
        .unzip()
}

fn long_section(dir: &Path, jobs: &Jobs, rep: &mut Report, rng: &mut Rng) -> Result<(), String> {
    let metrics = [
        ("queue_mean", "qdelay_mean_us"),
        ("queue_p99", "qdelay_p99_us"),
        ("goodput", "goodput_mbps"),
        ("goodput_longest_rtt", "goodput_class6_mbps"),
    ];
    for var in jobs.variants("long") {
        let spread = var_get(&var, "SPREAD").unwrap_or("3");
        rep.table_head(&format!(
            "rtt_variation {spread}x: long flows, one per RTT class (queue sampled at the bottleneck)"
        ));
        let mut line = format!("rtt_variation: {spread}x");
        for (name, metric) in metrics {
            let by = per_seed(jobs, "long", &var, metric);
            let Some(base) = by.get(BASE) else { continue };
            for (s, v) in &by {
                if s == BASE {
                    continue;
                }
                let (a, b) = paired(v, base);
                let r = boot::ratio_of_seeds(&a, &b, rng);
                let txt = rep.ratio(
                    &format!("rtt_variation {spread}x {name} {s}/{BASE}"),
                    r,
                    a.len(),
                );
                if s == "ecnsharp" {
                    let _ = write!(line, " {name} ecnsharp/{BASE}={txt}");
                }
            }
        }
        rep.lines.push(line);
        // Goodput by RTT class (means over seeds), one line per scheme.
        let classes = jobs
            .text(
                &("long".into(), "ecnsharp".into(), var.clone()),
                "rtt_classes",
            )
            .map(load::classes)
            .unwrap_or_default();
        let series: Vec<Series> = jobs
            .schemes("long")
            .into_iter()
            .filter_map(|s| {
                let pts: Vec<(f64, f64, f64, f64)> = classes
                    .iter()
                    .enumerate()
                    .filter_map(|(k, (rtt, _))| {
                        let p: Point = ("long".into(), s.clone(), var.clone());
                        let v: Vec<f64> = jobs
                            .num(&p, &format!("goodput_class{}_mbps", k + 1))
                            .into_values()
                            .collect();
                        let m = boot::mean(&v)? / 1e3;
                        let lo = v.iter().copied().fold(f64::MAX, f64::min) / 1e3;
                        let hi = v.iter().copied().fold(0.0, f64::max) / 1e3;
                        Some((*rtt, m, lo, hi))
                    })
                    .collect();
                (!pts.is_empty()).then_some(Series {
                    name: s,
                    points: pts,
                })
            })
            .collect();
        if !series.is_empty() {
            figures::lines(
                &dir.join(format!("long-{spread}x-goodput-by-rtt.svg")),
                &format!(
                    "{spread}x: goodput of each long flow by its RTT (mean, min-max over seeds)"
                ),
                "base RTT (us)",
                "goodput (Gbit/s)",
                &series,
                &[],
            )?;
        }
    }
    Ok(())
}

/// Timeouts by fanout, (N, timeouts), of one seed.
type SeedTimeouts = Vec<(f64, f64)>;

/// max_fanout_no_timeout over a set of seeds: the largest N such that no seed timed out at N or
/// at any smaller N of the grid.
fn max_fanout(seeds: &[&SeedTimeouts]) -> f64 {
    let mut fanouts: Vec<f64> = seeds.iter().flat_map(|s| s.iter().map(|p| p.0)).collect();
    fanouts.sort_by(f64::total_cmp);
    fanouts.dedup();
    let mut max_ok = 0.0;
    for n in fanouts {
        let total: f64 = seeds
            .iter()
            .flat_map(|s| s.iter().filter(|p| p.0 == n).map(|p| p.1))
            .sum();
        if total > 0.0 {
            break;
        }
        max_ok = n;
    }
    max_ok
}

fn incast_section(dir: &Path, jobs: &Jobs, rep: &mut Report, rng: &mut Rng) -> Result<(), String> {
    let vars = jobs.variants("incast");
    if vars.is_empty() {
        return Ok(());
    }
    let fanout = |v: &str| var_get(v, "FANOUT").and_then(|n| n.parse::<f64>().ok());
    let mut line = "incast: max_fanout_no_timeout".to_string();
    rep.table_head(
        "incast: the largest fanout N such that no query at N or below timed out (any seed)",
    );
    let mut timeouts = Vec::new();
    let mut qct = Vec::new();
    let mut best: BTreeMap<String, f64> = BTreeMap::new();
    // Scheme -> seed -> timeouts by fanout, for the interval of ECN# against CoDel.
    let mut by_seed: BTreeMap<String, BTreeMap<u32, SeedTimeouts>> = BTreeMap::new();
    for s in jobs.schemes("incast") {
        let mut max_ok = 0.0;
        let mut broken = false;
        let (mut tp, mut qp) = (Vec::new(), Vec::new());
        for v in &vars {
            let Some(n) = fanout(v) else { continue };
            let p: Point = ("incast".into(), s.clone(), v.clone());
            let ts = jobs.num(&p, "incast_timeouts");
            for (seed, x) in &ts {
                by_seed
                    .entry(s.clone())
                    .or_default()
                    .entry(*seed)
                    .or_default()
                    .push((n, *x));
            }
            let t: Vec<f64> = ts.into_values().collect();
            if t.is_empty() {
                continue;
            }
            let total: f64 = t.iter().sum();
            tp.push((n, total, total, total));
            if total > 0.0 {
                broken = true;
            } else if !broken {
                max_ok = n;
            }
            let q: Vec<f64> = jobs.num(&p, "incast_qct_mean_us").into_values().collect();
            if let Some(m) = boot::mean(&q) {
                let lo = q.iter().copied().fold(f64::MAX, f64::min);
                let hi = q.iter().copied().fold(0.0, f64::max);
                qp.push((n, m / 1e3, lo / 1e3, hi / 1e3));
            }
        }
        let _ = write!(line, " {s}={max_ok}");
        let _ = writeln!(rep.tables, "| max_fanout_no_timeout {s} | {max_ok} | | |");
        best.insert(s.clone(), max_ok);
        timeouts.push(Series {
            name: s.clone(),
            points: tp,
        });
        qct.push(Series {
            name: s,
            points: qp,
        });
    }
    if let (Some(e), Some(c)) = (by_seed.get("ecnsharp"), by_seed.get("codel")) {
        // The seeds both ran, paired; bootstrapped over seeds (boot::ratio_over_seeds).
        let (a, b): (Vec<SeedTimeouts>, Vec<SeedTimeouts>) = e
            .iter()
            .filter_map(|(seed, x)| c.get(seed).map(|y| (x.clone(), y.clone())))
            .unzip();
        if max_fanout(&b.iter().collect::<Vec<_>>()) > 0.0 {
            let key = "incast max_fanout_no_timeout ecnsharp/codel";
            let r = boot::ratio_over_seeds(&a, &b, |v| Some(max_fanout(v)), rng);
            if let Some(r) = r {
                let claim = paper::lookup(key);
                let _ = writeln!(
                    rep.tables,
                    "| max_fanout_no_timeout ecnsharp/codel | {r} | {} | {} |",
                    a.len(),
                    claim.map_or(String::new(), |c| format!("{:.2} ({})", c.value, c.source))
                );
                let _ = write!(line, " ecnsharp/codel={r}");
                if let Some(c) = claim {
                    rep.judge(c, &r);
                }
            }
        }
    }
    rep.lines.push(line);
    timeouts_table(&timeouts, &mut rep.tables);
    figures::lines(
        &dir.join("incast-timeouts.svg"),
        "incast: TCP timeouts during the queries (sum over seeds)",
        "fanout N",
        "timeouts",
        &timeouts,
        &paper::marks("incast-timeouts"),
    )?;
    figures::lines(
        &dir.join("incast-qct.svg"),
        "incast: mean query completion time (mean, min-max over seeds)",
        "fanout N",
        "QCT (ms)",
        &qct,
        &paper::marks("incast-qct"),
    )
}

/// The timeouts behind max_fanout_no_timeout, by fanout and scheme (summed over the seeds), so
/// that a reader sees how many timeouts moved it: one is enough.
fn timeouts_table(timeouts: &[Series], out: &mut String) {
    let mut fanouts: Vec<f64> = timeouts
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    fanouts.sort_by(f64::total_cmp);
    fanouts.dedup();
    let _ = write!(
        out,
        "\n## incast: TCP timeouts during the queries, by fanout (summed over the seeds)\n\n| scheme |"
    );
    for n in &fanouts {
        let _ = write!(out, " N={n} |");
    }
    let _ = write!(out, "\n| --- |{}\n", " ---: |".repeat(fanouts.len()));
    for s in timeouts {
        let _ = write!(out, "| {} |", s.name);
        for n in &fanouts {
            match s.points.iter().find(|p| p.0 == *n) {
                Some(p) => {
                    let _ = write!(out, " {} |", p.1);
                }
                None => out.push_str(" - |"),
            }
        }
        out.push('\n');
    }
}

/// The three bands' Mbit/s by seed at `scenario` and `scheme`, and per band the mean over the
/// seeds in Gbit/s.
fn band_gbps(jobs: &Jobs, scenario: &str, scheme: &str) -> (Vec<BTreeMap<u32, f64>>, Vec<f64>) {
    let p: Point = (scenario.into(), scheme.into(), String::new());
    let seeds: Vec<BTreeMap<u32, f64>> = (0..3)
        .map(|k| jobs.num(&p, &format!("band{k}_mbps")))
        .collect();
    let b = seeds
        .iter()
        .map(|m| boot::mean(&m.values().copied().collect::<Vec<_>>()).unwrap_or(0.0) / 1e3)
        .collect();
    (seeds, b)
}

fn sched_section(jobs: &Jobs, rep: &mut Report, rng: &mut Rng) {
    let schemes = jobs.schemes("sched");
    if schemes.is_empty() {
        return;
    }
    let mut line = "sched: dwrr 2:1:1 Gbit/s".to_string();
    rep.table_head(
        "sched: three DWRR bands, quanta 2:1:1, one long flow each (Gbit/s the qdisc sent, \
         headers included, mean over seeds; no short flows, so the paper's Figure 13b is not run)",
    );
    for s in schemes {
        let (seeds, b) = band_gbps(jobs, "sched", &s);
        let _ = write!(line, " {s}={:.2}/{:.2}/{:.2}", b[0], b[1], b[2]);
        let claim = paper::lookup("sched band0/band1 ecnsharp");
        let _ = writeln!(
            rep.tables,
            "| band Gbit/s {s} | {:.2} / {:.2} / {:.2} | | {} |",
            b[0],
            b[1],
            b[2],
            claim.map_or(String::new(), |c| c.source.to_string())
        );
        // The shares as ratios of the first band to the others, per-seed metrics bootstrapped
        // over the seeds as the long flows' are (boot::ratio_of_seeds).
        for k in [1, 2] {
            let (x, y) = paired(&seeds[0], &seeds[k]);
            let key = format!("sched band0/band{k} {s}");
            let r = boot::ratio_of_seeds(&x, &y, rng);
            let txt = rep.ratio(&key, r, x.len());
            let _ = write!(line, " band0/band{k} {s}={txt}");
        }
    }
    rep.lines.push(line);
}

/// Figure 13b's scheme against which ECN# is judged: TCN at the paper's stated 150 us.
const TCN_PAPER: &str = "tcn150";

/// Probe FCTs of one scheme (and band, if given) by seed.
fn probe_fcts(probes: &[Probe], s: &str, band: Option<usize>) -> BTreeMap<u32, Vec<f64>> {
    let mut by: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for p in probes
        .iter()
        .filter(|p| p.scheme == s && band.is_none_or(|b| p.band == b))
    {
        if let Some(fct) = p.fct_us {
            by.entry(p.seed).or_default().push(fct);
        }
    }
    by
}

/// The samples of two schemes over the seeds both have, in seed order (boot::ratio pairs them).
fn paired_seeds(
    a: &BTreeMap<u32, Vec<f64>>,
    b: &BTreeMap<u32, Vec<f64>>,
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    a.iter()
        .filter_map(|(s, x)| b.get(s).map(|y| (x.clone(), y.clone())))
        .unzip()
}

/// ECN#'s probe mean and p99 FCT over TCN's at 150 us and at 200 us (each where it ran), with
/// their intervals, onto `line` and into the tables under `label`.
fn probe_ratios(
    probes: &[Probe],
    schemes: &[String],
    label: &str,
    line: &mut String,
    rep: &mut Report,
    rng: &mut Rng,
) {
    let ecn = probe_fcts(probes, "ecnsharp", None);
    for base in [TCN_PAPER, "tcn_tail"] {
        if !schemes.iter().any(|s| s == base) {
            continue;
        }
        let (a, b) = paired_seeds(&ecn, &probe_fcts(probes, base, None));
        let n = a.iter().map(Vec::len).sum();
        for (name, stat) in [("probe_mean", Stat::Mean), ("probe_p99", Stat::P99)] {
            let r = boot::ratio(&a, &b, stat, rng);
            let txt = rep.ratio(&format!("{label} {name} ecnsharp/{base}"), r, n);
            let _ = write!(line, " {name} ecnsharp/{base}={txt}");
        }
    }
}

/// Figure 13b (SCENARIO=sched_probe, Amendment 5 of docs/results/uml/README.md): the short
/// probe flows' FCT beside three DWRR long flows, ECN# against TCN at 150 us (the paper's) and at
/// 200 us, and the long flows' shares as sched's (Figure 13a in the same runs). Its points are
/// the run's own (jobs.tsv, probes.tsv.gz), or, for a sweep made before the scenario existed,
/// those of DIR/sched_probe/ (its own invocation of experiments.sh). Drawn after every other
/// ratio, so that theirs, from one bootstrap stream, stay as they were.
fn probe_section(dir: &Path, jobs: &Jobs, rep: &mut Report, rng: &mut Rng) -> Result<(), String> {
    let sub = dir.join("sched_probe");
    let own;
    let (jobs, src, from) = if !jobs.schemes("sched_probe").is_empty() {
        (jobs, dir.to_path_buf(), "")
    } else if sub.join("jobs.tsv").exists() {
        let text = std::fs::read_to_string(sub.join("jobs.tsv"))
            .map_err(|e| format!("sched_probe/jobs.tsv: {e}"))?;
        own = Jobs::parse(&text)?;
        (&own, sub, " from=sched_probe/")
    } else {
        return Ok(());
    };
    let schemes = jobs.schemes("sched_probe");
    if schemes.is_empty() {
        return Ok(());
    }
    let probes = if src.join("probes.tsv.gz").exists() {
        load::read_probes(&src.join("probes.tsv.gz"))?
    } else {
        Vec::new()
    };
    let paper = paper::lookup(&format!("sched_probe probe_mean ecnsharp/{TCN_PAPER}"));
    let mut line = format!("sched_probe:{from} probe FCT us (mean/p99)");
    rep.table_head(
        "sched_probe (Figure 13b, Amendment 5): short probe flows (3-60 KB, 1.5% of the link, \
         bands uniform) beside three DWRR long flows; ECN# against TCN at 150 us (the paper's) \
         and 200 us",
    );
    let all: Vec<(String, Vec<f64>)> = schemes
        .iter()
        .map(|s| {
            let v: Vec<f64> = probe_fcts(&probes, s, None)
                .into_values()
                .flatten()
                .collect();
            (s.clone(), v)
        })
        .collect();
    for (s, v) in &all {
        let (m, p) = (
            boot::mean(v).unwrap_or(f64::NAN),
            boot::percentile(v, 99.0).unwrap_or(f64::NAN),
        );
        let _ = write!(line, " {s}={m:.0}/{p:.0}");
        let _ = writeln!(
            rep.tables,
            "| probe_mean_us / probe_p99_us {s} | {m:.0} / {p:.0} | {} | {} |",
            v.len(),
            if s == TCN_PAPER || s == "ecnsharp" {
                format!(
                    "{} ({})",
                    if s == TCN_PAPER { 2913 } else { 2341 },
                    "Fig. 13b, simulation"
                )
            } else {
                String::new()
            }
        );
    }
    probe_ratios(&probes, &schemes, "sched_probe", &mut line, rep, rng);
    let unfinished = probes.iter().filter(|p| p.fct_us.is_none()).count();
    let n_ecn = probe_fcts(&probes, "ecnsharp", None)
        .values()
        .map(Vec::len)
        .sum::<usize>();
    let _ = write!(
        line,
        " paper ecnsharp/{TCN_PAPER}={} (2913 to 2341 us) probes={n_ecn} unfinished_all_schemes={unfinished}",
        paper.map_or("-".into(), |c| format!("{:.3}", c.value))
    );
    rep.lines.push(line);
    // By band: the probes' FCT, and what the band's rule did (the qdisc's counters, mean over
    // seeds, over the whole run).
    let _ = write!(
        rep.tables,
        "\n## sched_probe: probes and marks by band (probes pooled over seeds; counters mean per seed, whole run)\n\n\
         | scheme | band | probes | probe mean FCT us | probe p99 us | band marks | ins | pst | band sojourn mean us |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    for s in &schemes {
        let p: Point = ("sched_probe".into(), s.clone(), String::new());
        let cell = |m: &str| {
            boot::mean(&jobs.num(&p, m).into_values().collect::<Vec<_>>())
                .map_or("-".into(), |x| format!("{x:.0}"))
        };
        for b in 0..3 {
            let v: Vec<f64> = probe_fcts(&probes, s, Some(b))
                .into_values()
                .flatten()
                .collect();
            let _ = writeln!(
                rep.tables,
                "| {s} | {b} | {} | {} | {} | {} | {} | {} | {} |",
                v.len(),
                boot::mean(&v).map_or("-".into(), |x| format!("{x:.0}")),
                boot::percentile(&v, 99.0).map_or("-".into(), |x| format!("{x:.0}")),
                cell(&format!("band{b}_marks")),
                cell(&format!("band{b}_marks_ins")),
                cell(&format!("band{b}_marks_pst")),
                cell(&format!("band{b}_sojourn_mean_us")),
            );
        }
    }
    // Figure 13a in the same runs: the long flows' shares, as sched's.
    let mut shares = format!("sched_probe:{from} dwrr 2:1:1 Gbit/s");
    rep.table_head(
        "sched_probe: the long flows' shares with the probes running (Gbit/s the qdisc sent, \
         headers and probes included, mean over seeds; Figure 13a in the same runs)",
    );
    for s in &schemes {
        let (seeds, b) = band_gbps(jobs, "sched_probe", s);
        let _ = write!(shares, " {s}={:.2}/{:.2}/{:.2}", b[0], b[1], b[2]);
        let _ = writeln!(
            rep.tables,
            "| band Gbit/s {s} | {:.2} / {:.2} / {:.2} | | |",
            b[0], b[1], b[2]
        );
        for k in [1, 2] {
            let (x, y) = paired(&seeds[0], &seeds[k]);
            let r = boot::ratio_of_seeds(&x, &y, rng);
            let txt = rep.ratio(&format!("sched_probe band0/band{k} {s}"), r, x.len());
            let _ = write!(shares, " band0/band{k} {s}={txt}");
        }
    }
    rep.lines.push(shares);
    let series: Vec<(String, Vec<f64>)> = all
        .into_iter()
        .map(|(s, v)| (s, v.iter().map(|x| x / 1e3).collect()))
        .collect();
    figures::cdfs(
        &dir.join("sched_probe-cdf.svg"),
        "sched_probe (Fig. 13b): FCT of the short probe flows (3-60 KB), all seeds",
        "flow completion time (ms, log)",
        &series,
    )?;
    window_table(&src, jobs, &schemes, rep)
}

/// Amendment 6's re-run of the sched_probe points with the probe-window sampler on, in
/// DIR/sched_probe_window/ (its own invocation of experiments.sh; Amendment 5's points in
/// DIR/sched_probe/ stay as they were): its probes' FCT under its own label, and the window
/// table. Drawn after everything else, so no other interval moves.
fn window_section(dir: &Path, rep: &mut Report, rng: &mut Rng) -> Result<(), String> {
    let sub = dir.join("sched_probe_window");
    if !sub.join("jobs.tsv").exists() {
        return Ok(());
    }
    let text = std::fs::read_to_string(sub.join("jobs.tsv"))
        .map_err(|e| format!("sched_probe_window/jobs.tsv: {e}"))?;
    let jobs = Jobs::parse(&text)?;
    let schemes = jobs.schemes("sched_probe");
    let probes = load::read_probes(&sub.join("probes.tsv.gz"))?;
    rep.table_head(
        "sched_probe_window (Amendment 6): the sched_probe points run again with the 1 ms \
         probe-window sampler on; its probes' FCT, beside (not replacing) Amendment 5's",
    );
    let mut line = String::from(
        "sched_probe_window: from=sched_probe_window/ (sampler on) probe FCT us (mean/p99)",
    );
    for s in &schemes {
        let v: Vec<f64> = probe_fcts(&probes, s, None)
            .into_values()
            .flatten()
            .collect();
        let (m, p) = (
            boot::mean(&v).unwrap_or(f64::NAN),
            boot::percentile(&v, 99.0).unwrap_or(f64::NAN),
        );
        let _ = write!(line, " {s}={m:.0}/{p:.0}");
        let _ = writeln!(
            rep.tables,
            "| sched_probe_window probe_mean_us / probe_p99_us {s} | {m:.0} / {p:.0} | {} | |",
            v.len()
        );
    }
    probe_ratios(&probes, &schemes, "sched_probe_window", &mut line, rep, rng);
    rep.lines.push(line);
    window_table(&sub, &jobs, &schemes, rep)
}

/// Amendment 6: sched_probe's probe window (from the probes' start until the last one ends):
/// each band's queue sampled every 1 ms (bandq.tsv.gz, pooled over seeds), its marks by cause
/// and packets over the window (mean per seed), and the probe senders' CE-echoed share. No
/// bootstrap, so drawn last without moving any interval; nothing when the runs predate it.
fn window_table(
    src: &Path,
    jobs: &Jobs,
    schemes: &[String],
    rep: &mut Report,
) -> Result<(), String> {
    let path = src.join("bandq.tsv.gz");
    if !path.exists() {
        return Ok(());
    }
    let samples = load::read_bandq(&path)?;
    // The DWRR 2:1:1 share of a 10 Gbit/s link, bits per us: a backlog's wait at its share.
    const SHARE_BITS_PER_US: [f64; 3] = [5e3, 2.5e3, 2.5e3];
    let _ = write!(
        rep.tables,
        "\n## sched_probe: the probe window (Amendment 6; queue sampled every 1 ms, samples pooled over seeds; \
         marks and packets over the window, mean per seed)\n\n\
         | scheme | band | samples | qlen mean / p99 pkts | backlog mean / p99 KB | backlog at the band's share mean / p99 us | packets | marks | ins | pst | marked % |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    );
    let mut line =
        String::from("sched_probe window: qlen mean pkts by band, marked %, probes' CE %");
    for s in schemes {
        let p: Point = ("sched_probe".into(), s.clone(), String::new());
        let per_seed = |m: &str| boot::mean(&jobs.num(&p, m).into_values().collect::<Vec<_>>());
        let mine: Vec<&load::BandSample> = samples.iter().filter(|x| &x.scheme == s).collect();
        let mut qs = Vec::new();
        let mut ms = Vec::new();
        for (b, share) in SHARE_BITS_PER_US.iter().enumerate() {
            let q: Vec<f64> = mine.iter().map(|x| x.qlen[b]).collect();
            let k: Vec<f64> = mine.iter().map(|x| x.backlog[b]).collect();
            let us: Vec<f64> = k.iter().map(|x| x * 8.0 / share).collect();
            let mp = |v: &[f64], scale: f64, d: usize| match (
                boot::mean(v),
                boot::percentile(v, 99.0),
            ) {
                (Some(m), Some(p)) => format!("{:.d$} / {:.d$}", m / scale, p / scale),
                _ => "-".into(),
            };
            let pk = per_seed(&format!("pw_band{b}_packets"));
            let mk = per_seed(&format!("pw_band{b}_marks"));
            let frac = match (pk, mk) {
                (Some(p), Some(m)) if p > 0.0 => Some(100.0 * m / p),
                _ => None,
            };
            let f0 = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
            let _ = writeln!(
                rep.tables,
                "| {s} | {b} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                q.len(),
                mp(&q, 1.0, 1),
                mp(&k, 1e3, 1),
                mp(&us, 1.0, 0),
                f0(pk),
                f0(mk),
                f0(per_seed(&format!("pw_band{b}_marks_ins"))),
                f0(per_seed(&format!("pw_band{b}_marks_pst"))),
                frac.map_or("-".into(), |x| format!("{x:.2}")),
            );
            qs.push(boot::mean(&q).map_or("-".into(), |x| format!("{x:.1}")));
            ms.push(frac.map_or("-".into(), |x| format!("{x:.2}")));
        }
        let ce = match (
            per_seed("pw_probe_delivered"),
            per_seed("pw_probe_delivered_ce"),
        ) {
            (Some(d), Some(c)) if d > 0.0 => format!("{:.2}", 100.0 * c / d),
            _ => "-".into(),
        };
        let _ = write!(
            line,
            " {s}={} marked={} probe_ce={ce}",
            qs.join("/"),
            ms.join("/")
        );
        let _ = writeln!(
            rep.tables,
            "| {s} | probes (h4..h7) | | | | | {} delivered | {} CE-echoed | | | {ce} |",
            per_seed("pw_probe_delivered").map_or("-".into(), |x| format!("{x:.0}")),
            per_seed("pw_probe_delivered_ce").map_or("-".into(), |x| format!("{x:.0}")),
        );
    }
    rep.lines.push(line);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeouts_table_has_a_column_per_fanout_and_marks_the_missing() {
        let s = |name: &str, pts: &[(f64, f64)]| Series {
            name: name.into(),
            points: pts.iter().map(|&(n, t)| (n, t, t, t)).collect(),
        };
        let mut out = String::new();
        timeouts_table(
            &[
                s("ecnsharp", &[(16.0, 0.0), (96.0, 1.0)]),
                s("codel", &[(96.0, 7.0)]),
            ],
            &mut out,
        );
        assert!(out.contains("| scheme | N=16 | N=96 |\n| --- | ---: | ---: |\n"));
        assert!(out.contains("| ecnsharp | 0 | 1 |\n"));
        assert!(out.contains("| codel | - | 7 |\n"));
    }
}
