// SPDX-License-Identifier: GPL-2.0-only
//! What the ECN# paper (CoNEXT'19, and its journal version for scheduling) reports for the
//! figures the virtual-time testbed reproduces, from its text, as ratios to DCTCP-RED-Tail
//! unless said otherwise, and the one rule that judges ours against each. The testbed's tables
//! put ours beside these; the rule was written before the numbers it judges were seen, so no
//! verdict is chosen after seeing a number.

use super::boot::Ratio;
use super::figures::Mark;

/// What the paper says of the ratio, and so how ours is judged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Expect {
    /// ECN# lowers the metric to `value` (< 1): judged by where our 95% interval lies against 1
    /// and against the paper's value.
    Lower,
    /// ECN# costs at most `value - 1` (> 1): judged by where our interval lies against that
    /// bound.
    AtMost,
    /// A count or share of at least `value` (no interval: one number over the seeds).
    AtLeast,
    /// A share equal to `value` within 5% (no interval).
    Near,
}

pub struct Claim {
    /// Where in our results: (scenario key, metric, point) as the tables name them.
    pub key: &'static str,
    pub value: f64,
    pub expect: Expect,
    pub source: &'static str,
}

/// How far a share may be from the paper's and still be the same (`Expect::Near`).
const NEAR: f64 = 0.05;

impl Claim {
    /// The verdict on our ratio with its 95% interval (lo and hi are NaN when there is none).
    pub fn verdict(&self, ours: &Ratio) -> &'static str {
        let (r, lo, hi, p) = (ours.value, ours.lo, ours.hi, self.value);
        let interval = !(lo.is_nan() || hi.is_nan());
        match self.expect {
            Expect::Lower if !interval => "no interval: not judged",
            Expect::Lower if lo > 1.0 => "opposite: higher, the interval above 1",
            Expect::Lower if hi >= 1.0 => "not shown: the interval holds 1",
            Expect::Lower if p < lo => "direction reproduces: lower, by less than the paper",
            Expect::Lower if p > hi => "reproduces: lower, by more than the paper",
            Expect::Lower => "reproduces: the paper's value is in the interval",
            Expect::AtMost if !interval => "no interval: not judged",
            Expect::AtMost if lo > p => "not reproduced: higher than the paper's bound",
            Expect::AtMost if hi <= p => "reproduces: the interval is within the paper's bound",
            Expect::AtMost => "consistent: the interval reaches past the paper's bound",
            Expect::AtLeast | Expect::Near if !r.is_finite() => "no value: not judged",
            Expect::AtLeast if r >= p => "reproduces: at least the paper's",
            Expect::AtLeast if r > 1.0 => "direction reproduces: above 1, below the paper's",
            Expect::AtLeast => "not shown: not above 1",
            Expect::Near if (r - p).abs() <= NEAR * p => "reproduces: within 5% of the paper's",
            Expect::Near => "not reproduced: more than 5% from the paper's",
        }
    }
}

pub const CLAIMS: &[Claim] = &[
    Claim {
        key: "websearch load 0.9 short_mean ecnsharp/red_tail",
        value: 738.0 / 964.0,
        expect: Expect::Lower,
        source: "Fig. 6b: 964 us to 738 us at 90% load",
    },
    Claim {
        key: "websearch load 0.9 short_p99 ecnsharp/red_tail",
        value: 3287.0 / 5242.0,
        expect: Expect::Lower,
        source: "Fig. 6c: 5242 us to 3287 us at 90% load",
    },
    Claim {
        key: "datamining load 0.8 short_mean ecnsharp/red_tail",
        value: 377.0 / 548.0,
        expect: Expect::Lower,
        source: "Fig. 7b: 548 us to 377 us at 80% load",
    },
    Claim {
        key: "datamining load 0.8 short_p99 ecnsharp/red_tail",
        value: 1347.0 / 2161.0,
        expect: Expect::Lower,
        source: "Fig. 7c: 2161 us to 1347 us at 80% load",
    },
    Claim {
        key: "websearch load 0.8 large_mean ecnsharp/red_avg",
        value: 70192.0 / 94411.0,
        expect: Expect::Lower,
        source: "Fig. 6d: 25.6% lower than DCTCP-RED-Avg (94411 us to 70192 us) at 80% load",
    },
    Claim {
        key: "datamining load 0.8 large_mean ecnsharp/red_avg",
        value: 833396.0 / 1049035.0,
        expect: Expect::Lower,
        source: "Fig. 7d: 20.5% lower than DCTCP-RED-Avg at 80% load",
    },
    Claim {
        key: "SPREAD=5 websearch load 0.3 all_mean ecnsharp/red_tail",
        value: 2854.0 / 2650.0,
        expect: Expect::AtMost,
        source: "Fig. 8a: overall mean FCT within 7.6% at 5x (2650 us to 2854 us at 30% load); \
                 judged at 5x, load 0.3, on all flows' mean (make experiments-full's points)",
    },
    Claim {
        key: "incast max_fanout_no_timeout ecnsharp/codel",
        value: 1.75,
        expect: Expect::AtLeast,
        source: "Sec. 5.4 (simulation): 1.75x more concurrent senders than CoDel without timeouts",
    },
    Claim {
        key: "sched band0/band1 ecnsharp",
        value: 2.0,
        expect: Expect::Near,
        source: "CoNEXT Sec. 5.4 Fig. 13a, journal Fig. 19-20 (simulation): DWRR 2:1:1 keeps \
                 its shares; the value is the quanta's ratio (the text's goodput: 4.82/2.40/2.40 \
                 Gbit/s); this judges DWRR's shares under marking, not ECN# against TCN",
    },
    Claim {
        key: "sched band0/band2 ecnsharp",
        value: 2.0,
        expect: Expect::Near,
        source: "Journal Fig. 19-20: as above, the first band against the third",
    },
    Claim {
        key: "sched_probe probe_mean ecnsharp/tcn150",
        value: 2341.0 / 2913.0,
        expect: Expect::Lower,
        source: "Sec. 5.4 Fig. 13b (simulation): ECN# 19.6% better average FCT than TCN for \
                 short flows (2913 us to 2341 us), TCN at 150 us (Amendment 5's sched_probe)",
    },
    Claim {
        key: "sched_probe band0/band1 ecnsharp",
        value: 2.0,
        expect: Expect::Near,
        source: "Sec. 5.4 Fig. 13a in the Figure 13b runs (sched_probe): DWRR 2:1:1 keeps its \
                 shares with the short flows running; the quanta's ratio",
    },
];

pub fn lookup(key: &str) -> Option<&'static Claim> {
    CLAIMS.iter().find(|c| c.key == key)
}

/// A number the paper states in its text for a figure we draw, drawn on our chart beside our
/// curves (figures::Mark). `chart` is the SVG's name without ".svg"; `y` is a ratio to
/// DCTCP-RED-Tail computed from the two times the text gives, or None for a fanout the text
/// names (a vertical line). The paper's figures themselves are not digitised: only what its
/// text states.
pub struct FigureMark {
    pub chart: &'static str,
    pub x: f64,
    pub y: Option<f64>,
    pub label: &'static str,
    /// Written beside a vertical line's top (which scheme it is).
    pub tag: &'static str,
}

pub const FIGURE_MARKS: &[FigureMark] = &[
    FigureMark {
        chart: "websearch-short_mean",
        x: 0.9,
        y: Some(738.0 / 964.0),
        label: "paper, from text: ECN# 0.766 at load 0.9 (964 to 738 us; Sec. 5.2, Fig. 6b)",
        tag: "",
    },
    FigureMark {
        chart: "websearch-short_p99",
        x: 0.9,
        y: Some(3287.0 / 5242.0),
        label: "paper, from text: ECN# 0.627 at load 0.9 (5242 to 3287 us; Sec. 5.2, Fig. 6c)",
        tag: "",
    },
    FigureMark {
        chart: "websearch-all_mean",
        x: 0.1,
        y: Some(2240.0 / 2148.0),
        label: "paper, from text: ECN# 1.043 at load 0.1 (2148 to 2240 us; Sec. 5.2, Fig. 6a)",
        tag: "",
    },
    FigureMark {
        chart: "datamining-short_mean",
        x: 0.8,
        y: Some(377.0 / 548.0),
        label: "paper, from text: ECN# 0.688 at load 0.8 (548 to 377 us; Sec. 5.2, Fig. 7b)",
        tag: "",
    },
    FigureMark {
        chart: "datamining-short_p99",
        x: 0.8,
        y: Some(1347.0 / 2161.0),
        label: "paper, from text: ECN# 0.623 at load 0.8 (2161 to 1347 us; Sec. 5.2, Fig. 7c)",
        tag: "",
    },
    FigureMark {
        chart: "incast-qct",
        x: 100.0,
        y: None,
        label: "paper (simulation), from text: CoDel loses packets from 100 senders (Sec. 5.4, Fig. 11)",
        tag: "paper: CoDel",
    },
    FigureMark {
        chart: "incast-qct",
        x: 175.0,
        y: None,
        label: "paper (simulation), from text: ECN# loses packets from 175 senders (Sec. 5.4, Fig. 11)",
        tag: "paper: ECN#",
    },
];

/// The paper's marks for one of our charts.
pub fn marks(chart: &str) -> Vec<Mark> {
    FIGURE_MARKS
        .iter()
        .filter(|m| m.chart == chart)
        .map(|m| Mark {
            x: m.x,
            y: m.y,
            label: m.label.to_string(),
            tag: m.tag.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(value: f64, expect: Expect) -> Claim {
        Claim {
            key: "k",
            value,
            expect,
            source: "s",
        }
    }

    fn r(value: f64, lo: f64, hi: f64) -> Ratio {
        Ratio { value, lo, hi }
    }

    #[test]
    fn a_lower_claim_is_judged_by_the_interval_against_1_and_the_paper() {
        let c = claim(0.77, Expect::Lower);
        assert!(c
            .verdict(&r(0.9, 0.85, 0.95))
            .starts_with("direction reproduces"));
        assert!(c
            .verdict(&r(0.78, 0.70, 0.85))
            .starts_with("reproduces: the paper's"));
        assert!(c
            .verdict(&r(0.6, 0.55, 0.65))
            .starts_with("reproduces: lower, by more"));
        assert!(c.verdict(&r(0.95, 0.85, 1.05)).starts_with("not shown"));
        assert!(c.verdict(&r(1.2, 1.1, 1.3)).starts_with("opposite"));
        assert!(c
            .verdict(&r(0.9, f64::NAN, f64::NAN))
            .starts_with("no interval"));
    }

    #[test]
    fn a_bound_claim_is_judged_by_the_interval_against_the_bound() {
        let c = claim(1.076, Expect::AtMost);
        assert!(c.verdict(&r(1.0, 0.95, 1.05)).starts_with("reproduces"));
        assert!(c.verdict(&r(1.05, 0.98, 1.12)).starts_with("consistent"));
        assert!(c.verdict(&r(1.2, 1.1, 1.3)).starts_with("not reproduced"));
    }

    #[test]
    fn counts_and_shares_are_judged_as_points() {
        let c = claim(1.75, Expect::AtLeast);
        let p = |v| r(v, f64::NAN, f64::NAN);
        assert!(c.verdict(&p(2.0)).starts_with("reproduces"));
        assert!(c.verdict(&p(1.5)).starts_with("direction reproduces"));
        assert!(c.verdict(&p(1.0)).starts_with("not shown"));
        let s = claim(2.0, Expect::Near);
        assert!(s.verdict(&p(2.08)).starts_with("reproduces"));
        assert!(s.verdict(&p(2.2)).starts_with("not reproduced"));
        assert!(c.verdict(&p(f64::NAN)).starts_with("no value"));
        assert!(s.verdict(&p(f64::INFINITY)).starts_with("no value"));
    }

    #[test]
    fn a_mark_at_a_claimed_point_has_the_claims_value() {
        // "websearch-short_mean" at 0.9 is the claim "websearch load 0.9 short_mean ...".
        let mut n = 0;
        for m in FIGURE_MARKS {
            let (w, metric) = m.chart.split_once('-').unwrap();
            let key = format!("{w} load {} {metric} ecnsharp/red_tail", m.x);
            if let (Some(c), Some(y)) = (lookup(&key), m.y) {
                assert_eq!(c.value, y, "{key}");
                n += 1;
            }
        }
        assert_eq!(n, 4);
        assert_eq!(marks("incast-qct").len(), 2);
        assert!(marks("long-3x-goodput-by-rtt").is_empty());
    }

    #[test]
    fn every_claim_has_one_key() {
        for c in CLAIMS {
            assert_eq!(
                CLAIMS.iter().filter(|d| d.key == c.key).count(),
                1,
                "{}",
                c.key
            );
        }
    }
}
