// SPDX-License-Identifier: GPL-2.0

//! sch_ecnsharp: the ECN# queueing discipline (bring-up skeleton: proves the mixed Rust + C
//! module, bindgen from our Kbuild, and loading in the bench; the qdisc itself comes next).

use kernel::prelude::*;

#[allow(
    dead_code,
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    unreachable_pub,
    clippy::all
)]
mod bindings {
    include!("shim_bindings.rs");
}

module! {
    type: EcnSharpModule,
    name: "sch_ecnsharp",
    author: "ecnsharp developers",
    description: "ECN# queueing discipline: instantaneous and persistent-queue ECN marking",
    license: "GPL",
    alias: ["net-sch-ecnsharp"],
}

struct EcnSharpModule;

impl kernel::Module for EcnSharpModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: `ecnsharp_shim_abi` takes no arguments and only returns a constant.
        let abi = unsafe { bindings::ecnsharp_shim_abi() };
        if abi != bindings::ECNSHARP_SHIM_ABI {
            return Err(EINVAL);
        }
        pr_info!("loaded (shim ABI {})\n", abi);
        Ok(EcnSharpModule)
    }
}

impl Drop for EcnSharpModule {
    fn drop(&mut self) {
        pr_info!("unloaded\n");
    }
}
