// SPDX-License-Identifier: GPL-2.0-only
//! The built `ecnsharp-tc` binary itself: what scripts and packagers run.

use std::process::Command;

fn ecnsharp_tc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ecnsharp-tc"))
        .args(args)
        .output()
        .expect("ecnsharp-tc runs")
}

#[test]
fn tune_help_exits_0() {
    let out = ecnsharp_tc(&["tune", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for word in [
        "--rate <RATE>",
        "--rtt-avg <TIME>",
        "--rtt-p90 <TIME>",
        "--json",
    ] {
        assert!(text.contains(word), "{word}: {text}");
    }
    assert!(out.stderr.is_empty());
}

#[test]
fn tune_usage_error_exits_255() {
    let out = ecnsharp_tc(&["tune", "--rate", "fast"]);
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad rate \"fast\""));
}

#[test]
fn completion_scripts() {
    for shell in ["bash", "zsh", "fish"] {
        let out = ecnsharp_tc(&["completion", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("ecnsharp-tc"));
    }
}
