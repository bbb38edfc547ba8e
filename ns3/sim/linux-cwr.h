/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ECNSHARP_NS3_LINUX_CWR_H
#define ECNSHARP_NS3_LINUX_CWR_H

#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-recovery-ops.h"

#include <functional>

namespace ns3
{
namespace dc
{

/* A cwnd reduction (CWR after an ECN echo, and loss recovery) as Linux 6.12 makes it, for the
 * senders that defer as Linux's do (tso-defer.h, --tsoDefer=2). Two differences from ns-3.37
 * decide what a deferring sender does while cwnd is reduced (docs/results/ns3/validation.md,
 * round 4):
 * - PRR (tcp_cwnd_reduction in net/ipv4/tcp_input.c): once in flight is at or below ssthresh,
 *   Linux may send the credit not yet used (delivered minus sent, plus one segment); ns-3.37's
 *   TcpPrrRecovery allows only what this ACK delivered, so a sender that deferred never
 *   catches up. The proportional part scales by cwnd at entry (prior_cwnd), not by the bytes
 *   in flight then.
 * - DCTCP's ssthresh (dctcp_ssthresh in net/ipv4/tcp_dctcp.c) is at least 2 segments.
 * - cwnd grows only while the sender is cwnd-limited (tcp_is_cwnd_limited): `cwndLimited`, given
 *   by the socket, answers that; ns-3.37 grows cwnd on every ACK, so a flow that its NIC or the
 *   receiver's window limits grows it without bound. */
Ptr<TcpRecoveryOps> CreateLinuxPrr();
Ptr<TcpCongestionOps> CreateLinuxDctcp(std::function<bool()> cwndLimited);

} // namespace dc
} // namespace ns3

#endif
