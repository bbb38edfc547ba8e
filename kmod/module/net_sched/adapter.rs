// SPDX-License-Identifier: GPL-2.0

//! The [`QdiscOps`] trait, the C callbacks that call it, and the registration of a qdisc kind.

use super::layout::{field, layout};
use super::netlink::{ExtAck, NlAttr};
use super::qdisc::{Context, Enqueued, EnqueuedKind, Qdisc, ToFree};
use super::skb::{Skb, SkbRef};
use crate::bindings;
use core::ffi::{c_int, CStr};
use core::marker::PhantomData;
use kernel::error::from_result;
use kernel::init::Zeroable;
use kernel::prelude::*;

/// The operations of a qdisc kind. The implementing type is the per-qdisc state.
///
/// The state starts out all-zero (the private area is zero-filled: hence [`Zeroable`]) and is
/// dropped in place when the qdisc is destroyed, even when [`QdiscOps::init`] failed, so every
/// state reachable from zero must be safe to drop. Dropping it frees any packet it still owns.
pub trait QdiscOps: Zeroable + Send + Sized {
    /// The kind, as `tc qdisc add dev DEV root KIND` names it.
    const ID: &'static CStr;
    /// Most bytes [`QdiscOps::dump`] writes.
    const OPTIONS_MAX: usize;
    /// Most bytes [`QdiscOps::dump_stats`] writes.
    const XSTATS_MAX: usize;

    /// Configures a new qdisc from its `TCA_OPTIONS` (absent when the user gave none).
    fn init(
        &mut self,
        sch: &mut Qdisc<'_>,
        opt: Option<NlAttr<'_>>,
        extack: &mut ExtAck<'_>,
    ) -> Result;

    /// Reconfigures under traffic; runs under the tree lock. On error nothing may have changed.
    fn change(&mut self, sch: &mut Qdisc<'_>, opt: NlAttr<'_>, extack: &mut ExtAck<'_>) -> Result;

    /// Queues `skb` or drops it through `to_free`.
    fn enqueue(&mut self, sch: &mut Qdisc<'_>, skb: Skb, to_free: &mut ToFree<'_>) -> Enqueued;

    /// The next packet to send, if any may leave now. Packets dropped on the way go through
    /// [`Qdisc::drop_queued`]. The adapter does the `qlen`/`backlog`/`bstats` accounting of
    /// the packet returned.
    fn dequeue(&mut self, sch: &mut Qdisc<'_>) -> Option<Skb>;

    /// The packet the next [`QdiscOps::dequeue`] will return, left in the queue, for a parent
    /// that looks before it takes (`tbf`, `drr`, `ets`, `hfsc`, `qfq`). Until that dequeue, a
    /// `change` or a `reset`, every `peek` must name the same packet and `dequeue` must return
    /// it: the parent has already charged its own budget for it. Packets dropped on the way go
    /// through [`Qdisc::drop_queued`].
    fn peek(&mut self, sch: &mut Qdisc<'_>) -> Option<SkbRef<'_>>;

    /// Frees every queued packet and returns to the configured, empty state (the stack zeroes
    /// `qlen` and `backlog` itself). A flush is not a drop: `qstats.drops` is left alone, as
    /// every kernel qdisc's reset does.
    fn reset(&mut self, sch: &mut Qdisc<'_>);

    /// Writes the nested attributes of `TCA_OPTIONS` into `out` (zeroed, [`Self::OPTIONS_MAX`]
    /// bytes), returning their length; `None` if they do not fit.
    fn dump(&self, out: &mut [u8]) -> Option<usize>;

    /// Writes the qdisc-specific statistics (xstats) into `out` (zeroed), returning their length;
    /// `None` if not even their fixed part fits. `out` may be shorter than
    /// [`Self::XSTATS_MAX`] outside a dump (see `ecnsharp_xstats_room` in shim.c): write what fits.
    fn dump_stats(&self, out: &mut [u8]) -> Option<usize>;

    /// The least [`QdiscOps::dump_stats`] can write.
    const XSTATS_MIN: usize = 0;

    /// Whether the qdisc has classes (each with [`QdiscOps::class_stats`]) and a filter block:
    /// `tc class show` lists them and `tc filter ... classid H:N` steers into them
    /// ([`Qdisc::classify`]). The qdisc declares how many it has with [`Qdisc::set_classes`].
    const CLASSFUL: bool = false;
    /// Most bytes [`QdiscOps::class_stats`] writes.
    const CLASS_XSTATS_MAX: usize = 0;

    /// The counters of class `class` (1-based) and its xstats written into `out` (their length),
    /// or `None` if there is no such class.
    fn class_stats(&self, _class: u32, _out: &mut [u8]) -> Option<(ClassStats, usize)> {
        None
    }
}

/// Errno values returned to C as they are. The kernel crate's `Error::from_errno` would build
/// them for any value, but warns through core's integer formatting on one out of range, a panic
/// path (overflow checks) that `tests/vm/no-panics.sh` rejects; these are constants.
const ERRNO_EMSGSIZE: c_int = bindings::ECNSHARP_SHIM_EMSGSIZE as c_int;
const ERRNO_EINVAL: c_int = bindings::ECNSHARP_SHIM_EINVAL as c_int;

/// Room for a class's xstats on the stack of `dump_class_stats`.
const CLASS_XSTATS_BUF: usize = 512;

/// The generic counters of one class, as `tc -s class show` prints them.
#[derive(Clone, Copy, Default)]
pub struct ClassStats {
    /// Bytes sent.
    pub bytes: u64,
    /// Packets sent.
    pub packets: u64,
    /// Packets queued now.
    pub qlen: u32,
    /// Bytes queued now.
    pub backlog: u32,
    /// Packets dropped.
    pub drops: u32,
}

/// The C callbacks of a [`QdiscOps`] type.
struct Adapter<T: QdiscOps>(PhantomData<T>);

impl<T: QdiscOps> Adapter<T> {
    /// The state of `sch`.
    ///
    /// # Safety
    ///
    /// `sch` must be a live qdisc of this kind; the caller must hold whatever serialises access
    /// to the state (root lock, or RTNL plus tree lock) for `'a`, and no other reference to the
    /// state may exist during `'a`.
    unsafe fn state<'a>(sch: *mut bindings::Qdisc) -> &'a mut T {
        // SAFETY: for a qdisc of this kind the shim returns the start of the `T` area, which
        // the kernel zero-filled (a valid `T`, as `T: Zeroable`) and which is suitably aligned
        // (`register` passed the alignment); exclusivity is the caller's promise.
        unsafe { &mut *field::<_, T>(sch, layout().qdisc_state) }
    }

    /// `Qdisc_ops.init`: RTNL held, the qdisc not yet visible to the data path.
    ///
    /// # Safety
    ///
    /// Called by the stack only, with a qdisc of this kind, its `TCA_OPTIONS` (or null) and the
    /// request's extack (or null).
    unsafe extern "C" fn init(
        sch: *mut bindings::Qdisc,
        opt: *mut bindings::nlattr,
        extack: *mut bindings::netlink_ext_ack,
    ) -> c_int {
        from_result(|| {
            // SAFETY: the stack passes a valid qdisc, held under RTNL while init runs.
            let mut q = unsafe { Qdisc::from_raw(sch, Context::Rtnl) }.ok_or(EINVAL)?;
            // SAFETY: `opt` is null or the validated `TCA_OPTIONS` of the request.
            let opt = unsafe { NlAttr::from_raw(opt) };
            // SAFETY: `extack` is null or the request's extack.
            let mut extack = unsafe { ExtAck::from_raw(extack) };
            // SAFETY: nothing else can reach a qdisc that is being created.
            let this = unsafe { Self::state(sch) };
            this.init(&mut q, opt, &mut extack)?;
            Ok(0)
        })
    }

    /// `Qdisc_ops.change`: RTNL held; the data path runs concurrently, so we take the tree lock.
    ///
    /// # Safety
    ///
    /// Called by the stack only, under RTNL, with a live qdisc of this kind, its `TCA_OPTIONS`
    /// (or null) and the request's extack (or null).
    unsafe extern "C" fn change(
        sch: *mut bindings::Qdisc,
        opt: *mut bindings::nlattr,
        extack: *mut bindings::netlink_ext_ack,
    ) -> c_int {
        from_result(|| {
            // SAFETY: `extack` is null or the request's extack.
            let mut extack = unsafe { ExtAck::from_raw(extack) };
            // SAFETY: `opt` is null or the validated `TCA_OPTIONS` of the request.
            let Some(opt) = (unsafe { NlAttr::from_raw(opt) }) else {
                extack.set(None, c"ecnsharp: change needs options");
                return Err(EINVAL);
            };
            // SAFETY: the stack passes a valid qdisc; RTNL is held, the tree lock is taken below.
            let mut q = unsafe { Qdisc::from_raw(sch, Context::Rtnl) }.ok_or(EINVAL)?;
            // SAFETY: valid qdisc; sch_tree_lock may be taken in process context under RTNL.
            unsafe { bindings::ecnsharp_shim_tree_lock(sch) };
            // SAFETY: the tree lock excludes the data path and RTNL the other control paths.
            let this = unsafe { Self::state(sch) };
            let ret = this.change(&mut q, opt, &mut extack);
            // Parents hear of the drops while the tree is still locked, as fq_codel_change does.
            q.settle();
            // SAFETY: taken above.
            unsafe { bindings::ecnsharp_shim_tree_unlock(sch) };
            ret.map(|()| 0)
        })
    }

    /// `Qdisc_ops.enqueue`: root lock held.
    ///
    /// # Safety
    ///
    /// Called by the stack only, with the root lock held, a live qdisc of this kind, the only
    /// reference to `skb`, and the `to_free` list of this enqueue.
    unsafe extern "C" fn enqueue(
        skb: *mut bindings::sk_buff,
        sch: *mut bindings::Qdisc,
        to_free: *mut *mut bindings::sk_buff,
    ) -> c_int {
        // SAFETY: the stack hands the qdisc the only reference to a valid skb.
        let Some(skb) = (unsafe { Skb::from_raw(skb) }) else {
            return bindings::ECNSHARP_SHIM_NET_XMIT_DROP as c_int;
        };
        // SAFETY: valid arguments of the enqueue in progress.
        let (Some(mut q), Some(mut to_free)) =
            (unsafe { Qdisc::from_raw(sch, Context::Data) }, unsafe {
                ToFree::from_raw(sch, to_free)
            })
        else {
            drop(skb);
            return bindings::ECNSHARP_SHIM_NET_XMIT_DROP as c_int;
        };
        // SAFETY: the root lock serialises the data path of this qdisc.
        let this = unsafe { Self::state(sch) };
        match this.enqueue(&mut q, skb, &mut to_free).0 {
            EnqueuedKind::Queued(len) => {
                let l = layout();
                // SAFETY: valid qdisc whose `q.qlen` and `qstats.backlog` are u32s, written
                // under the root lock as `qdisc_enqueue_tail` does.
                unsafe {
                    let backlog = field::<_, u32>(sch, l.qdisc_backlog);
                    *backlog = (*backlog).wrapping_add(len);
                    let qlen = field::<_, u32>(sch, l.qdisc_qlen);
                    *qlen = (*qlen).wrapping_add(1);
                }
                bindings::ECNSHARP_SHIM_NET_XMIT_SUCCESS as c_int
            }
            EnqueuedKind::Segments {
                packets,
                bytes,
                orig_len,
            } => {
                if packets == 0 {
                    return bindings::ECNSHARP_SHIM_NET_XMIT_DROP as c_int;
                }
                // Our own counters first, so no parent is told we are empty while we are not.
                // SAFETY: valid, locked qdisc.
                unsafe { bindings::ecnsharp_shim_enqueued_many(sch, packets, bytes) };
                // The parents count the one packet of `orig_len` they handed us: tell them of
                // the difference, negative drops as tbf does.
                if packets != 1 || bytes != orig_len {
                    let n = 1i64 - i64::from(packets);
                    let len = i64::from(orig_len) - i64::from(bytes);
                    // SAFETY: valid, locked qdisc.
                    unsafe {
                        bindings::ecnsharp_shim_tree_reduce_backlog(
                            sch,
                            i32::try_from(n).unwrap_or(i32::MIN),
                            i32::try_from(len).unwrap_or(0),
                        )
                    };
                }
                bindings::ECNSHARP_SHIM_NET_XMIT_SUCCESS as c_int
            }
            EnqueuedKind::Dropped(ret) => ret,
        }
    }

    /// The common part of dequeue and peek: the next packet, accounted as dequeued.
    ///
    /// # Safety
    ///
    /// `sch` is a live qdisc of this kind and the root lock is held.
    unsafe fn next(sch: *mut bindings::Qdisc) -> Option<Skb> {
        // SAFETY: guaranteed by the caller.
        let mut q = unsafe { Qdisc::from_raw(sch, Context::Data) }?;
        // SAFETY: the root lock serialises the data path of this qdisc.
        let this = unsafe { Self::state(sch) };
        let skb = this.dequeue(&mut q);
        if let Some(skb) = &skb {
            // SAFETY: valid, locked qdisc; valid skb.
            unsafe { bindings::ecnsharp_shim_dequeued(sch, skb.as_ptr()) };
        }
        q.settle();
        skb
    }

    /// `Qdisc_ops.dequeue`: root lock held.
    ///
    /// # Safety
    ///
    /// Called by the stack only, with the root lock held and a live qdisc of this kind.
    unsafe extern "C" fn dequeue(sch: *mut bindings::Qdisc) -> *mut bindings::sk_buff {
        // SAFETY: the stack calls dequeue on a live qdisc with the root lock held.
        match unsafe { Self::next(sch) } {
            Some(skb) => skb.into_raw(),
            None => core::ptr::null_mut(),
        }
    }

    /// `Qdisc_ops.peek`: the packet [`QdiscOps::peek`] names stays in the qdisc's own queue,
    /// so the decisions made when a packet leaves (sojourn, marks, shaper tokens) are made when
    /// the parent takes it with `qdisc_dequeue_peeked`, which then finds `gso_skb` empty and
    /// calls our dequeue. A packet the stack itself requeued into `gso_skb` comes first.
    ///
    /// # Safety
    ///
    /// Called by the stack only, with the root lock held and a live qdisc of this kind.
    unsafe extern "C" fn peek(sch: *mut bindings::Qdisc) -> *mut bindings::sk_buff {
        // SAFETY: valid qdisc, root lock held.
        let requeued = unsafe { bindings::ecnsharp_shim_peeked(sch) };
        if !requeued.is_null() {
            return requeued;
        }
        // SAFETY: valid qdisc, root lock held.
        let Some(mut q) = (unsafe { Qdisc::from_raw(sch, Context::Data) }) else {
            return core::ptr::null_mut();
        };
        // SAFETY: the root lock serialises the data path of this qdisc.
        let this = unsafe { Self::state(sch) };
        // The pointer outlives the borrow: the packet stays queued under the root lock until a
        // dequeue, change or reset, none of which can run before the parent is done with it.
        let ptr = this
            .peek(&mut q)
            .map_or(core::ptr::null_mut(), |skb| skb.as_ptr());
        q.settle();
        ptr
    }

    /// `Qdisc_ops.reset`: root lock held (the shim cancelled the watchdog).
    ///
    /// # Safety
    ///
    /// Called by the stack only, with the root lock held and a live qdisc of this kind.
    unsafe extern "C" fn reset(sch: *mut bindings::Qdisc) {
        // SAFETY: valid qdisc, root lock held.
        if let Some(mut q) = unsafe { Qdisc::from_raw(sch, Context::Data) } {
            // SAFETY: the root lock serialises access to the state.
            let this = unsafe { Self::state(sch) };
            // The stack zeroes qlen and backlog after reset, and parents reset themselves.
            this.reset(&mut q);
        }
    }

    /// `Qdisc_ops.destroy`: RTNL held, the qdisc unreachable from the data path; runs even when
    /// init failed (the state is then as zeroed or as init left it).
    ///
    /// # Safety
    ///
    /// Called by the stack only, once, as the last callback of a qdisc of this kind.
    unsafe extern "C" fn destroy(sch: *mut bindings::Qdisc) {
        // SAFETY: the qdisc is going away: nothing else references its state, which is a valid
        // `T`; it is never used again after being dropped here (the stack frees the memory).
        unsafe { core::ptr::drop_in_place(field::<_, T>(sch, layout().qdisc_state)) }
    }

    /// `Qdisc_ops.dump`: RTNL held; the tree lock keeps the data path out while we read. The
    /// options are written in place at the tail of the message: nothing is allocated.
    ///
    /// # Safety
    ///
    /// Called by the stack only, under RTNL, with a live qdisc of this kind and the dump message.
    unsafe extern "C" fn dump(sch: *mut bindings::Qdisc, skb: *mut bindings::sk_buff) -> c_int {
        let mut nest = core::ptr::null_mut();
        let Ok(max) = c_int::try_from(T::OPTIONS_MAX) else {
            return -ERRNO_EMSGSIZE;
        };
        // SAFETY: `skb` is the dump message being built; `nest` is written on success.
        let room = unsafe { bindings::ecnsharp_shim_options_reserve(skb, max, &mut nest) };
        if room.is_null() {
            return -ERRNO_EMSGSIZE;
        }
        // SAFETY: the shim reserved `OPTIONS_MAX` zeroed bytes at the tail of the message, ours
        // alone until the commit or cancel below.
        let out = unsafe { core::slice::from_raw_parts_mut(room.cast::<u8>(), T::OPTIONS_MAX) };
        // SAFETY: valid qdisc under RTNL (process context).
        unsafe { bindings::ecnsharp_shim_tree_lock(sch) };
        // SAFETY: the tree lock serialises access to the state.
        let len = unsafe { Self::state(sch) }.dump(out);
        // SAFETY: taken above.
        unsafe { bindings::ecnsharp_shim_tree_unlock(sch) };
        match len.and_then(|len| c_int::try_from(len.min(T::OPTIONS_MAX)).ok()) {
            // SAFETY: `nest` was reserved above in this message; `len` bytes were written.
            Some(len) => unsafe { bindings::ecnsharp_shim_options_commit(skb, nest, len) },
            None => {
                // SAFETY: as above.
                unsafe { bindings::ecnsharp_shim_options_cancel(skb, nest) };
                -ERRNO_EMSGSIZE
            }
        }
    }

    /// `Qdisc_ops.dump_stats`: RTNL held; the tree lock keeps the data path out while we read.
    /// The xstats are written in place at the tail of the message.
    ///
    /// # Safety
    ///
    /// Called by the stack only, under RTNL, with a live qdisc of this kind and the stats dump.
    unsafe extern "C" fn dump_stats(
        sch: *mut bindings::Qdisc,
        d: *mut bindings::gnet_dump,
    ) -> c_int {
        let (Ok(max), Ok(min)) = (
            c_int::try_from(T::XSTATS_MAX),
            c_int::try_from(T::XSTATS_MIN),
        ) else {
            return -ERRNO_EMSGSIZE;
        };
        let mut room: c_int = 0;
        let mut attr = core::ptr::null_mut();
        // SAFETY: `d` is the stats dump in progress; `room` and `attr` are written.
        let buf =
            unsafe { bindings::ecnsharp_shim_xstats_reserve(d, max, min, &mut room, &mut attr) };
        if buf.is_null() {
            // No statistics wanted (0), or no room (-ERRNO_EMSGSIZE, the dump's lock released).
            return room.min(0);
        }
        let len = usize::try_from(room).unwrap_or(0).min(T::XSTATS_MAX);
        // SAFETY: the shim reserved `room` zeroed bytes at the tail of the message, ours alone
        // until the commit below.
        let out = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
        // SAFETY: valid qdisc under RTNL (process context).
        unsafe { bindings::ecnsharp_shim_tree_lock(sch) };
        // SAFETY: the tree lock serialises access to the state.
        let written = unsafe { Self::state(sch) }.dump_stats(out).unwrap_or(0);
        // SAFETY: taken above.
        unsafe { bindings::ecnsharp_shim_tree_unlock(sch) };
        let written = c_int::try_from(written.min(len)).unwrap_or(0);
        // SAFETY: `attr` was reserved above in this dump; `written` bytes of it were written.
        unsafe { bindings::ecnsharp_shim_xstats_commit(d, attr, written) };
        0
    }

    /// `Qdisc_class_ops.dump_stats`: RTNL held; the tree lock keeps the data path out.
    ///
    /// # Safety
    ///
    /// Called by the stack only, under RTNL, with a live qdisc of this kind, a class `find`
    /// returned, and the stats dump in progress.
    unsafe extern "C" fn dump_class_stats(
        sch: *mut bindings::Qdisc,
        cl: core::ffi::c_ulong,
        d: *mut bindings::gnet_dump,
    ) -> c_int {
        let Ok(class) = u32::try_from(cl) else {
            return -ERRNO_EINVAL;
        };
        // On the stack (464 bytes for ecnsharp): nothing to allocate in a dump.
        let mut buf = [0u8; CLASS_XSTATS_BUF];
        let out = buf.get_mut(..T::CLASS_XSTATS_MAX).unwrap_or(&mut []);
        // SAFETY: valid qdisc under RTNL (process context).
        unsafe { bindings::ecnsharp_shim_tree_lock(sch) };
        // SAFETY: the tree lock serialises access to the state.
        let got = unsafe { Self::state(sch) }.class_stats(class, out);
        // SAFETY: taken above.
        unsafe { bindings::ecnsharp_shim_tree_unlock(sch) };
        let Some((st, len)) = got else {
            return -ERRNO_EINVAL;
        };
        let len = c_int::try_from(len.min(out.len())).unwrap_or(0);
        let c = bindings::ecnsharp_shim_class_stats {
            bytes: st.bytes,
            packets: st.packets,
            qlen: st.qlen,
            backlog: st.backlog,
            drops: st.drops,
        };
        // SAFETY: `d` is the dump in progress; `c` and `out` are read during the call only.
        unsafe { bindings::ecnsharp_shim_put_class_stats(d, &c, out.as_ptr().cast(), len) }
    }

    const OPS: bindings::ecnsharp_shim_ops = bindings::ecnsharp_shim_ops {
        enqueue: Some(Self::enqueue),
        dequeue: Some(Self::dequeue),
        peek: Some(Self::peek),
        init: Some(Self::init),
        reset: Some(Self::reset),
        destroy: Some(Self::destroy),
        change: Some(Self::change),
        dump: Some(Self::dump),
        dump_stats: Some(Self::dump_stats),
        dump_class_stats: if T::CLASSFUL {
            Some(Self::dump_class_stats)
        } else {
            None
        },
    };
}

/// A registered qdisc kind; unregistered when dropped (module unload).
pub struct Registration {
    _private: (),
}

impl Registration {
    /// Registers the kind `T::ID`.
    pub fn register<T: QdiscOps>() -> Result<Registration> {
        // SAFETY: trivial query of a constant.
        if unsafe { bindings::ecnsharp_shim_abi() } != bindings::ECNSHARP_SHIM_ABI {
            return Err(EINVAL);
        }
        const { assert!(T::CLASS_XSTATS_MAX <= CLASS_XSTATS_BUF) };
        let ops: &'static bindings::ecnsharp_shim_ops = &Adapter::<T>::OPS;
        // SAFETY: `ops` and `T::ID` are static; the shim copies the callbacks into its
        // `Qdisc_ops`, whose private area it sizes and aligns for a `T`.
        let ret = unsafe {
            bindings::ecnsharp_shim_register(
                T::ID.as_ptr(),
                ops,
                core::mem::size_of::<T>() as _,
                core::mem::align_of::<T>() as _,
            )
        };
        // register_qdisc() says -EEXIST for a kind registered twice; the shim -EINVAL for a
        // state it cannot place. Mapped to the kernel crate's constants (see `ERRNO_EMSGSIZE`).
        match ret {
            0 => Ok(Registration { _private: () }),
            r if r == kernel::error::code::EEXIST.to_errno() => Err(kernel::error::code::EEXIST),
            _ => Err(kernel::error::code::EINVAL),
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: registered in `register`; `unregister_qdisc` waits for no packet, and every
        // qdisc of this kind holds a module reference, so none is left when the module goes.
        unsafe { bindings::ecnsharp_shim_unregister() }
    }
}
