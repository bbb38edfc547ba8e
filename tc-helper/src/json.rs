// SPDX-License-Identifier: GPL-2.0-only
//! A compact JSON writer, the counterpart of iproute2's `json_writer`: no spaces, keys in the
//! order written. It is the helper's [`JsonSink`] for the core's report.

use std::fmt::Write;

use ecnsharp::report::{JsonSink, Value};

/// JSON text being written.
#[derive(Default)]
pub struct JsonWriter {
    out: String,
    /// One entry per open object or array: whether it has a member yet.
    open: Vec<bool>,
}

impl JsonWriter {
    /// The text written so far.
    pub fn finish(self) -> String {
        self.out
    }

    fn separate(&mut self, key: Option<&str>) {
        if let Some(has_member) = self.open.last_mut() {
            if *has_member {
                self.out.push(',');
            }
            *has_member = true;
        }
        if let Some(key) = key {
            self.string(key);
            self.out.push(':');
        }
    }

    fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\t' => self.out.push_str("\\t"),
                '\r' => self.out.push_str("\\r"),
                c if u32::from(c) < 0x20 => {
                    let _ = write!(self.out, "\\u{:04x}", u32::from(c));
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// Starts the top-level array (`tc -j` prints one per command).
    pub fn begin_top_array(&mut self) {
        self.separate(None);
        self.out.push('[');
        self.open.push(false);
    }

    /// A string member.
    pub fn text(&mut self, key: &str, value: &str) {
        self.value(Some(key), Value::Text(value));
    }

    /// An unsigned number member.
    pub fn uint(&mut self, key: &str, value: u64) {
        self.separate(Some(key));
        let _ = write!(self.out, "{value}");
    }

    /// A floating-point member, always written with a fraction (`1.0`, `0.17`), so that its
    /// JSON type never depends on its value; `null` if not finite.
    pub fn float(&mut self, key: &str, value: f64) {
        self.separate(Some(key));
        if value.is_finite() {
            let _ = write!(self.out, "{value:?}");
        } else {
            self.out.push_str("null");
        }
    }
}

impl JsonSink for JsonWriter {
    fn value(&mut self, key: Option<&str>, value: Value<'_>) {
        self.separate(key);
        match value {
            Value::Number(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Text(s) => self.string(s),
            Value::Bool(b) => self.out.push_str(if b { "true" } else { "false" }),
            Value::Null => self.out.push_str("null"),
        }
    }

    fn begin_object(&mut self, key: Option<&str>) {
        self.separate(key);
        self.out.push('{');
        self.open.push(false);
    }

    fn end_object(&mut self) {
        self.open.pop();
        self.out.push('}');
    }

    fn begin_array(&mut self, key: &str) {
        self.separate(Some(key));
        self.out.push('[');
        self.open.push(false);
    }

    fn end_array(&mut self) {
        self.open.pop();
        self.out.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnsharp::report::{Number, Unit};

    #[test]
    fn writes_valid_compact_json() {
        let mut j = JsonWriter::default();
        j.begin_top_array();
        j.begin_object(None);
        j.text("kind", "ecn\"sharp\\\n\u{1}");
        j.uint("refcnt", 2);
        j.begin_array("list");
        j.value(None, Value::Number(Number::new(85_500, Unit::Nanos)));
        j.value(None, Value::Null);
        j.end_array();
        j.begin_object(Some("empty"));
        j.end_object();
        j.value(Some("root"), Value::Bool(true));
        j.end_object();
        j.end_array();
        let text = j.finish();
        assert_eq!(
            text,
            "[{\"kind\":\"ecn\\\"sharp\\\\\\n\\u0001\",\"refcnt\":2,\"list\":[86,null],\
             \"empty\":{},\"root\":true}]"
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v[0]["kind"], "ecn\"sharp\\\n\u{1}");
        assert_eq!(v[0]["list"][0], 86);
    }
}
