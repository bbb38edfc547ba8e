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
        std::thread::spawn(move || match crate::wire::serve_connection(s) {
            // A bulk client ends its endless response by closing the connection.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                ) => {}
            Err(e) => eprintln!("flowgen serve: {e}"),
            Ok(()) => {}
        });
    }
    Ok(())
}
