//! Label lookups on archive contexts, against archives made by pmlogger
//! (crates/pcp-tools/tests/golden/pminfo/arch; see the README there).

use pcp::labels::{merge_label_sets, LabelSet, PM_MAXLABELJSONLEN};
use pcp::{Context, InDom, PmError, PmId, Timestamp};

fn open(name: &str) -> Context {
    let path = format!("{}/../pcp-tools/tests/golden/pminfo/arch/{name}", env!("CARGO_MANIFEST_DIR"));
    Context::open_archive(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The labels pmlogger logged come 23 ms after the archive's start.
fn after_labels(ctx: &mut Context) {
    let start = ctx.origin();
    ctx.set_origin(Timestamp::new(start.sec + 1, start.nsec));
}

fn text(sets: &[LabelSet]) -> String {
    let refs: Vec<_> = sets.iter().map(Some).collect();
    String::from_utf8(merge_label_sets(&refs, PM_MAXLABELJSONLEN, None).unwrap()).unwrap()
}

#[test]
fn labels_are_those_logged_at_or_before_the_current_time() {
    let mut ctx = open("labels-v3");
    assert_eq!(ctx.get_context_labels().unwrap(), []);
    assert_eq!(ctx.get_domain_labels(29).unwrap(), []);
    after_labels(&mut ctx);
    let context = ctx.get_context_labels().unwrap();
    assert_eq!(context.len(), 1);
    assert!(text(&context).contains(r#""hostname":"vm""#));
    assert_eq!(text(&ctx.get_domain_labels(29).unwrap()), r#"{"agent":"sample","role":"testing"}"#);
    assert_eq!(text(&ctx.get_indom_labels(InDom::new(29, 1)).unwrap()), r#"{"model":"RGB"}"#);
    assert_eq!(
        text(&ctx.get_item_labels(PmId::new(29, 0, 64)).unwrap()),
        r#"{"measure":"speed","units":"metres per second","unitsystem":"SI"}"#
    );
}

#[test]
fn cluster_labels_are_filed_under_item_zero() {
    let mut ctx = open("labels-v3");
    after_labels(&mut ctx);
    assert_eq!(ctx.get_cluster_labels(PmId::new(29, 0, 5)).unwrap(), []);
    assert_eq!(text(&ctx.get_cluster_labels(PmId::new(29, 0, 0)).unwrap()), r#"{"cluster":"zero"}"#);
    // pmLookupLabels asks with item 0: context, domain, indom, cluster
    let sets = ctx.lookup_labels(PmId::new(29, 0, 5)).unwrap();
    assert_eq!(sets.len(), 4);
    let merged = text(&sets);
    assert!(merged.starts_with(r#"{"agent":"sample","cluster":"zero","domainname":"localdomain""#), "{merged}");
    assert!(merged.contains(r#""model":"RGB","role":"testing""#), "{merged}");
    assert_eq!(ctx.lookup_labels(PmId::new(29, 0, 999)), Err(PmError::PM_ERR_PMID_LOG));
}

#[test]
fn instance_labels_come_one_set_an_instance() {
    let mut ctx = open("labels-v2");
    after_labels(&mut ctx);
    let sets = ctx.get_instances_labels(InDom::new(29, 2)).unwrap();
    let insts: Vec<i32> = sets.iter().map(|s| s.inst).collect();
    assert_eq!(insts, (1..=9).map(|i| i * 100).collect::<Vec<_>>());
    assert_eq!(text(&sets[3..4]), r#"{"bin":400}"#);
    // sample.colour's instances have empty sets
    let empty = ctx.get_instances_labels(InDom::new(29, 1)).unwrap();
    assert_eq!(empty.len(), 3);
    assert!(empty.iter().all(|s| s.nlabels == 0 && s.json.is_empty()));
    assert_eq!(text(&empty), "{}");
}

#[test]
fn archives_without_labels_answer_with_their_host() {
    let ctx = open("nolabels-v2");
    assert_eq!(text(&ctx.get_context_labels().unwrap()), r#"{"hostname":"vm"}"#);
    assert_eq!(ctx.get_domain_labels(29).unwrap(), []);
    assert_eq!(ctx.get_instances_labels(InDom::new(29, 2)).unwrap(), []);
    // a host name that is no JSON string is an error
    let bad = open("badhost-v2");
    assert_eq!(bad.get_context_labels(), Err(PmError::from_errno(22)));
    assert_eq!(bad.lookup_labels(PmId::new(29, 0, 6)), Err(PmError::from_errno(22)));
}

#[test]
fn name_space_contexts_have_no_labels() {
    // a name space alone is no metrics source: libpcp, with no context to
    // ask, says PM_ERR_NOCONTEXT
    let ctx = Context::with_namespace(pcp_pmns::Pmns::new());
    assert_eq!(ctx.get_context_labels(), Err(PmError::PM_ERR_NOCONTEXT));
}
