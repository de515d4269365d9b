//! Tests of vdbench's parameter-file syntax (parse.rs).

use super::*;

fn no_files(p: &Path) -> Result<String, String> {
    Err(format!("{} is not there", p.display()))
}

fn parse_vars(text: &str, vars: &[(&str, &str)]) -> Result<VdbFile, JobError> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    parse_with("t.vdb", text, &vars, &no_files)
}

fn parse(text: &str) -> Result<VdbFile, JobError> {
    parse_vars(text, &[])
}

fn err(text: &str) -> String {
    parse(text).unwrap_err().0
}

/// `key=v1|v2` for each parameter, in order.
fn kv(params: &[VdbParam]) -> Vec<String> {
    params
        .iter()
        .map(|p| format!("{}={}", p.key, p.values.join("|")))
        .collect()
}

#[test]
fn comments_blank_lines_and_eof() {
    let f = parse(
        "* a comment\n/ another\n# and another\n\n  sd=sd1,lun=/dev/x\neof\nsd=sd2,lun=/dev/y\n",
    )
    .unwrap();
    assert_eq!(f.defs.len(), 1);
    assert_eq!(f.defs[0].name, "sd1");
    assert_eq!((f.defs[0].file.as_str(), f.defs[0].line), ("t.vdb", 5));
    assert_eq!(kv(&f.defs[0].params), ["lun=/dev/x"]);
}

#[test]
fn general_parameters_come_before_the_first_definition() {
    let f = parse("compratio=2\ndata_errors=10\nsd=sd1,lun=/dev/x\n").unwrap();
    assert_eq!(kv(&f.general), ["compratio=2", "data_errors=10"]);
    assert_eq!(f.of(DefKind::Storage).count(), 1);
}

#[test]
fn defaults_come_first_and_apply_only_to_later_entries() {
    let f = parse(
        "sd=sd0,lun=/dev/w\nsd=default,threads=32,openflags=o_direct\nsd=sd1,lun=/dev/x,threads=8\nsd=default,size=1g\nsd=sd2,lun=/dev/y\n",
    )
    .unwrap();
    let sds: Vec<&VdbDef> = f.of(DefKind::Storage).collect();
    assert_eq!(kv(&sds[0].params), ["lun=/dev/w"]);
    assert_eq!(
        kv(&sds[1].params),
        [
            "threads=32",
            "openflags=o_direct",
            "lun=/dev/x",
            "threads=8"
        ]
    );
    assert_eq!(sds[1].get("threads").unwrap().values, ["8"]);
    assert_eq!(
        kv(&sds[2].params),
        ["threads=32", "openflags=o_direct", "size=1g", "lun=/dev/y"]
    );
    assert!(f.defs.iter().all(|d| d.name != "default"));
}

#[test]
fn a_definition_runs_until_the_next_and_lines_do_not_matter() {
    let f = parse("sd=sd1\nlun=/dev/x\nthreads=4\nwd=wd1,sd=sd1\nxfersize=4k\nrd=rd1,wd=wd1\n")
        .unwrap();
    let kinds: Vec<(DefKind, &str)> = f.defs.iter().map(|d| (d.kind, d.name.as_str())).collect();
    assert_eq!(
        kinds,
        [
            (DefKind::Storage, "sd1"),
            (DefKind::Workload, "wd1"),
            (DefKind::Run, "rd1")
        ]
    );
    assert_eq!(kv(&f.defs[0].params), ["lun=/dev/x", "threads=4"]);
    // sd= in a wd and wd= in an rd are parameters, not definitions.
    assert_eq!(kv(&f.defs[1].params), ["sd=sd1", "xfersize=4k"]);
    assert_eq!(kv(&f.defs[2].params), ["wd=wd1"]);
}

#[test]
fn file_system_definitions_and_their_parameters() {
    let f = parse(
        "fsd=fsd1,anchor=/mnt/a,depth=2,width=4,files=16,sizes=(32k,50,64k,50)\nfwd=fwd1,fsd=fsd1,operation=read,fileio=(random,shared),fileselect=random,threads=8\nrd=rd1,fwd=(fwd*),fwdrate=max,format=(restart,only),elapsed=10\n",
    )
    .unwrap();
    let fsd = f.of(DefKind::FileSystem).next().unwrap();
    assert_eq!(fsd.get("sizes").unwrap().values, ["32k", "50", "64k", "50"]);
    let fwd = f.of(DefKind::FsWorkload).next().unwrap();
    assert_eq!(fwd.get("fsd").unwrap().values, ["fsd1"]);
    assert_eq!(fwd.get("fileio").unwrap().values, ["random", "shared"]);
    let rd = f.of(DefKind::Run).next().unwrap();
    assert_eq!(rd.get("fwd").unwrap().values, ["fwd*"]);
    assert_eq!(rd.get("format").unwrap().values, ["restart", "only"]);
}

#[test]
fn continuation_lines_join_and_each_parameter_keeps_its_line() {
    let f = parse("wd=wd1,sd=sd1,\n  xfersize=(4k,10,\n  8k,90),\n  rdpct=70\nrd=rd1,wd=wd1\n")
        .unwrap();
    let wd = &f.defs[0];
    assert_eq!(
        kv(&wd.params),
        ["sd=sd1", "xfersize=4k|10|8k|90", "rdpct=70"]
    );
    let lines: Vec<usize> = wd.params.iter().map(|p| p.line).collect();
    assert_eq!(lines, [1, 2, 4]);
    assert_eq!(wd.get("rdpct").unwrap().place(), "t.vdb:4");
}

#[test]
fn text_after_a_blank_is_a_comment_and_quotes_keep_blanks_and_commas() {
    let f =
        parse("messagescan=\"a b,c=(d)\" trailing words\nsd=sd1,lun=/dev/x  the LUN\n").unwrap();
    assert_eq!(f.general[0].values, ["a b,c=(d)"]);
    assert_eq!(kv(&f.defs[0].params), ["lun=/dev/x"]);
    let f = parse("sd=sd1,lun=/dev/x\nrd=rd1,wd=wd1,startcmd=(\"echo a b\",\"x,y\")\n").unwrap();
    assert_eq!(
        f.defs[1].get("startcmd").unwrap().values,
        ["echo a b", "x,y"]
    );
    assert!(err("messagescan=\"open\n").contains("t.vdb:1: a double quote is not closed"));
}

#[test]
fn keywords_are_lower_cased_and_abbreviations_written_out() {
    let f = parse("SD=sd1,LUN=/dev/X,Thr=4\nwd=wd1,sd=sd1,xfer=8k,readpct=10\nrd=rd1,wd=wd1,el=10,forx=(4k,8k)\n").unwrap();
    assert_eq!(f.defs[0].name, "sd1");
    assert_eq!(kv(&f.defs[0].params), ["lun=/dev/X", "threads=4"]);
    assert_eq!(kv(&f.defs[1].params), ["sd=sd1", "xfersize=8k", "rdpct=10"]);
    assert_eq!(
        kv(&f.defs[2].params),
        ["wd=wd1", "elapsed=10", "forxfersize=4k|8k"]
    );
    let e = err("sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1,zz=1\n");
    assert!(
        e.starts_with("t.vdb:2: unknown vdbench keyword 'zz' in wd=wd1;"),
        "{e}"
    );
    let e = err("sd=sd1,lun=/dev/x\nrd=rd1,wd=wd1,fo=1\n");
    assert!(
        e.contains("'fo' in rd=rd1 abbreviates several vdbench keywords (forxfersize, forthreads"),
        "{e}"
    );
}

#[test]
fn an_unknown_keyword_is_refused_with_file_line_and_definition() {
    let e = err("sd=sd1,lun=/dev/x\n\nsd=sd2,lun=/dev/y,bogus=3\n");
    assert!(
        e.starts_with("t.vdb:3: unknown vdbench keyword 'bogus' in sd=sd2; the sd keywords are host, lun, count,"),
        "{e}"
    );
    assert!(
        e.ends_with("fix the spelling or remove it (docs/vdbench.md)"),
        "{e}"
    );
    let e = err("nonsense=1\nsd=sd1\n");
    assert!(
        e.starts_with("t.vdb:1: unknown vdbench keyword 'nonsense' in the general parameters"),
        "{e}"
    );
    let e = err("fsd=default,sizez=1\n");
    assert!(e.contains("'sizez' in fsd=default"), "{e}");
}

#[test]
fn definitions_out_of_vdbench_order_are_refused() {
    let e = err("sd=sd1,lun=/dev/x\nwd=wd1,sd=sd1\nfsd=fsd1,anchor=/a\n");
    assert!(
        e.starts_with("t.vdb:3: fsd= after wd=wd1: vdbench reads definitions in the order"),
        "{e}"
    );
    let e = err("rd=rd1,wd=wd1\nhd=h1,system=x\n");
    assert!(e.contains("hd= after rd=rd1"), "{e}");
}

#[test]
fn bad_syntax_is_one_line_with_the_place() {
    for (text, want) in [
        ("sd=sd1,lun\n", "t.vdb:1: 'lun' is not keyword=value"),
        ("sd=sd1,lun=\n", "t.vdb:1: lun=: no value after '='"),
        ("sd=sd1,range=(1,2\n", "t.vdb:1: a '(' is not closed"),
        ("sd=sd1,range=1,2)\n", "t.vdb:1: a ')' without its '('"),
        (
            "sd=sd1,range=(1,2)x\n",
            "t.vdb:1: range=(1,2)x: text after the list's ')'",
        ),
        (
            "sd=(a,b)\n",
            "t.vdb:1: sd= names one definition, not a list (a,b)",
        ),
        (
            "sd=a,lun=x\nsd=a,lun=y\n",
            "t.vdb:2: sd=a is defined twice (first at t.vdb:1)",
        ),
        ("x=1\n", "t.vdb:1: 'x' is not a vdbench keyword"),
        ("sd=a,lun=/x\0\n", "t.vdb:1: a NUL byte"),
        (
            "\u{94}i#\u{7f}\u{f9}\n",
            "t.vdb:1: '\u{94}i#\u{7f}\u{f9}' is not keyword=value",
        ),
    ] {
        let e = err(text);
        assert!(e.starts_with(want), "{text:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
}

#[test]
fn variables_fill_dollar_and_bang_names_and_unused_ones_are_listed() {
    let f = parse_vars(
        "sd=sd1,lun=$lun,size=!size\nwd=wd1,sd=sd1,xfersize=$xfer\n",
        &[
            ("lun", "/dev/sdb"),
            ("size", "10g"),
            ("xfer", "(4k,8k)"),
            ("spare", "1"),
        ],
    )
    .unwrap();
    assert_eq!(kv(&f.defs[0].params), ["lun=/dev/sdb", "size=10g"]);
    assert_eq!(f.defs[1].get("xfersize").unwrap().values, ["4k", "8k"]);
    assert_eq!(f.unused_vars, ["spare"]);
    // vdbench replaces text: the longest name given that the word starts with.
    let f = parse_vars("fsd=f,anchor=/mnt/$dir_a\n", &[("dir", "x"), ("di", "y")]).unwrap();
    assert_eq!(f.defs[0].params[0].values, ["/mnt/x_a"]);
    // A variable only in a comment is not used.
    let f = parse_vars("* lun=$lun\nsd=sd1,lun=/dev/x\n", &[("lun", "/dev/y")]).unwrap();
    assert_eq!(f.unused_vars, ["lun"]);
    // Nor is one in the comment after a line's first blank, given or not.
    let f = parse_vars(
        "sd=sd1,lun=/x,size=1m   this sd costs $money, not $lun\n",
        &[("lun", "/dev/y")],
    )
    .unwrap();
    assert_eq!(kv(&f.defs[0].params), ["lun=/x", "size=1m"]);
    assert_eq!(f.unused_vars, ["lun"]);
}

#[test]
fn a_variable_without_a_value_is_refused_saying_how_to_give_it() {
    let e = parse_vars("sd=sd1,\n  lun=$lun\n", &[("other", "1")])
        .unwrap_err()
        .0;
    assert_eq!(
        e,
        "t.vdb:2: $lun has no value; give it on the command line after the file as lun=VALUE"
    );
    let e = err("sd=sd1,lun=!lun\n");
    assert!(e.starts_with("t.vdb:1: !lun has no value"), "{e}");
    // A '!' that is not a value's start is text.
    let f = parse("messagescan=\"hi!there\"\n").unwrap();
    assert_eq!(f.general[0].values, ["hi!there"]);
}

#[test]
fn variables_cannot_grow_a_line_without_bound() {
    let big = "x".repeat(40_000);
    let e = parse_vars("sd=sd1,lun=$a$a\n", &[("a", &big)])
        .unwrap_err()
        .0;
    assert!(
        e.contains("longer than 65536 bytes once its variables are filled"),
        "{e}"
    );
}

#[test]
fn includes_read_from_the_including_files_directory() {
    let dir = std::env::temp_dir().join(format!("iolab-vdb-inc-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("sds.vdb"),
        "* the LUNs\nsd=sd1,lun=$lun\neof\nsd=sd9\n",
    )
    .unwrap();
    std::fs::write(dir.join("sub/wds.vdb"), "wd=wd1,sd=sd1\n").unwrap();
    let main = dir.join("main.vdb");
    let text = format!(
        "compratio=2\ninclude=sds.vdb\ninclude={}\nrd=rd1,wd=wd1\n",
        dir.join("sub/wds.vdb").display()
    );
    let vars = [("lun".to_string(), "/dev/x".to_string())];
    let f = super::parse(&main.display().to_string(), &text, &vars);
    let _ = std::fs::remove_dir_all(&dir);
    let f = f.unwrap();
    let names: Vec<&str> = f.defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["sd1", "wd1", "rd1"]);
    assert_eq!(f.defs[0].params[0].values, ["/dev/x"]);
    assert_eq!(
        f.defs[0].place(),
        format!("{}:2", dir.join("sds.vdb").display())
    );
    assert!(f.unused_vars.is_empty());
}

#[test]
fn include_cycles_depth_and_missing_files_are_refused() {
    let self_inc = |p: &Path| Ok(format!("include={}\n", p.display()));
    let e = parse_with("/d/a.vdb", "include=a.vdb\n", &[], &self_inc)
        .unwrap_err()
        .0;
    assert!(e.contains("already being read; remove the cycle"), "{e}");
    // a0 includes a1 includes a2 ...: refused past the depth.
    let chain = |p: &Path| {
        let n: usize = p.file_stem().unwrap().to_str().unwrap()[1..]
            .parse()
            .unwrap();
        Ok(format!("include=a{}.vdb\n", n + 1))
    };
    let e = parse_with("/d/a0.vdb", "include=a1.vdb\n", &[], &chain)
        .unwrap_err()
        .0;
    assert!(e.contains("nests more than 16 deep"), "{e}");
    let e = parse("sd=sd1\ninclude=missing.vdb\n").unwrap_err().0;
    assert!(
        e.starts_with("t.vdb:2: include=missing.vdb: missing.vdb is not there"),
        "{e}"
    );
}

#[test]
fn lists_and_definitions_are_bounded() {
    let list: Vec<String> = (0..5000).map(|i| i.to_string()).collect();
    let e = err(&format!("rd=rd1,forthreads=({})\n", list.join(",")));
    assert!(e.contains("more than 4096 values in one list"), "{e}");
    assert!(e.len() < 200, "the list is not echoed whole: {e}");
    let many: String = (0..5000).map(|i| format!("sd=s{i},lun=/x\n")).collect();
    assert!(err(&many).contains("more than 4096 definitions"));
}

/// The files of a directory of the repository with one of the extensions.
fn repo_files(dir: &str, ext: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut v: Vec<(String, String)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn recognises_parameter_files_and_no_other_format() {
    for yes in [
        "sd=sd1,lun=/dev/sdb\n",
        "* comment\n\n/ more\nfsd=fsd1,anchor=/mnt/x\n",
        "compratio=4\nsd=sd1,lun=/x\n",
        "data_errors=1\n",
        "include=common.vdb\n",
        "HD=default,vdbench=/opt/vdbench\n",
        "dedupunit=8k\n",
    ] {
        assert!(looks_like_vdbench(yes), "{yes:?}");
    }
    let toml = repo_files("examples", "toml");
    let fio = repo_files("crates/jobfile/tests/fio", "fio");
    assert!(
        toml.len() >= 5 && fio.len() >= 5,
        "{} {}",
        toml.len(),
        fio.len()
    );
    for (name, text) in toml.iter().chain(&fio) {
        assert!(!looks_like_vdbench(text), "{name} taken for vdbench");
    }
    for no in [
        "set $dir=/tmp\ndefine fileset name=x\n",
        "define fileset name=bigfileset,path=$dir\n",
        "# filebench\nset mode quit alldone\n",
        "rw = \"read\"\n",
        "[global]\nrw=read\n",
        "sd = \"x\"\n",
        "sd=\"x\"\n",
        "bs=4k\n",
        "; fio\n[job]\n",
        "eof\nsd=sd1\n",
        "",
    ] {
        assert!(!looks_like_vdbench(no), "{no:?}");
    }
}
