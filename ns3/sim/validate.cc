/* SPDX-License-Identifier: GPL-2.0-only */
#include "validate.h"

#include "host-delay.h"
#include "packet-trace.h"
#include "rule.h"

#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace ns3
{
namespace dc
{

namespace
{

const Time kCwndEvery = MicroSeconds(100);
const Time kQueueEvery = MicroSeconds(10);

/* The bottleneck queue as a time-weighted distribution over the window, from every change. */
struct QueueWatch
{
    Time from;
    Time until;
    Time last;
    uint32_t qlen = 0;
    std::map<uint32_t, int64_t> nsAt; /* packets queued -> ns spent there in the window */
    std::vector<double> sojournUs;    /* every packet dequeued in the window */
    uint64_t hostMarks = 0;
    uint64_t hostDrops = 0;
    uint32_t hostMaxPkts = 0; /* the most any sender's host held, over the whole run */
    Time joinAt;                      /* the join's 50 ms: the largest queue */
    uint32_t joinMax = 0;

    void Account(Time now)
    {
        Time a = std::max(last, from);
        Time b = std::min(now, until);
        if (b > a)
        {
            nsAt[qlen] += (b - a).GetNanoSeconds();
        }
        last = now;
    }
};

QueueWatch g_watch;

void
QueueLength(uint32_t, uint32_t now)
{
    Time t = Simulator::Now();
    g_watch.Account(t);
    g_watch.qlen = now;
    if (g_watch.joinAt.IsStrictlyPositive() && t >= g_watch.joinAt &&
        t < g_watch.joinAt + MilliSeconds(50))
    {
        g_watch.joinMax = std::max(g_watch.joinMax, now);
    }
}

/* Before a join: the lone flows' cwnd (segments), summed every 1 ms over the last 50 ms. */
double g_preJoinCwnd = 0;
uint32_t g_preJoinSamples = 0;

void
PreJoinCwnd(size_t f)
{
    g_preJoinCwnd += static_cast<double>(g_flows[f].cwnd) / kMss;
    g_preJoinSamples++;
}

bool
InWindow()
{
    Time now = Simulator::Now();
    return now >= g_watch.from && now < g_watch.until;
}

void
Sojourn(Time t)
{
    if (InWindow())
    {
        g_watch.sojournUs.push_back(t.GetNanoSeconds() / 1000.0);
    }
}

void
HostMark(Ptr<const QueueDiscItem>, const char*)
{
    g_watch.hostMarks += InWindow();
}

void
HostDrop(Ptr<const QueueDiscItem>, const char*)
{
    g_watch.hostDrops += InWindow();
}

void
HostBacklog(uint32_t, uint32_t packets)
{
    g_watch.hostMaxPkts = std::max(g_watch.hostMaxPkts, packets);
}

/* Packets below which `q` of the window's time was spent (the time-weighted quantile). */
double
TimeQuantile(const std::map<uint32_t, int64_t>& nsAt, double q)
{
    int64_t total = 0;
    for (auto& [len, ns] : nsAt)
    {
        total += ns;
    }
    int64_t acc = 0;
    for (auto& [len, ns] : nsAt)
    {
        acc += ns;
        if (static_cast<double>(acc) >= q * static_cast<double>(total))
        {
            return len;
        }
    }
    return 0;
}

double
Quantile(std::vector<double> v, double q)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    size_t i = static_cast<size_t>(q * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

struct Snapshot
{
    struct ecnsharp_stats st;
    uint64_t drops;
    std::vector<uint64_t> received;
};

Snapshot
Take(Ptr<EcnSharpQueueDisc> q, const std::vector<size_t>& longFlows)
{
    Snapshot s;
    s.st = q->EngineStats();
    s.drops = q->GetStats().nTotalDroppedPackets;
    for (size_t f : longFlows)
    {
        s.received.push_back(g_flows[f].received);
    }
    return s;
}

void
SampleSeries(std::ofstream* queue, std::ofstream* cwnd, Ptr<QueueDisc> q,
             const std::vector<size_t>* longFlows, Time until)
{
    Time now = Simulator::Now();
    if (queue->is_open())
    {
        *queue << now.GetMicroSeconds() << " " << q->GetNPackets() << "\n";
    }
    if (cwnd->is_open() && now.GetMicroSeconds() % kCwndEvery.GetMicroSeconds() == 0)
    {
        *cwnd << now.GetMicroSeconds();
        for (size_t f : *longFlows)
        {
            *cwnd << " " << g_flows[f].cwnd / kMss;
        }
        *cwnd << "\n";
    }
    if (now + kQueueEvery < until)
    {
        Simulator::Schedule(kQueueEvery, &SampleSeries, queue, cwnd, q, longFlows, until);
    }
}

std::vector<uint32_t>
ParseClasses(const std::string& text, uint32_t n)
{
    std::vector<uint32_t> c;
    std::stringstream ss(text);
    std::string word;
    while (std::getline(ss, word, ','))
    {
        NS_ABORT_MSG_IF(word.empty() || word.find_first_not_of("0123456789") != std::string::npos,
                        "classes: \"" << word << "\" is not a class number");
        c.push_back(std::stoul(word));
        NS_ABORT_MSG_IF(c.back() >= HostDelayQueueDisc::Delays().size(),
                        "classes: " << c.back() << " is not a class (0 to "
                                    << HostDelayQueueDisc::Delays().size() - 1 << ")");
    }
    NS_ABORT_MSG_IF(c.size() != n, "classes: " << c.size() << " given for " << n << " senders");
    return c;
}

} // namespace

int
RunValidation(const Fabric& fabric, const ValidateArgs& a)
{
    NS_ABORT_MSG_IF(a.senders < 2 || a.senders > 4, "senders must be 2 to 4, not " << a.senders);
    NS_ABORT_MSG_IF(a.warmup < 0 || a.duration <= a.warmup, "warmup must be below duration");
    NS_ABORT_MSG_IF(a.probeEvery <= 0 || a.probeSize == 0, "probes need a size and a period");
    std::vector<uint32_t> classes = ParseClasses(a.classes, a.senders);
    std::vector<Time> rtts = BaseRtts(2, kLinkBps, LinkDelay());
    Ptr<EcnSharpQueueDisc> bottleneck = fabric.downlinks[0];
    uint32_t probeHost = a.senders + 1;

    /* Long-lived flows, sender i from i x 5 ms, larger than the run can carry. */
    NS_ABORT_MSG_IF(a.joinAt != 0 && (a.joinAt < 0.06 || a.joinAt + 0.05 > a.duration),
                    "joinAt must leave 60 ms before it and 50 ms after it");
    std::vector<size_t> longFlows;
    for (uint32_t i = 0; i < a.senders; i++)
    {
        bool joins = a.joinAt > 0 && i + 1 == a.senders;
        longFlows.push_back(AddFlow(1 + i, 0, 1ULL << 40,
                                    joins ? Seconds(a.joinAt) : MilliSeconds(5 * i),
                                    static_cast<uint8_t>(classes[i]), false));
    }
    if (a.joinAt > 0)
    {
        g_watch.joinAt = Seconds(a.joinAt);
        for (int ms = 50; ms >= 1; ms--)
        {
            Simulator::Schedule(Seconds(a.joinAt) - MilliSeconds(ms), &PreJoinCwnd, longFlows[0]);
        }
    }
    std::vector<size_t> probes;
    for (double t = a.warmup; t + a.probeEvery <= a.duration + 1e-12; t += a.probeEvery)
    {
        probes.push_back(AddFlow(probeHost, 0, a.probeSize, Seconds(t), 0, true));
    }
    ScheduleFlows();

    g_watch.from = Seconds(a.warmup);
    g_watch.until = Seconds(a.duration);
    bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueLength));
    bottleneck->TraceConnectWithoutContext("SojournTime", MakeCallback(&Sojourn));
    for (uint32_t h = 1; h <= a.senders; h++)
    {
        fabric.hostQueues[h]->TraceConnectWithoutContext("Mark", MakeCallback(&HostMark));
        fabric.hostQueues[h]->TraceConnectWithoutContext("DropAfterDequeue",
                                                         MakeCallback(&HostDrop));
        fabric.hostQueues[h]->TraceConnectWithoutContext("PacketsInQueue",
                                                         MakeCallback(&HostBacklog));
    }
    static std::ofstream queue;
    static std::ofstream cwnd;
    if (!a.out.empty())
    {
        queue.open(a.out + ".queue");
        cwnd.open(a.out + ".cwnd");
        NS_ABORT_MSG_UNLESS(queue && cwnd, "cannot write " << a.out << ".queue/.cwnd");
        queue << "# time_us packets (bottleneck, every 10 us)\n";
        cwnd << "# time_us cwnd_segments of each long flow (every 100 us)\n";
    }
    if (a.traceMs > 0)
    {
        NS_ABORT_MSG_IF(a.out.empty(), "traceMs needs outPrefix");
        std::vector<uint32_t> senders;
        for (uint32_t h = 1; h <= a.senders; h++)
        {
            senders.push_back(h);
        }
        TracePackets(a.out + ".pkts", senders, fabric, Seconds(a.warmup),
                     Seconds(a.warmup) + MicroSeconds(a.traceMs * 1000));
    }
    Simulator::Schedule(Seconds(0), &SampleSeries, &queue, &cwnd, bottleneck, &longFlows,
                        Seconds(a.duration));
    Snapshot first;
    Simulator::Schedule(Seconds(a.warmup), [&]() { first = Take(bottleneck, longFlows); });
    Simulator::Stop(Seconds(a.duration));
    Simulator::Run();
    g_watch.Account(Simulator::Now());
    Snapshot last = Take(bottleneck, longFlows);

    double window = a.duration - a.warmup;
    int64_t totalNs = 0;
    double integral = 0;
    uint32_t maxLen = 0;
    for (auto& [len, ns] : g_watch.nsAt)
    {
        totalNs += ns;
        integral += static_cast<double>(len) * ns;
        maxLen = std::max(maxLen, len);
    }
    std::vector<double> fcts;
    size_t probesUnfinished = 0;
    for (size_t p : probes)
    {
        const Flow& f = g_flows[p];
        if (f.done == Time::Max())
        {
            probesUnfinished++;
            continue;
        }
        fcts.push_back((f.done - f.start).GetNanoSeconds() / 1000.0);
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(3) << "scenario=validate scheme=" << a.scheme << " "
        << a.ruleText << " tso_defer=" << g_tsoDefer << " senders=" << a.senders
        << " classes=" << a.classes << " rtts_us=";
    for (uint32_t i = 0; i < a.senders; i++)
    {
        out << (i ? "," : "") << rtts[classes[i]].GetNanoSeconds() / 1000.0;
    }
    out << " probe_rtt_us=" << rtts[0].GetNanoSeconds() / 1000.0 << " warmup_s=" << a.warmup
        << " duration_s=" << a.duration
        << " queue_mean_pkts=" << (totalNs > 0 ? integral / totalNs : 0.0)
        << " queue_p50_pkts=" << TimeQuantile(g_watch.nsAt, 0.5)
        << " queue_p90_pkts=" << TimeQuantile(g_watch.nsAt, 0.9)
        << " queue_p99_pkts=" << TimeQuantile(g_watch.nsAt, 0.99) << " queue_max_pkts=" << maxLen
        << " sojourn_mean_us=" << [&] {
               double s = 0;
               for (double x : g_watch.sojournUs)
               {
                   s += x;
               }
               return g_watch.sojournUs.empty() ? 0 : s / g_watch.sojournUs.size();
           }()
        << " sojourn_p50_us=" << Quantile(g_watch.sojournUs, 0.5)
        << " sojourn_p99_us=" << Quantile(g_watch.sojournUs, 0.99)
        << " packets=" << g_watch.sojournUs.size()
        << " marks=" << last.st.marks - first.st.marks
        << " marks_ins=" << last.st.marks_by_cause[0] - first.st.marks_by_cause[0]
        << " marks_pst=" << last.st.marks_by_cause[1] - first.st.marks_by_cause[1]
        << " marks_red=" << last.st.marks_by_cause[2] - first.st.marks_by_cause[2]
        << " host_marks=" << g_watch.hostMarks << " host_drops=" << g_watch.hostDrops
        << " host_max_pkts=" << g_watch.hostMaxPkts
        << " drops=" << last.drops - first.drops;
    double total = 0;
    for (uint32_t i = 0; i < a.senders; i++)
    {
        double gbps = (last.received[i] - first.received[i]) * 8 / window / 1e9;
        total += gbps;
        out << " goodput" << i + 1 << "_gbps=" << gbps;
    }
    if (a.joinAt > 0)
    {
        out << " join_s=" << a.joinAt
            << " cwnd1_prejoin_seg=" << g_preJoinCwnd / std::max<uint32_t>(g_preJoinSamples, 1)
            << " queue_join_max_pkts=" << g_watch.joinMax;
    }
    out << " goodput_gbps=" << total << " probes=" << probes.size()
        << " probes_unfinished=" << probesUnfinished << std::setprecision(1)
        << " probe_fct_mean_us=" << [&] {
               double s = 0;
               for (double x : fcts)
               {
                   s += x;
               }
               return fcts.empty() ? 0 : s / fcts.size();
           }()
        << " probe_fct_p50_us=" << Quantile(fcts, 0.5)
        << " probe_fct_p99_us=" << Quantile(fcts, 0.99);
    if (!a.out.empty())
    {
        std::ofstream fct(a.out + ".fct");
        fct << "# start_us fct_us (-1: unfinished) of each probe flow\n";
        for (size_t p : probes)
        {
            const Flow& f = g_flows[p];
            fct << f.start.GetNanoSeconds() / 1000.0 << " "
                << (f.done == Time::Max() ? -1.0 : (f.done - f.start).GetNanoSeconds() / 1000.0)
                << "\n";
        }
        std::ofstream hist(a.out + ".hist");
        hist << "# packets ns (time the bottleneck held that many packets in the window)\n";
        for (auto& [len, ns] : g_watch.nsAt)
        {
            hist << len << " " << ns << "\n";
        }
        NS_ABORT_MSG_UNLESS(fct.good() && hist.good() && queue.good() && cwnd.good(),
                            "writing " << a.out << ".* failed");
    }
    std::cout << out.str() << std::endl;
    Simulator::Destroy();
    return 0;
}

} // namespace dc
} // namespace ns3
