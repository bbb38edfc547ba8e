/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ns-3 side of the agreement check: replays a packet schedule written by
 * ns3/ffi/tests/agree.rs through ns3::EcnSharpQueueDisc, at the schedule's times in simulated
 * time, and prints the verdict and marks of every packet in the harness's trace format:
 *   e SEQ q MARKBITS | e SEQ drop | d T - | d T SEQ s MARKBITS | d T SEQ x
 * Usage: ecnsharp-agree SCHEDULE > TRACE
 *        ecnsharp-agree --attributes   (defaults and errors of the attributes, as the kernel's)
 */
#include "../model/ecnsharp-queue-disc.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/traffic-control-module.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

Ptr<EcnSharpQueueDisc> g_disc;
std::map<uint64_t, uint64_t> g_seqOfUid;
std::map<uint64_t, unsigned> g_markOfUid; /* marks made by the disc, by packet uid */
std::ostringstream g_out;
uint64_t g_seq = 0;

unsigned
ReasonBits(const std::string& reason)
{
    static const char* names[5] = {"ins", "pst", "red", "dequeue", "prob"};
    unsigned bits = 0;
    std::stringstream ss(reason);
    std::string tok;
    while (std::getline(ss, tok, '+'))
    {
        for (unsigned i = 0; i < 5; i++)
        {
            if (tok == names[i])
            {
                bits |= 1u << i;
            }
        }
    }
    return bits;
}

void
OnMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    g_markOfUid[item->GetPacket()->GetUid()] = ReasonBits(reason);
}

void
OnDropAfterDequeue(Ptr<const QueueDiscItem> item, const char*)
{
    g_out << "d " << Simulator::Now().GetNanoSeconds() << " "
          << g_seqOfUid[item->GetPacket()->GetUid()] << " x\n";
}

void
Arrive(uint32_t len, uint32_t priority, uint8_t dsfield)
{
    Ptr<Packet> p = Create<Packet>(len - 20);
    SocketPriorityTag tag;
    tag.SetPriority(priority);
    p->AddPacketTag(tag);
    Ipv4Header h;
    h.SetTos(dsfield);
    h.SetPayloadSize(len - 20);
    h.SetProtocol(6);
    Ptr<Ipv4QueueDiscItem> item = Create<Ipv4QueueDiscItem>(p, Address(), 0x0800, h);
    uint64_t seq = ++g_seq;
    g_seqOfUid[p->GetUid()] = seq;
    g_markOfUid.erase(p->GetUid());
    if (g_disc->Enqueue(item))
    {
        g_out << "e " << seq << " q " << g_markOfUid[p->GetUid()] << "\n";
        g_markOfUid.erase(p->GetUid());
    }
    else
    {
        g_out << "e " << seq << " drop\n";
    }
}

void
Depart()
{
    Ptr<QueueDiscItem> item = g_disc->Dequeue();
    uint64_t now = Simulator::Now().GetNanoSeconds();
    if (!item)
    {
        g_out << "d " << now << " -\n";
        return;
    }
    uint64_t uid = item->GetPacket()->GetUid();
    g_out << "d " << now << " " << g_seqOfUid[uid] << " s " << g_markOfUid[uid] << "\n";
    g_markOfUid.erase(uid);
}

/* The attributes' defaults are the kernel's, and bad values are refused with its messages. */
int
CheckAttributes()
{
    int failed = 0;
    auto expect = [&failed](const std::string& what, const std::string& got, const std::string& want) {
        bool ok = got.rfind(want, 0) == 0;
        std::cout << (ok ? "ok" : "FAIL") << " - " << what << ": \"" << got << "\"\n";
        failed += !ok;
    };
    Ptr<EcnSharpQueueDisc> d = CreateObject<EcnSharpQueueDisc>();
    expect("defaults are valid", d->Validate(), "");
    d->Initialize();
    expect("defaults are the kernel's", d->ConfigText(),
           "limit 1000p bands 1 mode ecnsharp ins_target 200us pst_target 85us pst_interval 200us "
           "control_law inv_sqrt idle_reset on sched dwrr quanta 1514 classify priority");
    struct Case
    {
        const char* name;
        const char* value;
        const char* want;
    };
    for (Case c : {Case{"bands", "17", "bands must be 1 to 16"},
                   Case{"pst_interval", "999ns", "pst_interval must be at least 1us"},
                   Case{"mode", "fast", "Illegal \"mode\": bad value \"fast\""},
                   Case{"tmin", "500us", "tmin must not exceed tmax"},
                   Case{"pst_target", "5s", "Illegal \"pst_target\""},
                   Case{"quanta", "10", "quanta must be 64 to 1048576 bytes for every band"}})
    {
        Ptr<EcnSharpQueueDisc> bad = CreateObject<EcnSharpQueueDisc>();
        bad->SetAttribute(c.name, StringValue(c.value));
        expect(std::string(c.name) + " " + c.value, bad->Validate(), c.want);
    }
    return failed ? 1 : 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    if (argc == 2 && std::string(argv[1]) == "--attributes")
    {
        return CheckAttributes();
    }
    if (argc != 2)
    {
        std::cerr << "usage: ecnsharp-agree SCHEDULE\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    std::string line;
    if (!std::getline(in, line) || line.rfind("config ", 0) != 0)
    {
        std::cerr << "ecnsharp-agree: " << argv[1] << ": no config line\n";
        return 2;
    }
    /* The schedule's tc words become attributes of the same names. */
    g_disc = CreateObject<EcnSharpQueueDisc>();
    std::stringstream words(line.substr(7));
    std::string key;
    std::string value;
    while (words >> key >> value)
    {
        if (key == "rate") /* bare bits per second */
        {
            g_disc->SetAttribute(key, DataRateValue(DataRate(std::stoull(value))));
        }
        else if (key == "idle_reset")
        {
            g_disc->SetAttribute(key, BooleanValue(value == "on"));
        }
        else
        {
            g_disc->SetAttribute(key, StringValue(value));
        }
    }
    g_disc->SetWatchdog(false);
    g_disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));
    g_disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfterDequeue));
    g_disc->Initialize();

    while (std::getline(in, line))
    {
        std::stringstream f(line);
        char kind;
        uint64_t t;
        f >> kind >> t;
        if (kind == 'e')
        {
            uint32_t len;
            uint32_t prio;
            uint32_t ds;
            f >> len >> prio >> ds;
            Simulator::Schedule(NanoSeconds(t), &Arrive, len, prio, static_cast<uint8_t>(ds));
        }
        else
        {
            Simulator::Schedule(NanoSeconds(t), &Depart);
        }
    }
    Simulator::Run();
    std::cout << g_out.str();
    std::cerr << "ecnsharp-agree: " << g_disc->ConfigText() << "\n";
    Simulator::Destroy();
    return 0;
}
