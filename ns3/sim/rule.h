/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parameter rule of docs/results/ns3/rule.md, in one place: the base RTT of each host-delay
 * class computed from the modelled path, and every scheme's thresholds from one lambda applied
 * to that distribution (T_tail = lambda x p90, T_avg = lambda x mean, interval = p90).
 */
#ifndef ECNSHARP_SIM_RULE_H
#define ECNSHARP_SIM_RULE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/* Wire sizes the RTT model counts (MSS 1400 + TCP 20 + timestamps 12 + IP 20 + PPP 2). */
constexpr uint32_t kDataWireBytes = 1454;
constexpr uint32_t kAckWireBytes = 54;

/* The base RTT of each host-delay class over `hops` links each way of `bps` and `linkDelay`. */
std::vector<Time> BaseRtts(uint32_t hops, uint64_t bps, Time linkDelay);
Time MeanOf(const std::vector<Time>& rtts);
/* Smallest value whose cumulative probability (classes equally likely) reaches q. */
Time PercentileOf(std::vector<Time> rtts, double q);

/* Explicit values that override the rule (sensitivity runs); zero: the rule's. */
struct Overrides
{
    Time insTarget;
    Time pstTarget;
    Time pstInterval;
    Time codelTarget;
    Time codelInterval;
};

/* What one scheme is configured with; printed in every result line. */
struct SchemeParams
{
    std::string mode;
    Time insTarget;   /* 0: not used by the scheme */
    Time pstTarget;   /* 0: not used */
    Time pstInterval; /* 0: not used */
    uint64_t kBytes;  /* 0: not used */
    std::string Describe() const;
};

SchemeParams RuleFor(const std::string& scheme, double lambda, Time rttMean, Time rttP90,
                     uint64_t bps, const Overrides& o);

/* Sets ns3::EcnSharpQueueDisc's defaults (every switch port) to `p` and `limit` packets. */
void ApplyDefaults(const SchemeParams& p, uint32_t limit);

} // namespace ns3

#endif
