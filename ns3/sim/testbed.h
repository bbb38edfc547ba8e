/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --scenario=testbed: the User-Mode Linux testbed's `flows` scenario (tests/uml/testbed/,
 * docs/results/uml/README.md) in ns-3, so that the ns-3 sender and host models can be compared
 * with the real Linux stack where each sender carries several flows (validation.md, round 5):
 * 7 senders and 1 receiver on one switch, 10 Gbit/s; each flow from a random sender, with an
 * RTT class drawn from the testbed's long tail (params.sh RTT_CLASSES, 3x: 70-210 us, mean
 * 86.6 us, p90 200 us), made by its sender's host delay; Poisson arrivals at --load of the
 * receiver's link until --shortFlows flows under 100 KB have arrived.
 * What it does not copy: the testbed delays the data after the bottleneck (here before the
 * sender's NIC), its receiver asks for each flow (here the sender connects and sends) and its
 * senders use TSO.
 */
#ifndef ECNSHARP_SIM_TESTBED_H
#define ECNSHARP_SIM_TESTBED_H

#include "traffic.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{
namespace dc
{

/* The host delays that give the testbed's RTT classes on this topology (class 0, 1 us, stays
 * for ACKs; classes 1-6 are the testbed's), from the path's base RTT of class 0. */
std::vector<Time> TestbedDelays(Time class0Rtt, Time class0Delay);
/* The classes' RTTs' weighted mean and 90th percentile (86.6 and 200 us). */
Time TestbedRttMean();
Time TestbedRttP90();
/* Flows from hosts 1..senders to host 0; returns the last arrival's time. */
Time TestbedArrivals(const Cdf& cdf, uint32_t senders, double load, uint32_t shortFlows,
                     uint32_t seed);

} // namespace dc
} // namespace ns3

#endif
