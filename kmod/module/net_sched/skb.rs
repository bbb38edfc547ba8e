// SPDX-License-Identifier: GPL-2.0

//! Packets owned by a qdisc.
//!
//! C header: [`include/linux/skbuff.h`](srctree/include/linux/skbuff.h). A qdisc holds the only
//! reference to each queued packet; [`Skb`] encodes that ownership so a packet is always queued,
//! handed back to the stack, or freed: dropping an [`Skb`] frees it, and [`SkbFifo`] frees what it
//! still holds when it is dropped.

use super::layout::{field, layout};
use crate::bindings;
use core::ptr::NonNull;

/// An owned socket buffer.
///
/// # Invariants
///
/// `ptr` points to a valid `struct sk_buff` that this value owns exclusively (one reference, on
/// no list) for as long as it lives.
pub struct Skb {
    ptr: NonNull<bindings::sk_buff>,
}

// SAFETY: an `Skb` is exclusively owned; the kernel moves skbs between CPUs freely.
unsafe impl Send for Skb {}

impl Skb {
    /// Takes ownership of `ptr`, or returns `None` for a null pointer.
    ///
    /// # Safety
    ///
    /// A non-null `ptr` must point to a valid skb whose only reference the caller hands over,
    /// not linked on any list.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::sk_buff) -> Option<Skb> {
        // INVARIANT: the caller hands over the only reference to a valid skb.
        NonNull::new(ptr).map(|ptr| Skb { ptr })
    }

    /// Gives up ownership and returns the raw pointer (to the stack, or to a C list).
    pub(crate) fn into_raw(self) -> *mut bindings::sk_buff {
        let ptr = self.ptr.as_ptr();
        core::mem::forget(self);
        ptr
    }

    /// Borrows the raw pointer for a C call that neither keeps nor frees it.
    pub(crate) fn as_ptr(&self) -> *mut bindings::sk_buff {
        self.ptr.as_ptr()
    }

    /// Length for queue accounting (`qdisc_pkt_len`: the wire length, size tables applied).
    #[inline]
    pub fn pkt_len(&self) -> u32 {
        // SAFETY: by the type invariant the skb is valid; `qdisc_skb_cb(skb)->pkt_len` is a u32.
        unsafe { *field::<_, u32>(self.as_ptr(), layout().skb_pkt_len) }
    }

    /// `skb->priority`.
    #[inline]
    pub fn priority(&self) -> u32 {
        // SAFETY: by the type invariant the skb is valid; `priority` is a u32.
        unsafe { *field::<_, u32>(self.as_ptr(), layout().skb_priority) }
    }

    /// The DS field (DSCP and ECN bits) of an IPv4 or IPv6 packet, or `None` for other protocols
    /// or a header that cannot be pulled.
    pub fn dsfield(&mut self) -> Option<u8> {
        // SAFETY: by the type invariant the skb is valid and ours to modify (it may be pulled).
        let ds = unsafe { bindings::ecnsharp_shim_skb_dsfield(self.as_ptr()) };
        u8::try_from(ds).ok()
    }

    /// Sets CE on an ECT(0) or ECT(1) IPv4/IPv6 packet, fixing the IPv4 checksum
    /// (`INET_ECN_set_ce`). Returns whether the packet now carries CE (also when it came with CE).
    pub fn set_ce(&mut self) -> bool {
        // SAFETY: by the type invariant the skb is valid and ours to modify.
        unsafe { bindings::ecnsharp_shim_skb_set_ce(self.as_ptr()) != 0 }
    }

    /// What the qdisc keeps in the control block of a queued packet: the enqueue time, its own
    /// note, and the ECN field as it left it (nothing else changes a queued packet, so dequeue
    /// need not parse the header again).
    #[inline]
    pub fn cb(&self) -> SkbCb {
        let l = layout();
        // SAFETY: by the type invariant the skb is valid; the qdisc's part of its control block
        // holds an aligned u64 and two bytes at these offsets (shim.c, struct ecnsharp_skb_cb).
        unsafe {
            SkbCb {
                enqueue_time: *field::<_, u64>(self.as_ptr(), l.skb_time),
                note: *field::<_, u8>(self.as_ptr(), l.skb_note),
                ecn: *field::<_, u8>(self.as_ptr(), l.skb_ecn),
            }
        }
    }

    /// Stores [`Skb::cb`].
    #[inline]
    pub fn set_cb(&mut self, cb: SkbCb) {
        let l = layout();
        // SAFETY: as in `cb`, and the skb is ours to modify.
        unsafe {
            *field::<_, u64>(self.as_ptr(), l.skb_time) = cb.enqueue_time;
            *field::<_, u8>(self.as_ptr(), l.skb_note) = cb.note;
            *field::<_, u8>(self.as_ptr(), l.skb_ecn) = cb.ecn;
        }
    }

    /// A `u16` field of the packet's `skb_shinfo()`, at `offset` in `struct skb_shared_info`.
    #[inline]
    fn shinfo_u16(&self, offset: core::ffi::c_ulong) -> u16 {
        let l = layout();
        let skb = self.as_ptr();
        // SAFETY: by the type invariant the skb is valid; `skb_shinfo(skb)` is at `head + end`
        // (`end` a u32 offset on 64-bit, checked by shim.c), and `offset` is one of its u16
        // fields (`gso_size`, `gso_segs`, their sizes checked by shim.c).
        unsafe {
            let head = *field::<_, *const u8>(skb, l.skb_head);
            let end = *field::<_, u32>(skb, l.skb_end);
            let shinfo = head.add(end as usize);
            *field::<_, u16>(shinfo, offset)
        }
    }

    /// Whether this is a GSO super-packet (several segments in one skb): `skb_is_gso`.
    #[inline]
    pub fn is_gso(&self) -> bool {
        self.shinfo_u16(layout().shinfo_gso_size) != 0
    }

    /// The packets it counts as in the kernel's byte and packet counters: `gso_segs` for a GSO
    /// packet, else 1, as `qdisc_bstats_update` counts them (0 for a GSO packet whose segments
    /// the stack has not counted yet, as an `AF_PACKET` sender's unverified ones).
    #[inline]
    pub fn wire_segs(&self) -> u32 {
        if self.is_gso() {
            u32::from(self.shinfo_u16(layout().shinfo_gso_segs))
        } else {
            1
        }
    }

    /// Segments a GSO packet in software (`skb_gso_segment`, for the device's features), each
    /// segment with its own queueing length. On failure the packet is handed back, still valid
    /// and ours (the kernel may have unshared its header or rewritten its `gso_segs`).
    pub fn gso_segment(self) -> Result<SkbList, Skb> {
        // SAFETY: we own the only reference; on success the shim consumed it and returned a
        // list of new skbs whose only references are ours; on failure the skb is still valid and
        // ours alone.
        let segs = unsafe { bindings::ecnsharp_shim_gso_segment(self.as_ptr()) };
        if segs.is_null() {
            return Err(self);
        }
        core::mem::forget(self);
        // INVARIANT: a fresh list of segments, owned by us alone.
        Ok(SkbList { head: segs })
    }

    /// Frees the packet at a point where RTNL is held (change, destroy): the free is deferred to
    /// the RTNL unlock, so it never runs under the qdisc tree lock.
    pub(crate) fn free_rtnl(self) {
        // SAFETY: we own the only reference; `rtnl_kfree_skbs` takes it.
        unsafe { bindings::ecnsharp_shim_skb_free_rtnl(self.into_raw()) }
    }
}

/// The qdisc's part of a queued packet's control block ([`Skb::cb`]).
#[derive(Clone, Copy)]
pub struct SkbCb {
    /// When it was queued (`CLOCK_MONOTONIC` ns).
    pub enqueue_time: u64,
    /// The qdisc's own bits.
    pub note: u8,
    /// The DS field's ECN bits as the qdisc left them.
    pub ecn: u8,
}

impl Drop for Skb {
    fn drop(&mut self) {
        // SAFETY: by the type invariant we own the only reference, which is given up here.
        unsafe { bindings::ecnsharp_shim_skb_free(self.ptr.as_ptr()) }
    }
}

/// Packets linked through `skb->next`, owned (the segments of a GSO packet): popped one at a
/// time, the rest freed when the list is dropped.
///
/// # Invariants
///
/// `head` is null or the first of a `next`-linked, null-terminated chain of valid skbs that this
/// list exclusively owns.
pub struct SkbList {
    head: *mut bindings::sk_buff,
}

impl Iterator for SkbList {
    type Item = Skb;

    fn next(&mut self) -> Option<Skb> {
        // SAFETY: the list is valid by its invariant; pop unlinks the first skb.
        let skb = unsafe { bindings::ecnsharp_shim_skb_list_pop(&mut self.head) };
        // SAFETY: a popped skb is valid, unlinked, and its only reference is ours.
        unsafe { Skb::from_raw(skb) }
    }
}

impl Drop for SkbList {
    fn drop(&mut self) {
        for skb in self.by_ref() {
            drop(skb);
        }
    }
}

/// A packet still owned by a queue, lent out for a parent's `peek`: the parent may read it (its
/// length, say) but neither keeps nor frees it; the queue keeps it until a dequeue takes it.
///
/// # Invariants
///
/// `ptr` points to a valid skb owned by the queue this value borrows, for `'a`.
pub struct SkbRef<'a> {
    ptr: NonNull<bindings::sk_buff>,
    _borrow: core::marker::PhantomData<&'a SkbFifo>,
}

impl SkbRef<'_> {
    /// The raw pointer, for the stack's `peek`.
    pub(crate) fn as_ptr(&self) -> *mut bindings::sk_buff {
        self.ptr.as_ptr()
    }
}

/// A FIFO of owned packets, linked through `skb->next` (no allocation).
///
/// # Invariants
///
/// `fifo.head` is null or the first of a `next`-linked chain of valid skbs, each exclusively
/// owned by this FIFO, ending at `fifo.tail`; both are null when it is empty. All-zero is the
/// empty FIFO, so a FIFO in a zero-filled qdisc private area is valid.
#[repr(transparent)]
pub struct SkbFifo {
    fifo: bindings::ecnsharp_shim_fifo,
}

// SAFETY: the FIFO exclusively owns its packets; callers serialise access (qdisc root lock).
unsafe impl Send for SkbFifo {}

impl SkbFifo {
    /// Appends a packet.
    #[inline]
    pub fn push(&mut self, skb: Skb) {
        let next = layout().skb_next;
        let skb = skb.into_raw();
        // SAFETY: `skb` is valid and now ours alone, and so is the tail, if any (FIFO invariant);
        // `next` is their `struct sk_buff *next`.
        // INVARIANT: the chain now ends at this skb, owned by the FIFO.
        unsafe {
            *field::<_, *mut bindings::sk_buff>(skb, next) = core::ptr::null_mut();
            if self.fifo.tail.is_null() {
                self.fifo.head = skb;
            } else {
                *field::<_, *mut bindings::sk_buff>(self.fifo.tail, next) = skb;
            }
        }
        self.fifo.tail = skb;
    }

    /// Removes the first packet.
    #[inline]
    pub fn pop(&mut self) -> Option<Skb> {
        let head = NonNull::new(self.fifo.head)?;
        // SAFETY: a non-null head is a valid skb owned by the FIFO (type invariant), whose
        // `next` is at this offset; unlinked as `skb_mark_not_on_list` does.
        // INVARIANT: the chain now starts at the old head's successor, or is empty.
        unsafe {
            let next = field::<_, *mut bindings::sk_buff>(head.as_ptr(), layout().skb_next);
            self.fifo.head = *next;
            *next = core::ptr::null_mut();
        }
        if self.fifo.head.is_null() {
            self.fifo.tail = core::ptr::null_mut();
        }
        // SAFETY: the popped skb is valid, unlinked, and its only reference is now ours.
        unsafe { Skb::from_raw(head.as_ptr()) }
    }

    /// The length of the first packet, without removing it.
    #[inline]
    pub fn head_len(&self) -> Option<u32> {
        let head = NonNull::new(self.fifo.head)?;
        // SAFETY: a non-null head is a valid skb owned by the FIFO (type invariant); its
        // `qdisc_skb_cb(skb)->pkt_len` is a u32.
        Some(unsafe { *field::<_, u32>(head.as_ptr(), layout().skb_pkt_len) })
    }

    /// What the qdisc keeps in the first packet's control block, the packet left in place.
    pub fn head_cb(&self) -> Option<SkbCb> {
        let head = NonNull::new(self.fifo.head)?;
        let l = layout();
        // SAFETY: a non-null head is a valid skb owned by the FIFO (type invariant); its control
        // block holds the qdisc's aligned u64 and two bytes at these offsets (as `Skb::cb`).
        unsafe {
            Some(SkbCb {
                enqueue_time: *field::<_, u64>(head.as_ptr(), l.skb_time),
                note: *field::<_, u8>(head.as_ptr(), l.skb_note),
                ecn: *field::<_, u8>(head.as_ptr(), l.skb_ecn),
            })
        }
    }

    /// The first packet, left in place.
    pub fn head(&self) -> Option<SkbRef<'_>> {
        // INVARIANT: a non-null head is a valid skb owned by the FIFO, which `'_` borrows.
        NonNull::new(self.fifo.head).map(|ptr| SkbRef {
            ptr,
            _borrow: core::marker::PhantomData,
        })
    }

    /// Whether the FIFO holds no packet.
    pub fn is_empty(&self) -> bool {
        self.fifo.head.is_null()
    }
}

impl Drop for SkbFifo {
    fn drop(&mut self) {
        while let Some(skb) = self.pop() {
            drop(skb);
        }
    }
}
