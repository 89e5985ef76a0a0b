//! A metric source of a few values held in memory, plugged into a
//! `Context` through `Context::from_source`: the context's names, instance
//! profile and derived metrics work over it as over an archive, pmcd or
//! the local machine, with nothing in the context knowing of it.

use pcp::context::{Instances, TextLevel};
use pcp::derived::Registry;
use pcp::profile::Profile;
use pcp::{
    Context, Desc, FetchResult, InDom, InstValue, MetricSource, MetricType, PmError, PmId, PmResult, Semantics,
    Timestamp, Units, Value, ValueSet, PM_IN_NULL,
};
use pcp_pmns::Pmns;

const DOMAIN: u32 = 200;
const DISKS: InDom = InDom::new(DOMAIN, 1);
const NDISKS: PmId = PmId::new(DOMAIN, 0, 1);
const READS: PmId = PmId::new(DOMAIN, 0, 2);

/// Two metrics: the number of disks, and reads for each disk.
#[derive(Clone, Debug)]
struct Memory {
    disks: Vec<(i32, &'static str, i32)>,
    /// When the values were read: each fetch moves it on a second.
    now: Timestamp,
}

impl Memory {
    fn new() -> Memory {
        Memory { disks: vec![(0, "sda", 10), (1, "sdb", 20), (7, "nvme0n1", 30)], now: Timestamp::new(1_000, 0) }
    }

    fn values(&self, pmid: PmId, profile: &Profile) -> Result<Vec<InstValue>, PmError> {
        match pmid {
            NDISKS => Ok(vec![InstValue { inst: PM_IN_NULL, value: Value::Insitu(self.disks.len() as i32) }]),
            READS => Ok(self
                .disks
                .iter()
                .filter(|(inst, ..)| profile.wanted(DISKS, *inst))
                .map(|&(inst, _, reads)| InstValue { inst, value: Value::Insitu(reads) })
                .collect()),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }
}

fn desc(pmid: PmId, indom: InDom, sem: Semantics) -> Desc {
    Desc { pmid, ty: MetricType::U32, indom, sem, units: Units::NONE }
}

impl MetricSource for Memory {
    fn desc(&self, pmid: PmId) -> PmResult<Desc> {
        match pmid {
            NDISKS => Ok(desc(pmid, InDom::NULL, Semantics::INSTANT)),
            READS => Ok(desc(pmid, DISKS, Semantics::COUNTER)),
            _ => Err(PmError::PM_ERR_PMID),
        }
    }

    fn instances(&self, indom: InDom, _: Timestamp) -> PmResult<Instances> {
        if indom != DISKS {
            return Err(PmError::PM_ERR_INDOM);
        }
        Ok(self.disks.iter().map(|&(inst, name, _)| (inst, name.as_bytes().to_vec())).unzip())
    }

    fn text(&self, pmid: PmId, level: TextLevel) -> PmResult<Vec<u8>> {
        let text = match (pmid, level) {
            (NDISKS, _) => "number of disks",
            (READS, TextLevel::OneLine) => "reads from each disk",
            (READS, TextLevel::Help) => "Read operations completed by each disk\nsince boot.",
            _ => return Err(PmError::PM_ERR_PMID),
        };
        Ok(text.as_bytes().to_vec())
    }

    fn fetch_into(
        &mut self,
        pmids: &[PmId],
        profile: &Profile,
        out: &mut FetchResult,
        _: &mut Timestamp,
    ) -> PmResult<()> {
        self.now.sec += 1;
        for disk in &mut self.disks {
            disk.2 += disk.0 + 1;
        }
        let sets = pmids.iter().map(|&pmid| ValueSet { pmid, values: self.values(pmid, profile) }).collect();
        *out = FetchResult { timestamp: self.now, sets };
        Ok(())
    }

    fn dup(&self) -> PmResult<Box<dyn MetricSource>> {
        Ok(Box::new(self.clone()))
    }

    fn host_name(&self, _: &Profile) -> PmResult<String> {
        Ok("memory".to_string())
    }
}

fn context() -> Context {
    let mut pmns = Pmns::new();
    pmns.add_names([("mem.ndisks", NDISKS), ("mem.disk.reads", READS)]);
    let mut ctx = Context::from_source(Box::new(Memory::new()), Some(pmns));
    let mut registry = Registry::new();
    registry.register("mem.disk.kb", "mem.disk.reads * 4").expect("registers");
    registry.register("mem.disk.avg", "mem.disk.reads / mem.ndisks").expect("registers");
    ctx.bind_derived(&registry);
    ctx
}

fn ints(set: &ValueSet) -> Vec<(i32, i32)> {
    let values = set.values.as_ref().expect("values");
    values
        .iter()
        .map(|v| match &v.value {
            Value::Insitu(i) => (v.inst, *i),
            Value::Block(_) => panic!("a 32-bit value in place"),
        })
        .collect()
}

#[test]
fn names_descriptors_instances_and_help_come_from_the_source() {
    let ctx = context();
    assert_eq!(ctx.host_name().as_deref(), Ok("memory"));
    let (ids, found) = ctx.lookup_names(&["mem.ndisks", "mem.disk.reads", "no.such"]).expect("names");
    assert_eq!((ids, found), (vec![NDISKS, READS, PmId::NULL], 2));
    assert_eq!(ctx.name_of(READS).as_deref(), Ok("mem.disk.reads"));
    let mut names = Vec::new();
    ctx.traverse_with("mem", |n| names.push(n.to_string())).expect("walk");
    assert_eq!(names, ["mem.ndisks", "mem.disk.reads", "mem.disk.kb", "mem.disk.avg"]);
    assert_eq!(ctx.lookup_desc(READS).map(|d| d.indom), Ok(DISKS));
    assert_eq!(ctx.lookup_desc(PmId::new(DOMAIN, 0, 9)), Err(PmError::PM_ERR_PMID));
    // the anonymous derived metrics every context has
    let flags = ctx.lookup_names(&["event.flags"]).expect("event.flags").0[0];
    assert_eq!(ctx.lookup_desc(flags).map(|d| d.ty), Ok(MetricType::U32));
    let (insts, inames) = ctx.get_indom(DISKS).expect("instances");
    assert_eq!(insts, [0, 1, 7]);
    assert_eq!(inames[2], b"nvme0n1");
    assert_eq!(ctx.lookup_indom(DISKS, b"sdb"), Ok(1));
    assert_eq!(ctx.lookup_indom(DISKS, b"sdc"), Err(PmError::PM_ERR_INST));
    assert_eq!(ctx.name_indom(DISKS, 7).as_deref(), Ok(&b"nvme0n1"[..]));
    assert_eq!(ctx.get_indom(InDom::NULL), Err(PmError::PM_ERR_INDOM));
    assert_eq!(ctx.lookup_text(READS, TextLevel::OneLine).as_deref(), Ok(&b"reads from each disk"[..]));
    assert_eq!(ctx.lookup_indom_text(DISKS, TextLevel::OneLine), Err(PmError::PM_ERR_TEXT));
    // what the source leaves to its defaults
    assert_eq!(ctx.get_item_labels(READS), Ok(Vec::new()));
    assert!(ctx.lookup_labels(READS).is_ok_and(|sets| sets.is_empty()));
    assert_eq!(ctx.store(&FetchResult::default()), Err(PmError::PM_ERR_TOOSMALL));
    let one = ValueSet { pmid: NDISKS, values: Ok(vec![InstValue { inst: PM_IN_NULL, value: Value::Insitu(1) }]) };
    let change = FetchResult { timestamp: Timestamp::default(), sets: vec![one] };
    assert_eq!(ctx.store(&change), Err(PmError::PM_ERR_NOTHOST));
    // services of archives alone
    assert!(ctx.archive_source().is_none());
    assert_eq!(ctx.get_indom_archive(DISKS), Err(PmError::PM_ERR_NOTARCHIVE));
}

#[test]
fn the_profile_and_derived_metrics_work_over_the_source() {
    let mut ctx = context();
    let names = ["mem.disk.reads", "mem.disk.kb", "mem.disk.avg", "mem.ndisks"];
    let (ids, _) = ctx.lookup_names(&names).expect("names");
    assert!(ids[1].is_derived() && ids[2].is_derived());
    assert_eq!(ctx.lookup_desc(ids[1]).map(|d| (d.indom, d.sem)), Ok((DISKS, Semantics::COUNTER)));
    let r = ctx.fetch(&ids).expect("fetch");
    assert_eq!(r.timestamp, Timestamp::new(1_001, 0));
    assert_eq!(ints(&r.sets[0]), [(0, 11), (1, 22), (7, 38)]);
    assert_eq!(ints(&r.sets[1]), [(0, 44), (1, 88), (7, 152)]);
    assert_eq!(ints(&r.sets[3]), [(PM_IN_NULL, 3)]);
    assert!(ctx.take_messages().is_empty());

    // the profile: sdb and nvme0n1 alone, for the source's metric and
    // the metrics derived from it
    ctx.del_profile(DISKS, &[]).expect("profile");
    ctx.add_profile(DISKS, &[1, 7]).expect("profile");
    let r = ctx.fetch(&ids).expect("fetch");
    assert_eq!(ints(&r.sets[0]), [(1, 24), (7, 46)]);
    assert_eq!(ints(&r.sets[1]), [(1, 96), (7, 184)]);
    assert_eq!(r.sets[2].values.as_ref().map(Vec::len), Ok(2));

    // a per-context derived metric, with a filter by instance name
    let pmid = ctx.add_derived("mem.nvme", "mem.disk.reads[nvme0n1] * 2").expect("added");
    assert_eq!(ctx.lookup_desc(pmid).map(|d| d.indom), Ok(DISKS));
    let r = ctx.fetch(&[pmid]).expect("fetch");
    assert_eq!(ints(&r.sets[0]), [(7, 108)]);

    // a copy of the context goes on from where this one is, profile and
    // derived metrics included
    let mut dup = ctx.dup().expect("dup");
    let (a, b) = (ctx.fetch(&ids).expect("fetch"), dup.fetch(&ids).expect("fetch"));
    assert_eq!(a, b);
}
