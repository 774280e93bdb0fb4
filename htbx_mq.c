// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of mq mode; htbx_mq.h has its interface with the glue
 * (sch_htbx_main.c), sch_htbx.h the glue's with it.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netlink.h>
#include <net/sch_generic.h>
#include <net/pkt_sched.h>
#include <net/gen_stats.h>

#include "htbx_mq.h"

/* ---- the data path of a queue's qdisc ---- */

/*
 * mq mode: the leaf's own count of what it holds is the truth, and the
 * queue's qdisc (t->sch, which qdisc_tree_reduce_backlog() does not reach:
 * a leaf's parent is the htbx qdisc) follows it: p->qlen_seen and
 * p->backlog_seen are the leaf's counts as the queue's qdisc has them,
 * less what the caller counts out itself. Under the queue's lock; also
 * takes in what the leaf dropped outside the data path (a change of its
 * limit: htbx_leaf_change).
 */
void htbx_mq_follow(struct htbx_node *p)
{
	struct Qdisc *sch = p->queue->sch, *leaf = p->leaf;

	sch->q.qlen += leaf->q.qlen - p->qlen_seen;
	sch->qstats.backlog += leaf->qstats.backlog - p->backlog_seen;
	p->qlen_seen = leaf->q.qlen;
	p->backlog_seen = leaf->qstats.backlog;
}

/*
 * mq: what the leaf of @p dropped since the queue last followed it,
 * counted as the queue's drops; the class leaves the rings if that
 * emptied it. Under the queue's lock.
 */
static void htbx_mq_dropped(struct htbx_node *p)
{
	u32 drops = p->qlen_seen - p->leaf->q.qlen;

	if (likely(!drops))
		return;
	htbx_mq_follow(p);
	p->queue->sch->qstats.drops += drops;
	if (!p->leaf->q.qlen)
		htbx_core_deactivate(&p->queue->core, &p->core);
}

/**
 * htbx_mq_leaf_dequeue - htbx_leaf_dequeue() of a node on a TX queue
 * @p: the node, which has a leaf
 *
 * A leaf that drops inside its ->dequeue reports it to the htbx qdisc,
 * which cannot tell the queue: the drop is seen here instead, from the
 * leaf's counts, and the queue's qdisc follows them. Under the queue's
 * lock; may re-enter the core as the hook may (htbx_core.h).
 *
 * Return: the leaf's next packet, or NULL.
 */
void *htbx_mq_leaf_dequeue(struct htbx_node *p)
{
	struct Qdisc *leaf = p->leaf;
	struct sk_buff *skb;

	skb = qdisc_dequeue_peeked(leaf);
	if (skb) {
		/* the caller counts the packet itself out */
		p->qlen_seen--;
		p->backlog_seen -= qdisc_pkt_len(skb);
	}
	htbx_mq_dropped(p);
	if (unlikely(!skb) && leaf->q.qlen)
		qdisc_warn_nonwc("htbx", leaf);
	return skb;
}

/*
 * mq: enqueue @skb on @p, the node of its class on queue @t. A leaf that
 * drops others to take this one (fq_codel, sfq, ...) reports it to the
 * htbx qdisc, not to @sch: the queue's qdisc follows the leaf (this
 * packet included) instead. The caller counts a refused packet as
 * refused without mq (and the single-queue path tests for mq once).
 */
int htbx_mq_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		    struct htbx_queue *t, struct htbx_node *p,
		    struct sk_buff **to_free)
{
	u32 qlen0 = p->qlen_seen;
	s32 drops;
	int ret;

	ret = qdisc_enqueue(skb, p->leaf, to_free);
	htbx_mq_follow(p);
	/* queued packets it dropped (the new one is counted below) */
	drops = (ret == NET_XMIT_SUCCESS) - (s32)(p->leaf->q.qlen - qlen0);
	if (unlikely(drops > 0))
		sch->qstats.drops += drops;
	if (!p->leaf->q.qlen)
		htbx_core_deactivate(&t->core, &p->core);
	if (unlikely(ret != NET_XMIT_SUCCESS))
		return ret;
	if (p->leaf->q.qlen)
		htbx_core_activate(&t->core, &p->core);
	return NET_XMIT_SUCCESS;
}

/*
 * mq: the length of @skb by the size table of the htbx qdisc. The stack
 * sized the packet with the queue's own qdisc, which has none, and sizes
 * it by the table of a root qdisc only, so a table given to the htbx
 * qdisc (SQM's linklayer and overhead) is applied here, on every queue,
 * as the stack applies a root's: the packet plus the overhead, looked up
 * in cells of 2^cell_log bytes (a table that is too short extends itself
 * by whole copies of its last entry), in units of 2^size_log bytes.
 */
static void htbx_stab_size(struct sk_buff *skb,
			   const struct qdisc_size_table *stab)
{
	const struct tc_sizespec *spec = &stab->szopts;
	int len = skb->len + spec->overhead;
	int cell;

	if (spec->tsize) {
		cell = max(len + spec->cell_align, 0) >> spec->cell_log;
		if (cell < spec->tsize)
			len = stab->data[cell];
		else
			len = stab->data[spec->tsize - 1] *
			      (cell / spec->tsize) +
			      stab->data[cell % spec->tsize];
		len <<= spec->size_log;
	}
	qdisc_skb_cb(skb)->pkt_len = max(len, 1);
}

static int htbx_queue_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
				    struct sk_buff **to_free)
{
	struct htbx_queue *t = qdisc_priv(sch);
	struct qdisc_size_table *stab;
	struct htbx_sched *q;

	/*
	 * A queue above the nodes the classes have: the device uses more
	 * queues than it did and their nodes could not be allocated
	 * (htbx_mq_change_real_num_tx), or the qdisc is going.
	 */
	if (unlikely(!t->root))
		return qdisc_drop(skb, sch, to_free);
	q = qdisc_priv(t->root);
	if (unlikely(t->idx >= READ_ONCE(q->nq)))
		return qdisc_drop(skb, sch, to_free);
	stab = rcu_dereference_bh(t->root->stab);
	if (stab)
		htbx_stab_size(skb, stab);
	return htbx_queue_enqueue(skb, sch, t, to_free);
}

static struct sk_buff *htbx_queue_qdisc_dequeue(struct Qdisc *sch)
{
	return htbx_queue_dequeue(sch, qdisc_priv(sch));
}

/*
 * A queue's qdisc is reset: by the stack when the device stops using the
 * queue (netif_set_real_num_tx_queues(): the other queues go on), or goes
 * down. What the queue held is lost, so it is counted as dropped, which
 * keeps "sent + dropped" equal to what the qdisc took in; a packet the
 * driver pushed back (gso_skb, skb_bad_txq) was counted as sent already.
 */
static void htbx_queue_qdisc_reset(struct Qdisc *sch)
{
	sch->qstats.drops += sch->q.qlen - skb_queue_len(&sch->gso_skb) -
			     skb_queue_len(&sch->skb_bad_txq);
	htbx_queue_reset(qdisc_priv(sch));
}

static int htbx_queue_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
				 struct netlink_ext_ack *extack)
{
	htbx_queue_init(qdisc_priv(sch), sch);
	return 0;
}

/* A queue's qdisc goes (its root is replaced or deleted, or the device). */
static void htbx_queue_qdisc_destroy(struct Qdisc *sch)
{
	struct htbx_queue *t = qdisc_priv(sch);
	struct htbx_sched *q;

	cancel_work_sync(&t->work);
	qdisc_watchdog_cancel(&t->watchdog);
	if (t->root) {
		q = qdisc_priv(t->root);
		q->queue_qdiscs[t->idx] = NULL;
	}
	__qdisc_reset_queue(&t->direct_queue);
}

/*
 * mq mode: a queue's qdisc (not registered: made by htbx_mq_init). Its
 * kind keeps the name it had before the queue was called a queue: it is
 * what traces and the kernel's messages print.
 */
static struct Qdisc_ops htbx_queue_ops = {
	.id		=	"htbx_txq",
	.priv_size	=	sizeof(struct htbx_queue),
	.enqueue	=	htbx_queue_qdisc_enqueue,
	.dequeue	=	htbx_queue_qdisc_dequeue,
	.peek		=	qdisc_peek_dequeued,
	.init		=	htbx_queue_qdisc_init,
	.reset		=	htbx_queue_qdisc_reset,
	.destroy	=	htbx_queue_qdisc_destroy,
	.owner		=	THIS_MODULE,
};

/* ---- setup and teardown ---- */

/*
 * mq mode: one qdisc of htbx_queue_ops per TX queue, the queue's own root
 * from htbx_attach() on (so the queue's lock is its lock), scheduling
 * node @i of every class.
 */
int htbx_mq_init(struct Qdisc *sch, struct netlink_ext_ack *extack)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct htbx_queue *t;
	struct Qdisc *s;
	unsigned int i;

	if (sch->parent != TC_H_ROOT) {
		NL_SET_ERR_MSG_MOD(extack, "mq: only the root qdisc of a device schedules its TX queues");
		return -EOPNOTSUPP;
	}
	if (!netif_is_multiqueue(dev)) {
		NL_SET_ERR_MSG_MOD(extack, "mq: the device has one TX queue (leave mq out)");
		return -EOPNOTSUPP;
	}
	q->queue_qdiscs = kcalloc(dev->num_tx_queues,
				  sizeof(*q->queue_qdiscs),
				  GFP_KERNEL_ACCOUNT);
	if (!q->queue_qdiscs)
		return -ENOMEM;
	for (i = 0; i < dev->num_tx_queues; i++) {
		s = qdisc_create_dflt(netdev_get_tx_queue(dev, i),
				      &htbx_queue_ops,
				      TC_H_MAKE(TC_H_MAJ(sch->handle),
						TC_H_MIN(i + 1)), extack);
		if (!s)
			return -ENOMEM;	/* htbx_destroy puts the others */
		s->flags |= TCQ_F_ONETXQUEUE | TCQ_F_NOPARENT;
		t = qdisc_priv(s);
		t->root = sch;
		t->idx = i;
		q->queue_qdiscs[i] = s;
	}
	/* a class has a node on each queue the device uses */
	q->nq = htbx_compat_real_num_tx(dev);
	q->mq = true;
	/* sch_tree_lock() of this qdisc is its own lock, as for mq */
	sch->flags |= TCQ_F_MQROOT;
	return 0;
}

/*
 * The qdisc goes: the leaf sync stops (any qdisc: it was set up in
 * htbx_init), and queues' qdiscs that outlive this one (a new root with
 * .attach grafts them away only after this) forget it now; before attach
 * they are still ours to put.
 */
void htbx_mq_destroy(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct htbx_queue *t;
	unsigned int i;

	cancel_delayed_work_sync(&q->leaf_sync);
	for (i = 0; q->queue_qdiscs && i < qdisc_dev(sch)->num_tx_queues; i++) {
		if (!q->queue_qdiscs[i])
			continue;
		if (!q->attached) {
			qdisc_put(q->queue_qdiscs[i]);
			continue;
		}
		t = qdisc_priv(q->queue_qdiscs[i]);
		cancel_work_sync(&t->work);
		qdisc_watchdog_cancel(&t->watchdog);
		htbx_core_reset(&t->core);
		t->root = NULL;
	}
	kfree(q->queue_qdiscs);
	q->queue_qdiscs = NULL;
}

/* ---- locking: one queue's at a time ---- */

/*
 * Every queue below @n has left what its data path read before this call
 * (an array of nodes replaced): each queue's lock taken and let go in
 * turn, as configuration takes them, never two at once.
 */
static void htbx_mq_quiesce(struct htbx_sched *q, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		spin_lock_bh(qdisc_lock(q->queue_qdiscs[i]));
		spin_unlock_bh(qdisc_lock(q->queue_qdiscs[i]));
	}
}

/* ---- leaves: a copy on every queue ---- */

/*
 * mq mode: the leaf kinds whose dump holds all of their configuration, so
 * that a copy made from the dump is the same qdisc. A classful kind keeps
 * its classes, child qdiscs and filters outside its dump (and a copy's
 * children, below handle 0, could not report a flush up the tree);
 * pfifo_fast is lockless, counts its queue per CPU and leaves q.qlen at
 * 0; netem, red, choke and gred keep a table outside it. A kind not named
 * here is refused: nothing says its dump is whole. (fq_codel, cake and
 * sfq have class ops too, for their flows: classes without a graft.)
 */
static const char *const htbx_mq_leaf_kinds[] = {
	"pfifo", "bfifo", "pfifo_head_drop", "fq_codel", "fq_pie", "cake",
	"sfq", "fq", "codel", "pie", "hhf",
};

/* mq: may @leaf be copied to every TX queue? If not, the extack says why. */
bool htbx_mq_leaf_ok(const struct Qdisc *leaf, struct netlink_ext_ack *extack)
{
	const struct Qdisc_ops *ops = leaf->ops;
	unsigned int i;

	if (ops->cl_ops && ops->cl_ops->graft) {
		NL_SET_ERR_MSG_MOD(extack, "mq mode: a classful leaf cannot be copied to every TX queue (its classes, qdiscs and filters are not in its dump): use fq_codel, cake, sfq or pfifo, or leave mq out");
		return false;
	}
	if (ops->static_flags & TCQ_F_NOLOCK) {
		NL_SET_ERR_MSG_MOD(extack, "mq mode: pfifo_fast is lockless and counts per CPU, so it cannot be a copy on every TX queue: use pfifo or fq_codel");
		return false;
	}
	for (i = 0; i < ARRAY_SIZE(htbx_mq_leaf_kinds); i++)
		if (!strcmp(ops->id, htbx_mq_leaf_kinds[i]))
			return true;
	NL_SET_ERR_MSG_MOD(extack, "mq mode: this leaf kind keeps state outside its dump (netem's distribution, red's table), so it cannot be copied to every TX queue: use fq_codel, cake, sfq, fq, pie, codel or a fifo, or leave mq out");
	return false;
}

/*
 * mq: the copies of a leaf on queues 1 .. nq - 1, made from the leaf's
 * options as its dump has them. qdisc_create_dflt() gives a kind's init no
 * options, and a kind's change may not take all that its init takes
 * (fq_codel's flows), so a copy is made with an ops table of its own: the
 * kind's, but for an init that passes those options (RTNL serialises the
 * calls). The table is the copy's for its life: htbx_leaf_put() frees it
 * once the copy is gone. A copy is in no hash, so nothing but htbx
 * reaches it. The leaf the user grafted, queue 0's, keeps the kind's own
 * ops: tc finds it by its handle and changes it as any qdisc, and
 * htbx_leaf_sync() hands what changed on to the copies.
 */
struct htbx_copy_ops {
	struct Qdisc_ops	ops;
	const struct Qdisc_ops	*kind;
	struct nlattr		*opt;		/* while the copy is made */
};

static int htbx_copy_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	const struct htbx_copy_ops *w =
		container_of(sch->ops, struct htbx_copy_ops, ops);

	return w->kind->init ? w->kind->init(sch, w->opt, extack) : 0;
}

void htbx_leaf_put(struct Qdisc *leaf)
{
	const struct Qdisc_ops *ops = leaf->ops;

	qdisc_put(leaf);
	if (ops->init == htbx_copy_init)
		kfree(container_of(ops, struct htbx_copy_ops, ops));
}

/*
 * The options of @leaf as its dump gives them, in @skb (emptied first):
 * NULL for a kind without options, an ERR_PTR when they do not fit.
 */
struct nlattr *htbx_leaf_opts(struct Qdisc *leaf, struct sk_buff *skb)
{
	skb_trim(skb, 0);
	if (!leaf->ops->dump)
		return NULL;
	if (leaf->ops->dump(leaf, skb) < 0)
		return ERR_PTR(-EMSGSIZE);
	return nla_find((struct nlattr *)skb->data, skb->len, TCA_OPTIONS);
}

/* A copy of @leaf0 (the kind's ops, options @opt) for node @i. */
struct Qdisc *htbx_clone_leaf(struct Qdisc *sch, const struct Qdisc *leaf0,
			      struct nlattr *opt, unsigned int i, u32 classid,
			      struct netlink_ext_ack *extack)
{
	struct netlink_ext_ack ext;
	struct htbx_copy_ops *w;
	struct Qdisc *c;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return NULL;
	w->ops = *leaf0->ops;
	w->ops.init = htbx_copy_init;
	w->kind = leaf0->ops;
	w->opt = opt;
	/* what init says about an attribute points into the dump, not
	 * into the request: only its message is passed on
	 */
	memset(&ext, 0, sizeof(ext));
	c = qdisc_create_dflt(htbx_leaf_queue(sch, i), &w->ops, classid,
			      &ext);
	w->opt = NULL;
	/*
	 * What a copy drops it does not report up the tree: the htbx qdisc's
	 * counters are written under queue 0's lock (htbx_mq_sum), and the
	 * copy's queue follows its counts itself (htbx_mq_follow).
	 */
	if (c)
		c->flags |= TCQ_F_NOPARENT;
	if (!c && ext._msg)
		htbx_extack_msg(extack, &ext);
	else if (!c)
		NL_SET_ERR_MSG_MOD(extack, "mq mode: the leaf cannot be made again from its own dump, so not for every TX queue");
	if (!c)
		kfree(w);
	return c;
}

/*
 * What a change made the leaf of @p drop (a lower limit), counted on its
 * queue; its parent, the htbx qdisc, was told, but not the queue.
 */
static void htbx_leaf_changed(struct htbx_node *p)
{
	struct Qdisc *sch = p->queue->sch;

	spin_lock_bh(qdisc_lock(sch));
	htbx_mq_dropped(p);
	spin_unlock_bh(qdisc_lock(sch));
}

/*
 * mq: queue 0's leaf of @cl now has the options @opt; each copy takes
 * them with its kind's change, or, where the kind's change refuses its
 * own dump (fq_codel's and fq_pie's flows), is made again from them,
 * what the old one held dropped and counted on its queue. Under RTNL.
 */
static void htbx_leaf_sync_class(struct Qdisc *sch, struct htbx_class *cl,
				 struct nlattr *opt)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct nlattr *copy;
	struct htbx_node *p;
	struct Qdisc *c;
	unsigned int i;

	copy = kmemdup(opt, opt->nla_len, GFP_KERNEL_ACCOUNT);
	if (!copy)
		return;		/* tried again at the next look */
	htbx_leaf_changed(&cl->node);
	for (i = 1; i < q->nq; i++) {
		p = htbx_node_at(cl, i);
		c = p->leaf;
		if (c->ops->change && !c->ops->change(c, opt, NULL)) {
			htbx_leaf_changed(p);
			continue;
		}
		c = htbx_clone_leaf(sch, cl->node.leaf, opt, i,
				    cl->common.classid, NULL);
		if (!c) {
			kfree(copy);
			return;
		}
		spin_lock_bh(qdisc_lock(p->queue->sch));
		htbx_purge_node(q, cl, i);
		swap(p->leaf, c);
		spin_unlock_bh(qdisc_lock(p->queue->sch));
		htbx_leaf_put(c);
	}
	kfree(cl->leaf_opt);
	cl->leaf_opt = copy;
}

/*
 * mq: a change of a leaf (tc qdisc change, which reaches queue 0's: the
 * one tc finds by its handle) is handed on to its copies here. The kernel
 * tells a parent nothing of a change of its child, and htbx leaves the
 * child's ops alone, so it looks: every HTBX_LEAF_SYNC_MS it compares the
 * dump of each leaf the user grafted with the options its copies have.
 * Under RTNL. Returns whether any class has a leaf to follow.
 */
static bool htbx_leaf_sync(struct Qdisc *sch)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct sk_buff *skb = NULL;
	struct htbx_class *cl;
	struct nlattr *opt;
	bool follow = false;
	unsigned int h;

	/* a queue's qdisc is gone: the root is being replaced */
	for (h = 0; h < q->nq; h++)
		if (!q->queue_qdiscs[h])
			return false;
	for (h = 0; h < q->clhash.hashsize; h++) {
		hlist_for_each_entry(cl, &q->clhash.hash[h], common.hnode) {
			if (!cl->leaf_opt)
				continue;
			follow = true;
			if (!skb)
				skb = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
			if (!skb)
				return true;	/* tried again at the next look */
			opt = htbx_leaf_opts(cl->node.leaf, skb);
			if (IS_ERR_OR_NULL(opt) ||
			    !nla_memcmp(opt, nla_data(cl->leaf_opt),
					nla_len(cl->leaf_opt)))
				continue;
			htbx_leaf_sync_class(sch, cl, opt);
		}
	}
	kfree_skb(skb);
	return follow;
}

void htbx_leaf_sync_work(struct work_struct *work)
{
	struct htbx_sched *q = container_of(to_delayed_work(work),
					    struct htbx_sched, leaf_sync);
	bool follow;

	/* htbx_destroy() waits for this under RTNL: never wait for it here */
	if (!rtnl_trylock()) {
		schedule_delayed_work(&q->leaf_sync, 1);
		return;
	}
	follow = htbx_leaf_sync(q->queue.root);
	rtnl_unlock();
	if (follow)
		schedule_delayed_work(&q->leaf_sync,
				      msecs_to_jiffies(HTBX_LEAF_SYNC_MS));
}

/* ---- nodes: one per class and queue the device uses ---- */

/**
 * htbx_mq_nodes_put - free an array of a class's nodes above queue 0
 * @nodes: the array (NULL: none), n - 1 nodes for queues 1 .. n - 1
 * @from: the first queue whose node is freed with it: 1 for all of them
 *	(the class goes), or the first new one (a growth undone, whose
 *	array shares the nodes below @from with the class's)
 * @n: nodes per class the array is for
 *
 * A node freed that holds a leaf puts it.
 */
void htbx_mq_nodes_put(struct htbx_node **nodes, unsigned int from,
		       unsigned int n)
{
	unsigned int i;

	if (!nodes)
		return;
	for (i = from; i < n; i++) {
		if (nodes[i - 1]->leaf)
			htbx_leaf_put(nodes[i - 1]->leaf);
		kfree(nodes[i - 1]);
	}
	kfree(nodes);
}

/**
 * htbx_mq_nodes_new - the array of a class's nodes above queue 0, grown
 * @old: the class's array for @from nodes per class, or NULL (@from 1)
 * @from: nodes per class now
 * @n: nodes per class wanted, at least @from
 *
 * The nodes of @old are taken over as they are (the queues' trees link
 * them); those of queues @from .. @n - 1 are new and zeroed, set up by
 * the caller. Charged to the caller's memory cgroup, as a class is.
 *
 * Return: the new array, or NULL (@old unchanged, nothing allocated).
 */
struct htbx_node **htbx_mq_nodes_new(struct htbx_node **old,
				     unsigned int from, unsigned int n)
{
	struct htbx_node **nodes;
	unsigned int i;

	nodes = kcalloc(n - 1, sizeof(*nodes), GFP_KERNEL_ACCOUNT);
	if (!nodes)
		return NULL;
	for (i = 1; i < n; i++) {
		if (i < from) {
			nodes[i - 1] = old[i - 1];
			continue;
		}
		nodes[i - 1] = kzalloc(sizeof(**nodes), GFP_KERNEL_ACCOUNT);
		if (!nodes[i - 1]) {
			while (--i >= from)
				kfree(nodes[i - 1]);
			kfree(nodes);
			return NULL;
		}
	}
	return nodes;
}

/*
 * Node @i of @cl, new (queue @i was never used): set up as queue 0's
 * node is configured, sharing its bucket, with a leaf like queue 0's: a
 * copy of the one the user grafted (its options as the copies have
 * them: htbx_leaf_sync hands on a later change), or a default pfifo.
 * Not linked into the queue's tree yet. Under RTNL.
 */
static int htbx_mq_node_prepare(struct Qdisc *sch, struct htbx_class *cl,
				struct htbx_node *p, unsigned int i)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct Qdisc *leaf0 = cl->node.leaf;

	gnet_stats_basic_sync_init(&p->bstats);
	p->cpu_bstats = cl->cpu_bstats;
	htbx_node_setup(&p->core, &cl->node.core.cfg);
	p->core.bucket = cl->bucket;
	p->queue = qdisc_priv(q->queue_qdiscs[i]);
	if (!leaf0)
		return 0;
	if (leaf0->handle)
		p->leaf = htbx_clone_leaf(sch, leaf0, cl->leaf_opt, i,
					  cl->common.classid, NULL);
	else
		p->leaf = htbx_new_leaf(sch, i, cl->common.classid, NULL);
	return p->leaf ? 0 : -ENOMEM;
}

/**
 * htbx_mq_change_real_num_tx - the device uses @n TX queues from now on
 * @sch: the htbx qdisc, in mq mode and the device's root
 * @n: the device's new real_num_tx_queues
 *
 * Called by the stack under RTNL before the device uses the new count
 * (netif_set_real_num_tx_queues(), on ethtool -L). More queues than the
 * classes have nodes for: every class gets a node on each new queue,
 * set up and allocated first, then linked into each new queue's tree
 * under that queue's lock, parents before children; the shared buckets are left
 * as they are, so the new nodes spend the class's tokens and add none.
 * Fewer: nothing changes here; the stack resets the queues above @n
 * (what they held is counted as dropped), and their nodes stay, idle,
 * for when the device uses them again. Without memory for the new nodes
 * the count stays, and the packets the stack sends to the new queues are
 * dropped and counted as such; a later change tries again.
 */
void htbx_mq_change_real_num_tx(struct Qdisc *sch, unsigned int n)
{
	struct htbx_sched *q = qdisc_priv(sch);
	unsigned int from = q->nq, h, i, k;
	struct htbx_node ***grown, **old;
	int depth;
	struct htbx_class *cl, *parent;
	struct htbx_node *p;
	u64 now;

	if (n <= from || n > qdisc_dev(sch)->num_tx_queues)
		return;
	grown = kvcalloc(q->clhash.hashelems ?: 1, sizeof(*grown),
			 GFP_KERNEL_ACCOUNT);
	if (!grown)
		goto nomem;
	/* RTNL keeps the hash of classes as it is: the same order twice */
	k = 0;
	for (h = 0; h < q->clhash.hashsize; h++) {
		hlist_for_each_entry(cl, &q->clhash.hash[h], common.hnode) {
			grown[k] = htbx_mq_nodes_new(cl->mq_nodes, from, n);
			if (!grown[k])
				goto undo;
			for (i = from; i < n; i++)
				if (htbx_mq_node_prepare(sch, cl,
							 grown[k][i - 1], i)) {
					k++;
					goto undo;
				}
			k++;
		}
	}

	/*
	 * The larger arrays first: a queue below @from that sends meanwhile
	 * reads the old array or the new one, with its node in both.
	 */
	k = 0;
	for (h = 0; h < q->clhash.hashsize; h++) {
		hlist_for_each_entry(cl, &q->clhash.hash[h], common.hnode) {
			old = cl->mq_nodes;
			WRITE_ONCE(cl->mq_nodes, grown[k]);
			grown[k++] = old;
		}
	}
	/*
	 * Then each new queue's nodes, linked under that queue's lock,
	 * parents first; the queue takes packets once they all are.
	 */
	for (i = from; i < n; i++) {
		spin_lock_bh(qdisc_lock(q->queue_qdiscs[i]));
		now = htbx_clock_ns();
		for (depth = 0; depth < HTBX_CORE_MAXDEPTH; depth++) {
			for (h = 0; h < q->clhash.hashsize; h++) {
				hlist_for_each_entry(cl, &q->clhash.hash[h],
						     common.hnode) {
					if (htbx_depth(cl->parent) != depth)
						continue;
					parent = cl->parent;
					p = htbx_node_at(cl, i);
					htbx_core_add(&p->queue->core, &p->core,
						      parent ?
						      &htbx_node_at(parent, i)->core :
						      NULL, now);
				}
			}
		}
		spin_unlock_bh(qdisc_lock(q->queue_qdiscs[i]));
		WRITE_ONCE(q->nq, i + 1);
	}
	htbx_mq_quiesce(q, from);

	/* the old arrays; their nodes are the new arrays' */
	for (h = 0; h < q->clhash.hashelems; h++)
		kfree(grown[h]);
	kvfree(grown);
	return;

undo:
	/* grown[0 .. k - 1]: the new nodes are freed, the old ones kept */
	while (k-- > 0)
		htbx_mq_nodes_put(grown[k], from, n);
	kvfree(grown);
nomem:
	netdev_warn(qdisc_dev(sch), "htbx: no memory for nodes on TX queues %u..%u: their packets are dropped\n",
		    from, n - 1);
}

/* ---- dumps: the sums of the queues ---- */

/* mq: add what node @p counted to a class's @qs, @xs and @qlen. */
static void htbx_node_stats(const struct htbx_node *p,
			    struct gnet_stats_queue *qs,
			    struct tc_htbx_xstats *xs, __u32 *qlen)
{
	__u32 n = 0, b = 0;

	qs->drops += p->drops;
	qs->overlimits += p->core.overlimits;
	xs->lends += p->core.lends;
	xs->borrows += p->core.borrows;
	xs->giants += p->core.giants;
	if (!p->core.level)
		xs->deficit += p->core.deficit[0];
	if (p->leaf) {
		qdisc_qstats_qlen_backlog(p->leaf, &n, &b);
		*qlen += n;
		qs->backlog += b;
		qs->requeues += p->leaf->qstats.requeues;
	}
}

/*
 * A class's counts on every queue, for its dump: each queue's node under
 * that queue's lock, one queue at a time, as mq_dump() reads its queues:
 * the data path counts without marked accesses (a marked increment costs
 * single-queue mode two instructions per level and packet). The deficit
 * is the queues' sum too. The tokens and the mode are the class's
 * buckets', which every queue spends: queue 0's node alone may be idle
 * with full tokens while the class is in debt on the others.
 */
void htbx_mq_class_stats(struct Qdisc *sch, struct htbx_class *cl,
			 struct gnet_stats_queue *qs,
			 struct tc_htbx_xstats *xs, __u32 *qlen)
{
	struct htbx_sched *q = qdisc_priv(sch);
	unsigned int i;
	s64 wait;
	u64 now;

	now = htbx_clock_ns();
	htbx_share_toks(&cl->node.core, now, &xs->tokens, &xs->ctokens);
	xs->mode = htbx_core_mode(&cl->node.core, now, &wait);
	xs->lends = xs->borrows = xs->giants = 0;
	xs->deficit = 0;
	for (i = 0; i < q->nq; i++) {
		if (!q->queue_qdiscs[i])
			continue;	/* the qdisc is going */
		htbx_dump_lock(q->queue_qdiscs[i], i);
		htbx_node_stats(htbx_node_at(cl, i), qs, xs, qlen);
		htbx_dump_unlock(q->queue_qdiscs[i], i);
	}
}

/*
 * mq: the qdisc's own counters are its queues' sums, made for each dump
 * (as mq_dump makes them), and so are the scheduler counters.
 */
void htbx_mq_sum(struct Qdisc *sch, u64 *direct_pkts, u64 *budget_hits)
{
	struct htbx_sched *q = qdisc_priv(sch);
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats = {};
	struct htbx_queue *t;
	struct Qdisc *s;
	unsigned int i;
	u32 qlen = 0;

	gnet_stats_basic_sync_init(&bstats);
	*direct_pkts = 0;
	*budget_hits = 0;
	/* every queue: one above the nodes counts its drops */
	for (i = 0; i < qdisc_dev(sch)->num_tx_queues; i++) {
		/* gone already when the qdisc is being deleted */
		s = q->queue_qdiscs[i];
		if (!s)
			continue;
		t = qdisc_priv(s);
		spin_lock_bh(qdisc_lock(s));
		htbx_bstats_add(&bstats, &s->bstats);
		qstats.backlog += s->qstats.backlog;
		qstats.drops += s->qstats.drops;
		qstats.requeues += s->qstats.requeues;
		qstats.overlimits += t->core.overlimits;
		qlen += s->q.qlen;
		*direct_pkts += t->direct_pkts;
		*budget_hits += t->core.budget_hits;
		spin_unlock_bh(qdisc_lock(s));
	}
	/*
	 * The leaf the user grafted, on queue 0, reports what it drops up
	 * the tree (qdisc_tree_reduce_backlog()) to this qdisc's counters,
	 * under queue 0's lock; so they are written under it here too. The
	 * copies on the other queues report nothing (TCQ_F_NOPARENT).
	 */
	s = q->queue_qdiscs[0];
	if (!s)
		return;	/* the qdisc is going: the last sums stay */
	spin_lock_bh(qdisc_lock(s));
	gnet_stats_basic_sync_init(&sch->bstats);
	htbx_bstats_add(&sch->bstats, &bstats);
	sch->qstats = qstats;
	sch->q.qlen = qlen;
	spin_unlock_bh(qdisc_lock(s));
}
