// SPDX-License-Identifier: GPL-2.0

//! The qdisc a callback runs for: its counters, watchdog and tree notifications.
//!
//! C header: [`include/net/sch_generic.h`](srctree/include/net/sch_generic.h).

use super::layout::{field, layout};
use super::skb::Skb;
use crate::bindings;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// Where a callback runs, which decides how a dropped queued packet is freed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Context {
    /// enqueue, dequeue, peek and reset: under the qdisc root lock, in any context (reset also
    /// under RTNL alone when the qdisc is destroyed, unreachable by then).
    Data,
    /// init and change: under RTNL (and the tree lock for change).
    Rtnl,
}

/// A qdisc, borrowed for the duration of one callback.
///
/// Packets dropped from the queue through [`Qdisc::drop_queued`] are reported to the parents with
/// `qdisc_tree_reduce_backlog` once the callback is over (see [`Qdisc::settle`]): a parent must
/// hear of a child's drops outside enqueue, and must not hear of them while a peeked packet is
/// still being stashed (6.12's sch_codel does the same).
///
/// # Invariants
///
/// `ptr` is a valid qdisc of ours for `'a`, and the locking that [`Context`] names is held.
pub struct Qdisc<'a> {
    ptr: NonNull<bindings::Qdisc>,
    context: Context,
    pending_drops: u32,
    pending_bytes: u32,
    _borrow: PhantomData<&'a mut bindings::Qdisc>,
}

impl<'a> Qdisc<'a> {
    /// # Safety
    ///
    /// `ptr` must be a valid qdisc of ours for `'a`, with the locking of `context` held.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::Qdisc, context: Context) -> Option<Self> {
        // INVARIANT: the caller guarantees validity and locking.
        NonNull::new(ptr).map(|ptr| Qdisc {
            ptr,
            context,
            pending_drops: 0,
            pending_bytes: 0,
            _borrow: PhantomData,
        })
    }

    pub(crate) fn as_ptr(&self) -> *mut bindings::Qdisc {
        self.ptr.as_ptr()
    }

    /// The device's MTU plus link-layer header (`psched_mtu`).
    pub fn mtu(&self) -> u32 {
        // SAFETY: the qdisc is valid (type invariant).
        unsafe { bindings::ecnsharp_shim_mtu(self.as_ptr()) }
    }

    /// The device's `txqueuelen`.
    pub fn tx_queue_len(&self) -> u32 {
        // SAFETY: the qdisc is valid (type invariant).
        unsafe { bindings::ecnsharp_shim_tx_queue_len(self.as_ptr()) }
    }

    /// `sch->q.qlen`: packets queued, including one a parent's peek parked.
    pub fn qlen(&self) -> u32 {
        // SAFETY: the qdisc is valid (type invariant); `q.qlen` is a u32.
        unsafe { *field::<_, u32>(self.as_ptr(), layout().qdisc_qlen) }
    }

    /// `sch->qstats.backlog`, in bytes.
    pub fn backlog(&self) -> u32 {
        // SAFETY: the qdisc is valid (type invariant); `qstats.backlog` is a u32.
        unsafe { *field::<_, u32>(self.as_ptr(), layout().qdisc_backlog) }
    }

    /// Declares the qdisc's classes: `classes` of them, minor numbers 1 to `classes`, for
    /// `tc class show` and for filters to name.
    pub fn set_classes(&mut self, classes: u32) {
        // SAFETY: the qdisc is valid (type invariant); a plain store the shim makes with
        // WRITE_ONCE, read with READ_ONCE under RTNL.
        unsafe { bindings::ecnsharp_shim_set_classes(self.as_ptr(), classes) }
    }

    /// What the qdisc's tc filters say of `skb` (or its `priority`, when that names one of our
    /// classes). Enqueue only (RCU-bh read side and root lock, as the stack calls it).
    #[inline]
    pub fn classify(&mut self, skb: &Skb) -> FilterVerdict {
        // The two common verdicts without a call, as the shim would reach them: a priority
        // naming one of our classes, and no filter attached.
        let l = layout();
        let priority = skb.priority();
        // SAFETY: the qdisc is valid (type invariant); `handle` is a u32, and the shim's
        // `filter_list` a pointer that filters change under RTNL: only tested against null
        // here (as `rcu_access_pointer`), the shim dereferences it under RCU.
        let (handle, no_filters) = unsafe {
            (
                *field::<_, u32>(self.as_ptr(), l.qdisc_handle),
                core::ptr::read_volatile(field::<_, *const u8>(self.as_ptr(), l.qdisc_filters))
                    .is_null(),
            )
        };
        if priority & 0xffff_0000 == handle {
            return match priority & 0xffff {
                0 => FilterVerdict::None,
                minor => FilterVerdict::Class(minor),
            };
        }
        if no_filters {
            return FilterVerdict::None;
        }
        // SAFETY: the qdisc and skb are valid (type invariants); enqueue runs in the stack's
        // rcu_read_lock_bh section, which the filter list's RCU needs.
        let v = unsafe { bindings::ecnsharp_shim_classify(skb.as_ptr(), self.as_ptr()) };
        match v {
            bindings::ECNSHARP_SHIM_CLASSIFY_DROP => FilterVerdict::Drop,
            bindings::ECNSHARP_SHIM_CLASSIFY_STOLEN => FilterVerdict::Stolen,
            minor => match u32::try_from(minor) {
                Ok(minor) if minor > 0 => FilterVerdict::Class(minor),
                _ => FilterVerdict::None,
            },
        }
    }

    /// Counts a "not yet" from a rate limiter (`qstats.overlimits`).
    pub fn overlimit(&mut self) {
        // SAFETY: the qdisc is valid and locked (type invariant).
        unsafe { bindings::ecnsharp_shim_overlimit(self.as_ptr()) }
    }

    /// Arms the qdisc watchdog: the stack calls dequeue again at `expires_ns`
    /// (`CLOCK_MONOTONIC`, the clock of [`super::now_ns`]).
    pub fn watchdog_schedule(&mut self, expires_ns: u64) {
        // SAFETY: the qdisc is valid and locked (type invariant); the shim initialised its
        // watchdog in init before any other callback can run.
        unsafe { bindings::ecnsharp_shim_watchdog_schedule(self.as_ptr(), expires_ns) }
    }

    /// Drops a packet taken from the queue: counts it in `drops`, takes it off `qlen` and
    /// `backlog`, frees it, and remembers it for the parents.
    pub fn drop_queued(&mut self, skb: Skb) {
        let len = skb.pkt_len();
        // SAFETY: the qdisc is valid and locked; the skb is valid (its own invariant).
        unsafe { bindings::ecnsharp_shim_removed(self.as_ptr(), skb.as_ptr()) };
        self.pending_drops = self.pending_drops.saturating_add(1);
        self.pending_bytes = self.pending_bytes.saturating_add(len);
        match self.context {
            Context::Data => drop(skb),
            Context::Rtnl => skb.free_rtnl(),
        }
    }

    /// Tells the parents about the drops of this callback (`qdisc_tree_reduce_backlog`).
    pub(crate) fn settle(&mut self) {
        if self.pending_drops == 0 {
            return;
        }
        let n = i32::try_from(self.pending_drops).unwrap_or(i32::MAX);
        let len = i32::try_from(self.pending_bytes).unwrap_or(i32::MAX);
        // SAFETY: the qdisc is valid and locked (type invariant).
        unsafe { bindings::ecnsharp_shim_tree_reduce_backlog(self.as_ptr(), n, len) };
        self.pending_drops = 0;
        self.pending_bytes = 0;
    }
}

/// What the qdisc's tc filters decided for a packet.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum FilterVerdict {
    /// No filter (or none matched): the qdisc classifies the packet itself.
    None,
    /// Class `minor` (`H:minor`).
    Class(u32),
    /// A filter's action dropped it: free it and count a drop ([`ToFree::filter_drop`]).
    Drop,
    /// An action took it over: free our reference without counting a drop.
    Stolen,
}

/// What enqueue did with the packet it was given: the value returned to the stack.
#[must_use]
pub struct Enqueued(pub(crate) EnqueuedKind);

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnqueuedKind {
    /// Queued; `len` bytes were added to the backlog.
    Queued(u32),
    /// A GSO packet of `orig_len` bytes became `packets` queued segments of `bytes` in all.
    Segments {
        packets: u32,
        bytes: u32,
        orig_len: u32,
    },
    /// Dropped through `qdisc_drop` (`NET_XMIT_DROP`), or a filter's verdict.
    Dropped(i32),
}

impl Enqueued {
    /// The packet, `len` bytes long (its [`Skb::pkt_len`] before it was queued), is now in a queue.
    pub fn queued(len: u32) -> Enqueued {
        Enqueued(EnqueuedKind::Queued(len))
    }

    /// A GSO packet of `orig_len` bytes was split and `packets` segments of `bytes` in all are
    /// now queued (the others were dropped through [`ToFree::drop`]). The adapter accounts for
    /// them and tells the parents, which count the one packet they handed us, of the difference.
    pub fn segments(packets: u32, bytes: u32, orig_len: u32) -> Enqueued {
        Enqueued(EnqueuedKind::Segments {
            packets,
            bytes,
            orig_len,
        })
    }
}

/// The list of packets enqueue drops; the stack frees them after releasing the root lock.
///
/// # Invariants
///
/// `to_free` is the valid `to_free` argument of the enqueue callback in progress.
pub struct ToFree<'a> {
    sch: NonNull<bindings::Qdisc>,
    to_free: NonNull<*mut bindings::sk_buff>,
    _borrow: PhantomData<&'a mut ()>,
}

impl<'a> ToFree<'a> {
    /// # Safety
    ///
    /// Both pointers must be the valid arguments of an enqueue callback in progress on `sch`.
    pub(crate) unsafe fn from_raw(
        sch: *mut bindings::Qdisc,
        to_free: *mut *mut bindings::sk_buff,
    ) -> Option<Self> {
        Some(ToFree {
            sch: NonNull::new(sch)?,
            to_free: NonNull::new(to_free)?,
            _borrow: PhantomData,
        })
    }

    /// Frees a packet the filters dropped or stole: a drop is counted in `drops`, a theft is
    /// not; the value tells the parents which (`__NET_XMIT_BYPASS` or `__NET_XMIT_STOLEN`).
    pub fn filter_drop(&mut self, skb: Skb, stolen: bool) -> Enqueued {
        // SAFETY: the pointers are valid (type invariant); the shim hands the only reference
        // to the skb to the to_free list.
        let ret = unsafe {
            bindings::ecnsharp_shim_filter_drop(
                skb.into_raw(),
                self.sch.as_ptr(),
                self.to_free.as_ptr(),
                i32::from(stolen),
            )
        };
        Enqueued(EnqueuedKind::Dropped(ret))
    }

    /// Drops the arriving packet (`qdisc_drop`: counted in `drops`, freed later by the stack).
    pub fn drop(&mut self, skb: Skb) -> Enqueued {
        // SAFETY: the pointers are valid (type invariant); `qdisc_drop` takes over the only
        // reference to the skb.
        let ret = unsafe {
            bindings::ecnsharp_shim_qdisc_drop(
                skb.into_raw(),
                self.sch.as_ptr(),
                self.to_free.as_ptr(),
            )
        };
        Enqueued(EnqueuedKind::Dropped(ret))
    }
}
