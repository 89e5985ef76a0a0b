//! `pmcpp`: the preprocessor for PCP's configuration files and ASCII name
//! spaces, as a tool (see [`pcp_pmns::cpp`]).

use crate::getopt::{self, OptSpec};
use pcp_pmns::cpp::{Cpp, Files, Options, OsFiles};
use std::ffi::OsString;
use std::io::Write;

const USAGE: &str = "\
Usage: pmcpp [-Prs] [-Dname[=value] ...] [-I dir ...] [[infile] outfile]
  -?, --help            show this usage message and exit
  -D name[=value], --define=name[=value]
                        define a macro with an optional value
  -I dir, --include=dir additional directory to search for include files
  -P                    do not output # lineno \"filename\" linemarkers
  -r, --restrict        restrict macro expansion to #name or #{name}
  -s, --shell           use alternate control syntax with prefix % instead of #
";

const SPECS: &[OptSpec] = &[
    OptSpec { short: '?', long: Some("help"), has_arg: false },
    OptSpec { short: 'd', long: None, has_arg: false },
    OptSpec { short: 'D', long: Some("define"), has_arg: true },
    OptSpec { short: 'I', long: Some("include"), has_arg: true },
    OptSpec { short: 'P', long: None, has_arg: false },
    OptSpec { short: 'r', long: Some("restrict"), has_arg: false },
    OptSpec { short: 's', long: Some("shell"), has_arg: false },
];

/// Run `pmcpp` with `args` (including the program name).
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_with(args, out, err, &mut OsFiles)
}

/// [`run`] with its files and commands from `files`.
pub fn run_with(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write, files: &mut dyn Files) -> i32 {
    let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_encoded_bytes().to_vec()).collect();
    let parsed = getopt::parse(&args, SPECS, "pmcpp", err);
    let var_dir = pcp::config::var_dir().into_os_string().into_encoded_bytes();
    let mut opts = Options { var_dir, ..Options::default() };
    for o in &parsed.opts {
        match (o.opt, &o.arg) {
            ('I', Some(dir)) => opts.include_dirs.push(dir.clone()),
            ('P', _) => opts.line_markers = false,
            ('r', _) => opts.restrict = true,
            ('s', _) => opts.shell_style = true,
            _ => {}
        }
    }
    // -D definitions are made as the options are read, before any input
    let mut cpp = Cpp::new(&opts);
    let mut errors = parsed.errors;
    for o in &parsed.opts {
        match (o.opt, &o.arg) {
            ('D', Some(def)) => {
                if let Err(failed) = cpp.define_arg(def, o.optind as i32) {
                    let _ = err.write_all(&failed.diagnostics);
                    return 1;
                }
            }
            ('?', _) => errors += 1,
            _ => {}
        }
    }
    if errors > 0 || parsed.operands.len() > 2 {
        let _ = err.write_all(USAGE.as_bytes());
        return 1;
    }
    let input = parsed.operands.first();
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
    let sink: &mut dyn Write = match parsed.operands.get(1) {
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
