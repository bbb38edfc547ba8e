// SPDX-License-Identifier: GPL-2.0-only
//! `ecnsharp-tc`: configure and inspect the ecnsharp qdisc with tc's syntax, without a tc plugin.
//!
//! `ecnsharp-tc [-s] [-j] [-p] [-n NETNS] qdisc add|change|replace|del|show dev DEV
//! [root | parent X:Y] [handle H:] [OPTIONS]` speaks rtnetlink as `tc` does, with the option
//! grammar, uapi and report of the core crate; `ecnsharp-tc tune` prints the ECN# paper's rule
//! of thumb (§3.4); `ecnsharp-tc completion SHELL` its shell completion. See docs/tc.md and
//! ecnsharp-tc(8).

mod class;
mod cli;
mod command;
mod json;
mod netlink;
mod netns;
mod pretty;
mod show;
mod tune;

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let (mut out, mut err) = (stdout.lock(), stderr.lock());
    let socket = netlink::Socket::default();
    // ECNSHARP_TC_RECORD=FILE: keep what the kernel answers (see docs/tc.md).
    let code = match std::env::var_os("ECNSHARP_TC_RECORD") {
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
        {
            Ok(file) => {
                let mut nl = netlink::Recording {
                    inner: socket,
                    file,
                };
                cli::run(&args, &mut nl, &mut out, &mut err)
            }
            Err(e) => {
                eprintln!("ECNSHARP_TC_RECORD: {}: {e}", path.to_string_lossy());
                cli::EXIT_SYNTAX
            }
        },
        None => cli::run(&args, &mut { socket }, &mut out, &mut err),
    };
    drop((out, err));
    std::process::exit(code);
}
