// SPDX-License-Identifier: GPL-2.0-only
//! The tc-style option parser: bytes -> words -> parse -> encode/apply/validate -> print ->
//! reparse. Never panics; on success the kernel's decode agrees with `apply`, and printing
//! round-trips and is stable.
#![no_main]

use ecnsharp::config::Config;
use ecnsharp::options::{ConfigText, Options};
use ecnsharp::uapi;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::normalized;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = core::str::from_utf8(data) else {
        return;
    };
    let Ok(options) = Options::parse(text.split_whitespace()) else {
        return;
    };
    // What the helper sends, decoded as the kernel does, must agree with applying locally.
    let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
    let n = options.encode(&mut buf).expect("OPTIONS_MAX_SIZE suffices");
    let mut kernel = Config::DEFAULT;
    let decoded = uapi::decode_options(&buf[..n], &mut kernel);
    let applied = options.applied(&Config::DEFAULT);
    match applied {
        Ok(cfg) => {
            assert_eq!(decoded, Ok(()));
            assert_eq!(kernel, cfg);
            let printed = ConfigText(&cfg).to_string();
            let again = Options::parse(printed.split_whitespace())
                .unwrap_or_else(|e| panic!("{printed:?} does not parse: {e}"));
            let back = again
                .applied(&Config::DEFAULT)
                .expect("printed config is valid");
            assert_eq!(back, normalized(cfg), "{printed}");
            assert_eq!(ConfigText(&back).to_string(), printed);
        }
        Err(e) => {
            assert_eq!(decoded, Err(e));
            assert_eq!(kernel, Config::DEFAULT);
            let _ = e.to_string();
        }
    }
});
