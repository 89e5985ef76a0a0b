#!/usr/bin/env bash
# Issue 43's proc goal: one `pminfo -f proc` (every proc.* metric of every
# process of this machine) in a local context, ours against PCP 6.0.3's
# through pmcd and PCP's `-L` with the proc PMDA's DSO in the tool:
# scripts/bench-local.sh's `proc` workload (see there).
#
#   bash scripts/bench-proc.sh [ROUNDS [BATCH]]   (defaults 7 and 10)
exec bash "$(dirname "$0")/bench-local.sh" proc "$@"
