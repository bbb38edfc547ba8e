// SPDX-License-Identifier: GPL-2.0-only
//! # ecnsharp: the ECN# core
//!
//! Everything the `sch_ecnsharp` qdisc decides, in plain `no_std` Rust with no dependencies, no
//! allocation and no floats, so the very same source runs in the kernel module (which includes
//! these files with `#[path]`), in host unit and property tests, fuzzers and benchmarks.
//!
//! Layers, inner first (arrows point inward; this crate depends on nothing):
//! - [`time`], [`band`], [`ecn`]: units and small shared types.
//! - Marking, one state machine per band: [`persistent`] (Algorithm 1 of the ECN# paper, with
//!   the [`rec_sqrt`] fixed-point control law), [`instantaneous`] (TCN, and the probabilistic
//!   Tmin/Tmax/Pmax variant driven by [`prng`]), [`queue_mark`] (DCTCP-RED and dequeue marking),
//!   combined by [`marker`].
//! - Scheduling across bands: [`sched`] (strict priority, DWRR, WFQ, SP on top of either).
//! - Shaping: [`token_bucket`]. Classification: [`classify`].
//! - Configuration: [`config`] (one validated parameter set), [`uapi`] (netlink attribute numbers
//!   and the xstats layout shared with the helper and the tc plugin), [`options`] (tc-style text).
//! - [`histogram`]: the per-band sojourn histogram behind the p50/p99 the front ends show.
//! - [`engine`]: the per-qdisc state the kernel glue drives from enqueue and dequeue, and
//!   [`xstats`], its statistics in the uapi layout.
//! - [`report`]: what the front ends show of a qdisc, its options and xstats as JSON and text.
//!
//! The crate attributes live here only: the kernel module includes the other files as modules
//! of its own crate, where `#![no_std]` would be an unused attribute.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::float_arithmetic))]

#[cfg(test)]
extern crate std;

pub mod band;
pub mod classify;
pub mod config;
pub mod ecn;
pub mod engine;
pub mod histogram;
pub mod instantaneous;
pub mod marker;
pub mod options;
pub mod persistent;
pub mod prng;
pub mod queue_mark;
pub mod rec_sqrt;
pub mod report;
pub mod sched;
pub mod time;
pub mod token_bucket;
pub mod uapi;
pub mod xstats;
