//! `pmerr`: see [`pcp_tools::pmerr`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmerr::run)
}
