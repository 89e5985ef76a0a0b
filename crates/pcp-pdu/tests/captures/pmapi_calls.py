#!/usr/bin/python3
"""PMAPI calls the command-line tools do not make, against pmcd at
localhost ($PMCD_PORT), for crates/pcp-pdu's captures: children with and
without status, pmNameID/pmNameAll, instance lookups both ways, instance
domain help text, label sets at every level, a store pmcd refuses, and
requests for things that do not exist. Prints what libpcp returned so the
capture's README can be checked against it.

Test tooling for pcp-rs; run by record.sh with the system python3 (the
pcp module comes from the python3-pcp package)."""
import ctypes
from pcp import pmapi
import cpmapi as c_api


def attempt(what, f, *args):
    try:
        print(what, f(*args))
    except pmapi.pmErr as e:
        print(what, "error", e.args[0])


ctx = pmapi.pmContext(c_api.PM_CONTEXT_HOST, "localhost")
attempt("children", ctx.pmGetChildren, "sample.long")
attempt("children+status", ctx.pmGetChildrenStatus, "sample")
attempt("children of leaf", ctx.pmGetChildren, "sample.long.one")
pmids = ctx.pmLookupName(["sample.colour", "sample.long.one", "sample.event.records"])
attempt("names", ctx.pmNameID, pmids[0])
attempt("all names", ctx.pmNameAll, pmids[1])
descs = ctx.pmLookupDescs(pmids)
indom = descs[0].contents.indom
attempt("indom", ctx.pmGetInDom, descs[0])
attempt("inst of name", ctx.pmLookupInDom, descs[0], "green")
attempt("name of inst", ctx.pmNameInDom, descs[0], 2)
attempt("bad name", ctx.pmLookupInDom, descs[0], "purple")
attempt("indom one-line", ctx.pmLookupInDomText, descs[0], c_api.PM_TEXT_ONELINE)
attempt("indom help", ctx.pmLookupInDomText, descs[0], c_api.PM_TEXT_HELP)
attempt("context labels", ctx.pmGetContextLabels)
attempt("domain labels", ctx.pmGetDomainLabels, 29)
attempt("indom labels", ctx.pmGetInDomLabels, indom)
attempt("cluster labels", ctx.pmGetClusterLabels, pmids[0])
attempt("item labels", ctx.pmGetItemLabels, pmids[0])
attempt("instance labels", ctx.pmGetInstancesLabels, indom)
bogus = pmapi.pmContext.pmID_build(29, 4095, 1000)
attempt("bogus desc", ctx.pmLookupDesc, bogus)
attempt("bogus name", ctx.pmNameID, bogus)
attempt("bogus fetch", lambda: ctx.pmFetch((ctypes.c_uint * 1)(bogus)).contents.vset[0].contents.numval)
attempt("unknown names", ctx.pmLookupName, ["sample.long.one", "no.such.metric"])
res = ctx.pmFetch((ctypes.c_uint * 1)(pmids[1]))
attempt("store refused", ctx.pmStore, res)
