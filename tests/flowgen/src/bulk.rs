//! `bulk`: one long flow per server address for SECONDS, each asking for an endless response;
//! per flow, the goodput between OMIT and the end (past slow start), from the bytes read.

use crate::stats::json;
use crate::wire;
use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub struct Bulk {
    pub servers: Vec<String>,
    pub duration: Duration,
    pub omit: Duration,
    pub lowat: u64,
}

/// (bytes at the first read past OMIT, its time, bytes at the last read, its time), in seconds
/// since the flows started.
type Window = (u64, f64, u64, f64);

fn flow(addr: &str, c: &Bulk, t0: Instant) -> Result<Window, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    // Wake at least every 50 ms, so a starved flow still sees its deadline.
    s.set_read_timeout(Some(Duration::from_millis(50)))
        .map_err(|e| e.to_string())?;
    if c.lowat > 0 {
        crate::sock::set_rcvlowat(&s, c.lowat)?;
    }
    wire::request(&mut s, u64::MAX).map_err(|e| format!("{addr}: {e}"))?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut bytes, mut start) = (0u64, None);
    let mut last = (0u64, 0f64);
    loop {
        let now = t0.elapsed();
        if now >= c.duration {
            break;
        }
        if start.is_none() && now >= c.omit {
            start = Some((bytes, now.as_secs_f64()));
        }
        match s.read(&mut buf) {
            Ok(0) => return Err(format!("{addr}: the response ended")),
            Ok(n) => {
                bytes += n as u64;
                last = (bytes, t0.elapsed().as_secs_f64());
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(format!("{addr}: {e}")),
        }
    }
    let (b0, s0) = start.ok_or_else(|| format!("{addr}: no read past the omitted start"))?;
    Ok((b0, s0, last.0, last.1))
}

pub fn run(c: &Bulk) -> Result<(), String> {
    let t0 = Instant::now();
    let results: Vec<Result<Window, String>> = std::thread::scope(|scope| {
        let hs: Vec<_> = c
            .servers
            .iter()
            .map(|a| scope.spawn(move || flow(a, c, t0)))
            .collect();
        hs.into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("flow thread panicked".into()))
            })
            .collect()
    });
    let mut total = 0.0;
    let mut failed = 0;
    for (a, r) in c.servers.iter().zip(&results) {
        match r {
            Ok((b0, s0, b1, s1)) => {
                let g = if s1 > s0 {
                    (b1 - b0) as f64 * 8.0 / (s1 - s0) / 1e6
                } else {
                    0.0
                };
                total += g;
                println!(
                    "{{\"to\":\"{a}\",\"bytes\":{b1},\"window_bytes\":{},\"goodput_mbps\":{g:.1}}}",
                    b1 - b0
                );
            }
            Err(e) => {
                eprintln!("flowgen bulk: {e}");
                failed += 1;
            }
        }
    }
    println!(
        "{{\"summary\":\"bulk\",\"flows\":{},\"failed\":{failed},\"goodput_mbps\":{}}}",
        c.servers.len(),
        json(Some(total))
    );
    if failed > 0 {
        return Err(format!("{failed} bulk flows failed"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_flows_report_their_goodput() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        std::thread::spawn(move || {
            for s in l.incoming() {
                std::thread::spawn(move || wire::serve_connection(s.unwrap()));
            }
        });
        let c = Bulk {
            servers: vec![addr.clone(), addr],
            duration: Duration::from_millis(300),
            omit: Duration::from_millis(100),
            lowat: 1 << 16,
        };
        run(&c).unwrap();
    }

    #[test]
    fn a_dead_server_fails_the_run() {
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .to_string();
        let c = Bulk {
            servers: vec![dead],
            duration: Duration::from_millis(100),
            omit: Duration::ZERO,
            lowat: 0,
        };
        assert!(run(&c).unwrap_err().contains("1 bulk flows failed"));
    }
}
