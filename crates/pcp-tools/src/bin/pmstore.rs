//! `pmstore`: see [`pcp_tools::pmstore`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmstore::run)
}
