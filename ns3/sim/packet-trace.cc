/* SPDX-License-Identifier: GPL-2.0-only */
#include "packet-trace.h"

#include "host-delay.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"

#include <fstream>
#include <memory>

namespace ns3
{
namespace dc
{

namespace
{

struct Trace
{
    std::ofstream out;
    Time from;
    Time until;
};

std::shared_ptr<Trace> g_trace;

void
Write(uint32_t host, const char* where, const Ipv4Header& ip, const TcpHeader& tcp,
      uint32_t payload)
{
    Time now = Simulator::Now();
    if (now < g_trace->from || now >= g_trace->until)
    {
        return;
    }
    g_trace->out << now.GetNanoSeconds() << " " << host << " " << where << " "
                 << tcp.GetSequenceNumber().GetValue() << " "
                 << tcp.GetAckNumber().GetValue() << " " << static_cast<uint32_t>(tcp.GetFlags())
                 << " " << static_cast<uint32_t>(ip.GetEcn()) << " " << payload << "\n";
}

/* A packet on a point-to-point wire: PPP, IPv4, TCP. */
void
OnWire(uint32_t host, const char* where, Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    TcpHeader tcp;
    c->RemoveHeader(ppp);
    c->RemoveHeader(ip);
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    c->RemoveHeader(tcp);
    Write(host, where, ip, tcp, c->GetSize());
}

/* A queue disc item: its IPv4 header apart, TCP in the packet. */
void
InDisc(uint32_t host, const char* where, Ptr<const QueueDiscItem> item)
{
    Ptr<const Ipv4QueueDiscItem> i = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!i || i->GetHeader().GetProtocol() != 6)
    {
        return;
    }
    Ptr<Packet> c = i->GetPacket()->Copy();
    TcpHeader tcp;
    c->RemoveHeader(tcp);
    Write(host, where, i->GetHeader(), tcp, c->GetSize());
}

} // namespace

void
TracePackets(const std::string& path, const std::vector<uint32_t>& senders, const Fabric& fabric,
             Time from, Time until)
{
    g_trace = std::make_shared<Trace>();
    g_trace->out.open(path);
    NS_ABORT_MSG_UNLESS(g_trace->out, "cannot write " << path);
    g_trace->out << "# t_ns host where seq ack flags ecn payload\n";
    g_trace->from = from;
    g_trace->until = until;
    for (uint32_t h : senders)
    {
        fabric.hostQueues[h]->TraceConnectWithoutContext("Enqueue", MakeBoundCallback(&InDisc, h, "tcp"));
        /* Device 0 is the loopback; 1 is the host's link to its switch. */
        Ptr<NetDevice> nic = g_hosts.Get(h)->GetDevice(1);
        nic->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnWire, h, "nic"));
        nic->TraceConnectWithoutContext("PhyRxEnd", MakeBoundCallback(&OnWire, h, "ack"));
    }
    fabric.downlinks[0]->TraceConnectWithoutContext("Dequeue", MakeBoundCallback(&InDisc, 0u, "out"));
}

} // namespace dc
} // namespace ns3
