//! Seed inputs of each family: small valid inputs the mutations start
//! from, also the seed corpus of the cargo-fuzz targets (`fuzz/run` copies
//! them). Result documents and the journal were written by iolab itself
//! (null engine, then host details blanked); the agent protocol's
//! frames are every message kind of each direction, from a real agent's
//! session (psync on a temporary file) and written by hand; the job files are the
//! repository's examples (fio's are written for the seeds); the rest is written by hand to the formats'
//! layouts. Regenerate the documents when the schema changes: a test
//! checks every seed still parses.

/// The seeds of `family` (a name of [`crate::FAMILIES`]): name and bytes.
pub fn seeds(family: &str) -> &'static [(&'static str, &'static [u8])] {
    match family {
        "units" => &[
            ("flags.txt", include_bytes!("../seeds/units/flags.txt")),
            (
                "sizes-durations.txt",
                include_bytes!("../seeds/units/sizes-durations.txt"),
            ),
        ],
        "jobfile" => &[
            ("sweep.toml", include_bytes!("../seeds/jobfile/sweep.toml")),
            ("hosts.toml", include_bytes!("../seeds/jobfile/hosts.toml")),
            (
                "examples/cached-vs-uncached.toml",
                include_bytes!("../../../examples/cached-vs-uncached.toml"),
            ),
            (
                "examples/iozone.toml",
                include_bytes!("../../../examples/iozone.toml"),
            ),
            (
                "examples/oltp.toml",
                include_bytes!("../../../examples/oltp.toml"),
            ),
            (
                "examples/rate-latency.toml",
                include_bytes!("../../../examples/rate-latency.toml"),
            ),
            (
                "examples/seq-streams.toml",
                include_bytes!("../../../examples/seq-streams.toml"),
            ),
            (
                "examples/staggered-streams.toml",
                include_bytes!("../../../examples/staggered-streams.toml"),
            ),
            (
                "examples/read-while-write.toml",
                include_bytes!("../../../examples/read-while-write.toml"),
            ),
            (
                "examples/db-with-backup.toml",
                include_bytes!("../../../examples/db-with-backup.toml"),
            ),
        ],
        "fio" => &[
            ("mixed.fio", include_bytes!("../seeds/fio/mixed.fio")),
            ("include.fio", include_bytes!("../seeds/fio/include.fio")),
            ("files.fio", include_bytes!("../seeds/fio/files.fio")),
        ],
        "vdbench" => &[
            ("raw.vdb", include_bytes!("../seeds/vdbench/raw.vdb")),
            ("fs.vdb", include_bytes!("../seeds/vdbench/fs.vdb")),
            ("hosts.vdb", include_bytes!("../seeds/vdbench/hosts.vdb")),
        ],
        "filebench" => &[
            (
                "fb-oltp.f",
                include_bytes!("../../jobfile/tests/filebench/fb-oltp.f"),
            ),
            (
                "composite.f",
                include_bytes!("../../jobfile/tests/filebench/composite.f"),
            ),
            (
                "randvars.f",
                include_bytes!("../../jobfile/tests/filebench/randvars.f"),
            ),
        ],
        "result_doc" => &[
            (
                "single.json",
                include_bytes!("../seeds/result_doc/single.json"),
            ),
            (
                "study.json",
                include_bytes!("../seeds/result_doc/study.json"),
            ),
            (
                "sweep.json",
                include_bytes!("../seeds/result_doc/sweep.json"),
            ),
            (
                "verify-findings.json",
                include_bytes!("../seeds/result_doc/verify-findings.json"),
            ),
            (
                "verify-run.json",
                include_bytes!("../seeds/result_doc/verify-run.json"),
            ),
            (
                "workloads-events.json",
                include_bytes!("../seeds/result_doc/workloads-events.json"),
            ),
            (
                "multi-host.json",
                include_bytes!("../seeds/result_doc/multi-host.json"),
            ),
        ],
        "journal" => &[
            ("closed.bin", include_bytes!("../seeds/journal/closed.bin")),
            (
                "open-two-targets.bin",
                include_bytes!("../seeds/journal/open-two-targets.bin"),
            ),
        ],
        "stamps" => &[
            (
                "good-block.bin",
                include_bytes!("../seeds/stamps/good-block.bin"),
            ),
            (
                "misdirected-unknown-pattern.bin",
                include_bytes!("../seeds/stamps/misdirected-unknown-pattern.bin"),
            ),
            (
                "torn-corrupt-zeroed.bin",
                include_bytes!("../seeds/stamps/torn-corrupt-zeroed.bin"),
            ),
        ],
        "procfs" => &[
            (
                "diskstats.txt",
                include_bytes!("../seeds/procfs/diskstats.txt"),
            ),
            (
                "mountinfo.txt",
                include_bytes!("../seeds/procfs/mountinfo.txt"),
            ),
            (
                "multipathd.txt",
                include_bytes!("../seeds/procfs/multipathd.txt"),
            ),
            ("swaps.txt", include_bytes!("../seeds/procfs/swaps.txt")),
            ("sysfs.txt", include_bytes!("../seeds/procfs/sysfs.txt")),
            ("zpool.txt", include_bytes!("../seeds/procfs/zpool.txt")),
        ],
        "signatures" => &[
            (
                "ext4-1mib.bin",
                include_bytes!("../seeds/signatures/ext4-1mib.bin"),
            ),
            (
                "gpt-protective-mbr.bin",
                include_bytes!("../seeds/signatures/gpt-protective-mbr.bin"),
            ),
            (
                "lvm-swap.bin",
                include_bytes!("../seeds/signatures/lvm-swap.bin"),
            ),
            (
                "md-16mib.bin",
                include_bytes!("../seeds/signatures/md-16mib.bin"),
            ),
        ],
        "remote" => &[
            (
                "to-agent.bin",
                include_bytes!("../seeds/remote/to-agent.bin"),
            ),
            (
                "from-agent-session.bin",
                include_bytes!("../seeds/remote/from-agent-session.bin"),
            ),
            (
                "from-agent-run.bin",
                include_bytes!("../seeds/remote/from-agent-run.bin"),
            ),
            (
                "from-agent-done.bin",
                include_bytes!("../seeds/remote/from-agent-done.bin"),
            ),
        ],
        _ => &[],
    }
}
