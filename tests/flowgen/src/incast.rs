//! `incast`: FANOUT persistent connections (round robin over the servers, or drawn from
//! `--targets`) answer QUERIES synchronized queries, each response of a size uniform in
//! [min, max]; the query completes when the last response has arrived (query completion time,
//! QCT).

use crate::rng::Rng;
use crate::stats::{json, mean, percentile};
use crate::targets::Dest;
use crate::wire;
use std::net::TcpStream;
use std::sync::{mpsc, Arc, Barrier};
use std::time::{Duration, Instant};

pub struct Incast {
    pub dest: Dest,
    pub fanout: usize,
    pub queries: usize,
    pub min: u64,
    pub max: u64,
    pub seed: u64,
    pub gap: Duration,
    /// A response that stalls this long fails (and its connection is not used again), so a
    /// wedged connection cannot hold the whole sweep.
    pub timeout: Duration,
    /// SO_RCVLOWAT cap (0: off), see `wire::read_response`.
    pub lowat: u64,
}

/// Connections opened at once while setting up: one at a time, 96 handshakes through a
/// bottleneck with a standing queue took most of a sweep's time; all at once would burst
/// FANOUT SYN-ACKs into that queue.
const CONNECT_PARALLEL: usize = 8;

/// Connection `w` to `a`, ready for the queries.
fn connect(c: &Incast, a: &str) -> Result<TcpStream, String> {
    let s = TcpStream::connect(a).map_err(|e| format!("connect {a}: {e}"))?;
    let _ = s.set_nodelay(true);
    s.set_read_timeout(Some(c.timeout))
        .map_err(|e| format!("read timeout: {e}"))?;
    Ok(s)
}

/// The FANOUT connections, in order, CONNECT_PARALLEL handshakes at a time. Set up before the
/// first query, so they are not part of any QCT.
fn connect_all(c: &Incast) -> Result<Vec<TcpStream>, String> {
    let mut rng = Rng::new(c.seed, 1 << 40);
    let addrs: Vec<String> = (0..c.fanout).map(|w| c.dest.pick(w, &mut rng)).collect();
    let addrs = &addrs;
    let lanes = CONNECT_PARALLEL.min(c.fanout).max(1);
    let by_lane: Vec<Vec<Result<TcpStream, String>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..lanes)
            .map(|lane| {
                scope.spawn(move || {
                    (lane..c.fanout)
                        .step_by(lanes)
                        .map(|w| connect(c, &addrs[w]))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| vec![Err("connect thread panicked".into())])
            })
            .collect()
    });
    // Lane l holds connections l, l + lanes, ...: take them back in order.
    let mut lanes_iter: Vec<_> = by_lane.into_iter().map(Vec::into_iter).collect();
    let mut conns = Vec::with_capacity(c.fanout);
    for w in 0..c.fanout {
        let r = lanes_iter[w % lanes]
            .next()
            .unwrap_or_else(|| Err("connection missing".into()));
        conns.push(r?);
    }
    Ok(conns)
}

pub fn run(c: &Incast) -> Result<(), String> {
    let conns = connect_all(c)?;
    // Both barriers include the main thread: it releases a query and waits for its end.
    let start = Arc::new(Barrier::new(c.fanout + 1));
    let end = Arc::new(Barrier::new(c.fanout + 1));
    let epoch = Instant::now();
    let (tx, rx) = mpsc::channel::<(usize, f64, f64, Result<(), String>)>();
    let mut threads = Vec::new();
    for (w, mut s) in conns.into_iter().enumerate() {
        let (start, end, tx) = (start.clone(), end.clone(), tx.clone());
        let (queries, seed, min, max, lowat) = (c.queries, c.seed, c.min, c.max, c.lowat);
        threads.push(std::thread::spawn(move || {
            // After a failure the rest of that response may still arrive: the connection is
            // out of step and sits out the later queries (still meeting the barriers).
            let mut broken = false;
            for q in 0..queries {
                let size = Rng::new(seed, (q as u64) << 20 | w as u64).range(min, max);
                start.wait();
                let t0 = epoch.elapsed().as_secs_f64();
                let r = if broken {
                    Err("connection failed in an earlier query".to_string())
                } else {
                    wire::request(&mut s, size)
                        .and_then(|()| wire::read_response(&mut s, size, lowat))
                        .map_err(|e| e.to_string())
                };
                broken |= r.is_err();
                let t1 = epoch.elapsed().as_secs_f64();
                let _ = tx.send((q, t0, t1, r));
                end.wait();
            }
        }));
    }
    drop(tx);
    let mut qcts = Vec::new();
    let mut failed = 0;
    for q in 0..c.queries {
        start.wait();
        end.wait();
        let mut first = f64::MAX;
        let mut last = 0f64;
        for _ in 0..c.fanout {
            let (qq, t0, t1, r) = rx.recv().map_err(|e| e.to_string())?;
            debug_assert_eq!(qq, q);
            if let Err(e) = r {
                eprintln!("flowgen incast: query {q}: {e}");
                failed += 1;
            }
            first = first.min(t0);
            last = last.max(t1);
        }
        let qct = (last - first) * 1e6;
        println!(
            "{{\"query\":{q},\"fanout\":{},\"qct_us\":{qct:.0}}}",
            c.fanout
        );
        qcts.push(qct);
        std::thread::sleep(c.gap);
    }
    for t in threads {
        let _ = t.join();
    }
    let mut sorted = qcts.clone();
    sorted.sort_by(f64::total_cmp);
    println!(
        "{{\"summary\":\"incast\",\"fanout\":{},\"queries\":{},\"failed\":{failed},\"qct_mean_us\":{},\"qct_p50_us\":{},\"qct_max_us\":{}}}",
        c.fanout,
        c.queries,
        json(mean(&qcts)),
        json(percentile(&sorted, 50.0)),
        json(sorted.last().copied())
    );
    if failed > 0 {
        return Err(format!("{failed} responses failed"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    fn incast(servers: Vec<String>, fanout: usize) -> Incast {
        Incast {
            dest: Dest::RoundRobin(servers),
            fanout,
            queries: 1,
            min: 1,
            max: 1,
            seed: 1,
            gap: Duration::ZERO,
            timeout: Duration::from_secs(5),
            lowat: 0,
        }
    }

    #[test]
    fn connections_come_back_in_round_robin_order() {
        // The backlog holds the connections; nothing needs to accept them for this test.
        let (a, b) = (
            TcpListener::bind("127.0.0.1:0").unwrap(),
            TcpListener::bind("127.0.0.1:0").unwrap(),
        );
        let servers = vec![
            a.local_addr().unwrap().to_string(),
            b.local_addr().unwrap().to_string(),
        ];
        // 19: more than CONNECT_PARALLEL lanes, and not a multiple of them.
        let conns = connect_all(&incast(servers.clone(), 19)).unwrap();
        assert_eq!(conns.len(), 19);
        for (w, s) in conns.iter().enumerate() {
            assert_eq!(
                s.peer_addr().unwrap().to_string(),
                servers[w % 2],
                "connection {w}"
            );
        }
    }

    #[test]
    fn a_refused_connection_fails_the_setup() {
        let a = TcpListener::bind("127.0.0.1:0").unwrap();
        // A port that was just free: nothing listens on it.
        let dead = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let servers = vec![a.local_addr().unwrap().to_string(), dead.to_string()];
        let e = connect_all(&incast(servers, 5)).unwrap_err();
        assert!(e.starts_with(&format!("connect {dead}")), "{e}");
    }
}
