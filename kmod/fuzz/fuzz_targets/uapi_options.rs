// SPDX-License-Identifier: GPL-2.0-only
//! The kernel's `TCA_OPTIONS` decoder on arbitrary bytes, from the defaults and from a
//! configuration with everything changed. Never panics; a failure leaves the configuration
//! whole; a success is valid and survives dump -> decode and print -> parse.
#![no_main]

use ecnsharp::config::Config;
use ecnsharp::options::{ConfigText, Options};
use ecnsharp::uapi;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::normalized;

fuzz_target!(|data: &[u8]| {
    let mut running = Config::DEFAULT;
    running.bands = 8;
    running.marking.modes = ecnsharp::config::Modes::ALL;
    running.sched.strict_bands = 2;
    running.shaper.rate_bps = 1_000_000_000;
    for base in [Config::DEFAULT, running] {
        let mut cfg = base;
        match uapi::decode_options(data, &mut cfg) {
            Ok(()) => {
                assert_eq!(cfg.validate(), Ok(()));
                let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
                let n = uapi::encode_options(&cfg, &mut buf).expect("OPTIONS_MAX_SIZE suffices");
                let mut again = Config::DEFAULT;
                assert_eq!(uapi::decode_options(&buf[..n], &mut again), Ok(()));
                assert_eq!(again, normalized(cfg));
                let printed = ConfigText(&cfg).to_string();
                let parsed = Options::parse(printed.split_whitespace()).expect("printed parses");
                assert_eq!(
                    parsed.applied(&Config::DEFAULT),
                    Ok(normalized(cfg)),
                    "{printed}"
                );
            }
            Err(e) => {
                assert_eq!(cfg, base);
                let _ = e.to_string();
            }
        }
    }
});
