/* SPDX-License-Identifier: GPL-2.0-only */
#include "tso-defer.h"

#include "linux-cwr.h"
#include "traffic.h"

#include "ns3/abort.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-prr-recovery.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"

#include <algorithm>
#include <map>

namespace ns3
{
namespace dc
{

namespace
{

/* What Linux compares the room with (tcp_tso_autosize: the 64 KB GSO limit in segments of the
 * scenario's MSS) and its tcp_tso_win_divisor. */
const uint32_t kMaxSegs = 65536 / kMss;
const uint32_t kWinDivisor = 3;
/* TSQ: what each packet in the host charges the socket (its skb's truesize): measured,
 * the Linux testbed's lone flow held at most 490 full-size packets in its host under the 1 MB
 * cap (docs/results/ns3/validation.md, round 6); and that cap (tcp_limit_output_bytes). */
const uint64_t kTruesize = 2140;
const uint64_t kLimitOutputBytes = 1 << 20;

class DeferringSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnSharpDeferringSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<DeferringSocket>();
        return tid;
    }

    /* After construction: the trace source is found by the object's own TypeId. */
    void Watch(bool inCwr)
    {
        m_deferInCwr = inCwr;
        bool ok = TraceConnectWithoutContext("Tx", MakeCallback(&DeferringSocket::Sent, this));
        NS_ABORT_MSG_UNLESS(ok, "DeferringSocket: no Tx trace");
    }

  protected:
    uint32_t AvailableWindow() const override
    {
        uint32_t room = TcpSocketBase::AvailableWindow();
        Time now = Simulator::Now();
        /* Linux decides once per skb and then sends the room at once: every call at the same
         * instant (one SendPendingData loop) keeps the decision. */
        if (now != m_decidedAt)
        {
            m_decidedAt = now;
            m_deferring = room > 0 && Defer(room, now);
        }
        if (m_deferInCwr)
        {
            ValidateCwnd(room);
        }
        if (m_deferring)
        {
            return 0;
        }
        /* After ValidateCwnd: a socket TSQ holds back is not cwnd-limited (tcp_write_xmit
         * leaves its loop before it counts). */
        return room > 0 && Throttled() ? 0 : room;
    }

  public:
    void UseTsq(Ptr<HostDelayQueueDisc> host, uint16_t port)
    {
        m_host = host;
        m_port = port;
        host->WatchPort(port, MakeCallback(&DeferringSocket::LeftHost, Ptr<DeferringSocket>(this)));
    }

    /* tcp_is_cwnd_limited: cwnd limited the sender in this window, or, in slow start, cwnd is
     * less than twice the most that was in flight. */
    bool IsCwndLimited() const
    {
        if (m_isCwndLimited)
        {
            return true;
        }
        return m_tcb->m_cWnd < m_tcb->m_ssThresh && m_tcb->m_cWnd < 2 * m_maxInFlight;
    }

  private:
    /* tcp_small_queue_check, before each segment. */
    bool Throttled() const
    {
        if (!m_host)
        {
            return false;
        }
        uint32_t mss = m_tcb->m_segmentSize;
        /* "Always send skb if rtx queue is empty or has one skb": up to one 64 KB skb. */
        if (BytesInFlight() <= kMaxSegs * mss)
        {
            return false;
        }
        /* tcp_update_pacing_rate: 200% of cwnd per srtt below half ssthresh, else 120%. */
        uint64_t cwnd = std::max(m_tcb->m_cWnd.Get(), BytesInFlight());
        uint64_t ratio = m_tcb->m_cWnd < m_tcb->m_ssThresh / 2 ? 200 : 120;
        int64_t srttNs = m_rtt->GetEstimate().GetNanoSeconds();
        uint64_t limit = kLimitOutputBytes;
        if (srttNs > 0)
        {
            /* rate >> sk_pacing_shift (10): about 1 ms of it. */
            uint64_t perShift = cwnd * ratio * 1000000000ULL / 100 / srttNs >> 10;
            limit = std::min(limit, std::max(2 * kTruesize, perShift));
        }
        m_throttled = m_host->HostPackets(m_port) * kTruesize > limit;
        return m_throttled;
    }

    /* tcp_wfree and the TSQ handler: a packet left the host; a throttled socket tries again
     * (from its own event: the host's queue disc is in the middle of a dequeue). */
    void LeftHost()
    {
        if (m_throttled && !m_tsqWake.IsRunning())
        {
            m_tsqWake = Simulator::ScheduleNow(&DeferringSocket::TsqWake, this);
        }
    }

    void TsqWake()
    {
        m_throttled = false;
        if (m_state == ESTABLISHED || m_state == CLOSE_WAIT)
        {
            SendPendingData(m_connected);
        }
    }

    /* tcp_cwnd_validate, at each decision: limited when data waits and cwnd (not the receiver's
     * window) leaves less than a segment or the deferral holds it. The answer holds until what
     * was sent when it was made is acknowledged, or turns true sooner. */
    void ValidateCwnd(uint32_t room) const
    {
        uint32_t cwnd = m_tcb->m_cWnd.Get();
        uint32_t inFlight = BytesInFlight();
        bool waiting = m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence) > 0;
        bool limited = waiting && cwnd <= m_rWnd.Get() &&
                       (room < m_tcb->m_segmentSize || m_deferring);
        if (m_txBuffer->HeadSequence() >= m_usageSeq || limited ||
            (!m_isCwndLimited && inFlight > m_maxInFlight))
        {
            m_isCwndLimited = limited;
            m_maxInFlight = inFlight;
            m_usageSeq = m_tcb->m_highTxMark.Get();
        }
    }

    bool Defer(uint32_t room, Time now) const
    {
        uint32_t mss = m_tcb->m_segmentSize;
        /* Linux defers in CWR too, never in loss recovery. Mode 1 does not defer in CWR: with
         * sends deferred during a reduction, ns-3.37's PRR, which lets a sender send only what
         * the last ACK delivered once in flight is below ssthresh, and its DCTCP, whose
         * ssthresh has no floor (Linux: 2 segments), drove cwnd to 3 segments and less
         * (validation.md, round 3). Mode 2 defers in CWR with Linux's PRR (linux-cwr.h). */
        TcpSocketState::TcpCongState_t noDeferFrom =
            m_deferInCwr ? TcpSocketState::CA_RECOVERY : TcpSocketState::CA_CWR;
        if (m_tcb->m_congState >= noDeferFrom)
        {
            return false;
        }
        /* Only a buffer of several segments is deferred, and only after a recent send. */
        if (m_txBuffer->SizeFromSequence(m_tcb->m_nextTxSequence) <= mss ||
            now - m_lastSent > MilliSeconds(1))
        {
            return false;
        }
        uint32_t window = std::min(Window(), m_tcb->m_cWnd.Get());
        if (room >= kMaxSegs * mss || room >= window / kWinDivisor)
        {
            return false;
        }
        /* The oldest unacknowledged segment's ACK: due within min(srtt / 2, 1 ms)? */
        SequenceNumber32 head = m_txBuffer->HeadSequence();
        auto it = m_sentAt.lower_bound(head.GetValue());
        if (it == m_sentAt.end())
        {
            return false;
        }
        Time srtt = m_rtt->GetEstimate();
        Time dueIn = it->second + srtt - now;
        return dueIn <= std::min(srtt / 2, MilliSeconds(1));
    }

    void Sent(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() == 0)
        {
            return;
        }
        m_lastSent = Simulator::Now();
        m_sentAt[h.GetSequenceNumber().GetValue()] = m_lastSent;
        /* Forget what has been acknowledged (sequence numbers of one long-lived flow do not
         * wrap within a run of seconds at 10 Gbit/s: 4 GB is 3.4 s). */
        uint32_t head = m_txBuffer->HeadSequence().GetValue();
        m_sentAt.erase(m_sentAt.begin(), m_sentAt.lower_bound(head));
    }

    std::map<uint32_t, Time> m_sentAt; /* each segment's last transmission */
    Time m_lastSent;
    mutable Time m_decidedAt{Time::Max()};
    mutable bool m_deferring = false;
    bool m_deferInCwr = false;
    mutable bool m_isCwndLimited = false;
    mutable uint32_t m_maxInFlight = 0;
    mutable SequenceNumber32 m_usageSeq;
    Ptr<HostDelayQueueDisc> m_host; /* null: no TSQ */
    uint16_t m_port = 0;
    mutable bool m_throttled = false;
    EventId m_tsqWake;
};

NS_OBJECT_ENSURE_REGISTERED(DeferringSocket);

} // namespace

Ptr<Socket>
CreateDeferringSocket(Ptr<Node> node, uint32_t mode, Ptr<HostDelayQueueDisc> host, uint16_t port)
{
    NS_ABORT_MSG_UNLESS(mode == 1 || mode == 2, "tsoDefer: 0, 1 or 2, not " << mode);
    NS_ABORT_MSG_IF(host && mode != 2, "tsq: with tsoDefer=2 only");
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    Ptr<DeferringSocket> s = CreateObject<DeferringSocket>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(CreateObject<RttMeanDeviation>());
    if (mode == 2)
    {
        DeferringSocket* raw = PeekPointer(s);
        s->SetCongestionControlAlgorithm(CreateLinuxDctcp([raw] { return raw->IsCwndLimited(); }));
        s->SetRecoveryAlgorithm(CreateLinuxPrr());
    }
    else
    {
        s->SetCongestionControlAlgorithm(CreateObject<TcpDctcp>());
        s->SetRecoveryAlgorithm(CreateObject<TcpPrrRecovery>());
    }
    tcp->AddSocket(s);
    s->Watch(mode == 2);
    if (host)
    {
        s->UseTsq(host, port);
    }
    return s;
}

} // namespace dc
} // namespace ns3
