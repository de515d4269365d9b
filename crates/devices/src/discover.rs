//! From a target to the block devices that carry its I/O: file -> mount ->
//! device -> partition's parent -> slaves of dm, md and multipath devices
//! -> a loop device's backing file, and on down recursively. The result is
//! a tree for reporting plus the device lists to sample.

use crate::blockdev::{BlockIndex, Kind};
use crate::cmd::CommandRunner;
use crate::mountinfo::{self, Mount};
use crate::sysroot::Sysroot;
use crate::zfs;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    File,
    Mount,
    Block,
    BackingFile,
    ZfsPool,
}

/// One step down from a target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub kind: NodeKind,
    /// A path, a mount point, a kernel device name or a pool name.
    pub name: String,
    /// For block devices: disk, partition, dm, multipath, md, loop, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_kind: Option<Kind>,
    /// What else is worth saying (file system and source of a mount, the
    /// name of a dm map).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<Node>,
}

impl Node {
    fn new(kind: NodeKind, name: impl Into<String>) -> Node {
        Node {
            kind,
            name: name.into(),
            device_kind: None,
            detail: String::new(),
            children: Vec::new(),
        }
    }

    /// Indented lines, one per node.
    pub fn render(&self, indent: usize, out: &mut String) {
        let what = match (self.kind, self.device_kind) {
            (NodeKind::Block, Some(k)) => k.as_str(),
            (NodeKind::File, _) => "file",
            (NodeKind::Mount, _) => "mount",
            (NodeKind::BackingFile, _) => "backing file",
            (NodeKind::ZfsPool, _) => "zfs pool",
            (NodeKind::Block, None) => "block",
        };
        out.push_str(&" ".repeat(indent));
        if indent > 0 {
            out.push_str("-> ");
        }
        out.push_str(&format!("{what} {}", self.name));
        if !self.detail.is_empty() {
            out.push_str(&format!(" ({})", self.detail));
        }
        out.push('\n');
        for c in &self.children {
            c.render(indent + 2, out);
        }
    }
}

/// The devices under one target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Discovery {
    pub target: String,
    pub tree: Node,
    /// The block devices directly under the target: the device a file
    /// system is on, or the named device itself. The target's own I/O is
    /// compared with these.
    pub top: Vec<String>,
    /// The bottom of the stack: whole disks with nothing under them.
    pub leaves: Vec<String>,
    /// Whole disks, dm, md and loop devices met on the way (for doctor).
    pub devices: Vec<String>,
    /// What could not be followed, and why.
    pub notes: Vec<String>,
}

impl Discovery {
    /// `top` then `leaves`, without repeats: the devices to sample.
    pub fn sample_set(&self) -> Vec<String> {
        let mut v = self.top.clone();
        for l in &self.leaves {
            if !v.contains(l) {
                v.push(l.clone());
            }
        }
        v
    }
}

/// How deep a stack may go (loop over a file on a loop over ...) before
/// discovery stops: a guard against cycles.
const MAX_DEPTH: usize = 16;

struct Ctx<'a> {
    root: &'a Sysroot,
    runner: &'a dyn CommandRunner,
    ix: BlockIndex,
    mounts: Vec<Mount>,
    notes: Vec<String>,
    leaves: Vec<String>,
    devices: Vec<String>,
    zfs_status: Option<std::collections::BTreeMap<String, Vec<zfs::Vdev>>>,
}

/// Find the devices under `target`: a path to a file or directory, a
/// device node (`/dev/sdb`, `/dev/mapper/x`) or a kernel name (`sdb`).
pub fn discover(root: &Sysroot, runner: &dyn CommandRunner, target: &str) -> Discovery {
    let mounts = mountinfo::parse(&root.read("/proc/self/mountinfo").unwrap_or_default());
    let mut cx = Ctx {
        root,
        runner,
        ix: BlockIndex::read(root),
        mounts,
        notes: Vec::new(),
        leaves: Vec::new(),
        devices: Vec::new(),
        zfs_status: None,
    };
    if cx.mounts.is_empty() {
        cx.notes
            .push("/proc/self/mountinfo is missing or empty: mounts not followed".into());
    }
    let tree = cx.target(target, 0);
    let mut top = Vec::new();
    collect_top(&tree, &mut top);
    Discovery {
        target: target.to_string(),
        tree,
        top,
        leaves: cx.leaves,
        devices: cx.devices,
        notes: cx.notes,
    }
}

/// The first block devices on each branch.
fn collect_top(n: &Node, out: &mut Vec<String>) {
    if n.kind == NodeKind::Block {
        if !out.contains(&n.name) {
            out.push(n.name.clone());
        }
        return;
    }
    for c in &n.children {
        collect_top(c, out);
    }
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

impl Ctx<'_> {
    fn target(&mut self, target: &str, depth: usize) -> Node {
        if !target.contains('/') && self.ix.knows(target) {
            return self.block(target, depth);
        }
        if target.starts_with("/dev/") {
            if let Some(name) = self.ix.resolve(self.root, target) {
                return self.block(&name, depth);
            }
            if self.root.is_live() && crate::blockdev::devno_of_block_device(target).is_some() {
                self.notes.push(format!(
                    "{target} is a block device that /sys/block does not show"
                ));
                return Node::new(NodeKind::File, target);
            }
        }
        self.file(target, NodeKind::File, depth)
    }

    fn file(&mut self, path: &str, kind: NodeKind, depth: usize) -> Node {
        let mut node = Node::new(kind, path);
        let mut lookup = path.to_string();
        if self.root.is_live() {
            let p = std::path::Path::new(path);
            if let Some(dev) = crate::blockdev::devno_of_block_device(path)
                .and_then(|d| self.ix.by_devno.get(&d).cloned())
            {
                node.children.push(self.block(&dev, depth + 1));
                return node;
            }
            // A file that does not exist yet lives where its directory is.
            let canon = p
                .canonicalize()
                .or_else(|_| {
                    p.parent()
                        .filter(|d| !d.as_os_str().is_empty())
                        .unwrap_or(std::path::Path::new("."))
                        .canonicalize()
                })
                .ok();
            match canon {
                Some(c) => lookup = c.to_string_lossy().into_owned(),
                None => {
                    self.notes.push(format!(
                        "{path}: no such file or directory; nothing under it"
                    ));
                    return node;
                }
            }
            if lookup != path && kind == NodeKind::File {
                node.detail = format!("is {lookup}");
            }
        }
        if !lookup.starts_with('/') {
            self.notes
                .push(format!("{path}: not an absolute path under the sysroot"));
            return node;
        }
        let Some(m) = mountinfo::mount_of(&self.mounts, &lookup).cloned() else {
            if !self.mounts.is_empty() {
                self.notes.push(format!("{path}: no mount holds it"));
            }
            return node;
        };
        let mut mn = Node::new(NodeKind::Mount, &m.mount_point);
        mn.detail = format!("{} on {}, {}", m.fstype, m.source, m.options);
        if depth >= MAX_DEPTH {
            self.notes
                .push(format!("{path}: stack deeper than {MAX_DEPTH}; stopped"));
        } else if m.fstype == "zfs" {
            let pool = m.source.split('/').next().unwrap_or("").to_string();
            mn.children.push(self.zfs_pool(&pool, depth + 1));
        } else if let Some(dev) = self.mount_device(&m) {
            mn.children.push(self.block(&dev, depth + 1));
        } else {
            self.notes.push(format!(
                "{}: {} on {} is not on a block device; no device statistics",
                m.mount_point, m.fstype, m.source
            ));
        }
        node.children.push(mn);
        node
    }

    fn mount_device(&self, m: &Mount) -> Option<String> {
        if !m.dev.starts_with("0:") {
            if let Some(n) = self.ix.by_devno.get(&m.dev) {
                return Some(n.clone());
            }
        }
        if m.source.starts_with("/dev/") {
            return self.ix.resolve(self.root, &m.source);
        }
        None
    }

    fn zfs_pool(&mut self, pool: &str, depth: usize) -> Node {
        let mut n = Node::new(NodeKind::ZfsPool, pool);
        if self.zfs_status.is_none() {
            match self.runner.run("zpool", &["status", "-P", "-L"]) {
                Ok(t) => self.zfs_status = Some(zfs::parse_status(&t)),
                Err(e) => {
                    self.notes
                        .push(format!("zfs pool {pool}: vdevs not found ({e})"));
                    self.zfs_status = Some(Default::default());
                }
            }
        }
        let vdevs = self
            .zfs_status
            .as_ref()
            .and_then(|s| s.get(pool).cloned())
            .unwrap_or_default();
        for v in vdevs {
            match self.ix.resolve(self.root, &v.path) {
                Some(d) => n.children.push(self.block(&d, depth + 1)),
                None => self.notes.push(format!(
                    "zfs pool {pool}: vdev {} not found in /sys/block",
                    v.path
                )),
            }
        }
        n
    }

    fn block(&mut self, name: &str, depth: usize) -> Node {
        let kind = self.ix.kind(self.root, name);
        let mut n = Node::new(NodeKind::Block, name);
        n.device_kind = Some(kind);
        let dir = self.ix.sys_dir(name);
        if depth >= MAX_DEPTH {
            self.notes
                .push(format!("{name}: stack deeper than {MAX_DEPTH}; stopped"));
            return n;
        }
        match kind {
            Kind::Partition => {
                let parent = self.ix.parent[name].clone();
                n.children.push(self.block(&parent, depth + 1));
            }
            Kind::Dm | Kind::Multipath | Kind::Md => {
                push_unique(&mut self.devices, name);
                if let Some(dm) = self.root.read(&format!("{dir}/dm/name")) {
                    n.detail = dm;
                }
                if let Some(level) = self.root.read(&format!("{dir}/md/level")) {
                    n.detail = level;
                }
                let slaves = self.root.list(&format!("{dir}/slaves"));
                if slaves.is_empty() {
                    self.notes
                        .push(format!("{name}: no slaves listed in {dir}/slaves"));
                    push_unique(&mut self.leaves, name);
                }
                for s in slaves {
                    n.children.push(self.block(&s, depth + 1));
                }
            }
            Kind::Loop => {
                push_unique(&mut self.devices, name);
                match self.root.read(&format!("{dir}/loop/backing_file")) {
                    Some(f) => {
                        let f = f.trim_end_matches(" (deleted)").to_string();
                        let under = self.file(&f, NodeKind::BackingFile, depth + 1);
                        let mut below = Vec::new();
                        collect_top(&under, &mut below);
                        if below.is_empty() {
                            // Backing file on tmpfs or similar: the loop
                            // device is the bottom of what can be sampled.
                            push_unique(&mut self.leaves, name);
                        }
                        n.children.push(under);
                    }
                    None => push_unique(&mut self.leaves, name),
                }
            }
            _ => {
                push_unique(&mut self.devices, name);
                push_unique(&mut self.leaves, name);
            }
        }
        n
    }
}
