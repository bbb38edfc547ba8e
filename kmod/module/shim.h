/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C side of sch_ecnsharp, as Rust sees it: bindgen reads this header alone (see Kbuild).
 *
 * Kernel structs appear only as incomplete types behind pointers and every other type is a plain
 * C integer, so the generated bindings need no kernel headers, do not depend on .config, and
 * cannot drift from shim.c, which includes this header and the kernel's and is checked by the C
 * compiler against both. Everything here is a thin wrapper over a static inline or macro of
 * include/net/sch_generic.h, pkt_sched.h, inet_ecn.h or netlink.h that Rust cannot call directly.
 */
#ifndef ECNSHARP_SHIM_H
#define ECNSHARP_SHIM_H

/* Bumped when a prototype below changes meaning. */
#define ECNSHARP_SHIM_ABI 7

/* Enqueue return values (NET_XMIT_*); shim.c checks them against the kernel's. */
#define ECNSHARP_SHIM_NET_XMIT_SUCCESS 0
#define ECNSHARP_SHIM_NET_XMIT_DROP 1
/* Errno values the kernel crate of 6.12 has no constant for. */
#define ECNSHARP_SHIM_EMSGSIZE 90
#define ECNSHARP_SHIM_EINVAL 22

struct sk_buff;
struct Qdisc;
struct nlattr;
struct netlink_ext_ack;
struct gnet_dump;

/* What the filters said of a packet (ecnsharp_shim_classify). */
#define ECNSHARP_SHIM_CLASSIFY_NONE 0	/* no filter matched: the qdisc's own classifier */
#define ECNSHARP_SHIM_CLASSIFY_DROP (-1)	/* a filter's action dropped it (counted) */
#define ECNSHARP_SHIM_CLASSIFY_STOLEN (-2)	/* an action took it (not a drop) */

/* Per-class counters for tc class show (a band's). */
struct ecnsharp_shim_class_stats {
	unsigned long long bytes;
	unsigned long long packets;
	unsigned int qlen;
	unsigned int backlog;
	unsigned int drops;
};

/* The Rust callbacks that become struct Qdisc_ops. */
struct ecnsharp_shim_ops {
	int (*enqueue)(struct sk_buff *skb, struct Qdisc *sch, struct sk_buff **to_free);
	struct sk_buff *(*dequeue)(struct Qdisc *sch);
	struct sk_buff *(*peek)(struct Qdisc *sch);
	int (*init)(struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack);
	void (*reset)(struct Qdisc *sch);
	void (*destroy)(struct Qdisc *sch);
	int (*change)(struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack);
	int (*dump)(struct Qdisc *sch, struct sk_buff *skb);
	int (*dump_stats)(struct Qdisc *sch, struct gnet_dump *d);
	/* Classes: class cl (1..classes) is band cl - 1. NULL for a classless qdisc. */
	int (*dump_class_stats)(struct Qdisc *sch, unsigned long cl, struct gnet_dump *d);
};

/*
 * Where the fields the data path reads and writes on every packet lie, in bytes from the start
 * of their struct, so that Rust reaches them with a load or a store instead of an out-of-line
 * call each (docs/results/bench.md measures what the calls cost). shim.c fills it with
 * offsetof() at registration, checking each field's size.
 */
struct ecnsharp_shim_layout {
	/* From a struct Qdisc of ours. */
	unsigned long qdisc_state;	/* the Rust state (qdisc_priv() + its offset) */
	unsigned long qdisc_qlen;	/* __u32 q.qlen */
	unsigned long qdisc_backlog;	/* __u32 qstats.backlog */
	unsigned long qdisc_handle;	/* __u32 handle */
	unsigned long qdisc_filters;	/* struct tcf_proto __rcu * of the shim's private part */
	/* From a struct sk_buff. */
	unsigned long skb_next;		/* struct sk_buff *next */
	unsigned long skb_priority;	/* __u32 priority */
	unsigned long skb_head;		/* unsigned char *head */
	unsigned long skb_end;		/* sk_buff_data_t end: an offset from head (64-bit) */
	unsigned long skb_pkt_len;	/* __u32 qdisc_skb_cb(skb)->pkt_len */
	unsigned long skb_time;		/* u64 enqueue time in the qdisc's part of the cb */
	unsigned long skb_note;		/* u8 the qdisc's note, beside it */
	unsigned long skb_ecn;		/* u8 the ECN field as the qdisc left it, beside it */
	/* From the struct skb_shared_info at head + end. */
	unsigned long shinfo_gso_size;	/* unsigned short gso_size */
	unsigned long shinfo_gso_segs;	/* unsigned short gso_segs */
};

/* Filled before the qdisc kind is registered, never written again. */
extern struct ecnsharp_shim_layout ecnsharp_shim_layout;

/* A FIFO of skbs linked through skb->next; all-zero is the empty FIFO. */
struct ecnsharp_shim_fifo {
	struct sk_buff *head;
	struct sk_buff *tail;
};

/* Registration: one qdisc kind per module. */
unsigned int ecnsharp_shim_abi(void);
int ecnsharp_shim_register(const char *id, const struct ecnsharp_shim_ops *ops,
			   unsigned long rust_priv_size, unsigned long rust_priv_align);
void ecnsharp_shim_unregister(void);

/* The qdisc. */
unsigned int ecnsharp_shim_mtu(const struct Qdisc *sch);
unsigned int ecnsharp_shim_tx_queue_len(const struct Qdisc *sch);
void ecnsharp_shim_dequeued(struct Qdisc *sch, const struct sk_buff *skb);
void ecnsharp_shim_removed(struct Qdisc *sch, const struct sk_buff *skb);
void ecnsharp_shim_overlimit(struct Qdisc *sch);
void ecnsharp_shim_set_classes(struct Qdisc *sch, unsigned int classes);
int ecnsharp_shim_classify(struct sk_buff *skb, struct Qdisc *sch);
int ecnsharp_shim_put_class_stats(struct gnet_dump *d, const struct ecnsharp_shim_class_stats *st,
				  const void *xstats, int xstats_len);
void ecnsharp_shim_tree_reduce_backlog(struct Qdisc *sch, int n, int len);
void ecnsharp_shim_enqueued_many(struct Qdisc *sch, unsigned int n, unsigned int len);
void ecnsharp_shim_tree_lock(struct Qdisc *sch);
void ecnsharp_shim_tree_unlock(struct Qdisc *sch);
void ecnsharp_shim_watchdog_schedule(struct Qdisc *sch, unsigned long long expires_ns);
int ecnsharp_shim_qdisc_drop(struct sk_buff *skb, struct Qdisc *sch, struct sk_buff **to_free);
int ecnsharp_shim_filter_drop(struct sk_buff *skb, struct Qdisc *sch, struct sk_buff **to_free,
			      int stolen);
struct sk_buff *ecnsharp_shim_peeked(struct Qdisc *sch);

/* Packets. */
unsigned int ecnsharp_shim_skb_len(const struct sk_buff *skb);
int ecnsharp_shim_skb_dsfield(struct sk_buff *skb);
int ecnsharp_shim_skb_set_ce(struct sk_buff *skb);
void ecnsharp_shim_skb_free(struct sk_buff *skb);
void ecnsharp_shim_skb_free_rtnl(struct sk_buff *skb);
struct sk_buff *ecnsharp_shim_gso_segment(struct sk_buff *skb);
struct sk_buff *ecnsharp_shim_skb_list_pop(struct sk_buff **list);

/* Netlink. */
const void *ecnsharp_shim_nla_data(const struct nlattr *nla);
int ecnsharp_shim_nla_len(const struct nlattr *nla);
int ecnsharp_shim_nla_is_nested(const struct nlattr *nla);
void ecnsharp_shim_extack(struct netlink_ext_ack *extack, const struct nlattr *bad_attr,
			  const char *msg);
int ecnsharp_shim_put_xstats(struct gnet_dump *d, const void *data, int len);

/*
 * Dumps written in place, without a buffer of their own (nothing to allocate, nothing to fail
 * under memory pressure): *_reserve() returns zeroed room at the tail of the message, or NULL if
 * there is none (-EMSGSIZE); *_commit() trims the attribute to the bytes written.
 */
void *ecnsharp_shim_options_reserve(struct sk_buff *skb, int maxlen, struct nlattr **nest);
int ecnsharp_shim_options_commit(struct sk_buff *skb, struct nlattr *nest, int len);
void ecnsharp_shim_options_cancel(struct sk_buff *skb, struct nlattr *nest);
/* Room for the xstats: maxlen in a dump, less in a notification (see shim.c); *room says how
 * much. NULL with *room 0 when the dump takes no statistics (d->tail unset).
 */
void *ecnsharp_shim_xstats_reserve(struct gnet_dump *d, int maxlen, int minlen, int *room,
				   struct nlattr **attr);
void ecnsharp_shim_xstats_commit(struct gnet_dump *d, struct nlattr *attr, int len);

/* Time and randomness. */
unsigned long long ecnsharp_shim_now_ns(void);
unsigned int ecnsharp_shim_random_u32(void);

#endif /* ECNSHARP_SHIM_H */
