// SPDX-License-Identifier: GPL-2.0
/*
 * C shim of sch_ecnsharp: the Qdisc_ops table and one-line wrappers over the static inlines and
 * macros of the qdisc API that Rust cannot call. No logic lives here: the qdisc is in Rust
 * (ecnsharp.rs over the safe layer in net_sched/), the algorithm in the no_std core (kmod/src/).
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <net/gso.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include "shim.h"

/* The C part of the private area; the Rust state follows at rust_offset. */
struct ecnsharp_shim_priv {
	struct qdisc_watchdog watchdog;
	/* Filters attached to the qdisc (tc filter add dev X parent H: ...), as sch_prio's. */
	struct tcf_proto __rcu *filter_list;
	struct tcf_block *block;
	/* Classes H:1..H:classes, one per band; written by init (RTNL, before the qdisc is
	 * visible) and change (RTNL and the tree lock), read under RTNL by find and walk
	 * (READ_ONCE/WRITE_ONCE cost nothing and keep that so if a reader ever moves).
	 */
	unsigned int classes;
};

/* The enqueue time in the qdisc control block, as sch_codel keeps it (skb->tstamp may carry an
 * EDT departure time for fq and pacing, so it is not ours to overwrite).
 */
struct ecnsharp_skb_cb {
	u64 enqueue_time;
	u8 note;
	u8 ecn;
};

static const struct ecnsharp_shim_ops *rust_ops;
static unsigned long rust_offset;

struct ecnsharp_shim_layout ecnsharp_shim_layout __read_mostly;

/* The size of a field, for the checks of ecnsharp_fill_layout(). */
#define FIELD_SIZE(type, member) sizeof(((type *)0)->member)

/* What Rust reads through ecnsharp_shim_layout: each field of the size Rust reads it as. */
static void ecnsharp_fill_layout(void)
{
	struct ecnsharp_shim_layout *l = &ecnsharp_shim_layout;
	unsigned long cb = offsetof(struct sk_buff, cb);
	unsigned long data = cb + offsetof(struct qdisc_skb_cb, data);

	BUILD_BUG_ON(FIELD_SIZE(struct Qdisc, q.qlen) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct Qdisc, qstats.backlog) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct Qdisc, handle) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct sk_buff, next) != sizeof(void *));
	BUILD_BUG_ON(FIELD_SIZE(struct sk_buff, priority) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct sk_buff, head) != sizeof(void *));
	/* skb_end_pointer() is head + end where end is an offset (NET_SKBUFF_DATA_USES_OFFSET). */
	BUILD_BUG_ON(!IS_ENABLED(CONFIG_64BIT));
	BUILD_BUG_ON(FIELD_SIZE(struct sk_buff, end) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct qdisc_skb_cb, pkt_len) != 4);
	BUILD_BUG_ON(FIELD_SIZE(struct skb_shared_info, gso_size) != 2);
	BUILD_BUG_ON(FIELD_SIZE(struct skb_shared_info, gso_segs) != 2);
	/* The enqueue time is read as an aligned u64. */
	BUILD_BUG_ON((offsetof(struct sk_buff, cb) + offsetof(struct qdisc_skb_cb, data) +
		      offsetof(struct ecnsharp_skb_cb, enqueue_time)) % 8);
	/* qdisc_priv() is &sch->privdata. */
	l->qdisc_state = offsetof(struct Qdisc, privdata) + rust_offset;
	l->qdisc_qlen = offsetof(struct Qdisc, q.qlen);
	l->qdisc_backlog = offsetof(struct Qdisc, qstats.backlog);
	l->qdisc_handle = offsetof(struct Qdisc, handle);
	l->qdisc_filters = offsetof(struct Qdisc, privdata) +
			   offsetof(struct ecnsharp_shim_priv, filter_list);
	l->skb_next = offsetof(struct sk_buff, next);
	l->skb_priority = offsetof(struct sk_buff, priority);
	l->skb_head = offsetof(struct sk_buff, head);
	l->skb_end = offsetof(struct sk_buff, end);
	l->skb_pkt_len = cb + offsetof(struct qdisc_skb_cb, pkt_len);
	l->skb_time = data + offsetof(struct ecnsharp_skb_cb, enqueue_time);
	l->skb_note = data + offsetof(struct ecnsharp_skb_cb, note);
	l->skb_ecn = data + offsetof(struct ecnsharp_skb_cb, ecn);
	l->shinfo_gso_size = offsetof(struct skb_shared_info, gso_size);
	l->shinfo_gso_segs = offsetof(struct skb_shared_info, gso_segs);
}

static int ecnsharp_init(struct Qdisc *sch, struct nlattr *opt, struct netlink_ext_ack *extack)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);
	int err;

	/* First, so that destroy, which runs even when init fails, may always cancel it. */
	qdisc_watchdog_init(&p->watchdog, sch);
	if (rust_ops->dump_class_stats) {
		err = tcf_block_get(&p->block, &p->filter_list, sch, extack);
		if (err)
			return err;
	}
	return rust_ops->init(sch, opt, extack);
}

static void ecnsharp_reset(struct Qdisc *sch)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);

	qdisc_watchdog_cancel(&p->watchdog);
	rust_ops->reset(sch);
}

static void ecnsharp_destroy(struct Qdisc *sch)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);

	/* Filters first, as sch_prio does: none may classify into a qdisc going away. */
	tcf_block_put(p->block);
	qdisc_watchdog_cancel(&p->watchdog);
	rust_ops->destroy(sch);
}

/* Classes: one per band, H:1 is band 0. They have no child qdisc (a band is ecnsharp's own
 * FIFO with its marking state), so grafting is refused and leaf is NULL.
 */
static unsigned long ecnsharp_find(struct Qdisc *sch, u32 classid)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);
	unsigned long cl = TC_H_MIN(classid);

	if (cl == 0 || cl > READ_ONCE(p->classes))
		return 0;
	return cl;
}

static int ecnsharp_graft(struct Qdisc *sch, unsigned long cl, struct Qdisc *new,
			  struct Qdisc **old, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack,
		       "ecnsharp: a band is ecnsharp's own queue with its marking state; it takes no child qdisc");
	return -EOPNOTSUPP;
}

static struct Qdisc *ecnsharp_leaf(struct Qdisc *sch, unsigned long cl)
{
	return NULL;
}

static void ecnsharp_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);
	unsigned int classes = READ_ONCE(p->classes);
	unsigned long cl;

	if (arg->stop)
		return;
	for (cl = 1; cl <= classes; cl++) {
		if (!tc_qdisc_stats_dump(sch, cl, arg))
			break;
	}
}

/* Filters attach to the qdisc (they choose the band); a band has none of its own. */
static struct tcf_block *ecnsharp_tcf_block(struct Qdisc *sch, unsigned long cl,
					    struct netlink_ext_ack *extack)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG(extack,
			       "ecnsharp: filters attach to the qdisc, not to a band");
		return NULL;
	}
	return p->block;
}

/*
 * The classes are the bands, made and removed by the qdisc's "bands" option. Without these two
 * the kernel refuses a class add or delete with a bare -EOPNOTSUPP: they say why.
 */
static int ecnsharp_class_change(struct Qdisc *sch, u32 classid, u32 parentid, struct nlattr **tca,
				 unsigned long *arg, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "ecnsharp: the classes are the bands; set 'bands' on the qdisc");
	return -EOPNOTSUPP;
}

static int ecnsharp_class_delete(struct Qdisc *sch, unsigned long cl,
				 struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "ecnsharp: the classes are the bands; set 'bands' on the qdisc");
	return -EOPNOTSUPP;
}

static unsigned long ecnsharp_bind(struct Qdisc *sch, unsigned long parent, u32 classid)
{
	return ecnsharp_find(sch, classid);
}

static void ecnsharp_unbind(struct Qdisc *sch, unsigned long cl)
{
}

static int ecnsharp_dump_class(struct Qdisc *sch, unsigned long cl, struct sk_buff *skb,
			       struct tcmsg *tcm)
{
	tcm->tcm_handle |= TC_H_MIN(cl);
	tcm->tcm_info = 0;
	return 0;
}

static int ecnsharp_dump_class_stats(struct Qdisc *sch, unsigned long cl, struct gnet_dump *d)
{
	return rust_ops->dump_class_stats(sch, cl, d);
}

static const struct Qdisc_class_ops ecnsharp_class_ops = {
	.graft = ecnsharp_graft,
	.leaf = ecnsharp_leaf,
	.change = ecnsharp_class_change,
	.delete = ecnsharp_class_delete,
	.find = ecnsharp_find,
	.walk = ecnsharp_walk,
	.tcf_block = ecnsharp_tcf_block,
	.bind_tcf = ecnsharp_bind,
	.unbind_tcf = ecnsharp_unbind,
	.dump = ecnsharp_dump_class,
	.dump_stats = ecnsharp_dump_class_stats,
};

static struct Qdisc_ops ecnsharp_qdisc_ops __read_mostly = {
	.init = ecnsharp_init,
	.reset = ecnsharp_reset,
	.destroy = ecnsharp_destroy,
	.owner = THIS_MODULE,
};

unsigned int ecnsharp_shim_abi(void)
{
	return ECNSHARP_SHIM_ABI;
}

int ecnsharp_shim_register(const char *id, const struct ecnsharp_shim_ops *ops,
			   unsigned long rust_priv_size, unsigned long rust_priv_align)
{
	unsigned long size;

	BUILD_BUG_ON(sizeof(struct ecnsharp_skb_cb) > QDISC_CB_PRIV_LEN);
	BUILD_BUG_ON(ECNSHARP_SHIM_NET_XMIT_SUCCESS != NET_XMIT_SUCCESS);
	BUILD_BUG_ON(ECNSHARP_SHIM_NET_XMIT_DROP != NET_XMIT_DROP);
	BUILD_BUG_ON(ECNSHARP_SHIM_EMSGSIZE != EMSGSIZE);
	BUILD_BUG_ON(ECNSHARP_SHIM_EINVAL != EINVAL);
	/* The private area is aligned at least as kmalloc guarantees: the state cannot ask for more. */
	if (!rust_priv_align || rust_priv_align > ARCH_KMALLOC_MINALIGN ||
	    (rust_priv_align & (rust_priv_align - 1)))
		return -EINVAL;
	rust_offset = ALIGN(sizeof(struct ecnsharp_shim_priv), rust_priv_align);
	size = rust_offset + rust_priv_size;
	if (size > INT_MAX || strscpy(ecnsharp_qdisc_ops.id, id, IFNAMSIZ) < 0)
		return -EINVAL;
	ecnsharp_fill_layout();
	rust_ops = ops;
	ecnsharp_qdisc_ops.priv_size = size;
	ecnsharp_qdisc_ops.enqueue = ops->enqueue;
	ecnsharp_qdisc_ops.dequeue = ops->dequeue;
	ecnsharp_qdisc_ops.peek = ops->peek;
	ecnsharp_qdisc_ops.change = ops->change;
	ecnsharp_qdisc_ops.dump = ops->dump;
	ecnsharp_qdisc_ops.dump_stats = ops->dump_stats;
	if (ops->dump_class_stats)
		ecnsharp_qdisc_ops.cl_ops = &ecnsharp_class_ops;
	return register_qdisc(&ecnsharp_qdisc_ops);
}

void ecnsharp_shim_unregister(void)
{
	unregister_qdisc(&ecnsharp_qdisc_ops);
}

unsigned int ecnsharp_shim_mtu(const struct Qdisc *sch)
{
	return psched_mtu(qdisc_dev(sch));
}

unsigned int ecnsharp_shim_tx_queue_len(const struct Qdisc *sch)
{
	return qdisc_dev(sch)->tx_queue_len;
}

void ecnsharp_shim_enqueued_many(struct Qdisc *sch, unsigned int n, unsigned int len)
{
	sch->qstats.backlog += len;
	sch->q.qlen += n;
}

void ecnsharp_shim_dequeued(struct Qdisc *sch, const struct sk_buff *skb)
{
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_bstats_update(sch, skb);
	sch->q.qlen--;
}

void ecnsharp_shim_removed(struct Qdisc *sch, const struct sk_buff *skb)
{
	qdisc_qstats_backlog_dec(sch, skb);
	qdisc_qstats_drop(sch);
	sch->q.qlen--;
}

void ecnsharp_shim_overlimit(struct Qdisc *sch)
{
	qdisc_qstats_overlimit(sch);
}

void ecnsharp_shim_set_classes(struct Qdisc *sch, unsigned int classes)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);

	WRITE_ONCE(p->classes, classes);
}

/*
 * The filters' verdict on skb, as prio_classify() reads it: a class minor number (1..), or one
 * of ECNSHARP_SHIM_CLASSIFY_*. skb->priority naming one of our classes (H:B) selects it without
 * the filters. Runs in enqueue, under the root lock and rcu_read_lock_bh.
 */
int ecnsharp_shim_classify(struct sk_buff *skb, struct Qdisc *sch)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);
	struct tcf_result res;
	struct tcf_proto *fl;
	int err;

	if (TC_H_MAJ(skb->priority) == sch->handle)
		return TC_H_MIN(skb->priority);
	fl = rcu_dereference_bh(p->filter_list);
	if (!fl)
		return ECNSHARP_SHIM_CLASSIFY_NONE;
	err = tcf_classify(skb, NULL, fl, &res, false);
#ifdef CONFIG_NET_CLS_ACT
	switch (err) {
	case TC_ACT_STOLEN:
	case TC_ACT_QUEUED:
	case TC_ACT_TRAP:
		return ECNSHARP_SHIM_CLASSIFY_STOLEN;
	case TC_ACT_SHOT:
		return ECNSHARP_SHIM_CLASSIFY_DROP;
	}
#endif
	if (err < 0)
		return ECNSHARP_SHIM_CLASSIFY_NONE;
	return TC_H_MIN(res.classid);
}

int ecnsharp_shim_put_class_stats(struct gnet_dump *d, const struct ecnsharp_shim_class_stats *st,
				  const void *xstats, int xstats_len)
{
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats = {
		.qlen = st->qlen,
		.backlog = st->backlog,
		.drops = st->drops,
	};

	gnet_stats_basic_sync_init(&bstats);
	u64_stats_set(&bstats.bytes, st->bytes);
	u64_stats_set(&bstats.packets, st->packets);
	if (gnet_stats_copy_basic(d, NULL, &bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qstats, st->qlen) < 0)
		return -EMSGSIZE;
	return ecnsharp_shim_put_xstats(d, xstats, xstats_len);
}

void ecnsharp_shim_tree_reduce_backlog(struct Qdisc *sch, int n, int len)
{
	qdisc_tree_reduce_backlog(sch, n, len);
}

void ecnsharp_shim_tree_lock(struct Qdisc *sch)
{
	sch_tree_lock(sch);
}

void ecnsharp_shim_tree_unlock(struct Qdisc *sch)
{
	sch_tree_unlock(sch);
}

void ecnsharp_shim_watchdog_schedule(struct Qdisc *sch, unsigned long long expires_ns)
{
	struct ecnsharp_shim_priv *p = qdisc_priv(sch);

	qdisc_watchdog_schedule_ns(&p->watchdog, expires_ns);
}

int ecnsharp_shim_qdisc_drop(struct sk_buff *skb, struct Qdisc *sch, struct sk_buff **to_free)
{
	return qdisc_drop(skb, sch, to_free);
}

/* As prio_enqueue() for a packet its filters dropped (counted) or an action stole (not). */
int ecnsharp_shim_filter_drop(struct sk_buff *skb, struct Qdisc *sch, struct sk_buff **to_free,
			      int stolen)
{
	if (!stolen)
		qdisc_qstats_drop(sch);
	__qdisc_drop(skb, to_free);
	return stolen ? NET_XMIT_SUCCESS | __NET_XMIT_STOLEN : NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
}

struct sk_buff *ecnsharp_shim_peeked(struct Qdisc *sch)
{
	return skb_peek(&sch->gso_skb);
}

unsigned int ecnsharp_shim_skb_len(const struct sk_buff *skb)
{
	return qdisc_pkt_len(skb);
}

int ecnsharp_shim_skb_dsfield(struct sk_buff *skb)
{
	return skb_get_dsfield(skb);
}

int ecnsharp_shim_skb_set_ce(struct sk_buff *skb)
{
	return INET_ECN_set_ce(skb);
}

void ecnsharp_shim_skb_free(struct sk_buff *skb)
{
	kfree_skb_reason(skb, SKB_DROP_REASON_QDISC_DROP);
}

void ecnsharp_shim_skb_free_rtnl(struct sk_buff *skb)
{
	rtnl_kfree_skbs(skb, skb);
}

/*
 * The segments of a GSO skb, as tbf and cake make them (software segmentation for the device's
 * features less GSO), each with its own qdisc length; the original is consumed. NULL if
 * segmentation failed: the original is then still the caller's.
 */
struct sk_buff *ecnsharp_shim_gso_segment(struct sk_buff *skb)
{
	netdev_features_t features = netif_skb_features(skb);
	struct sk_buff *segs, *seg;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return NULL;
	for (seg = segs; seg; seg = seg->next)
		qdisc_skb_cb(seg)->pkt_len = seg->len;
	consume_skb(skb);
	return segs;
}

struct sk_buff *ecnsharp_shim_skb_list_pop(struct sk_buff **list)
{
	struct sk_buff *skb = *list;

	if (skb) {
		*list = skb->next;
		skb_mark_not_on_list(skb);
	}
	return skb;
}

const void *ecnsharp_shim_nla_data(const struct nlattr *nla)
{
	return nla_data(nla);
}

int ecnsharp_shim_nla_len(const struct nlattr *nla)
{
	return nla_len(nla);
}

int ecnsharp_shim_nla_is_nested(const struct nlattr *nla)
{
	return !!(nla->nla_type & NLA_F_NESTED);
}

void ecnsharp_shim_extack(struct netlink_ext_ack *extack, const struct nlattr *bad_attr,
			  const char *msg)
{
	/*
	 * The kernel's macro path, so that the netlink:netlink_extack tracepoint sees the message:
	 * NL_SET_ERR_MSG_ATTR() wants a string literal, msg is one of the module's static strings
	 * (each shorter than NETLINK_MAX_FMTMSG_LEN, checked by the core's host tests).
	 */
	NL_SET_ERR_MSG_ATTR_POL_FMT(extack, bad_attr, NULL, "%s", msg);
}

void *ecnsharp_shim_options_reserve(struct sk_buff *skb, int maxlen, struct nlattr **nest)
{
	/* NLA_F_NESTED, as init requires it: a dumped qdisc can be replayed as a request. */
	struct nlattr *opts = nla_nest_start(skb, TCA_OPTIONS);

	if (!opts)
		return NULL;
	if (maxlen < 0 || skb_tailroom(skb) < maxlen) {
		nla_nest_cancel(skb, opts);
		return NULL;
	}
	*nest = opts;
	return skb_put_zero(skb, maxlen);
}

int ecnsharp_shim_options_commit(struct sk_buff *skb, struct nlattr *nest, int len)
{
	/* The encoder pads every attribute it writes, so len keeps the nest aligned. */
	skb_trim(skb, (unsigned char *)nla_data(nest) - skb->data + len);
	return nla_nest_end(skb, nest);
}

void ecnsharp_shim_options_cancel(struct sk_buff *skb, struct nlattr *nest)
{
	nla_nest_cancel(skb, nest);
}

/*
 * The most tc_fill_qdisc() adds after the xstats: TCA_STATS_BASIC and TCA_STATS_PKT64, a rate
 * estimator's TCA_STATS_RATE_EST and _EST64, TCA_STATS_QUEUE, the legacy TCA_STATS, and a
 * warning (TCA_EXT_WARN_MSG: a formatted one is at most NETLINK_MAX_FMTMSG_LEN; a literal
 * warning left set on a success could be longer, which is rare). A fixed 64 bytes, the legacy
 * TCA_STATS alone, lost the whole notification of a replace whose records were cut to leave
 * less (10 to 12 bands replaced by as many: qdisc-edges).
 */
#define ECNSHARP_STATS_TRAILER                                                    \
	(nla_total_size_64bit(sizeof(struct gnet_stats_basic)) +                 \
	 nla_total_size_64bit(sizeof(u64)) +                                      \
	 nla_total_size_64bit(sizeof(struct gnet_stats_rate_est)) +               \
	 nla_total_size_64bit(sizeof(struct gnet_stats_rate_est64)) +             \
	 nla_total_size_64bit(sizeof(struct gnet_stats_queue)) +                  \
	 nla_total_size_64bit(sizeof(struct tc_stats)) +                          \
	 nla_total_size(NETLINK_MAX_FMTMSG_LEN))

/*
 * The room the xstats may take. In a dump (NLM_F_MULTI) the whole message must fit: if it does
 * not, the dump goes on in a fresh buffer. Elsewhere the message is the only chance: a change's
 * notification (tc monitor) or the reply to one request. qdisc_notify() builds the old and the
 * new qdisc of a replace in one NLMSG_GOODSIZE buffer, so the first message is kept within half
 * of it and a second one takes what is left; a qdisc whose records do not all fit sends the
 * first bands' (the header says how many).
 */
static int ecnsharp_xstats_room(struct sk_buff *skb, int maxlen)
{
	struct nlmsghdr *first = nlmsg_hdr(skb);
	int room;

	if (first->nlmsg_flags & NLM_F_MULTI)
		return maxlen;
	/* A message is being filled until nlmsg_end() sets its length past the tcmsg. */
	if (first->nlmsg_len == NLMSG_LENGTH(sizeof(struct tcmsg)))
		room = NLMSG_GOODSIZE / 2 - (int)skb->len;
	else
		room = skb_tailroom(skb);
	room -= ECNSHARP_STATS_TRAILER + 2 * NLA_HDRLEN;
	return min(room, maxlen);
}

void *ecnsharp_shim_xstats_reserve(struct gnet_dump *d, int maxlen, int minlen, int *room,
				   struct nlattr **attr)
{
	struct nlattr *nla;
	int len;

	*room = 0;
	if (!d->tail)
		return NULL;
	len = ecnsharp_xstats_room(d->skb, maxlen);
	nla = len >= minlen ? nla_reserve_64bit(d->skb, TCA_STATS_APP, len, TCA_STATS_PAD) : NULL;
	if (!nla) {
		/* As gnet_stats_copy_app() fails: the dump is over, its lock released. */
		if (d->lock)
			spin_unlock_bh(d->lock);
		*room = -EMSGSIZE;
		return NULL;
	}
	*room = len;
	*attr = nla;
	return memset(nla_data(nla), 0, len);
}

void ecnsharp_shim_xstats_commit(struct gnet_dump *d, struct nlattr *attr, int len)
{
	attr->nla_len = nla_attr_size(len);
	memset((unsigned char *)nla_data(attr) + len, 0, nla_padlen(len));
	skb_trim(d->skb, (unsigned char *)attr - d->skb->data + nla_total_size(len));
}

/*
 * The xstats, written once as TCA_STATS_APP. gnet_stats_copy_app() would also keep a copy for
 * the legacy TCA_XSTATS, doubling their size in every dump and notification (tc and ecnsharp-tc
 * read TCA_STATS_APP); sch_cake writes its nest into d->skb the same way.
 */
int ecnsharp_shim_put_xstats(struct gnet_dump *d, const void *data, int len)
{
	if (!d->tail)
		return 0;
	if (nla_put_64bit(d->skb, TCA_STATS_APP, len, data, TCA_STATS_PAD)) {
		if (d->lock)
			spin_unlock_bh(d->lock);
		return -EMSGSIZE;
	}
	return 0;
}

unsigned long long ecnsharp_shim_now_ns(void)
{
	return ktime_get_ns();
}

unsigned int ecnsharp_shim_random_u32(void)
{
	return get_random_u32();
}
