//! `pmval`: see [`pcp_tools::pmval`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmval::run)
}
