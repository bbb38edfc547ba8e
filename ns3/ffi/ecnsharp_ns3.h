/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ecnsharp_ns3.h: the C ABI of libecnsharp_ns3.a (ns3/ffi/src/lib.rs), the ecnsharp core's
 * engine for ns3::EcnSharpQueueDisc. The caller owns the engine's memory
 * (ECNSHARP_ENGINE_STORAGE bytes aligned to ECNSHARP_ENGINE_ALIGN, checked at run time against
 * ecnsharp_engine_size()/ecnsharp_engine_align()); nothing allocates per packet.
 * A Rust test (ns3/ffi/src/tests.rs) checks these declarations against the Rust side.
 */
#ifndef ECNSHARP_NS3_H
#define ECNSHARP_NS3_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ECNSHARP_ENGINE_STORAGE 8192
#define ECNSHARP_ENGINE_ALIGN 16

#define ECNSHARP_EINVAL (-22)
#define ECNSHARP_QUEUE 0
#define ECNSHARP_DROP_LIMIT 1
#define ECNSHARP_DROP_NONECT 2
#define ECNSHARP_SEND 0

/* Mark cause bits (CauseSet), in the order of the xstats' per-cause counters. */
#define ECNSHARP_MARK_INSTANTANEOUS (1u << 0)
#define ECNSHARP_MARK_PERSISTENT (1u << 1)
#define ECNSHARP_MARK_QUEUE_ENQUEUE (1u << 2)
#define ECNSHARP_MARK_QUEUE_DEQUEUE (1u << 3)
#define ECNSHARP_MARK_PROBABILISTIC (1u << 4)

struct ecnsharp_stats {
	uint64_t enqueued;
	uint64_t packets;
	uint64_t bytes;
	uint64_t qlen;
	uint64_t backlog;
	uint64_t drops_limit;
	uint64_t drops_nonect;
	uint64_t marks;
	uint64_t marks_by_cause[5];
	uint64_t ce_already;
	uint64_t nonect_passed;
	uint64_t throttles;
};

size_t ecnsharp_engine_size(void);
size_t ecnsharp_engine_align(void);
int32_t ecnsharp_engine_init(uint8_t *engine, size_t nwords, const char *const *words,
			     uint32_t random_seed, uint32_t mtu, char *err, size_t errlen);
int32_t ecnsharp_option_default(const char *keyword, char *out, size_t outlen);
void ecnsharp_engine_config_text(const uint8_t *engine, char *out, size_t outlen);
uint32_t ecnsharp_engine_bands(const uint8_t *engine);
int32_t ecnsharp_engine_enqueue(uint8_t *engine, uint32_t len, uint32_t priority, int32_t dsfield,
				uint8_t *band, uint8_t *mark);
int32_t ecnsharp_engine_select(uint8_t *engine);
int32_t ecnsharp_engine_shaper_delay(uint8_t *engine, uint64_t now, uint32_t head_len,
				     uint64_t *at);
int32_t ecnsharp_engine_dequeue(uint8_t *engine, uint64_t now, uint32_t band, uint32_t len,
				uint64_t enqueued_at, int32_t dsfield, int64_t next_head_len,
				uint8_t *mark);
void ecnsharp_engine_flush_band(uint8_t *engine, uint32_t band);
void ecnsharp_engine_stats(const uint8_t *engine, struct ecnsharp_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* ECNSHARP_NS3_H */
