//! An ordered JSON value for fio's output, and its text: fio's key order
//! (jobname, groupid, ... as fio writes them) is kept, which
//! `serde_json::Value` (sorted keys in this workspace) would lose. The
//! text uses fio's layout (two-space indentation, `"key" : value`);
//! numbers are written exactly: integers as integers, floats in their
//! shortest form that reads back to the same value, always with a decimal
//! point so a reader sees a float where fio writes one.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use std::fmt::Write;

/// A JSON value whose objects keep their keys in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    U(u64),
    I(i64),
    F(f64),
    S(String),
    A(Vec<J>),
    O(Obj),
}

/// An object: keys in the order they were added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Obj(pub Vec<(String, J)>);

impl Obj {
    pub fn new() -> Obj {
        Obj(Vec::new())
    }

    /// Add `key` (fio's objects have no duplicate keys; callers add each
    /// once).
    pub fn put(&mut self, key: impl Into<String>, v: impl Into<J>) -> &mut Obj {
        self.0.push((key.into(), v.into()));
        self
    }

    pub fn get(&self, key: &str) -> Option<&J> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl From<u64> for J {
    fn from(v: u64) -> J {
        J::U(v)
    }
}
impl From<u32> for J {
    fn from(v: u32) -> J {
        J::U(v as u64)
    }
}
impl From<i64> for J {
    fn from(v: i64) -> J {
        J::I(v)
    }
}
impl From<f64> for J {
    fn from(v: f64) -> J {
        J::F(v)
    }
}
impl From<&str> for J {
    fn from(v: &str) -> J {
        J::S(v.to_string())
    }
}
impl From<String> for J {
    fn from(v: String) -> J {
        J::S(v)
    }
}
impl From<Obj> for J {
    fn from(v: Obj) -> J {
        J::O(v)
    }
}
impl From<Vec<J>> for J {
    fn from(v: Vec<J>) -> J {
        J::A(v)
    }
}

/// A float fio would print: NaN and infinities (a rate over no time) are
/// written as 0, as fio does when it has no samples.
fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::U(v) => s.serialize_u64(*v),
            J::I(v) => s.serialize_i64(*v),
            J::F(v) => s.serialize_f64(finite(*v)),
            J::S(v) => s.serialize_str(v),
            J::A(a) => {
                let mut q = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    q.serialize_element(v)?;
                }
                q.end()
            }
            J::O(o) => {
                let mut m = s.serialize_map(Some(o.0.len()))?;
                for (k, v) in &o.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    }
}

/// The text of `v` in fio's layout, ending with a newline.
pub fn text(v: &J) -> String {
    let mut out = String::new();
    write_value(&mut out, v, 0);
    out.push('\n');
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_float(out: &mut String, v: f64) {
    let v = finite(v);
    let s = format!("{v}");
    out.push_str(&s);
    if !s.contains(['.', 'e', 'E']) {
        out.push_str(".0");
    }
}

fn write_value(out: &mut String, v: &J, level: usize) {
    match v {
        J::U(n) => {
            let _ = write!(out, "{n}");
        }
        J::I(n) => {
            let _ = write!(out, "{n}");
        }
        J::F(f) => write_float(out, *f),
        J::S(s) => out.push_str(&serde_json::Value::from(s.as_str()).to_string()),
        J::A(a) if a.is_empty() => out.push_str("[]"),
        J::A(a) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                indent(out, level + 1);
                write_value(out, x, level + 1);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push(']');
        }
        J::O(o) if o.0.is_empty() => out.push_str("{}"),
        J::O(o) => {
            out.push_str("{\n");
            for (i, (k, x)) in o.0.iter().enumerate() {
                indent(out, level + 1);
                out.push_str(&serde_json::Value::from(k.as_str()).to_string());
                out.push_str(" : ");
                write_value(out, x, level + 1);
                out.push_str(if i + 1 < o.0.len() { ",\n" } else { "\n" });
            }
            indent(out, level);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_order_and_reads_back_exactly() {
        let mut inner = Obj::new();
        inner.put("z", 1u64).put("a", 0.1 + 0.2).put("m", 3.0);
        let mut o = Obj::new();
        o.put("fio version", "iolab-x")
            .put("jobs", vec![J::O(inner)]);
        let t = text(&J::O(o.clone()));
        let z = t.find("\"z\"").unwrap();
        let a = t.find("\"a\"").unwrap();
        assert!(z < a, "{t}");
        assert!(t.contains("\"m\" : 3.0"), "{t}");
        let back: serde_json::Value = serde_json::from_str(&t).unwrap();
        assert_eq!(back, serde_json::to_value(J::O(o)).unwrap());
        assert_eq!(back["jobs"][0]["a"].as_f64(), Some(0.1 + 0.2));
        assert!(back["jobs"][0]["m"].is_f64());
        assert!(back["jobs"][0]["z"].is_u64());
    }

    #[test]
    fn non_finite_floats_are_zero() {
        let t = text(&J::F(f64::NAN));
        assert_eq!(t.trim(), "0.0");
    }
}
