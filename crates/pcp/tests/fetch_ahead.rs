//! Fetches made ahead on a thread (`Context::set_fetch_ahead`) give what
//! fetching one by one gives: two contexts over the same archive, one
//! fetching ahead and one not, are put through the same random sequence
//! of fetches, profile changes, mode changes, duplications, record reads
//! and end-of-archive queries, and must answer each the same, current
//! time included.

use pcp::context::Mode;
use pcp::{Context, PmId, Timestamp};
use proptest::prelude::*;
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../pcp-archive/tests/fixtures");
    dir.join(name).to_string_lossy().into_owned()
}

/// Each fixture archive, and the lists of metrics fetched from it.
const ARCHIVES: &[(&str, &[&[&str]])] = &[
    (
        "v3",
        &[&["sample.bin"], &["sample.long.one", "sample.ulonglong.million"], &["sample.double.hundred", "sample.bin"]],
    ),
    (
        "dyn",
        &[
            &["sample.dynamic.counter"],
            &["sample.dynamic.instant", "sample.long.hundred"],
            &["sample.dynamic.discrete"],
        ],
    ),
    ("marks", &[&["sample.wrap.ulong", "sample.colour"], &["sample.long.hundred"], &["sample.colour"]]),
    ("wrap", &[&["sample.wrap.ulong"], &["sample.wrap.longlong", "sample.wrap.ulonglong"], &["sample.wrap.long"]]),
];

#[derive(Clone, Debug)]
enum Op {
    /// Fetch list `n` this many times.
    Fetch(usize, u8),
    /// Include (or exclude) one instance of list 0's first metric's
    /// instance domain, or all of them.
    Profile(bool, Option<i32>),
    /// Interpolate from this many milliseconds after the start, stepping
    /// this many milliseconds (negative: backwards).
    Interp(i64, i64),
    /// Records forwards from the start.
    Forw,
    /// Duplicate the context, and fetch list `n` from the copy.
    Dup(usize),
    FetchArchive,
    ArchiveEnd,
    /// Fetching ahead on or off (in the context that fetches ahead).
    Ahead(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..3usize, 1..40u8).prop_map(|(n, k)| Op::Fetch(n, k)),
        2 => (any::<bool>(), proptest::option::of(prop::sample::select(vec![0, 1, 2, 5, 17, 40, 100, 200, 500]))).prop_map(|(a, i)| Op::Profile(a, i)),
        2 => (-2000..12000i64, prop::sample::select(vec![100, 250, 1000, 1500, -500, -1000])).prop_map(|(t, d)| Op::Interp(t, d)),
        1 => Just(Op::Forw),
        1 => (0..3usize).prop_map(Op::Dup),
        1 => Just(Op::FetchArchive),
        1 => Just(Op::ArchiveEnd),
        1 => any::<bool>().prop_map(Op::Ahead),
    ]
}

fn pmids(ctx: &Context, names: &[&str]) -> Vec<PmId> {
    ctx.lookup_names(names).expect("names").0
}

/// What `op` makes `ctx` answer (`ahead`: may it fetch ahead).
fn apply(ctx: &mut Context, lists: &[Vec<PmId>], op: &Op, ahead: bool) -> String {
    let start = ctx.archive().expect("archive").label().start;
    let at = |ms: i64| {
        let ns = i64::from(start.nsec) + ms.rem_euclid(1000) * 1_000_000;
        Timestamp { sec: start.sec + ms.div_euclid(1000) + ns / 1_000_000_000, nsec: (ns % 1_000_000_000) as u32 }
    };
    let said = match op {
        Op::Fetch(n, k) => {
            let mut out = pcp::FetchResult::default();
            // (after an error, what the result holds is unspecified)
            (0..*k)
                .map(|_| match ctx.fetch_into(&lists[*n], &mut out) {
                    Ok(()) => format!("{out:?}\n"),
                    Err(e) => format!("{e:?}\n"),
                })
                .collect()
        }
        Op::Profile(add, inst) => {
            let indom = ctx.lookup_desc(lists[0][0]).map(|d| d.indom).unwrap_or(pcp::InDom::NULL);
            let insts: Vec<i32> = inst.iter().copied().collect();
            let r = if *add { ctx.add_profile(indom, &insts) } else { ctx.del_profile(indom, &insts) };
            format!("{r:?}")
        }
        Op::Interp(t, d) => format!("{:?}", ctx.set_mode(Mode::Interp, at(*t), d * 1_000_000)),
        Op::Forw => format!("{:?}", ctx.set_mode(Mode::Forw, at(0), 0)),
        Op::Dup(n) => match ctx.dup() {
            Ok(mut d) => (0..5).map(|_| format!("{:?}\n", d.fetch(&lists[*n]))).collect(),
            Err(e) => format!("{e:?}"),
        },
        Op::FetchArchive => format!("{:?}", ctx.fetch_archive()),
        Op::ArchiveEnd => format!("{:?}", ctx.archive_end()),
        Op::Ahead(on) => {
            ctx.set_fetch_ahead(*on && ahead);
            String::new()
        }
    };
    format!("{said} at {:?}", ctx.origin())
}

fn same_answers(archive: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let (name, lists) = ARCHIVES[archive];
    let mut one = Context::open_archive(&fixture(name)).expect("open");
    let mut ahead = Context::open_archive(&fixture(name)).expect("open");
    ahead.set_fetch_ahead(true);
    let lists: Vec<Vec<PmId>> = lists.iter().map(|l| pmids(&one, l)).collect();
    // (interpolating, as a tool replaying an archive starts)
    let first = Op::Interp(0, 1000);
    for (i, op) in std::iter::once(&first).chain(ops).enumerate() {
        let (a, b) = (apply(&mut one, &lists, op, false), apply(&mut ahead, &lists, op, true));
        // (the first line that differs)
        let first = a.lines().zip(b.lines()).position(|(x, y)| x != y);
        prop_assert_eq!(
            first,
            None,
            "step {} ({:?}): line {:?}",
            i,
            op,
            first.map(|n| (a.lines().nth(n), b.lines().nth(n)))
        );
        prop_assert_eq!(a.lines().count(), b.lines().count(), "step {} ({:?})", i, op);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn fetching_ahead_answers_as_fetching_one_by_one(archive in 0..ARCHIVES.len(), ops in prop::collection::vec(op(), 1..24)) {
        same_answers(archive, &ops)?;
    }
}

/// The common case, to the end of each archive and past it: one list
/// fetched over and over.
#[test]
fn fetching_to_the_end_ahead() {
    for archive in 0..ARCHIVES.len() {
        for step in [100, 1000, -300] {
            let ops = [Op::Interp(if step < 0 { 11000 } else { 0 }, step), Op::Fetch(1, 200)];
            same_answers(archive, &ops).unwrap();
        }
    }
}

/// A profile changed while fetches are made ahead: the fetches after it
/// go through the new profile.
#[test]
fn a_new_profile_stops_fetching_ahead() {
    for archive in 0..ARCHIVES.len() {
        let ops =
            [Op::Fetch(0, 5), Op::Profile(false, None), Op::Fetch(0, 5), Op::Profile(true, Some(1)), Op::Fetch(0, 5)];
        same_answers(archive, &ops).unwrap();
    }
}

/// Called back after more fetches than the thread makes between copies of
/// its replay (and in the middle of a batch): the context is brought up
/// to where the tool got from the last copy, not from the start.
#[test]
fn a_recall_after_many_fetches_catches_up_from_the_last_copy() {
    for archive in 0..ARCHIVES.len() {
        for taken in [1100u32, 2300] {
            let mut ops = vec![Op::Interp(0, 1)];
            // (at most 255 a step: taken in steps of 100; each fixture lasts
            // more than 2.4 s)
            ops.extend((0..taken / 100).map(|_| Op::Fetch(0, 100)));
            ops.extend([Op::Fetch(0, 37), Op::Dup(1), Op::Fetch(1, 3), Op::Profile(false, None), Op::Fetch(0, 5)]);
            same_answers(archive, &ops).unwrap();
        }
    }
}
