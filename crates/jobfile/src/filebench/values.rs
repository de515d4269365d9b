//! WML values resolved: `$variables` looked up (composite flowop
//! parameters first, then `NAME=VALUE` from the command line, then the
//! file's `set $NAME`), numbers with filebench's `k`/`m`/`g` suffixes,
//! booleans, and the means of `cvar(...)` and random variables where
//! iolab takes one number. The notes a mapping collects live here too.

use super::{at, Attr, Value, VarDef, WmlFile};
use crate::frontend::LoadOptions;
use crate::resolve::JobError;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// Most variable-to-variable steps of one lookup.
const MAX_CHAIN: usize = 16;

/// Notes printed once before the run.
#[derive(Debug, Default)]
pub struct Notes(pub Vec<String>);

impl Notes {
    pub fn once(&mut self, s: impl Into<String>) {
        let s = super::one_line(&s.into());
        if !self.0.contains(&s) {
            self.0.push(s);
        }
    }
}

/// A value after variables were looked up.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Text(String),
    /// A cvar or a random variable: its attributes, and the variable's
    /// name for the notes.
    Cvar(String, Vec<Attr>),
    Randvar(String, Vec<Attr>),
    Table,
}

/// Where variables come from.
pub struct Scope<'a> {
    pub file: &'a str,
    globals: BTreeMap<String, VarDef>,
    cli: BTreeMap<String, String>,
    used_cli: RefCell<BTreeSet<String>>,
    /// Composite flowop parameters, innermost last.
    locals: Vec<BTreeMap<String, Option<Val>>>,
    pub notes: RefCell<Notes>,
}

impl<'a> Scope<'a> {
    pub fn new(w: &'a WmlFile, lo: &LoadOptions) -> Scope<'a> {
        let globals = w
            .vars
            .iter()
            .map(|v| (v.name.clone(), v.def.clone()))
            .collect();
        Scope {
            file: &w.file,
            globals,
            cli: lo.vars.iter().cloned().collect(),
            used_cli: RefCell::default(),
            locals: Vec::new(),
            notes: RefCell::default(),
        }
    }

    pub fn note(&self, s: impl Into<String>) {
        self.notes.borrow_mut().once(s);
    }

    /// `NAME=VALUE` pairs no `$NAME` used.
    pub fn unused_cli(&self) -> Vec<String> {
        let used = self.used_cli.borrow();
        self.cli
            .keys()
            .filter(|k| !used.contains(*k))
            .cloned()
            .collect()
    }

    pub fn push(&mut self, frame: BTreeMap<String, Option<Val>>) {
        self.locals.push(frame);
    }
    pub fn pop(&mut self) {
        self.locals.pop();
    }

    /// Look `v` up (following variables set to variables).
    pub fn val(&self, v: &Value, line: usize) -> Result<Val, JobError> {
        let mut v = v.clone();
        for _ in 0..MAX_CHAIN {
            let name = match v {
                Value::Word(w) | Value::Quoted(w) => return Ok(Val::Text(w)),
                Value::Table(_) => return Ok(Val::Table),
                Value::Var(n) => n,
            };
            if let Some(local) = self.locals.last().and_then(|f| f.get(&name)) {
                return local.clone().ok_or_else(|| {
                    at(self.file, line, format!("${name} is a parameter of the composite flowop that its caller gives no value"))
                });
            }
            if let Some(c) = self.cli.get(&name) {
                self.used_cli.borrow_mut().insert(name);
                return Ok(Val::Text(c.clone()));
            }
            v = match self.globals.get(&name) {
                Some(VarDef::Plain(p)) => p.clone(),
                Some(VarDef::Cvar(a)) => return Ok(Val::Cvar(name, a.clone())),
                Some(VarDef::Randvar(a)) => return Ok(Val::Randvar(name, a.clone())),
                None => {
                    return Err(at(
                        self.file,
                        line,
                        format!("${name} is never set; add set ${name}=VALUE or give {name}=VALUE after the file"),
                    ))
                }
            };
        }
        Err(at(
            self.file,
            line,
            "variables refer to each other in a loop",
        ))
    }

    /// The attribute's value (`None` for a bare attribute).
    pub fn attr_val(&self, a: &Attr) -> Result<Option<Val>, JobError> {
        a.value.as_ref().map(|v| self.val(v, a.line)).transpose()
    }

    /// A text value (`name=x`, `path=/tmp`).
    pub fn text(&self, a: &Attr) -> Result<String, JobError> {
        match self.attr_val(a)? {
            Some(Val::Text(t)) => Ok(t),
            None => Err(self.bad(a, "needs a value")),
            Some(_) => Err(self.bad(a, "takes a word, not a random variable")),
        }
    }

    /// A whole number (with `k`, `m`, `g`); a cvar or random variable
    /// gives its mean (noted).
    pub fn int(&self, a: &Attr) -> Result<u64, JobError> {
        match self.attr_val(a)? {
            Some(Val::Text(t)) => number(&t).ok_or_else(|| {
                self.bad(a, &format!("'{t}' is not a whole number (with k, m or g)"))
            }),
            Some(Val::Cvar(n, attrs)) | Some(Val::Randvar(n, attrs)) => {
                let m = self.mean(&attrs, a.line)?;
                self.note(format!(
                    "${n} is a random variable; iolab takes its mean, {m} bytes, where the file uses it as {}",
                    a.name
                ));
                Ok(m)
            }
            Some(Val::Table) => Err(self.bad(a, "takes a number, not a table")),
            None => Err(self.bad(a, "needs a value")),
        }
    }

    /// A bare attribute (true), `true`/`false` or a number (not 0).
    pub fn boolean(&self, a: &Attr) -> Result<bool, JobError> {
        match self.attr_val(a)? {
            None => Ok(true),
            Some(Val::Text(t)) => match t.as_str() {
                "true" => Ok(true),
                "false" => Ok(false),
                t => number(t)
                    .map(|n| n != 0)
                    .ok_or_else(|| self.bad(a, &format!("'{t}' is not true, false or a number"))),
            },
            Some(_) => Err(self.bad(a, "takes true or false")),
        }
    }

    pub fn bad(&self, a: &Attr, what: &str) -> JobError {
        at(self.file, a.line, format!("{}: {what}", a.name))
    }

    /// The mean of a cvar or random variable's attributes.
    pub fn mean(&self, attrs: &[Attr], line: usize) -> Result<u64, JobError> {
        if let Some(p) = attrs.iter().find(|a| a.name == "parameters") {
            let params = self.text(p)?;
            let get = |k: &str| {
                params
                    .split(';')
                    .filter_map(|kv| kv.split_once(':'))
                    .find(|(n, _)| *n == k)
                    .and_then(|(_, v)| v.parse::<f64>().ok())
            };
            let m = get("mean").or_else(|| Some((get("lower")? + get("upper")?) / 2.0));
            return m
                .filter(|m| m.is_finite() && *m >= 0.0 && *m < 1e18)
                .map(|m| m.round() as u64)
                .ok_or_else(|| at(self.file, line, format!("cvar parameters={params}: iolab needs a mean (mean:N, or lower:N;upper:N)")));
        }
        if let Some(t) = attrs.iter().find(|a| a.name == "randtable") {
            return self.table_mean(t);
        }
        if let Some(m) = attrs.iter().find(|a| a.name == "mean") {
            return self.int(m);
        }
        match attrs.iter().find(|a| a.name == "min") {
            Some(m) => self.int(m),
            None => Err(at(
                self.file,
                line,
                "a random variable without mean, min or randtable: iolab needs its mean",
            )),
        }
    }

    fn table_mean(&self, t: &Attr) -> Result<u64, JobError> {
        let Some(Value::Table(rows)) = &t.value else {
            return Err(self.bad(t, "takes {{weight, low, high}, ...}"));
        };
        let (mut sum, mut weights) = (0f64, 0f64);
        for r in rows {
            let n = |v: &Value| {
                let a = Attr {
                    name: "randtable".into(),
                    value: Some(v.clone()),
                    line: t.line,
                };
                self.int(&a)
            };
            let (w, lo, hi) = (n(&r[0])? as f64, n(&r[1])? as f64, n(&r[2])? as f64);
            sum += w * (lo + hi) / 2.0;
            weights += w;
        }
        if weights <= 0.0 {
            return Err(self.bad(t, "has no weight"));
        }
        Ok((sum / weights).round() as u64)
    }
}

/// filebench's numbers: digits with an optional `k`, `m`, `g` (or `t`).
pub fn number(t: &str) -> Option<u64> {
    let (digits, mult) = match t.as_bytes().last()? {
        b'k' | b'K' => (&t[..t.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&t[..t.len() - 1], 1 << 20),
        b'g' | b'G' => (&t[..t.len() - 1], 1 << 30),
        b't' | b'T' => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filebench::parse::parse;

    #[test]
    fn numbers_variables_and_means() {
        assert_eq!(number("16k"), Some(16384));
        assert_eq!(number("10g"), Some(10 << 30));
        assert_eq!(number("7"), Some(7));
        assert_eq!(number("k"), None);
        assert_eq!(number("1.5"), None);
        assert_eq!(number("99999999999999999999g"), None);
        let w = parse(
            "t.f",
            "set $a=$b\nset $b=8k\nset $c=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)\n\
             define randvar name=$t,type=tabular,min=1k,randtable={{80,1k,3k},{20,8k,8k}}\nset $loop=$loop\n",
        )
        .unwrap();
        let lo = LoadOptions {
            vars: vec![("b".into(), "4k".into()), ("zzz".into(), "1".into())],
            ..Default::default()
        };
        let s = Scope::new(&w, &lo);
        let a = |v: &str| Attr {
            name: "iosize".into(),
            value: Some(Value::Var(v.into())),
            line: 9,
        };
        assert_eq!(s.int(&a("a")).unwrap(), 4096, "the command line wins");
        assert_eq!(s.int(&a("c")).unwrap(), 131072);
        assert_eq!(
            s.int(&a("t")).unwrap(),
            (0.8 * 2048.0 + 0.2 * 8192.0f64).round() as u64
        );
        assert_eq!(s.unused_cli(), ["zzz"]);
        let e = s.int(&a("nope")).unwrap_err().0;
        assert!(e.starts_with("t.f:9: $nope is never set"), "{e}");
        assert!(s.int(&a("loop")).unwrap_err().0.contains("loop"));
        assert_eq!(s.notes.borrow().0.len(), 2);
    }
}
