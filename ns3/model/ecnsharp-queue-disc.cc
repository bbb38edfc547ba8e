/* SPDX-License-Identifier: GPL-2.0-only */
/* ns3::EcnSharpQueueDisc: see ecnsharp-queue-disc.h. */

#include "ecnsharp-queue-disc.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <array>
#include <cstring>
#include <iostream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcnSharpQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(EcnSharpQueueDisc);

namespace
{

/* The kernel's default of one option, as tc text, from the core. */
std::string
Default(const char* keyword)
{
    char out[128];
    int rc = ecnsharp_option_default(keyword, out, sizeof(out));
    NS_ABORT_MSG_IF(rc != 0, "ecnsharp: no default for option " << keyword);
    return out;
}

Time
DefaultTime(const char* keyword)
{
    return Time(Default(keyword));
}

uint32_t
DefaultU32(const char* keyword)
{
    return static_cast<uint32_t>(std::stoul(Default(keyword)));
}

/* Mark reasons for QueueDisc::Mark, one per set of causes ("ins", "pst+red", ...). */
const char*
MarkReason(uint8_t causes)
{
    static const std::array<std::string, 32> reasons = [] {
        static const char* names[5] = {"ins", "pst", "red", "dequeue", "prob"};
        std::array<std::string, 32> r;
        for (unsigned set = 0; set < 32; set++)
        {
            for (unsigned i = 0; i < 5; i++)
            {
                if (set & (1u << i))
                {
                    r[set] += (r[set].empty() ? "" : "+") + std::string(names[i]);
                }
            }
        }
        return r;
    }();
    return reasons[causes & 31].c_str();
}

/* The IP DS field of an item, or -1 if it is not IP (not ECN-capable). */
int32_t
DsField(Ptr<const QueueDiscItem> item)
{
    uint8_t ds = 0;
    return item->GetUint8Value(QueueItem::IP_DSFIELD, ds) ? ds : -1;
}

/* Unlimited FIFO for one band: the engine enforces the qdisc's limits. */
const QueueSize kBandFifoSize(QueueSizeUnit::PACKETS, 0xffffffffu);

} // namespace

TypeId
EcnSharpQueueDisc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::EcnSharpQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("TrafficControl")
            .AddConstructor<EcnSharpQueueDisc>()
            .AddAttribute("limit", "Most packets queued in all bands together",
                          UintegerValue(DefaultU32("limit")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_limit),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("limit_bytes", "Most bytes queued in all bands together; 0: none",
                          UintegerValue(DefaultU32("limit_bytes")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_limitBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("bands", "Number of bands, 1 to 16",
                          UintegerValue(DefaultU32("bands")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_bands),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("mode",
                          "Marking: ecnsharp, tcn, codel, red, dequeue, prob, ecnsharp_prob, "
                          "or flags ins+pst+red+dequeue+prob",
                          StringValue(Default("mode")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_mode),
                          MakeStringChecker())
            .AddAttribute("ins_target", "Instantaneous threshold: mark when sojourn exceeds it",
                          TimeValue(DefaultTime("ins_target")),
                          MakeTimeAccessor(&EcnSharpQueueDisc::m_insTarget),
                          MakeTimeChecker())
            .AddAttribute("pst_target", "Persistent-queue target of Algorithm 1",
                          TimeValue(DefaultTime("pst_target")),
                          MakeTimeAccessor(&EcnSharpQueueDisc::m_pstTarget),
                          MakeTimeChecker())
            .AddAttribute("pst_interval", "Persistent-queue interval of Algorithm 1",
                          TimeValue(DefaultTime("pst_interval")),
                          MakeTimeAccessor(&EcnSharpQueueDisc::m_pstInterval),
                          MakeTimeChecker())
            .AddAttribute("control_law", "inv_sqrt (the paper), linear (journal) or ns3",
                          StringValue(Default("control_law")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_controlLaw),
                          MakeStringChecker())
            .AddAttribute("idle_reset", "Clear the persistent state when a band runs empty",
                          BooleanValue(Default("idle_reset") == "on"),
                          MakeBooleanAccessor(&EcnSharpQueueDisc::m_idleReset),
                          MakeBooleanChecker())
            .AddAttribute("k", "Queue threshold K of DCTCP-RED and dequeue marking",
                          UintegerValue(DefaultU32("k")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_k),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("k_unit", "Unit of k: packets or bytes",
                          StringValue(Default("k_unit")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_kUnit),
                          MakeStringChecker())
            .AddAttribute("tmin", "Probabilistic marking: never below",
                          TimeValue(DefaultTime("tmin")),
                          MakeTimeAccessor(&EcnSharpQueueDisc::m_tmin),
                          MakeTimeChecker())
            .AddAttribute("tmax", "Probabilistic marking: always above",
                          TimeValue(DefaultTime("tmax")),
                          MakeTimeAccessor(&EcnSharpQueueDisc::m_tmax),
                          MakeTimeChecker())
            .AddAttribute("pmax", "Probabilistic marking: probability at tmax (10% or 0.1)",
                          StringValue(Default("pmax")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_pmax),
                          MakeStringChecker())
            .AddAttribute("seed", "Seed of probabilistic marking; 0: from ns-3's RNG",
                          UintegerValue(DefaultU32("seed")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("sched", "Scheduler across bands: sp, dwrr or wfq",
                          StringValue(Default("sched")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_sched),
                          MakeStringChecker())
            .AddAttribute("strict", "Bands served first in strict priority under dwrr or wfq",
                          UintegerValue(DefaultU32("strict")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_strict),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("quanta", "DWRR quantum per band, bytes, comma-separated",
                          StringValue(Default("quanta")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_quanta),
                          MakeStringChecker())
            .AddAttribute("weights", "WFQ weight per band, comma-separated",
                          StringValue(Default("weights")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_weights),
                          MakeStringChecker())
            .AddAttribute("classify", "Classify on the socket priority or the DSCP",
                          StringValue(Default("classify")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_classify),
                          MakeStringChecker())
            .AddAttribute("priomap", "Band of each priority 0..15 (16 numbers)",
                          StringValue(Default("priomap")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_priomap),
                          MakeStringChecker())
            .AddAttribute("dscpmap", "DSCP:BAND,... over the default map, or default",
                          StringValue(Default("dscpmap")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_dscpmap),
                          MakeStringChecker())
            .AddAttribute("rate", "Shaper rate; 0: no shaper",
                          DataRateValue(DataRate(std::stoull(Default("rate")))),
                          MakeDataRateAccessor(&EcnSharpQueueDisc::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("burst", "Shaper bucket, bytes; 0: derived from the rate",
                          UintegerValue(DefaultU32("burst")),
                          MakeUintegerAccessor(&EcnSharpQueueDisc::m_burst),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("non_ect", "Non-ECT packets a rule fires on: pass or drop",
                          StringValue(Default("non_ect")),
                          MakeStringAccessor(&EcnSharpQueueDisc::m_nonEct),
                          MakeStringChecker());
    return tid;
}

EcnSharpQueueDisc::EcnSharpQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
      m_ready(false),
      m_watchdogEnabled(true),
      m_qlenIntegral(0),
      m_busyNs(0),
      m_qlen(0)
{
    NS_ABORT_MSG_IF(ecnsharp_engine_size() > sizeof(m_engine) ||
                        ECNSHARP_ENGINE_ALIGN % ecnsharp_engine_align() != 0,
                    "ecnsharp: engine storage too small for libecnsharp_ns3.a");
}

EcnSharpQueueDisc::~EcnSharpQueueDisc() = default;

uint8_t*
EcnSharpQueueDisc::Engine()
{
    return m_engine;
}

const uint8_t*
EcnSharpQueueDisc::Engine() const
{
    return m_engine;
}

std::vector<std::string>
EcnSharpQueueDisc::OptionWords() const
{
    auto ns = [](Time t) { return std::to_string(t.GetNanoSeconds()) + "ns"; };
    std::vector<std::string> w = {
        "limit",       std::to_string(m_limit),
        "limit_bytes", std::to_string(m_limitBytes),
        "bands",       std::to_string(m_bands),
        "mode",        m_mode,
        "ins_target",  ns(m_insTarget),
        "pst_target",  ns(m_pstTarget),
        "pst_interval", ns(m_pstInterval),
        "control_law", m_controlLaw,
        "idle_reset",  m_idleReset ? "on" : "off",
        "k_unit",      m_kUnit,
        "k",           std::to_string(m_k),
        "tmin",        ns(m_tmin),
        "tmax",        ns(m_tmax),
        "pmax",        m_pmax,
        "seed",        std::to_string(m_seed),
        "sched",       m_sched,
        "strict",      std::to_string(m_strict),
        "quanta",      m_quanta,
        "weights",     m_weights,
        "classify",    m_classify,
        "dscpmap",     m_dscpmap,
        "rate",        std::to_string(m_rate.GetBitRate()) + "bit",
        "burst",       std::to_string(m_burst),
        "non_ect",     m_nonEct,
        "priomap",
    };
    /* priomap takes 16 words (or one comma-separated word). */
    std::string word;
    for (char c : m_priomap + " ")
    {
        if (c == ' ' || c == '\t')
        {
            if (!word.empty())
            {
                w.push_back(word);
            }
            word.clear();
        }
        else
        {
            word += c;
        }
    }
    return w;
}

static int32_t
Configure(uint8_t* engine, const std::vector<std::string>& words, uint32_t seed, std::string& err)
{
    std::vector<const char*> argv;
    for (const auto& w : words)
    {
        argv.push_back(w.c_str());
    }
    char msg[256];
    int32_t rc = ecnsharp_engine_init(engine, argv.size(), argv.data(), seed, 1500, msg,
                                      sizeof(msg));
    err = rc == 0 ? "" : msg;
    return rc;
}

std::string
EcnSharpQueueDisc::Validate() const
{
    alignas(ECNSHARP_ENGINE_ALIGN) static uint8_t scratch[ECNSHARP_ENGINE_STORAGE];
    std::string err;
    Configure(scratch, OptionWords(), 1, err);
    return err;
}

bool
EcnSharpQueueDisc::CheckConfig()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0,
                    "ns3::EcnSharpQueueDisc classifies by itself: no classes or filters");
    std::string err;
    /* As the kernel seeds from get_random_u32(): here from ns-3's run-wide RNG seed. */
    uint32_t seed = static_cast<uint32_t>(RngSeedManager::GetSeed() * 2654435761u +
                                          RngSeedManager::GetRun());
    if (Configure(Engine(), OptionWords(), seed, err) != 0)
    {
        /* Fatal, with the core's message naming the option (as the kernel's extack): QueueDisc
         * only asserts CheckConfig's result, and release builds of ns-3 compile asserts out,
         * which would run the disc with an unconfigured engine. */
        NS_FATAL_ERROR("ns3::EcnSharpQueueDisc: invalid configuration: " << err);
    }
    m_ready = true;
    uint32_t bands = ecnsharp_engine_bands(Engine());
    if (GetNInternalQueues() == 0)
    {
        for (uint32_t i = 0; i < bands; i++)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(kBandFifoSize)));
        }
    }
    NS_ABORT_MSG_IF(GetNInternalQueues() != bands,
                    "ns3::EcnSharpQueueDisc needs one internal queue per band");
    return true;
}

void
EcnSharpQueueDisc::InitializeParams()
{
    m_avgSince = Simulator::Now();
    m_lastChange = m_avgSince;
}

void
EcnSharpQueueDisc::DoDispose()
{
    Simulator::Cancel(m_watchdog);
    QueueDisc::DoDispose();
}

std::string
EcnSharpQueueDisc::ConfigText() const
{
    if (!m_ready)
    {
        return "";
    }
    char out[1024];
    ecnsharp_engine_config_text(Engine(), out, sizeof(out));
    return out;
}

struct ecnsharp_stats
EcnSharpQueueDisc::EngineStats() const
{
    struct ecnsharp_stats s;
    std::memset(&s, 0, sizeof(s));
    if (m_ready)
    {
        ecnsharp_engine_stats(Engine(), &s);
    }
    return s;
}

void
EcnSharpQueueDisc::QueueChanged(int delta)
{
    Time now = Simulator::Now();
    double span = (now - m_lastChange).GetNanoSeconds();
    m_qlenIntegral += static_cast<double>(m_qlen) * span;
    m_busyNs += m_qlen > 0 ? span : 0;
    m_lastChange = now;
    m_qlen += delta;
}

double
EcnSharpQueueDisc::MeanQueuePackets() const
{
    Time now = Simulator::Now();
    double integral =
        m_qlenIntegral + static_cast<double>(m_qlen) * (now - m_lastChange).GetNanoSeconds();
    double span = (now - m_avgSince).GetNanoSeconds();
    return span > 0 ? integral / span : 0.0;
}

double
EcnSharpQueueDisc::QueueIntegral() const
{
    return m_qlenIntegral +
           static_cast<double>(m_qlen) * (Simulator::Now() - m_lastChange).GetNanoSeconds();
}

double
EcnSharpQueueDisc::BusyNanoSeconds() const
{
    return m_busyNs + (m_qlen > 0 ? (Simulator::Now() - m_lastChange).GetNanoSeconds() : 0.0);
}

void
EcnSharpQueueDisc::ResetQueueAverage()
{
    m_avgSince = Simulator::Now();
    m_lastChange = m_avgSince;
    m_qlenIntegral = 0;
    m_busyNs = 0;
}

void
EcnSharpQueueDisc::SetWatchdog(bool enabled)
{
    m_watchdogEnabled = enabled;
}

void
EcnSharpQueueDisc::Wake()
{
    Run();
}

bool
EcnSharpQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    NS_LOG_FUNCTION(this << item);
    SocketPriorityTag prio;
    uint32_t priority = item->GetPacket()->PeekPacketTag(prio) ? prio.GetPriority() : 0;
    uint8_t band = 0;
    uint8_t mark = 0;
    int32_t verdict = ecnsharp_engine_enqueue(Engine(), item->GetSize(), priority, DsField(item),
                                              &band, &mark);
    if (verdict != ECNSHARP_QUEUE)
    {
        DropBeforeEnqueue(item, verdict == ECNSHARP_DROP_LIMIT ? "Limit" : "Non-ECT");
        return false;
    }
    if (mark != 0)
    {
        Mark(item, MarkReason(mark));
    }
    bool queued = GetInternalQueue(band)->Enqueue(item);
    NS_ASSERT_MSG(queued, "an ecnsharp band FIFO refused a packet");
    QueueChanged(+1);
    return queued;
}

Ptr<QueueDiscItem>
EcnSharpQueueDisc::DoDequeue()
{
    NS_LOG_FUNCTION(this);
    uint64_t now = Simulator::Now().GetNanoSeconds();
    /* Each turn returns or removes a packet, so the loop ends (as the kernel glue's). */
    for (;;)
    {
        int32_t band = ecnsharp_engine_select(Engine());
        if (band < 0)
        {
            return nullptr;
        }
        Ptr<InternalQueue> fifo = GetInternalQueue(band);
        Ptr<const QueueDiscItem> head = fifo->Peek();
        if (!head)
        {
            ecnsharp_engine_flush_band(Engine(), band); /* resynchronise */
            continue;
        }
        uint64_t at = 0;
        if (ecnsharp_engine_shaper_delay(Engine(), now, head->GetSize(), &at))
        {
            if (m_watchdogEnabled && !m_watchdog.IsRunning())
            {
                m_watchdog = Simulator::Schedule(NanoSeconds(at - now), &EcnSharpQueueDisc::Wake,
                                                 this);
            }
            return nullptr;
        }
        Ptr<QueueDiscItem> item = fifo->Dequeue();
        Ptr<const QueueDiscItem> next = fifo->Peek();
        int64_t nextLen = next ? static_cast<int64_t>(next->GetSize()) : -1;
        uint8_t mark = 0;
        int32_t verdict = ecnsharp_engine_dequeue(Engine(), now, band, item->GetSize(),
                                                  item->GetTimeStamp().GetNanoSeconds(),
                                                  DsField(item), nextLen, &mark);
        QueueChanged(-1);
        if (verdict == ECNSHARP_SEND)
        {
            if (mark != 0)
            {
                Mark(item, MarkReason(mark));
            }
            return item;
        }
        DropAfterDequeue(item, "Non-ECT");
    }
}

} // namespace ns3
