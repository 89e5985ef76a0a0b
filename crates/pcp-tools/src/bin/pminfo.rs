//! `pminfo`: see [`pcp_tools::pminfo`].
fn main() {
    pcp_tools::main_with(pcp_tools::pminfo::run)
}
