//! `ecnsharp-tc`: configure and inspect the ecnsharp qdisc with tc's syntax, without a tc plugin.
//!
//! `ecnsharp-tc [-s] [-j] qdisc add|change|replace|del|show dev DEV [root | parent X:Y]
//! [handle H:] [OPTIONS]` speaks rtnetlink as `tc` does, with the option grammar, uapi and
//! report of the core crate; `ecnsharp-tc tune` prints the ECN# paper's rule of thumb (§3.4).
//! See docs/tc.md.

mod cli;
mod json;
mod netlink;
mod show;
mod tune;

fn main() {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let mut socket = netlink::Socket::default();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = cli::run(&args, &mut socket, &mut stdout.lock(), &mut stderr.lock());
    std::process::exit(code);
}
