// SPDX-License-Identifier: GPL-2.0-only
//! The xstats decoder on arbitrary bytes (what a tool reads from any kernel). Never panics; what
//! it accepts re-encodes to the same counters.
#![no_main]

use ecnsharp::uapi::{self, XSTATS_MAX_SIZE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(x) = uapi::decode_xstats(data) else {
        return;
    };
    assert!(x.bands().len() <= ecnsharp::band::MAX_BANDS);
    let mut buf = [0u8; XSTATS_MAX_SIZE];
    let n = uapi::encode_xstats(&x.header, x.bands(), &mut buf).expect("XSTATS_MAX_SIZE suffices");
    let y = uapi::decode_xstats(&buf[..n]).expect("our own xstats decode");
    assert_eq!(y.bands(), x.bands());
    let (mut a, mut b) = (x.header, y.header);
    // The encoder writes its own tag, version and sizes.
    for h in [&mut a, &mut b] {
        (h.version, h.header_size, h.band_size) = (0, 0, 0);
    }
    assert_eq!(a, b);
});
