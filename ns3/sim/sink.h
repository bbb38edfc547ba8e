/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ECNSHARP_NS3_SINK_H
#define ECNSHARP_NS3_SINK_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/packet.h"

namespace ns3
{
namespace dc
{

/* A TCP sink on `port` of `node` (as ns-3's PacketSink: accepts every connection and reads all
 * it receives, `rx` per read) whose connections each start with their own ECN state.
 *
 * ns-3.37's listening socket runs ForwardUp's CE check on every segment it is handed, stray
 * segments of connections already closed included, and keeps the highest CE-marked sequence
 * number it saw (m_ecnCESeq); each connection it forks copies that number and ignores CE below
 * it. Every connection's sequence numbers start at 0, so a connection accepted after a stray
 * CE-marked segment at 7.5 MB echoed no mark over its first 7.5 MB: short flows never, large
 * ones only after 5,000 segments of slow start (docs/results/ns3/validation.md, round 6).
 * Linux keeps no such state in a listener. The sink's connections start at 0. */
void InstallSink(Ptr<Node> node, uint16_t port,
                 Callback<void, Ptr<const Packet>, const Address&> rx);

} // namespace dc
} // namespace ns3

#endif
