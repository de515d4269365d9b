//! A run definition's `for*` loops and the points of their product, in
//! vdbench's order (docs/vdbench.md "Loop order"): the loops in the
//! order written (a loop written again, e.g. on the `rd` after its
//! `rd=default`, moves to the end), the first varying slowest, the last
//! fastest, and a list of rates (`iorate=(100,200)`) after all of them.
//! A workload key given on the `rd` (`xfersize=8k`, `threads=(8,16)`) is a
//! loop too, as vdbench reads it.

use super::super::VdbDef;
use super::num;
use crate::resolve::JobError;

/// At most this many runs from one parameter file (iolab's sweeps are
/// capped likewise).
pub const MAX_RUNS: usize = 10_000;

/// The raw loops: the keywords that make them and their loop's name.
const RAW: &[(&str, &str)] = &[
    ("forxfersize", "forxfersize"),
    ("xfersize", "forxfersize"),
    ("forthreads", "forthreads"),
    ("threads", "forthreads"),
    ("forrdpct", "forrdpct"),
    ("rdpct", "forrdpct"),
    ("forrhpct", "forrhpct"),
    ("rhpct", "forrhpct"),
    ("forwhpct", "forwhpct"),
    ("whpct", "forwhpct"),
    ("forseekpct", "forseekpct"),
    ("seekpct", "forseekpct"),
    ("forhitarea", "forhitarea"),
    ("hitarea", "forhitarea"),
    ("forcompratio", "forcompratio"),
    ("compratio", "forcompratio"),
    ("forcompression", "forcompratio"),
    ("compression", "forcompratio"),
];

/// The loop a run-definition keyword makes, if it makes one.
pub fn raw_loop(key: &str) -> Option<&'static str> {
    RAW.iter().find(|(k, _)| *k == key).map(|(_, l)| *l)
}

/// One loop: its name (`forxfersize`), its values, where it was written.
#[derive(Debug, Clone)]
pub struct Loop {
    pub name: String,
    pub values: Vec<String>,
}

/// The loops of a run definition, outermost first. `fs` are the
/// file-system loops (`map::fs::fs_loops`), placed where they were
/// written.
pub fn loops(rd: &VdbDef, fs: Vec<(String, Vec<String>)>) -> Result<Vec<Loop>, JobError> {
    // (position of the last keyword of the loop, loop)
    let mut found: Vec<(usize, Loop)> = Vec::new();
    for (i, p) in rd.params.iter().enumerate() {
        let Some(name) = raw_loop(&p.key) else {
            continue;
        };
        if p.values.is_empty() || p.values.iter().any(|v| v.trim().is_empty()) {
            return Err(JobError(format!(
                "{}: rd={}: {}= needs a value or a list, e.g. {}=(8k,64k)",
                p.place(),
                rd.name,
                p.key,
                p.key
            )));
        }
        // vdbench's ranges, `(1-64,d)`, `(4k-64k,4k)` (Var_parms).
        let given = super::fs::expand_ranges(&p.values)
            .map_err(|m| JobError(format!("{}: rd={}: {}=: {m}", p.place(), rd.name, p.key)))?;
        let values = if p.key.ends_with("compression") {
            let r: Result<Vec<String>, String> = given
                .iter()
                .map(|v| super::general::pct_to_ratio(v))
                .collect();
            r.map_err(|m| JobError(format!("{}: rd={}: {}=: {m}", p.place(), rd.name, p.key)))?
        } else {
            given
        };
        found.retain(|(_, l)| l.name != name);
        found.push((
            i,
            Loop {
                name: name.to_string(),
                values,
            },
        ));
    }
    for (key, values) in fs {
        let name = if key.starts_with("for") {
            key.clone()
        } else {
            format!("for{key}")
        };
        let short = &name[3..];
        let at = rd
            .params
            .iter()
            .rposition(|p| p.key == name || p.key == short);
        found.retain(|(_, l)| l.name != name);
        found.push((at.unwrap_or(usize::MAX - 1), Loop { name, values }));
    }
    if let Some(p) = rd.get("iorate").filter(|p| p.values.len() > 1) {
        found.push((
            usize::MAX,
            Loop {
                name: "foriorate".into(),
                values: p.values.clone(),
            },
        ));
    }
    found.sort_by_key(|(i, _)| *i);
    Ok(found.into_iter().map(|(_, l)| l).collect())
}

/// The number of points of `loops`, refused beyond what is left of
/// [`MAX_RUNS`] (`so_far` runs were planned already).
pub fn check_count(rd: &VdbDef, loops: &[Loop], so_far: usize) -> Result<usize, JobError> {
    let mut n: usize = 1;
    for l in loops {
        n = n.saturating_mul(l.values.len());
    }
    if n.saturating_add(so_far) > MAX_RUNS {
        let sizes: Vec<String> = loops
            .iter()
            .map(|l| format!("{} {}", l.name, l.values.len()))
            .collect();
        return Err(JobError(format!(
            "{}: rd={}: its loops ({}) make {n} runs, more than iolab plans from a parameter file ({MAX_RUNS} in all); shorten the lists or split the file",
            rd.place(),
            rd.name,
            sizes.join(" x ")
        )));
    }
    Ok(n)
}

/// Every point of the loops' product, the last loop varying fastest:
/// `(loop name, value)` in the loops' order.
pub fn points(loops: &[Loop]) -> Vec<Vec<(String, String)>> {
    let mut idx = vec![0usize; loops.len()];
    let mut out = Vec::new();
    if loops.iter().any(|l| l.values.is_empty()) {
        return out;
    }
    loop {
        out.push(
            loops
                .iter()
                .zip(&idx)
                .map(|(l, &i)| (l.name.clone(), l.values[i].trim().to_string()))
                .collect(),
        );
        let mut k = loops.len();
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < loops[k].values.len() {
                break;
            }
            idx[k] = 0;
        }
    }
}

/// A run's name as vdbench shows it: the rd's name, then each loop's
/// value (`rd1 xfersize=8k rhpct=0 seekpct=100`).
pub fn run_name(rd: &str, point: &[(String, String)]) -> String {
    let mut s = rd.to_string();
    for (name, v) in point {
        let short = name.strip_prefix("for").unwrap_or(name);
        let shown = match short {
            "xfersize" | "hitarea" | "sizes" | "totalsize" | "wss" => num::size(v)
                .map(num::vdb_size)
                .unwrap_or_else(|_| v.clone()),
            _ => v.to_ascii_lowercase(),
        };
        s.push_str(&format!(" {short}={shown}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::super::{DefKind, VdbParam};
    use super::*;

    fn p(key: &str, values: &[&str], line: usize) -> VdbParam {
        VdbParam {
            key: key.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            file: "t.vdb".into(),
            line,
        }
    }

    fn rd(params: Vec<VdbParam>) -> VdbDef {
        VdbDef {
            kind: DefKind::Run,
            name: "rd1".into(),
            params,
            file: "t.vdb".into(),
            line: 1,
        }
    }

    #[test]
    fn loops_nest_in_the_order_written_rates_innermost() {
        let r = rd(vec![
            p("forxfersize", &["4k", "8k"], 1),
            p("iorate", &["100", "200"], 1),
            p("forrdpct", &["0", "100"], 1),
            // Written again: moves to the end, as vdbench's For_loop does.
            p("xfersize", &["16k"], 2),
        ]);
        let l = loops(&r, vec![]).unwrap();
        let names: Vec<&str> = l.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["forrdpct", "forxfersize", "foriorate"]);
        let pts = points(&l);
        let named: Vec<String> = pts.iter().map(|p| run_name("rd1", p)).collect();
        assert_eq!(
            named,
            [
                "rd1 rdpct=0 xfersize=16k iorate=100",
                "rd1 rdpct=0 xfersize=16k iorate=200",
                "rd1 rdpct=100 xfersize=16k iorate=100",
                "rd1 rdpct=100 xfersize=16k iorate=200",
            ]
        );
    }

    #[test]
    fn no_loops_is_one_point_and_the_cap_holds() {
        let r = rd(vec![p("elapsed", &["10"], 1)]);
        let l = loops(&r, vec![]).unwrap();
        assert_eq!(points(&l), vec![Vec::<(String, String)>::new()]);
        let many: Vec<String> = (0..100).map(|i| i.to_string()).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let r = rd(vec![
            p("forrdpct", &refs, 3),
            p("forseekpct", &refs, 4),
            p("forwhpct", &refs, 5),
        ]);
        let l = loops(&r, vec![]).unwrap();
        let e = check_count(&r, &l, 0).unwrap_err().0;
        assert!(
            e.contains("1000000 runs") && e.starts_with("t.vdb:1"),
            "{e}"
        );
        assert!(rd(vec![p("forrdpct", &[], 7)]).params.len() == 1);
        let e = loops(&rd(vec![p("forrdpct", &[], 7)]), vec![])
            .unwrap_err()
            .0;
        assert!(e.starts_with("t.vdb:7"), "{e}");
    }

    #[test]
    fn file_system_loops_take_their_place() {
        let r = rd(vec![
            p("forxfersize", &["4k"], 1),
            p("fordepth", &["1", "2"], 2),
            p("forthreads", &["1", "2"], 3),
        ]);
        let l = loops(&r, vec![("fordepth".into(), vec!["1".into(), "2".into()])]).unwrap();
        let names: Vec<&str> = l.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["forxfersize", "fordepth", "forthreads"]);
    }
}
