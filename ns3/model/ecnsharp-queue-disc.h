/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ns3::EcnSharpQueueDisc: the sch_ecnsharp qdisc in ns-3. The decisions (band, limits, marks,
 * drops, scheduling, shaping) are the ecnsharp core's engine, the very source the kernel
 * module compiles, reached through libecnsharp_ns3.a (ns3/ffi). This class does what the
 * kernel glue (kmod/module/ecnsharp.rs) does: one FIFO (internal queue) per band, the facts the
 * engine needs from each QueueDiscItem, and the verdicts carried out through QueueDisc's own
 * Mark/DropBeforeEnqueue/DropAfterDequeue, with sojourn from the item's enqueue time stamp.
 *
 * Every option of the kernel qdisc is an attribute with the same name, default and checks
 * (docs/configuration.md); an invalid set is refused when the disc initialises, with the
 * core's message naming the option (see Validate()); the run aborts.
 */
#ifndef ECNSHARP_QUEUE_DISC_H
#define ECNSHARP_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/queue-disc.h"

#include <string>
#include <vector>

#include "../ffi/ecnsharp_ns3.h"

namespace ns3
{

class EcnSharpQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    EcnSharpQueueDisc();
    ~EcnSharpQueueDisc() override;

    /* The attributes as tc option words ("limit", "1000", "mode", "ecnsharp", ...). */
    std::vector<std::string> OptionWords() const;
    /* Configures a scratch engine from the attributes: "" if valid, else the core's reason. */
    std::string Validate() const;
    /* The configuration in force, as tc prints it (after initialisation). */
    std::string ConfigText() const;
    /* The engine's counters (after initialisation). */
    struct ecnsharp_stats EngineStats() const;
    /* Time-weighted mean of the packets queued since the last ResetQueueAverage(). */
    double MeanQueuePackets() const;
    /* Since the last ResetQueueAverage(): the integral of the packets queued over time
     * (packets x ns) and the time the queue was not empty (ns), for means over busy time. */
    double QueueIntegral() const;
    double BusyNanoSeconds() const;
    void ResetQueueAverage();
    /* Tests only: whether a shaper delay arms a wake-up (the kernel's qdisc watchdog). */
    void SetWatchdog(bool enabled);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    uint8_t* Engine();
    const uint8_t* Engine() const;
    void QueueChanged(int delta);
    void Wake();

    alignas(ECNSHARP_ENGINE_ALIGN) uint8_t m_engine[ECNSHARP_ENGINE_STORAGE];
    bool m_ready;
    bool m_watchdogEnabled;
    EventId m_watchdog;
    /* Time-weighted queue length. */
    Time m_avgSince;
    Time m_lastChange;
    double m_qlenIntegral; /* packets x ns */
    double m_busyNs;       /* ns with a packet queued */
    int64_t m_qlen;

    /* The kernel qdisc's options (docs/configuration.md). */
    uint32_t m_limit;
    uint32_t m_limitBytes;
    uint32_t m_bands;
    std::string m_mode;
    Time m_insTarget;
    Time m_pstTarget;
    Time m_pstInterval;
    std::string m_controlLaw;
    bool m_idleReset;
    uint32_t m_k;
    std::string m_kUnit;
    Time m_tmin;
    Time m_tmax;
    std::string m_pmax;
    uint32_t m_seed;
    std::string m_sched;
    uint32_t m_strict;
    std::string m_quanta;
    std::string m_weights;
    std::string m_classify;
    std::string m_priomap;
    std::string m_dscpmap;
    DataRate m_rate;
    uint32_t m_burst;
    std::string m_nonEct;
};

} // namespace ns3

#endif /* ECNSHARP_QUEUE_DISC_H */
