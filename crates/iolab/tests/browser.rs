//! The HTML reports in a real browser: headless Chromium opens the report
//! of a sweep, of a study and of a comparison, and the test checks that the
//! page logged no error (script exceptions, console errors, resources
//! refused by the page's no-network policy), that its charts were laid out
//! with their lines, that a screenshot shows them (pixels in the charts'
//! line colours, not a blank page), and that on a 375 px wide phone screen
//! the page does not scroll sideways.
//!
//! Chromium is driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: JSON messages ending in a NUL byte on file
//! descriptors 3 and 4), so no port is opened and no driver is needed.
//! Without Chromium the test says so and skips; in CI (`CI` set) a missing
//! Chromium fails it, since `.ci/run` installs Debian's `chromium`.
//!
//! `IOLAB_SCREENSHOTS=1` also saves the screenshots as
//! `docs/img/report-{sweep,study,compare}.png` for the README.

mod common;
use common::*;
use serde_json::{json, Value};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

const STEP_TIMEOUT: Duration = Duration::from_secs(30);

fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("IOLAB_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Chromium, or `None` after saying why the test skips (`SKIP <test>:
/// <reason>`). In CI a missing Chromium is a failure.
fn chromium_or_skip() -> Option<PathBuf> {
    let found = find_chromium();
    if found.is_none() {
        iolab_testutil::skip_or_fail(
            module_path!(),
            "chromium is not installed (apt-get install chromium, or scripts/test as root)",
        );
    }
    found
}

/// A file descriptor at 10 or above, close-on-exec, so that placing it on
/// 3 or 4 in the child cannot overwrite the other one.
fn high_fd(fd: RawFd) -> RawFd {
    // SAFETY: fcntl on a descriptor we own; the original is closed after.
    let h = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
    assert!(h >= 0, "fcntl: {}", std::io::Error::last_os_error());
    unsafe { libc::close(fd) };
    h
}

fn pipe() -> (RawFd, RawFd) {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid array of two ints.
    let r = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(r, 0, "pipe2: {}", std::io::Error::last_os_error());
    (high_fd(fds[0]), high_fd(fds[1]))
}

struct Browser {
    child: Child,
    to: File,
    from: Receiver<Value>,
    events: Vec<Value>,
    next_id: u64,
    session: Option<String>,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a page did when opened.
struct Opened {
    errors: Vec<String>,
    /// Facts measured in the page (see `PAGE_FACTS`).
    facts: Value,
    png: Vec<u8>,
}

/// Measured in the page: how many charts, how many drawn lines and bars
/// (with a real size on screen), and the page's width against the screen's.
const PAGE_FACTS: &str = r#"JSON.stringify({
  charts: document.querySelectorAll('svg.chart').length,
  lines: [...document.querySelectorAll('svg.chart path.series')].filter(p => { const b = p.getBoundingClientRect(); return b.width > 20 && p.getTotalLength() > 20; }).length,
  bars: [...document.querySelectorAll('svg.chart rect.bar')].filter(r => r.getBoundingClientRect().height > 0).length,
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth
})"#;

impl Browser {
    fn launch(exe: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (to_child_r, to_child_w) = pipe();
        let (from_child_r, from_child_w) = pipe();
        let mut cmd = Command::new(exe);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--mute-audio",
            "--remote-debugging-pipe",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(File::create(profile.path().join("stderr.log")).unwrap());
        // SAFETY: only async-signal-safe calls (dup2) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(to_child_r, 3) < 0 || libc::dup2(from_child_w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start chromium");
        // SAFETY: closing the child's ends in this process, which owns them.
        unsafe {
            libc::close(to_child_r);
            libc::close(from_child_w);
        }
        // SAFETY: each descriptor is owned by exactly one File from here on.
        let to = unsafe { File::from_raw_fd(to_child_w) };
        let mut from = unsafe { File::from_raw_fd(from_child_r) };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut buf: Vec<u8> = Vec::new();
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                match from.read(&mut chunk) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
                while let Some(i) = buf.iter().position(|&b| b == 0) {
                    let msg: Vec<u8> = buf.drain(..=i).collect();
                    let Ok(v) = serde_json::from_slice::<Value>(&msg[..i]) else {
                        continue;
                    };
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        });
        let mut b = Browser {
            child,
            to,
            from: rx,
            events: Vec::new(),
            next_id: 0,
            session: None,
            _profile: profile,
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let id = target["targetId"].as_str().unwrap().to_string();
        let att = b.call(
            "Target.attachToTarget",
            json!({"targetId": id, "flatten": true}),
        );
        b.session = Some(att["sessionId"].as_str().unwrap().to_string());
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            b.call(domain, json!({}));
        }
        b
    }

    fn stderr_log(&self) -> String {
        std::fs::read_to_string(self._profile.path().join("stderr.log")).unwrap_or_default()
    }

    fn recv(&mut self, deadline: Instant) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from.recv_timeout(left) {
            Ok(v) => v,
            Err(RecvTimeoutError::Timeout) => {
                panic!("chromium did not answer within {STEP_TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("chromium exited; its stderr:\n{}", self.stderr_log())
            }
        }
    }

    /// Send a command (to the page once attached) and return its result;
    /// events that arrive meanwhile are kept.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = &self.session {
            if !method.starts_with("Target.") {
                msg["sessionId"] = json!(s);
            }
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        self.to.write_all(&bytes).expect("write to chromium");
        let deadline = Instant::now() + STEP_TIMEOUT;
        loop {
            let v = self.recv(deadline);
            if v["id"] == json!(id) {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
            self.events.push(v);
        }
    }

    fn wait_event(&mut self, method: &str) {
        let deadline = Instant::now() + STEP_TIMEOUT;
        while !self.events.iter().any(|e| e["method"] == method) {
            let v = self.recv(deadline);
            self.events.push(v);
        }
    }

    fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    fn viewport(&mut self, width: u32, height: u32) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}),
        );
    }

    /// Open a file at a desktop size and report errors, facts and a
    /// screenshot of the first screenful.
    fn open(&mut self, file: &Path, width: u32, height: u32) -> Opened {
        self.viewport(width, height);
        self.events.clear();
        let url = format!("file://{}", file.canonicalize().unwrap().display());
        let nav = self.call("Page.navigate", json!({"url": url}));
        assert!(nav.get("errorText").is_none(), "{url}: {nav}");
        self.wait_event("Page.loadEventFired");
        self.eval("document.fonts.ready.then(() => true)");
        let facts: Value = serde_json::from_str(self.eval(PAGE_FACTS).as_str().unwrap()).unwrap();
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64_decode(shot["data"].as_str().unwrap());
        // Anything logged while the page loaded, laid out and was captured.
        let errors = self.events.iter().filter_map(error_text).collect();
        Opened { errors, facts, png }
    }
}

/// The text of an event that reports an error in the page, if it is one.
fn error_text(e: &Value) -> Option<String> {
    let p = &e["params"];
    match e["method"].as_str()? {
        "Runtime.exceptionThrown" => {
            let d = &p["exceptionDetails"];
            Some(format!(
                "exception: {} {}",
                d["text"].as_str().unwrap_or(""),
                d["exception"]["description"].as_str().unwrap_or("")
            ))
        }
        "Runtime.consoleAPICalled" if matches!(p["type"].as_str(), Some("error" | "assert")) => {
            Some(format!(
                "console.{}: {}",
                p["type"].as_str().unwrap(),
                p["args"]
            ))
        }
        "Log.entryAdded" if p["entry"]["level"] == "error" => Some(format!(
            "log: {} {}",
            p["entry"]["text"].as_str().unwrap_or(""),
            p["entry"]["url"].as_str().unwrap_or("")
        )),
        _ => None,
    }
}

/// Standard base64 (the screenshot's encoding); 15 lines here rather than
/// a dependency for one test.
fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().take_while(|&&c| c != b'=').count();
        let mut acc = 0u32;
        for (i, &c) in chunk[..n].iter().enumerate() {
            acc |= val(c) << (18 - 6 * i);
        }
        out.extend_from_slice(&acc.to_be_bytes()[1..n]);
    }
    out
}

/// Pixels of the screenshot: (width, height, RGBA bytes).
fn decode_png(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(png));
    dec.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().expect("screenshot size")];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => panic!("screenshot colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

/// What a screenshot shows: the share of pixels that are not white, and
/// how many pixels are close to each chart line colour (black left out:
/// text is near it).
fn pixel_census(png: &[u8]) -> (f64, Vec<usize>) {
    let (w, h, px) = decode_png(png);
    let colours: Vec<[i32; 3]> = iolab_report::html::PALETTE
        .iter()
        .filter(|c| **c != "#000000")
        .map(|c| {
            let v = u32::from_str_radix(&c[1..], 16).unwrap();
            [
                (v >> 16) as i32 & 255,
                (v >> 8) as i32 & 255,
                v as i32 & 255,
            ]
        })
        .collect();
    let mut counts = vec![0usize; colours.len()];
    let mut non_white = 0usize;
    for p in px.chunks(4) {
        let rgb = [p[0] as i32, p[1] as i32, p[2] as i32];
        if rgb.iter().any(|&c| c < 235) {
            non_white += 1;
        }
        for (k, c) in colours.iter().enumerate() {
            let d: i32 = (0..3).map(|i| (rgb[i] - c[i]).abs()).sum();
            if d <= 45 {
                counts[k] += 1;
            }
        }
    }
    (non_white as f64 / (w as f64 * h as f64), counts)
}

fn save_screenshot(kind: &str, png: &[u8]) {
    if std::env::var_os("IOLAB_SCREENSHOTS").is_none() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/img");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("report-{kind}.png")), png).unwrap();
}

/// The checks every report must pass; `what` names it in failures.
fn check_report(b: &mut Browser, what: &str, html: &Path, min_lines: u64) {
    let o = b.open(html, 1000, 1300);
    assert!(
        o.errors.is_empty(),
        "{what}: errors in the page: {:#?}",
        o.errors
    );
    let charts = o.facts["charts"].as_u64().unwrap();
    let lines = o.facts["lines"].as_u64().unwrap() + o.facts["bars"].as_u64().unwrap();
    assert!(charts >= 1, "{what}: no chart in the page: {}", o.facts);
    assert!(
        lines >= min_lines,
        "{what}: {lines} lines or bars drawn, want {min_lines}: {}",
        o.facts
    );
    let (ink, colours) = pixel_census(&o.png);
    let coloured: usize = colours.iter().sum();
    eprintln!(
        "{what}: {} charts, {lines} lines/bars, {:.1} % ink, line-colour pixels {colours:?}",
        charts,
        ink * 100.0
    );
    assert!(
        ink > 0.03,
        "{what}: the screenshot is nearly blank ({:.2} % ink)",
        ink * 100.0
    );
    // A 300-pixel line 2.5 pixels wide is about 750 pixels: the first
    // screenful must show more than one line's worth, in at least two
    // colours (a page without charts has none).
    assert!(
        coloured >= 600,
        "{what}: only {coloured} pixels in line colours: {colours:?}"
    );
    assert!(
        colours.iter().filter(|&&n| n >= 200).count() >= 2,
        "{what}: fewer than two line colours drawn: {colours:?}"
    );
    save_screenshot(what, &o.png);
    // On a phone the page itself must not scroll sideways (wide tables and
    // charts scroll in their own boxes).
    b.viewport(375, 740);
    let f = b.eval("[document.documentElement.scrollWidth, window.innerWidth]");
    let (sw, iw) = (f[0].as_u64().unwrap(), f[1].as_u64().unwrap());
    assert!(
        sw <= iw,
        "{what}: on a 375 px screen the page is {sw} px wide"
    );
}

/// A real sweep on a file: bs x qd, 2 repetitions, short runs.
fn sweep(dir: &Path, name: &str) -> PathBuf {
    let json = dir.join(name);
    let out = iolab()
        .args(["run", "--target"])
        .arg(dir.join("data"))
        .args([
            "--size",
            "32m",
            "--rw",
            "randread",
            "--bs",
            "4k,64k,1m",
            "--qd",
            "1,4,16",
            "--duration",
            "60ms",
            "--interval",
            "20ms",
            "--repeat",
            "2",
            "--pause",
            "0s",
            "-q",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    json
}

fn report_html(json: &Path) -> PathBuf {
    let html = json.with_extension("html");
    let out = iolab()
        .arg("report")
        .arg(json)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    html
}

/// `iolab SUB --help`-less probe: a stub answers "not built yet".
fn not_built(out: &std::process::Output) -> bool {
    stderr(out).contains("not built yet")
}

/// A study document: `iolab study bs-ladder` when it exists, else the
/// sweep with a study's results added as `iolab study` stores them.
fn study(dir: &Path, sweep_json: &Path) -> PathBuf {
    let json = dir.join("study.json");
    let out = iolab()
        .args(["study", "bs-ladder", "--target"])
        .arg(dir.join("data"))
        .args([
            "--size",
            "32m",
            "--sizes",
            "16k,64k,256k,1m",
            "--rw",
            "read,write",
            "--duration",
            "80ms",
            "-q",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    if !not_built(&out) {
        assert!(out.status.success(), "iolab study: {}", stderr(&out));
        return json;
    }
    let mut doc = iolab_report::load_document(sweep_json).unwrap();
    let x = vec!["4k".to_string(), "64k".into(), "1m".into()];
    let mbps = |qd: &str| -> Vec<Option<f64>> {
        x.iter()
            .map(|bs| {
                doc.points
                    .iter()
                    .find(|p| {
                        p.params.get("bs") == Some(bs)
                            && p.params.get("qd").map(String::as_str) == Some(qd)
                    })
                    .map(|p| p.mbps.mean)
            })
            .collect()
    };
    let series = vec![
        iolab_report::Series {
            name: "qd 1".into(),
            values: mbps("1"),
        },
        iolab_report::Series {
            name: "qd 16".into(),
            values: mbps("16"),
        },
    ];
    let rows = x
        .iter()
        .enumerate()
        .map(|(i, bs)| {
            vec![
                json!(bs),
                json!(series[0].values[i]),
                json!(series[1].values[i]),
            ]
        })
        .collect();
    doc.study = Some(iolab_report::StudyResult {
        name: "bs-ladder".into(),
        title: "Random read MB/s by block size".into(),
        settings: Default::default(),
        tables: vec![iolab_report::Table {
            title: "MB/s by block size".into(),
            columns: vec!["bs".into(), "qd 1 MB/s".into(), "qd 16 MB/s".into()],
            rows,
        }],
        charts: vec![iolab_report::Chart {
            kind: "line".into(),
            title: "MB/s by block size".into(),
            x_label: "block size".into(),
            y_label: "MB/s".into(),
            log_x: true,
            x: x.clone(),
            x_values: vec![4096.0, 65536.0, 1048576.0],
            series,
            marks: vec![iolab_report::Mark {
                x: "64k".into(),
                label: "marked: 64k".into(),
            }],
        }],
        figures: Default::default(),
        conclusions: vec!["A study's conclusions come first.".into()],
    });
    iolab_report::write_document(&json, &doc).unwrap();
    json
}

/// A comparison page: `iolab compare --html` when it exists, else one made
/// with the report's Page API from the two sweeps.
fn compare(dir: &Path, before: &Path, after: &Path) -> PathBuf {
    let html = dir.join("compare.html");
    let out = iolab()
        .arg("compare")
        .arg(before)
        .arg(after)
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    if !not_built(&out) {
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "iolab compare: {}",
            stderr(&out)
        );
        return html;
    }
    let docs = [before, after].map(|p| iolab_report::load_document(p).unwrap());
    let mut page = iolab_report::html::Page::new("Before and after");
    page.paragraph("IOPS of the same sweep run twice.");
    let x = vec!["1".to_string(), "4".into(), "16".into()];
    let mut series = Vec::new();
    for (tag, d) in ["before", "after"].iter().zip(&docs) {
        for bs in ["4k", "64k"] {
            series.push(iolab_report::Series {
                name: format!("{tag} bs={bs}"),
                values: x
                    .iter()
                    .map(|qd| {
                        d.points
                            .iter()
                            .find(|p| {
                                p.params.get("bs").map(String::as_str) == Some(bs)
                                    && p.params.get("qd") == Some(qd)
                            })
                            .map(|p| p.iops.mean)
                    })
                    .collect(),
            });
        }
    }
    page.chart(&iolab_report::Chart {
        kind: "line".into(),
        title: "IOPS by qd, before and after".into(),
        x_label: "qd".into(),
        y_label: "IOPS".into(),
        log_x: true,
        x,
        x_values: vec![1.0, 4.0, 16.0],
        series,
        marks: Vec::new(),
    });
    std::fs::write(&html, page.finish()).unwrap();
    html
}

#[test]
fn reports_open_in_chromium_without_errors_and_show_their_charts() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let before = sweep(dir.path(), "before.json");
    let after = sweep(dir.path(), "after.json");
    let study_json = study(dir.path(), &before);
    let compare_html = compare(dir.path(), &before, &after);
    let mut b = Browser::launch(&exe);
    // 3 sweep charts of 3 lines (one per block size).
    check_report(&mut b, "sweep", &report_html(&before), 9);
    check_report(&mut b, "study", &report_html(&study_json), 2);
    check_report(&mut b, "compare", &compare_html, 2);
}

/// The checks above can fail: a page with a script error, a console error
/// and a resource the no-network policy refuses is caught, and a page
/// without charts is found blank.
#[test]
fn the_browser_checks_catch_errors_and_blank_pages() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let page = iolab_report::html::Page::new("x").finish();
    let bad = page.replace(
        "</body>",
        "<img src=\"http://192.0.2.1/x.png\"><script>console.error('boom'); noSuchFunction();</script></body>",
    );
    let bad_path = dir.path().join("bad.html");
    std::fs::write(&bad_path, bad).unwrap();
    let blank_path = dir.path().join("blank.html");
    std::fs::write(&blank_path, &page).unwrap();

    let mut b = Browser::launch(&exe);
    let o = b.open(&bad_path, 800, 600);
    let all = o.errors.join("\n");
    assert!(all.contains("boom"), "console.error not caught: {all}");
    assert!(
        all.contains("noSuchFunction"),
        "exception not caught: {all}"
    );
    assert!(
        all.contains("Content Security Policy"),
        "refused image not caught: {all}"
    );

    let o = b.open(&blank_path, 800, 600);
    assert!(o.errors.is_empty(), "{:?}", o.errors);
    assert_eq!(o.facts["charts"], 0);
    let (_, colours) = pixel_census(&o.png);
    assert!(colours.iter().sum::<usize>() < 100, "{colours:?}");
}

/// A document of one run of two workloads with a mark: a real run's
/// record (null engine, 10 intervals) whose one workload, "reader", gives
/// half its figures in the second half to a second workload, "writer",
/// active then (so the total stays the sum), and a mark at the middle. (Until the run core runs workloads together, the
/// binary cannot write such a run itself.)
fn two_workload_doc(dir: &Path) -> PathBuf {
    let json = dir.join("pair.json");
    let out = iolab()
        .args(["run", "--engine", "null", "--no-prefill", "--target"])
        .arg(dir.join("pair.dat"))
        .args([
            "--size",
            "16m",
            "--duration",
            "500ms",
            "--interval",
            "50ms",
            "-q",
            "--json",
        ])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut doc = iolab_report::load_document(&json).unwrap();
    let r = &mut doc.runs[0];
    let mut w = r.workloads[0].clone();
    w.name = "writer".into();
    w.spec.name = "writer".into();
    w.start_s = r.measured_s / 2.0;
    w.intervals.retain(|iv| iv.start_s >= w.start_s - 1e-9);
    for iv in &mut w.intervals {
        iv.total.iops /= 2.0;
        iv.total.mbps /= 2.0;
        iv.total.lat_us.p99 *= 3.0;
    }
    let reader = &mut r.workloads[0];
    reader.name = "reader".into();
    for iv in reader
        .intervals
        .iter_mut()
        .filter(|iv| iv.start_s >= w.start_s - 1e-9)
    {
        iv.total.iops /= 2.0;
        iv.total.mbps /= 2.0;
    }
    r.workloads.push(w);
    r.events.push(iolab_report::model::Event {
        time_s: r.measured_s / 2.0,
        label: "controller A failed".into(),
        source: "mark".into(),
    });
    iolab_report::write_document(&json, &doc).unwrap();
    json
}

/// Per chart over time of the first run: its title, the drawn series lines
/// (with a real size on screen), the legend's words, and the dashed mark
/// lines with their labels as laid out.
const TIME_CHART_FACTS: &str = r#"JSON.stringify([...document.querySelectorAll('svg.chart')]
  .filter(s => (s.getAttribute('aria-label') || '').includes('per workload'))
  .map(s => ({
    title: s.getAttribute('aria-label'),
    lines: [...s.querySelectorAll('path.series')].filter(p => { const b = p.getBoundingClientRect(); return b.width > 20 && p.getTotalLength() > 20; }).length,
    words: [...s.querySelectorAll('text')].map(t => t.textContent),
    marks: [...s.querySelectorAll('line.mark')].filter(l => l.getBoundingClientRect().height > 50).length,
    markLabels: [...s.querySelectorAll('text')].filter(t => t.textContent.includes('controller A failed') && t.getBoundingClientRect().width > 20).length
  })))"#;

/// The report of a run of two workloads draws each workload's line and the
/// total's on every chart over time, and the mark as a labelled vertical
/// line on each.
#[test]
fn a_run_of_two_workloads_draws_a_line_each_and_its_mark() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = report_html(&two_workload_doc(dir.path()));
    let mut b = Browser::launch(&exe);
    check_report(&mut b, "workloads", &html, 9);
    let charts: Value = serde_json::from_str(b.eval(TIME_CHART_FACTS).as_str().unwrap()).unwrap();
    let charts = charts.as_array().unwrap();
    assert_eq!(charts.len(), 3, "{charts:#?}");
    for c in charts {
        assert!(c["title"].as_str().unwrap().contains("per workload"), "{c}");
        assert_eq!(c["lines"], 3, "reader, writer and total: {c}");
        let words = c["words"].to_string();
        for w in ["reader", "writer", "total"] {
            assert!(
                words.contains(&format!("\"{w}\"")),
                "{w} not in the legend: {c}"
            );
        }
        assert_eq!(c["marks"], 1, "{c}");
        assert_eq!(c["markLabels"], 1, "{c}");
    }
}

/// A document of a file-system workload: a real run's record (null
/// engine) whose workload is given the per-operation figures, IO summary
/// and fileset counters a file-system run records (until the fs driver
/// lands, the binary cannot write one itself).
fn fs_doc(dir: &Path) -> PathBuf {
    use iolab_report::model::{FilesetCounts, IoSummary, OpResult};
    let json = dir.join("fs.json");
    let out = iolab()
        .args(["run", "--engine", "null", "--no-prefill", "--target"])
        .arg(dir.join("fs.dat"))
        .args(["--size", "16m", "--duration", "200ms", "-q", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut doc = iolab_report::load_document(&json).unwrap();
    let w = &mut doc.runs[0].workloads[0];
    w.name = "fileserver".into();
    let base = w.summary.read.clone();
    let ops = [
        "create", "write", "close", "open", "append", "read", "delete", "stat",
    ];
    for (i, name) in ops.iter().enumerate() {
        let mut f = base.clone();
        f.iops = 1000.0 * (i + 1) as f64;
        // Latencies spanning decades, as metadata and data operations do.
        let k = 10f64.powi(i as i32 % 4);
        f.lat_us.p50 = 5.0 * k;
        f.lat_us.p90 = 12.0 * k;
        f.lat_us.p99 = 20.0 * k;
        f.lat_us.p99_99 = 60.0 * k;
        f.lat_us.p99_9 = 40.0 * k;
        f.lat_us.max = 90.0 * k;
        let o = OpResult {
            figures: f,
            ..Default::default()
        };
        w.operations.insert(name.to_string(), o);
    }
    w.io_summary = Some(IoSummary {
        ops: 36_000,
        ops_per_s: 36_000.0,
        ..Default::default()
    });
    w.fileset = Some(FilesetCounts {
        files_created: 1000,
        ..Default::default()
    });
    iolab_report::write_document(&json, &doc).unwrap();
    json
}

/// Elements matching `sel` drawn with a real size on screen (bars with a
/// height, lines with a length) in the chart whose label starts with
/// `title`.
fn drawn_in(b: &mut Browser, title: &str, sel: &str) -> u64 {
    let js = format!(
        "[...document.querySelectorAll('svg.chart')].filter(s => (s.getAttribute('aria-label') || '').startsWith({title:?})).map(s => [...s.querySelectorAll({sel:?})].filter(r => {{ const b = r.getBoundingClientRect(); return b.height > 0.5 && (r.tagName !== 'path' || r.getTotalLength() > 20); }}).length).reduce((a, n) => a + n, 0)"
    );
    b.eval(&js).as_u64().unwrap()
}

/// The report of a file-system workload draws a bar of ops/s per
/// operation and a line of latency percentiles per operation on a log
/// scale, all visible.
#[test]
fn an_fs_workload_draws_its_operations_and_their_percentiles() {
    let Some(exe) = chromium_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let html = report_html(&fs_doc(dir.path()));
    let mut b = Browser::launch(&exe);
    check_report(&mut b, "fs", &html, 16);
    assert_eq!(
        drawn_in(&mut b, "fileserver: operations per second", "rect.bar"),
        8
    );
    let lat = "fileserver: latency percentiles by operation";
    assert_eq!(drawn_in(&mut b, lat, "path.series"), 8);
}
