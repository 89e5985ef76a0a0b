//! The usage message `pmUsageMessage` builds from a tool's long option
//! table.

use super::{LongOpt, Options};
use std::io::{self, Write};

impl Options {
    /// `pmUsageMessage`: append the usage message to the messages (unless
    /// there was a runtime error or `-V`), then write them all to `err`.
    #[doc(alias = "pmUsageMessage")]
    pub fn usage_message(&mut self, err: &mut dyn Write) -> io::Result<()> {
        if !self.runtime_error && !self.exit {
            let text = usage_text(&self.prog, self.short_usage, self.long_options);
            self.msg(&text);
        }
        self.flush(err)
    }
}

/// The usage message `pmUsageMessage` builds from a long option table.
pub fn usage_text(prog: &str, short_usage: Option<&str>, table: &[LongOpt]) -> String {
    let mut s = format!("Usage: {prog} {}\n", short_usage.unwrap_or("[options]"));
    for o in table {
        let Some(message) = o.message else { continue };
        match o.short {
            b'-' => {
                s.push_str(&format!("\n{message}:\n"));
                continue;
            }
            b'|' => {
                s.push_str(&format!("{message}\n"));
                continue;
            }
            _ => {}
        }
        let arg = o.argname.unwrap_or("?");
        let short = o.short as char;
        let head = match (o.long.is_empty(), o.short != 0, o.has_arg) {
            (false, true, true) => format!("  -{short} {arg}, --{}={arg}", o.long),
            (false, true, false) => format!("  -{short}, --{}", o.long),
            (false, false, true) => format!("  --{}={arg}", o.long),
            (false, false, false) => format!("  --{}", o.long),
            (true, _, true) => format!("  -{short} {arg}"),
            (true, _, false) => format!("  -{short}"),
        };
        if head.len() < 24 {
            s.push_str(&format!("{head}{:1$}{message}\n", "", 24 - head.len()));
        } else {
            s.push_str(&format!("{head}\n{:24}{message}\n", ""));
        }
    }
    s
}
