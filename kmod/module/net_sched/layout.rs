// SPDX-License-Identifier: GPL-2.0

//! The fields the data path touches on every packet, reached through the offsets the shim
//! computed (`struct ecnsharp_shim_layout`, shim.h) with a load or a store each instead of an
//! out-of-line call each (a dozen per packet before; docs/results/bench.md).

use crate::bindings;
use core::ffi::c_ulong;

/// The offsets, as the shim filled them.
#[inline(always)]
pub(crate) fn layout() -> &'static bindings::ecnsharp_shim_layout {
    // SAFETY: the shim fills the layout in `ecnsharp_shim_register`, before the qdisc kind is
    // registered, so before any callback of a qdisc of ours can run (the only callers), and
    // never writes it again: a shared reference to it is never aliased by a write.
    unsafe { &*core::ptr::addr_of!(bindings::ecnsharp_shim_layout) }
}

/// The field `offset` bytes into the struct at `base`, as a `T`.
///
/// # Safety
///
/// `base` must point to a live struct of the kind `offset` was computed for (a field of
/// [`layout`] for that struct), whose field at `offset` is a `T`, suitably aligned (the shim
/// checks the sizes and alignments at build time).
#[inline(always)]
pub(crate) unsafe fn field<S, T>(base: *const S, offset: c_ulong) -> *mut T {
    // SAFETY: the caller guarantees that the field lies within the struct at `base`.
    unsafe {
        base.cast::<u8>()
            .add(offset as usize)
            .cast_mut()
            .cast::<T>()
    }
}
