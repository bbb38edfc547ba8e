// SPDX-License-Identifier: GPL-2.0-only
//! The kernel module's state starts as zero-filled memory (the qdisc private area), and its
//! `Zeroable` claim for `EcnSharp` rests on an all-zero `Engine` being a valid engine: every
//! field is an integer, a `bool`, an array of them, or a `#[repr(u8)]` enum whose first variant
//! has discriminant 0 (its fields, if any, valid at zero too). This test builds one from zeroed
//! memory and checks it is the idle engine and works as one.
//!
//! It lives outside the crate because the crate forbids `unsafe`.

use ecnsharp::config::{Config, ControlLaw, NonEctPolicy, SchedKind};
use ecnsharp::engine::{DequeueVerdict, Engine, EnqueueVerdict, PacketInfo};

#[test]
fn all_zero_engine_is_valid() {
    // SAFETY: the claim under test; were it false this would be undefined behaviour, which is
    // why the layout facts it rests on are `#[repr(u8)]` on every enum the engine holds (see
    // the module doc) and checked below through the values read back.
    let zero: Engine = unsafe { core::mem::MaybeUninit::zeroed().assume_init() };
    let cfg = zero.config();
    assert_eq!(cfg.marking.control_law, ControlLaw::InvSqrt);
    assert_eq!(cfg.non_ect, NonEctPolicy::Pass);
    assert_eq!(cfg.sched.kind, SchedKind::Sp);
    assert_eq!((zero.qlen(), zero.backlog()), (0, 0));
    assert!(zero.scheduler().backlogged().is_empty());
    assert!(!zero.shaper().is_enabled());

    // It takes a configuration and then carries traffic like a new engine.
    let mut e = zero;
    e.configure(&Config::DEFAULT, 0, ecnsharp::token_bucket::Device::DEFAULT);
    let mut fresh = Engine::new(&Config::DEFAULT);
    let p = PacketInfo {
        len: 1000,
        priority: 6,
        dsfield: Some(0x02),
    };
    for engine in [&mut e, &mut fresh] {
        assert!(matches!(engine.enqueue(&p), EnqueueVerdict::Queue { .. }));
        let band = engine.select().expect("a backlogged band");
        let v = engine.dequeue(10, band, 1000, 0, ecnsharp::ecn::Ecn::Ect0, None);
        assert!(matches!(v, DequeueVerdict::Send { .. }));
    }
    assert_eq!(e.stats(), fresh.stats());
}
