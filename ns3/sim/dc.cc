/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ecnsharp-dc: the ECN# paper's datacenter simulations (5.3, 5.4) with ns3::EcnSharpQueueDisc
 * on every switch port, each scheme a mode of the one engine, configured by the rule of
 * docs/results/ns3/rule.md (ns3/sim/rule.h).
 *
 *   --scenario=leafspine  leaves x hostsPerLeaf hosts, spines, 10 Gbit/s, 10 us links,
 *                         per-flow ECMP, Poisson flows (web search or data mining sizes)
 *                         between leaves at --load of the fabric; FCT statistics.
 *   --scenario=incast     one switch, 16 senders and 1 receiver, data-mining background at
 *                         --load of the receiver link, then --queries concurrent query flows
 *                         (3-60 KB) at --launch: query completion, timeouts, drops, the
 *                         bottleneck queue (Figures 10, 11).
 *   --scenario=validate   2-4 long-lived DCTCP senders into one port, for the comparison with
 *                         the Linux stack (ns3/sim/validate.cc, docs/results/ns3/validation.md).
 *   --scenario=testbed    the User-Mode Linux testbed's flows scenario: 7 senders, 1 receiver,
 *                         its RTT classes; FCT statistics (ns3/sim/testbed.h).
 *
 * Prints one line of key=value results (what ns3/run.sh and ns3/full.sh read); --detailOut
 * writes every flow, port and queue sample the statistics of ns3/stats.py resample.
 */
#include "host-delay.h"
#include "rule.h"
#include "testbed.h"
#include "traffic.h"
#include "validate.h"

#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace ns3;
using namespace ns3::dc;

namespace
{

const uint64_t kLargeBytes = 10'000'000;  /* large flows: above */
const Time kSampleEvery = MicroSeconds(10); /* the authors' queue sampling */

double
Percentile(std::vector<double> v, double q)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(q * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

double
Mean(const std::vector<double>& v)
{
    double s = 0;
    for (double x : v)
    {
        s += x;
    }
    return v.empty() ? 0 : s / v.size();
}

std::vector<std::pair<double, double>> g_samples; /* (time us, packets) */

/* glibc's per-thread cache keeps 7 freed blocks of each size (up to 1 KiB); ns-3 allocates and
 * frees packets, buffers, headers, TCP options and events by the thousand, so most calls fell
 * through to the arenas (malloc_consolidate and friends, over 10% of a run). A cache of 2000
 * blocks per size, up to 4 KiB, takes about 8% off a run's CPU time; where blocks come from
 * changes nothing the simulation computes. Tunables are read only as a program starts, hence
 * one exec of ourselves; a GLIBC_TUNABLES already set (even empty) is left as it is. */
void
TuneMalloc(char* argv[])
{
    if (std::getenv("GLIBC_TUNABLES") != nullptr)
    {
        return;
    }
    setenv("GLIBC_TUNABLES", "glibc.malloc.tcache_count=2000:glibc.malloc.tcache_max=4096", 1);
    execv("/proc/self/exe", argv);
    unsetenv("GLIBC_TUNABLES"); /* no exec: run as we are */
}

void
SampleQueue(Ptr<QueueDisc> q, Time every, Time until)
{
    g_samples.emplace_back(Simulator::Now().GetMicroSeconds(), q->GetNPackets());
    if (Simulator::Now() + every <= until)
    {
        Simulator::Schedule(every, &SampleQueue, q, every, until);
    }
}

/* Poisson arrivals of inter-leaf flows at `load` of the leaf uplinks, each host its own random
 * stream (so a longer horizon extends, never changes, the flows before it). With shortFlows > 0
 * the arrivals stop at the shortFlows-th short flow, else at `launch`. Returns the window. */
Time
LeafSpineArrivals(const Cdf& cdf, uint32_t leaves, uint32_t hostsPerLeaf, uint32_t spines,
                  double load, double launch, uint32_t shortFlows, uint32_t seed)
{
    uint32_t nHosts = leaves * hostsPerLeaf;
    double oversub = spines ? double(hostsPerLeaf) / spines : 1.0;
    double rate = load * kLinkBps / oversub / (8 * cdf.Mean()); /* flows/s per host */
    struct Arrival
    {
        double t;
        uint32_t src;
        uint32_t dst;
        uint64_t size;
        uint8_t cls;
    };
    double horizon = launch;
    if (shortFlows > 0)
    {
        horizon = 2.0 * shortFlows / (rate * nHosts * 0.5); /* doubled below if short */
    }
    for (;;)
    {
        std::vector<Arrival> all;
        for (uint32_t src = 0; src < nHosts; src++)
        {
            std::seed_seq ss{seed, src, 0x5eedu};
            std::mt19937_64 rng(ss);
            std::uniform_real_distribution<double> uni(0.0, 1.0);
            double t = -std::log(1 - uni(rng)) / rate;
            while (t < horizon)
            {
                uint32_t dst = src;
                while (dst == src || (leaves > 1 && dst / hostsPerLeaf == src / hostsPerLeaf))
                {
                    dst = static_cast<uint32_t>(uni(rng) * nHosts) % nHosts;
                }
                uint64_t size = static_cast<uint64_t>(cdf.Sample(uni(rng)));
                uint8_t cls = static_cast<uint8_t>(uni(rng) * 5) % 5;
                all.push_back({t, src, dst, size, cls});
                t += -std::log(1 - uni(rng)) / rate;
            }
        }
        std::sort(all.begin(), all.end(),
                  [](const Arrival& a, const Arrival& b) { return a.t < b.t; });
        double end = horizon;
        if (shortFlows > 0)
        {
            uint32_t seen = 0;
            end = -1;
            for (const Arrival& a : all)
            {
                if (a.size < kShortBytes && ++seen == shortFlows)
                {
                    end = a.t;
                    break;
                }
            }
            if (end < 0)
            {
                horizon *= 2;
                continue;
            }
        }
        for (const Arrival& a : all)
        {
            if (a.t <= end)
            {
                AddFlow(a.src, a.dst, a.size, Seconds(a.t), a.cls, false);
            }
        }
        return Seconds(end);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    TuneMalloc(argv);
    std::string scenario = "leafspine";
    std::string scheme = "ecnsharp";
    std::string cdfPath = "ns3/workloads/web-search.cdf";
    std::string variant = "rule";
    uint32_t leaves = 8;
    uint32_t hostsPerLeaf = 16;
    uint32_t spines = 8;
    double load = 0.5;
    double launch = 0.05;
    double end = 0;
    uint32_t shortFlows = 0;
    uint32_t seed = 1;
    uint32_t queries = 100;
    uint32_t limit = 250;
    double lambda = 0.17;
    std::string detailOut;
    std::string queueOut;
    /* Stands in for Linux's cwnd-limited check and TSQ, which ns-3.37's TCP lacks (host-delay.h). */
    Time hostMark = MicroSeconds(20);
    Time hostLimit = Time(0);
    Overrides over{};
    ValidateArgs va;

    CommandLine cmd(__FILE__);
    cmd.AddValue("scenario", "leafspine, incast or validate", scenario);
    cmd.AddValue("scheme", "ecnsharp, red_tail, red_avg, codel or tcn", scheme);
    cmd.AddValue("variant", "label of a sensitivity run (rule: the headline rule)", variant);
    cmd.AddValue("cdf", "flow-size CDF file (bytes, probability)", cdfPath);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("hostsPerLeaf", "hosts under each leaf", hostsPerLeaf);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.AddValue("load", "offered load, share of the fabric (leafspine) or receiver link", load);
    cmd.AddValue("launch", "leafspine: flows start in [0, launch) s; incast: queries start", launch);
    cmd.AddValue("shortFlows", "leafspine: arrivals stop at this many short flows (0: launch)",
                 shortFlows);
    cmd.AddValue("end", "stop at this time (s) even if flows are unfinished (0: the rule's)", end);
    cmd.AddValue("seed", "workload seed (the same flows for every scheme)", seed);
    cmd.AddValue("queries", "incast: concurrent query flows", queries);
    cmd.AddValue("limit", "port buffer, packets", limit);
    cmd.AddValue("lambda", "threshold = lambda x RTT percentile, for every scheme", lambda);
    cmd.AddValue("detailOut", "write every flow, switch port and queue sample here", detailOut);
    cmd.AddValue("queueOut", "incast: write the bottleneck queue samples here", queueOut);
    cmd.AddValue("hostMark",
                 "CE-mark at a host NIC backlogged beyond this (0: off; see host-delay.h)",
                 hostMark);
    cmd.AddValue("hostLimit",
                 "drop at a host NIC what would wait longer than this (0: never; host-delay.h)",
                 hostLimit);
    cmd.AddValue("tsoDefer",
                 "senders defer as Linux's TCP does: 1 outside CWR, 2 in CWR too (tso-defer.h)",
                 g_tsoDefer);
    cmd.AddValue("tsq", "TCP small queues in the deferring senders (tsoDefer=2; tso-defer.h)",
                 g_tsq);
    cmd.AddValue("ecnAudit", "count each flow's CE marks and their echoes (sink.h)", g_ecnAudit);
    cmd.AddValue("insTarget", "ECN#, TCN: ins_target instead of the rule's", over.insTarget);
    cmd.AddValue("pstTarget", "ECN#: pst_target instead of the rule's", over.pstTarget);
    cmd.AddValue("pstInterval", "ECN#: pst_interval instead of the rule's", over.pstInterval);
    cmd.AddValue("codelTarget", "CoDel: target instead of the rule's", over.codelTarget);
    cmd.AddValue("codelInterval", "CoDel: interval instead of the rule's", over.codelInterval);
    cmd.AddValue("senders", "validate: senders (2 to 4)", va.senders);
    cmd.AddValue("classes", "validate: host-delay class of each sender, comma-separated",
                 va.classes);
    cmd.AddValue("duration", "validate: seconds of long-lived flows", va.duration);
    cmd.AddValue("warmup", "validate: seconds before the measurement window", va.warmup);
    cmd.AddValue("probeSize", "validate: bytes of each short probe flow", va.probeSize);
    cmd.AddValue("probeEvery", "validate: a probe flow this often", va.probeEvery);
    cmd.AddValue("joinAt", "validate: the last sender starts then (0: 5 ms after the one before)",
                 va.joinAt);
    cmd.AddValue("outPrefix", "validate: PREFIX.queue, .cwnd, .fct, .hist are written", va.out);
    cmd.AddValue("traceMs", "validate: PREFIX.pkts, every sender's packets for this many ms",
                 va.traceMs);
    /* Before Parse, so that a diagnosis can change one of them from the command line
     * (--ns3::TcpSocket::DelAckCount=2); the headline runs never do. */
    ConfigureTcp();
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_UNLESS(scenario == "leafspine" || scenario == "incast" || scenario == "validate" ||
                            scenario == "testbed",
                        "unknown scenario \"" << scenario
                                               << "\" (leafspine, incast, validate or testbed)");
    NS_ABORT_MSG_UNLESS(g_tsoDefer <= 2, "tsoDefer: 0, 1 or 2, not " << g_tsoDefer);
    NS_ABORT_MSG_IF(g_tsq && g_tsoDefer != 2, "tsq: with tsoDefer=2 only");
    NS_ABORT_MSG_IF(g_tsq && g_tsoDefer != 2, "tsq: with tsoDefer=2 only");
    Config::SetDefault("ns3::EcnSharpHostDelayQueueDisc::MarkAbove", TimeValue(hostMark));
    Config::SetDefault("ns3::EcnSharpHostDelayQueueDisc::DropAbove", TimeValue(hostLimit));

    bool incast = scenario == "incast";
    if (scenario != "leafspine")
    {
        leaves = 1;
        hostsPerLeaf = scenario == "incast" ? 17 : va.senders + 2; /* + probe host */
        spines = 0;
    }
    /* The rule: thresholds from the modelled base RTTs of this topology (rule.md). */
    std::vector<Time> rtts = BaseRtts(spines ? 4 : 2, kLinkBps, LinkDelay());
    Time rttMean = MeanOf(rtts);
    Time rttP90 = PercentileOf(rtts, 0.9);
    bool testbed = scenario == "testbed";
    if (testbed)
    {
        /* 7 senders and the receiver; the testbed's RTT classes and its weighted statistics. */
        hostsPerLeaf = 8;
        HostDelayQueueDisc::SetDelays(
            TestbedDelays(rtts.front(), HostDelayQueueDisc::Delays().front()));
        rttMean = TestbedRttMean();
        rttP90 = TestbedRttP90();
    }
    SchemeParams params = RuleFor(scheme, lambda, rttMean, rttP90, kLinkBps, over);
    ApplyDefaults(params, limit);
    std::ostringstream ruleText;
    ruleText << std::fixed << std::setprecision(3) << "variant=" << variant << " lambda=" << lambda
             << " host_mark_us=" << hostMark.GetMicroSeconds()
             << " host_limit_us=" << hostLimit.GetMicroSeconds() << " tsq=" << g_tsq
             << " rtt_mean_us=" << rttMean.GetNanoSeconds() / 1000.0
             << " rtt_p90_us=" << rttP90.GetNanoSeconds() / 1000.0 << " " << params.Describe();

    Fabric fabric = BuildFabric(leaves, hostsPerLeaf, spines);
    if (scenario == "validate")
    {
        va.scheme = scheme;
        va.ruleText = ruleText.str();
        return RunValidation(fabric, va);
    }

    Cdf cdf;
    cdf.Load(cdfPath);
    uint32_t nHosts = g_hosts.GetN();
    Time queryAt = Seconds(launch);
    Time window = Seconds(launch); /* the arrival window the queue means cover */
    if (testbed)
    {
        window = TestbedArrivals(cdf, hostsPerLeaf - 1, load, shortFlows, seed);
        if (end <= 0)
        {
            end = window.GetSeconds() + 3; /* the testbed's FLOW_DRAIN_S */
        }
    }
    else if (!incast)
    {
        window = LeafSpineArrivals(cdf, leaves, hostsPerLeaf, spines, load, launch, shortFlows,
                                   seed);
        if (end <= 0)
        {
            end = window.GetSeconds() + 2; /* the rule: 2 s after the last arrival */
        }
    }
    else
    {
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> uni(0.0, 1.0);
        /* Background: senders 1..16 to host 0 at `load` of its link, until the queries. */
        double rate = load * kLinkBps / 16 / (8 * cdf.Mean());
        for (uint32_t src = 1; src < nHosts; src++)
        {
            double t = -std::log(1 - uni(rng)) / rate;
            while (t < launch + 0.005)
            {
                uint64_t size = static_cast<uint64_t>(cdf.Sample(uni(rng)));
                AddFlow(src, 0, size, Seconds(t), static_cast<uint8_t>(uni(rng) * 5) % 5, false);
                t += -std::log(1 - uni(rng)) / rate;
            }
        }
        for (uint32_t q = 0; q < queries; q++)
        {
            uint64_t size = 3000 + static_cast<uint64_t>(uni(rng) * 57000);
            AddFlow(1 + q % 16, 0, size, queryAt, static_cast<uint8_t>(uni(rng) * 5) % 5, true);
        }
        /* Figure 10: every 10 us from 1 ms before the queries to 4 ms after (501 samples). */
        Simulator::Schedule(queryAt - MilliSeconds(1), &SampleQueue, fabric.downlinks[0],
                            kSampleEvery, queryAt + MilliSeconds(4));
        if (end <= 0)
        {
            end = launch + 0.1;
        }
    }
    /* Incast: the queue samples run to their end even if every flow is done before. */
    ScheduleFlows(incast ? queryAt + MilliSeconds(4) + MicroSeconds(1) : Time(0));

    /* Queue statistics over the arrival window: the time-average packets queued at each
     * switch port, averaged over the ports (the queue_mean), and over busy time. */
    std::vector<double> meanQueue;
    std::vector<double> busyNs;
    std::vector<uint64_t> dropsAtQueries;
    double integral = 0; /* over every port: packets x ns */
    double busy = 0;     /* over every port: ns not empty */
    double bgMean = 0;   /* incast: the bottleneck before the queries */
    double bgBusyMean = 0;
    auto collect = [&]() {
        for (auto& q : fabric.switchPorts)
        {
            meanQueue.push_back(q->MeanQueuePackets());
            busyNs.push_back(q->BusyNanoSeconds());
            integral += q->QueueIntegral();
            busy += q->BusyNanoSeconds();
        }
        Ptr<EcnSharpQueueDisc> b = fabric.downlinks[0];
        bgMean = b->MeanQueuePackets();
        bgBusyMean = b->BusyNanoSeconds() > 0 ? b->QueueIntegral() / b->BusyNanoSeconds() : 0;
    };
    Simulator::Schedule(window, [&]() {
        collect();
        for (auto& q : fabric.downlinks)
        {
            dropsAtQueries.push_back(q->GetStats().nTotalDroppedPackets);
        }
    });
    Simulator::Stop(Seconds(end));
    Simulator::Run();
    if (meanQueue.empty()) /* stopped before the end of the arrival window */
    {
        collect();
        dropsAtQueries.assign(fabric.downlinks.size(), 0);
    }

    std::vector<double> all;
    std::vector<double> shortF;
    std::vector<double> largeF;
    std::vector<double> queryDone;
    size_t unfinished = 0;
    size_t shortUnfinished = 0;
    uint64_t timeouts = 0;
    uint64_t queryTimeouts = 0;
    std::ofstream detail;
    if (!detailOut.empty())
    {
        detail.open(detailOut);
        NS_ABORT_MSG_UNLESS(detail, "cannot write " << detailOut);
        detail << "# f size_bytes start_us fct_us(-1: unfinished) class query timeouts\n"
               << "# p mean_pkts busy_ns (each switch port over the arrival window)\n"
               << "# q time_us pkts (incast: the bottleneck every 10 us)\n";
    }
    for (const Flow& f : g_flows)
    {
        bool finished = f.done != Time::Max();
        double us = finished ? (f.done - f.start).GetNanoSeconds() / 1000.0 : -1;
        timeouts += f.Timeouts() > 0;
        if (detail.is_open())
        {
            detail << "f " << f.size << " " << f.start.GetNanoSeconds() / 1000.0 << " " << us
                   << " " << unsigned(f.delayClass) << " " << f.query << " " << f.Timeouts()
                   << "\n";
        }
        if (f.query)
        {
            queryTimeouts += f.Timeouts() > 0;
        }
        if (!finished)
        {
            unfinished++;
            shortUnfinished += !f.query && f.size < kShortBytes;
            continue;
        }
        if (f.query)
        {
            queryDone.push_back((f.done - queryAt).GetNanoSeconds() / 1000.0);
            continue;
        }
        all.push_back(us);
        if (f.size < kShortBytes)
        {
            shortF.push_back(us);
        }
        else if (f.size > kLargeBytes)
        {
            largeF.push_back(us);
        }
    }
    if (detail.is_open())
    {
        for (size_t i = 0; i < meanQueue.size(); i++)
        {
            detail << "p " << meanQueue[i] << " " << busyNs[i] << "\n";
        }
        for (auto& s : g_samples)
        {
            detail << "q " << s.first << " " << s.second << "\n";
        }
        NS_ABORT_MSG_UNLESS(detail.good(), "writing " << detailOut << " failed");
    }
    uint64_t drops = 0;
    uint64_t marks = 0;
    uint64_t marksBy[3] = {0, 0, 0}; /* instantaneous, persistent, queue length at enqueue */
    for (auto& q : fabric.switchPorts)
    {
        drops += q->GetStats().nTotalDroppedPackets;
        struct ecnsharp_stats st = q->EngineStats();
        marks += st.marks;
        for (int i = 0; i < 3; i++)
        {
            marksBy[i] += st.marks_by_cause[i];
        }
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(1);
    out << "scenario=" << scenario << " scheme=" << scheme << " hosts=" << nHosts
        << " load=" << load << " seed=" << seed << " " << ruleText.str()
        << std::setprecision(6) << " launch_s=" << window.GetSeconds() << std::setprecision(1)
        << " flows=" << g_flows.size() << " unfinished=" << unfinished
        << " short_unfinished=" << shortUnfinished << " timeouts=" << timeouts
        << std::setprecision(4) << " sim_end_s=" << Simulator::Now().GetSeconds()
        << std::setprecision(1) << " fct_mean_us=" << Mean(all)
        << " fct_short_mean_us=" << Mean(shortF)
        << " fct_short_p99_us=" << Percentile(shortF, 0.99) << " short_flows=" << shortF.size()
        << " fct_large_mean_us=" << Mean(largeF) << " large_flows=" << largeF.size()
        << std::setprecision(3) << " queue_mean_pkts=" << Mean(meanQueue)
        << " queue_busy_mean_pkts=" << (busy > 0 ? integral / busy : 0.0)
        << " port_busy=" << busy / (fabric.switchPorts.size() * window.GetSeconds() * 1e9)
        << " drops=" << drops << " marks=" << marks << " marks_ins=" << marksBy[0]
        << " marks_pst=" << marksBy[1] << " marks_red=" << marksBy[2];
    if (g_ecnAudit)
    {
        out << " ce_flows=" << FlowsMarked() << " ce_unechoed_flows=" << FlowsUnechoed()
            << " ce_segments=" << CeSegments() << " ece_acks=" << EceAcks();
    }
    if (incast)
    {
        uint64_t bottleneckDrops =
            fabric.downlinks[0]->GetStats().nTotalDroppedPackets - dropsAtQueries[0];
        double qct = queries == 0 ? 0
                     : queryDone.size() == queries
                         ? *std::max_element(queryDone.begin(), queryDone.end())
                         : -1;
        double qmean = 0;
        double qmax = 0;
        double fig10 = 0;
        for (size_t i = 0; i < g_samples.size(); i++)
        {
            qmean += g_samples[i].second;
            qmax = std::max(qmax, g_samples[i].second);
            fig10 += i < 500 ? g_samples[i].second : 0;
        }
        NS_ABORT_MSG_UNLESS(g_samples.size() == 501,
                            "the queue was sampled " << g_samples.size() << " times, not 501");
        qmean /= g_samples.size();
        out << " queries=" << queries << " qct_us=" << std::setprecision(1) << qct
            << " query_fct_mean_us=" << Mean(queryDone) << " query_timeouts=" << queryTimeouts
            << " bottleneck_drops=" << bottleneckDrops << " queue_sample_mean_pkts=" << qmean
            << " queue_sample_max_pkts=" << qmax << std::setprecision(3)
            << " fig10_queue_pkts=" << fig10 / 500 << " bg_queue_mean_pkts=" << bgMean
            << " bg_queue_busy_mean_pkts=" << bgBusyMean;
        if (!queueOut.empty())
        {
            std::ofstream q(queueOut);
            q << "# time_us packets\n";
            for (auto& s : g_samples)
            {
                q << s.first << " " << s.second << "\n";
            }
        }
    }
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
