//! The request/response exchange: the client sends the response size as 8 bytes (big endian),
//! the server answers with that many bytes on the same connection; a connection carries any
//! number of exchanges.

use std::io::{self, Read, Write};
use std::net::TcpStream;

const CHUNK: usize = 64 * 1024;
/// The server writes in chunks this large: a bulk response at 10 Gbit/s then costs about a
/// thousand writes a second, not twenty thousand.
const WRITE_CHUNK: usize = 1 << 20;
static ZEROS: [u8; WRITE_CHUNK] = [0; WRITE_CHUNK];

pub fn request(s: &mut TcpStream, size: u64) -> io::Result<()> {
    s.write_all(&size.to_be_bytes())
}

/// Reads exactly `size` bytes of response. With `lowat` > 0 the reader asks to be woken only
/// when min(bytes left, lowat) have arrived (SO_RCVLOWAT), so a short response is read in one
/// wakeup, when its last byte is in.
pub fn read_response(s: &mut TcpStream, size: u64, lowat: u64) -> io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let mut left = size;
    let mut set = 0;
    while left > 0 {
        if lowat > 0 && left.min(lowat) != set {
            set = left.min(lowat);
            crate::sock::set_rcvlowat(s, set).map_err(io::Error::other)?;
        }
        let want = left.min(CHUNK as u64) as usize;
        let n = s.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("response ended {left} bytes short"),
            ));
        }
        left -= n as u64;
    }
    Ok(())
}

/// Serves one connection until the client closes it.
pub fn serve_connection(mut s: TcpStream) -> io::Result<()> {
    loop {
        let mut hdr = [0u8; 8];
        match s.read_exact(&mut hdr) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let mut left = u64::from_be_bytes(hdr);
        while left > 0 {
            let n = left.min(WRITE_CHUNK as u64) as usize;
            s.write_all(&ZEROS[..n])?;
            left -= n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn exchanges_exact_sizes_on_one_connection() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let t = std::thread::spawn(move || serve_connection(l.accept().unwrap().0));
        let mut c = TcpStream::connect(addr).unwrap();
        for (size, lowat) in [(0u64, 0), (1, 0), (3000, 0), (200_000, 0), (3000, 1 << 20)] {
            request(&mut c, size).unwrap();
            read_response(&mut c, size, lowat).unwrap();
        }
        // More than the low-water mark: read in several wakeups, every byte counted.
        request(&mut c, 3_000_000).unwrap();
        read_response(&mut c, 3_000_000, 1 << 20).unwrap();
        drop(c);
        t.join().unwrap().unwrap();
    }
}
