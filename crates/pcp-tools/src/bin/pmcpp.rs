//! `pmcpp`: see [`pcp_tools::pmcpp`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmcpp::run)
}
