/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ECNSHARP_NS3_TSO_DEFER_H
#define ECNSHARP_NS3_TSO_DEFER_H

#include "host-delay.h"

#include "ns3/node.h"
#include "ns3/socket.h"

namespace ns3
{
namespace dc
{

/* A DCTCP sender socket that defers sending as Linux's TCP does (tcp_tso_should_defer in
 * net/ipv4/tcp_output.c, 6.12): TCP's buffers hold several segments even when the device has no
 * offloads, and with room for fewer than a third of cwnd (tcp_tso_win_divisor 3) it waits for
 * more ACKs unless the next one is due later than min(srtt / 2, 1 ms). Its packets then leave in
 * bursts of about cwnd / 3 (docs/results/ns3/validation.md, round 3). ns-3.37's TCP sends a
 * segment whenever one fits. Mode 1 (--tsoDefer=1) does not defer while cwnd is being reduced,
 * with ns-3.37's PRR and DCTCP; mode 2 defers then too, as Linux does, with Linux's PRR and
 * DCTCP ssthresh floor (linux-cwr.h).
 *
 * With `host` (--tsq, mode 2 only), TCP small queues as Linux 6.12 has them
 * (tcp_small_queue_check): the socket sends nothing more while its packets waiting for the
 * host's NIC are charged more than min(pacing rate x 2^-10 s, tcp_limit_output_bytes = 1 MB),
 * unless at most one skb is in flight, and sends again when one of them leaves. Throttled, it
 * is not cwnd-limited, so cwnd does not grow. Without it a flow alone on its path queues its
 * whole window at its own NIC, where nothing marks (validation.md, round 6). */
Ptr<Socket> CreateDeferringSocket(Ptr<Node> node, uint32_t mode,
                                  Ptr<HostDelayQueueDisc> host = nullptr, uint16_t port = 0);

} // namespace dc
} // namespace ns3

#endif
