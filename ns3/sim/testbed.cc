/* SPDX-License-Identifier: GPL-2.0-only */
#include "testbed.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ns3
{
namespace dc
{

namespace
{

/* tests/uml/testbed/params.sh: RTT_CLASSES="70:75 75:8 80:4 120:2 200:6 210:5" (us:percent). */
struct RttClass
{
    double rttUs;
    double percent;
};
const RttClass kClasses[] = {{70, 75}, {75, 8}, {80, 4}, {120, 2}, {200, 6}, {210, 5}};

} // namespace

std::vector<Time>
TestbedDelays(Time class0Rtt, Time class0Delay)
{
    Time path = class0Rtt - class0Delay;
    std::vector<Time> delays{class0Delay};
    for (const RttClass& c : kClasses)
    {
        Time d = NanoSeconds(std::llround(c.rttUs * 1000)) - path;
        NS_ABORT_MSG_IF(!d.IsStrictlyPositive(), "testbed: RTT class " << c.rttUs
                                                                        << " us is below the path");
        delays.push_back(d);
    }
    return delays;
}

Time
TestbedRttMean()
{
    double sum = 0;
    for (const RttClass& c : kClasses)
    {
        sum += c.rttUs * c.percent / 100;
    }
    return NanoSeconds(std::llround(sum * 1000));
}

Time
TestbedRttP90()
{
    double acc = 0;
    for (const RttClass& c : kClasses)
    {
        acc += c.percent;
        if (acc >= 90)
        {
            return MicroSeconds(c.rttUs);
        }
    }
    return MicroSeconds(kClasses[std::size(kClasses) - 1].rttUs);
}

Time
TestbedArrivals(const Cdf& cdf, uint32_t senders, double load, uint32_t shortFlows, uint32_t seed)
{
    NS_ABORT_MSG_UNLESS(shortFlows > 0, "testbed: --shortFlows must be at least 1");
    std::seed_seq ss{seed, 0x7e57u};
    std::mt19937_64 rng(ss);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    double rate = load * kLinkBps / (8 * cdf.Mean()); /* flows/s into the receiver */
    double t = 0;
    uint32_t seen = 0;
    while (seen < shortFlows)
    {
        t += -std::log(1 - uni(rng)) / rate;
        uint32_t src = 1 + static_cast<uint32_t>(uni(rng) * senders) % senders;
        uint64_t size = static_cast<uint64_t>(cdf.Sample(uni(rng)));
        double pick = uni(rng) * 100;
        uint8_t cls = 1;
        for (const RttClass& c : kClasses)
        {
            if (pick < c.percent)
            {
                break;
            }
            pick -= c.percent;
            cls = std::min<uint8_t>(cls + 1, std::size(kClasses));
        }
        AddFlow(src, 0, size, Seconds(t), cls, false);
        seen += size < kShortBytes;
    }
    return Seconds(t);
}

} // namespace dc
} // namespace ns3
