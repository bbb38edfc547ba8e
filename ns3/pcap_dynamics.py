#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""How each sender's packets leave it, from one instrument on both sides: the Linux side's
tcpdump captures (tests/ns3/linux-guest.sh PCAP_MS=N: sN.pcap on each sender's eth0) and the
ns-3 side's packet trace (ecnsharp-dc --traceMs=N: PREFIX.pkts). One line per sender:

  pcap_dynamics.py NAME linux RUN_DIR SENDERS [NETEM_US]   (NETEM_US: with HOST_NIC=0 the data
                                                            left TCP that long before eth0)
  pcap_dynamics.py NAME ns3 PKTS_FILE SENDERS

Keys: pkts_per_ms (data packets), gap_p50_us / gap_p99_us (between consecutive data packets),
gaps10_per_ms (gaps over 10 us), burst_mean (packets sent within 100 ns of each other),
burst8_share (share of packets in such bursts of 8 or more), and sent_per_ack_0/1/2/3p (the
share of ACK arrivals followed by 0, 1, 2, 3 or more data packets before the next ACK)."""
import struct
import sys


def pcap_packets(path, host):
    """(t_ns, 'data'|'ack') of sender `host`'s TCP packets in a nanosecond pcap (Ethernet)."""
    me = bytes([10, host, 0, 1])
    out = []
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or struct.unpack("<I", head[:4])[0] != 0xA1B23C4D:
            raise SystemExit(f"{path}: not a nanosecond pcap")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, nsec, incl, _ = struct.unpack("<IIII", rec)
            d = f.read(incl)
            if len(d) < incl or d[12:14] != b"\x08\x00" or d[23] != 6:
                continue
            ip = d[14:]
            ihl = (ip[0] & 15) * 4
            payload = struct.unpack("!H", ip[2:4])[0] - ihl - (ip[ihl + 12] >> 4) * 4
            t = sec * 10**9 + nsec
            if ip[12:16] == me and payload > 0:
                out.append((t, "data"))
            elif ip[16:20] == me and payload == 0:
                out.append((t, "ack"))
    return out


def ns3_packets(path, host, where):
    out = []
    for line in open(path):
        if line.startswith("#"):
            continue
        t, h, w, _seq, _ack, _flags, _ecn, payload = line.split()
        if int(h) != host:
            continue
        if w == where and int(payload) > 0:
            out.append((int(t), "data"))
        elif w == "ack" and int(payload) == 0:
            out.append((int(t), "ack"))
    return sorted(out)


def summarise(events, shift_ns=0):
    data = [t - shift_ns for t, k in events if k == "data"]
    acks = [t for t, k in events if k == "ack"]
    if len(data) < 100 or len(acks) < 100:
        raise SystemExit(f"too few packets ({len(data)} data, {len(acks)} ACKs)")
    span_ms = (data[-1] - data[0]) / 1e6
    gaps = sorted((b - a) / 1000 for a, b in zip(data, data[1:]))
    q = lambda f: gaps[int(f * (len(gaps) - 1))]
    bursts, cur = [], 1
    for a, b in zip(data, data[1:]):
        if b - a <= 100:
            cur += 1
        else:
            bursts.append(cur)
            cur = 1
    bursts.append(cur)
    per_ack = [0, 0, 0, 0]
    merged = sorted([(t, 0) for t in acks] + [(t, 1) for t in data])
    n = None
    for _, kind in merged:
        if kind == 0:
            if n is not None:
                per_ack[min(n, 3)] += 1
            n = 0
        elif n is not None:
            n += 1
    total = sum(per_ack)
    return {
        "pkts_per_ms": f"{len(data) / span_ms:.0f}",
        "gap_p50_us": f"{q(0.5):.2f}", "gap_p99_us": f"{q(0.99):.1f}",
        "gaps10_per_ms": f"{sum(1 for g in gaps if g > 10) / span_ms:.1f}",
        "burst_mean": f"{len(data) / len(bursts):.2f}",
        "burst8_share": f"{sum(b for b in bursts if b >= 8) / len(data):.3f}",
        **{f"sent_per_ack_{k}": f"{per_ack[i] / total:.3f}"
           for i, k in enumerate(("0", "1", "2", "3p"))},
    }


def main():
    if len(sys.argv) not in (5, 6) or sys.argv[2] not in ("linux", "ns3"):
        print(__doc__, file=sys.stderr)
        return 2
    name, side, src, senders = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    netem_ns = int(float(sys.argv[5]) * 1000) if len(sys.argv) == 6 else 0
    for host in range(1, senders + 1):
        rows = []
        if side == "linux":
            ev = pcap_packets(f"{src}/s{host}.pcap", host)
            rows.append(("tcp" if netem_ns else "nic", summarise(ev, netem_ns)))
        else:
            rows.append(("tcp", summarise(ns3_packets(src, host, "tcp"))))
            rows.append(("nic", summarise(ns3_packets(src, host, "nic"))))
        for where, s in rows:
            print(f"name={name} side={side} flow=s{host} where={where} "
                  + " ".join(f"{k}={v}" for k, v in s.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
