//! `pmdumplog`: see [`pcp_tools::pmdumplog`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmdumplog::run)
}
