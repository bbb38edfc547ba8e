// SPDX-License-Identifier: GPL-2.0

//! The netlink side of a qdisc: its `TCA_OPTIONS` attribute and the extended ack.
//!
//! C header: [`include/net/netlink.h`](srctree/include/net/netlink.h).

use crate::bindings;
use core::ffi::CStr;
use core::marker::PhantomData;
use core::ptr::NonNull;

/// A netlink attribute borrowed from a request (`TCA_OPTIONS`).
///
/// # Invariants
///
/// `ptr` points to a valid attribute whose header and payload stay readable for `'a`.
#[derive(Clone, Copy)]
pub struct NlAttr<'a> {
    ptr: NonNull<bindings::nlattr>,
    _borrow: PhantomData<&'a [u8]>,
}

impl<'a> NlAttr<'a> {
    /// # Safety
    ///
    /// A non-null `ptr` must point to a valid, validated (length within the message) attribute
    /// that stays readable for `'a`.
    pub(crate) unsafe fn from_raw(ptr: *const bindings::nlattr) -> Option<Self> {
        // INVARIANT: guaranteed by the caller.
        NonNull::new(ptr.cast_mut()).map(|ptr| NlAttr {
            ptr,
            _borrow: PhantomData,
        })
    }

    /// The payload: for a nest, the nested attributes.
    pub fn payload(&self) -> &'a [u8] {
        // SAFETY: the attribute is valid (type invariant).
        let len = unsafe { bindings::ecnsharp_shim_nla_len(self.ptr.as_ptr()) };
        // SAFETY: the attribute is valid (type invariant).
        let data = unsafe { bindings::ecnsharp_shim_nla_data(self.ptr.as_ptr()) };
        let len = usize::try_from(len).unwrap_or(0);
        if data.is_null() || len == 0 {
            return &[];
        }
        // SAFETY: rtnetlink validated that `len` payload bytes follow the header inside the
        // message, which outlives `'a` (type invariant).
        unsafe { core::slice::from_raw_parts(data.cast::<u8>(), len) }
    }

    /// Whether the sender flagged the attribute as a nest (`NLA_F_NESTED`).
    pub fn is_nested(&self) -> bool {
        // SAFETY: the attribute is valid (type invariant).
        unsafe { bindings::ecnsharp_shim_nla_is_nested(self.ptr.as_ptr()) != 0 }
    }

    /// The attribute that starts `offset` bytes into this one's payload, for pointing an error at
    /// it; `None` unless a whole attribute (header and the payload it announces) lies there.
    pub fn nested_at(&self, offset: usize) -> Option<NlAttr<'a>> {
        let payload = self.payload();
        if !crate::uapi::whole_attr_at(payload, offset) {
            return None;
        }
        let ptr = payload.get(offset..)?.as_ptr().cast::<bindings::nlattr>();
        // SAFETY: a whole attribute, header and announced payload, lies inside this one's
        // payload, which is readable for `'a` (type invariant).
        unsafe { NlAttr::from_raw(ptr) }
    }

    pub(crate) fn as_ptr(&self) -> *const bindings::nlattr {
        self.ptr.as_ptr()
    }
}

/// The extended ack of a request: where a configuration error is explained to the user.
///
/// # Invariants
///
/// `ptr` is null or points to the request's valid `struct netlink_ext_ack` for `'a`.
pub struct ExtAck<'a> {
    ptr: *mut bindings::netlink_ext_ack,
    _borrow: PhantomData<&'a mut ()>,
}

impl<'a> ExtAck<'a> {
    /// # Safety
    ///
    /// `ptr` must be null or the valid extack of the request in progress.
    pub(crate) unsafe fn from_raw(ptr: *mut bindings::netlink_ext_ack) -> Self {
        // INVARIANT: guaranteed by the caller.
        ExtAck {
            ptr,
            _borrow: PhantomData,
        }
    }

    /// Sets the error message, pointing at `attr` if given (`NL_SET_ERR_MSG_ATTR_POL_FMT`, which
    /// copies the text into the extack: at most 79 bytes, which uapi's tests keep every message
    /// within).
    pub fn set(&mut self, attr: Option<&NlAttr<'_>>, msg: &'static CStr) {
        let attr = attr.map_or(core::ptr::null(), NlAttr::as_ptr);
        // SAFETY: the extack is null or valid (type invariant); `msg` is a NUL-terminated string,
        // read only during the call (the shim copies it).
        unsafe { bindings::ecnsharp_shim_extack(self.ptr, attr, msg.as_ptr()) }
    }
}
