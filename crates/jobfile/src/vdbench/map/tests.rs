//! Unit tests of the raw mapper on parameter files built by hand (the
//! golden corpus in tests/vdbench reads files through the parser).

use super::super::{DefKind, VdbDef, VdbFile, VdbParam};
use super::*;

fn def(kind: DefKind, name: &str, line: usize, params: &[(&str, &[&str])]) -> VdbDef {
    VdbDef {
        kind,
        name: name.into(),
        params: params
            .iter()
            .map(|(k, v)| VdbParam {
                key: k.to_string(),
                values: v.iter().map(|s| s.to_string()).collect(),
                file: "t.vdb".into(),
                line,
            })
            .collect(),
        file: "t.vdb".into(),
        line,
    }
}

fn sd(name: &str, line: usize, extra: &[(&str, &[&str])]) -> VdbDef {
    let mut p: Vec<(&str, &[&str])> = vec![("lun", &["/dev/loop9"]), ("size", &["1g"])];
    p.extend_from_slice(extra);
    def(DefKind::Storage, name, line, &p)
}

fn file(defs: Vec<VdbDef>) -> VdbFile {
    VdbFile {
        general: Vec::new(),
        defs,
        unused_vars: Vec::new(),
    }
}

fn s(t: &toml::Table, k: &str) -> Option<String> {
    t.get(k).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

#[test]
fn corners_loop_in_vdbench_order_with_the_queue_depth_of_the_sd() {
    let f = file(vec![
        sd("sd1", 1, &[("threads", &["32"]), ("hitarea", &["1g"])]),
        def(DefKind::Workload, "wd1", 2, &[("sd", &["sd*"])]),
        def(
            DefKind::Run,
            "rd1",
            3,
            &[
                ("wd", &["wd1"]),
                ("iorate", &["max"]),
                ("elapsed", &["90"]),
                ("warmup", &["200"]),
                ("pause", &["10"]),
                ("forxfersize", &["8k"]),
                ("forrhpct", &["0", "100"]),
                ("forseekpct", &["0", "100"]),
            ],
        ),
    ]);
    let t = translate(&f, &LoadOptions::default()).unwrap();
    let names: Vec<&str> = t.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "rd1 xfersize=8k rhpct=0 seekpct=0",
            "rd1 xfersize=8k rhpct=0 seekpct=100",
            "rd1 xfersize=8k rhpct=100 seekpct=0",
            "rd1 xfersize=8k rhpct=100 seekpct=100",
        ]
    );
    let r = &t.runs[2];
    assert_eq!(r.pause_s, Some(10.0));
    assert_eq!(s(&r.run, "duration").as_deref(), Some("90s"));
    assert_eq!(s(&r.run, "warmup").as_deref(), Some("200s"));
    assert_eq!(s(&r.run, "interval").as_deref(), Some("45s"));
    assert!(!r.run.contains_key("rate"));
    let (w, o) = &r.workloads[0];
    assert_eq!(s(w, "qd").as_deref(), Some("32"));
    assert_eq!(s(w, "jobs").as_deref(), Some("1"));
    assert_eq!(s(w, "read_hit_pct").as_deref(), Some("100"));
    assert_eq!(s(w, "hit_area").as_deref(), Some("1g"));
    assert_eq!(s(w, "random_pct").as_deref(), Some("0"));
    assert_eq!(s(w, "bs").as_deref(), Some("8k"));
    assert_eq!(o.section, "rd1/wd1/sd1");
    assert_eq!(o.option("forrhpct"), Some("100"));
    let l = map(&f, &LoadOptions::default()).unwrap();
    assert_eq!(l.runs.len(), 4);
    assert_eq!(l.runs[0].pause_s, Some(10.0));
    assert_eq!(l.runs[3].name(), "rd1 xfersize=8k rhpct=100 seekpct=100");
}

#[test]
fn an_sds_threads_are_shared_by_its_workloads_and_skews_share_the_rate() {
    let f = file(vec![
        sd("sd1", 1, &[("threads", &["5"])]),
        sd("sd2", 2, &[]),
        def(
            DefKind::Workload,
            "wa",
            3,
            &[("sd", &["sd1"]), ("skew", &["40"])],
        ),
        def(DefKind::Workload, "wb", 4, &[("sd", &["sd*"])]),
        def(
            DefKind::Run,
            "rd1",
            5,
            &[("wd", &["w*"]), ("iorate", &["1000"]), ("elapsed", &["10"])],
        ),
    ]);
    let t = translate(&f, &LoadOptions::default()).unwrap();
    let w: Vec<(String, String, String)> = t.runs[0]
        .workloads
        .iter()
        .map(|(w, _)| {
            (
                s(w, "name").unwrap(),
                s(w, "qd").unwrap(),
                s(w, "skew").unwrap(),
            )
        })
        .collect();
    // sd1: 5 threads over wa and wb (3 + 2); sd2 keeps vdbench's 8.
    // wb's 60 % of the rate is split over its two sds.
    assert_eq!(
        w,
        [
            ("wa/sd1".into(), "3".into(), "40.0".into()),
            ("wb/sd1".into(), "2".into(), "30.0".into()),
            ("wb/sd2".into(), "8".into(), "30.0".into()),
        ]
    );
    assert_eq!(s(&t.runs[0].run, "rate").as_deref(), Some("1000"));
    assert_eq!(s(&t.runs[0].run, "arrival").as_deref(), Some("poisson"));
}

#[test]
fn hosts_flags_and_unknown_keywords_are_refused_in_one_line() {
    let mut f = file(vec![
        def(DefKind::Host, "hd1", 1, &[("shell", &["rsh"])]),
        sd("sd1", 2, &[]),
        def(DefKind::Workload, "wd1", 3, &[("sd", &["sd1"])]),
        def(DefKind::Run, "rd1", 4, &[("wd", &["wd1"])]),
    ]);
    let e = translate(&f, &LoadOptions::default()).unwrap_err().0;
    assert_eq!(
        e,
        "t.vdb:1: hd=hd1: shell=rsh: iolab reaches hosts only through ssh or --remote-shell; write shell=ssh or drop it"
    );
    f.defs.remove(0);
    let lo = LoadOptions {
        vdbench_flags: vec!["-v".into(), "-jn".into(), "-vr".into()],
        ..Default::default()
    };
    let t = translate(&f, &lo).unwrap();
    let run = &t.runs[0].run;
    assert_eq!(run.get("verify"), Some(&Value::Boolean(true)));
    assert_eq!(run.get("verify_after"), Some(&Value::Boolean(true)));
    assert_eq!(s(run, "journal").as_deref(), Some("vdbench.journal"));
    assert!(t.notes.iter().any(|n| n.contains("-jn")), "{:?}", t.notes);
    let lo = LoadOptions {
        vdbench_flags: vec!["-e".into()],
        ..Default::default()
    };
    let e = translate(&f, &lo).unwrap_err().0;
    assert!(
        e.starts_with("--vdbench-flags -e:") && !e.contains('\n'),
        "{e}"
    );
    f.defs[1].params.push(VdbParam {
        key: "stride".into(),
        values: vec!["4k".into(), "8k".into()],
        file: "t.vdb".into(),
        line: 7,
    });
    let e = translate(&f, &LoadOptions::default()).unwrap_err().0;
    assert!(
        e.starts_with("t.vdb:7: iolab does not support stride"),
        "{e}"
    );
    let lo = LoadOptions {
        ignore_unsupported: true,
        ..Default::default()
    };
    assert!(translate(&f, &lo).is_ok());
}

#[test]
fn transfer_size_forms_and_eof() {
    let f = file(vec![
        sd("sd1", 1, &[("range", &["50", "100"])]),
        def(
            DefKind::Workload,
            "wd1",
            2,
            &[
                ("sd", &["sd1"]),
                ("xfersize", &["4k", "25", "8k", "75"]),
                ("rdpct", &["0"]),
                ("seekpct", &["eof"]),
            ],
        ),
        def(
            DefKind::Workload,
            "wd2",
            3,
            &[("sd", &["sd1"]), ("xfersize", &["4k", "16k", "4k"])],
        ),
        def(DefKind::Run, "r1", 4, &[("wd", &["wd1"])]),
        def(
            DefKind::Run,
            "r2",
            5,
            &[
                ("wd", &["wd2"]),
                ("iorate", &["curve"]),
                ("curve", &["50", "100"]),
                ("stopcurve", &["5"]),
            ],
        ),
    ]);
    let t = translate(&f, &LoadOptions::default()).unwrap();
    let (w, _) = &t.runs[0].workloads[0];
    assert_eq!(s(w, "bs").as_deref(), Some("4k:25,8k:75"));
    assert_eq!(s(w, "offset").as_deref(), Some("512m"));
    assert_eq!(s(w, "range").as_deref(), Some("512m"));
    assert_eq!(s(w, "io_size").as_deref(), Some("512m"));
    assert_eq!(s(w, "duration").as_deref(), Some("30s"));
    assert!(!t.runs[0].run.contains_key("duration"));
    let (w, _) = &t.runs[1].workloads[0];
    assert_eq!(s(w, "bs").as_deref(), Some("4k:1,8k:1,12k:1,16k:1"));
    let c = t.runs[1].curve.as_ref().unwrap();
    assert_eq!((c.pcts.clone(), c.stop_ms), (vec![50.0, 100.0], Some(5.0)));
}

#[test]
fn wildcards_match_as_vdbench_does() {
    assert!(wildcard("sd*", "sd12"));
    assert!(wildcard("*", "x"));
    assert!(wildcard("a*c", "abbc"));
    assert!(!wildcard("sd*", "wd1"));
    assert!(!wildcard("sd1", "sd12"));
}

#[test]
fn extreme_values_are_refused_in_one_line_never_a_panic() {
    let odd: &[(&str, &[&str])] = &[
        ("xfersize", &["512", "16383t", "512"]),
        ("xfersize", &["1", "2", "3", "4", "5"]),
        ("xfersize", &["99999999999999999999t"]),
        ("rdpct", &["-5"]),
        ("seekpct", &["é"]),
        ("seekpct", &[""]),
        ("range", &["0", "1e300"]),
        ("range", &["100", "0"]),
        ("skew", &["0"]),
        ("iorate", &["nan"]),
        ("rhpct", &["1e400"]),
    ];
    for (k, v) in odd {
        let f = file(vec![
            sd("sd1", 1, &[("threads", &["99999999999999999999"])]),
            def(DefKind::Workload, "wd1", 2, &[("sd", &["sd1"]), (k, v)]),
            def(
                DefKind::Run,
                "rd1",
                3,
                &[("wd", &["wd1"]), ("elapsed", &["1e300"])],
            ),
        ]);
        if let Err(e) = translate(&f, &LoadOptions::default()) {
            assert!(!e.0.contains('\n') && e.0.starts_with("t.vdb:"), "{k}: {e}");
        }
        let f = file(vec![
            sd(
                "sd1",
                1,
                &[
                    ("size", &["16383t"]),
                    ("offset", &["16383t"]),
                    ("range", &["1", "99"]),
                ],
            ),
            def(DefKind::Workload, "wd1", 2, &[("sd", &["sd1"]), (k, v)]),
            def(DefKind::Run, "rd1", 3, &[("wd", &["wd1"])]),
        ]);
        if let Err(e) = translate(&f, &LoadOptions::default()) {
            assert!(!e.0.contains('\n'), "{k}: {e}");
        }
    }
}
