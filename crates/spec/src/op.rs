//! The operations a workload issues, one definition for every crate:
//! the run core's tables ([`iolab_raw::OpStats`] in the raw crate), the
//! file-system workload's mixes and flows ([`crate::fs`]) and the result
//! document's `operations` keys.

use serde::{Deserialize, Serialize};

/// An operation a workload issues. Block workloads issue reads and
/// writes; file-system workloads add the metadata operations. The names
/// are the result document's keys (`operations.<name>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Read,
    Write,
    Fsync,
    Open,
    Close,
    Create,
    Delete,
    Stat,
    Append,
    Mkdir,
    Rmdir,
    Readdir,
    Rename,
    /// Writing over existing data of a file (vdbench `rewrite`).
    Rewrite,
    Fdatasync,
    /// vdbench `getattr`: the attributes of an open file (fstat).
    Getattr,
    /// vdbench `setattr`: change attributes (mode and times).
    Setattr,
    /// vdbench `access`: faccessat on a path.
    Access,
    /// A discard (fio `rw=trim`): the block's data is dropped (BLKDISCARD
    /// on a device, a punched hole in a file). Block workloads only; its
    /// bytes are the bytes trimmed, not data moved.
    Trim,
}

impl Op {
    /// Every operation, in table order.
    pub const ALL: [Op; 19] = [
        Op::Read,
        Op::Write,
        Op::Fsync,
        Op::Open,
        Op::Close,
        Op::Create,
        Op::Delete,
        Op::Stat,
        Op::Append,
        Op::Mkdir,
        Op::Rmdir,
        Op::Readdir,
        Op::Rename,
        Op::Rewrite,
        Op::Fdatasync,
        Op::Getattr,
        Op::Setattr,
        Op::Access,
        Op::Trim,
    ];
    pub const COUNT: usize = Op::ALL.len();

    /// The operations a file-system workload can issue, in table order:
    /// every one but trim, which `ALL` keeps last.
    pub const FS: [Op; Op::COUNT - 1] = {
        assert!(matches!(Op::ALL[Op::COUNT - 1], Op::Trim));
        let mut fs = [Op::Read; Op::COUNT - 1];
        let mut i = 0;
        while i < fs.len() {
            fs[i] = Op::ALL[i];
            i += 1;
        }
        fs
    };

    /// The name used in result documents and tables.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Fsync => "fsync",
            Op::Open => "open",
            Op::Close => "close",
            Op::Create => "create",
            Op::Delete => "delete",
            Op::Stat => "stat",
            Op::Append => "append",
            Op::Mkdir => "mkdir",
            Op::Rmdir => "rmdir",
            Op::Readdir => "readdir",
            Op::Rename => "rename",
            Op::Rewrite => "rewrite",
            Op::Fdatasync => "fdatasync",
            Op::Getattr => "getattr",
            Op::Setattr => "setattr",
            Op::Access => "access",
            Op::Trim => "trim",
        }
    }

    pub fn from_name(s: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|o| o.name() == s)
    }

    /// True for operations that move data (their bytes count as
    /// throughput); metadata operations count ops only. A trim moves no
    /// data: its bytes (the bytes trimmed) are its own figure, not part
    /// of a workload's total throughput.
    pub fn moves_data(self) -> bool {
        matches!(self, Op::Read | Op::Write | Op::Append | Op::Rewrite)
    }

    /// Operations whose bytes are written (the rest of the data
    /// operations read).
    pub fn writes_data(self) -> bool {
        matches!(self, Op::Write | Op::Append | Op::Rewrite)
    }

    /// File-system operations that change what is there (data, names,
    /// directories or attributes): a file-system workload without any of
    /// them only reads, so it may run on a read-only anchor.
    pub fn changes_files(self) -> bool {
        self.writes_data()
            || matches!(
                self,
                Op::Create | Op::Delete | Op::Mkdir | Op::Rmdir | Op::Rename | Op::Setattr
            )
    }
}
