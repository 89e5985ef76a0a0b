//! Configuration files against libpcp 6.0.3 (tests/golden/config.tsv, made
//! by oracle/gen-derived.sh): for each file, or set of files and
//! `$PCP_DERIVED_CONFIG`, pmLoadDerivedConfig's result, what libpcp wrote
//! to stderr, and the global derived metrics it then had (names and help
//! texts) must come out the same.
//!
//! libpcp 6.0.3 does not join lines ending in `\` (the manual page says it
//! should, and PCP 6.3 does, as pcp-derived does); no recorded case ends a
//! line with `\`, and the unit tests in src/config.rs cover joining.

mod common;

use pcp_core::PmError;
use pcp_derived::registry::HelpLevel;
use pcp_derived::{ConfigFiles, Environment, PathKind, Registry};
use std::collections::HashMap;

fn golden() -> String {
    common::golden("config.tsv")
}

/// The files of one case, directories listing in the recorded order.
#[derive(Default)]
struct Files {
    files: HashMap<Vec<u8>, Vec<u8>>,
    dirs: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    others: Vec<Vec<u8>>,
}

const ENOENT: i32 = 2;

impl ConfigFiles for Files {
    fn kind(&mut self, path: &[u8]) -> Result<PathKind, PmError> {
        if self.files.contains_key(path) {
            Ok(PathKind::File)
        } else if self.dirs.contains_key(path) {
            Ok(PathKind::Directory)
        } else if self.others.iter().any(|o| o == path) {
            Ok(PathKind::Other)
        } else {
            Err(PmError::from_errno(ENOENT))
        }
    }
    fn list(&mut self, dir: &[u8]) -> Result<Vec<Vec<u8>>, PmError> {
        self.dirs.get(dir).cloned().ok_or(PmError::from_errno(ENOENT))
    }
    fn read(&mut self, path: &[u8]) -> Result<Vec<u8>, PmError> {
        self.files.get(path).cloned().ok_or(PmError::from_errno(ENOENT))
    }
}

/// The oracle's metric columns for the registry: name, one-line and long
/// help ("=text" or "-").
fn metrics(r: &Registry) -> Vec<Vec<u8>> {
    let text = |t: Option<Result<&[u8], PmError>>| match t {
        Some(Ok(t)) => [b"=".as_slice(), t].concat(),
        _ => b"-".to_vec(),
    };
    let mut out = Vec::new();
    for m in r.metrics() {
        out.push(m.name.as_bytes().to_vec());
        out.push(text(r.help_text(m.pmid, HelpLevel::OneLine)));
        out.push(text(r.help_text(m.pmid, HelpLevel::Help { direct: false })));
    }
    out
}

/// The oracle's metric columns, unescaped ("-" stays "-", "=x" stays "=x").
fn want_metrics(cols: &[&str]) -> Vec<Vec<u8>> {
    cols.chunks(3)
        .flat_map(|c| {
            let name = common::column(c[0]);
            let t =
                |s: &str| if s == "-" { b"-".to_vec() } else { [b"=".as_slice(), &common::column(&s[1..])].concat() };
            [name, t(c[1]), t(c[2])]
        })
        .collect()
}

#[test]
fn loads_like_libpcp() {
    let (mut files_cases, mut path_cases) = (0, 0);
    let mut failures = Vec::new();
    for line in golden().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let mut fs = Files::default();
        let (env, load, rest) = match f[0] {
            "C" => {
                let text = common::column(f[2]);
                // generated cases (real files, numbered from 1000, may join lines
                // where libpcp 6.0.3 does not, and are compared all the same)
                let generated = f[1].parse::<u32>().is_ok_and(|id| id < 1000);
                assert!(!generated || !text.windows(2).any(|w| w == b"\\\n"), "case {} ends a line with \\", f[1]);
                fs.files.insert(b"case.conf".to_vec(), text);
                files_cases += 1;
                (Some(Vec::new()), b"case.conf".to_vec(), &f[3..])
            }
            "P" => {
                for spec in f[4].split(';') {
                    let (kind, rest) = spec.split_at(2);
                    let (path, what) = rest.split_once(':').unwrap_or((rest, ""));
                    let path = path.as_bytes().to_vec();
                    match kind {
                        "F:" => {
                            fs.files.insert(path, common::hex(what));
                        }
                        "D:" => {
                            let kids =
                                what.split(',').filter(|k| !k.is_empty()).map(|k| k.as_bytes().to_vec()).collect();
                            fs.dirs.insert(path, kids);
                        }
                        "O:" => fs.others.push(path),
                        k => panic!("file kind {k}"),
                    }
                }
                path_cases += 1;
                let env = if f[2] == "unset" { None } else { Some(common::column(f[2])) };
                (env, common::column(f[3]), &f[5..])
            }
            k => panic!("line kind {k}"),
        };
        let environment = Environment { derived_config: env, var_dir: b"var".to_vec(), progname: "oracle".into() };
        let mut r = Registry::new();
        let (n, report) = r.load_config(&load, &environment, &mut fs);
        let rc = match n {
            Ok(n) => n.to_string(),
            Err(e) => e.code().to_string(),
        };
        let got = metrics(&r);
        let want = want_metrics(&rest[2..]);
        if rc != rest[0] || report != common::column(rest[1]) || got != want {
            failures.push(format!(
                "{} {}: {}\n  libpcp {} {:?}\n  ours   {} {:?}\n  metrics libpcp {:?}\n  metrics ours   {:?}",
                f[0],
                f[1],
                f[2],
                rest[0],
                String::from_utf8_lossy(&common::column(rest[1])),
                rc,
                String::from_utf8_lossy(&report),
                want.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect::<Vec<_>>(),
                got.iter().map(|m| String::from_utf8_lossy(m).into_owned()).collect::<Vec<_>>(),
            ));
        }
    }
    let n = failures.len();
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert_eq!(n, 0, "{n} cases differ");
    assert!(files_cases > 1000 && path_cases >= 14, "{files_cases} {path_cases}");
    eprintln!("{files_cases} files and {path_cases} search paths as libpcp");
}
