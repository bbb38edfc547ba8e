// SPDX-License-Identifier: GPL-2.0-only
//! `-p` (`-pretty`) with `-j`: compact JSON laid out as iproute2's json_writer lays it out in
//! pretty mode, so `ecnsharp-tc -p -j` prints what `tc -p -j` prints: four spaces per level,
//! `"key": value`, arrays as `[ a,b ]`, a top-level array of objects as `[ {` ... `} ]`.

/// One piece of JSON text.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Open(char),
    Close(char),
    Name(&'a str),
    Scalar(&'a str),
}

/// The tokens of compact JSON text written by [`crate::json::JsonWriter`] (commas and colons
/// dropped: the writer below puts them back). `None` if the text is not JSON it can lay out.
fn tokens(text: &str) -> Option<Vec<Token<'_>>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'{' | b'[' => {
                out.push(Token::Open(char::from(b)));
                i += 1;
            }
            b'}' | b']' => {
                out.push(Token::Close(char::from(b)));
                i += 1;
            }
            b',' | b' ' | b'\n' | b'\t' | b'\r' => i += 1,
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match bytes.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                let s = text.get(start..i)?;
                if bytes.get(i) == Some(&b':') {
                    i += 1;
                    out.push(Token::Name(s));
                } else {
                    out.push(Token::Scalar(s));
                }
            }
            _ => {
                let start = i;
                while bytes.get(i).is_some_and(|c| !b",]}: \n".contains(c)) {
                    i += 1;
                }
                if i == start {
                    return None;
                }
                out.push(Token::Scalar(text.get(start..i)?));
            }
        }
    }
    Some(out)
}

/// iproute2's json_writer state: depth and the pending separator.
struct Writer {
    out: String,
    depth: usize,
    sep: bool,
}

impl Writer {
    fn eol(&mut self) {
        self.out.push('\n');
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
    }

    fn eor(&mut self) {
        if self.sep {
            self.out.push(',');
        }
        self.sep = true;
    }
}

/// `compact` laid out as `tc -p -j` does; `compact` unchanged if it cannot be read.
pub fn pretty(compact: &str) -> String {
    let Some(tokens) = tokens(compact) else {
        return compact.to_string();
    };
    let mut w = Writer {
        out: String::with_capacity(compact.len() * 2),
        depth: 0,
        sep: false,
    };
    for t in tokens {
        match t {
            Token::Open(c) => {
                w.eor();
                w.out.push(c);
                if c == '[' {
                    w.out.push(' ');
                }
                w.depth += 1;
                w.sep = false;
            }
            Token::Close(c) => {
                if c == ']' && w.sep {
                    w.out.push(' ');
                    w.sep = false;
                }
                w.depth = w.depth.saturating_sub(1);
                if w.sep {
                    w.eol();
                }
                w.out.push(c);
                w.sep = true;
            }
            Token::Name(n) => {
                w.eor();
                w.eol();
                w.sep = false;
                w.out.push_str(n);
                w.out.push_str(": ");
            }
            Token::Scalar(s) => {
                w.eor();
                w.out.push_str(s);
            }
        }
    }
    w.out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `tc -p -j -s qdisc show dev lo` prints (iproute2 6.1), from its compact form.
    #[test]
    fn lays_out_as_tc() {
        let compact = "[{\"kind\":\"noqueue\",\"handle\":\"0:\",\"root\":true,\"refcnt\":2,\
            \"options\":{},\"bytes\":0}]";
        assert_eq!(
            pretty(compact),
            "[ {\n        \"kind\": \"noqueue\",\n        \"handle\": \"0:\",\n        \
             \"root\": true,\n        \"refcnt\": 2,\n        \"options\": {},\n        \
             \"bytes\": 0\n    } ]"
        );
    }

    #[test]
    fn arrays_strings_and_nesting() {
        let compact = "[{\"a\":[1,2],\"e\":[],\"s\":\"x,]}\\\"y\",\"o\":{\"n\":-4,\"f\":0.5}},{}]";
        let p = pretty(compact);
        assert_eq!(
            p,
            "[ {\n        \"a\": [ 1,2 ],\n        \"e\": [ ],\n        \"s\": \"x,]}\\\"y\",\n        \
             \"o\": {\n            \"n\": -4,\n            \"f\": 0.5\n        }\n    },{} ]"
        );
        let a: serde_json::Value = serde_json::from_str(&p).unwrap();
        let b: serde_json::Value = serde_json::from_str(compact).unwrap();
        assert_eq!(a, b, "the same JSON");
        assert_eq!(pretty("{\"x\":1}"), "{\n    \"x\": 1\n}");
        assert_eq!(
            pretty("{\"x\" 1 \""),
            "{\"x\" 1 \"",
            "unreadable text is left alone"
        );
    }
}
