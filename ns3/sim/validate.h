/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The validation scenario (docs/results/ns3/validation.md): 2-4 long-lived DCTCP senders with
 * different base RTTs into one 10 Gbit/s switch port, a probe host sending short flows through
 * the same port, everything measured so that the same run on the Linux stack can be put beside
 * it: the bottleneck queue (exact time-weighted distribution, from every change), each packet's
 * sojourn, each sender's cwnd every 100 us, marks by cause, host marks, goodput, probe FCTs.
 */
#ifndef ECNSHARP_SIM_VALIDATE_H
#define ECNSHARP_SIM_VALIDATE_H

#include "traffic.h"

#include <string>

namespace ns3
{
namespace dc
{

struct ValidateArgs
{
    uint32_t senders = 2;
    std::string classes = "0,4"; /* host-delay class of each sender (1 and 160 us) */
    double duration = 1.0;      /* s of long-lived flows */
    double warmup = 0.2;        /* s before the measurement window */
    uint32_t probeSize = 20000; /* bytes */
    double probeEvery = 0.005;  /* s */
    double joinAt = 0;          /* > 0: the last sender starts then, the others alone before */
    std::string out;            /* PREFIX for .queue .cwnd .fct .hist; empty: none */
    double traceMs = 0;         /* > 0: PREFIX.pkts, every packet of this many ms from warmup */
    std::string scheme;
    std::string ruleText;
};

/* Hosts 1..senders send, host senders+1 probes, host 0 receives. Prints the result line. */
int RunValidation(const Fabric& fabric, const ValidateArgs& a);

} // namespace dc
} // namespace ns3

#endif
