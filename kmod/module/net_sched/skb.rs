// SPDX-License-Identifier: GPL-2.0

//! Packets owned by a qdisc.
//!
//! C header: [`include/linux/skbuff.h`](srctree/include/linux/skbuff.h). A qdisc holds the only
//! reference to each queued packet; [`Skb`] encodes that ownership so a packet is always queued,
//! handed back to the stack, or freed: dropping an [`Skb`] frees it, and [`SkbFifo`] frees what it
//! still holds when it is dropped.

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
    pub fn pkt_len(&self) -> u32 {
        // SAFETY: by the type invariant the skb is valid.
        unsafe { bindings::ecnsharp_shim_skb_len(self.as_ptr()) }
    }

    /// `skb->priority`.
    pub fn priority(&self) -> u32 {
        // SAFETY: by the type invariant the skb is valid.
        unsafe { bindings::ecnsharp_shim_skb_priority(self.as_ptr()) }
    }

    /// The DS field (DSCP and ECN bits) of an IPv4 or IPv6 packet, or `None` for other protocols
    /// or a header that cannot be pulled.
    pub fn dsfield(&mut self) -> Option<u8> {
        // SAFETY: by the type invariant the skb is valid and ours to modify (it may be pulled).
        let ds = unsafe { bindings::ecnsharp_shim_skb_dsfield(self.as_ptr()) };
        u8::try_from(ds).ok()
    }

    /// Sets CE on an ECT(0) or ECT(1) IPv4/IPv6 packet, fixing the IPv4 checksum
    /// (`INET_ECN_set_ce`). Returns whether the packet now carries a mark we set.
    pub fn set_ce(&mut self) -> bool {
        // SAFETY: by the type invariant the skb is valid and ours to modify.
        unsafe { bindings::ecnsharp_shim_skb_set_ce(self.as_ptr()) != 0 }
    }

    /// The enqueue time kept in the qdisc control block.
    pub fn enqueue_time(&self) -> u64 {
        // SAFETY: by the type invariant the skb is valid.
        unsafe { bindings::ecnsharp_shim_skb_time(self.as_ptr()) }
    }

    /// Stores the enqueue time in the qdisc control block.
    pub fn set_enqueue_time(&mut self, now_ns: u64) {
        // SAFETY: by the type invariant the skb is valid and ours to modify.
        unsafe { bindings::ecnsharp_shim_skb_set_time(self.as_ptr(), now_ns) }
    }

    /// The qdisc's own bits kept in the control block beside the enqueue time.
    pub fn note(&self) -> u8 {
        // SAFETY: by the type invariant the skb is valid.
        unsafe { bindings::ecnsharp_shim_skb_note(self.as_ptr()) }
    }

    /// Stores the qdisc's own bits in the control block.
    pub fn set_note(&mut self, note: u8) {
        // SAFETY: by the type invariant the skb is valid and ours to modify.
        unsafe { bindings::ecnsharp_shim_skb_set_note(self.as_ptr(), note) }
    }

    /// Whether this is a GSO super-packet (several segments in one skb).
    pub fn is_gso(&self) -> bool {
        // SAFETY: by the type invariant the skb is valid.
        unsafe { bindings::ecnsharp_shim_skb_is_gso(self.as_ptr()) != 0 }
    }

    /// Segments a GSO packet in software (`skb_gso_segment`, for the device's features), each
    /// segment with its own queueing length. On failure the packet is handed back unchanged.
    pub fn gso_segment(self) -> Result<SkbList, Skb> {
        // SAFETY: we own the only reference; on success the shim consumed it and returned a
        // list of new skbs whose only references are ours; on failure it did not touch it.
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
    pub fn push(&mut self, skb: Skb) {
        // SAFETY: the FIFO is valid by its invariant and takes over the only reference to `skb`.
        // INVARIANT: the chain now ends at this skb, owned by the FIFO.
        unsafe { bindings::ecnsharp_shim_fifo_push(&mut self.fifo, skb.into_raw()) }
    }

    /// Removes the first packet.
    pub fn pop(&mut self) -> Option<Skb> {
        // SAFETY: the FIFO is valid by its invariant.
        let ptr = unsafe { bindings::ecnsharp_shim_fifo_pop(&mut self.fifo) };
        // SAFETY: a popped skb is valid, unlinked, and its only reference is now ours.
        unsafe { Skb::from_raw(ptr) }
    }

    /// The length of the first packet, without removing it.
    pub fn head_len(&self) -> Option<u32> {
        let head = self.fifo.head;
        if head.is_null() {
            None
        } else {
            // SAFETY: a non-null head is a valid skb owned by the FIFO (type invariant).
            Some(unsafe { bindings::ecnsharp_shim_skb_len(head) })
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
