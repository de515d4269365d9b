//! What iolab does with each fio option: mapped onto iolab's keys,
//! accepted and ignored (it only tunes fio itself), or not supported
//! (with the reason); any other name is not a fio option at all
//! ([`super::names`]). docs/fio.md holds the same table for users.

use super::names::{ENGINE_OPTIONS, FIO_OPTIONS};

/// fio's aliases (options.c) and the option they stand for.
const ALIASES: &[(&str, &str)] = &[
    ("readwrite", "rw"),
    ("iodepth_batch_submit", "iodepth_batch"),
    ("iodepth_batch_complete", "iodepth_batch_complete_min"),
    ("io_limit", "io_size"),
    ("fill_fs", "fill_device"),
    ("fileoffset", "offset"),
    ("blocksize", "bs"),
    ("blockalign", "ba"),
    ("blocksize_range", "bsrange"),
    ("blocksize_unaligned", "bs_unaligned"),
    ("allrandrepeat", "randrepeat"),
    ("nr_files", "nrfiles"),
    ("timeout", "runtime"),
    ("iomem", "mem"),
    ("mem_align", "iomem_align"),
    ("ratemin", "rate_min"),
    ("ratecycle", "rate_cycle"),
    ("wait_for_previous", "stonewall"),
    ("log_max_value", "log_window_value"),
    ("log_unix_epoch", "log_alternate_epoch"),
    ("disable_bw", "disable_bw_measurement"),
    ("ss", "steadystate"),
    ("ss_dur", "steadystate_duration"),
    ("ss_ramp", "steadystate_ramp_time"),
    ("ss_interval", "steadystate_check_interval"),
];

/// Options the mapper turns into iolab keys (by their fio names).
pub const MAPPED: &[&str] = &[
    "allow_mounted_write",
    "atomic",
    "ba",
    "bs",
    "bsrange",
    "bssplit",
    "buffer_compress_percentage",
    "buffer_pattern",
    "buffered",
    "clocksource",
    "cmdprio",
    "cmdprio_bssplit",
    "cmdprio_class",
    "cmdprio_percentage",
    "continue_on_error",
    "cpus_allowed",
    "cpus_allowed_policy",
    "create_on_open",
    "dedupe_percentage",
    "direct",
    "directory",
    "do_verify",
    "end_fsync",
    "exit_what",
    "exitall",
    "fallocate",
    "fdatasync",
    "file_service_type",
    "filename",
    "filename_format",
    "filesize",
    "fill_device",
    "flow",
    "flow_id",
    "flow_sleep",
    "fsync",
    "group_reporting",
    "ignore_error",
    "invalidate",
    "io_size",
    "iodepth",
    "iodepth_batch_complete_min",
    "ioengine",
    "kb_base",
    "log_avg_msec",
    "loops",
    "name",
    "new_group",
    "norandommap",
    "nrfiles",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "number_ios",
    "numjobs",
    "offset",
    "offset_increment",
    "openfiles",
    "overwrite",
    "percentage_random",
    "percentile_list",
    "prio",
    "prioclass",
    "ramp_time",
    "random_distribution",
    "randrepeat",
    "randseed",
    "rate",
    "rate_iops",
    "rate_process",
    "refill_buffers",
    "runtime",
    "rw",
    "rwmixread",
    "rwmixwrite",
    "scramble_buffers",
    "size",
    "startdelay",
    "steadystate",
    "steadystate_duration",
    "steadystate_ramp_time",
    "stonewall",
    "sync",
    "thinktime",
    "thinktime_blocks",
    "time_based",
    "unlink",
    "verify",
    "verify_backlog",
    "verify_interval",
    "verify_pattern",
    "verify_write_sequence",
    "wait_for",
    "write_bw_log",
    "write_iops_log",
    "write_lat_log",
    "zero_buffers",
];

/// Options accepted and ignored: they tune fio itself (its clock reads,
/// statistics, logs' form, memory, threads) or ask for what iolab does
/// anyway. Listed once in the notes.
pub const IGNORED: &[(&str, &str)] = &[
    (
        "clat_percentiles",
        "iolab always keeps the latency histogram",
    ),
    ("create_fsync", "iolab creates files itself"),
    (
        "dedupe_global",
        "iolab's dedupe repeats earlier blocks of the workload",
    ),
    (
        "dedupe_mode",
        "iolab's dedupe repeats earlier blocks of the workload",
    ),
    (
        "dedupe_working_set_percentage",
        "iolab's dedupe repeats earlier blocks of the workload",
    ),
    ("create_serialize", "iolab creates files itself"),
    ("description", "a comment"),
    ("disable_bw_measurement", "tunes fio's statistics"),
    ("disable_clat", "tunes fio's statistics"),
    ("disable_lat", "tunes fio's statistics"),
    ("disable_slat", "tunes fio's statistics"),
    (
        "fixedbufs",
        "iolab's io_uring engine chooses its own set-up",
    ),
    (
        "force_async",
        "iolab's io_uring engine chooses its own set-up",
    ),
    (
        "error_dump",
        "iolab records each error with its errno and offset",
    ),
    ("gtod_cpu", "tunes fio's clock"),
    ("gtod_reduce", "tunes fio's clock"),
    (
        "iodepth_batch",
        "iolab submits everything that can be issued at once",
    ),
    (
        "iodepth_batch_complete_max",
        "iolab reaps what has completed",
    ),
    ("iodepth_low", "iolab refills the queue as I/Os complete"),
    ("iomem_align", "iolab aligns its buffers itself"),
    (
        "io_submit_mode",
        "iolab measures from each I/O's scheduled start anyway",
    ),
    (
        "lat_percentiles",
        "iolab always keeps the latency histogram",
    ),
    ("log_alternate_epoch", "the form of fio's logs"),
    ("log_offset", "the form of fio's logs"),
    ("log_prio", "the form of fio's logs"),
    ("log_issue_time", "the form of fio's logs"),
    ("mem", "iolab allocates its buffers itself"),
    (
        "nonvectored",
        "iolab's io_uring engine chooses its own set-up",
    ),
    ("per_job_logs", "the form of fio's logs"),
    ("random_generator", "iolab has its own generator"),
    ("rate_cycle", "iolab schedules every I/O on its own"),
    (
        "rate_iops_min",
        "iolab does not stop a slower job; the results show the rate reached",
    ),
    (
        "rate_min",
        "iolab does not stop a slower job; the results show the rate reached",
    ),
    (
        "registerfiles",
        "iolab's io_uring engine chooses its own set-up",
    ),
    ("significant_figures", "the form of fio's output"),
    (
        "slat_percentiles",
        "iolab always keeps the latency histogram",
    ),
    ("softrandommap", "iolab keeps no random map"),
    (
        "sqthread_poll",
        "iolab's io_uring engine chooses its own set-up",
    ),
    (
        "sqthread_poll_cpu",
        "iolab's io_uring engine chooses its own set-up",
    ),
    ("stat_type", "iolab's stat does not follow links"),
    (
        "steadystate_check_interval",
        "iolab checks at every interval",
    ),
    ("thread", "iolab's workers are always threads"),
    ("unified_rw_reporting", "iolab reports each direction"),
    (
        "unique_filename",
        "a run on this host alone shares no file; on several hosts iolab follows it",
    ),
    ("unit_base", "the form of fio's output"),
    ("userspace_reap", "a libaio tuning"),
    ("verify_async", "iolab checks in its workers"),
    ("verify_dump", "iolab records each finding"),
    ("verify_fatal", "iolab stops after max_errors findings"),
    (
        "verify_state_save",
        "iolab keeps a journal only when asked (journal)",
    ),
];

/// Why iolab does not support a fio option, where one reason fits many.
const REASONS: &[(&str, &str)] = &[
    ("zone", "iolab has no zoned-device mode"),
    ("zbd", "iolab has no zoned-device mode"),
    (
        "verify_",
        "iolab's stamps have their own layout and are checked whole",
    ),
    (
        "trim_",
        "iolab trims only through rw=trim, randtrim and trimwrite",
    ),
    ("cgroup", "iolab does not manage cgroups"),
    (
        "write_hist_log",
        "iolab writes bandwidth, IOPS and latency logs only",
    ),
    (
        "log_hist",
        "iolab writes bandwidth, IOPS and latency logs only",
    ),
    ("latency_", "iolab has no latency-target search"),
    ("max_latency", "iolab has no latency-target search"),
    ("flow_watermark", "iolab's flow control has no watermark"),
    (
        "exitall_on_error",
        "iolab stops a workload on errors with on_error, not its neighbours",
    ),
    ("verify", "iolab's stamps have their own layout"),
    (
        "ioscheduler",
        "iolab does not change the device's scheduler",
    ),
    (
        "thinktime_",
        "iolab pauses only with thinktime and thinktime_blocks",
    ),
];

/// The fio option an alias stands for (or the name itself).
pub fn canonical(key: &str) -> &str {
    ALIASES
        .iter()
        .find(|(a, _)| *a == key)
        .map(|(_, c)| *c)
        .unwrap_or(key)
}

/// What iolab does with a fio option (its canonical name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    Mapped,
    Ignored(&'static str),
    Unsupported(String),
    NotFio,
}

/// Classify `key` (canonical).
pub fn classify(key: &str) -> Class {
    if MAPPED.binary_search(&key).is_ok() {
        return Class::Mapped;
    }
    if let Some((_, why)) = IGNORED.iter().find(|(k, _)| *k == key) {
        return Class::Ignored(why);
    }
    if let Ok(i) = ENGINE_OPTIONS.binary_search_by(|(k, _)| k.cmp(&key)) {
        if ENGINE_OPTIONS[i].1.ends_with("profile") {
            // fio appends its profiles' options to its table: without the
            // profile (which iolab does not run) they change nothing.
            return Class::Ignored("an option of a fio profile, no effect on a job");
        }
        return Class::Unsupported(format!(
            "an option of fio's {} engine, which iolab does not have",
            ENGINE_OPTIONS[i].1
        ));
    }
    if FIO_OPTIONS.binary_search(&key).is_ok() {
        let why = REASONS
            .iter()
            .find(|(p, _)| key.starts_with(p))
            .map(|(_, w)| *w)
            .unwrap_or("iolab has no equivalent");
        return Class::Unsupported(why.to_string());
    }
    Class::NotFio
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_known_to_fio() {
        assert!(MAPPED.windows(2).all(|w| w[0] < w[1]), "MAPPED sorted");
        assert!(FIO_OPTIONS.windows(2).all(|w| w[0] < w[1]));
        assert!(ENGINE_OPTIONS.windows(2).all(|w| w[0].0 < w[1].0));
        for k in MAPPED {
            // fio's own options, or its io_uring/libaio engines' (cmdprio*).
            let fio =
                FIO_OPTIONS.binary_search(k).is_ok() || ENGINE_OPTIONS.iter().any(|(e, _)| e == k);
            assert!(fio, "{k} is not in fio's option table");
        }
        for (k, _) in IGNORED {
            let known =
                FIO_OPTIONS.binary_search(k).is_ok() || ENGINE_OPTIONS.iter().any(|(e, _)| e == k);
            assert!(known, "{k} is not a fio option");
            assert!(MAPPED.binary_search(k).is_err(), "{k} both");
        }
        for (a, c) in ALIASES {
            assert!(FIO_OPTIONS.binary_search(a).is_ok(), "{a}");
            assert!(FIO_OPTIONS.binary_search(c).is_ok(), "{c}");
        }
    }

    #[test]
    fn options_are_told_apart() {
        assert_eq!(classify(canonical("blocksize")), Class::Mapped);
        assert!(matches!(classify("thread"), Class::Ignored(_)));
        match classify("rbdname") {
            Class::Unsupported(w) => assert!(w.contains("rbd"), "{w}"),
            c => panic!("{c:?}"),
        }
        match classify("zonemode") {
            Class::Unsupported(w) => assert!(w.contains("zoned"), "{w}"),
            c => panic!("{c:?}"),
        }
        assert_eq!(classify("blocksise"), Class::NotFio);
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    /// docs/fio.md names every option the mapper maps or ignores.
    #[test]
    fn docs_list_every_mapped_and_ignored_option() {
        let doc = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fio.md"),
        )
        .unwrap();
        let fio_name = |k: &str| {
            ALIASES
                .iter()
                .filter(|(_, c)| *c == k)
                .map(|(a, _)| *a)
                .chain([k])
                .any(|n| doc.contains(&format!("`{n}`")))
        };
        for k in MAPPED.iter().chain(IGNORED.iter().map(|(k, _)| k)) {
            assert!(fio_name(k), "docs/fio.md does not mention `{k}`");
        }
    }
}
