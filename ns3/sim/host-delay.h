/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end-host part of the RTT spread (paper 5.3, and the authors' simulation): each flow's
 * sender picks a delay class, registered with its host's queue by the flow's source port, and
 * the host holds each outgoing packet for its class's delay (1, 20, 50, 80 or 160 us) before its
 * NIC sends it, as a slow stack, hypervisor or load balancer would. One FIFO per class keeps each
 * flow in order. (Not by DSCP: ns-3.37's TCP socket clears a TOS set before Bind or Connect, and
 * the SYN leaves inside Connect, so a DSCP class would miss the handshake.)
 *
 * MarkAbove (off by default): a packet that waited more than its class's delay plus MarkAbove
 * because the NIC was busy is CE-marked. ns-3.37's TCP grows cwnd on every ACK even when the
 * NIC, not cwnd, limits the flow (Linux grows it only when cwnd-limited, and TSQ keeps the
 * host's backlog small), so a flow alone on its path would otherwise fill the host with its
 * whole send buffer and reach the switches with a window of megabytes; see
 * docs/results/ns3/README.md ("The queue").
 *
 * DropAbove (off by default): a packet later than that is dropped, as the Linux bench's host NIC
 * (tbf, `latency 1ms`) drops what would wait longer (validation.md, round 4).
 *
 * WatchPort (--tsq): counts one flow's packets in the host (what Linux's TCP small queues count
 * in its qdisc) and calls back whenever one leaves, as the freeing of a sent skb wakes a
 * throttled Linux socket (tso-defer.h). Packets still in their class's delay count too: on the
 * Linux testbed the delay comes after the bottleneck, so a burst waits in the host's qdisc,
 * where TSQ sees it; here it would wait in the delay, unseen, and reach the NIC all at once.
 */
#ifndef ECNSHARP_SIM_HOST_DELAY_H
#define ECNSHARP_SIM_HOST_DELAY_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include "ns3/callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class HostDelayQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    HostDelayQueueDisc();
    /* The extra delay of each class. */
    static const std::vector<Time>& Delays();
    /* Other classes (--scenario=testbed), before any host queue is built. */
    static void SetDelays(std::vector<Time> delays);
    /* Packets of the flow with this TCP/UDP source port wait in class `cls` (others in 0). */
    void SetPortClass(uint16_t port, uint32_t cls);
    /* TSQ's count for the flow with this source port, and `left` on each of its departures. */
    void WatchPort(uint16_t port, Callback<void> left);
    uint32_t HostPackets(uint16_t port) const;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    /* The next packet whose class delay is over (null if none), and by how much it is over. */
    Ptr<QueueDiscItem> DequeueDue(Time& late);
    bool CheckConfig() override;
    void InitializeParams() override {}
    void DoDispose() override;
    void Wake();
    /* The TCP/UDP source port (false if the packet has none). */
    static bool PortOf(Ptr<const QueueDiscItem> item, uint16_t& port);
    uint32_t ClassOf(uint16_t port) const;
    struct Watched
    {
        uint32_t packets; /* in the host */
        Callback<void> left;
    };
    EventId m_wake;
    Time m_markAbove; /* 0: never mark */
    Time m_dropAbove; /* 0: never drop */
    std::unordered_map<uint16_t, uint8_t> m_classOfPort;
    std::unordered_map<uint16_t, Watched> m_watched;
    /* Packets in each class's FIFO, so that DoDequeue, which runs at least twice for every
     * packet, peeks only at FIFOs that hold some (a Peek costs more than the whole choice). */
    std::vector<uint32_t> m_queued;
};

} // namespace ns3

#endif
