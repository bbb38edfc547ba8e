// SPDX-License-Identifier: GPL-2.0-only
//! The man pages against the code they document, so they cannot drift: every option of the
//! grammar (`ecnsharp::options::KEYWORDS`) has an entry in tc-ecnsharp(8) whose `Default:` is
//! the default of `Config::DEFAULT` and whose numeric `Bounds:` are exactly what validation
//! accepts; every named value and mode is listed; both pages render without a groff warning,
//! and as written: no sentences run together, no tag cut in two, no reference to a page that does
//! not exist, no path into the sources.

use std::path::PathBuf;
use std::process::Command;

use ecnsharp::config::Config;
use ecnsharp::options::{keyword_values, Options, KEYWORDS};
use ecnsharp::report::{xstats_json, JsonSink, Value};
use ecnsharp::uapi::{decode_xstats, encode_xstats, XstatsBand, XstatsHeader, XSTATS_MAX_SIZE};

fn page(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../man")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lines of the `.TP` entry of option `keyword` in the PARAMETERS section.
fn entry<'a>(man: &'a str, keyword: &str) -> Vec<&'a str> {
    let params = man
        .split_once("\n.SH PARAMETERS\n")
        .and_then(|(_, rest)| rest.split("\n.SH ").next())
        .expect("a PARAMETERS section");
    let lines: Vec<&str> = params.lines().collect();
    let start = lines
        .windows(2)
        .position(|w| {
            w[0] == ".TP"
                && (w[1] == format!(".BI {keyword}")
                    || w[1].starts_with(&format!(".BI {keyword} ")))
        })
        .unwrap_or_else(|| panic!("no .TP/.BI entry for {keyword}"));
    lines[start + 2..]
        .iter()
        .take_while(|l| **l != ".TP")
        .copied()
        .collect()
}

/// The bold words of a `Label: \fB...\fR` line of an entry.
fn bold_after<'a>(lines: &[&'a str], label: &str) -> Option<Vec<&'a str>> {
    let line = lines.iter().find(|l| l.starts_with(label))?;
    Some(
        line.split("\\fB")
            .skip(1)
            .filter_map(|s| s.split_once("\\fR").map(|(b, _)| b))
            .collect(),
    )
}

/// Whether `keyword VALUE...` parses and gives a valid configuration over the defaults.
fn accepted(keyword: &str, value: &str) -> bool {
    let words: Vec<&str> = std::iter::once(keyword)
        .chain(value.split_whitespace())
        .collect();
    Options::parse(words)
        .ok()
        .is_some_and(|o| o.applied(&Config::DEFAULT).is_ok())
}

/// `value` with its leading integer moved by `delta` (`64` -> `63`, `1us` -> `0us`), if it is a
/// whole number that can move.
fn nudged(value: &str, delta: i64) -> Option<String> {
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let rest = &value[digits.len()..];
    if digits.is_empty() || rest.starts_with('.') {
        return None;
    }
    let n: i64 = digits.parse().ok()?;
    let moved = n.checked_add(delta).filter(|m| *m >= 0)?;
    Some(format!("{moved}{rest}"))
}

#[test]
fn every_option_has_its_true_default_and_bounds() {
    let man = page("tc-ecnsharp.8");
    for kw in KEYWORDS {
        let lines = entry(&man, kw);
        let default = bold_after(&lines, "Default:")
            .and_then(|b| b.first().copied())
            .unwrap_or_else(|| panic!("{kw}: no `Default: \\fB...\\fR` line"));
        let parsed = Options::parse(std::iter::once(kw).chain(default.split_whitespace()))
            .unwrap_or_else(|e| panic!("{kw}: default {default:?} does not parse: {e}"));
        let mut cfg = Config::DEFAULT;
        parsed.apply(&mut cfg);
        assert_eq!(
            cfg,
            Config::DEFAULT,
            "{kw}: the page's default {default:?} is not the default"
        );
        let Some(bounds) = bold_after(&lines, "Bounds:") else {
            continue;
        };
        if bounds.len() != 2 {
            continue;
        }
        // A bound naming another option (`tmin` to ...) depends on it: only the other side is
        // checked, against the defaults.
        let (low, high) = (bounds[0], bounds[1]);
        if !KEYWORDS.contains(&low) {
            assert!(accepted(kw, low), "{kw}: lower bound {low} refused");
            if let Some(below) = nudged(low, -1) {
                assert!(
                    !accepted(kw, &below),
                    "{kw}: {below}, below the bounds, accepted"
                );
            }
        }
        if !KEYWORDS.contains(&high) {
            assert!(accepted(kw, high), "{kw}: upper bound {high} refused");
            // The next whole value past the upper bound, in the bound's own unit.
            let above = nudged(high, 1).unwrap_or_else(|| panic!("{kw}: bound {high} not whole"));
            assert!(
                !accepted(kw, &above),
                "{kw}: {above}, above the bounds, accepted"
            );
        }
    }
}

#[test]
fn every_option_value_and_mode_is_listed() {
    let man = page("tc-ecnsharp.8");
    let synopsis = man
        .split_once(".SH SYNOPSIS")
        .and_then(|(_, r)| r.split_once(".SH DESCRIPTION"))
        .map(|(s, _)| s)
        .unwrap();
    for kw in KEYWORDS {
        assert!(
            synopsis.contains(&format!("\" {kw}\"")),
            "{kw} missing from the synopsis"
        );
        for v in keyword_values(kw) {
            let entry = entry(&man, kw).join("\n");
            assert!(
                entry.contains(v) || synopsis.contains(v),
                "{kw} {v} is not documented"
            );
        }
    }
    let modes = man
        .split_once(".SH MODES")
        .and_then(|(_, r)| r.split_once(".SH "))
        .map(|(m, _)| m)
        .unwrap();
    for m in keyword_values("mode") {
        assert!(
            modes.contains(&format!(".B {m}\n")),
            "mode {m} missing from MODES"
        );
    }
}

#[test]
fn pages_render_without_a_groff_warning() {
    for name in ["tc-ecnsharp.8", "ecnsharp-tc.8"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../man")
            .join(name);
        let out = Command::new("groff")
            .args(["-man", "-ww", "-Tutf8"])
            .arg(&path)
            .env("LC_ALL", "C.UTF-8")
            .output()
            .expect("groff runs (Debian package groff-base, installed by tests/vm/deps.sh)");
        assert!(out.status.success(), "{name}: groff failed");
        let warnings = String::from_utf8_lossy(&out.stderr);
        assert!(warnings.is_empty(), "{name}:\n{warnings}");
        assert!(out.stdout.len() > 2000, "{name}: rendered nearly nothing");
    }
}

/// Collects the member names a report writes.
#[derive(Default)]
struct Keys(Vec<String>);

impl JsonSink for Keys {
    fn value(&mut self, key: Option<&str>, _: Value<'_>) {
        self.0.extend(key.map(String::from));
    }
    fn begin_object(&mut self, key: Option<&str>) {
        self.0.extend(key.map(String::from));
    }
    fn end_object(&mut self) {}
    fn begin_array(&mut self, key: &str) {
        self.0.push(key.to_string());
    }
    fn end_array(&mut self) {}
}

/// Every JSON member of the statistics is named in the STATISTICS section.
#[test]
fn every_statistics_member_is_documented() {
    let man = page("tc-ecnsharp.8");
    let stats = man
        .split_once(".SH STATISTICS")
        .and_then(|(_, r)| r.split_once("\n.SH "))
        .map(|(s, _)| s)
        .unwrap();
    let header = XstatsHeader {
        now_ns: 1_000_000,
        late_wakeups: 1,
        ..XstatsHeader::default()
    };
    let band = XstatsBand {
        marking_state: 1,
        first_above_time_ns: 1,
        ..XstatsBand::default()
    };
    let mut buf = [0u8; XSTATS_MAX_SIZE];
    let n = encode_xstats(&header, &[band], &mut buf).unwrap();
    let x = decode_xstats(&buf[..n]).unwrap();
    let mut keys = Keys::default();
    xstats_json(&x, &mut keys);
    assert!(keys.0.len() > 25, "{:?}", keys.0);
    for key in keys.0 {
        assert!(
            stats.contains(&format!(" {key} ")) || stats.contains(&format!(" {key}\n")),
            "{key} is not in STATISTICS"
        );
    }
}

/// A page as `man` shows it: plain text (no overstrike or colour), `LL` columns wide, without
/// hyphenation, minus signs and hyphens as ASCII.
fn render(name: &str, columns: u32) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../man")
        .join(name);
    let out = Command::new("groff")
        .args(["-man", "-Tutf8", "-P-cbou", "-rHY=0"])
        .arg(format!("-rLL={columns}n"))
        .arg(&path)
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("groff runs (Debian package groff-base, installed by tests/vm/deps.sh)");
    assert!(out.status.success(), "{name}: groff failed");
    String::from_utf8_lossy(&out.stdout).replace(['\u{2212}', '\u{2010}'], "-")
}

/// The plain text of a source line: a font macro's arguments (alternating macros join theirs
/// without spaces, as groff does), font escapes removed.
fn plain(line: &str) -> String {
    let text = match line.strip_prefix('.') {
        None => line.to_string(),
        Some(rest) => {
            let (macro_name, args) = rest.split_once(' ').unwrap_or((rest, ""));
            let mut words = Vec::new();
            let mut word = String::new();
            let mut quoted = false;
            for c in args.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ' ' if !quoted => {
                        if !word.is_empty() {
                            words.push(std::mem::take(&mut word));
                        }
                    }
                    c => word.push(c),
                }
            }
            if !word.is_empty() {
                words.push(word);
            }
            let alternating = macro_name.len() == 2 && macro_name != "SM";
            words.join(if alternating { "" } else { " " })
        }
    };
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('f') => {
                chars.next();
            }
            Some('-') => out.push('-'),
            Some('~') | Some(' ') => out.push(' '),
            Some('&') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

/// What a reader meets that the source hides: sentences run together, `.TP` tags broken over
/// two source lines (the second then reads as the description), references to pages that do not
/// exist, and paths into a source tree that an install does not carry.
#[test]
fn pages_render_as_written() {
    let ours = ["tc-ecnsharp.8", "ecnsharp-tc.8"];
    for name in ours {
        let wide = render(name, 1000);
        let lines: Vec<&str> = wide.lines().collect();
        // Sentences: a word or a closing bracket, a full stop, a capitalised word; or a closing
        // bracket glued to a word (".RB ( 0.1 ). The" renders "(0.1).The").
        let chars: Vec<char> = wide.chars().collect();
        for w in chars.windows(4) {
            let glued = (w[0].is_ascii_lowercase() || w[0] == ')' || w[0] == ']')
                && w[1] == '.'
                && w[2].is_ascii_uppercase()
                && w[3].is_ascii_lowercase();
            let after_bracket = w[1] == ')' && w[2].is_ascii_alphabetic();
            assert!(
                !glued && !after_bracket,
                "{name}: run together: {:?}",
                w.iter().collect::<String>()
            );
        }
        // References: name(N) in the text, our pages or the system's.
        for (i, _) in wide.match_indices('(') {
            let tail = &wide[i + 1..];
            let Some(section) = tail.chars().next().filter(char::is_ascii_digit) else {
                continue;
            };
            if !tail[1..].starts_with(')') {
                continue;
            }
            let head = &wide[..i];
            let start = head
                .rfind(|c: char| !(c.is_ascii_alphanumeric() || "_.+-".contains(c)))
                .map_or(0, |p| p + 1);
            let page = &head[start..];
            if page.is_empty() || !page.starts_with(|c: char| c.is_ascii_lowercase()) {
                continue; // the page's own header (TC-ECNSHARP(8)), or "(1)" in a sentence
            }
            let file = format!("{page}.{section}");
            let system = ["", ".gz", ".xz"].iter().any(|ext| {
                PathBuf::from(format!("/usr/share/man/man{section}/{file}{ext}")).exists()
            });
            assert!(
                ours.contains(&file.as_str()) || system,
                "{name}: refers to {page}({section}), which is neither ours nor installed here \
                 (tc's own pages come with iproute2, installed by tests/vm/deps.sh)"
            );
        }
        // Paths an install does not have.
        for line in &lines {
            for word in line.split_whitespace() {
                let w = word.trim_start_matches(['(', '"']);
                assert!(
                    !["docs/", "kmod/", "include/uapi", "tests/", "tc-helper/"]
                        .iter()
                        .any(|p| w.starts_with(p))
                        && !line.contains("source tree"),
                    "{name}: points into the sources: {line}"
                );
            }
        }
        // Tags: each whole on one source line (brackets balanced) and shown at a line's start.
        let source = page(name);
        let narrow = render(name, 80);
        let shown: Vec<String> = narrow
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let src: Vec<&str> = source.lines().collect();
        let mut tags = 0;
        for w in src.windows(2).filter(|w| w[0] == ".TP") {
            let tag = plain(w[1]).split_whitespace().collect::<Vec<_>>().join(" ");
            let balanced = |open, close| tag.matches(open).count() == tag.matches(close).count();
            assert!(
                balanced('[', ']') && balanced('(', ')'),
                "{name}: the tag {tag:?} ({}) is cut: its rest reads as the description",
                w[1]
            );
            assert!(
                shown.iter().any(|l| l.starts_with(&tag)),
                "{name}: the tag {tag:?} is not shown at the start of a line"
            );
            tags += 1;
        }
        assert!(tags > 10, "{name}: only {tags} tags found");
    }
}
