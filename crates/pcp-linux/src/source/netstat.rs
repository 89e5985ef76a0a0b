//! /proc/net/netstat (`network.ip.*`, `network.tcp.*` and `network.mptcp.*`
//! counters of its `IpExt`, `TcpExt` and `MPTcpExt` rows) and
//! /proc/net/snmp6 (`network.ip6.*`, `network.icmp6.*`, `network.udp6.*`,
//! `network.udplite6.*`).

use super::area::{Area, Reader};
use crate::scan::{lines, Scan};
use crate::MetricDef;
use pcp_core::{AtomValue, PmError};

/// /proc/net/netstat (`CLUSTER_NET_NETSTAT`).
const NETSTAT: u32 = 53;
/// /proc/net/snmp6 (`CLUSTER_NET_SNMP6`).
const SNMP6: u32 = 58;
/// The clusters served here.
pub(super) const CLUSTERS: [u32; 2] = [NETSTAT, SNMP6];
/// No instance domains.
pub(super) const INDOMS: [u32; 0] = [];

/// The netstat rows the PMDA reads, by their prefix.
const GROUPS: [&[u8]; 3] = [b"IpExt:", b"TcpExt:", b"MPTcpExt:"];

/// The netstat columns the PMDA exports: row (an index of [`GROUPS`]),
/// column name, item; sorted by row and name. (A column may feed two
/// items: the PMDA serves `TCPFastOpenActiveFail` under two names.)
#[rustfmt::skip]
pub(super) static NETSTAT_FIELDS: &[(u8, &str, u32)] = &[
    (0, "InBcastOctets", 10), (0, "InBcastPkts", 4), (0, "InCEPkts", 16), (0, "InCsumErrors", 12),
    (0, "InECT0Pkts", 15), (0, "InECT1Pkts", 14), (0, "InMcastOctets", 8), (0, "InMcastPkts", 2),
    (0, "InNoECTPkts", 13), (0, "InNoRoutes", 0), (0, "InOctets", 6), (0, "InTruncatedPkts", 1),
    (0, "OutBcastOctets", 11), (0, "OutBcastPkts", 5), (0, "OutMcastOctets", 9), (0, "OutMcastPkts", 3),
    (0, "OutOctets", 7), (0, "ReasmOverlaps", 168), (1, "ArpFilter", 26), (1, "BusyPollRxPackets", 112),
    (1, "DelayedACKLocked", 34), (1, "DelayedACKLost", 35), (1, "DelayedACKs", 33), (1, "EmbryonicRsts", 20),
    (1, "IPReversePathFilter", 94), (1, "ListenDrops", 37), (1, "ListenOverflows", 36), (1, "LockDroppedIcmps", 25),
    (1, "OfoPruned", 23), (1, "OutOfWindowIcmps", 24), (1, "PAWSActive", 31), (1, "PAWSEstab", 32),
    (1, "PAWSPassive", 30), (1, "PFMemallocDrop", 135), (1, "PruneCalled", 21), (1, "RcvPruned", 22),
    (1, "SyncookiesFailed", 19), (1, "SyncookiesRecv", 18), (1, "SyncookiesSent", 17),
    (1, "TCPACKSkippedChallenge", 150), (1, "TCPACKSkippedFinWait2", 148), (1, "TCPACKSkippedPAWS", 146),
    (1, "TCPACKSkippedSeq", 147), (1, "TCPACKSkippedSynRecv", 145), (1, "TCPACKSkippedTimeWait", 149),
    (1, "TCPAbortFailed", 80), (1, "TCPAbortOnClose", 76), (1, "TCPAbortOnData", 75), (1, "TCPAbortOnLinger", 79),
    (1, "TCPAbortOnMemory", 77), (1, "TCPAbortOnTimeout", 78), (1, "TCPAckCompressed", 157),
    (1, "TCPAutoCorking", 113), (1, "TCPBacklogCoalesce", 132), (1, "TCPBacklogDrop", 91),
    (1, "TCPChallengeACK", 103), (1, "TCPDSACKIgnoredDubious", 165), (1, "TCPDSACKIgnoredNoUndo", 84),
    (1, "TCPDSACKIgnoredOld", 83), (1, "TCPDSACKOfoRecv", 74), (1, "TCPDSACKOfoSent", 72), (1, "TCPDSACKOldSent", 71),
    (1, "TCPDSACKRecv", 73), (1, "TCPDSACKRecvSegs", 164), (1, "TCPDSACKUndo", 55), (1, "TCPDeferAcceptDrop", 93),
    (1, "TCPDelivered", 155), (1, "TCPDeliveredCE", 156), (1, "TCPDirectCopyFromBacklog", 39),
    (1, "TCPDirectCopyFromPrequeue", 40), (1, "TCPFACKReorder", 49), (1, "TCPFastOpenActive", 105),
    (1, "TCPFastOpenActiveFail", 106), (1, "TCPFastOpenActiveFail", 136), (1, "TCPFastOpenBlackhole", 137),
    (1, "TCPFastOpenCookieReqd", 110), (1, "TCPFastOpenListenOverflow", 109), (1, "TCPFastOpenPassive", 107),
    (1, "TCPFastOpenPassiveAltKey", 161), (1, "TCPFastOpenPassiveFail", 108), (1, "TCPFastRetrans", 61),
    (1, "TCPForwardRetrans", 62), (1, "TCPFromZeroWindowAdv", 114), (1, "TCPFullUndo", 53), (1, "TCPHPAcks", 45),
    (1, "TCPHPHits", 42), (1, "TCPHPHitsToUser", 43), (1, "TCPHystartDelayCwnd", 144),
    (1, "TCPHystartDelayDetect", 143), (1, "TCPHystartTrainCwnd", 142), (1, "TCPHystartTrainDetect", 141),
    (1, "TCPKeepAlive", 152), (1, "TCPLoss", 189), (1, "TCPLossFailures", 60), (1, "TCPLossProbeRecovery", 66),
    (1, "TCPLossProbes", 65), (1, "TCPLossUndo", 56), (1, "TCPLostRetransmit", 57), (1, "TCPMD5Failure", 134),
    (1, "TCPMD5NotFound", 86), (1, "TCPMD5Unexpected", 87), (1, "TCPMTUPFail", 153), (1, "TCPMTUPSuccess", 154),
    (1, "TCPMemoryPressures", 81), (1, "TCPMemoryPressuresChrono", 133), (1, "TCPMigrateReqFailure", 167),
    (1, "TCPMigrateReqSuccess", 166), (1, "TCPMinTTLDrop", 92), (1, "TCPOFODrop", 101), (1, "TCPOFOMerge", 102),
    (1, "TCPOFOQueue", 100), (1, "TCPOrigDataSent", 118), (1, "TCPPartialUndo", 54), (1, "TCPPrequeueDropped", 41),
    (1, "TCPPrequeued", 38), (1, "TCPPureAcks", 44), (1, "TCPRcvCoalesce", 99), (1, "TCPRcvCollapsed", 70),
    (1, "TCPRcvQDrop", 159), (1, "TCPRenoFailures", 58), (1, "TCPRenoRecovery", 46), (1, "TCPRenoRecoveryFail", 67),
    (1, "TCPRenoReorder", 51), (1, "TCPReqQFullDoCookies", 96), (1, "TCPReqQFullDrop", 97), (1, "TCPRetransFail", 98),
    (1, "TCPSACKDiscard", 82), (1, "TCPSACKReneging", 48), (1, "TCPSACKReorder", 50), (1, "TCPSYNChallenge", 104),
    (1, "TCPSackFailures", 59), (1, "TCPSackMerged", 89), (1, "TCPSackRecovery", 47), (1, "TCPSackRecoveryFail", 68),
    (1, "TCPSackShiftFallback", 90), (1, "TCPSackShifted", 88), (1, "TCPSchedulerFailed", 69),
    (1, "TCPSlowStartRetrans", 63), (1, "TCPSpuriousRTOs", 85), (1, "TCPSpuriousRtxHostQueues", 111),
    (1, "TCPSynRetrans", 117), (1, "TCPTSReorder", 52), (1, "TCPTimeWaitOverflow", 95), (1, "TCPTimeouts", 64),
    (1, "TCPToZeroWindowAdv", 115), (1, "TCPWantZeroWindowAdv", 116), (1, "TCPWinProbe", 151),
    (1, "TCPWqueueTooBig", 160), (1, "TCPZeroWindowDrop", 158), (1, "TW", 27), (1, "TWKilled", 29),
    (1, "TWRecycled", 28), (1, "TcpDuplicateDataRehash", 163), (1, "TcpTimeoutRehash", 162), (2, "AddAddr", 176),
    (2, "AddAddrDrop", 194), (2, "DSSNoMatchTCP", 169), (2, "DSSNotMatching", 130), (2, "DataCsumErr", 170),
    (2, "DuplicateData", 175), (2, "EchoAdd", 177), (2, "InfiniteMapRx", 131), (2, "InfiniteMapTx", 200),
    (2, "MPCapableACKRX", 120), (2, "MPCapableFallbackACK", 121), (2, "MPCapableFallbackSYNACK", 122),
    (2, "MPCapableSYNACKRX", 139), (2, "MPCapableSYNRX", 119), (2, "MPCapableSYNTX", 138), (2, "MPFailRx", 191),
    (2, "MPFailTx", 190), (2, "MPFallbackTokenInit", 140), (2, "MPFastcloseRx", 197), (2, "MPFastcloseTx", 196),
    (2, "MPJoinAckHMacFailure", 129), (2, "MPJoinAckRx", 128), (2, "MPJoinNoTokenFound", 124),
    (2, "MPJoinPortAckRx", 181), (2, "MPJoinPortSynAckRx", 180), (2, "MPJoinPortSynRx", 179),
    (2, "MPJoinSynAckHMacFailure", 127), (2, "MPJoinSynAckRx", 126), (2, "MPJoinSynRx", 125), (2, "MPPrioRx", 187),
    (2, "MPPrioTx", 186), (2, "MPRstRx", 199), (2, "MPRstTx", 198), (2, "MPTCPRetrans", 123),
    (2, "MismatchPortAckRx", 183), (2, "MismatchPortSynRx", 182), (2, "NoDSSInWindow", 174), (2, "OFOMerge", 173),
    (2, "OFOQueue", 172), (2, "OFOQueueTail", 171), (2, "PortAdd", 178), (2, "RcvPruned", 188),
    (2, "RcvWndConflict", 204), (2, "RcvWndConflictUpdate", 203), (2, "RcvWndShared", 202), (2, "RmAddr", 184),
    (2, "RmAddrDrop", 195), (2, "RmSubflow", 185), (2, "SndWndShared", 201), (2, "SubflowRecover", 193),
    (2, "SubflowStale", 192),
];

/// The /proc/net/snmp6 fields, by item, in the order the PMDA looks for
/// them in each line.
#[rustfmt::skip]
pub(super) static SNMP6_FIELDS: [&str; 82] = [
    "Ip6InReceives", "Ip6InHdrErrors", "Ip6InTooBigErrors", "Ip6InNoRoutes", "Ip6InAddrErrors", "Ip6InUnknownProtos",
    "Ip6InTruncatedPkts", "Ip6InDiscards", "Ip6InDelivers", "Ip6OutForwDatagrams", "Ip6OutRequests", "Ip6OutDiscards",
    "Ip6OutNoRoutes", "Ip6ReasmTimeout", "Ip6ReasmReqds", "Ip6ReasmOKs", "Ip6ReasmFails", "Ip6FragOKs",
    "Ip6FragFails", "Ip6FragCreates", "Ip6InMcastPkts", "Ip6OutMcastPkts", "Ip6InOctets", "Ip6OutOctets",
    "Ip6InMcastOctets", "Ip6OutMcastOctets", "Ip6InBcastOctets", "Ip6OutBcastOctets", "Ip6InNoECTPkts",
    "Ip6InECT1Pkts", "Ip6InECT0Pkts", "Ip6InCEPkts", "Icmp6InMsgs", "Icmp6InErrors", "Icmp6OutMsgs", "Icmp6OutErrors",
    "Icmp6InCsumErrors", "Icmp6InDestUnreachs", "Icmp6InPktTooBigs", "Icmp6InTimeExcds", "Icmp6InParmProblems",
    "Icmp6InEchos", "Icmp6InEchoReplies", "Icmp6InGroupMembQueries", "Icmp6InGroupMembResponses",
    "Icmp6InGroupMembReductions", "Icmp6InRouterSolicits", "Icmp6InRouterAdvertisements", "Icmp6InNeighborSolicits",
    "Icmp6InNeighborAdvertisements", "Icmp6InRedirects", "Icmp6InMLDv2Reports", "Icmp6OutDestUnreachs",
    "Icmp6OutPktTooBigs", "Icmp6OutTimeExcds", "Icmp6OutParmProblems", "Icmp6OutEchos", "Icmp6OutEchoReplies",
    "Icmp6OutGroupMembQueries", "Icmp6OutGroupMembResponses", "Icmp6OutGroupMembReductions", "Icmp6OutRouterSolicits",
    "Icmp6OutRouterAdvertisements", "Icmp6OutNeighborSolicits", "Icmp6OutNeighborAdvertisements", "Icmp6OutRedirects",
    "Icmp6OutMLDv2Reports", "Udp6InDatagrams", "Udp6NoPorts", "Udp6InErrors", "Udp6OutDatagrams", "Udp6RcvbufErrors",
    "Udp6SndbufErrors", "Udp6InCsumErrors", "Udp6IgnoredMulti", "UdpLite6InDatagrams", "UdpLite6NoPorts",
    "UdpLite6InErrors", "UdpLite6OutDatagrams", "UdpLite6RcvbufErrors", "UdpLite6SndbufErrors",
    "UdpLite6InCsumErrors",
];

/// The netstat counters of `text` by item (`u64::MAX`: none, the PMDA's
/// -1): lines in pairs, a row of column names and a row of numbers, told
/// apart by the second's prefix; each number as `strtoull` reads it.
pub(super) fn netstat(text: &[u8], out: &mut Vec<u64>) {
    let items = NETSTAT_FIELDS.iter().map(|f| f.2 as usize + 1).max().unwrap_or(0);
    out.clear();
    out.resize(items, u64::MAX);
    let mut rows = lines(text);
    while let (Some(header), Some(values)) = (rows.next(), rows.next()) {
        let Some(g) = GROUPS.iter().position(|p| values.starts_with(p)) else { continue };
        let names = header.split(|b| *b == b' ').filter(|w| !w.is_empty()).skip(1);
        let numbers = values.split(|b| *b == b' ').filter(|w| !w.is_empty()).skip(1);
        for (name, value) in names.zip(numbers) {
            let key = (g as u8, name);
            let at = NETSTAT_FIELDS.partition_point(|f| (f.0, f.1.as_bytes()) < key);
            let v = Scan::new(value).u64().unwrap_or(0);
            for f in NETSTAT_FIELDS[at..].iter().take_while(|f| (f.0, f.1.as_bytes()) == key) {
                out[f.2 as usize] = v;
            }
        }
    }
}

/// The /proc/net/snmp6 reader: each line's value goes to the first field
/// (in [`SNMP6_FIELDS`]' order) the line contains, as the first number
/// after it; a field no line has keeps its last value.
#[derive(Clone, Debug)]
pub(super) struct Snmp6 {
    /// For each field, the first field contained in its name (itself or
    /// one before it), for lines that are a field's name and a number.
    first_in: Vec<usize>,
    /// The fields sorted, with their items.
    sorted: Vec<(&'static str, usize)>,
    pub(super) values: [u64; SNMP6_FIELDS.len()],
}

impl Snmp6 {
    pub(super) fn new() -> Snmp6 {
        let first_in = SNMP6_FIELDS
            .iter()
            .enumerate()
            .map(|(k, f)| SNMP6_FIELDS.iter().position(|g| f.contains(g)).unwrap_or(k))
            .collect();
        let mut sorted: Vec<_> = SNMP6_FIELDS.iter().copied().zip(0..).collect();
        sorted.sort_unstable();
        Snmp6 { first_in, sorted, values: [0; SNMP6_FIELDS.len()] }
    }

    pub(super) fn read(&mut self, text: &[u8]) {
        for line in lines(text) {
            let word = line.split(|b| b.is_ascii_whitespace()).find(|w| !w.is_empty()).unwrap_or_default();
            let field = match self.sorted.binary_search_by(|(f, _)| f.as_bytes().cmp(word)) {
                Ok(k) => Some(self.first_in[self.sorted[k].1]),
                Err(_) => SNMP6_FIELDS.iter().position(|f| memchr::memmem::find(line, f.as_bytes()).is_some()),
            };
            let Some(k) = field else { continue };
            let Some(at) = memchr::memmem::find(line, SNMP6_FIELDS[k].as_bytes()) else { continue };
            let after = &line[at + SNMP6_FIELDS[k].len()..];
            let Some(d) = after.iter().position(u8::is_ascii_digit) else { continue };
            if let Some(v) = Scan::new(&after[d..]).u64() {
                self.values[k] = v;
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Net {
    netstat: Vec<u64>,
    snmp6: Snmp6,
}

/// The area, new.
pub(super) fn new(_: &super::Options) -> Box<dyn Area> {
    Box::new(Net { netstat: Vec::new(), snmp6: Snmp6::new() })
}

impl Area for Net {
    fn refresh(&mut self, rd: &mut Reader, clusters: &[u32]) {
        if clusters.contains(&NETSTAT) {
            let mut v = std::mem::take(&mut self.netstat);
            if rd.with("/proc/net/netstat", |t| netstat(t, &mut v)).is_none() {
                v.clear();
            }
            self.netstat = v;
        }
        if clusters.contains(&SNMP6) {
            rd.with("/proc/net/snmp6", |t| self.snmp6.read(t));
        }
    }

    fn value(&self, def: &MetricDef, _inst: i32) -> Result<Option<AtomValue>, PmError> {
        let item = def.pmid.item() as usize;
        match def.pmid.cluster() {
            NETSTAT => Ok(self.netstat.get(item).filter(|v| **v != u64::MAX).map(|v| AtomValue::U64(*v))),
            _ => Ok(Some(AtomValue::U64(*self.snmp6.values.get(item).ok_or(PmError::PM_ERR_PMID)?))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netstat_rows_are_read_by_column_name() {
        let mut v = Vec::new();
        netstat(b"TcpExt: TW SyncookiesSent Bogus\nTcpExt: 5 -1 9\nIpExt: InOctets\nIpExt: 77\n", &mut v);
        let item = |g: u8, n: &str| NETSTAT_FIELDS.iter().find(|f| f.0 == g && f.1 == n).unwrap().2 as usize;
        assert_eq!(v[item(1, "TW")], 5);
        assert_eq!(v[item(1, "SyncookiesSent")], u64::MAX);
        assert_eq!(v[item(0, "InOctets")], 77);
        assert_eq!(v[item(0, "InNoRoutes")], u64::MAX);
        // the column feeding two items feeds both
        netstat(b"TcpExt: TCPFastOpenActiveFail\nTcpExt: 3\n", &mut v);
        assert_eq!(v.iter().filter(|x| **x == 3).count(), 2);
        // damaged: a header alone, garbage
        netstat(b"TcpExt: TW\n", &mut v);
        assert!(v.iter().all(|x| *x == u64::MAX));
        netstat(b"\xff\xfe\n\n", &mut v);
    }

    #[test]
    fn snmp6_lines_go_to_the_first_field_they_contain() {
        let mut s = Snmp6::new();
        s.read(b"Ip6InReceives                   \t 42\nUdpLite6InErrors 7\nIcmp6InMsgs x9\nbogus 1\n");
        assert_eq!(s.values[0], 42);
        let k = SNMP6_FIELDS.iter().position(|f| *f == "UdpLite6InErrors").unwrap();
        assert_eq!(s.values[k], 7);
        let k = SNMP6_FIELDS.iter().position(|f| *f == "Icmp6InMsgs").unwrap();
        assert_eq!(s.values[k], 9);
        // a line without a number leaves the last value
        s.read(b"Ip6InReceives\n");
        assert_eq!(s.values[0], 42);
    }
}
