//! ecnsharp-flowgen: the traffic of the bench guest's experiments (tests/vm/experiments/).
//!
//!   ecnsharp-flowgen serve --bind ADDR:PORT [--tos N]
//!   ecnsharp-flowgen incast (--servers A:P,... | --targets FILE) --fanout N [--queries Q]
//!                           [--min B] [--max B] [--seed S] [--gap-ms MS] [--timeout-s S]
//!                           [--lowat B]
//!   ecnsharp-flowgen flows (--servers A:P,... | --targets FILE) --load L --rate-mbit R
//!                          (--seconds S | --short-flows N) [--drain-seconds D]
//!                          [--large-bytes B] [--seed S] [--cdf FILE] [--lowat B]
//!   ecnsharp-flowgen bulk --servers A:P,... --seconds S [--omit S] [--lowat B]
//!   ecnsharp-flowgen sample --dev DEV [--interval-ms MS | --interval-us US] [--seed S]
//!                           --stop FILE
//!
//! Clients print one JSON object per line: one per query or flow, then a summary line.
//! `--targets FILE` draws each connection's server from weighted lines "WEIGHT ADDR:PORT";
//! `--lowat B` wakes a reader only once min(B, bytes left) have arrived (SO_RCVLOWAT).

mod bulk;
mod cdf;
mod incast;
mod poisson;
mod rng;
mod sample;
mod serve;
mod sock;
mod stats;
mod targets;
mod wire;

use std::collections::HashMap;
use std::time::Duration;
use targets::Dest;

const USAGE: &str = "usage: ecnsharp-flowgen serve --bind ADDR:PORT [--tos N]
       ecnsharp-flowgen incast (--servers A:P,... | --targets FILE) --fanout N [--queries Q] [--min BYTES] [--max BYTES] [--seed S] [--gap-ms MS] [--timeout-s S] [--lowat BYTES]
       ecnsharp-flowgen flows (--servers A:P,... | --targets FILE) --load L --rate-mbit R (--seconds S | --short-flows N) [--drain-seconds D] [--large-bytes B] [--seed S] [--cdf FILE] [--lowat BYTES]
       ecnsharp-flowgen bulk --servers A:P,... --seconds S [--omit S] [--lowat BYTES]
       ecnsharp-flowgen sample --dev DEV [--interval-ms MS | --interval-us US] [--seed S] --stop FILE";

struct Args(HashMap<String, String>);

impl Args {
    fn parse(v: &[String]) -> Result<Args, String> {
        let mut m = HashMap::new();
        let mut it = v.iter();
        while let Some(k) = it.next() {
            let key = k
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected argument {k}"))?;
            let val = it.next().ok_or_else(|| format!("{k} needs a value"))?;
            m.insert(key.to_string(), val.clone());
        }
        Ok(Args(m))
    }

    fn str(&self, k: &str) -> Result<&str, String> {
        self.0
            .get(k)
            .map(String::as_str)
            .ok_or_else(|| format!("--{k} is required"))
    }

    fn num<T: std::str::FromStr>(&self, k: &str, default: Option<T>) -> Result<T, String> {
        match self.0.get(k) {
            Some(v) => v.parse().map_err(|_| format!("--{k}: bad value {v}")),
            None => default.ok_or_else(|| format!("--{k} is required")),
        }
    }

    fn servers(&self) -> Result<Vec<String>, String> {
        let v: Vec<String> = self.str("servers")?.split(',').map(String::from).collect();
        if v.iter().any(String::is_empty) {
            return Err("--servers: empty address".into());
        }
        Ok(v)
    }

    /// `--servers` (round robin) or `--targets FILE` (weighted draws), exactly one of them.
    fn dest(&self) -> Result<Dest, String> {
        match (self.0.get("servers"), self.0.get("targets")) {
            (Some(_), None) => Ok(Dest::RoundRobin(self.servers()?)),
            (None, Some(p)) => {
                Dest::parse_targets(&std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?)
            }
            _ => Err("give one of --servers and --targets".into()),
        }
    }
}

fn run(argv: &[String]) -> Result<(), String> {
    let (cmd, rest) = argv.split_first().ok_or(USAGE)?;
    let a = Args::parse(rest)?;
    match cmd.as_str() {
        "serve" => serve::run(
            a.str("bind")?,
            a.0.get("tos").map(|_| a.num("tos", None)).transpose()?,
        ),
        "incast" => {
            let c = incast::Incast {
                dest: a.dest()?,
                fanout: a.num("fanout", None)?,
                queries: a.num("queries", Some(10))?,
                min: a.num("min", Some(3000))?,
                max: a.num("max", Some(60000))?,
                seed: a.num("seed", Some(1))?,
                gap: Duration::from_millis(a.num("gap-ms", Some(200))?),
                timeout: Duration::from_secs(a.num("timeout-s", Some(60))?),
                lowat: a.num("lowat", Some(0))?,
            };
            if c.fanout == 0 || c.min > c.max {
                return Err("--fanout must be >= 1 and --min <= --max".into());
            }
            incast::run(&c)
        }
        "flows" => {
            let text = match a.0.get("cdf") {
                Some(p) => std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"))?,
                None => cdf::WEB_SEARCH.to_string(),
            };
            let c = poisson::Flows {
                dest: a.dest()?,
                cdf: cdf::Cdf::parse(&text)?,
                load: a.num("load", None)?,
                rate_bps: a.num::<f64>("rate-mbit", None)? * 1e6,
                duration: match a.0.get("short-flows") {
                    Some(_) => Duration::MAX,
                    None => Duration::from_secs_f64(a.num("seconds", None)?),
                },
                short_flows: a
                    .0
                    .get("short-flows")
                    .map(|_| a.num("short-flows", None))
                    .transpose()?,
                drain: Duration::from_secs_f64(a.num("drain-seconds", Some(30.0))?),
                seed: a.num("seed", Some(1))?,
                short: 100_000,
                large: a.num("large-bytes", Some(10_000_000))?,
                lowat: a.num("lowat", Some(0))?,
            };
            if !(c.load > 0.0 && c.rate_bps > 0.0) {
                return Err("--load and --rate-mbit must be positive".into());
            }
            poisson::run(&c)
        }
        "bulk" => bulk::run(&bulk::Bulk {
            servers: a.servers()?,
            duration: Duration::from_secs_f64(a.num("seconds", None)?),
            omit: Duration::from_secs_f64(a.num("omit", Some(0.0))?),
            lowat: a.num("lowat", Some(0))?,
        }),
        "sample" => {
            let d = match a.0.get("interval-us") {
                Some(_) => Duration::from_micros(a.num("interval-us", None)?),
                None => Duration::from_millis(a.num("interval-ms", Some(10))?),
            };
            let spacing = match a.0.get("seed") {
                Some(_) => sample::Spacing::Poisson(d, a.num("seed", None)?),
                None => sample::Spacing::Fixed(d),
            };
            sample::run(a.str("dev")?, spacing, a.str("stop")?)
        }
        _ => Err(USAGE.into()),
    }
}

fn main() {
    // Timers as asked: a normal thread's sleeps may end up to 50 us late (timer slack), as large
    // as the samples' spacing and a tenth of a short flow in the virtual-time bench. Threads
    // inherit it.
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&argv) {
        eprintln!("ecnsharp-flowgen: {e}");
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn incast_and_flows_run_against_a_local_server() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for c in l.incoming() {
                std::thread::spawn(move || wire::serve_connection(c.unwrap()));
            }
        });
        run(&s(&[
            "incast",
            "--servers",
            &addr,
            "--fanout",
            "4",
            "--queries",
            "2",
            "--gap-ms",
            "0",
        ]))
        .unwrap();
        run(&s(&[
            "flows",
            "--servers",
            &addr,
            "--load",
            "0.5",
            "--rate-mbit",
            "1000",
            "--seconds",
            "0.3",
        ]))
        .unwrap();
    }

    #[test]
    fn a_stalled_response_fails_its_query_and_the_sweep_goes_on() {
        // A server that reads requests and never answers.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for c in l.incoming() {
                held.push(c.unwrap());
            }
        });
        let e = run(&s(&[
            "incast",
            "--servers",
            &addr,
            "--fanout",
            "2",
            "--queries",
            "2",
            "--gap-ms",
            "0",
            "--timeout-s",
            "1",
        ]))
        .unwrap_err();
        assert!(e.contains("4 responses failed"), "{e}");
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert!(run(&s(&["incast", "--servers", "x:1"])).is_err());
        assert!(run(&s(&["flows", "--servers", "x:1", "--load"])).is_err());
        assert!(run(&s(&["nope"])).is_err());
        assert!(run(&s(&["incast", "--servers", "", "--fanout", "1"])).is_err());
        assert!(run(&s(&["incast", "--fanout", "1"])).is_err());
        assert!(run(&s(&["flows", "--servers", "x:1", "--targets", "/dev/null"])).is_err());
        assert!(run(&s(&["bulk", "--servers", "x:1"])).is_err());
    }
}
