/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C side of sch_ecnsharp, as seen from Rust: bindgen reads this header alone. It names
 * kernel structs only as opaque pointers and uses plain C integer types, so the generated
 * bindings need no kernel headers and cannot drift from shim.c, which includes both.
 */
#ifndef ECNSHARP_SHIM_H
#define ECNSHARP_SHIM_H

/* Bumped when a prototype below changes meaning. */
#define ECNSHARP_SHIM_ABI 1

unsigned int ecnsharp_shim_abi(void);

#endif /* ECNSHARP_SHIM_H */
