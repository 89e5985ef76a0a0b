//! `pmprobe`: see [`pcp_tools::pmprobe`].
fn main() {
    pcp_tools::main_with(pcp_tools::pmprobe::run)
}
