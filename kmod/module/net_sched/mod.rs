// SPDX-License-Identifier: GPL-2.0

//! Traffic-control queueing disciplines in Rust.
//!
//! C headers: [`include/net/sch_generic.h`](srctree/include/net/sch_generic.h),
//! [`include/net/pkt_sched.h`](srctree/include/net/pkt_sched.h).
//!
//! A qdisc is a type implementing [`QdiscOps`]; its value lives in the qdisc's private area and
//! the callbacks receive it as `&mut self` only where the kernel serialises them (the root lock
//! for the data path; RTNL plus the tree lock, which the adapter takes, for `change` and the
//! dumps). All `unsafe` code of the module lives in this directory: the `unsafe extern "C"`
//! trampolines of [`Adapter`], and small owned or borrowed wrappers ([`Skb`], [`SkbFifo`],
//! [`Qdisc`], [`NlAttr`], [`ExtAck`]) whose methods are safe. This layer is written so that it
//! could become `kernel::net::sched`; the C it needs is in `shim.c`.

mod adapter;
mod layout;
mod netlink;
mod qdisc;
mod skb;

pub use adapter::ClassStats;
pub use adapter::{QdiscOps, Registration};
pub use netlink::{ExtAck, NlAttr};
pub use qdisc::{Enqueued, FilterVerdict, Qdisc, ToFree};
pub use skb::{Skb, SkbCb, SkbFifo, SkbList, SkbRef};

use crate::bindings;

/// `CLOCK_MONOTONIC` now, in nanoseconds (`ktime_get_ns`), the clock of the qdisc watchdog.
pub fn now_ns() -> u64 {
    // SAFETY: `ktime_get_ns` may be called in any context.
    unsafe { bindings::ecnsharp_shim_now_ns() }
}

/// A random `u32` (`get_random_u32`).
pub fn random_u32() -> u32 {
    // SAFETY: `get_random_u32` may be called in any context.
    unsafe { bindings::ecnsharp_shim_random_u32() }
}
