//! `replay ARCHIVE SCRIPT`: run a replay script (oracle/replay_oracle.c)
//! through Replay and print the results in the oracle's form.
//! PCP_COUNTER_WRAP in the environment turns counter wrapping on.

#[path = "../tests/replay_script/mod.rs"]
mod replay_script;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: replay ARCHIVE SCRIPT");
        std::process::exit(2);
    }
    let script = std::fs::read_to_string(&args[2]).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[2]);
        std::process::exit(2)
    });
    let wrap = std::env::var_os("PCP_COUNTER_WRAP").is_some();
    print!("{}", replay_script::run(&args[1], &script, wrap));
}
