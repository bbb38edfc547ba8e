// SPDX-License-Identifier: GPL-2.0-only
//! The virtual-time testbed's collected results (tests/uml/experiments.sh): jobs.tsv (one row
//! per point and metric) and flows.tsv.gz (one row per completed flow).

use std::collections::BTreeMap;
use std::path::Path;

/// A point of the testbed without its seed: (scenario, scheme, variant). The variant is the
/// point's other arguments joined by commas, e.g. "WORKLOAD=websearch,LOAD=0.5" or "SPREAD=3".
pub type Point = (String, String, String);

#[derive(Default)]
pub struct Jobs {
    /// (point, metric) -> value text by seed.
    pub values: BTreeMap<(Point, String), BTreeMap<u32, String>>,
}

impl Jobs {
    pub fn parse(text: &str) -> Result<Jobs, String> {
        let mut j = Jobs::default();
        for (i, line) in text.lines().enumerate().skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            let [seed, sc, scheme, var, metric, value] = f[..] else {
                return Err(format!("jobs.tsv line {}: want 6 fields: {line}", i + 1));
            };
            let seed: u32 = seed
                .parse()
                .map_err(|_| format!("jobs.tsv line {}: bad seed {seed}", i + 1))?;
            let p = (sc.to_string(), scheme.to_string(), var.to_string());
            j.values
                .entry((p, metric.to_string()))
                .or_default()
                .insert(seed, value.to_string());
        }
        Ok(j)
    }

    /// A numeric metric of a point, by seed (values that are not numbers are left out).
    pub fn num(&self, p: &Point, metric: &str) -> BTreeMap<u32, f64> {
        self.values
            .get(&(p.clone(), metric.to_string()))
            .map(|m| {
                m.iter()
                    .filter_map(|(s, v)| v.parse().ok().map(|x| (*s, x)))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub fn text(&self, p: &Point, metric: &str) -> Option<&str> {
        self.values
            .get(&(p.clone(), metric.to_string()))
            .and_then(|m| m.values().next())
            .map(String::as_str)
    }

    /// The variants of a scenario that a scheme ran, in their order of appearance sorted by
    /// their numeric parts.
    pub fn variants(&self, sc: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .values
            .keys()
            .filter(|((s, _, _), _)| s == sc)
            .map(|((_, _, var), _)| var.clone())
            .collect();
        v.sort_by(|a, b| {
            variant_key(a)
                .partial_cmp(&variant_key(b))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.cmp(b))
        });
        v.dedup();
        v
    }

    pub fn schemes(&self, sc: &str) -> Vec<String> {
        let mut v: Vec<String> = self
            .values
            .keys()
            .filter(|((s, _, _), _)| s == sc)
            .map(|((_, s, _), _)| s.clone())
            .collect();
        v.dedup();
        v.sort_by_key(|s| scheme_rank(s));
        v.dedup();
        v
    }

    /// The scenarios the run has, in the plan's order (flows, long, incast, sched; others
    /// after, by name).
    pub fn scenarios(&self) -> Vec<String> {
        const ORDER: [&str; 4] = ["flows", "long", "incast", "sched"];
        let mut v: Vec<String> = self.values.keys().map(|((s, _, _), _)| s.clone()).collect();
        v.sort_by_key(|s| {
            (
                ORDER.iter().position(|o| o == s).unwrap_or(ORDER.len()),
                s.clone(),
            )
        });
        v.dedup();
        v
    }

    /// The seeds any point of a scenario ran.
    pub fn seeds(&self, sc: &str) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .values
            .iter()
            .filter(|(((s, _, _), _), _)| s == sc)
            .flat_map(|(_, m)| m.keys().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// The value of KEY in a variant "K=V,K=V".
pub fn var_get<'a>(var: &'a str, key: &str) -> Option<&'a str> {
    var.split(',')
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
}

/// Sort key of a variant: its values as numbers where they are (workload names first).
fn variant_key(v: &str) -> Vec<f64> {
    v.split(',')
        .map(|kv| {
            let val = kv.split('=').nth(1).unwrap_or("");
            val.parse().unwrap_or(match val {
                "websearch" => -2.0,
                "datamining" => -1.0,
                _ => -3.0,
            })
        })
        .collect()
}

/// The schemes in the order the params file lists them (the baseline first).
pub const SCHEMES: [&str; 10] = [
    "red_tail",
    "ecnsharp",
    "red_avg",
    "tcn_tail",
    "tcn_avg",
    "codel",
    "linux_codel",
    "linux_fq_codel",
    "linux_red",
    "linux_pie",
];

pub fn scheme_rank(s: &str) -> usize {
    SCHEMES
        .iter()
        .position(|x| *x == s)
        .unwrap_or(SCHEMES.len())
}

/// One completed flow of the workloads.
pub struct Flow {
    pub seed: u32,
    pub workload: String,
    pub load: String,
    /// "-" for the headline points, else what a sensitivity point changes ("SPREAD=5").
    pub variant: String,
    pub scheme: String,
    pub size: u64,
    /// The RTT class (1-based): the third octet of the server address 10.SENDER.CLASS.1.
    pub class: usize,
    /// None: the flow had not finished when the run ended (reported, never dropped).
    pub fct_us: Option<f64>,
}

pub fn read_flows(path: &Path) -> Result<Vec<Flow>, String> {
    parse_flows(&gunzip(path)?)
}

pub fn parse_flows(text: &str) -> Result<Vec<Flow>, String> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [seed, workload, load, variant, scheme, size, to, _start, fct] = f[..] else {
            return Err(format!("flows line {}: want 9 fields: {line}", i + 1));
        };
        let bad = |what: &str| format!("flows line {}: bad {what}: {line}", i + 1);
        let class = to
            .split(['.', ':'])
            .nth(2)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| bad("address"))?;
        v.push(Flow {
            seed: seed.parse().map_err(|_| bad("seed"))?,
            workload: workload.to_string(),
            load: load.to_string(),
            variant: variant.to_string(),
            scheme: scheme.to_string(),
            size: size.parse().map_err(|_| bad("size"))?,
            class,
            fct_us: match fct {
                "-" => None,
                f => Some(f.parse().map_err(|_| bad("fct"))?),
            },
        });
    }
    Ok(v)
}

/// One probe flow of SCENARIO=sched_probe (Figure 13b), from probes.tsv.gz.
pub struct Probe {
    pub seed: u32,
    pub scheme: String,
    /// The DWRR band (0-2): the server port's last digit (720B).
    pub band: usize,
    /// None: the probe had not finished when the run ended (reported, never dropped).
    pub fct_us: Option<f64>,
}

/// One probe-window queue sample of SCENARIO=sched_probe (Amendment 6), from bandq.tsv.gz: each
/// band's qlen (packets) and backlog (bytes).
pub struct BandSample {
    pub scheme: String,
    pub qlen: [f64; 3],
    pub backlog: [f64; 3],
}

pub fn read_bandq(path: &Path) -> Result<Vec<BandSample>, String> {
    parse_bandq(&gunzip(path)?)
}

pub fn parse_bandq(text: &str) -> Result<Vec<BandSample>, String> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let bad = |what: &str| format!("bandq line {}: bad {what}: {line}", i + 1);
        let [_seed, scheme, _t, q0, b0, q1, b1, q2, b2] = f[..] else {
            return Err(format!("bandq line {}: want 9 fields: {line}", i + 1));
        };
        let num = |x: &str| x.parse::<f64>().map_err(|_| bad("number"));
        v.push(BandSample {
            scheme: scheme.to_string(),
            qlen: [num(q0)?, num(q1)?, num(q2)?],
            backlog: [num(b0)?, num(b1)?, num(b2)?],
        });
    }
    Ok(v)
}

/// Decompresses a .gz file (as read_flows).
fn gunzip(path: &Path) -> Result<String, String> {
    let out = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .output()
        .map_err(|e| format!("gzip -dc {}: {e}", path.display()))?;
    if !out.status.success() {
        return Err(format!("gzip -dc {} failed", path.display()));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

pub fn read_probes(path: &Path) -> Result<Vec<Probe>, String> {
    parse_probes(&gunzip(path)?)
}

pub fn parse_probes(text: &str) -> Result<Vec<Probe>, String> {
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let [seed, scheme, _size, to, _start, fct] = f[..] else {
            return Err(format!("probes line {}: want 6 fields: {line}", i + 1));
        };
        let bad = |what: &str| format!("probes line {}: bad {what}: {line}", i + 1);
        let band = to
            .rsplit_once(':')
            .and_then(|(_, port)| port.strip_prefix("720"))
            .and_then(|b| b.parse().ok())
            .filter(|b: &usize| *b < 3)
            .ok_or_else(|| bad("port"))?;
        v.push(Probe {
            seed: seed.parse().map_err(|_| bad("seed"))?,
            scheme: scheme.to_string(),
            band,
            fct_us: match fct {
                "-" => None,
                f => Some(f.parse().map_err(|_| bad("fct"))?),
            },
        });
    }
    Ok(v)
}

/// RTT classes "RTT:PERCENT ..." -> [(rtt_us, percent)].
pub fn classes(text: &str) -> Vec<(f64, f64)> {
    text.split_whitespace()
        .filter_map(|cw| {
            let (r, w) = cw.split_once(':')?;
            Some((r.parse().ok()?, w.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_jobs_and_flows() {
        let j = Jobs::parse(
            "seed\tscenario\tscheme\tvariant\tmetric\tvalue\n\
             1\tflows\tecnsharp\tWORKLOAD=websearch,LOAD=0.5\tdrops\t3\n\
             2\tflows\tecnsharp\tWORKLOAD=websearch,LOAD=0.5\tdrops\tnull\n\
             1\tflows\tred_tail\tWORKLOAD=websearch,LOAD=0.9\tdrops\t4\n",
        )
        .unwrap();
        let p = (
            "flows".to_string(),
            "ecnsharp".to_string(),
            "WORKLOAD=websearch,LOAD=0.5".to_string(),
        );
        assert_eq!(
            j.num(&p, "drops").into_iter().collect::<Vec<_>>(),
            [(1, 3.0)]
        );
        assert_eq!(j.schemes("flows"), ["red_tail", "ecnsharp"]);
        assert_eq!(j.variants("flows").len(), 2);
        assert_eq!(j.seeds("flows"), [1, 2]);
        assert!(j.seeds("long").is_empty());
        assert_eq!(j.scenarios(), ["flows"]);
        assert_eq!(var_get("WORKLOAD=websearch,LOAD=0.5", "LOAD"), Some("0.5"));
        assert!(Jobs::parse("h\n1\tx\n").is_err());
        let f = parse_flows("h\n1\twebsearch\t0.5\t-\tecnsharp\t3000\t10.4.6.1:7000\t12\t250\n")
            .unwrap();
        assert_eq!((f[0].class, f[0].size, f[0].fct_us), (6, 3000, Some(250.0)));
        let u = parse_flows("h\n1\tw\t0.5\tSPREAD=5\ts\t9\t10.1.1.1:7000\t1\t-\n").unwrap();
        assert_eq!(u[0].fct_us, None);
        assert!(parse_flows("h\n1\tw\t0.5\t-\ts\tx\t10.1.1.1:7000\t1\t2\n").is_err());
        assert_eq!(classes("70.0:75 210.0:5"), [(70.0, 75.0), (210.0, 5.0)]);
        let p = parse_probes(
            "h\n1\ttcn150\t3000\t10.4.1.1:7202\t12\t250\n2\tecnsharp\t9\t10.7.6.1:7200\t1\t-\n",
        )
        .unwrap();
        assert_eq!((p[0].band, p[0].fct_us), (2, Some(250.0)));
        assert_eq!((p[1].band, p[1].fct_us), (0, None));
        assert!(parse_probes("h\n1\ts\t9\t10.4.1.1:7000\t1\t2\n").is_err());
        let q = parse_bandq("h\n2\ttcn150\t1000\t3\t4500\t0\t0\t1\t1514\n").unwrap();
        assert_eq!((q[0].qlen[2], q[0].backlog[0]), (1.0, 4500.0));
        assert_eq!(q[0].scheme, "tcn150");
        assert!(parse_bandq("h\n1\ts\t0\t1\n").is_err());
    }
}
