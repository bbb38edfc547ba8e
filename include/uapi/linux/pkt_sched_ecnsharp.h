/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note */
/*
 * The ecnsharp qdisc (ECN#: instantaneous and persistent sojourn-time ECN marking) as seen from
 * userspace: the attributes nested in TCA_OPTIONS and the layout of its xstats
 * (TCA_STATS_APP / TCA_XSTATS). For pyroute2, Go netlink clients and an iproute2 q_ecnsharp.c.
 *
 * The source of truth is kmod/src/uapi.rs; kmod/tests/uapi_header.rs checks this file against
 * it (every number, every constant, and every field offset, through the C compiler), so the two
 * cannot drift. Numbers are append-only. Netlink values are host byte order.
 *
 * Rates are bits per second (TCA_ECNSHARP_RATE, and rate_bps in the xstats), unlike tbf's,
 * htb's, cake's and fq's bytes per second: decided so, because the attribute is a new u64 that
 * says the unit tc's grammar speaks (rate 10gbit is 10000000000) and keeps rates that are not
 * whole bytes per second exact. tc's JSON shows rates in bytes per second, and so do
 * `tc -j` with q_ecnsharp.so and `ecnsharp-tc -j`: only this binary interface differs.
 */
#ifndef _UAPI_LINUX_PKT_SCHED_ECNSHARP_H
#define _UAPI_LINUX_PKT_SCHED_ECNSHARP_H

#include <linux/types.h>

/* Attributes of TCA_OPTIONS (sent with NLA_F_NESTED). Absent ones keep their value. */
enum {
	TCA_ECNSHARP_UNSPEC,
	TCA_ECNSHARP_PAD,		/* padding before a u64 (nla_put_u64_64bit) */
	TCA_ECNSHARP_LIMIT,		/* u32, packets (all bands) */
	TCA_ECNSHARP_LIMIT_BYTES,	/* u32, bytes, 0: no byte limit */
	TCA_ECNSHARP_BANDS,		/* u32, 1 to TC_ECNSHARP_MAX_BANDS */
	TCA_ECNSHARP_MODES,		/* u32, TC_ECNSHARP_MODE_* flags */
	TCA_ECNSHARP_INS_TARGET,	/* u32, ns */
	TCA_ECNSHARP_PST_TARGET,	/* u32, ns */
	TCA_ECNSHARP_PST_INTERVAL,	/* u32, ns, at least 1000 */
	TCA_ECNSHARP_CONTROL_LAW,	/* u32, TC_ECNSHARP_CONTROL_LAW_* */
	TCA_ECNSHARP_IDLE_RESET,	/* u32, 0 or 1 */
	TCA_ECNSHARP_K,			/* u32, in the unit of TCA_ECNSHARP_K_UNIT */
	TCA_ECNSHARP_K_UNIT,		/* u32, TC_ECNSHARP_K_UNIT_* */
	TCA_ECNSHARP_TMIN,		/* u32, ns */
	TCA_ECNSHARP_TMAX,		/* u32, ns */
	TCA_ECNSHARP_PMAX,		/* u32, parts per million */
	TCA_ECNSHARP_SEED,		/* u32, 0: random */
	TCA_ECNSHARP_SCHED,		/* u32, TC_ECNSHARP_SCHED_* */
	TCA_ECNSHARP_STRICT_BANDS,	/* u32 */
	TCA_ECNSHARP_QUANTA,		/* u32[1..16], bytes per band */
	TCA_ECNSHARP_WEIGHTS,		/* u32[1..16] */
	TCA_ECNSHARP_CLASSIFY,		/* u32, TC_ECNSHARP_CLASSIFY_* */
	TCA_ECNSHARP_PRIOMAP,		/* u8[16], band of each skb->priority & 15 */
	TCA_ECNSHARP_DSCPMAP,		/* u8[64], band of each DSCP */
	TCA_ECNSHARP_RATE,		/* u64, bits per second, 0: no shaper */
	TCA_ECNSHARP_BURST,		/* u32, bytes, 0: from the rate */
	TCA_ECNSHARP_NON_ECT,		/* u32, TC_ECNSHARP_NON_ECT_* */
	TCA_ECNSHARP_SPLIT_GSO,		/* u32, 0 or 1 */
	__TCA_ECNSHARP_MAX
};

#define TCA_ECNSHARP_MAX (__TCA_ECNSHARP_MAX - 1)

#define TC_ECNSHARP_MAX_BANDS 16

/* TCA_ECNSHARP_MODES: a packet is marked when any enabled scheme asks. */
#define TC_ECNSHARP_MODE_INS		(1U << 0)	/* sojourn > ins_target (TCN) */
#define TC_ECNSHARP_MODE_PST		(1U << 1)	/* ECN#'s Algorithm 1 */
#define TC_ECNSHARP_MODE_RED		(1U << 2)	/* queue > K at enqueue (DCTCP) */
#define TC_ECNSHARP_MODE_DEQUEUE	(1U << 3)	/* queue >= K at dequeue */
#define TC_ECNSHARP_MODE_PROB		(1U << 4)	/* probabilistic, tmin..tmax */
#define TC_ECNSHARP_MODE_ECNSHARP	(TC_ECNSHARP_MODE_INS | TC_ECNSHARP_MODE_PST)

enum {
	TC_ECNSHARP_CONTROL_LAW_INV_SQRT,	/* CoNEXT'19: pst_interval / sqrt(count) */
	TC_ECNSHARP_CONTROL_LAW_LINEAR,		/* journal: pst_interval / count */
	TC_ECNSHARP_CONTROL_LAW_NS3,		/* the authors' ns-3 code */
};

enum {
	TC_ECNSHARP_K_UNIT_PACKETS,
	TC_ECNSHARP_K_UNIT_BYTES,
};

enum {
	TC_ECNSHARP_SCHED_SP,
	TC_ECNSHARP_SCHED_DWRR,
	TC_ECNSHARP_SCHED_WFQ,
};

enum {
	TC_ECNSHARP_CLASSIFY_PRIORITY,
	TC_ECNSHARP_CLASSIFY_DSCP,
};

enum {
	TC_ECNSHARP_NON_ECT_PASS,
	TC_ECNSHARP_NON_ECT_DROP,
};

/*
 * xstats: a struct tc_ecnsharp_xstats, then `bands` records of struct tc_ecnsharp_xstats_band
 * starting at offset `header_size`, each `band_size` bytes. Versioned and append-only: read the
 * sizes as written, copy what you know into zeroed structs (older records read as zeros past
 * their end, newer ones are cut). No implicit padding.
 */
#define TC_ECNSHARP_XSTATS_TAG		0x45434e23	/* "ECN#" */
#define TC_ECNSHARP_XSTATS_VERSION	1

enum {
	TC_ECNSHARP_XSTATS_KIND_QDISC,	/* the qdisc's: one record per band */
	TC_ECNSHARP_XSTATS_KIND_CLASS,	/* one class's: the record of band first_band */
};

/* Index of tc_ecnsharp_xstats_band.marks_by_cause. */
enum {
	TC_ECNSHARP_CAUSE_INS,
	TC_ECNSHARP_CAUSE_PST,
	TC_ECNSHARP_CAUSE_RED,
	TC_ECNSHARP_CAUSE_DEQUEUE,
	TC_ECNSHARP_CAUSE_PROB,
	TC_ECNSHARP_CAUSES
};

struct tc_ecnsharp_xstats {
	__u32	tag;			/* TC_ECNSHARP_XSTATS_TAG */
	__u32	version;		/* TC_ECNSHARP_XSTATS_VERSION of the writer */
	__u32	header_size;		/* bytes of this header as written */
	__u32	band_size;		/* bytes of one band record as written */
	__u32	bands;			/* band records that follow */
	__u32	burst_bytes;		/* bucket size the shaper uses */
	__u64	now_ns;			/* time of the dump (clock of the _ns times below) */
	__u64	rate_bps;		/* shaper rate, bits per second, 0: none */
	__u64	throttled;		/* waits of the shaper for tokens */
	__u64	drops;			/* packets dropped, all bands and causes */
	__u64	marks;			/* packets marked CE, all bands */
	__u64	late_wakeups;		/* shaper wake-ups later than asked */
	__u64	late_max_ns;		/* the latest one, ns after the time asked */
	__u32	kind;			/* TC_ECNSHARP_XSTATS_KIND_* */
	__u32	first_band;		/* band of the first record */
};

struct tc_ecnsharp_xstats_band {
	__u64	packets;		/* packets sent */
	__u64	bytes;			/* bytes sent (qdisc_pkt_len) */
	__u32	qlen;			/* packets queued now */
	__u32	backlog;		/* bytes queued now */
	__u64	drops_limit;		/* dropped: the qdisc was full */
	__u64	drops_nonect;		/* non-ECT dropped instead of marked */
	__u64	marks;			/* packets marked CE (once each) */
	__u64	marks_by_cause[TC_ECNSHARP_CAUSES];	/* marks each rule asked for */
	__u64	ce_already;		/* packets that arrived CE */
	__u64	nonect_passed;		/* non-ECT a rule wanted marked, let through */
	__u64	sojourn_max_ns;		/* longest sojourn */
	__u64	sojourn_sum_ns;		/* sum of sojourns (mean: / packets) */
	__u32	marking_state;		/* Algorithm 1: 1 while marking */
	__u32	marking_count;		/* Algorithm 1: marks in this episode */
	__u64	first_above_time_ns;	/* Algorithm 1, 0: sojourn below pst_target */
	__u64	marking_next_ns;	/* Algorithm 1: time of the next mark */
	__u64	enqueued;		/* offered: packets + drops + qlen */
	__u64	drops_config;		/* removed by a configuration change */
};

/*
 * A class's xstats (kind TC_ECNSHARP_XSTATS_KIND_CLASS) end with the sojourn histogram of its
 * band: a struct tc_ecnsharp_xstats_hist right after the one band record (at header_size +
 * band_size; absent from writers older than it). Bucket 0 counts the sent packets whose sojourn
 * was below first_edge_ns; then every octave [first_edge_ns << k, first_edge_ns << (k + 1)) is
 * split into steps_per_octave equal buckets; the last bucket has no upper edge. With 1024 ns,
 * 2 steps and 50 buckets the edges are 1024, 1536, 2048, 3072, ... 2^34 ns. When a count would
 * wrap, every count of the band is halved (the percentiles stay).
 */
#define TC_ECNSHARP_HIST_BUCKETS	50

struct tc_ecnsharp_xstats_hist {
	__u32	buckets;		/* TC_ECNSHARP_HIST_BUCKETS */
	__u32	first_edge_ns;		/* upper edge of bucket 0 */
	__u32	steps_per_octave;	/* buckets per octave after bucket 0 */
	__u32	reserved;		/* zero */
	__u32	counts[TC_ECNSHARP_HIST_BUCKETS];	/* packets per bucket */
};

#endif /* _UAPI_LINUX_PKT_SCHED_ECNSHARP_H */
