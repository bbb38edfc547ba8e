/* SPDX-License-Identifier: GPL-2.0-only */
#include "traffic.h"

#include "routing.h"
#include "sink.h"
#include "tso-defer.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ns3
{
namespace dc
{

std::vector<Flow> g_flows;
NodeContainer g_hosts;
uint32_t g_tsoDefer = 0;
bool g_tsq = false;
bool g_ecnAudit = false;
std::vector<Ipv4Address> g_hostAddr;

namespace
{

std::map<uint64_t, size_t> g_flowOf; /* (src address << 16 | port) -> flow */
std::vector<uint16_t> g_nextPort;
std::vector<Ptr<HostDelayQueueDisc>> g_hostQueues;
size_t g_pending = 0;
Time g_notBefore;

void
SendMore(size_t f)
{
    Flow& flow = g_flows[f];
    while (flow.unsent > 0)
    {
        uint32_t room = flow.socket->GetTxAvailable();
        if (room == 0)
        {
            return;
        }
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({flow.unsent, room, 65536}));
        int sent = flow.socket->Send(Create<Packet>(n));
        if (sent <= 0)
        {
            return;
        }
        flow.unsent -= sent;
    }
    flow.socket->Close();
}

void
Connected(size_t f, Ptr<Socket>)
{
    SendMore(f);
}

void
SpaceFreed(size_t f, Ptr<Socket>, uint32_t)
{
    SendMore(f);
}

void
CwndChanged(size_t f, uint32_t, uint32_t cwnd)
{
    g_flows[f].cwnd = cwnd;
}

void
CongStateChanged(size_t f, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_flows[f].losses++;
    }
}

void
Sent(size_t f, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if ((h.GetFlags() & TcpHeader::SYN) && !(h.GetFlags() & TcpHeader::ACK))
    {
        g_flows[f].syns++;
    }
}

void
AckIn(size_t f, Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if ((h.GetFlags() & TcpHeader::ECE) && !(h.GetFlags() & TcpHeader::SYN))
    {
        g_flows[f].eceIn++;
    }
}

/* Every packet a host's IP layer receives, its IPv4 header still on. */
void
IpIn(Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    Ptr<Packet> c = p->Copy();
    Ipv4Header ip;
    c->RemoveHeader(ip);
    if (ip.GetEcn() != Ipv4Header::ECN_CE || ip.GetProtocol() != TcpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    TcpHeader tcp;
    c->RemoveHeader(tcp);
    auto it = g_flowOf.find((uint64_t(ip.GetSource().Get()) << 16) | tcp.GetSourcePort());
    if (c->GetSize() > 0 && it != g_flowOf.end())
    {
        g_flows[it->second].ceIn++;
    }
}

void
StartFlow(size_t f)
{
    Flow& flow = g_flows[f];
    Ptr<Socket> s = g_tsoDefer
                        ? CreateDeferringSocket(g_hosts.Get(flow.src), g_tsoDefer,
                                                g_tsq ? g_hostQueues[flow.src] : nullptr,
                                                flow.port)
                        : Socket::CreateSocket(g_hosts.Get(flow.src), TcpSocketFactory::GetTypeId());
    flow.socket = s;
    flow.unsent = flow.size;
    s->Bind(InetSocketAddress(Ipv4Address::GetAny(), flow.port));
    s->SetConnectCallback(MakeBoundCallback(&Connected, f), MakeNullCallback<void, Ptr<Socket>>());
    s->SetSendCallback(MakeBoundCallback(&SpaceFreed, f));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&CwndChanged, f));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongStateChanged, f));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&Sent, f));
    if (g_ecnAudit)
    {
        s->TraceConnectWithoutContext("Rx", MakeBoundCallback(&AckIn, f));
    }
    s->Connect(InetSocketAddress(g_hostAddr[flow.dst], kSinkPort));
}

void
SinkRx(Ptr<const Packet> p, const Address& from)
{
    InetSocketAddress a = InetSocketAddress::ConvertFrom(from);
    auto it = g_flowOf.find((uint64_t(a.GetIpv4().Get()) << 16) | a.GetPort());
    if (it == g_flowOf.end())
    {
        return;
    }
    Flow& flow = g_flows[it->second];
    flow.received += p->GetSize();
    if (flow.received >= flow.size && flow.done == Time::Max())
    {
        flow.done = Simulator::Now();
        if (--g_pending == 0)
        {
            Simulator::Stop(std::max(g_notBefore - Simulator::Now(), Time(0)));
        }
    }
}

Ipv4Address
Addr(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return Ipv4Address((a << 24) | (b << 16) | (c << 8) | d);
}

} // namespace

void
Cdf::Load(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_IF(!in, "cannot read CDF " << path);
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream ss(line);
        double x;
        double p;
        NS_ABORT_MSG_UNLESS(ss >> x >> p, "bad CDF line in " << path << ": " << line);
        points.emplace_back(x, p);
    }
    NS_ABORT_MSG_IF(points.size() < 2, "empty CDF " << path);
}

double
Cdf::Sample(double u) const
{
    for (size_t i = 1; i < points.size(); i++)
    {
        if (u <= points[i].second)
        {
            auto [x0, p0] = points[i - 1];
            auto [x1, p1] = points[i];
            return p1 > p0 ? x0 + (x1 - x0) * (u - p0) / (p1 - p0) : x1;
        }
    }
    return points.back().first;
}

double
Cdf::Mean() const
{
    double m = 0;
    for (size_t i = 1; i < points.size(); i++)
    {
        m += (points[i].first + points[i - 1].first) / 2 * (points[i].second - points[i - 1].second);
    }
    return m;
}

void
ConfigureTcp()
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpDctcp")));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MilliSeconds(5)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(5)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(10)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(MicroSeconds(200)));
}

/* Leaf l's host h: 10.l.h.0/24 (leaf .1, host .2); leaf l to spine s: 11.l.s.0/24. */
Fabric
BuildFabric(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines)
{
    NodeContainer leafNodes;
    NodeContainer spineNodes;
    leafNodes.Create(leaves);
    spineNodes.Create(spines);
    g_hosts.Create(leaves * hostsPerLeaf);
    InternetStackHelper stack;
    HashRoutingHelper routing;
    stack.SetRoutingHelper(routing);
    stack.Install(g_hosts);
    stack.Install(leafNodes);
    stack.Install(spineNodes);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(kLinkBps)));
    p2p.SetChannelAttribute("Delay", TimeValue(LinkDelay()));
    /* One packet in the device so that the backlog sits in the queue disc. */
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    Fabric fabric;
    auto routingOf = [](Ptr<Node> n) {
        return DynamicCast<HashRouting>(n->GetObject<Ipv4>()->GetRoutingProtocol());
    };
    auto ifaceOf = [](Ptr<NetDevice> d) {
        return d->GetNode()->GetObject<Ipv4>()->GetInterfaceForDevice(d);
    };
    /* Our discs go on first: Ipv4AddressHelper::Assign adds FqCoDel where there is none. */
    auto ecnsharp = [&fabric](Ptr<NetDevice> d) {
        TrafficControlHelper tch;
        tch.SetRootQueueDisc("ns3::EcnSharpQueueDisc");
        QueueDiscContainer q = tch.Install(d);
        Ptr<EcnSharpQueueDisc> disc = DynamicCast<EcnSharpQueueDisc>(q.Get(0));
        fabric.switchPorts.push_back(disc);
        return disc;
    };
    g_hostAddr.resize(g_hosts.GetN());
    for (uint32_t l = 0; l < leaves; l++)
    {
        Ptr<Node> leaf = leafNodes.Get(l);
        std::vector<std::pair<uint32_t, Ipv4Address>> up;
        for (uint32_t h = 0; h < hostsPerLeaf; h++)
        {
            uint32_t i = l * hostsPerLeaf + h;
            NetDeviceContainer d = p2p.Install(leaf, g_hosts.Get(i));
            fabric.downlinks.push_back(ecnsharp(d.Get(0)));
            TrafficControlHelper host;
            host.SetRootQueueDisc("ns3::EcnSharpHostDelayQueueDisc");
            fabric.hostQueues.push_back(
                DynamicCast<HostDelayQueueDisc>(host.Install(d.Get(1)).Get(0)));
            Ipv4AddressHelper a;
            a.SetBase(Addr(10, l, h, 0), "255.255.255.0");
            a.Assign(d);
            g_hostAddr[i] = Addr(10, l, h, 2);
            routingOf(g_hosts.Get(i))->AddRoute(Ipv4Address("0.0.0.0"), Ipv4Mask("0.0.0.0"),
                                                 {{ifaceOf(d.Get(1)), Addr(10, l, h, 1)}});
            routingOf(leaf)->AddRoute(Addr(10, l, h, 0), Ipv4Mask("255.255.255.0"),
                                      {{ifaceOf(d.Get(0)), Addr(10, l, h, 2)}});
        }
        for (uint32_t s = 0; s < spines; s++)
        {
            Ptr<Node> spine = spineNodes.Get(s);
            NetDeviceContainer d = p2p.Install(leaf, spine);
            ecnsharp(d.Get(0));
            ecnsharp(d.Get(1));
            Ipv4AddressHelper a;
            a.SetBase(Addr(11, l, s, 0), "255.255.255.0");
            a.Assign(d);
            up.push_back({ifaceOf(d.Get(0)), Addr(11, l, s, 2)});
            routingOf(spine)->AddRoute(Addr(10, l, 0, 0), Ipv4Mask("255.255.0.0"),
                                       {{ifaceOf(d.Get(1)), Addr(11, l, s, 1)}});
        }
        if (!up.empty())
        {
            routingOf(leaf)->AddRoute(Ipv4Address("10.0.0.0"), Ipv4Mask("255.0.0.0"), up);
        }
    }
    for (uint32_t n = 0; n < NodeList::GetNNodes(); n++)
    {
        routingOf(NodeList::GetNode(n))->SetSalt(0x9e3779b97f4a7c15ULL * (n + 1));
    }
    for (uint32_t i = 0; i < g_hosts.GetN(); i++)
    {
        InstallSink(g_hosts.Get(i), kSinkPort, MakeCallback(&SinkRx));
        if (g_ecnAudit)
        {
            g_hosts.Get(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
                "Rx", MakeCallback(&IpIn));
        }
    }
    g_nextPort.assign(g_hosts.GetN(), 10000);
    g_hostQueues = fabric.hostQueues;
    return fabric;
}

size_t
AddFlow(uint32_t src, uint32_t dst, uint64_t size, Time start, uint8_t delayClass, bool query)
{
    Flow f;
    f.src = src;
    f.dst = dst;
    f.size = std::max<uint64_t>(size, 1);
    f.start = start;
    f.delayClass = delayClass;
    NS_ABORT_MSG_IF(g_nextPort[src] == 0xffff, "host " << src << " ran out of ports");
    f.port = g_nextPort[src]++;
    g_hostQueues[src]->SetPortClass(f.port, delayClass);
    f.query = query;
    g_flowOf[(uint64_t(g_hostAddr[src].Get()) << 16) | f.port] = g_flows.size();
    g_flows.push_back(f);
    return g_flows.size() - 1;
}

void
ScheduleFlows(Time notBefore)
{
    g_notBefore = notBefore;
    for (size_t f = 0; f < g_flows.size(); f++)
    {
        Simulator::Schedule(g_flows[f].start, &StartFlow, f);
    }
    g_pending = g_flows.size();
}

size_t
FlowsMarked()
{
    return std::count_if(g_flows.begin(), g_flows.end(), [](const Flow& f) { return f.ceIn > 0; });
}

/* A per-flow counter summed over every flow. */
static uint64_t
SumOver(uint32_t Flow::*counter)
{
    uint64_t n = 0;
    for (const Flow& f : g_flows)
    {
        n += f.*counter;
    }
    return n;
}

uint64_t
CeSegments()
{
    return SumOver(&Flow::ceIn);
}

uint64_t
EceAcks()
{
    return SumOver(&Flow::eceIn);
}

size_t
FlowsUnechoed()
{
    return std::count_if(g_flows.begin(), g_flows.end(),
                         [](const Flow& f) { return f.ceIn > 0 && f.eceIn == 0; });
}

} // namespace dc
} // namespace ns3
