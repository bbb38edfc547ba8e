// SPDX-License-Identifier: GPL-2.0

//! sch_ecnsharp: the ECN# queueing discipline.
//!
//! ECN marking on sojourn time, instantaneous (TCN) and on persistent queue buildups (ECN#
//! Algorithm 1), with per-band scheduling (SP, DWRR, WFQ), an optional shaper, and the marking
//! schemes of DCTCP-RED and dequeue marking as modes. Layout:
//! - the ECN# core (`kmod/src`, included below with `#[path]`): the same source the host tests,
//!   fuzzers and benchmarks build, with no kernel dependency;
//! - [`net_sched`]: the safe layer over the C qdisc API, holding every `unsafe` of the module;
//! - [`ecnsharp`]: the qdisc, safe Rust over both;
//! - `shim.c`: `Qdisc_ops` and wrappers over the C static inlines, reached through bindings that
//!   bindgen generates from `shim.h` at build time.

use kernel::prelude::*;

#[allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    unreachable_pub,
    clippy::all,
    clippy::undocumented_unsafe_blocks
)]
mod bindings {
    include!("shim_bindings.rs");
}

// The ECN# core, compiled into the module from the very files the host builds.
#[path = "../src/band.rs"]
pub mod band;
#[path = "../src/classify.rs"]
pub mod classify;
#[path = "../src/config.rs"]
pub mod config;
#[path = "../src/ecn.rs"]
pub mod ecn;
#[path = "../src/engine/mod.rs"]
pub mod engine;
#[path = "../src/histogram.rs"]
pub mod histogram;
#[path = "../src/instantaneous.rs"]
pub mod instantaneous;
#[path = "../src/marker.rs"]
pub mod marker;
#[path = "../src/persistent.rs"]
pub mod persistent;
#[path = "../src/prng.rs"]
pub mod prng;
#[path = "../src/queue_mark.rs"]
pub mod queue_mark;
#[path = "../src/rec_sqrt.rs"]
pub mod rec_sqrt;
#[path = "../src/sched/mod.rs"]
pub mod sched;
#[path = "../src/time.rs"]
pub mod time;
#[path = "../src/token_bucket.rs"]
pub mod token_bucket;
#[path = "../src/uapi.rs"]
pub mod uapi;
#[path = "../src/xstats.rs"]
pub mod xstats;

mod ecnsharp;
pub mod net_sched;

module! {
    type: EcnSharpModule,
    name: "sch_ecnsharp",
    author: "ecnsharp developers",
    description: "ECN# queueing discipline: instantaneous and persistent-queue ECN marking",
    license: "GPL",
    alias: ["net-sch-ecnsharp"],
}

struct EcnSharpModule {
    _registration: net_sched::Registration,
}

impl kernel::Module for EcnSharpModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let registration = net_sched::Registration::register::<ecnsharp::EcnSharp>()?;
        Ok(EcnSharpModule {
            _registration: registration,
        })
    }
}
