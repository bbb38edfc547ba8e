// SPDX-License-Identifier: GPL-2.0-only
//! The fuzzer's oracle: what the kernel must answer to a request and what the device must look
//! like afterwards, from the device's state before it (a dump) and the core's own decoder
//! (`uapi::decode_options`, with `Config::validate`), the very code the module runs.
//!
//! The model is the kernel's own decision tree for a request whose framing around the options
//! is intact (`tc_modify_qdisc`, `tc_get_qdisc` for a delete, `tc_ctl_tclass`, the filter path
//! for a `matchall` on ecnsharp's block), reduced to what the fuzzer sends: one handle, parents
//! from a list, the `ecnsharp` kind. Requests damaged around the options get no prediction, but
//! any request the kernel refuses must leave every qdisc as it was.

use std::collections::{BTreeMap, BTreeSet};

use ecnsharp::band::MAX_BANDS;
use ecnsharp::config::{Config, DEFAULT_QUANTUM};
use ecnsharp::uapi;

use crate::tc::{
    Tc, NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, RTM_DELQDISC, RTM_DELTCLASS, RTM_DELTFILTER,
    RTM_GETTCLASS, RTM_NEWQDISC, RTM_NEWTCLASS, RTM_NEWTFILTER,
};

/// What the oracle needs to know of a request, besides its bytes.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// `RTM_*`.
    pub msg: u16,
    /// Request flags besides `NLM_F_REQUEST | NLM_F_ACK`.
    pub flags: u16,
    /// `tcm_parent`.
    pub parent: u32,
    /// `tcm_handle`.
    pub handle: u32,
    /// `tcm_info`: a filter's priority (high 16 bits) and protocol.
    pub info: u32,
    /// The `TCA_OPTIONS` payload, if sent (flagged `NLA_F_NESTED`).
    pub options: Option<Vec<u8>>,
    /// Nothing is damaged outside `TCA_OPTIONS`: right kind (ecnsharp, or matchall for a
    /// filter, with a well-formed option set), right device, handle and parent from the
    /// fuzzer's own lists. Only these requests are predicted.
    pub intact: bool,
    /// It carries a size table (`TCA_STAB`): the kernel's `qdisc_change` applies the options
    /// before it parses the table, so a bad table is refused with the options in force.
    pub stab: bool,
}

/// What the kernel must do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Refuse; the device stays as it was.
    Reject,
    /// Accept, leaving the ecnsharp qdisc `handle` under `parent` with configuration `cfg`.
    Slot {
        parent: u32,
        handle: u32,
        cfg: Box<Config>,
    },
    /// Accept, removing the qdisc `handle`.
    Deleted { handle: u32 },
    /// Accept, changing nothing.
    Unchanged,
    /// Accept, leaving the filters of `parent` at these priorities.
    Filters { parent: u32, prios: BTreeSet<u16> },
    /// No prediction (damage around the options, or state the model does not cover).
    Unknown,
}

/// What the oracle remembers of an ecnsharp qdisc between requests: the configuration the
/// kernel holds, which a dump does not show whole (per-band quanta and weights past `bands`
/// are kept by the kernel but not dumped). `certain` once every change to it was predicted.
#[derive(Clone, Copy, Debug)]
struct Shadow {
    cfg: Config,
    certain: bool,
}

/// The configuration with the entries a dump does not carry at their defaults, for comparing
/// what was sent with what is read back.
pub fn normalize(mut cfg: Config) -> Config {
    for i in usize::from(cfg.bands).min(MAX_BANDS)..MAX_BANDS {
        cfg.sched.quanta[i] = DEFAULT_QUANTUM;
        cfg.sched.weights[i] = 1;
    }
    cfg
}

/// The configuration an ecnsharp qdisc's dump shows.
pub fn dumped(q: &Tc) -> Option<Config> {
    let mut cfg = Config::DEFAULT;
    uapi::decode_options(&q.options, &mut cfg).ok()?;
    Some(normalize(cfg))
}

/// The user's qdisc under `parent` (a default qdisc, handle 0, is none).
pub fn child_at(q: &[Tc], parent: u32) -> Option<&Tc> {
    q.iter().find(|t| t.parent == parent && t.handle != 0)
}

/// The qdisc with `handle`.
pub fn lookup(q: &[Tc], handle: u32) -> Option<&Tc> {
    q.iter().find(|t| t.handle == handle)
}

/// The configuration `opts` makes of `base`, or `None` if the core's decoder refuses it.
fn decode(base: &Config, opts: &[u8]) -> Option<Config> {
    let mut cfg = *base;
    uapi::decode_options(opts, &mut cfg).ok()?;
    Some(cfg)
}

/// The oracle's memory of the qdiscs it has seen.
#[derive(Default)]
pub struct Oracle {
    shadows: BTreeMap<u32, Shadow>,
    /// Whether the first state was taken in: qdiscs there were made by tc with a few options,
    /// their hidden part at the defaults; later ones come from requests it did not predict.
    started: bool,
}

impl Oracle {
    /// What the kernel must do with `req` given the device's `qdiscs` before it and, for a
    /// filter request, the priorities of the filters on its parent.
    pub fn predict(&mut self, req: &Shape, qdiscs: &[Tc], filters: &BTreeSet<u16>) -> Expect {
        self.learn(qdiscs, !self.started);
        self.started = true;
        if !req.intact {
            return Expect::Unknown;
        }
        match req.msg {
            RTM_NEWQDISC => self.new_qdisc(req, qdiscs),
            RTM_DELQDISC => match child_at(qdiscs, req.parent) {
                Some(q) if q.handle == req.handle => Expect::Deleted { handle: req.handle },
                _ => Expect::Reject,
            },
            RTM_NEWTCLASS | RTM_DELTCLASS | RTM_GETTCLASS => Self::class(req, qdiscs),
            RTM_NEWTFILTER | RTM_DELTFILTER => Self::filter(req, qdiscs, filters),
            _ => Expect::Unknown,
        }
    }

    /// `tc_modify_qdisc` for a request with parent and handle given.
    fn new_qdisc(&self, req: &Shape, qdiscs: &[Tc]) -> Expect {
        let create = req.flags & NLM_F_CREATE != 0;
        let excl = req.flags & NLM_F_EXCL != 0;
        let replace = req.flags & NLM_F_REPLACE != 0;
        let here = child_at(qdiscs, req.parent);
        if here.is_none_or(|q| q.handle != req.handle) {
            if here.is_some() && !replace {
                return Expect::Reject; // "NLM_F_REPLACE needed to override"
            }
            if lookup(qdiscs, req.handle).is_some() {
                // Elsewhere: "Cannot move an existing qdisc to a different parent".
                return Expect::Reject;
            }
            if !create {
                return Expect::Reject; // "Qdisc not found. To create specify NLM_F_CREATE"
            }
            let cfg = match &req.options {
                Some(opts) => decode(&Config::DEFAULT, opts),
                None => Some(Config::DEFAULT),
            };
            return cfg.map_or(Expect::Reject, |cfg| Expect::Slot {
                parent: req.parent,
                handle: req.handle,
                cfg: Box::new(cfg),
            });
        }
        let q = here.filter(|q| q.kind == "ecnsharp");
        if excl {
            return Expect::Reject;
        }
        let Some(q) = q else {
            return Expect::Reject; // "Invalid qdisc name: must match existing qdisc"
        };
        let Some(opts) = &req.options else {
            return Expect::Unchanged;
        };
        match self.shadows.get(&q.handle) {
            Some(s) if s.certain => {
                decode(&s.cfg, opts).map_or(Expect::Reject, |cfg| Expect::Slot {
                    parent: req.parent,
                    handle: req.handle,
                    cfg: Box::new(cfg),
                })
            }
            _ => Expect::Unknown,
        }
    }

    /// `tc_ctl_tclass` on ecnsharp's classes: it has neither `change` nor `delete`, and class
    /// `H:N` exists for N in 1..=bands.
    fn class(req: &Shape, qdiscs: &[Tc]) -> Expect {
        let Some(q) = lookup(qdiscs, req.parent & 0xffff_0000) else {
            return Expect::Reject;
        };
        let Some(cfg) = dumped(q).filter(|_| q.kind == "ecnsharp") else {
            return Expect::Unknown;
        };
        let minor = req.handle & 0xffff;
        match req.msg {
            RTM_GETTCLASS if (1..=u32::from(cfg.bands)).contains(&minor) => Expect::Unchanged,
            _ => Expect::Reject,
        }
    }

    /// A `matchall` filter on ecnsharp's block (parent `H:`), by priority; a class has no block.
    fn filter(req: &Shape, qdiscs: &[Tc], filters: &BTreeSet<u16>) -> Expect {
        let Some(q) = lookup(qdiscs, req.parent & 0xffff_0000) else {
            return Expect::Reject;
        };
        if q.kind != "ecnsharp" {
            return Expect::Unknown;
        }
        if req.parent & 0xffff != 0 {
            return Expect::Reject;
        }
        let prio = (req.info >> 16) as u16;
        let mut prios = filters.clone();
        match req.msg {
            RTM_NEWTFILTER if prio != 0 && !prios.contains(&prio) => {
                prios.insert(prio);
            }
            // "Cannot flush filters with protocol, handle or kind set".
            RTM_DELTFILTER if prio == 0 && req.info & 0xffff == 0 => prios.clear(),
            RTM_DELTFILTER if prios.remove(&prio) => {}
            _ => return Expect::Reject,
        }
        Expect::Filters {
            parent: req.parent,
            prios,
        }
    }

    /// Takes in what a dump shows: a qdisc the oracle has not seen, or whose dump no longer
    /// matches what it remembers (a change it did not predict), is remembered as dumped, its
    /// hidden part unknown.
    fn learn(&mut self, qdiscs: &[Tc], trust_new: bool) {
        self.shadows.retain(|h, _| {
            qdiscs
                .iter()
                .any(|q| q.handle == *h && q.kind == "ecnsharp")
        });
        for q in qdiscs.iter().filter(|q| q.kind == "ecnsharp") {
            let Some(cfg) = dumped(q) else { continue };
            let known = self
                .shadows
                .get(&q.handle)
                .is_some_and(|s| normalize(s.cfg) == cfg);
            if !known {
                // Created by tc with a few options (the suite's fresh trees) or by a request the
                // oracle did not predict: the dump is all there is.
                let certain = trust_new && !self.shadows.contains_key(&q.handle);
                self.shadows.insert(q.handle, Shadow { cfg, certain });
            }
        }
    }

    /// What the request's options alone make of the qdisc it changes, if the oracle knows that
    /// qdisc whole: the configuration a refused request with a size table may leave in force.
    pub fn options_effect(&self, req: &Shape, qdiscs: &[Tc]) -> Option<Config> {
        let q = child_at(qdiscs, req.parent)
            .filter(|q| q.handle == req.handle && q.kind == "ecnsharp")?;
        let s = self.shadows.get(&q.handle).filter(|s| s.certain)?;
        decode(&s.cfg, req.options.as_deref()?)
    }

    /// Checks the device after a request the kernel answered with `errno`, against `expect`;
    /// `Err` says what disagrees. Remembers the configuration of a predicted change.
    pub fn check(
        &mut self,
        expect: &Expect,
        errno: i32,
        before: &[Tc],
        after: &[Tc],
        filters_after: &BTreeSet<u16>,
    ) -> Result<(), String> {
        let same = |a: &[Tc], b: &[Tc]| {
            let key = |t: &Tc| (t.handle, t.parent, t.kind.clone(), t.options.clone());
            let mut x: Vec<_> = a.iter().map(key).collect();
            let mut y: Vec<_> = b.iter().map(key).collect();
            x.sort();
            y.sort();
            x == y
        };
        if errno != 0 {
            if !same(before, after) {
                return Err(format!("refused (errno {errno}) but the qdiscs changed"));
            }
            return match expect {
                Expect::Reject | Expect::Unknown => Ok(()),
                other => Err(format!("predicted {other:?}, refused with errno {errno}")),
            };
        }
        match expect {
            Expect::Unknown => Ok(()),
            Expect::Reject => Err(String::from("predicted a refusal, accepted")),
            Expect::Unchanged => {
                if same(before, after) {
                    Ok(())
                } else {
                    Err(String::from("accepted as a no-op, but the qdiscs changed"))
                }
            }
            Expect::Slot {
                parent,
                handle,
                cfg,
            } => {
                let q = child_at(after, *parent)
                    .filter(|q| q.handle == *handle && q.kind == "ecnsharp")
                    .ok_or_else(|| {
                        format!("accepted, but no ecnsharp {handle:#x} under {parent:#x}")
                    })?;
                let got = dumped(q).ok_or("accepted, its dump does not decode")?;
                if got != normalize(**cfg) {
                    return Err(format!(
                        "read back {got:?}\n  sent      {:?}",
                        normalize(**cfg)
                    ));
                }
                self.shadows.insert(
                    *handle,
                    Shadow {
                        cfg: **cfg,
                        certain: true,
                    },
                );
                Ok(())
            }
            Expect::Deleted { handle } => {
                if lookup(after, *handle).is_some() {
                    return Err(format!("accepted delete, {handle:#x} still there"));
                }
                self.shadows.remove(handle);
                Ok(())
            }
            Expect::Filters { prios, .. } => {
                if !same(before, after) {
                    return Err(String::from("a filter request changed the qdiscs"));
                }
                if filters_after != prios {
                    return Err(format!("filters at {filters_after:?}, predicted {prios:?}"));
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tc::{RTM_GETTCLASS, TC_H_ROOT};

    fn qdisc(handle: u32, parent: u32, bands: u32) -> Tc {
        let mut options = Vec::new();
        let mut cfg = Config::DEFAULT;
        cfg.bands = bands as u8;
        let mut buf = [0u8; uapi::OPTIONS_MAX_SIZE];
        let n = uapi::encode_options(&cfg, &mut buf).unwrap();
        options.extend(&buf[..n]);
        Tc {
            ifindex: 3,
            handle,
            parent,
            info: 0,
            kind: String::from("ecnsharp"),
            options,
        }
    }

    fn shape(msg: u16, flags: u16, parent: u32, handle: u32, options: Option<Vec<u8>>) -> Shape {
        Shape {
            msg,
            flags,
            parent,
            handle,
            info: 0,
            options,
            intact: true,
            stab: false,
        }
    }

    #[test]
    fn the_kernels_decision_tree() {
        let state = [qdisc(0x1_0000, TC_H_ROOT, 3)];
        let none = BTreeSet::new();
        let mut o = Oracle::default();
        let limit = crate::tc::nla(uapi::TCA_ECNSHARP_LIMIT, &77u32.to_ne_bytes());
        let bad = crate::tc::nla(uapi::TCA_ECNSHARP_LIMIT, &[1, 2]);
        let h10 = 0x10_0000;
        // Another qdisc is there: add and change are refused, replace creates from defaults.
        let add = shape(
            RTM_NEWQDISC,
            NLM_F_CREATE | NLM_F_EXCL,
            TC_H_ROOT,
            h10,
            None,
        );
        assert_eq!(o.predict(&add, &state, &none), Expect::Reject);
        let change = shape(RTM_NEWQDISC, 0, TC_H_ROOT, h10, Some(limit.clone()));
        assert_eq!(o.predict(&change, &state, &none), Expect::Reject);
        let replace = shape(
            RTM_NEWQDISC,
            NLM_F_CREATE | NLM_F_REPLACE,
            TC_H_ROOT,
            h10,
            Some(limit.clone()),
        );
        let mut want = Config::DEFAULT;
        want.limit_packets = 77;
        assert_eq!(
            o.predict(&replace, &state, &none),
            Expect::Slot {
                parent: TC_H_ROOT,
                handle: h10,
                cfg: Box::new(want)
            }
        );
        // The qdisc itself: a change applies to its configuration (3 bands), or is refused.
        let change = shape(RTM_NEWQDISC, 0, TC_H_ROOT, 0x1_0000, Some(limit));
        let Expect::Slot { cfg, .. } = o.predict(&change, &state, &none) else {
            panic!("change not predicted");
        };
        assert_eq!((cfg.bands, cfg.limit_packets), (3, 77));
        let change = shape(RTM_NEWQDISC, 0, TC_H_ROOT, 0x1_0000, Some(bad));
        assert_eq!(o.predict(&change, &state, &none), Expect::Reject);
        // Delete by the wrong handle, by the right one.
        let del = shape(RTM_DELQDISC, 0, TC_H_ROOT, h10, None);
        assert_eq!(o.predict(&del, &state, &none), Expect::Reject);
        let del = shape(RTM_DELQDISC, 0, TC_H_ROOT, 0x1_0000, None);
        assert_eq!(
            o.predict(&del, &state, &none),
            Expect::Deleted { handle: 0x1_0000 }
        );
        // Classes 1:1..1:3 exist, none can be changed; filters by priority.
        let get = shape(RTM_GETTCLASS, 0, 0x1_0000, 0x1_0003, None);
        assert_eq!(o.predict(&get, &state, &none), Expect::Unchanged);
        let get = shape(RTM_GETTCLASS, 0, 0x1_0000, 0x1_0004, None);
        assert_eq!(o.predict(&get, &state, &none), Expect::Reject);
        let new = shape(RTM_NEWTCLASS, NLM_F_CREATE, 0x1_0000, 0x1_0002, None);
        assert_eq!(o.predict(&new, &state, &none), Expect::Reject);
        let mut f = shape(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, 0x1_0000, 0, None);
        f.info = 2 << 16;
        let two: BTreeSet<u16> = [2].into();
        assert_eq!(
            o.predict(&f, &state, &none),
            Expect::Filters {
                parent: 0x1_0000,
                prios: two.clone()
            }
        );
        assert_eq!(o.predict(&f, &state, &two), Expect::Reject);
        f.parent = 0x1_0001;
        assert_eq!(o.predict(&f, &state, &none), Expect::Reject);
        // Damaged around the options: no prediction.
        let mut damaged = add;
        damaged.intact = false;
        assert_eq!(o.predict(&damaged, &state, &none), Expect::Unknown);
    }
}
