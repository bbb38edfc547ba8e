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
use ecnsharp::report::{Number, Unit};

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

/// A time in the grammar's units, exact to the nanosecond (`40.8us`).
fn time(ns: u64) -> String {
    format!("{}us", Number::new(ns, Unit::Nanos))
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
    if let Some(dev) = &input.command {
        let dev = dev.as_deref().unwrap_or("DEV");
        let _ = writeln!(
            s,
            "tc qdisc replace dev {dev} root ecnsharp mode ecnsharp ins_target {} \
             pst_target {} pst_interval {}",
            time(t.ins_target_ns),
            time(t.pst_target_ns),
            time(t.pst_interval_ns)
        );
    }
    s
}

/// Parses `tune`'s arguments; the error is a message for the user.
pub fn parse(args: &[String]) -> Result<TuneInput, String> {
    let mut rate_bps = None;
    let mut avg = None;
    let mut p90 = None;
    let mut transport: Option<(f64, &'static str)> = None;
    let mut lambda: Option<f64> = None;
    let mut command = None;
    let mut it = args.iter().map(String::as_str).peekable();
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg {
            "--rate" => {
                let w = value()?;
                let o = Options::parse(["rate", w]).map_err(|e| e.to_string())?;
                rate_bps = o.rate_bps.filter(|r| *r > 0);
                if rate_bps.is_none() {
                    return Err(format!("Illegal \"--rate\": bad value \"{w}\""));
                }
            }
            "--rtt-avg" | "--rtt-p90" => {
                let w = value()?;
                let ns = Options::parse(["pst_interval", w])
                    .ok()
                    .and_then(|o| o.pst_interval_ns)
                    .filter(|ns| *ns > 0)
                    .ok_or(format!("Illegal \"{arg}\": bad value \"{w}\""))?;
                if arg == "--rtt-avg" {
                    avg = Some(u64::from(ns));
                } else {
                    p90 = Some(u64::from(ns));
                }
            }
            "--transport" => {
                let w = value()?;
                transport = Some(match w {
                    "dctcp" => (LAMBDA_DCTCP, "DCTCP, in theory"),
                    "ecnstar" | "ecn*" => (LAMBDA_ECNSTAR, "ECN*, halving on a mark"),
                    _ => return Err(format!("Illegal \"--transport\": bad value \"{w}\"")),
                });
            }
            "--lambda" => {
                let w = value()?;
                let l: f64 = w
                    .parse()
                    .ok()
                    .filter(|l: &f64| l.is_finite() && *l > 0.0 && *l <= 10.0)
                    .ok_or(format!(
                        "Illegal \"--lambda\": bad value \"{w}\" (0 < lambda <= 10)"
                    ))?;
                lambda = Some(l);
            }
            "--command" => {
                let mut dev = None;
                if it.peek() == Some(&"dev") {
                    it.next();
                    dev = Some(it.next().ok_or("dev needs a value")?.to_string());
                }
                command = Some(dev);
            }
            other => return Err(format!("What is \"{other}\"?")),
        }
    }
    let (lambda, lambda_source) = match (lambda, transport) {
        (Some(_), Some(_)) => return Err("give --transport or --lambda, not both".into()),
        (Some(l), None) => (l, "given"),
        (None, Some(t)) => t,
        (None, None) => (LAMBDA_DCTCP, "DCTCP, in theory; the default"),
    };
    let need = |v: Option<u64>, name: &str| v.ok_or(format!("tune needs {name}"));
    Ok(TuneInput {
        rate_bps: need(rate_bps, "--rate")?,
        rtt_avg_ns: need(avg, "--rtt-avg")?,
        rtt_p90_ns: need(p90, "--rtt-p90")?,
        lambda,
        lambda_source,
        command,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    /// The paper's testbed (§5.1): RTTs of 70 to 210us, 10G, ins_target 200us, pst_interval
    /// 200us, pst_target 85us, and DCTCP-RED thresholds of 250KB (tail) and 80KB (average).
    /// Those are the rule of thumb with lambda 1.
    #[test]
    fn paper_testbed_values() {
        let input = parse(&args(
            "--rate 10gbit --rtt-avg 85us --rtt-p90 200us --lambda 1",
        ))
        .unwrap();
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
        let avg = parse(&args(
            "--rate 10gbit --rtt-avg 64us --rtt-p90 64us --transport ecnstar",
        ))
        .unwrap();
        assert_eq!(tune(&avg).k_bytes, 80_000);
    }

    #[test]
    fn dctcp_lambda() {
        let input = parse(&args(
            "--rate 10gbit --rtt-avg 80us --rtt-p90 240us --transport dctcp",
        ))
        .unwrap();
        assert_eq!(input.lambda, LAMBDA_DCTCP);
        let t = tune(&input);
        assert_eq!(
            (t.ins_target_ns, t.pst_target_ns, t.pst_interval_ns),
            (40_800, 13_600, 240_000)
        );
        // 0.17 x 1.25 GB/s x 240us
        assert_eq!(t.k_bytes, 51_000);
        // DCTCP is the default transport.
        let default = parse(&args("--rate 10gbit --rtt-avg 80us --rtt-p90 240us")).unwrap();
        assert_eq!(tune(&default), t);
        // Units as tc: a bare time is microseconds, rates in bits.
        let bare = parse(&args("--rate 10000mbit --rtt-avg 80 --rtt-p90 0.24ms")).unwrap();
        assert_eq!(tune(&bare), t);
    }

    #[test]
    fn report_and_command_line() {
        let input = parse(&args(
            "--rate 10gbit --rtt-avg 80us --rtt-p90 240us --command dev eth0",
        ))
        .unwrap();
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
        let no_dev = parse(&args(
            "--rate 1gbit --rtt-avg 80us --rtt-p90 240us --command",
        ))
        .unwrap();
        assert!(report(&no_dev, &tune(&no_dev)).contains("replace dev DEV root"));
        let quiet = parse(&args("--rate 1gbit --rtt-avg 80us --rtt-p90 240us")).unwrap();
        assert!(!report(&quiet, &tune(&quiet)).contains("tc qdisc"));
        let odd = parse(&args("--rate 1gbit --rtt-avg 300us --rtt-p90 240us")).unwrap();
        assert!(report(&odd, &tune(&odd)).contains("warning: pst_target exceeds ins_target"));
    }

    #[test]
    fn bad_arguments() {
        let err = |s: &str| parse(&args(s)).unwrap_err();
        assert_eq!(err("--rtt-avg 80us --rtt-p90 240us"), "tune needs --rate");
        assert_eq!(err("--rate 10gbit --rtt-p90 240us"), "tune needs --rtt-avg");
        assert_eq!(err("--rate 10gbit --rtt-avg 1us"), "tune needs --rtt-p90");
        assert_eq!(err("--rate fast"), "Illegal \"rate\": bad value \"fast\"");
        assert_eq!(err("--rate 0"), "Illegal \"--rate\": bad value \"0\"");
        assert_eq!(
            err("--rtt-avg 5parsecs"),
            "Illegal \"--rtt-avg\": bad value \"5parsecs\""
        );
        assert_eq!(err("--rtt-p90 0"), "Illegal \"--rtt-p90\": bad value \"0\"");
        assert_eq!(
            err("--transport reno"),
            "Illegal \"--transport\": bad value \"reno\""
        );
        assert!(err("--lambda 0").starts_with("Illegal \"--lambda\""));
        assert!(err("--lambda nan").starts_with("Illegal \"--lambda\""));
        assert_eq!(
            err("--rate 1gbit --rtt-avg 1 --rtt-p90 2 --lambda 1 --transport dctcp"),
            "give --transport or --lambda, not both"
        );
        assert_eq!(err("--rate"), "--rate needs a value");
        assert_eq!(err("--fast"), "What is \"--fast\"?");
        assert_eq!(err("--command dev"), "dev needs a value");
    }
}
