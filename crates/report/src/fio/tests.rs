//! The exporters against documents built from hand-made raw runs: figures
//! equal the document's own, groups merge exactly, json+ adds bins, logs
//! are named and numbered as fio names them.

use super::*;
use crate::build_run;
use crate::model::{ResultDoc, SteadyState};
use crate::testraw::{add_op, run_of, workload};
use iolab_raw::{Op, OpStats};
use iolab_spec::JobOrigin;
use serde_json::Value;

/// A reader (3 intervals of 1000 reads, 20-220 us) and a writer (one
/// interval of 500 writes, 100-900 us) in one run.
fn raw_run() -> iolab_raw::RunRaw {
    let iv = |op: Op, n: u64, lo: u64, hi: u64| {
        let mut s = OpStats::default();
        add_op(&mut s, op, n, 4096, lo, hi);
        s
    };
    let reader = workload(
        "reader",
        "randread",
        (0..3)
            .map(|i| (i, iv(Op::Read, 1000 + 100 * i as u64, 20_000, 220_000)))
            .collect(),
    );
    let writer = workload(
        "writer",
        "write",
        vec![(1, iv(Op::Write, 500, 100_000, 900_000))],
    );
    run_of("pair", vec![reader, writer], 3)
}

fn doc_with(raw: iolab_raw::RunRaw) -> ResultDoc {
    let mut d = ResultDoc::new();
    d.started_at = "2027-01-15T10:00:00.000Z".into();
    d.finished_at = Some("2027-01-15T10:00:04.000Z".into());
    d.runs.push(build_run(&raw));
    d
}

fn fio_origin(
    section: &str,
    group: u32,
    group_reporting: bool,
    opts: &[(&str, &str)],
) -> JobOrigin {
    JobOrigin {
        format: "fio".into(),
        file: Some("job.fio".into()),
        section: section.into(),
        options: opts
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        group,
        group_reporting,
    }
}

fn us_to_ns(x: f64) -> u64 {
    (x * 1000.0).round() as u64
}

#[test]
fn one_entry_per_workload_with_the_documents_figures() {
    let doc = doc_with(raw_run());
    let v = json(&doc, false);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    let w = &doc.runs[0].workloads;
    for (j, (wl, dir)) in jobs.iter().zip([(&w[0], "read"), (&w[1], "write")]) {
        assert_eq!(j["jobname"], wl.name.as_str());
        let s = if dir == "read" {
            &wl.summary.read
        } else {
            &wl.summary.write
        };
        let d = &j[dir];
        assert_eq!(d["iops"].as_f64().unwrap(), s.iops, "{dir} iops");
        assert_eq!(d["total_ios"].as_u64().unwrap(), s.ops);
        assert_eq!(d["io_bytes"].as_u64().unwrap(), s.bytes);
        assert_eq!(d["io_kbytes"].as_u64().unwrap(), s.bytes / 1024);
        assert_eq!(
            d["runtime"].as_u64().unwrap(),
            (wl.measured_s * 1000.0).round() as u64
        );
        let p = &d["clat_ns"]["percentile"];
        for (k, want) in [
            ("50.000000", s.lat_us.p50),
            ("90.000000", s.lat_us.p90),
            ("99.000000", s.lat_us.p99),
            ("99.900000", s.lat_us.p99_9),
            ("99.990000", s.lat_us.p99_99),
        ] {
            assert_eq!(p[k].as_u64().unwrap(), us_to_ns(want), "{dir} {k}");
        }
        assert_eq!(p.as_object().unwrap().len(), 17);
        assert_eq!(
            d["clat_ns"]["min"].as_u64().unwrap(),
            us_to_ns(s.lat_us.min)
        );
        assert_eq!(
            d["clat_ns"]["max"].as_u64().unwrap(),
            us_to_ns(s.lat_us.max)
        );
        assert!((d["clat_ns"]["mean"].as_f64().unwrap() - s.lat_us.mean * 1000.0).abs() < 1e-6);
        assert_eq!(d["lat_ns"]["N"], d["clat_ns"]["N"]);
        assert!(d["lat_ns"].get("percentile").is_none());
        assert_eq!(d["slat_ns"]["N"], 0);
        assert!(d["clat_ns"].get("bins").is_none());
        // Per-interval samples: the workload's measured intervals.
        assert_eq!(
            d["iops_samples"].as_u64().unwrap(),
            wl.intervals.len() as u64
        );
    }
    // The reader's intervals: 1000, 1100, 1200 reads in 1 s each.
    let r = &jobs[0]["read"];
    assert_eq!(r["iops_min"], 1000);
    assert_eq!(r["iops_max"], 1200);
    assert_eq!(r["iops_mean"].as_f64().unwrap(), 1100.0);
    assert_eq!(r["iops_stddev"].as_f64().unwrap(), 100.0);
    assert_eq!(r["bw_min"], 4000);
    // Each workload is its own group here (iolab's own jobs): all of it.
    assert_eq!(jobs[0]["write"]["total_ios"], 0);
    assert_eq!(jobs[0]["write"]["runtime"], 0);
    assert_eq!(
        v["fio version"].as_str().unwrap(),
        format!("iolab-{}", doc.tool_version)
    );
    // finished_at, 2027-01-15T10:00:04Z.
    assert_eq!(v["timestamp"], 1_800_007_204u64);
    assert_eq!(v["timestamp_ms"], 1_800_007_204_000u64);
    assert_eq!(v["jobs"][0]["elapsed"], 4);
}

#[test]
fn group_reporting_merges_a_groups_workloads_exactly() {
    let mut doc = doc_with(raw_run());
    for w in doc.runs[0].workloads.iter_mut() {
        w.spec.origin = Some(fio_origin(&w.name.clone(), 2, true, &[("rw", "randrw")]));
    }
    let v = json(&doc, true);
    let jobs = v["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 1);
    let j = &jobs[0];
    assert_eq!(j["jobname"], "reader");
    assert_eq!(j["groupid"], 2);
    let run = &doc.runs[0];
    // The run's figures are the workloads' together.
    for (dir, s) in [("read", &run.summary.read), ("write", &run.summary.write)] {
        assert_eq!(j[dir]["total_ios"].as_u64().unwrap(), s.ops);
        let p = &j[dir]["clat_ns"]["percentile"];
        assert_eq!(
            p["99.000000"].as_u64().unwrap(),
            us_to_ns(s.lat_us.p99),
            "{dir}"
        );
        assert_eq!(
            p["50.000000"].as_u64().unwrap(),
            us_to_ns(s.lat_us.p50),
            "{dir}"
        );
        let bins = j[dir]["clat_ns"]["bins"].as_object().unwrap();
        let n: u64 = bins.values().map(|c| c.as_u64().unwrap()).sum();
        assert_eq!(n, s.ops, "{dir} bins");
    }
    assert_eq!(j["job options"]["rw"], "randrw");
    // The reader's and writer's longest measured time is the runtime.
    assert_eq!(j["read"]["runtime"], 3000);
    // Without group_reporting: two entries of the same group, each a
    // share of the group's bandwidth.
    for w in doc.runs[0].workloads.iter_mut() {
        w.spec.origin.as_mut().unwrap().group_reporting = false;
    }
    let v = json(&doc, false);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 2);
    assert_eq!(v["jobs"][0]["groupid"], 2);
    assert_eq!(v["jobs"][1]["groupid"], 2);
    let agg = v["jobs"][0]["read"]["bw_agg"].as_f64().unwrap();
    assert!(agg > 99.0 && agg <= 100.0, "{agg}");
}

#[test]
fn percentile_list_and_unified_reporting_from_the_fio_job() {
    let mut doc = doc_with(raw_run());
    doc.runs[0].workloads[0].spec.origin = Some(fio_origin(
        "r",
        0,
        false,
        &[
            ("percentile_list", "99.5:10"),
            ("unified_rw_reporting", "mixed"),
            ("lat_percentiles", "1"),
        ],
    ));
    let v = json(&doc, false);
    let j = &v["jobs"][0];
    assert!(j.get("read").is_none());
    let m = &j["mixed"];
    assert!(
        m["clat_ns"].get("percentile").is_none(),
        "lat_percentiles turns clat's off"
    );
    let p = m["lat_ns"]["percentile"].as_object().unwrap();
    let keys: Vec<&String> = p.keys().collect();
    assert_eq!(keys, ["10.000000", "99.500000"]);
    assert_eq!(j["jobname"], "r");
}

#[test]
fn text_is_the_value_in_fios_order() {
    let doc = doc_with(raw_run());
    let t = json_text(&doc, true);
    let back: Value = serde_json::from_str(&t).unwrap();
    assert_eq!(back, json(&doc, true));
    let pos = |k: &str| {
        t.find(&format!("\"{k}\" :"))
            .unwrap_or_else(|| panic!("{k}"))
    };
    assert!(pos("fio version") < pos("timestamp"));
    assert!(pos("jobname") < pos("groupid"));
    assert!(pos("read") < pos("write"));
    assert!(pos("1.000000") < pos("5.000000"));
    assert!(pos("5.000000") < pos("10.000000"));
    assert!(pos("jobs") < pos("disk_util"));
}

#[test]
fn steady_state_in_fios_shape() {
    let mut doc = doc_with(raw_run());
    doc.runs[0].workloads[0].steady_state = Some(SteadyState {
        criterion: "iops".into(),
        limit: 10.0,
        percent: true,
        duration_s: 3.0,
        ramp_s: 0.0,
        reached: true,
        reached_at_s: Some(3.0),
        value: 9.0909,
        iops_mean: 1100.0,
        bw_mean: 4_505_600.0,
        samples_iops: vec![1000.0, 1100.0, 1200.0],
        samples_bw: vec![4_096_000.0, 4_505_600.0, 4_915_200.0],
        lat_mean_ns: 0.0,
        samples_lat_ns: vec![],
    });
    let v = json(&doc, false);
    let s = &v["jobs"][0]["steadystate"];
    assert_eq!(s["ss"], "iops:10.000000%");
    assert_eq!(s["attained"], 1);
    assert_eq!(s["duration"], 3);
    assert_eq!(s["criterion"], "9.090900%");
    assert!((s["max_deviation"].as_f64().unwrap() - 100.0).abs() < 0.01);
    assert_eq!(s["data"]["iops"], serde_json::json!([1000, 1100, 1200]));
    assert_eq!(s["data"]["iops_mean"], 1100);
    assert!(v["jobs"][1].get("steadystate").is_none());
}

#[test]
fn disk_util_from_device_summary() {
    use crate::model::DeviceStats;
    use iolab_devices::{DeviceCounts, DeviceRow, IostatRow};
    let mut doc = doc_with(raw_run());
    let row = DeviceRow {
        device: "loop7".into(),
        stats: IostatRow {
            interval_ms: 2000.0,
            rrqm_s: 5.0,
            r_await: 0.5,
            aqu_sz: 1.5,
            util_pct: 80.0,
            counts: DeviceCounts {
                reads: 3000,
                read_bytes: 3000 * 4096,
                writes: 10,
                write_bytes: 40960,
                ..Default::default()
            },
            ..Default::default()
        },
    };
    doc.runs[0].devices = Some(DeviceStats {
        summary: vec![row],
        ..Default::default()
    });
    let v = json(&doc, false);
    let d = &v["disk_util"][0];
    assert_eq!(d["name"], "loop7");
    assert_eq!(d["read_ios"], 3000);
    assert_eq!(d["write_ios"], 10);
    assert_eq!(d["read_sectors"], 3000 * 8);
    assert_eq!(d["read_merges"], 10);
    assert_eq!(d["read_ticks"], 1500);
    assert_eq!(d["in_queue"], 3000);
    assert_eq!(d["util"].as_f64().unwrap(), 80.0);
}

#[test]
fn logs_named_and_numbered_as_fio_names_them() {
    let mut doc = doc_with(raw_run());
    {
        let w = &mut doc.runs[0].workloads;
        w[0].effective.jobs = 2;
        w[0].spec.origin = Some(fio_origin(
            "reader",
            0,
            false,
            &[
                ("write_bw_log", ""),
                ("write_iops_log", "x"),
                ("log_avg_msec", "1000"),
            ],
        ));
        w[1].spec.origin = Some(fio_origin("writer", 0, false, &[("write_lat_log", "w")]));
    }
    let logs = logs(&doc);
    let names: Vec<&str> = logs.iter().map(|l| l.path.as_str()).collect();
    // The reader's two clones are jobs 1 and 2: the writer is job 3.
    assert_eq!(
        names,
        [
            "reader_bw.1.log",
            "x_iops.1.log",
            "w_lat.3.log",
            "w_slat.3.log",
            "w_clat.3.log"
        ]
    );
    let bw = &logs[0].text;
    let lines: Vec<&str> = bw.lines().collect();
    // 1000, 1100, 1200 reads of 4 KiB in each second.
    assert_eq!(
        lines,
        [
            "1000, 4000, 0, 0, 0",
            "2000, 4400, 0, 0, 0",
            "3000, 4800, 0, 0, 0"
        ]
    );
    assert_eq!(logs[1].text.lines().next(), Some("1000, 1000, 0, 0, 0"));
    let w = &doc.runs[0].workloads[1];
    let mean = (w.summary.write.lat_us.mean * 1000.0).round() as u64;
    // The writer starts at 1 s and writes for 1 s: time 1000 ms from its start.
    assert_eq!(logs[2].text, format!("1000, {mean}, 1, 0, 0\n"));
    assert_eq!(logs[2].text, logs[4].text);
    assert!(logs[3].text.is_empty());
    // iolab's own jobs ask for no logs.
    assert!(super::logs(&doc_with(raw_run())).is_empty());
}

#[test]
fn a_monitor_has_no_jobs_and_a_version_1_run_is_its_own_workload() {
    let doc = doc_with(crate::testraw::monitor());
    let v = json(&doc, true);
    assert_eq!(v["jobs"], serde_json::json!([]));
    assert!(logs(&doc).is_empty());
    // A record without workloads[] (version 1): the run is the workload.
    let mut doc = doc_with(raw_run());
    let w = doc.runs[0].workloads.remove(0);
    doc.runs[0].workloads.clear();
    doc.runs[0].spec = Some(w.spec.clone());
    doc.runs[0].summary = w.summary.clone();
    doc.runs[0].latency_histograms = w.latency_histograms.clone();
    let v = json(&doc, false);
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(
        v["jobs"][0]["read"]["total_ios"].as_u64().unwrap(),
        w.summary.read.ops
    );
}
