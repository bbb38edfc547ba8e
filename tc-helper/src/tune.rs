// SPDX-License-Identifier: GPL-2.0-only
//! `ecnsharp-tc tune`: the rule of thumb of ECN# §3.4 (CoNEXT'19) turned into options.
//!
//! Equation 1 gives DCTCP-style queue thresholds `K = lambda x C x RTT`; dividing by the capacity
//! gives Equation 2, a sojourn threshold `T = lambda x RTT` that no longer depends on C. §3.4:
//! `ins_target` from Equation 2 with a high-percentile RTT (marking then costs no throughput,
//! §2.3), `pst_interval` about one high-percentile RTT (TCP needs an RTT to react to a mark),
//! `pst_target` at least `lambda x` the average RTT (low enough to drain the queue that small-RTT
//! flows build, high enough for the oscillation GSO and MTUs cause). lambda belongs to the
//! transport: 1 for ECN* (halving on a mark), 0.17 for DCTCP in theory.

use std::fmt::Write;

use ecnsharp::options::Options;
use ecnsharp::report::JsonSink;

use crate::json::JsonWriter;

/// lambda of DCTCP in theory (ECN# §2.1, after the DCTCP analysis).
pub const LAMBDA_DCTCP: f64 = 0.17;
/// lambda of ECN*, regular ECN TCP, which halves its window on a mark.
pub const LAMBDA_ECNSTAR: f64 = 1.0;

/// What `tune` was given.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneInput {
    /// Bottleneck capacity C, bits per second.
    pub rate_bps: u64,
    /// Average base RTT, ns.
    pub rtt_avg_ns: u64,
    /// High-percentile (90th) base RTT, ns.
    pub rtt_p90_ns: u64,
    /// lambda of the transport.
    pub lambda: f64,
    /// Where lambda came from, for the explanation.
    pub lambda_source: &'static str,
    /// Print the matching command line, for this device (`None`: `DEV`).
    pub command: Option<Option<String>>,
}

/// The numbers `tune` derives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuned {
    /// `ins_target`, ns.
    pub ins_target_ns: u64,
    /// `pst_target`, ns (the lower bound of §3.4).
    pub pst_target_ns: u64,
    /// `pst_interval`, ns.
    pub pst_interval_ns: u64,
    /// Equation 1 with the high-percentile RTT: K in bytes, for `mode red`.
    pub k_bytes: u64,
}

/// `lambda x ns`, rounded to the nanosecond.
fn scale(lambda: f64, ns: u64) -> u64 {
    (lambda * ns as f64).round() as u64
}

/// The rule of thumb.
pub fn tune(input: &TuneInput) -> Tuned {
    let bytes_per_sec = input.rate_bps as f64 / 8.0;
    Tuned {
        ins_target_ns: scale(input.lambda, input.rtt_p90_ns),
        pst_target_ns: scale(input.lambda, input.rtt_avg_ns),
        pst_interval_ns: input.rtt_p90_ns,
        k_bytes: (input.lambda * bytes_per_sec * input.rtt_p90_ns as f64 / 1e9).round() as u64,
    }
}

/// A time in microseconds, exact to the nanosecond (`40.8us`, `2.04us`), as the grammar reads it.
fn time(ns: u64) -> String {
    let (whole, mut frac) = (ns / 1_000, ns % 1_000);
    if frac == 0 {
        return format!("{whole}us");
    }
    let mut width = 3;
    while frac % 10 == 0 {
        frac /= 10;
        width -= 1;
    }
    format!("{whole}.{frac:0width$}us")
}

/// A rate as written by the user's units, for the explanation.
fn rate(bps: u64) -> String {
    for (scale, unit) in [
        (1_000_000_000, "Gbit"),
        (1_000_000, "Mbit"),
        (1_000, "Kbit"),
    ] {
        if bps >= scale && bps.is_multiple_of(scale) {
            return format!("{}{unit}", bps / scale);
        }
    }
    format!("{bps}bit")
}

/// The explanation and, if asked, the command line.
pub fn report(input: &TuneInput, t: &Tuned) -> String {
    let l = input.lambda;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ECN# rule of thumb (CoNEXT'19 section 3.4) for lambda {l} ({}), C {}, \
         RTT avg {} p90 {}:",
        input.lambda_source,
        rate(input.rate_bps),
        time(input.rtt_avg_ns),
        time(input.rtt_p90_ns)
    );
    let _ = writeln!(
        s,
        "  ins_target   = lambda x RTT_p90 = {l} x {} = {}\n    \
         Equation 2 (T = K / C = lambda x RTT) with a high-percentile RTT, so that \
         instantaneous marking costs no throughput.",
        time(input.rtt_p90_ns),
        time(t.ins_target_ns)
    );
    let _ = writeln!(
        s,
        "  pst_interval ~ RTT_p90 = {}\n    \
         About one high-percentile RTT: TCP needs an RTT to react to a mark, so a queue that \
         outlives it is persistent.",
        time(t.pst_interval_ns)
    );
    let _ = writeln!(
        s,
        "  pst_target  >= lambda x RTT_avg = {l} x {} = {}\n    \
         At least this: it drains the queue that small-RTT flows build, yet stays above the \
         oscillation that GSO/TSO and MTU-sized packets cause.",
        time(input.rtt_avg_ns),
        time(t.pst_target_ns)
    );
    let _ = writeln!(
        s,
        "  (Equation 1: the same instantaneous threshold as a queue length is \
         K = lambda x C x RTT_p90 = {} bytes, the k of mode red.)",
        t.k_bytes
    );
    if t.pst_target_ns > t.ins_target_ns {
        let _ = writeln!(
            s,
            "  warning: pst_target exceeds ins_target; is RTT_avg above RTT_p90?"
        );
    }
    if let Some(line) = command_line(input, t) {
        let _ = writeln!(s, "{line}");
    }
    s
}

/// The slowest link the rule of thumb is for: ECN# is a datacenter scheme, and a bare number
/// is bits per second in tc's units, so `--rate 10` (10 bit/s) is refused rather than tuned.
const MIN_RATE_BPS: u64 = 1_000_000;
/// The shortest RTT taken: datacenter RTTs are microseconds, and a bare TIME is one.
const MIN_RTT_NS: u64 = 1_000;
/// lambda's range: the paper's transports have 0.17 (DCTCP) and 1 (ECN*); a hundredth of
/// DCTCP's or ten times ECN*'s is surely a typing error.
const LAMBDA_RANGE: (f64, f64) = (0.01, 10.0);

/// A rate as `--rate` takes it: tc's units, at least 1mbit.
fn parse_rate(w: &str) -> Result<u64, String> {
    let rate = Options::parse(["rate", w])
        .ok()
        .and_then(|o| o.rate_bps)
        .ok_or(format!(
            "bad rate \"{w}\" (tc's units: 10gbit, 25Gbit, 100gbit)"
        ))?;
    if rate < MIN_RATE_BPS {
        return Err(format!(
            "rate \"{w}\" is {rate} bit/s, below 1mbit: the rule of thumb is for datacenter \
             links (a bare number is bits per second, as in tc: write the unit, e.g. 10gbit)"
        ));
    }
    Ok(rate)
}

/// An RTT as `--rtt-avg` and `--rtt-p90` take it: tc's units (a bare number is us), 1us to 4.29s.
fn parse_rtt(w: &str) -> Result<u64, String> {
    let ns = Options::parse(["pst_interval", w])
        .ok()
        .and_then(|o| o.pst_interval_ns)
        .map(u64::from)
        .ok_or(format!(
            "bad time \"{w}\" (tc's units: 80us, 1.5ms; at most 4.29s)"
        ))?;
    if ns < MIN_RTT_NS {
        return Err(format!(
            "RTT \"{w}\" is below 1us: no network round trip is that short"
        ));
    }
    Ok(ns)
}

/// lambda, 0.01 to 10.
fn parse_lambda(w: &str) -> Result<f64, String> {
    let (low, high) = LAMBDA_RANGE;
    let l: f64 = w
        .parse()
        .ok()
        .filter(|l: &f64| l.is_finite())
        .ok_or(format!("bad lambda \"{w}\" (a number, 0.01 to 10)"))?;
    if !(low..=high).contains(&l) {
        return Err(format!(
            "lambda {w} is outside 0.01 to 10 (DCTCP 0.17 in theory, ECN* 1; practice uses 1 \
             with DCTCP)"
        ));
    }
    Ok(l)
}

/// Whether the qdisc would take the result: the kernel's own validation over the defaults, so
/// that `tune` never prints a command that the kernel refuses.
pub fn check(t: &Tuned) -> Result<(), String> {
    let mut cfg = ecnsharp::config::Config::DEFAULT;
    cfg.marking.ins_target = t.ins_target_ns;
    cfg.marking.pst_target = t.pst_target_ns;
    cfg.marking.pst_interval = t.pst_interval_ns;
    cfg.validate()
        .map_err(|e| format!("the qdisc would refuse the result: {e}"))
}

/// The transports whose lambda the paper gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    /// DCTCP: lambda 0.17, in theory (the default)
    Dctcp,
    /// ECN*, regular ECN TCP halving its window on a mark: lambda 1
    #[value(alias = "ecn*")]
    Ecnstar,
}

/// `ecnsharp-tc tune`'s command line.
#[derive(Clone, Debug, PartialEq, clap::Parser)]
#[command(
    name = "tune",
    bin_name = "ecnsharp-tc tune",
    about = "Derive ECN# parameters from RTT percentiles (the rule of thumb of CoNEXT'19 section 3.4)",
    long_about = "Derive ECN# parameters from RTT percentiles, with the rule of thumb of the ECN# \
        paper (CoNEXT'19 section 3.4): ins_target = lambda x RTT_p90, pst_interval ~ RTT_p90, \
        pst_target >= lambda x RTT_avg, and Equation 1's K = lambda x C x RTT_p90 for mode red. \
        RATE and TIME take tc's units (10gbit; 80us, 1.5ms; a bare TIME is microseconds).",
    after_help = "Example: ecnsharp-tc tune --rate 25gbit --rtt-avg 30us --rtt-p90 90us --command dev eth0"
)]
pub struct TuneArgs {
    /// Bottleneck capacity C, at least 1mbit (tc's units: 10gbit, 25Gbit, 100gbit)
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub rate: u64,
    /// Average base RTT, 1us to 4.29s (tc's units: 80us, 1.5ms; a bare number is microseconds)
    #[arg(long = "rtt-avg", value_name = "TIME", value_parser = parse_rtt)]
    pub rtt_avg: u64,
    /// High-percentile (90th) base RTT, 1us to 4.29s
    #[arg(long = "rtt-p90", value_name = "TIME", value_parser = parse_rtt)]
    pub rtt_p90: u64,
    /// The transport, which sets lambda [default: dctcp]
    #[arg(long, value_enum, value_name = "TRANSPORT", conflicts_with = "lambda")]
    pub transport: Option<Transport>,
    /// lambda itself (0.01 to 10), instead of --transport
    #[arg(long, value_name = "LAMBDA", value_parser = parse_lambda)]
    pub lambda: Option<f64>,
    /// Also print the matching tc command line; `--command dev DEV` names the device
    #[arg(long, num_args = 0..=2, value_names = ["dev", "DEV"])]
    pub command: Option<Vec<String>>,
    /// The device of the command line (implies --command)
    #[arg(long, value_name = "DEV")]
    pub dev: Option<String>,
    /// Print JSON (as ecnsharp-tc -j): integer nanoseconds, rate in bytes per second
    #[arg(short = 'j', long)]
    pub json: bool,
}

impl TuneArgs {
    /// What to compute; the error is a message for the user.
    pub fn input(&self) -> Result<TuneInput, String> {
        let (lambda, lambda_source) = match (self.lambda, self.transport) {
            (Some(l), _) => (l, "given"),
            (None, Some(Transport::Ecnstar)) => (LAMBDA_ECNSTAR, "ECN*, halving on a mark"),
            (None, Some(Transport::Dctcp)) => (LAMBDA_DCTCP, "DCTCP, in theory"),
            (None, None) => (LAMBDA_DCTCP, "DCTCP, in theory; the default"),
        };
        let named = match self.command.as_deref() {
            None | Some([]) => None,
            Some([dev, name]) if dev == "dev" => Some(name.clone()),
            Some(other) => {
                return Err(format!(
                    "--command takes nothing or \"dev DEV\", not \"{}\"",
                    other.join(" ")
                ))
            }
        };
        if let (Some(a), Some(b)) = (&named, &self.dev) {
            if a != b {
                return Err(format!("two devices: \"{a}\" and \"{b}\""));
            }
        }
        let dev = named.or_else(|| self.dev.clone());
        let command = (self.command.is_some() || dev.is_some()).then_some(dev);
        Ok(TuneInput {
            rate_bps: self.rate,
            rtt_avg_ns: self.rtt_avg,
            rtt_p90_ns: self.rtt_p90,
            lambda,
            lambda_source,
            command,
        })
    }
}

/// The command line of the result, if asked for.
fn command_line(input: &TuneInput, t: &Tuned) -> Option<String> {
    let dev = input.command.as_ref()?.as_deref().unwrap_or("DEV");
    Some(format!(
        "tc qdisc replace dev {dev} root ecnsharp mode ecnsharp ins_target {} pst_target {} \
         pst_interval {}",
        time(t.ins_target_ns),
        time(t.pst_target_ns),
        time(t.pst_interval_ns)
    ))
}

/// The result as one JSON object: times in integer nanoseconds (`_ns`), the rate in bytes per
/// second as tc prints rates, K in bytes, lambda always as a floating-point number.
pub fn report_json(input: &TuneInput, t: &Tuned) -> String {
    let mut j = JsonWriter::default();
    j.begin_object(None);
    j.uint("rate", input.rate_bps / 8);
    j.uint("rtt_avg_ns", input.rtt_avg_ns);
    j.uint("rtt_p90_ns", input.rtt_p90_ns);
    j.float("lambda", input.lambda);
    j.text("lambda_source", input.lambda_source);
    j.uint("ins_target_ns", t.ins_target_ns);
    j.uint("pst_target_ns", t.pst_target_ns);
    j.uint("pst_interval_ns", t.pst_interval_ns);
    j.uint("k_bytes", t.k_bytes);
    j.value(
        Some("pst_target_exceeds_ins_target"),
        ecnsharp::report::Value::Bool(t.pst_target_ns > t.ins_target_ns),
    );
    if let Some(line) = command_line(input, t) {
        j.text("command", &line);
    }
    j.end_object();
    j.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    use clap::Parser;

    /// `tune` with the words of `s`, parsed as the command line does.
    fn parse(s: &str) -> Result<TuneInput, String> {
        let words = std::iter::once("tune").chain(s.split_whitespace());
        TuneArgs::try_parse_from(words)
            .map_err(|e| e.render().to_string())?
            .input()
    }

    /// The paper's testbed (§5.1): RTTs of 70 to 210us, 10G, ins_target 200us, pst_interval
    /// 200us, pst_target 85us, and DCTCP-RED thresholds of 250KB (tail) and 80KB (average).
    /// Those are the rule of thumb with lambda 1.
    #[test]
    fn paper_testbed_values() {
        let input = parse("--rate 10gbit --rtt-avg 85us --rtt-p90 200us --lambda 1").unwrap();
        let t = tune(&input);
        assert_eq!(
            t,
            Tuned {
                ins_target_ns: 200_000,
                pst_target_ns: 85_000,
                pst_interval_ns: 200_000,
                k_bytes: 250_000,
            }
        );
        let avg = parse("--rate 10gbit --rtt-avg 64us --rtt-p90 64us --transport ecnstar").unwrap();
        assert_eq!(tune(&avg).k_bytes, 80_000);
    }

    #[test]
    fn dctcp_lambda() {
        let input =
            parse("--rate 10gbit --rtt-avg 80us --rtt-p90 240us --transport dctcp").unwrap();
        assert_eq!(input.lambda, LAMBDA_DCTCP);
        let t = tune(&input);
        assert_eq!(
            (t.ins_target_ns, t.pst_target_ns, t.pst_interval_ns),
            (40_800, 13_600, 240_000)
        );
        // 0.17 x 1.25 GB/s x 240us
        assert_eq!(t.k_bytes, 51_000);
        // DCTCP is the default transport.
        let default = parse("--rate 10gbit --rtt-avg 80us --rtt-p90 240us").unwrap();
        assert_eq!(tune(&default), t);
        // Units as tc: a bare time is microseconds, rates in bits.
        let bare = parse("--rate 10000mbit --rtt-avg 80 --rtt-p90 0.24ms").unwrap();
        assert_eq!(tune(&bare), t);
    }

    #[test]
    fn report_and_command_line() {
        let input =
            parse("--rate 10gbit --rtt-avg 80us --rtt-p90 240us --command dev eth0").unwrap();
        let text = report(&input, &tune(&input));
        assert!(
            text.contains("ins_target   = lambda x RTT_p90 = 0.17 x 240us = 40.8us"),
            "{text}"
        );
        assert!(
            text.contains("pst_target  >= lambda x RTT_avg = 0.17 x 80us = 13.6us"),
            "{text}"
        );
        assert!(text.contains("pst_interval ~ RTT_p90 = 240us"), "{text}");
        assert!(text.contains("51000 bytes"), "{text}");
        let line = text.lines().last().unwrap();
        assert_eq!(
            line,
            "tc qdisc replace dev eth0 root ecnsharp mode ecnsharp ins_target 40.8us \
             pst_target 13.6us pst_interval 240us"
        );
        // The line is the grammar's: it parses, and to the numbers printed.
        let words: Vec<&str> = line.split(' ').skip(7).collect();
        let o = Options::parse(words).unwrap();
        assert_eq!(
            (o.ins_target_ns, o.pst_target_ns, o.pst_interval_ns),
            (Some(40_800), Some(13_600), Some(240_000))
        );
        let no_dev = parse("--rate 1gbit --rtt-avg 80us --rtt-p90 240us --command").unwrap();
        assert!(report(&no_dev, &tune(&no_dev)).contains("replace dev DEV root"));
        let quiet = parse("--rate 1gbit --rtt-avg 80us --rtt-p90 240us").unwrap();
        assert!(!report(&quiet, &tune(&quiet)).contains("tc qdisc"));
        let odd = parse("--rate 1gbit --rtt-avg 300us --rtt-p90 240us").unwrap();
        assert!(report(&odd, &tune(&odd)).contains("warning: pst_target exceeds ins_target"));
    }

    #[test]
    fn bad_arguments() {
        let err = |s: &str| parse(s).unwrap_err();
        let full = "--rate 1gbit --rtt-avg 1 --rtt-p90 2";
        for (line, kind, needle) in [
            (
                "--rtt-avg 80us --rtt-p90 240us",
                "the following required arguments were not provided",
                "--rate <RATE>",
            ),
            (
                "--rate 10gbit --rtt-p90 240us",
                "the following required arguments were not provided",
                "--rtt-avg <TIME>",
            ),
            (
                "--rate 10gbit --rtt-avg 1us",
                "the following required arguments were not provided",
                "--rtt-p90 <TIME>",
            ),
            ("--rate fast", "invalid value", "bad rate \"fast\""),
            ("--rate 0", "invalid value", "is 0 bit/s, below 1mbit"),
            ("--rate 10", "invalid value", "is 10 bit/s, below 1mbit"),
            ("--rate 999kbit", "invalid value", "below 1mbit"),
            (
                "--rtt-avg 5parsecs",
                "invalid value",
                "bad time \"5parsecs\"",
            ),
            ("--rtt-p90 0", "invalid value", "RTT \"0\" is below 1us"),
            (
                "--rtt-avg 500ns",
                "invalid value",
                "RTT \"500ns\" is below 1us",
            ),
            ("--rtt-p90 5s", "invalid value", "at most 4.29s"),
            (
                "--transport reno",
                "invalid value",
                "[possible values: dctcp, ecnstar]",
            ),
            (
                "--lambda 0",
                "invalid value",
                "lambda 0 is outside 0.01 to 10",
            ),
            (
                "--lambda 1e-9",
                "invalid value",
                "lambda 1e-9 is outside 0.01 to 10",
            ),
            (
                "--lambda 11",
                "invalid value",
                "lambda 11 is outside 0.01 to 10",
            ),
            ("--lambda nan", "invalid value", "bad lambda \"nan\""),
            (
                "--rate",
                "a value is required",
                "a value is required for '--rate <RATE>'",
            ),
            (
                "--fast",
                "unexpected argument",
                "unexpected argument '--fast'",
            ),
        ] {
            let e = err(line);
            assert!(
                e.starts_with(&format!("error: {kind}")) && e.contains(needle),
                "{line}: {e}"
            );
        }
        let both = err(&format!("{full} --lambda 1 --transport dctcp"));
        assert!(both.contains("cannot be used with"), "{both}");
        assert_eq!(
            err(&format!("{full} --command eth0")),
            "--command takes nothing or \"dev DEV\", not \"eth0\""
        );
        assert_eq!(
            err(&format!("{full} --command dev a --dev b")),
            "two devices: \"a\" and \"b\""
        );
    }

    /// A result the qdisc would refuse is refused here, with the kernel's words.
    #[test]
    fn results_the_qdisc_refuses() {
        let ok = parse("--rate 1mbit --rtt-avg 1us --rtt-p90 1us --lambda 0.01").unwrap();
        assert_eq!(check(&tune(&ok)), Ok(()));
        let long = parse("--rate 10gbit --rtt-avg 1s --rtt-p90 4s --lambda 10").unwrap();
        assert_eq!(
            check(&tune(&long)),
            Err("the qdisc would refuse the result: ins_target must be at most 4294967295ns (4.29s)".into())
        );
    }

    /// clap's conventions: `--x=y`, `--dev` alone implies the command line, `ecn*`.
    #[test]
    fn long_options_with_equals() {
        let a = parse("--rate=25gbit --rtt-avg=30us --rtt-p90=90us --transport=ecn* --dev=eth1")
            .unwrap();
        let b = parse("--rate 25gbit --rtt-avg 30us --rtt-p90 90us --lambda 1 --command dev eth1")
            .unwrap();
        assert_eq!(a.command, Some(Some("eth1".into())));
        assert_eq!(tune(&a), tune(&b));
        assert_eq!(a.rate_bps, 25_000_000_000);
    }

    #[test]
    fn json_report() {
        let input = parse("--rate 10gbit --rtt-avg 80us --rtt-p90 240us --dev eth0").unwrap();
        let text = report_json(&input, &tune(&input));
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["rate"], 1_250_000_000u64, "bytes per second, as tc");
        assert_eq!(v["ins_target_ns"], 40_800);
        assert_eq!(v["pst_target_ns"], 13_600);
        assert_eq!(v["pst_interval_ns"], 240_000);
        assert_eq!(v["rtt_avg_ns"], 80_000);
        assert_eq!(v["k_bytes"], 51_000);
        assert_eq!(v["lambda"], 0.17);
        assert_eq!(v["pst_target_exceeds_ins_target"], false);
        assert!(v["command"]
            .as_str()
            .unwrap()
            .ends_with("ins_target 40.8us pst_target 13.6us pst_interval 240us"));
        // lambda is always a float in the text, never an integer for lambda 1.
        let one = parse("--rate 10gbit --rtt-avg 80us --rtt-p90 240us --lambda 1").unwrap();
        let text = report_json(&one, &tune(&one));
        assert!(text.contains("\"lambda\":1.0,"), "{text}");
        assert!(!text.contains("command"));
    }
}
