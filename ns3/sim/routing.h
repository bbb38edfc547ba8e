/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-flow ECMP for the simulated fabric. ns-3.37's global routing spreads equal-cost paths per
 * packet only (RandomEcmpRouting), which reorders TCP; switches hash the 5-tuple instead, so
 * one flow keeps one path. HashRouting holds an explicit table (prefix -> next hops, first
 * match wins) that the topology builder fills, and picks among next hops by a hash of the
 * addresses, protocol and ports salted per node (so that tiers do not choose alike).
 */
#ifndef ECNSHARP_SIM_ROUTING_H
#define ECNSHARP_SIM_ROUTING_H

#include "ns3/ipv4-routing-helper.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

class HashRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();
    /* Packets to `net`/`mask` leave by one of (interface, gateway), chosen per flow. */
    void AddRoute(Ipv4Address net, Ipv4Mask mask, std::vector<std::pair<uint32_t, Ipv4Address>> hops);
    void SetSalt(uint64_t salt);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p, const Ipv4Header& header, Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& header, Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb, MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb, ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t) override { Forget(); }
    void NotifyInterfaceDown(uint32_t) override { Forget(); }
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override { Forget(); }
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override { Forget(); }
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const override;

  private:
    struct Entry
    {
        Ipv4Address net;
        Ipv4Mask mask;
        std::vector<std::pair<uint32_t, Ipv4Address>> hops;
    };
    /* What a route out of one interface carries besides its destination and gateway. */
    struct Out
    {
        Ipv4Address source;
        Ptr<NetDevice> device;
    };

    void DoDispose() override;
    Ptr<Ipv4Route> Lookup(const Ipv4Header& header, Ptr<const Packet> p);
    /* Ipv4::GetInterfaceForDevice, IsDestinationAddress and the interface's source address and
     * device, remembered: each walks every interface of the node (a switch has up to 24) for
     * every packet, and all of them change only with the interfaces and addresses, whose every
     * change reaches Forget() through the Notify* calls. */
    uint32_t InterfaceOf(Ptr<const NetDevice> idev);
    bool IsLocal(Ipv4Address dst, uint32_t iif);
    const Out& OutOf(uint32_t iface);
    void Forget();

    Ptr<Ipv4> m_ipv4;
    std::vector<Entry> m_table;
    uint64_t m_salt = 0;
    std::vector<int32_t> m_ifaceOfDevice;         /* by the device's index on the node; -1 */
    std::unordered_map<uint64_t, bool> m_isLocal; /* (dst << 32 | iif) -> for this node */
    std::vector<std::pair<bool, Out>> m_out;      /* by interface: (known, Out) */
};

class HashRoutingHelper : public Ipv4RoutingHelper
{
  public:
    HashRoutingHelper* Copy() const override;
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;
};

} // namespace ns3

#endif
