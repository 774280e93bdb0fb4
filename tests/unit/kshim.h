/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kshim.h - the few kernel types and helpers htbx_core.h needs, for the
 * userspace unit tests. Written for this harness; semantics follow the
 * kernel's (list.h, minmax.h, math64.h) closely enough for the core.
 */
#ifndef _HTBX_KSHIM_H
#define _HTBX_KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
typedef int64_t s64;

#define U32_MAX		((u32)~0U)
#define BIT(nr)		(1UL << (nr))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define noinline	__attribute__((__noinline__))

#define min_t(type, a, b) ({ type __a = (a); type __b = (b); __a < __b ? __a : __b; })
#define max_t(type, a, b) ({ type __a = (a); type __b = (b); __a > __b ? __a : __b; })
#define clamp_t(type, v, lo, hi) min_t(type, max_t(type, v, lo), hi)

/*
 * Marked accesses. The kernel's rule (KCSAN) is that two accesses to one
 * word from two CPUs, one a write, race unless both are marked
 * (READ_ONCE/WRITE_ONCE or atomics). ThreadSanitizer (tsan_mq.c) treats
 * volatile as plain, so under it they are relaxed atomics: a marked pair
 * is no race, a marked access against a plain one still is, as in KCSAN.
 */
#ifdef __SANITIZE_THREAD__
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#else
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#endif
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Counted so that tests can assert no warning fired (from any thread). */
extern unsigned long kshim_warnings;
#define WARN_ON_ONCE(cond) ({						\
	bool __c = !!(cond);						\
	if (unlikely(__c)) {						\
		__atomic_fetch_add(&kshim_warnings, 1, __ATOMIC_RELAXED); \
		fprintf(stderr, "WARN %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	}								\
	__c;								\
})

/* atomic64_t, as the kernel's (the mq buckets are shared by queues). */
typedef struct {
	s64 counter;
} atomic64_t;

static inline s64 atomic64_read(const atomic64_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic64_set(atomic64_t *v, s64 i)
{
	__atomic_store_n(&v->counter, i, __ATOMIC_RELAXED);
}

static inline s64 atomic64_add_return(s64 i, atomic64_t *v)
{
	return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST);
}

static inline void atomic64_add(s64 i, atomic64_t *v)
{
	__atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED);
}

static inline void atomic64_sub(s64 i, atomic64_t *v)
{
	__atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED);
}

static inline bool atomic64_try_cmpxchg(atomic64_t *v, s64 *old, s64 new)
{
	return __atomic_compare_exchange_n(&v->counter, old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

/*
 * The barriers the buckets' writers and readers pair. The harness runs on
 * x86, which keeps loads in order and makes every locked read-modify-write
 * a full barrier, so only the compiler must keep the order; and
 * ThreadSanitizer does not model a fence.
 */
#define smp_rmb()		__atomic_signal_fence(__ATOMIC_SEQ_CST)
#define smp_mb__before_atomic()	__atomic_signal_fence(__ATOMIC_SEQ_CST)
#define smp_mb__after_atomic()	__atomic_signal_fence(__ATOMIC_SEQ_CST)

/* atomic_t, as the kernel's (the buckets' published demand counts). */
typedef struct {
	int counter;
} atomic_t;

static inline int atomic_read(const atomic_t *v)
{
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static inline void atomic_inc(atomic_t *v)
{
	__atomic_fetch_add(&v->counter, 1, __ATOMIC_RELAXED);
}

static inline void atomic_dec(atomic_t *v)
{
	__atomic_fetch_sub(&v->counter, 1, __ATOMIC_RELAXED);
}

/*
 * A full barrier. ThreadSanitizer does not model fences: a fully ordered
 * read-modify-write of a word of its own stands in for one.
 */
extern long kshim_fence;
#define smp_mb()	((void)__atomic_fetch_add(&kshim_fence, 0, __ATOMIC_SEQ_CST))

/* Fully ordered, as the kernel's value-returning atomics. */
static inline int atomic_inc_return(atomic_t *v)
{
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

static inline int atomic_dec_return(atomic_t *v)
{
	return __atomic_sub_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

/* Index of the lowest set bit; undefined for 0, as in the kernel. */
static inline unsigned long __ffs(unsigned long w)
{
	return (unsigned long)__builtin_ctzl(w);
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *rem)
{
	*rem = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 mul_u64_u64_shr(u64 a, u64 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

/* ---- doubly linked circular lists ---- */

struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

/*
 * As CONFIG_DEBUG_LIST checks (lib/list_debug.c), but fatal: the kernel
 * BUGs on these, so the tests must never get here.
 */
static inline void __kshim_list_insert(struct list_head *n,
				       struct list_head *prev,
				       struct list_head *next)
{
	if (next->prev != prev || prev->next != next || n == prev ||
	    n == next) {
		fprintf(stderr, "list_add corruption (double add?) %p\n", (void *)n);
		abort();
	}
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *h)
{
	__kshim_list_insert(n, h, h->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *h)
{
	__kshim_list_insert(n, h->prev, h);
}

static inline void __kshim_list_unlink(struct list_head *e)
{
	if (!e->next || e->next->prev != e || e->prev->next != e) {
		fprintf(stderr, "list_del corruption %p\n", (void *)e);
		abort();
	}
	e->next->prev = e->prev;
	e->prev->next = e->next;
}

static inline void list_del(struct list_head *e)
{
	__kshim_list_unlink(e);
	e->next = NULL;
	e->prev = NULL;
}

static inline void list_del_init(struct list_head *e)
{
	__kshim_list_unlink(e);
	INIT_LIST_HEAD(e);
}

/* @n, not on a list, takes @old's place; @old is left empty. */
static inline void list_replace_init(struct list_head *old,
				     struct list_head *n)
{
	if (!old->next || old->next->prev != old || old->prev->next != old ||
	    n->next != n) {
		fprintf(stderr, "list_replace corruption %p\n", (void *)old);
		abort();
	}
	n->next = old->next;
	n->next->prev = n;
	n->prev = old->prev;
	n->prev->next = n;
	INIT_LIST_HEAD(old);
}

static inline void list_move_tail(struct list_head *e, struct list_head *h)
{
	__kshim_list_unlink(e);
	list_add_tail(e, h);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_for_each(pos, h) \
	for (pos = (h)->next; pos != (h); pos = pos->next)

#endif /* _HTBX_KSHIM_H */
