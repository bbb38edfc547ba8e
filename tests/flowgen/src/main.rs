// SPDX-License-Identifier: GPL-2.0-only
//! ecnsharp-flowgen: the traffic of the bench guest's experiments (tests/vm/experiments/).
//!
//!   ecnsharp-flowgen serve --bind ADDR:PORT [--tos N]
//!   ecnsharp-flowgen incast --servers A:P,... --fanout N [--queries Q] [--min B] [--max B]
//!                           [--seed S] [--gap-ms MS]
//!                           [--timeout-s S]
//!   ecnsharp-flowgen flows --servers A:P,... --load L --rate-mbit R --seconds S [--drain-seconds D] [--large-bytes B]
//!                          [--seed S] [--cdf FILE]
//!
//!   ecnsharp-flowgen sample --dev DEV [--interval-ms MS] --stop FILE
//!
//! Clients print one JSON object per line: one per query or flow, then a summary line.

mod cdf;
mod incast;
mod poisson;
mod rng;
mod sample;
mod serve;
mod sock;
mod stats;
mod wire;

use std::collections::HashMap;
use std::time::Duration;

const USAGE: &str = "usage: ecnsharp-flowgen serve --bind ADDR:PORT [--tos N]
       ecnsharp-flowgen incast --servers A:P,... --fanout N [--queries Q] [--min BYTES] [--max BYTES] [--seed S] [--gap-ms MS] [--timeout-s S]
       ecnsharp-flowgen flows --servers A:P,... --load L --rate-mbit R --seconds S [--drain-seconds D] [--large-bytes B] [--seed S] [--cdf FILE]
       ecnsharp-flowgen sample --dev DEV [--interval-ms MS] --stop FILE";

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
                servers: a.servers()?,
                fanout: a.num("fanout", None)?,
                queries: a.num("queries", Some(10))?,
                min: a.num("min", Some(3000))?,
                max: a.num("max", Some(60000))?,
                seed: a.num("seed", Some(1))?,
                gap: Duration::from_millis(a.num("gap-ms", Some(200))?),
                timeout: Duration::from_secs(a.num("timeout-s", Some(60))?),
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
                servers: a.servers()?,
                cdf: cdf::Cdf::parse(&text)?,
                load: a.num("load", None)?,
                rate_bps: a.num::<f64>("rate-mbit", None)? * 1e6,
                duration: Duration::from_secs_f64(a.num("seconds", None)?),
                drain: Duration::from_secs_f64(a.num("drain-seconds", Some(30.0))?),
                seed: a.num("seed", Some(1))?,
                short: 100_000,
                large: a.num("large-bytes", Some(10_000_000))?,
            };
            if !(c.load > 0.0 && c.rate_bps > 0.0) {
                return Err("--load and --rate-mbit must be positive".into());
            }
            poisson::run(&c)
        }
        "sample" => sample::run(
            a.str("dev")?,
            Duration::from_millis(a.num("interval-ms", Some(10))?),
            a.str("stop")?,
        ),
        _ => Err(USAGE.into()),
    }
}

fn main() {
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
    }
}
