/* SPDX-License-Identifier: GPL-2.0-only */
#include "sink.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/object-factory.h"
#include "ns3/rtt-estimator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-socket-base.h"

#include <vector>

namespace ns3
{
namespace dc
{

namespace
{

class SinkSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::EcnSharpSinkSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<SinkSocket>();
        return tid;
    }

    SinkSocket() = default;
    SinkSocket(const SinkSocket& listener) = default;

  protected:
    Ptr<TcpSocketBase> Fork() override
    {
        Ptr<SinkSocket> s = CopyObject<SinkSocket>(this);
        s->m_ecnCESeq = SequenceNumber32(0);
        return s;
    }
};

NS_OBJECT_ENSURE_REGISTERED(SinkSocket);

struct Sink
{
    Callback<void, Ptr<const Packet>, const Address&> rx;
    std::vector<Ptr<Socket>> sockets; /* the listener and every connection, kept alive */
};

/* One per installed sink, for the whole run. */
std::vector<Sink*>&
Sinks()
{
    static std::vector<Sink*> sinks;
    return sinks;
}

void
Read(Sink* sink, Ptr<Socket> s)
{
    Address from;
    while (Ptr<Packet> p = s->RecvFrom(from))
    {
        if (p->GetSize() == 0)
        {
            break;
        }
        sink->rx(p, from);
    }
}

void
Accept(Sink* sink, Ptr<Socket> s, const Address&)
{
    s->SetRecvCallback(MakeBoundCallback(&Read, sink));
    sink->sockets.push_back(s);
}

/* An object of the type TcpL4Protocol's attribute `name` names. */
template <typename T>
Ptr<T>
FromAttribute(Ptr<TcpL4Protocol> tcp, const std::string& name)
{
    TypeIdValue type;
    tcp->GetAttribute(name, type);
    ObjectFactory f;
    f.SetTypeId(type.Get());
    return f.Create<T>();
}

} // namespace

void
InstallSink(Ptr<Node> node, uint16_t port, Callback<void, Ptr<const Packet>, const Address&> rx)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_UNLESS(tcp, "sink: the node has no TCP");
    /* As TcpL4Protocol::CreateSocket builds its sockets. */
    Ptr<SinkSocket> s = CreateObject<SinkSocket>();
    s->SetNode(node);
    s->SetTcp(tcp);
    s->SetRtt(FromAttribute<RttEstimator>(tcp, "RttEstimatorType"));
    s->SetCongestionControlAlgorithm(FromAttribute<TcpCongestionOps>(tcp, "SocketType"));
    s->SetRecoveryAlgorithm(FromAttribute<TcpRecoveryOps>(tcp, "RecoveryType"));
    tcp->AddSocket(s);
    Sink* sink = new Sink{rx, {s}};
    Sinks().push_back(sink);
    NS_ABORT_MSG_IF(s->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0,
                    "sink: cannot bind port " << port);
    s->Listen();
    /* As PacketSink: a connection closes as soon as its peer's FIN comes, and its endpoint goes;
     * later segments of it (a retransmitted FIN) are handed to the listener. */
    s->ShutdownSend();
    s->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                         MakeBoundCallback(&Accept, sink));
}

} // namespace dc
} // namespace ns3
