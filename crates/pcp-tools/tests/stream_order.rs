//! Standard output and error sent to one file (`2>&1`) interleave as the
//! C tools' do, with standard output block-buffered as it is in a file.

use std::cell::RefCell;
use std::io::{BufWriter, Write};
use std::rc::Rc;

/// One file that both streams write to.
#[derive(Clone, Default)]
struct SharedFile(Rc<RefCell<Vec<u8>>>);

impl Write for SharedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn pmval_writes_its_lines_before_a_later_fetch_error() {
    // QA 931: the values before the failing fetch, then the error
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/pmval/multi07");
    let read = |ext: &str| std::fs::read(format!("{golden}.{ext}")).expect("golden file");
    let mut expected = read("out");
    expected.extend(read("err"));
    let file = SharedFile::default();
    let mut out = BufWriter::new(file.clone());
    let mut err = file.clone();
    // (relative, as the golden case names them: tests run in the crate)
    let archives = "../pcp-archive/tests/fixtures/multi/ov1,../pcp-archive/tests/fixtures/multi/ov2";
    let args: Vec<std::ffi::OsString> = ["pmval", "-U", archives, "sample.colour"].map(Into::into).to_vec();
    let env: Vec<(Vec<u8>, Vec<u8>)> =
        [("PCP_DERIVED_CONFIG", ""), ("TZ", "UTC")].map(|(k, v)| (k.into(), v.into())).to_vec();
    let status = pcp_tools::pmval::run_with_env(&args, &env, &mut out, &mut err);
    out.flush().expect("flush");
    assert_eq!(status, 1);
    assert_eq!(String::from_utf8_lossy(&file.0.borrow()), String::from_utf8_lossy(&expected));
}

#[test]
fn pmval_traces_the_archive_end_after_the_zone_note() {
    // pmGetContextOptions: the zone's note, then the archive's end found
    // (under -Dlog, the peek at the last record)
    let file = SharedFile::default();
    let mut out = BufWriter::new(file.clone());
    let mut err = file.clone();
    let archive = "../pcp-archive/tests/fixtures/v3";
    let args: Vec<std::ffi::OsString> =
        ["pmval", "-z", "-Dlog", "-s", "1", "-a", archive, "sample.long.one"].map(Into::into).to_vec();
    let env: Vec<(Vec<u8>, Vec<u8>)> =
        [("PCP_DERIVED_CONFIG", ""), ("TZ", "UTC")].map(|(k, v)| (k.into(), v.into())).to_vec();
    let status = pcp_tools::pmval::run_with_env(&args, &env, &mut out, &mut err);
    out.flush().expect("flush");
    assert_eq!(status, 0);
    let text = String::from_utf8_lossy(&file.0.borrow()).into_owned();
    let note = text.find("Note: timezone set to local timezone of host").expect("the note");
    let peek = text.find("(peek) mode=back").expect("the end's peek");
    assert!(note < peek, "{text}");
}
