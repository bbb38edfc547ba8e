/* SPDX-License-Identifier: GPL-2.0-only */
#include "linux-cwr.h"

#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>
#include <cstdint>

namespace ns3
{
namespace dc
{

namespace
{

class LinuxPrr : public TcpRecoveryOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnSharpLinuxPrr")
                                .SetParent<TcpRecoveryOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<LinuxPrr>();
        return tid;
    }

    std::string GetName() const override
    {
        return "EcnSharpLinuxPrr";
    }

    /* tcp_init_cwnd_reduction: ssthresh is already set by the caller (EnterCwr, EnterRecovery). */
    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t dupAckCount,
                       uint32_t unAckDataCount,
                       uint32_t deliveredBytes) override
    {
        m_priorCwnd = std::max<uint64_t>(tcb->m_cWnd.Get(), 1);
        m_prrDelivered = 0;
        m_prrOut = 0;
        DoRecovery(tcb, deliveredBytes);
    }

    /* tcp_cwnd_reduction, in bytes. ns-3 calls it for ACKs that advance the left edge, so the
     * extra segment for FLAG_SND_UNA_ADVANCED is always given (the scenarios lose nothing). */
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes) override
    {
        if (deliveredBytes == 0)
        {
            return;
        }
        const int64_t mss = tcb->m_segmentSize;
        const int64_t ssthresh = tcb->m_ssThresh.Get();
        const int64_t inFlight = tcb->m_bytesInFlight.Get();
        const int64_t delta = ssthresh - inFlight;
        m_prrDelivered += deliveredBytes;
        int64_t sndcnt;
        if (delta < 0)
        {
            /* Rounded up, as Linux's division of packets is. */
            uint64_t share = (static_cast<uint64_t>(ssthresh) * m_prrDelivered + m_priorCwnd - 1) /
                             m_priorCwnd;
            sndcnt = static_cast<int64_t>(share) - static_cast<int64_t>(m_prrOut);
        }
        else
        {
            int64_t credit = static_cast<int64_t>(m_prrDelivered) - static_cast<int64_t>(m_prrOut);
            sndcnt = std::min(delta, std::max<int64_t>(credit, deliveredBytes) + mss);
        }
        /* A fast retransmit on entering recovery. */
        sndcnt = std::max<int64_t>(sndcnt, m_prrOut > 0 ? 0 : mss);
        tcb->m_cWnd = static_cast<uint32_t>(inFlight + sndcnt);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    /* tcp_end_cwnd_reduction: ns-3's TcpSocketBase has just set cwnd to ssthresh for CWR. */
    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_prrOut += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<LinuxPrr>(this);
    }

  private:
    uint64_t m_priorCwnd = 1;
    uint64_t m_prrDelivered = 0;
    uint64_t m_prrOut = 0;
};

class LinuxDctcp : public TcpDctcp
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnSharpLinuxDctcp")
                                .SetParent<TcpDctcp>()
                                .SetGroupName("Internet")
                                .AddConstructor<LinuxDctcp>();
        return tid;
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        return std::max(TcpDctcp::GetSsThresh(tcb, bytesInFlight), 2 * tcb->m_segmentSize);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (m_cwndLimited && !m_cwndLimited())
        {
            return;
        }
        TcpDctcp::IncreaseWindow(tcb, segmentsAcked);
    }

    /* A copy asks the same socket: only listening sockets fork, and senders never listen. */
    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<LinuxDctcp>(this);
    }

    std::function<bool()> m_cwndLimited;
};

NS_OBJECT_ENSURE_REGISTERED(LinuxPrr);
NS_OBJECT_ENSURE_REGISTERED(LinuxDctcp);

} // namespace

Ptr<TcpRecoveryOps>
CreateLinuxPrr()
{
    return CreateObject<LinuxPrr>();
}

Ptr<TcpCongestionOps>
CreateLinuxDctcp(std::function<bool()> cwndLimited)
{
    Ptr<LinuxDctcp> cc = CreateObject<LinuxDctcp>();
    cc->m_cwndLimited = std::move(cwndLimited);
    return cc;
}

} // namespace dc
} // namespace ns3
