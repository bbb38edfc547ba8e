/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The end-host part of the RTT spread (paper 5.3, and the authors' simulation): each flow's
 * sender picks a delay class, carried in the DSCP of its packets, and the host holds each
 * outgoing packet for its class's delay (1, 20, 50, 80 or 160 us) before its NIC sends it, as
 * a slow stack, hypervisor or load balancer would. One FIFO per class keeps each flow in order.
 *
 * MarkAbove (off by default): a packet that waited more than its class's delay plus MarkAbove
 * because the NIC was busy is CE-marked. ns-3.37's TCP grows cwnd on every ACK even when the
 * NIC, not cwnd, limits the flow (Linux grows it only when cwnd-limited, and TSQ keeps the
 * host's backlog small), so a flow alone on its path would otherwise fill the host with its
 * whole send buffer and reach the switches with a window of megabytes; see
 * docs/results/ns3/README.md ("The queue").
 */
#ifndef ECNSHARP_SIM_HOST_DELAY_H
#define ECNSHARP_SIM_HOST_DELAY_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <vector>

namespace ns3
{

class HostDelayQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    HostDelayQueueDisc();
    /* The extra delay of each DSCP class (DSCP d uses class min(d, size-1)). */
    static const std::vector<Time>& Delays();

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override {}
    void DoDispose() override;
    void Wake();
    EventId m_wake;
    Time m_markAbove; /* 0: never mark */
};

} // namespace ns3

#endif
