/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What every ecnsharp-dc scenario shares: the fabric (hosts, switches with
 * ns3::EcnSharpQueueDisc on every port, host delay queues, per-flow ECMP), DCTCP on every
 * host, and the flows: each one a socket that sends `size` bytes to a sink, with its FCT,
 * congestion window and retransmission timeouts recorded.
 */
#ifndef ECNSHARP_SIM_TRAFFIC_H
#define ECNSHARP_SIM_TRAFFIC_H

#include "../model/ecnsharp-queue-disc.h"
#include "host-delay.h"

#include "ns3/internet-module.h"
#include "ns3/network-module.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace dc
{

const uint64_t kLinkBps = 10'000'000'000ULL;
const uint32_t kMss = 1400;
const uint16_t kSinkPort = 5000;
const uint64_t kShortBytes = 100'000; /* short flows: below (paper 5.1) */
inline Time
LinkDelay()
{
    return MicroSeconds(10);
}

/* A flow-size CDF (bytes, cumulative probability), sampled with linear interpolation. */
struct Cdf
{
    std::vector<std::pair<double, double>> points;
    void Load(const std::string& path);
    double Sample(double u) const;
    double Mean() const;
};

struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t size;
    Time start;
    uint8_t delayClass;
    uint16_t port;
    bool query;
    uint64_t received = 0;
    Time done = Time::Max();
    Ptr<Socket> socket;
    uint64_t unsent = 0;
    uint32_t cwnd = 0;     /* bytes, the sender's latest congestion window */
    uint32_t losses = 0;   /* entries into the Loss state (retransmission timeouts) */
    uint32_t syns = 0;     /* SYNs sent: more than one is a connection timeout */
    uint32_t ceIn = 0;     /* --ecnAudit: CE-marked data segments its receiver got */
    uint32_t eceIn = 0;    /* --ecnAudit: ACKs with ECE its sender got (handshake aside) */
    uint32_t Timeouts() const { return losses + (syns > 1 ? syns - 1 : 0); }
};

extern std::vector<Flow> g_flows;
extern NodeContainer g_hosts;
/* 0: ns-3.37's TCP as it is; 1, 2: senders that defer as Linux's TCP does (tso-defer.h). */
extern uint32_t g_tsoDefer;
/* TCP small queues in the deferring senders (tso-defer.h; with g_tsoDefer 2 only). */
extern bool g_tsq;
/* Count, per flow, the CE marks its receiver got and the ECN echoes its sender got. */
extern bool g_ecnAudit;
/* --ecnAudit: flows whose receiver got a CE mark, and those of them whose sender saw no echo. */
size_t FlowsMarked();
size_t FlowsUnechoed();
/* --ecnAudit: CE-marked data segments received, and ACKs with ECE sent back, over all flows. */
uint64_t CeSegments();
uint64_t EceAcks();
extern std::vector<Ipv4Address> g_hostAddr;

struct Fabric
{
    std::vector<Ptr<EcnSharpQueueDisc>> downlinks; /* leaf -> host ports, host order */
    std::vector<Ptr<EcnSharpQueueDisc>> switchPorts;
    std::vector<Ptr<HostDelayQueueDisc>> hostQueues; /* each host's NIC queue (host order) */
};

/* DCTCP with the paper's settings (MSS 1400, IW 10, min RTO 5 ms) on every socket. */
void ConfigureTcp();
/* Leaf l's host h is 10.l.h.2; spines = 0 makes one switch (the incast topology). */
Fabric BuildFabric(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines);
/* A flow of `size` bytes from src to dst starting at `start`; returns its index. */
size_t AddFlow(uint32_t src, uint32_t dst, uint64_t size, Time start, uint8_t delayClass,
               bool query);
/* Schedules every added flow's start; the simulation stops when all have finished, but not
 * before `notBefore` (a measurement window that must run to its end). */
void ScheduleFlows(Time notBefore = Time(0));

} // namespace dc
} // namespace ns3

#endif
