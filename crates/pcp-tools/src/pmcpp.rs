//! `pmcpp`: the preprocessor for PCP's configuration files and ASCII name
//! spaces, as a tool (see [`pcp_pmns::cpp`]).

use crate::options::getopt::{GetOpt, Got};
use crate::options::{progname, tools, usage_text};
use pcp_pmns::cpp::{Cpp, Files, Options, OsFiles};
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
    // (letter, argument, optind after it), in command-line order
    let mut found = Vec::new();
    let mut complaints = Vec::new();
    while let Got::Opt(c, _, arg) = getopt.next(&mut complaints) {
        found.push((c, arg, getopt.optind()));
    }
    let operands = getopt.remaining();
    let _ = err.write_all(&complaints);
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
    // -D definitions are made as the options are read, before any input
    let mut cpp = Cpp::new(&opts);
    let mut errors = 0;
    for (c, arg, optind) in &found {
        match (c, arg) {
            (b'D', Some(def)) => {
                if let Err(failed) = cpp.define_arg(def, *optind as i32) {
                    let _ = err.write_all(&failed.diagnostics);
                    return 1;
                }
            }
            (b'?', _) => errors += 1,
            _ => {}
        }
    }
    if errors > 0 || operands.len() > 2 {
        let usage = usage_text(&prog, spec.short_usage, spec.long_options);
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
    let sink: &mut dyn Write = match operands.get(1) {
        Some(path) if data.is_some() => {
            match std::fs::File::create(std::ffi::OsStr::new(&String::from_utf8_lossy(path).into_owned())) {
                Ok(f) => {
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
    let result = cpp.run(input.map(Vec::as_slice), data, files);
    let _ = sink.write_all(&result.text);
    let _ = sink.flush();
    let _ = err.write_all(&result.diagnostics);
    if result.ok {
        0
    } else {
        1
    }
}
