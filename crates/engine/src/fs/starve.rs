//! A workload whose operations can never find a file in the state they
//! need: `create` on a fileset whose files all exist (the default
//! `prealloc` 100), `rmdir` with no side directory made, `read` with every
//! file deleted. Such an operation is skipped at every start; when a
//! thread starts nothing else, it stops the workload at once with a
//! reason that says what to change, instead of skipping until the end
//! (or for a second) and reporting no operations.
//!
//! "Never" is decided on the cold path, after a run of skips (16, 32,
//! 64, ... in a row): no file of the fileset is in the state the
//! operation needs, held or not (a scan of the table, claims ignored),
//! and no operation of the workload on that fileset makes that state
//! (`create` makes files, `delete` missing files, `mkdir` and `rmdir`
//! side directories, `rename` moves files back). Otherwise the skips are
//! left to the slower rule of `action.rs` (10,000 in a row, or a second
//! of nothing else), since another thread may yet make a file.

use super::table::{FileTable, DIR, EXISTS, MOVED};
use iolab_raw::Op;
use iolab_spec::fs::FsSpec;

/// The state a file must be in for an operation to pick it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Need {
    /// Neither at its name nor moved: `create`.
    Missing,
    /// At its name: every operation on an existing file.
    File,
    /// At its name or its rename side name: `rename`.
    Named,
    /// Its side directory exists: `rmdir`.
    Dir,
    /// Its side directory does not: `mkdir`.
    NoDir,
}

impl Need {
    /// What `op` needs of the file it picks (`readdir` picks a directory
    /// of the layout, always there). The one definition: the claims of
    /// `action.rs` and the hopeless test below both use it.
    #[inline]
    pub fn of(op: Op) -> Option<Need> {
        Some(match op {
            Op::Create => Need::Missing,
            Op::Rename => Need::Named,
            Op::Mkdir => Need::NoDir,
            Op::Rmdir => Need::Dir,
            Op::Readdir => return None,
            _ => Need::File,
        })
    }

    /// The state as the claim of a file alone tests it, `bits & mask ==
    /// want`; `None` for [`Need::Named`] (either of two bits: `rename`
    /// picks its file itself).
    #[inline]
    pub fn bits(self) -> Option<(u8, u8)> {
        Some(match self {
            Need::Missing => (EXISTS | MOVED, 0),
            Need::File => (EXISTS, EXISTS),
            Need::Named => return None,
            Need::Dir => (DIR, DIR),
            Need::NoDir => (DIR, 0),
        })
    }

    /// A file with state bits `bits` is in this state.
    pub fn holds(self, bits: u8) -> bool {
        match self.bits() {
            Some((mask, want)) => bits & mask == want,
            None => bits & (EXISTS | MOVED) != 0,
        }
    }

    /// `op` puts a file in this state.
    fn made_by(self, op: Op) -> bool {
        match self {
            Need::Missing => op == Op::Delete,
            Need::File => matches!(op, Op::Create | Op::Rename),
            Need::Named => op == Op::Create,
            Need::Dir => op == Op::Mkdir,
            Need::NoDir => op == Op::Rmdir,
        }
    }
}

/// The operations of the workload that pick their own files, per
/// fileset (what can change the files' states).
pub(super) fn makers(fs: &FsSpec) -> Vec<Vec<Op>> {
    let mut out = vec![Vec::new(); fs.filesets.len()];
    for s in fs.work.steps() {
        if let Some(v) = out.get_mut(s.fileset as usize) {
            if !v.contains(&s.op) {
                v.push(s.op);
            }
        }
    }
    out
}

/// `op` can never find a file of `table`: none is in the state it needs
/// and none of `makers` puts one there. A scan of every file (cold).
pub(super) fn hopeless(op: Op, table: &FileTable, makers: &[Op]) -> bool {
    let Some(need) = Need::of(op) else {
        return false;
    };
    !makers.iter().any(|&m| need.made_by(m)) && !table.any(|bits| need.holds(bits))
}

/// Why the workload stopped when `op` could never find a file of
/// fileset `set`, and what to change (`flow`: the work is flows).
pub(super) fn reason(op: Op, set: &str, flow: bool) -> String {
    let work = if flow { "flow" } else { "mix" };
    let name = op.name();
    let why = match Need::of(op) {
        Some(Need::Missing) => format!(
            "create found no missing file: every file of fileset {set} exists; give --prealloc below 100 or add delete to the {work}"
        ),
        Some(Need::Dir) => format!(
            "rmdir found no directory to remove: no side directory (fN.d) of fileset {set} exists; add mkdir to the {work}"
        ),
        Some(Need::NoDir) => format!(
            "mkdir found no file without its directory: every side directory (fN.d) of fileset {set} exists; add rmdir to the {work}"
        ),
        _ => format!(
            "{name} found no file: no file of fileset {set} exists (all deleted, or none made before the run); add create to the {work} or give --prealloc above 0"
        ),
    };
    format!("stopped: {why}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_is_hopeless_only_when_nothing_can_make_its_file() {
        let t = FileTable::new(3);
        for i in 0..3 {
            t.init(i, EXISTS, 0);
        }
        // Every file exists: create has nothing, unless something deletes.
        assert!(hopeless(Op::Create, &t, &[Op::Create]));
        assert!(!hopeless(Op::Create, &t, &[Op::Create, Op::Delete]));
        assert!(!hopeless(Op::Read, &t, &[Op::Read]));
        // No side directory: rmdir has nothing, unless mkdir runs too.
        assert!(hopeless(Op::Rmdir, &t, &[Op::Rmdir]));
        assert!(!hopeless(Op::Rmdir, &t, &[Op::Rmdir, Op::Mkdir]));
        assert!(!hopeless(Op::Mkdir, &t, &[Op::Mkdir]));
        assert!(!hopeless(Op::Readdir, &t, &[Op::Readdir]));
        // One file missing: create has it; a moved file is still renamed.
        t.init(1, 0, 0);
        t.init(2, MOVED, 0);
        assert!(!hopeless(Op::Create, &t, &[Op::Create]));
        t.init(0, 0, 0);
        assert!(hopeless(Op::Read, &t, &[Op::Read, Op::Delete]));
        assert!(!hopeless(Op::Read, &t, &[Op::Read, Op::Rename]));
        assert!(!hopeless(Op::Rename, &t, &[Op::Rename]));
        let why = reason(Op::Create, "fs", false);
        assert!(
            why.contains("--prealloc below 100 or add delete to the mix"),
            "{why}"
        );
        assert!(reason(Op::Rmdir, "fs", true).contains("add mkdir to the flow"));
    }
}
