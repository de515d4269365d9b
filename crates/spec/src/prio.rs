//! I/O priorities (fio `prioclass`/`prio` and its io_uring/libaio engines'
//! `cmdprio_*` options): Linux ioprio values (class in bits 13-15, hint in
//! bits 3-12, level in bits 0-2) and the share of I/Os, per direction and
//! optionally per block size, that carry another priority than the
//! workload's own. Parsing and checks only; the block driver draws.

use crate::units::parse_size;
use serde::{Deserialize, Serialize};

/// An ioprio value from class (0 none, 1 RT, 2 BE, 3 idle), level (0-7)
/// and hint (0-1023, fio's `cmdprio_hint`, e.g. a CDL descriptor).
pub fn ioprio(class: u16, level: u16, hint: u16) -> u16 {
    (class << 13) | (hint << 3) | level
}

/// A class by name or number: `none`/0, `rt`/1, `be`/2, `idle`/3.
pub fn parse_class(s: &str) -> Result<u16, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "0" | "none" => Ok(0),
        "1" | "rt" | "realtime" => Ok(1),
        "2" | "be" | "best-effort" => Ok(2),
        "3" | "idle" => Ok(3),
        o => Err(format!(
            "priority class {o} is not known; give rt (1), be (2) or idle (3)"
        )),
    }
}

fn level(s: &str) -> Result<u16, String> {
    match s.trim().parse::<u16>() {
        Ok(n) if n <= 7 => Ok(n),
        _ => Err(format!("priority level {s} is not 0 to 7")),
    }
}

/// One priority and the share of I/Os (percent) that carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrioShare {
    pub pct: u32,
    pub ioprio: u16,
}

/// The priorities of the I/Os of one block size (`bs` 0: every size).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BsPrio {
    pub bs: u64,
    pub prios: Vec<PrioShare>,
}

/// Per direction, the I/Os that carry their own priority (fio's
/// cmdprio_percentage / cmdprio_bssplit); the rest carry the workload's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CmdPrio {
    pub read: Vec<BsPrio>,
    pub write: Vec<BsPrio>,
}

/// `a,b` -> [a, b]; `a` -> [a, a] (one value for both directions).
fn per_dir(s: &str) -> [&str; 2] {
    match s.split_once(',') {
        Some((r, w)) => [r, w],
        None => [s, s],
    }
}

/// The `cmdprio_*` keys (each `READ[,WRITE]`): `pct` with `class`
/// (default rt) and `level` (default 0), or `bssplit` entries
/// `BS/PCT[/CLASS/LEVEL[/HINT]]` joined by `:`. `None` when neither.
pub fn parse_cmdprio(
    pct: Option<&str>,
    class: Option<&str>,
    lvl: Option<&str>,
    bssplit: Option<&str>,
) -> Result<Option<CmdPrio>, String> {
    let classes = class.map(per_dir).unwrap_or(["1", "1"]);
    let levels = lvl.map(per_dir).unwrap_or(["0", "0"]);
    let mut dirs: [Vec<BsPrio>; 2] = Default::default();
    match (pct, bssplit) {
        (Some(_), Some(_)) => {
            return Err(
                "--cmdprio-pct and --cmdprio-bssplit exclude each other (fio's too); give one"
                    .into(),
            )
        }
        (None, None) => return Ok(None),
        (Some(p), None) => {
            for (d, p) in per_dir(p).iter().enumerate() {
                let pct = match p.trim().trim_end_matches('%').parse::<u32>() {
                    Ok(n) if n <= 100 => n,
                    _ => return Err(format!("--cmdprio-pct {p} is not a percentage 0 to 100")),
                };
                let ioprio = ioprio(parse_class(classes[d])?, level(levels[d])?, 0);
                if pct > 0 {
                    dirs[d].push(BsPrio {
                        bs: 0,
                        prios: vec![PrioShare { pct, ioprio }],
                    });
                }
            }
        }
        (None, Some(b)) => {
            for (d, list) in per_dir(b).iter().enumerate() {
                let default = ioprio(parse_class(classes[d])?, level(levels[d])?, 0);
                dirs[d] = bssplit_dir(list, default)?;
            }
        }
    }
    let [read, write] = dirs;
    // No share of any I/O given a priority (`cmdprio_percentage=0`) is
    // no cmdprio at all.
    if read.is_empty() && write.is_empty() {
        return Ok(None);
    }
    Ok(Some(CmdPrio { read, write }))
}

/// One direction's `BS/PCT[/CLASS/LEVEL[/HINT]]:...`; entries of one size
/// add up (at most 100 %); `default` is the short form's priority.
fn bssplit_dir(list: &str, default: u16) -> Result<Vec<BsPrio>, String> {
    let mut out: Vec<BsPrio> = Vec::new();
    for e in list.split(':').filter(|e| !e.trim().is_empty()) {
        let f: Vec<&str> = e.split('/').collect();
        let bad = || format!("--cmdprio-bssplit entry {e} is not BS/PCT[/CLASS/LEVEL[/HINT]]");
        let (bs, pct) = match f.as_slice() {
            [bs, pct, ..] => (
                parse_size(bs).map_err(|_| bad())?,
                pct.trim().parse::<u32>().map_err(|_| bad())?,
            ),
            _ => return Err(bad()),
        };
        let ioprio = match f.len() {
            2 => default,
            4 | 5 => {
                let hint = f.get(4).map_or(Ok(0), |h| match h.trim().parse::<u16>() {
                    Ok(n) if n < 1024 => Ok(n),
                    _ => Err(format!("--cmdprio-bssplit hint {h} is not 0 to 1023")),
                })?;
                ioprio(parse_class(f[2])?, level(f[3])?, hint)
            }
            _ => return Err(bad()),
        };
        let i = match out.iter().position(|b| b.bs == bs) {
            Some(i) => i,
            None => {
                out.push(BsPrio {
                    bs,
                    prios: Vec::new(),
                });
                out.len() - 1
            }
        };
        if pct > 0 {
            out[i].prios.push(PrioShare { pct, ioprio });
        }
        if out[i].prios.iter().map(|p| p.pct).sum::<u32>() > 100 {
            return Err(format!(
                "--cmdprio-bssplit: the shares for {e}'s size add up to more than 100 %"
            ));
        }
    }
    out.retain(|b| !b.prios.is_empty());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentage_form_per_direction() {
        let c = parse_cmdprio(Some("20,10"), Some("1,3"), None, None)
            .unwrap()
            .unwrap();
        assert_eq!(
            c.read,
            vec![BsPrio {
                bs: 0,
                prios: vec![PrioShare {
                    pct: 20,
                    ioprio: 1 << 13
                }]
            }]
        );
        assert_eq!(
            c.write[0].prios[0],
            PrioShare {
                pct: 10,
                ioprio: 3 << 13
            }
        );
        assert!(parse_cmdprio(Some("101"), None, None, None).is_err());
    }

    #[test]
    fn bssplit_forms_as_fios_example() {
        let c = parse_cmdprio(None, Some("1"), Some("0"), Some("64k/100:1024k/0,1024k/0"))
            .unwrap()
            .unwrap();
        assert_eq!(
            c.read,
            vec![BsPrio {
                bs: 65536,
                prios: vec![PrioShare {
                    pct: 100,
                    ioprio: 1 << 13
                }]
            }]
        );
        assert!(c.write.is_empty());
        let c = parse_cmdprio(
            None,
            None,
            None,
            Some("1M/10/2/0/1:1M/30/2/0/2:2M/90/2/0/0"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            c.read[0].prios,
            vec![
                PrioShare {
                    pct: 10,
                    ioprio: (2 << 13) | (1 << 3)
                },
                PrioShare {
                    pct: 30,
                    ioprio: (2 << 13) | (2 << 3)
                },
            ]
        );
        assert_eq!(c.read, c.write);
        assert!(parse_cmdprio(None, None, None, Some("4k/60/1/0:4k/50/3/0")).is_err());
        assert!(parse_cmdprio(None, None, None, Some("4k/5/9/0")).is_err());
        assert!(parse_cmdprio(Some("5"), None, None, Some("4k/5")).is_err());
    }
}
