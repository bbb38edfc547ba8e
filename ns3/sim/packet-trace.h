/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ECNSHARP_NS3_PACKET_TRACE_H
#define ECNSHARP_NS3_PACKET_TRACE_H

#include "traffic.h"

#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{
namespace dc
{

/* Every TCP packet of the validation scenario's senders over [from, until), one line each in
 * `path`, the instrument the Linux side's tcpdump is (ns3/pcap_dynamics.py reads both):
 *   t_ns host where seq ack flags ecn payload
 * where is "tcp" (the sender's TCP handed it to its host queue: its emission), "nic" (its NIC
 * began sending it), "ack" (it reached the sender) or "out" (the bottleneck dequeued it). */
void TracePackets(const std::string& path, const std::vector<uint32_t>& senders,
                  const Fabric& fabric, Time from, Time until);

} // namespace dc
} // namespace ns3

#endif
