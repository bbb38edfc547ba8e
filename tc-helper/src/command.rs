// SPDX-License-Identifier: GPL-2.0-only
//! The whole command line of `ecnsharp-tc` described to clap, for shell completion
//! (`ecnsharp-tc completion bash|zsh|fish`, clap_complete) and for the man page's test.
//!
//! Only `tune` is parsed by clap: `qdisc` keeps tc's own grammar (prefixes such as `q s`,
//! single-dash long flags such as `-stats`), which clap does not speak; here it is described
//! just well enough to complete its words.

use clap::{Arg, ArgAction, Command, CommandFactory};
use clap_complete::Shell;
use ecnsharp::options::KEYWORDS;

use crate::tune::TuneArgs;

/// The words that may follow `qdisc VERB`: where, then the qdisc's options.
fn qdisc_words(with_options: bool) -> Vec<&'static str> {
    let mut words = vec!["dev", "root", "parent", "handle"];
    if with_options {
        words.push("ecnsharp");
        words.extend(KEYWORDS);
    }
    words
}

/// One verb of `qdisc` or `class` and the words it completes.
fn verb(name: &'static str, about: &'static str, words: Vec<&'static str>) -> Command {
    Command::new(name).about(about).arg(
        Arg::new("words")
            .num_args(0..)
            .trailing_var_arg(true)
            .value_parser(words)
            .hide_possible_values(true),
    )
}

/// `ecnsharp-tc` as clap sees it.
pub fn command() -> Command {
    let flag = |id: &'static str, short: char, help: &'static str| {
        Arg::new(id)
            .short(short)
            .long(id)
            .action(ArgAction::SetTrue)
            .help(help)
    };
    Command::new("ecnsharp-tc")
        .version(env!("CARGO_PKG_VERSION"))
        .about(
            "Configure and inspect the ecnsharp qdisc with tc's syntax, and derive its parameters",
        )
        .arg(flag("stats", 's', "Show statistics (-stats)"))
        .arg(flag("json", 'j', "Print JSON (-json)"))
        .arg(flag(
            "pretty",
            'p',
            "Indent JSON as tc -p -j does (-pretty)",
        ))
        .arg(flag("details", 'd', "Show details (-details), as tc"))
        .arg(
            Arg::new("netns")
                .short('n')
                .long("netns")
                .value_name("NETNS")
                .help("Run in network namespace NETNS (-netns), as tc -n"),
        )
        .subcommand(
            Command::new("qdisc")
                .about("Add, change, replace, delete or show ecnsharp qdiscs")
                .subcommand(verb("add", "Add a qdisc", qdisc_words(true)))
                .subcommand(verb(
                    "change",
                    "Change a qdisc's options",
                    qdisc_words(true),
                ))
                .subcommand(verb("replace", "Add or replace a qdisc", qdisc_words(true)))
                .subcommand(verb("del", "Delete a qdisc", qdisc_words(false)))
                .subcommand(verb("show", "Show qdiscs", qdisc_words(false))),
        )
        .subcommand(
            Command::new("class")
                .about("Show an ecnsharp qdisc's classes, one per band")
                // `class show` takes only `dev DEV` (class.rs).
                .subcommand(verb("show", "Show classes", vec!["dev"])),
        )
        .subcommand(TuneArgs::command())
        .subcommand(
            Command::new("completion")
                .about("Print a shell completion script")
                .arg(
                    Arg::new("shell")
                        .required(true)
                        .value_parser(clap::value_parser!(Shell)),
                ),
        )
}

/// The completion script for `shell` (a name clap_complete knows), or `None`.
pub fn completion(shell: &str) -> Option<String> {
    let shell: Shell = shell.parse().ok()?;
    let mut cmd = command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "ecnsharp-tc", &mut out);
    let script = String::from_utf8(out).ok()?;
    // clap_complete's bash script names the states of a hyphenated program two ways: the walk
    // over the words sets `ecnsharp__tc__subcmd__qdisc`, the case that completes matches
    // `ecnsharp__subcmd__tc__subcmd__qdisc`, so nothing past the first word completed
    // (clap-rs/clap#6421). One name for both.
    Some(match shell {
        Shell::Bash => script.replace("ecnsharp__subcmd__tc", "ecnsharp__tc"),
        _ => script,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_a_valid_command() {
        command().debug_assert();
    }

    #[test]
    fn completions_name_the_words() {
        for shell in ["bash", "zsh", "fish"] {
            let script = completion(shell).unwrap();
            for word in ["qdisc", "tune", "rtt-p90", "netns", "completion"] {
                assert!(script.contains(word), "{shell}: {word}");
            }
        }
        // bash completes the qdisc's options after `qdisc add` (fish and zsh: the verbs).
        let bash = completion("bash").unwrap();
        for kw in KEYWORDS {
            assert!(
                bash.contains(&format!(" {kw} ")) || bash.contains(&format!(" {kw}\"")),
                "{kw}"
            );
        }
        assert!(completion("tcsh").is_none());
    }

    /// What bash offers after `ecnsharp-tc WORDS... CUR`, from the script itself.
    fn bash_offers(words: &[&str], cur: &str) -> Vec<String> {
        let script = completion("bash").unwrap();
        let line: Vec<&str> = std::iter::once("ecnsharp-tc")
            .chain(words.iter().copied())
            .chain(std::iter::once(cur))
            .collect();
        let prev = line[line.len() - 2];
        let run = format!(
            "{script}\nCOMP_WORDS=({}); COMP_CWORD={}; _ecnsharp__tc ecnsharp-tc '{cur}' '{prev}'; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            line.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            line.len() - 1,
        );
        let out = std::process::Command::new("bash")
            .args(["--norc", "-c", &run])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// bash completes past the first word: verbs, the qdisc's options, tune's flags, and
    /// only `dev` after `class show`.
    #[test]
    fn bash_completes_every_level() {
        let verbs = bash_offers(&["qdisc"], "");
        for v in ["add", "change", "replace", "del", "show"] {
            assert!(verbs.iter().any(|w| w == v), "qdisc: {verbs:?}");
        }
        let words = bash_offers(&["qdisc", "add"], "");
        for w in ["dev", "root", "pst_target", "ins_target", "rate"] {
            assert!(words.iter().any(|x| x == w), "qdisc add: {words:?}");
        }
        assert_eq!(bash_offers(&["tune"], "--tr"), ["--transport"]);
        let class = bash_offers(&["class", "show"], "");
        let words: Vec<&String> = class.iter().filter(|w| !w.starts_with('-')).collect();
        assert_eq!(words, ["dev"], "class show: {class:?}");
    }

    /// ecnsharp-tc(8) documents every flag, subcommand and tune option clap knows.
    #[test]
    fn man_page_documents_every_argument() {
        let man = include_str!("../../man/ecnsharp-tc.8");
        let dashed = |s: &str| s.replace('-', "\\-");
        let cmd = command();
        for arg in cmd.get_arguments() {
            if let Some(long) = arg.get_long() {
                let short = arg.get_short().unwrap_or('?');
                assert!(
                    man.contains(&format!("\\-{short}")) && man.contains(&format!("\\-{long}")),
                    "-{short} / -{long}"
                );
            }
        }
        for sub in cmd.get_subcommands() {
            assert!(man.contains(sub.get_name()), "{}", sub.get_name());
        }
        let tune = cmd.find_subcommand("tune").unwrap();
        for arg in tune.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(
                    man.contains(&format!(".BI \\-\\-{} ", dashed(long)))
                        || man.contains(&format!(".BR \\-\\-{} ", dashed(long)))
                        || man.contains(&format!(".BR \\-j \", \" \\-\\-{}", dashed(long)))
                        || man.contains(&format!(".BR \\-h \", \" \\-\\-{}", dashed(long)))
                        || man.contains(&format!(".TP\n\\fB\\-\\-{}\\fR ", dashed(long))),
                    "tune --{long} has no entry"
                );
            }
        }
    }
}
