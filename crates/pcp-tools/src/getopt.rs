//! Command-line options as PCP's tools read them (`pmgetopt_r`, which
//! behaves as GNU `getopt_long`): options and operands may be mixed (the
//! operands are gathered in order), `--` ends the options, long options may
//! be abbreviated to any unambiguous prefix, and errors are reported with
//! glibc's texts.

use std::io::Write;

/// One option a tool accepts.
#[derive(Clone, Copy, Debug)]
pub struct OptSpec {
    /// The short letter (also the identifier returned for the long form).
    pub short: char,
    /// The long name without `--`, if any.
    pub long: Option<&'static str>,
    /// Does it take an argument?
    pub has_arg: bool,
}

/// One option found on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The option's short letter.
    pub opt: char,
    /// Its argument.
    pub arg: Option<Vec<u8>>,
    /// getopt's `optind` just after this option (what PCP tools print in
    /// some messages).
    pub optind: usize,
}

/// The parsed command line.
#[derive(Clone, Debug, Default)]
pub struct Parsed {
    /// Options in command-line order.
    pub opts: Vec<Found>,
    /// Operands in command-line order.
    pub operands: Vec<Vec<u8>>,
    /// How many errors were reported.
    pub errors: usize,
    /// The error messages, each with the number of options found before
    /// it (so a tool can interleave them with its own, as pmGetOptions'
    /// single message buffer does).
    pub messages: Vec<(usize, String)>,
}

impl Parsed {
    /// The error messages that came after `n` options and before the next.
    pub fn messages_at(&self, n: usize) -> impl Iterator<Item = &str> {
        self.messages.iter().filter(move |(k, _)| *k == n).map(|(_, m)| m.as_str())
    }
}

/// Parse `args` (with `args[0]` the program) against `specs`, reporting
/// errors to `err` prefixed with `prog` as glibc's getopt does.
pub fn parse(args: &[Vec<u8>], specs: &[OptSpec], prog: &str, err: &mut dyn Write) -> Parsed {
    let p = parse_quiet(args, specs, prog);
    for (_, m) in &p.messages {
        let _ = err.write_all(m.as_bytes());
    }
    p
}

/// [`parse`] without writing: the messages are left in
/// [`Parsed::messages`].
pub fn parse_quiet(args: &[Vec<u8>], specs: &[OptSpec], prog: &str) -> Parsed {
    let mut p = Parsed::default();
    let mut i = 1;
    fn report(p: &mut Parsed, msg: String) {
        p.messages.push((p.opts.len(), msg));
    }
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == b"--" {
            p.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(body) = a.strip_prefix(b"--") {
            let (name, inline) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(body[eq + 1..].to_vec())),
                None => (body, None),
            };
            let exact = specs.iter().find(|s| s.long.is_some_and(|l| l.as_bytes() == name));
            let matches: Vec<&OptSpec> = match exact {
                Some(s) => vec![s],
                None => specs.iter().filter(|s| s.long.is_some_and(|l| l.as_bytes().starts_with(name))).collect(),
            };
            let shown = String::from_utf8_lossy(body);
            match matches.as_slice() {
                [] => {
                    report(&mut p, format!("{prog}: unrecognized option '--{shown}'\n"));
                    p.errors += 1;
                }
                [s] => {
                    let long = s.long.unwrap_or_default();
                    let arg = match (s.has_arg, inline) {
                        (true, Some(v)) => Some(v),
                        (true, None) if i < args.len() => {
                            i += 1;
                            Some(args[i - 1].clone())
                        }
                        (true, None) => {
                            report(&mut p, format!("{prog}: option '--{long}' requires an argument\n"));
                            p.errors += 1;
                            continue;
                        }
                        (false, Some(_)) => {
                            report(&mut p, format!("{prog}: option '--{long}' doesn't allow an argument\n"));
                            p.errors += 1;
                            continue;
                        }
                        (false, None) => None,
                    };
                    p.opts.push(Found { opt: s.short, arg, optind: i });
                }
                many => {
                    let name = String::from_utf8_lossy(name);
                    let mut msg = format!("{prog}: option '--{name}' is ambiguous; possibilities:");
                    for s in many {
                        msg.push_str(&format!(" '--{}'", s.long.unwrap_or_default()));
                    }
                    msg.push('\n');
                    report(&mut p, msg);
                    p.errors += 1;
                }
            }
            continue;
        }
        if a.len() < 2 || a[0] != b'-' {
            p.operands.push(a.clone());
            continue;
        }
        // a cluster of short options
        let mut j = 1;
        while j < a.len() {
            let c = a[j] as char;
            j += 1;
            let Some(s) = specs.iter().find(|s| s.short == c && c != ':') else {
                report(&mut p, format!("{prog}: invalid option -- '{c}'\n"));
                p.errors += 1;
                p.opts.push(Found { opt: '?', arg: None, optind: i });
                continue;
            };
            if !s.has_arg {
                p.opts.push(Found { opt: c, arg: None, optind: i });
                continue;
            }
            let arg = if j < a.len() {
                Some(a[j..].to_vec())
            } else if i < args.len() {
                i += 1;
                Some(args[i - 1].clone())
            } else {
                report(&mut p, format!("{prog}: option requires an argument -- '{c}'\n"));
                p.errors += 1;
                break;
            };
            p.opts.push(Found { opt: c, arg, optind: i });
            break;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptSpec] = &[
        OptSpec { short: 'D', long: Some("define"), has_arg: true },
        OptSpec { short: 'P', long: None, has_arg: false },
        OptSpec { short: 'r', long: Some("restrict"), has_arg: false },
    ];

    fn run(args: &[&str]) -> (Parsed, String) {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let mut err = Vec::new();
        let p = parse(&args, SPECS, "prog", &mut err);
        (p, String::from_utf8(err).unwrap_or_default())
    }

    #[test]
    fn mixed_options_and_operands() {
        let (p, e) = run(&["prog", "in", "-PDX=1", "--def", "Y", "out", "--", "-r"]);
        assert_eq!(e, "");
        assert_eq!(p.operands, vec![b"in".to_vec(), b"out".to_vec(), b"-r".to_vec()]);
        assert_eq!(p.opts[1], Found { opt: 'D', arg: Some(b"X=1".to_vec()), optind: 3 });
        assert_eq!(p.opts[2], Found { opt: 'D', arg: Some(b"Y".to_vec()), optind: 5 });
    }

    #[test]
    fn glibc_messages() {
        assert_eq!(run(&["prog", "-x"]).1, "prog: invalid option -- 'x'\n");
        assert_eq!(run(&["prog", "-D"]).1, "prog: option requires an argument -- 'D'\n");
        assert_eq!(run(&["prog", "--foo=1"]).1, "prog: unrecognized option '--foo=1'\n");
        assert_eq!(run(&["prog", "--define"]).1, "prog: option '--define' requires an argument\n");
        assert_eq!(run(&["prog", "--restrict=1"]).1, "prog: option '--restrict' doesn't allow an argument\n");
    }
}
