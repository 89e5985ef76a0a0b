//! `pmcpp`: the preprocessor for PCP's configuration files and ASCII name
//! spaces, as a tool (see [`pcp_pmns::cpp`]).

use crate::options::getopt::{GetOpt, Got};
use crate::options::{progname, tools, usage_text};
use pcp_pmns::cpp::{Cpp, Files, Options, OsFiles, Output, Step};
use std::ffi::OsString;
use std::io::Write;

/// Run `pmcpp` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] with its files and commands from `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let spec = tools::PMCPP;
    let prog = progname(args.first().map(Vec::as_slice).unwrap_or_default());
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut getopt = GetOpt::new(&args, &spec, &prog, posixly_correct);
    // (letter, argument, optind after it), in command-line order; getopt's
    // complaints wait in libpcp's pmprintf buffer for the usage message
    // (a -D that fails first exits without them)
    let mut found = Vec::new();
    let mut complaints = Vec::new();
    while let Got::Opt(c, _, arg) = getopt.next(&mut complaints) {
        found.push((c, arg, getopt.optind()));
    }
    let operands = getopt.remaining();
    let var_dir = pcp::config::var_dir().into_os_string().into_encoded_bytes();
    let mut opts = Options { var_dir, ..Options::default() };
    for (c, arg, _) in &found {
        match (c, arg) {
            (b'I', Some(dir)) => opts.include_dirs.push(dir.clone()),
            (b'P', _) => opts.line_markers = false,
            (b'r', _) => opts.restrict = true,
            (b's', _) => opts.shell_style = true,
            _ => {}
        }
    }
    // -D definitions are made as the options are read, before any input,
    // traced if -d came before them
    let mut cpp = Cpp::new(&opts);
    let mut errors = 0;
    for (c, arg, optind) in &found {
        match (c, arg) {
            (b'd', _) => cpp.set_debug(true),
            (b'D', Some(def)) => {
                if let Err(failed) = cpp.define_arg(def, *optind as i32) {
                    let _ = err.write_all(&failed.diagnostics);
                    return 1;
                }
                let _ = err.write_all(&cpp.take_diagnostics());
            }
            (b'?', _) => errors += 1,
            _ => {}
        }
    }
    // libpcp's own debug options, from $PCP_DEBUG (pmcpp's -D defines)
    let trace = std::env::var_os("PCP_DEBUG")
        .and_then(|v| pcp::debug::DebugOptions::parse(v.as_encoded_bytes()).ok())
        .map_or_else(pcp::debug::Trace::off, pcp::debug::Trace::new);
    if errors > 0 || operands.len() > 2 {
        let usage = usage_text(&prog, spec.short_usage, spec.long_options);
        // (pmUsageMessage's pmflush)
        pcp::config::trace_flush(&trace);
        let _ = err.write_all(&trace.take());
        let _ = err.write_all(&complaints);
        let _ = err.write_all(usage.as_bytes());
        return 1;
    }
    let input = operands.first();
    // read the input first: its errors come before any about the output
    let data = match input {
        // a read error is reported by the preprocessor itself
        Some(name) => files.read(name).ok(),
        None => {
            let mut d = Vec::new();
            let _ = std::io::Read::read_to_end(&mut std::io::stdin(), &mut d);
            Some(d)
        }
    };
    let mut file_out;
    // how C's stdio would hold the output back from the file beneath
    let mut buffering = stdout_buffering();
    let sink: &mut dyn Write = match operands.get(1) {
        Some(path) if data.is_some() => {
            match std::fs::File::create(std::ffi::OsStr::new(&String::from_utf8_lossy(path).into_owned())) {
                Ok(f) => {
                    // (no one reads the file while pmcpp runs)
                    buffering = Buffering::Whole;
                    file_out = std::io::BufWriter::new(f);
                    &mut file_out
                }
                Err(e) => {
                    let text = pcp_core::PmError::from_errno(e.raw_os_error().unwrap_or(5));
                    let _ = writeln!(
                        err,
                        "pmcpp: Cannot open outfile ({}) for writing: {text}",
                        String::from_utf8_lossy(path)
                    );
                    return 1;
                }
            }
        }
        _ => out,
    };
    if data.is_some() {
        // the last include directory, $PCP_VAR_DIR/pmns, found as libpcp
        // finds it (-Dconfig)
        let _ = pcp::config::lookup("PCP_VAR_DIR", &trace);
        let _ = err.write_all(&trace.take());
    }
    let result = cpp.run(input.map(Vec::as_slice), data, files);
    replay(&result, buffering, sink, err);
    if result.ok {
        0
    } else {
        1
    }
}

/// When C's stdio passes buffered output on to the file beneath.
#[derive(Clone, Copy)]
enum Buffering {
    /// At each newline (a terminal).
    Lines,
    /// In blocks of this size: when a write finds the block full, it goes
    /// out (the file's preferred block size: a pipe's page).
    Blocks(usize),
    /// Only at the end (nothing reads the output meanwhile).
    Whole,
}

/// How pmcpp's standard output is buffered (stdio's choice: lines to a
/// terminal, else blocks of the file's `st_blksize`).
fn stdout_buffering() -> Buffering {
    use std::io::IsTerminal;
    if std::io::stdout().is_terminal() {
        return Buffering::Lines;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(meta) = std::fs::metadata("/proc/self/fd/1") {
            if meta.blksize() > 0 {
                return Buffering::Blocks(meta.blksize() as usize);
            }
        }
    }
    Buffering::Blocks(4096)
}

/// Write a run's output and diagnostics in the order pmcpp's reach the
/// files beneath: the text as stdio would pass it on (`buffering`), the
/// diagnostics to unbuffered standard error as they come.
fn replay(result: &Output, buffering: Buffering, out: &mut dyn Write, err: &mut dyn Write) {
    let text = &result.text;
    // text written by pmcpp so far; passed on; where the buffer last
    // started empty
    let (mut written, mut passed, mut base) = (0, 0, 0);
    let mut diag = 0;
    let pass_on = |upto: usize, passed: &mut usize, out: &mut dyn Write| {
        if upto > *passed {
            let _ = out.write_all(&text[*passed..upto]);
            let _ = out.flush();
            *passed = upto;
        }
    };
    for step in &result.steps {
        match *step {
            Step::Text(end) => {
                written = end.min(text.len());
                let upto = match buffering {
                    Buffering::Lines => text[..written].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1),
                    // a block goes out when the write after it finds it full
                    Buffering::Blocks(size) if written > base => base + (written - base - 1) / size * size,
                    _ => passed,
                };
                pass_on(upto.max(passed), &mut passed, out);
            }
            Step::Diagnostics(end) => {
                let _ = err.write_all(result.diagnostics.get(diag..end).unwrap_or_default());
                diag = end;
            }
            Step::Flush => {
                pass_on(written, &mut passed, out);
                base = written;
            }
        }
    }
    pass_on(text.len(), &mut passed, out);
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_reaches_the_file_as_stdio_passes_it_on() {
        let output = Output {
            text: b"0123456789\nabcdefghij\nXY\n".to_vec(),
            diagnostics: b"<1>\n<2>\n<3>\n".to_vec(),
            steps: vec![
                Step::Text(11),
                Step::Diagnostics(4),
                Step::Text(22),
                Step::Diagnostics(8),
                Step::Text(25),
                Step::Flush,
                Step::Diagnostics(12),
            ],
            ok: false,
        };
        // both streams appending to one file, as `2>&1` makes them
        let path = std::env::temp_dir().join(format!("pcp-rs-pmcpp-replay-{}", std::process::id()));
        let run = |buffering| {
            let _ = std::fs::remove_file(&path);
            let open = || std::fs::OpenOptions::new().create(true).append(true).open(&path).expect("temp file");
            let (mut file, mut err) = (open(), open());
            // (stdio's buffer sits in front of the writer given)
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut file);
            replay(&output, buffering, &mut out, &mut err);
            drop(out);
            String::from_utf8(std::fs::read(&path).expect("read")).expect("text")
        };
        // a block goes out when the write after it finds it full
        assert_eq!(run(Buffering::Blocks(8)), "01234567<1>\n89\nabcde<2>\nfghij\nXY\n<3>\n");
        assert_eq!(run(Buffering::Blocks(4096)), "<1>\n<2>\n0123456789\nabcdefghij\nXY\n<3>\n");
        assert_eq!(run(Buffering::Lines), "0123456789\n<1>\nabcdefghij\n<2>\nXY\n<3>\n");
        assert_eq!(run(Buffering::Whole), "<1>\n<2>\n0123456789\nabcdefghij\nXY\n<3>\n");
        let _ = std::fs::remove_file(&path);
    }
}
