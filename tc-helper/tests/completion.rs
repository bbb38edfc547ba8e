// SPDX-License-Identifier: GPL-2.0-only
//! completions/tc-ecnsharp.bash, the extension of tc's bash completion, against the grammar:
//! it offers every keyword and every named value (and nothing else), and it works when loaded
//! the way bash-completion loads it, over iproute2's own completion of tc.

use std::path::PathBuf;
use std::process::Command;

use ecnsharp::options::{keyword_values, KEYWORDS};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../completions/tc-ecnsharp.bash")
}

/// What bash completes for `line` (a `tc ...` command line, the cursor at its end).
fn complete(line: &str) -> Vec<String> {
    let driver = r#"
. /usr/share/bash-completion/bash_completion || exit 3
. "$1" || exit 4
COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
read -ra COMP_WORDS <<<"$2"
[[ $2 == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
f=$(complete -p tc | awk '{ print $(NF-1) }')
$f tc "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let out = Command::new("bash")
        .args(["-c", driver, "driver"])
        .arg(script())
        .arg(line)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "bash-completion and iproute2's tc completion are needed (tests/vm/deps.sh installs \
         them): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect();
    words.sort();
    words
}

fn sorted(words: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    v.sort();
    v
}

#[test]
fn offers_every_keyword_and_value() {
    assert_eq!(
        complete("tc qdisc add dev eth0 root ecnsharp "),
        sorted(&KEYWORDS)
    );
    for kw in KEYWORDS {
        let want = keyword_values(kw);
        let got = complete(&format!("tc qdisc change dev eth0 root ecnsharp {kw} "));
        assert_eq!(got, sorted(want), "values of {kw}");
    }
}

#[test]
fn works_inside_tcs_own_completion() {
    // Options already given are not offered again, as for tc's other qdiscs.
    let got = complete("tc qdisc add dev eth0 root ecnsharp limit 5 p");
    assert_eq!(
        got,
        sorted(&["pst_target", "pst_interval", "pmax", "priomap"])
    );
    // ecnsharp is among the kinds, and the other kinds still complete as before.
    assert!(complete("tc qdisc add dev eth0 root ecn").contains(&"ecnsharp".to_string()));
    assert!(complete("tc qdisc add dev eth0 root fq_codel ").contains(&"target".to_string()));
}
