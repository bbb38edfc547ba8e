/* SPDX-License-Identifier: GPL-2.0-only */
#include "rule.h"

#include "host-delay.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

std::vector<Time>
BaseRtts(uint32_t hops, uint64_t bps, Time linkDelay)
{
    /* Store and forward: each link serialises the data packet one way and the ACK back. */
    double perHopNs = 2 * static_cast<double>(linkDelay.GetNanoSeconds()) +
                      (kDataWireBytes + kAckWireBytes) * 8 * 1e9 / static_cast<double>(bps);
    /* ACKs leave the receiver in class 0 (its sockets keep DSCP 0). */
    Time ackHost = HostDelayQueueDisc::Delays().front();
    std::vector<Time> rtts;
    for (Time d : HostDelayQueueDisc::Delays())
    {
        rtts.push_back(NanoSeconds(std::llround(perHopNs * hops)) + d + ackHost);
    }
    return rtts;
}

Time
MeanOf(const std::vector<Time>& rtts)
{
    int64_t sum = 0;
    for (Time t : rtts)
    {
        sum += t.GetNanoSeconds();
    }
    return NanoSeconds(sum / static_cast<int64_t>(rtts.size()));
}

Time
PercentileOf(std::vector<Time> rtts, double q)
{
    std::sort(rtts.begin(), rtts.end());
    size_t n = rtts.size();
    for (size_t i = 0; i < n; i++)
    {
        if (static_cast<double>(i + 1) / n >= q - 1e-12)
        {
            return rtts[i];
        }
    }
    return rtts.back();
}

std::string
SchemeParams::Describe() const
{
    std::ostringstream s;
    s << "mode=" << mode << " ins_target_ns=" << insTarget.GetNanoSeconds()
      << " pst_target_ns=" << pstTarget.GetNanoSeconds()
      << " pst_interval_ns=" << pstInterval.GetNanoSeconds() << " k_bytes=" << kBytes;
    return s.str();
}

SchemeParams
RuleFor(const std::string& scheme, double lambda, Time rttMean, Time rttP90, uint64_t bps,
        const Overrides& o)
{
    NS_ABORT_MSG_UNLESS(lambda > 0 && lambda <= 10, "lambda must be in (0, 10], not " << lambda);
    auto scaled = [lambda](Time rtt) {
        return NanoSeconds(std::llround(lambda * static_cast<double>(rtt.GetNanoSeconds())));
    };
    auto pick = [](Time over, Time rule) { return over.IsStrictlyPositive() ? over : rule; };
    Time tail = scaled(rttP90);
    Time avg = scaled(rttMean);
    auto bytes = [bps](Time t) { /* exact, half up */
        return (static_cast<uint64_t>(t.GetNanoSeconds()) * (bps / 8) + 500'000'000ULL) /
               1'000'000'000ULL;
    };
    SchemeParams p{};
    if (scheme == "ecnsharp")
    {
        p.mode = "ecnsharp";
        p.insTarget = pick(o.insTarget, tail);
        p.pstTarget = pick(o.pstTarget, avg);
        p.pstInterval = pick(o.pstInterval, rttP90);
    }
    else if (scheme == "red_tail" || scheme == "red_avg")
    {
        p.mode = "red";
        p.kBytes = bytes(scheme == "red_tail" ? tail : avg);
    }
    else if (scheme == "tcn")
    {
        p.mode = "tcn";
        p.insTarget = pick(o.insTarget, tail);
    }
    else if (scheme == "codel")
    {
        p.mode = "codel";
        p.pstTarget = pick(o.codelTarget, avg);
        p.pstInterval = pick(o.codelInterval, rttP90);
    }
    else
    {
        NS_ABORT_MSG("unknown scheme \"" << scheme
                                         << "\" (ecnsharp, red_tail, red_avg, codel or tcn)");
    }
    return p;
}

void
ApplyDefaults(const SchemeParams& p, uint32_t limit)
{
    auto set = [](const std::string& name, const AttributeValue& v) {
        Config::SetDefault("ns3::EcnSharpQueueDisc::" + name, v);
    };
    set("limit", UintegerValue(limit));
    set("mode", StringValue(p.mode));
    if (p.insTarget.IsStrictlyPositive())
    {
        set("ins_target", TimeValue(p.insTarget));
    }
    if (p.pstTarget.IsStrictlyPositive())
    {
        set("pst_target", TimeValue(p.pstTarget));
    }
    if (p.pstInterval.IsStrictlyPositive())
    {
        set("pst_interval", TimeValue(p.pstInterval));
    }
    if (p.kBytes > 0)
    {
        NS_ABORT_MSG_IF(p.kBytes > 0xffffffffULL, "k of " << p.kBytes << " bytes does not fit");
        set("k_unit", StringValue("bytes"));
        set("k", UintegerValue(p.kBytes));
    }
}

} // namespace ns3
