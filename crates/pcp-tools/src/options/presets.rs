//! The `PCP_*` environment variables that preset the standard options
//! (`__pmStartOptions`).

use super::{Hooks, Options};

impl Options {
    /// `__pmStartOptions`: the `PCP_*` variables of the environment
    /// (`PCP_DEBUG` first, then the rest in environment order).
    pub(super) fn start_options(&mut self, env: &[(Vec<u8>, Vec<u8>)], hooks: &mut dyn Hooks) {
        if let Some((_, v)) = env.iter().find(|(k, _)| k == b"PCP_DEBUG") {
            self.set_debug(v, hooks);
        }
        for (k, v) in env {
            let Some(name) = k.strip_prefix(b"PCP_") else { continue };
            match name {
                b"ALIGN_TIME" => self.align_arg = Some(v.clone()),
                b"ARCHIVE" => self.add_archive(v),
                b"ARCHIVE_LIST" => self.add_archive_list(v),
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
                _ => {}
            }
        }
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
