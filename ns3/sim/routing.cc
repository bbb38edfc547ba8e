/* SPDX-License-Identifier: GPL-2.0-only */
#include "routing.h"

#include "ns3/ipv4-route.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HashRouting);

TypeId
HashRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcnSharpHashRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Internet")
                            .AddConstructor<HashRouting>();
    return tid;
}

void
HashRouting::AddRoute(Ipv4Address net, Ipv4Mask mask,
                      std::vector<std::pair<uint32_t, Ipv4Address>> hops)
{
    m_table.push_back({net, mask, std::move(hops)});
}

void
HashRouting::SetSalt(uint64_t salt)
{
    m_salt = salt;
}

void
HashRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
    Forget();
}

void
HashRouting::DoDispose()
{
    Forget(); /* the devices it holds */
    m_ipv4 = nullptr;
    Ipv4RoutingProtocol::DoDispose();
}

void
HashRouting::Forget()
{
    m_ifaceOfDevice.clear();
    m_isLocal.clear();
    m_out.clear();
}

uint32_t
HashRouting::InterfaceOf(Ptr<const NetDevice> idev)
{
    uint32_t dev = idev->GetIfIndex();
    if (dev < m_ifaceOfDevice.size() && m_ifaceOfDevice[dev] >= 0)
    {
        return static_cast<uint32_t>(m_ifaceOfDevice[dev]);
    }
    int32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    if (iif >= 0) /* a device without an interface may get one: not remembered */
    {
        if (dev >= m_ifaceOfDevice.size())
        {
            m_ifaceOfDevice.resize(dev + 1, -1);
        }
        m_ifaceOfDevice[dev] = iif;
    }
    return static_cast<uint32_t>(iif);
}

bool
HashRouting::IsLocal(Ipv4Address dst, uint32_t iif)
{
    uint64_t key = (uint64_t(dst.Get()) << 32) | iif;
    auto it = m_isLocal.find(key);
    if (it == m_isLocal.end())
    {
        it = m_isLocal.emplace(key, m_ipv4->IsDestinationAddress(dst, iif)).first;
    }
    return it->second;
}

const HashRouting::Out&
HashRouting::OutOf(uint32_t iface)
{
    if (iface >= m_out.size())
    {
        m_out.resize(iface + 1);
    }
    if (!m_out[iface].first)
    {
        m_out[iface] = {true,
                        {m_ipv4->GetAddress(iface, 0).GetLocal(), m_ipv4->GetNetDevice(iface)}};
    }
    return m_out[iface].second;
}

void
HashRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const
{
    for (const auto& e : m_table)
    {
        *stream->GetStream() << e.net << "/" << e.mask.GetPrefixLength() << " via";
        for (const auto& h : e.hops)
        {
            *stream->GetStream() << " if" << h.first << ":" << h.second;
        }
        *stream->GetStream() << "\n";
    }
}

static uint64_t
Mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Ptr<Ipv4Route>
HashRouting::Lookup(const Ipv4Header& header, Ptr<const Packet> p)
{
    Ipv4Address dst = header.GetDestination();
    for (const auto& e : m_table)
    {
        if (!e.mask.IsMatch(dst, e.net) || e.hops.empty())
        {
            continue;
        }
        size_t pick = 0;
        if (e.hops.size() > 1)
        {
            uint8_t ports[4] = {0, 0, 0, 0};
            if (p && p->GetSize() >= 4 && (header.GetProtocol() == 6 || header.GetProtocol() == 17))
            {
                p->CopyData(ports, 4);
            }
            uint64_t key = (uint64_t(header.GetSource().Get()) << 32) | dst.Get();
            uint64_t rest = (uint64_t(header.GetProtocol()) << 32) | (uint64_t(ports[0]) << 24) |
                            (uint64_t(ports[1]) << 16) | (uint64_t(ports[2]) << 8) | ports[3];
            pick = Mix(Mix(key ^ m_salt) ^ rest) % e.hops.size();
        }
        const Out& out = OutOf(e.hops[pick].first);
        Ptr<Ipv4Route> route = Create<Ipv4Route>();
        route->SetDestination(dst);
        route->SetGateway(e.hops[pick].second);
        route->SetSource(out.source);
        route->SetOutputDevice(out.device);
        return route;
    }
    return nullptr;
}

Ptr<Ipv4Route>
HashRouting::RouteOutput(Ptr<Packet> p, const Ipv4Header& header, Ptr<NetDevice> oif,
                         Socket::SocketErrno& sockerr)
{
    Ptr<Ipv4Route> route = Lookup(header, p);
    sockerr = route ? Socket::ERROR_NOTERROR : Socket::ERROR_NOROUTETOHOST;
    return route;
}

bool
HashRouting::RouteInput(Ptr<const Packet> p, const Ipv4Header& header, Ptr<const NetDevice> idev,
                        UnicastForwardCallback ucb, MulticastForwardCallback mcb,
                        LocalDeliverCallback lcb, ErrorCallback ecb)
{
    uint32_t iif = InterfaceOf(idev);
    if (IsLocal(header.GetDestination(), iif))
    {
        lcb(p, header, iif);
        return true;
    }
    Ptr<Ipv4Route> route = Lookup(header, p);
    if (!route)
    {
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return true;
    }
    ucb(route, p, header);
    return true;
}

HashRoutingHelper*
HashRoutingHelper::Copy() const
{
    return new HashRoutingHelper(*this);
}

Ptr<Ipv4RoutingProtocol>
HashRoutingHelper::Create(Ptr<Node> node) const
{
    return CreateObject<HashRouting>();
}

} // namespace ns3
