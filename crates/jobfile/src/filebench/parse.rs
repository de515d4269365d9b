//! WML's syntax (filebench 1.5's language): the text into tokens (words,
//! `$variables`, quoted strings, `{ } ( ) , =`; `#` comments; line ends
//! are white space, so attribute lists continue over lines after a
//! comma) and the tokens into a [`WmlFile`]'s statements. Values stay as
//! written; [`super::map`] resolves them. Every refusal is one line
//! with the file and line.

use super::{
    at, Attr, Composite, FilesetDef, Flowop, Process, RunCmd, SetVar, Thread, Value, VarDef,
    WmlFile, MAX_ITEMS, MAX_TEXT,
};
use crate::resolve::JobError;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Var(String),
    Quoted(String),
    Punct(char),
}

/// Longest word or quoted string.
const MAX_WORD: usize = 4096;

fn lex(file: &str, text: &str) -> Result<Vec<(Tok, usize)>, JobError> {
    if text.len() > MAX_TEXT {
        return Err(JobError(format!(
            "{file}: {} bytes is longer than a WML file can be here ({MAX_TEXT}); split it",
            text.len()
        )));
    }
    let mut out = Vec::new();
    let mut line = 1;
    let mut it = text.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '#' => {
                while it.peek().is_some_and(|&c| c != '\n') {
                    it.next();
                }
            }
            '"' => {
                let mut s = String::new();
                let start = line;
                loop {
                    match it.next() {
                        None => return Err(at(file, start, "a quoted string has no closing '\"'")),
                        Some('"') => break,
                        Some('\n') => {
                            line += 1;
                            s.push('\n')
                        }
                        Some(c) => s.push(c),
                    }
                }
                out.push((Tok::Quoted(s), start));
            }
            '{' | '}' | '(' | ')' | ',' | '=' => out.push((Tok::Punct(c), line)),
            _ => {
                let mut s = String::from(c);
                while let Some(&n) = it.peek() {
                    if n.is_whitespace() || "{}(),=\"#".contains(n) {
                        break;
                    }
                    s.push(n);
                    it.next();
                }
                if s.len() > MAX_WORD {
                    return Err(at(file, line, "a word longer than 4096 characters"));
                }
                let tok = match s.strip_prefix('$') {
                    Some(v) => {
                        let v = v
                            .trim_start_matches(['{', '('])
                            .trim_end_matches(['}', ')']);
                        if !is_name(v) {
                            return Err(at(file, line, format!("'{s}' is not a variable name")));
                        }
                        Tok::Var(v.to_string())
                    }
                    None => Tok::Word(s),
                };
                out.push((tok, line));
            }
        }
        if out.len() > MAX_ITEMS * 20 {
            return Err(at(file, line, "too many words for a WML file; split it"));
        }
    }
    Ok(out)
}

fn is_name(v: &str) -> bool {
    v.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

struct Parser<'a> {
    file: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    items: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.1)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.0.clone());
        self.pos += 1;
        t
    }
    fn err(&self, what: impl std::fmt::Display) -> JobError {
        at(self.file, self.line(), what)
    }
    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }
    fn expect(&mut self, c: char, after: &str) -> Result<(), JobError> {
        if self.is_punct(c) {
            self.pos += 1;
            return Ok(());
        }
        Err(self.err(format!("expected '{c}' {after}, found {}", self.shown())))
    }
    fn shown(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(Tok::Word(w)) => format!("'{w}'"),
            Some(Tok::Var(v)) => format!("'${v}'"),
            Some(Tok::Quoted(q)) => format!("\"{q}\""),
            Some(Tok::Punct(c)) => format!("'{c}'"),
        }
    }
    fn count(&mut self) -> Result<(), JobError> {
        self.items += 1;
        if self.items > MAX_ITEMS {
            return Err(self.err(format!(
                "more than {MAX_ITEMS} statements and flowops; split the file"
            )));
        }
        Ok(())
    }
    fn word(&mut self, what: &str) -> Result<String, JobError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err(format!("expected {what}, found {}", self.shown()))),
        }
    }

    /// A value after `=`: a word, a quoted string, a variable or a table.
    fn value(&mut self) -> Result<Value, JobError> {
        let line = self.line();
        match self.next() {
            Some(Tok::Word(w)) => Ok(Value::Word(w)),
            Some(Tok::Quoted(q)) => Ok(Value::Quoted(q)),
            Some(Tok::Var(v)) => Ok(Value::Var(v)),
            Some(Tok::Punct('{')) => self.table(line),
            _ => {
                self.pos -= 1;
                Err(self.err(format!("expected a value, found {}", self.shown())))
            }
        }
    }

    /// `{{w, lo, hi}, ...}` after its first `{`.
    fn table(&mut self, line: usize) -> Result<Value, JobError> {
        let mut rows = Vec::new();
        loop {
            if self.is_punct('}') {
                self.pos += 1;
                return Ok(Value::Table(rows));
            }
            self.expect('{', "to start a randtable row {weight, low, high}")?;
            let a = self.value()?;
            self.expect(',', "in a randtable row")?;
            let b = self.value()?;
            self.expect(',', "in a randtable row")?;
            let c = self.value()?;
            self.expect('}', "to end a randtable row")?;
            rows.push([a, b, c]);
            self.count()?;
            if self.is_punct(',') {
                self.pos += 1;
            }
            if self.peek().is_none() {
                return Err(at(self.file, line, "a randtable has no closing '}'"));
            }
        }
    }

    /// `attr[=value] {, attr[=value]}`; an empty list when the next
    /// token is no attribute name.
    fn attrs(&mut self) -> Result<Vec<Attr>, JobError> {
        let mut out = Vec::new();
        loop {
            let line = self.line();
            let name = match self.peek() {
                Some(Tok::Word(w)) => w.clone(),
                Some(Tok::Var(v)) => format!("${v}"),
                _ if out.is_empty() => return Ok(out),
                _ => return Err(self.err(format!("expected an attribute, found {}", self.shown()))),
            };
            self.pos += 1;
            let value = if self.is_punct('=') {
                self.pos += 1;
                Some(self.value()?)
            } else {
                None
            };
            out.push(Attr { name, value, line });
            self.count()?;
            if !self.is_punct(',') {
                return Ok(out);
            }
            self.pos += 1;
        }
    }
}

/// Parse a WML file's text (`file` names it in errors).
pub fn parse(file: &str, text: &str) -> Result<WmlFile, JobError> {
    let mut p = Parser {
        file,
        toks: lex(file, text)?,
        pos: 0,
        items: 0,
    };
    let mut w = WmlFile {
        file: file.to_string(),
        ..Default::default()
    };
    while p.peek().is_some() {
        p.count()?;
        statement(&mut p, &mut w)?;
    }
    Ok(w)
}

fn statement(p: &mut Parser, w: &mut WmlFile) -> Result<(), JobError> {
    let line = p.line();
    let cmd = match p.next() {
        Some(Tok::Word(c)) => c,
        _ => {
            p.pos -= 1;
            return Err(p.err(format!(
                "expected a WML command (set, define, run, ...), found {}",
                p.shown()
            )));
        }
    };
    match cmd.as_str() {
        "set" => set(p, w, line),
        "define" => define(p, w, line),
        "eventgen" => {
            let a = p.attrs()?;
            match a.iter().find(|a| a.name == "rate") {
                Some(Attr { value: Some(v), .. }) if a.len() == 1 => {
                    w.eventgen = Some((v.clone(), line));
                    Ok(())
                }
                _ => Err(at(p.file, line, "eventgen takes rate=N (events per second)")),
            }
        }
        "run" | "psrun" => run(p, w, line, cmd == "psrun"),
        "echo" | "usage" | "system" => text_cmd(p, w, &cmd, line),
        "enable" | "create" | "debug" | "sleep" | "list" | "quit" | "version" => {
            minor(p, w, &cmd, line)
        }
        other => Err(at(
            p.file,
            line,
            format!("'{other}' is not a WML command iolab knows (set, define, eventgen, run, psrun, echo, usage, enable, create, debug, sleep, list, version, quit)"),
        )),
    }
}

/// `echo "..."`, `usage "..."` (notes) and `system "..."` (not run).
fn text_cmd(p: &mut Parser, w: &mut WmlFile, cmd: &str, line: usize) -> Result<(), JobError> {
    let text = match p.next() {
        Some(Tok::Quoted(q)) => q,
        _ => return Err(at(p.file, line, format!("{cmd} takes a quoted string"))),
    };
    if cmd == "system" {
        accept(w, &super::one_line(&format!(
            "system \"{text}\" is not run (iolab runs no shell commands from a workload file; run it yourself before iolab if it matters)"
        )));
        return Ok(());
    }
    w.echoes.push(super::one_line(&format!("{cmd}: {text}")));
    Ok(())
}

/// The commands accepted with nothing to map: `enable lathist`, `create
/// files`, `debug N`, `sleep N`, `list`, `quit` (the rest of the file is
/// not read), `version`.
fn minor(p: &mut Parser, w: &mut WmlFile, cmd: &str, line: usize) -> Result<(), JobError> {
    match cmd {
        "enable" => {
            let what = p.word("lathist after enable")?;
            if what != "lathist" {
                return Err(at(
                    p.file,
                    line,
                    format!("enable {what}: iolab runs on one host; only enable lathist is taken"),
                ));
            }
            accept(w, "enable lathist (iolab always keeps latency histograms)");
            Ok(())
        }
        "create" => {
            let what = p.word("files after create")?;
            if what != "files" && what != "fileset" && what != "filesets" {
                return Err(at(
                    p.file,
                    line,
                    format!("create {what}: only create files is WML"),
                ));
            }
            accept(w, "create files (iolab makes the filesets before the run)");
            Ok(())
        }
        "debug" | "sleep" => {
            match p.next() {
                Some(Tok::Word(n)) if n.bytes().all(|b| b.is_ascii_digit()) => {}
                Some(Tok::Var(_)) if cmd == "sleep" => {}
                _ => return Err(at(p.file, line, format!("{cmd} takes a number"))),
            }
            accept(w, &format!("{cmd} (ignored)"));
            Ok(())
        }
        "list" => {
            if matches!(p.peek(), Some(Tok::Word(x)) if x.starts_with("fileset")) {
                p.pos += 1;
            }
            accept(w, "list (ignored)");
            Ok(())
        }
        "quit" => {
            // filebench stops reading the file here.
            if p.peek().is_some() {
                accept(
                    w,
                    "quit: the rest of the file is not read, as filebench stops there",
                );
            }
            p.pos = p.toks.len();
            Ok(())
        }
        _ => {
            accept(w, &format!("{cmd} (ignored)"));
            Ok(())
        }
    }
}

fn accept(w: &mut WmlFile, what: &str) {
    if !w.accepted.iter().any(|a| a == what) {
        w.accepted.push(what.to_string());
    }
}

/// `set $NAME = VALUE | cvar(...) | randvar(...)`, `set mode ...`.
fn set(p: &mut Parser, w: &mut WmlFile, line: usize) -> Result<(), JobError> {
    let name = match p.next() {
        Some(Tok::Var(v)) => v,
        Some(Tok::Word(m)) if m == "mode" => return set_mode(p, w, line),
        _ => {
            p.pos -= 1;
            return Err(p.err(format!(
                "set takes $NAME=VALUE or mode quit ..., found {}",
                p.shown()
            )));
        }
    };
    p.expect('=', &format!("after set ${name}"))?;
    let def = match p.peek().cloned() {
        Some(Tok::Word(k))
            if (k == "cvar" || k == "randvar")
                && p.toks
                    .get(p.pos + 1)
                    .is_some_and(|t| t.0 == Tok::Punct('(')) =>
        {
            p.pos += 2;
            let a = p.attrs()?;
            p.expect(')', &format!("to close {k}("))?;
            if k == "cvar" {
                VarDef::Cvar(a)
            } else {
                VarDef::Randvar(a)
            }
        }
        _ => VarDef::Plain(p.value()?),
    };
    // filebench 1.5 has no arithmetic: `set $a = $b * 2` stops there too.
    if let Some(Tok::Word(op)) = p.peek() {
        if ["*", "+", "-", "/"].contains(&op.as_str()) {
            return Err(p.err(format!(
                "set ${name}: '{op}' (arithmetic) is not WML; give the value itself or NAME=VALUE on the command line"
            )));
        }
    }
    w.vars.push(SetVar { name, def, line });
    Ok(())
}

fn set_mode(p: &mut Parser, w: &mut WmlFile, line: usize) -> Result<(), JobError> {
    let a = p.word("quit or nousestats after set mode")?;
    if a == "nousestats" {
        accept(w, "set mode nousestats (iolab measures CPU use anyway)");
        return Ok(());
    }
    let mode = if a == "quit" {
        p.word("timeout, alldone or firstdone")?
    } else {
        a
    };
    if !["timeout", "alldone", "firstdone"].contains(&mode.as_str()) {
        return Err(at(
            p.file,
            line,
            format!("set mode quit {mode}: use timeout, alldone or firstdone"),
        ));
    }
    w.quit_mode = Some((mode, line));
    Ok(())
}

fn run(p: &mut Parser, w: &mut WmlFile, line: usize, psrun: bool) -> Result<(), JobError> {
    let num = |t: Option<&Tok>| match t {
        Some(Tok::Word(n)) => n.parse::<i64>().ok(),
        _ => None,
    };
    let mut cmd = RunCmd {
        duration: None,
        period: None,
        psrun,
        line,
    };
    if psrun {
        if let Some(n) = num(p.peek()) {
            p.pos += 1;
            cmd.period = Some(n);
        }
    }
    match p.peek() {
        Some(Tok::Var(v)) => {
            cmd.duration = Some(Value::Var(v.clone()));
            p.pos += 1;
        }
        t if num(t).is_some_and(|n| n >= 0) => {
            cmd.duration = Some(Value::Word(num(t).unwrap_or(0).to_string()));
            p.pos += 1;
        }
        Some(Tok::Word(n)) if n.starts_with(|c: char| c.is_ascii_digit() || c == '-') => {
            return Err(at(
                p.file,
                line,
                format!(
                    "{} {}: the run time is whole seconds from 0 to {}",
                    if psrun { "psrun" } else { "run" },
                    super::one_line(n),
                    i64::MAX
                ),
            ));
        }
        _ => {}
    }
    w.runs.push(cmd);
    Ok(())
}

fn define(p: &mut Parser, w: &mut WmlFile, line: usize) -> Result<(), JobError> {
    let what = p.word("what to define (fileset, file, process, flowop, randvar)")?;
    match what.as_str() {
        "fileset" | "filesets" | "file" | "files" => {
            let attrs = p.attrs()?;
            w.filesets.push(FilesetDef {
                single_file: what == "file",
                attrs,
                line,
            });
        }
        "process" | "processes" => {
            let attrs = p.attrs()?;
            p.expect('{', "to open the process's threads")?;
            let mut threads = Vec::new();
            while !p.is_punct('}') {
                threads.push(thread(p)?);
            }
            p.pos += 1;
            w.processes.push(Process {
                attrs,
                threads,
                line,
            });
        }
        "flowop" => {
            let attrs = p.attrs()?;
            p.expect('{', "to open the composite flowop's flowops")?;
            let flowops = flowop_list(p)?;
            w.composites.push(Composite {
                attrs,
                flowops,
                line,
            });
        }
        "randvar" => {
            let attrs = p.attrs()?;
            let name = match attrs.iter().find(|a| a.name == "name") {
                Some(Attr {
                    value: Some(Value::Var(v)),
                    ..
                }) => v.clone(),
                _ => return Err(at(p.file, line, "define randvar needs name=$NAME")),
            };
            w.vars.push(SetVar {
                name,
                def: VarDef::Randvar(attrs),
                line,
            });
        }
        other => {
            return Err(at(
                p.file,
                line,
                format!("define {other}: define takes fileset, file, process, flowop or randvar"),
            ))
        }
    }
    Ok(())
}

fn thread(p: &mut Parser) -> Result<Thread, JobError> {
    let line = p.line();
    let kw = p.word("thread")?;
    if kw != "thread" {
        return Err(at(
            p.file,
            line,
            format!("'{kw}' in a process: a process holds thread definitions"),
        ));
    }
    p.count()?;
    let attrs = p.attrs()?;
    p.expect('{', "to open the thread's flowops")?;
    let flowops = flowop_list(p)?;
    Ok(Thread {
        attrs,
        flowops,
        line,
    })
}

/// `flowop TYPE ATTRS ...` up to and including the closing `}`.
fn flowop_list(p: &mut Parser) -> Result<Vec<Flowop>, JobError> {
    let mut out = Vec::new();
    loop {
        if p.is_punct('}') {
            p.pos += 1;
            return Ok(out);
        }
        let line = p.line();
        let kw = p.word("flowop or '}'")?;
        if kw != "flowop" {
            return Err(at(
                p.file,
                line,
                format!("'{kw}' in a thread: write flowop TYPE name=..."),
            ));
        }
        p.count()?;
        let kind = p.word("the flowop's type")?;
        let attrs = p.attrs()?;
        out.push(Flowop { kind, attrs, line });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_attributes_over_lines_and_composites() {
        let text = "# c\nset $dir=/tmp\nset $fs=cvar(type=cvar-gamma,parameters=mean:131072;gamma:1.5)\n\
            define fileset name=big,path=$dir,\n   entries=10,prealloc\n\
            define flowop name=pair, $set\n{\n flowop openfile name=o,filesetname=$set\n flowop closefile name=c\n}\n\
            define process name=p,instances=2 {\n thread name=t,memsize=10m,instances=3\n {\n  flowop read name=r,\n    iosize=8k,random\n  flowop pair name=x,$set=big\n }\n}\n\
            define randvar name=$rv, type=tabular, min=1k, randtable =\n{{ 80, 1k, 4k},\n { 20, 4k, 8k}}\n\
            eventgen rate = 5\nset mode quit firstdone\necho \"hi\"\npsrun -10 30\nrun\n";
        let w = parse("t.f", text).unwrap();
        assert_eq!(w.vars.len(), 3);
        assert!(matches!(&w.vars[1].def, VarDef::Cvar(a) if a.len() == 2));
        assert_eq!(w.filesets[0].attrs.len(), 4);
        assert_eq!(w.filesets[0].attrs[3].line, 5);
        assert_eq!(w.composites[0].attrs[1].name, "$set");
        let t = &w.processes[0].threads[0];
        assert_eq!(t.flowops[0].attrs.len(), 3);
        assert_eq!(t.flowops[1].attrs[1].value, Some(Value::Word("big".into())));
        assert!(
            matches!(&w.vars[2].def, VarDef::Randvar(a) if matches!(&a[3].value, Some(Value::Table(r)) if r.len() == 2))
        );
        assert_eq!(w.eventgen.as_ref().unwrap().0, Value::Word("5".into()));
        assert_eq!(w.runs[0].period, Some(-10));
        assert_eq!(w.runs[0].duration, Some(Value::Word("30".into())));
        assert_eq!(w.runs[1].duration, None);
        assert_eq!(w.echoes, ["echo: hi"]);
    }

    #[test]
    fn system_is_not_run_and_quit_ends_the_file() {
        let w = parse(
            "t.f",
            "system \"echo 3 > /proc/sys/vm/drop_caches\"\nrun 5\nquit\nnot wml at all {\n",
        )
        .unwrap();
        assert_eq!(w.runs.len(), 1);
        assert!(
            w.accepted[0].starts_with("system \"echo 3"),
            "{:?}",
            w.accepted
        );
        assert!(
            w.accepted[1].starts_with("quit: the rest"),
            "{:?}",
            w.accepted
        );
    }

    #[test]
    fn refusals_are_one_line_with_file_and_line() {
        for (text, want) in [
            (
                "set $a=1\nfrobnicate 3\n",
                "t.f:2: 'frobnicate' is not a WML command",
            ),
            (
                "set $t=$a * 2\n",
                "t.f:1: set $t: '*' (arithmetic) is not WML",
            ),
            (
                "define process name=p {\n thread name=t {\n flowop read name=r\n",
                "t.f:3: expected flowop or '}'",
            ),
            ("echo \"open\n", "t.f:1: a quoted string has no closing"),
            ("define widget name=x\n", "t.f:1: define widget"),
            ("set mode quit never\n", "t.f:1: set mode quit never"),
            (
                "define randvar type=gamma\n",
                "t.f:1: define randvar needs name=$NAME",
            ),
        ] {
            let e = parse("t.f", text).unwrap_err().0;
            assert!(e.starts_with(want) && !e.contains('\n'), "{e}");
        }
        let big = "set $a=1\n".repeat(MAX_ITEMS + 1);
        assert!(parse("t.f", &big).is_err());
    }
}
