//! libpcp's `getopt_long` (`pmgetopt_r`), the one command-line scanner
//! every tool here uses, alone (pmcpp) or under `pmGetOptions`
//! ([`super::Parser`]). It behaves as GNU `getopt_long` does: options and
//! operands may be mixed (the operands are permuted to the end, unless
//! `POSIXLY_CORRECT` or the short option string says otherwise), `--`
//! ends the options, long options may be abbreviated to any unambiguous
//! prefix, and its complaints are glibc's texts, which libpcp `pmprintf`s
//! (so they wait in the caller's message buffer).

use super::{LongOpt, ToolSpec};

/// How getopt treats operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ordering {
    /// Gather them after the options.
    Permute,
    /// Stop at the first.
    RequireOrder,
    /// Return each as an option with letter 1.
    ReturnInOrder,
}

/// What one `pmgetopt_r` call returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Got {
    /// The end of the options: the operands are [`GetOpt::remaining`].
    End,
    /// An option letter (`?` for an error, 1 for an operand in
    /// return-in-order mode), with its index in the long option table if
    /// it was given by name, and its argument.
    Opt(u8, Option<usize>, Option<Vec<u8>>),
}

/// `pmgetopt_r`'s state over one command line.
#[doc(alias = "pmgetopt_r")]
#[derive(Clone, Debug)]
pub struct GetOpt {
    /// The arguments, permuted as scanning goes.
    args: Vec<Vec<u8>>,
    long_options: &'static [LongOpt],
    /// The short options, without a leading `-` or `+`.
    optstring: &'static [u8],
    ordering: Ordering,
    long_only: bool,
    /// No complaints (`PM_OPTFLAG_QUIET`, or a short option string
    /// starting with `:`).
    quiet: bool,
    /// The program name complaints start with.
    prog: String,
    optind: usize,
    /// Position in `args[optind]` of the next short option letter.
    nextchar: Option<usize>,
    first_nonopt: usize,
    last_nonopt: usize,
    /// Complaints of the current step, not yet handed to the caller.
    pending: Vec<u8>,
}

impl GetOpt {
    /// Start scanning `args` (`args[0]` the program) with `spec`'s short
    /// and long options and flags; `posixly_correct`: `$POSIXLY_CORRECT`
    /// is set (operands then end the options, as `PM_OPTFLAG_POSIX`
    /// does). Complaints start with `prog`.
    pub fn new(args: &[Vec<u8>], spec: &ToolSpec, prog: &str, posixly_correct: bool) -> GetOpt {
        let mut optstring = spec.short_options.as_bytes();
        let ordering = match optstring.first() {
            Some(b'-') => {
                optstring = &optstring[1..];
                Ordering::ReturnInOrder
            }
            Some(b'+') => {
                optstring = &optstring[1..];
                Ordering::RequireOrder
            }
            _ if spec.flags.posix || posixly_correct => Ordering::RequireOrder,
            _ => Ordering::Permute,
        };
        GetOpt {
            args: args.to_vec(),
            long_options: spec.long_options,
            optstring,
            ordering,
            long_only: spec.flags.long_only,
            quiet: spec.flags.quiet || optstring.first() == Some(&b':'),
            prog: prog.to_string(),
            optind: 1,
            nextchar: None,
            first_nonopt: 1,
            last_nonopt: 1,
            pending: Vec::new(),
        }
    }

    /// The next option, its complaint (if any) appended to `messages`
    /// (libpcp's `pmprintf` buffer).
    pub fn next(&mut self, messages: &mut Vec<u8>) -> Got {
        let got = self.step();
        messages.append(&mut self.pending);
        got
    }

    /// `optind`: the index of the next argument to scan (after an option,
    /// just past it and its argument; at the end, the first operand).
    pub fn optind(&self) -> usize {
        self.optind
    }

    /// The arguments from `optind` on: the operands, once [`GetOpt::next`]
    /// has returned [`Got::End`].
    pub fn remaining(&self) -> &[Vec<u8>] {
        self.args.get(self.optind..).unwrap_or_default()
    }

    fn complain(&mut self, text: &[u8]) {
        if !self.quiet {
            self.pending.extend_from_slice(text);
        }
    }

    /// Move the operands skipped so far (`first_nonopt..last_nonopt`)
    /// after the options that followed them (`last_nonopt..optind`).
    fn exchange(&mut self) {
        let (bottom, middle, top) = (self.first_nonopt, self.last_nonopt, self.optind);
        if bottom < middle && middle < top && top <= self.args.len() {
            self.args[bottom..top].rotate_left(middle - bottom);
        }
        self.first_nonopt += self.optind - self.last_nonopt;
        self.last_nonopt = self.optind;
    }

    fn is_operand(a: &[u8]) -> bool {
        a.first() != Some(&b'-') || a.len() == 1
    }

    /// One step of `pmgetopt_r`.
    fn step(&mut self) -> Got {
        let argc = self.args.len();
        if argc < 1 {
            return Got::End;
        }
        if self.nextchar.is_none() {
            if self.last_nonopt > self.optind {
                self.last_nonopt = self.optind;
            }
            if self.first_nonopt > self.optind {
                self.first_nonopt = self.optind;
            }
            if self.ordering == Ordering::Permute {
                if self.first_nonopt != self.last_nonopt && self.last_nonopt != self.optind {
                    self.exchange();
                } else if self.last_nonopt != self.optind {
                    self.first_nonopt = self.optind;
                }
                while self.optind < argc && Self::is_operand(&self.args[self.optind]) {
                    self.optind += 1;
                }
                self.last_nonopt = self.optind;
            }
            if self.optind != argc && self.args[self.optind] == b"--" {
                self.optind += 1;
                if self.first_nonopt != self.last_nonopt && self.last_nonopt != self.optind {
                    self.exchange();
                } else if self.first_nonopt == self.last_nonopt {
                    self.first_nonopt = self.optind;
                }
                self.last_nonopt = argc;
                self.optind = argc;
            }
            if self.optind == argc {
                if self.first_nonopt != self.last_nonopt {
                    self.optind = self.first_nonopt;
                }
                return Got::End;
            }
            if Self::is_operand(&self.args[self.optind]) {
                if self.ordering == Ordering::RequireOrder {
                    return Got::End;
                }
                let arg = self.args[self.optind].clone();
                self.optind += 1;
                return Got::Opt(1, None, Some(arg));
            }
            let elem = &self.args[self.optind];
            self.nextchar = Some(1 + usize::from(elem.get(1) == Some(&b'-')));
        }

        let elem = self.args[self.optind].clone();
        let next = self.nextchar.unwrap_or(1);
        let long_only = self.long_only;
        let is_long = elem.get(1) == Some(&b'-')
            || (long_only && (elem.len() > 2 || !self.optstring.contains(&elem.get(1).copied().unwrap_or(0))));
        if is_long {
            if let Some(g) = self.long_opt(&elem, next, long_only) {
                return g;
            }
        }
        self.short_opt(&elem, next)
    }

    /// The long option at `elem[next..]`; `None` to read it as short
    /// options instead (long-only mode).
    fn long_opt(&mut self, elem: &[u8], next: usize, long_only: bool) -> Option<Got> {
        let body = &elem[next..];
        let namelen = body.iter().position(|&b| b == b'=').unwrap_or(body.len());
        let name = &body[..namelen];
        let table = self.long_options;
        let mut found: Option<usize> = None;
        let mut exact = false;
        let mut ambiguous: Vec<usize> = Vec::new();
        for (i, o) in table.iter().enumerate() {
            let l = o.long.as_bytes();
            // strncmp(long, name, namelen) == 0
            if l.len() < namelen || &l[..namelen] != name {
                continue;
            }
            if l.len() == namelen {
                found = Some(i);
                exact = true;
                break;
            }
            match found {
                None => found = Some(i),
                Some(f) => {
                    let pf = &table[f];
                    if long_only || pf.has_arg != o.has_arg || pf.short != o.short {
                        ambiguous.insert(0, i);
                    }
                }
            }
        }
        let prog = self.prog.clone();
        if !ambiguous.is_empty() && !exact {
            let mut m = format!("{prog}: option '").into_bytes();
            m.extend_from_slice(elem);
            m.extend_from_slice(b"' is ambiguous; possibilities:");
            for i in found.into_iter().chain(ambiguous) {
                m.extend_from_slice(format!(" '--{}'", table[i].long).as_bytes());
            }
            m.push(b'\n');
            self.complain(&m);
            self.nextchar = None;
            self.optind += 1;
            return Some(Got::Opt(b'?', None, None));
        }
        if let Some(i) = found {
            let o = table[i];
            self.optind += 1;
            self.nextchar = None;
            let mut arg = None;
            if namelen < body.len() {
                if o.has_arg {
                    arg = Some(body[namelen + 1..].to_vec());
                } else {
                    let m = if elem.get(1) == Some(&b'-') {
                        format!("{prog}: option '--{}' doesn't allow an argument\n", o.long)
                    } else {
                        format!("{prog}: option '{}{}' doesn't allow an argument\n", elem[0] as char, o.long)
                    };
                    self.complain(m.as_bytes());
                    return Some(Got::Opt(b'?', None, None));
                }
            } else if o.has_arg {
                if self.optind < self.args.len() {
                    arg = Some(self.args[self.optind].clone());
                    self.optind += 1;
                } else {
                    let m = format!("{prog}: option '--{}' requires an argument\n", o.long);
                    self.complain(m.as_bytes());
                    let c = if self.optstring.first() == Some(&b':') { b':' } else { b'?' };
                    return Some(Got::Opt(c, None, None));
                }
            }
            return Some(Got::Opt(o.short, Some(i), arg));
        }
        if !long_only || elem.get(1) == Some(&b'-') || !self.optstring.contains(&body.first().copied().unwrap_or(0)) {
            let mut m = if elem.get(1) == Some(&b'-') {
                format!("{prog}: unrecognized option '--").into_bytes()
            } else {
                format!("{prog}: unrecognized option '{}", elem[0] as char).into_bytes()
            };
            m.extend_from_slice(body);
            m.extend_from_slice(b"'\n");
            self.complain(&m);
            self.nextchar = None;
            self.optind += 1;
            return Some(Got::Opt(b'?', None, None));
        }
        None
    }

    /// The short option letter at `elem[next]`.
    fn short_opt(&mut self, elem: &[u8], next: usize) -> Got {
        let c = elem.get(next).copied().unwrap_or(0);
        let next = next + 1;
        // the element's last letter moves on to the next element
        self.nextchar = if next >= elem.len() {
            self.optind += 1;
            None
        } else {
            Some(next)
        };
        let pos = self.optstring.iter().position(|&b| b == c);
        let prog = self.prog.clone();
        let Some(pos) = pos.filter(|_| c != b':' && c != b';') else {
            let mut m = format!("{prog}: invalid option -- '").into_bytes();
            m.push(c);
            m.extend_from_slice(b"'\n");
            self.complain(&m);
            return Got::Opt(b'?', None, None);
        };
        let colons = self.optstring[pos + 1..].iter().take(2).take_while(|&&b| b == b':').count();
        if colons == 0 {
            return Got::Opt(c, None, None);
        }
        let rest = &elem[next.min(elem.len())..];
        let mut arg = None;
        if colons == 2 {
            // optional argument: only in the same element
            if !rest.is_empty() {
                arg = Some(rest.to_vec());
                self.optind += 1;
            }
        } else if !rest.is_empty() {
            arg = Some(rest.to_vec());
            self.optind += 1;
        } else if self.optind == self.args.len() {
            let mut m = format!("{prog}: option requires an argument -- '").into_bytes();
            m.push(c);
            m.extend_from_slice(b"'\n");
            self.complain(&m);
            self.nextchar = None;
            let r = if self.optstring.first() == Some(&b':') { b':' } else { b'?' };
            return Got::Opt(r, None, None);
        } else {
            arg = Some(self.args[self.optind].clone());
            self.optind += 1;
        }
        self.nextchar = None;
        Got::Opt(c, None, arg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{ApiVersion, ToolFlags};

    const LONG: [LongOpt; 3] = [
        LongOpt::new("define", true, b'D', Some("X"), "define"),
        LongOpt::new("", false, b'P', None, "no markers"),
        LongOpt::new("restrict", false, b'r', None, "restrict"),
    ];

    const SPEC: ToolSpec = ToolSpec {
        short_options: "D:Pr",
        long_options: &LONG,
        short_usage: None,
        version: ApiVersion::V2,
        flags: ToolFlags::NONE,
        overrides: b"",
    };

    /// One option found: its letter, its argument, `optind` after it.
    type Found = (u8, Option<Vec<u8>>, usize);

    /// The options found, the operands and the complaints.
    fn scan(args: &[&str]) -> (Vec<Found>, Vec<Vec<u8>>, String) {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.as_bytes().to_vec()).collect();
        let mut g = GetOpt::new(&args, &SPEC, "prog", false);
        let (mut found, mut messages) = (Vec::new(), Vec::new());
        while let Got::Opt(c, _, arg) = g.next(&mut messages) {
            found.push((c, arg, g.optind()));
        }
        (found, g.remaining().to_vec(), String::from_utf8_lossy(&messages).into_owned())
    }

    #[test]
    fn operands_are_permuted_after_the_options() {
        let (found, operands, e) = scan(&["prog", "in", "-PDX=1", "--def", "Y", "out", "--", "-r"]);
        assert_eq!(e, "");
        assert_eq!(operands, vec![b"in".to_vec(), b"out".to_vec(), b"-r".to_vec()]);
        assert_eq!(found[1], (b'D', Some(b"X=1".to_vec()), 3));
        assert_eq!(found[2], (b'D', Some(b"Y".to_vec()), 5));
    }

    #[test]
    fn complaints_are_glibc_texts() {
        assert_eq!(scan(&["prog", "-x"]).2, "prog: invalid option -- 'x'\n");
        assert_eq!(scan(&["prog", "-D"]).2, "prog: option requires an argument -- 'D'\n");
        assert_eq!(scan(&["prog", "--foo=1"]).2, "prog: unrecognized option '--foo=1'\n");
        assert_eq!(scan(&["prog", "--define"]).2, "prog: option '--define' requires an argument\n");
        assert_eq!(scan(&["prog", "--restrict=1"]).2, "prog: option '--restrict' doesn't allow an argument\n");
        assert_eq!(scan(&["prog", "--re=1", "--de"]).0, vec![(b'?', None, 2), (b'?', None, 3)]);
    }
}
