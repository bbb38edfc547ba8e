// SPDX-License-Identifier: GPL-2.0-only
//! `serve`: answer requests on a port, one thread per connection.

use std::net::TcpListener;

pub fn run(bind: &str, tos: Option<u32>) -> Result<(), String> {
    let l = TcpListener::bind(bind).map_err(|e| format!("bind {bind}: {e}"))?;
    for s in l.incoming() {
        let s = s.map_err(|e| format!("accept: {e}"))?;
        let _ = s.set_nodelay(true);
        if let Some(tos) = tos {
            crate::sock::set_tos(&s, tos)?;
        }
        std::thread::spawn(move || {
            if let Err(e) = crate::wire::serve_connection(s) {
                eprintln!("flowgen serve: {e}");
            }
        });
    }
    Ok(())
}
