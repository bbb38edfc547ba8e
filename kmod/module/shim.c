// SPDX-License-Identifier: GPL-2.0
/* C helpers for sch_ecnsharp: static inlines and macros of the qdisc API, wrapped as functions. */
#include <linux/kernel.h>
#include "shim.h"

unsigned int ecnsharp_shim_abi(void)
{
	return ECNSHARP_SHIM_ABI;
}
