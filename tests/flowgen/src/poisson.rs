//! `flows`: flows of sizes drawn from a CDF arrive as a Poisson process at LOAD x RATE for
//! DURATION; each opens a connection to its destination (the next server round robin, or a
//! weighted draw from `--targets`), requests its size and records its flow completion time
//! (FCT, connection setup included). Unfinished flows are waited for up to DRAIN, then
//! counted as unfinished.

use crate::cdf::Cdf;
use crate::rng::Rng;
use crate::stats::{json, mean, percentile};
use crate::targets::Dest;
use crate::wire;
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct Flows {
    pub dest: Dest,
    pub cdf: Cdf,
    pub load: f64,
    pub rate_bps: f64,
    pub duration: Duration,
    /// Stop arrivals once this many short flows have arrived (before DURATION if that is first):
    /// every seed then holds the same number of short flows.
    pub short_flows: Option<usize>,
    pub drain: Duration,
    pub seed: u64,
    /// Flows below this size are "short" (the paper: 100 KB).
    pub short: u64,
    /// Flows above this size are "large" (the paper: 10 MB).
    pub large: u64,
    /// SO_RCVLOWAT cap (0: off), see `wire::read_response`.
    pub lowat: u64,
}

pub fn run(c: &Flows) -> Result<(), String> {
    let mean_gap = c.cdf.mean() * 8.0 / (c.load * c.rate_bps);
    let mut rng = Rng::new(c.seed, 0);
    // Destinations from a stream of their own: the sizes and arrival times of a seed do not
    // depend on how destinations are chosen.
    let mut dest_rng = Rng::new(c.seed, 1);
    let lowat = c.lowat;
    let (tx, rx) = mpsc::channel::<(u64, String, f64, Result<f64, String>)>();
    let t0 = Instant::now();
    let mut next = 0.0;
    let mut launched = 0usize;
    let mut launched_short = 0usize;
    loop {
        if c.short_flows.is_some_and(|n| launched_short >= n) {
            break;
        }
        next += rng.exp(mean_gap);
        if next >= c.duration.as_secs_f64() {
            break;
        }
        let size = c.cdf.quantile(rng.unit()).max(1);
        launched_short += usize::from(size < c.short);
        let addr = c.dest.pick(launched, &mut dest_rng);
        let at = t0 + Duration::from_secs_f64(next);
        let now = Instant::now();
        if at > now {
            std::thread::sleep(at - now);
        }
        let tx = tx.clone();
        let arrival_us = next * 1e6;
        std::thread::spawn(move || {
            let start = Instant::now();
            let r = TcpStream::connect(&addr)
                .and_then(|mut s| {
                    s.set_nodelay(true)?;
                    wire::request(&mut s, size)?;
                    wire::read_response(&mut s, size, lowat)
                })
                .map(|()| start.elapsed().as_secs_f64() * 1e6)
                .map_err(|e| format!("{addr}: {e}"));
            let _ = tx.send((size, addr, arrival_us, r));
        });
        launched += 1;
    }
    drop(tx);
    let deadline = Instant::now() + c.drain;
    let (mut short, mut large, mut all) = (Vec::new(), Vec::new(), Vec::new());
    let mut failed = 0usize;
    let mut done = 0usize;
    while done + failed < launched {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((size, to, at, Ok(fct))) => {
                done += 1;
                println!(
                    "{{\"size\":{size},\"to\":\"{to}\",\"start_us\":{at:.0},\"fct_us\":{fct:.0}}}"
                );
                all.push(fct);
                if size < c.short {
                    short.push(fct);
                } else if size > c.large {
                    large.push(fct);
                }
            }
            Ok((_, _, _, Err(e))) => {
                eprintln!("flowgen flows: {e}");
                failed += 1;
            }
            Err(_) => break,
        }
    }
    let mut s = short.clone();
    s.sort_by(f64::total_cmp);
    println!(
        "{{\"summary\":\"flows\",\"load\":{},\"launched\":{launched},\"done\":{done},\"failed\":{failed},\"unfinished\":{},\"fct_mean_us\":{},\"short_n\":{},\"short_mean_us\":{},\"short_p99_us\":{},\"large_n\":{},\"large_mean_us\":{}}}",
        c.load,
        launched - done - failed,
        json(mean(&all)),
        short.len(),
        json(mean(&short)),
        json(percentile(&s, 99.0)),
        large.len(),
        json(mean(&large)),
    );
    Ok(())
}
