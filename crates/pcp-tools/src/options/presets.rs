//! The `PCP_*` environment variables that preset the standard options
//! (`__pmStartOptions`).

use super::{Hooks, Options};
use pcp::debug::DebugFlag;

impl Options {
    /// `__pmStartOptions`: the `PCP_*` variables of the environment
    /// (`PCP_DEBUG` first, then the rest in environment order).
    /// Returns what libpcp writes straight to standard error meanwhile
    /// (`-Dconfig`'s report of each variable used).
    pub(super) fn start_options(&mut self, env: &[(Vec<u8>, Vec<u8>)], hooks: &mut dyn Hooks) -> Vec<u8> {
        if let Some((_, v)) = env.iter().find(|(k, _)| k == b"PCP_DEBUG") {
            self.set_debug(v, hooks);
        }
        let mut direct = Vec::new();
        for (k, v) in env {
            let Some(name) = k.strip_prefix(b"PCP_") else { continue };
            match name {
                b"ALIGN_TIME" => self.align_arg = Some(v.clone()),
                b"ARCHIVE" => self.add_archive(v),
                b"ARCHIVE_LIST" => self.add_archive_list(v),
                // (set first, above)
                b"DEBUG" => (),
                b"FOLIO" => self.add_archive_folio(v, hooks),
                b"GUIMODE" => self.set_guimode(),
                b"HOST" => self.add_host(v),
                b"HOST_LIST" => self.add_host_list(v),
                b"SPECLOCAL" => self.spec_local(v, hooks),
                b"LOCALMODE" | b"LOCALPMDA" => self.set_local(),
                b"NAMESPACE" => self.set_namespace(v, true, hooks),
                b"UNIQNAMES" => self.set_namespace(v, false, hooks),
                b"ORIGIN" | b"ORIGIN_TIME" => self.origin_arg = Some(v.clone()),
                b"GUIPORT" => self.set_guiport(v),
                b"START_TIME" => self.start_arg = Some(v.clone()),
                b"SAMPLES" => self.set_samples(v),
                b"FINISH_TIME" => self.finish_arg = Some(v.clone()),
                b"INTERVAL" => self.set_interval(v),
                b"TIMEZONE" => self.set_timezone(v),
                b"HOSTZONE" => self.set_hostzone(),
                _ => continue,
            };
            if self.debug_options.contains(DebugFlag::Config) {
                for part in [&b"pmGetOptions: "[..], k, b"=", v, b" set from the environment\n"] {
                    direct.extend_from_slice(part);
                }
            }
        }
        direct
    }
}

/// The process environment as [`super::Parser::new`] takes it.
pub fn process_env() -> Vec<(Vec<u8>, Vec<u8>)> {
    std::env::vars_os().map(|(k, v)| (k.as_encoded_bytes().to_vec(), v.as_encoded_bytes().to_vec())).collect()
}

#[cfg(test)]
mod tests {
    use crate::options::testing::{args, run, text};
    use crate::options::tools;

    #[test]
    fn config_debugging_reports_each_variable_used() {
        // as PCP 6.0.3's pminfo reports them under PCP_DEBUG=config (QA 607;
        // its pmgetconfig lines are not made here)
        let env: Vec<(Vec<u8>, Vec<u8>)> = [("PCP_HOST", "h"), ("PCP_DEBUG", "config"), ("PCP_NOSUCH", "x")]
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        let mut err = Vec::new();
        let o =
            crate::options::parse(&args(&["pminfo"]), tools::PMINFO, &env, &mut crate::options::DefaultHooks, &mut err);
        assert_eq!(
            String::from_utf8_lossy(&err),
            "pmGetOptions: PCP_HOST=h set from the environment\npmGetOptions: PCP_DEBUG=config set from the environment\n"
        );
        assert_eq!(o.debug_options.to_string(), "config");
        let o = run(tools::PMINFO, &["pminfo"], &[("PCP_HOST", "h")]);
        assert!(o.debug_options.is_empty());
    }

    #[test]
    fn environment_presets() {
        let o = run(
            tools::PMVAL,
            &["pmval", "m"],
            &[("PCP_ARCHIVE", "a1"), ("PCP_START_TIME", "-1h"), ("PCP_INTERVAL", "2s"), ("PCP_HOSTZONE", "")],
        );
        assert_eq!(o.archives, args(&["a1"]));
        assert_eq!(o.start_arg.as_deref(), Some(&b"-1h"[..]));
        assert_eq!(o.interval.sec, 2);
        assert!(o.hostzone);
        assert_eq!(o.errors, 0, "{}", text(&o));
    }
}
