/* SPDX-License-Identifier: GPL-2.0-only */
#include "host-delay.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(HostDelayQueueDisc);

TypeId
HostDelayQueueDisc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EcnSharpHostDelayQueueDisc")
                            .SetParent<QueueDisc>()
                            .SetGroupName("TrafficControl")
                            .AddConstructor<HostDelayQueueDisc>()
                            .AddAttribute("MarkAbove",
                                          "CE-mark packets held this long beyond their class's "
                                          "delay (0: never)",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&HostDelayQueueDisc::m_markAbove),
                                          MakeTimeChecker())
                            .AddAttribute("DropAbove",
                                          "drop packets held this long beyond their class's "
                                          "delay (0: never)",
                                          TimeValue(Time(0)),
                                          MakeTimeAccessor(&HostDelayQueueDisc::m_dropAbove),
                                          MakeTimeChecker());
    return tid;
}

HostDelayQueueDisc::HostDelayQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS)
{
}

namespace
{
std::vector<Time>&
DelayClasses()
{
    static std::vector<Time> delays = {MicroSeconds(1), MicroSeconds(20), MicroSeconds(50),
                                       MicroSeconds(80), MicroSeconds(160)};
    return delays;
}
} // namespace

const std::vector<Time>&
HostDelayQueueDisc::Delays()
{
    return DelayClasses();
}

void
HostDelayQueueDisc::SetDelays(std::vector<Time> delays)
{
    NS_ABORT_MSG_IF(delays.empty() || delays.size() > 255, "host delays: 1 to 255 classes");
    DelayClasses() = std::move(delays);
}

void
HostDelayQueueDisc::SetPortClass(uint16_t port, uint32_t cls)
{
    NS_ABORT_MSG_IF(cls >= Delays().size(), "no host delay class " << cls);
    m_classOfPort[port] = static_cast<uint8_t>(cls);
}

void
HostDelayQueueDisc::WatchPort(uint16_t port, Callback<void> left)
{
    m_watched[port] = Watched{0, left};
}

uint32_t
HostDelayQueueDisc::HostPackets(uint16_t port) const
{
    auto it = m_watched.find(port);
    return it == m_watched.end() ? 0 : it->second.packets;
}

bool
HostDelayQueueDisc::PortOf(Ptr<const QueueDiscItem> item, uint16_t& port)
{
    /* The IP payload starts with the TCP (or UDP) source port. */
    uint8_t b[2];
    if (item->GetPacket()->CopyData(b, 2) != 2)
    {
        return false;
    }
    port = static_cast<uint16_t>(b[0] << 8 | b[1]);
    return true;
}

uint32_t
HostDelayQueueDisc::ClassOf(uint16_t port) const
{
    auto it = m_classOfPort.find(port);
    return it == m_classOfPort.end() ? 0 : it->second;
}

bool
HostDelayQueueDisc::CheckConfig()
{
    if (GetNInternalQueues() == 0)
    {
        for (size_t i = 0; i < Delays().size(); i++)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, 0xffffffffu))));
        }
    }
    m_queued.assign(GetNInternalQueues(), 0);
    return true;
}

void
HostDelayQueueDisc::DoDispose()
{
    Simulator::Cancel(m_wake);
    m_watched.clear(); /* the callbacks hold their sockets */
    QueueDisc::DoDispose();
}

bool
HostDelayQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint16_t port = 0;
    bool hasPort = (!m_classOfPort.empty() || !m_watched.empty()) && PortOf(item, port);
    uint32_t cls = hasPort ? ClassOf(port) : 0;
    bool queued = GetInternalQueue(cls)->Enqueue(item);
    m_queued[cls] += queued;
    if (queued && hasPort)
    {
        auto it = m_watched.find(port);
        if (it != m_watched.end())
        {
            it->second.packets++;
        }
    }
    return queued;
}

void
HostDelayQueueDisc::Wake()
{
    Run();
}

Ptr<QueueDiscItem>
HostDelayQueueDisc::DoDequeue()
{
    for (;;)
    {
        Time late;
        Ptr<QueueDiscItem> item = DequeueDue(late);
        /* A packet later than DropAbove: the NIC's queue was full when it came (tbf's
         * `latency` in the Linux bench), dropped here rather than on arrival. */
        if (item && m_dropAbove.IsStrictlyPositive() && late > m_dropAbove)
        {
            DropAfterDequeue(item, "host limit");
            continue;
        }
        return item;
    }
}

Ptr<QueueDiscItem>
HostDelayQueueDisc::DequeueDue(Time& late)
{
    Time now = Simulator::Now();
    Time earliest = Time::Max();
    int best = -1;
    for (size_t i = 0; i < m_queued.size(); i++)
    {
        if (m_queued[i] == 0)
        {
            continue;
        }
        Ptr<const QueueDiscItem> head = GetInternalQueue(i)->Peek();
        if (head && head->GetTimeStamp() + Delays()[i] < earliest)
        {
            earliest = head->GetTimeStamp() + Delays()[i];
            best = static_cast<int>(i);
        }
    }
    if (best < 0)
    {
        return nullptr;
    }
    if (earliest > now)
    {
        if (!m_wake.IsRunning() || Simulator::GetDelayLeft(m_wake) > earliest - now)
        {
            Simulator::Cancel(m_wake);
            m_wake = Simulator::Schedule(earliest - now, &HostDelayQueueDisc::Wake, this);
        }
        return nullptr;
    }
    Ptr<QueueDiscItem> item = GetInternalQueue(best)->Dequeue();
    m_queued[best]--;
    uint16_t port;
    if (!m_watched.empty() && PortOf(item, port))
    {
        auto it = m_watched.find(port);
        if (it != m_watched.end() && it->second.packets > 0)
        {
            it->second.packets--;
            if (!it->second.left.IsNull())
            {
                it->second.left();
            }
        }
    }
    late = now - earliest;
    if (m_markAbove.IsStrictlyPositive() && late > m_markAbove)
    {
        Mark(item, "host");
    }
    return item;
}

} // namespace ns3
