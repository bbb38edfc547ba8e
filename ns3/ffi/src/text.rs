// SPDX-License-Identifier: GPL-2.0-only
//! One option's value as tc text, for the ns-3 attributes' defaults.
//!
//! The core prints whole configurations ([`ecnsharp::options::ConfigText`]) and leaves out what
//! is off; ns-3 needs every keyword's default on its own. Each value is printed in a form that
//! [`ecnsharp::options::Options::parse`] reads back to the same value (a test checks every
//! keyword), so the defaults stay those of [`ecnsharp::config::Config::DEFAULT`].

use core::fmt::{self, Write};

use ecnsharp::band::MAX_BANDS;
use ecnsharp::config::{
    ClassifyMode, Config, ControlLaw, Modes, NonEctPolicy, QueueUnit, SchedKind, DEFAULT_DSCPMAP,
};

/// Every keyword of the tc grammar: the core's own list, so the ns-3 attributes cannot drift
/// from the kernel's options.
pub use ecnsharp::options::KEYWORDS;

/// A time in ns as `200us` when whole microseconds, else `1234ns` (both tc and ns-3 read it).
fn time(w: &mut impl Write, ns: u64) -> fmt::Result {
    if ns.is_multiple_of(1_000) {
        write!(w, "{}us", ns / 1_000)
    } else {
        write!(w, "{ns}ns")
    }
}

/// Modes as `+`-joined flags (tc reads every combination this way).
fn modes(w: &mut impl Write, m: Modes) -> fmt::Result {
    if m == Modes::ECN_SHARP {
        return w.write_str("ecnsharp");
    }
    let flags = [
        ("ins", Modes::INSTANTANEOUS),
        ("pst", Modes::PERSISTENT),
        ("red", Modes::QUEUE_ENQUEUE),
        ("dequeue", Modes::QUEUE_DEQUEUE),
        ("prob", Modes::PROBABILISTIC),
    ];
    let mut sep = "";
    for (name, flag) in flags {
        if m.contains(flag) {
            write!(w, "{sep}{name}")?;
            sep = "+";
        }
    }
    Ok(())
}

/// Comma-joined per-band values of the bands in use.
fn list(w: &mut impl Write, values: &[u32; MAX_BANDS], bands: u8) -> fmt::Result {
    let used = usize::from(bands).clamp(1, MAX_BANDS);
    let mut sep = "";
    for v in values.iter().take(used) {
        write!(w, "{sep}{v}")?;
        sep = ",";
    }
    Ok(())
}

/// Writes the value of `keyword` in `cfg` as tc text; `Ok(false)` if the keyword is unknown.
pub fn write_value(w: &mut impl Write, cfg: &Config, keyword: &str) -> Result<bool, fmt::Error> {
    let m = &cfg.marking;
    match keyword {
        "limit" => write!(w, "{}", cfg.limit_packets)?,
        "limit_bytes" => write!(w, "{}", cfg.limit_bytes)?,
        "bands" => write!(w, "{}", cfg.bands)?,
        "mode" => modes(w, m.modes)?,
        "ins_target" => time(w, m.ins_target)?,
        "pst_target" => time(w, m.pst_target)?,
        "pst_interval" => time(w, m.pst_interval)?,
        "control_law" => w.write_str(match m.control_law {
            ControlLaw::InvSqrt => "inv_sqrt",
            ControlLaw::Linear => "linear",
            ControlLaw::Ns3 => "ns3",
        })?,
        "idle_reset" => w.write_str(if m.idle_reset { "on" } else { "off" })?,
        "k" => write!(w, "{}", m.k)?,
        "k_unit" => w.write_str(match m.k_unit {
            QueueUnit::Packets => "packets",
            QueueUnit::Bytes => "bytes",
        })?,
        "tmin" => time(w, m.tmin)?,
        "tmax" => time(w, m.tmax)?,
        "pmax" => {
            // ppm as a fraction with six decimals: exact.
            write!(
                w,
                "{}.{:06}",
                m.pmax_ppm / 1_000_000,
                m.pmax_ppm % 1_000_000
            )?
        }
        "seed" => write!(w, "{}", m.seed)?,
        "sched" => w.write_str(match cfg.sched.kind {
            SchedKind::Sp => "sp",
            SchedKind::Dwrr => "dwrr",
            SchedKind::Wfq => "wfq",
        })?,
        "strict" => write!(w, "{}", cfg.sched.strict_bands)?,
        "quanta" => list(w, &cfg.sched.quanta, cfg.bands)?,
        "weights" => list(w, &cfg.sched.weights, cfg.bands)?,
        "classify" => w.write_str(match cfg.classify.mode {
            ClassifyMode::Priority => "priority",
            ClassifyMode::Dscp => "dscp",
        })?,
        "priomap" => {
            let mut sep = "";
            for b in cfg.classify.priomap {
                write!(w, "{sep}{b}")?;
                sep = " ";
            }
        }
        "dscpmap" => {
            let changed = cfg.classify.dscpmap.iter().zip(DEFAULT_DSCPMAP.iter());
            let mut sep = "";
            for (dscp, (band, default)) in changed.enumerate() {
                if band != default {
                    write!(w, "{sep}{dscp}:{band}")?;
                    sep = ",";
                }
            }
            if sep.is_empty() {
                w.write_str("default")?;
            }
        }
        // Bits per second; a bare number is bit/s for tc.
        "rate" => write!(w, "{}", cfg.shaper.rate_bps)?,
        "burst" => write!(w, "{}", cfg.shaper.burst_bytes)?,
        "non_ect" => w.write_str(match cfg.non_ect {
            NonEctPolicy::Pass => "pass",
            NonEctPolicy::Drop => "drop",
        })?,
        "split_gso" => w.write_str(if cfg.split_gso { "on" } else { "off" })?,
        _ => return Ok(false),
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ecnsharp::options::Options;
    use ecnsharp::time::us;

    fn value(cfg: &Config, keyword: &str) -> String {
        let mut s = String::new();
        assert!(write_value(&mut s, cfg, keyword).unwrap(), "{keyword}");
        s
    }

    /// Every keyword's printed value, parsed by the core and laid over `base`, gives `cfg`'s.
    fn round_trips(cfg: &Config, base: &Config) {
        let mut got = *base;
        for keyword in KEYWORDS {
            let text = value(cfg, keyword);
            let mut words = vec![keyword];
            words.extend(text.split_whitespace());
            let opts = Options::parse(words.iter().copied())
                .unwrap_or_else(|e| panic!("{keyword} {text}: {e}"));
            opts.apply(&mut got);
        }
        assert_eq!(got, *cfg);
    }

    #[test]
    fn defaults_round_trip_through_the_core_parser() {
        round_trips(&Config::DEFAULT, &Config::DEFAULT);
        assert_eq!(value(&Config::DEFAULT, "ins_target"), "200us");
        assert_eq!(value(&Config::DEFAULT, "mode"), "ecnsharp");
        assert_eq!(value(&Config::DEFAULT, "dscpmap"), "default");
        assert!(!write_value(&mut String::new(), &Config::DEFAULT, "nope").unwrap());
    }

    #[test]
    fn other_configurations_round_trip() {
        let mut cfg = Config::DEFAULT;
        cfg.bands = 3;
        cfg.limit_bytes = 30_000;
        cfg.marking.modes = Modes(Modes::QUEUE_ENQUEUE.0 | Modes::PROBABILISTIC.0);
        cfg.marking.pst_target = 1_234;
        cfg.marking.control_law = ControlLaw::Ns3;
        cfg.marking.idle_reset = false;
        cfg.marking.k = 90_000;
        cfg.marking.k_unit = QueueUnit::Bytes;
        cfg.marking.tmin = us(50);
        cfg.marking.pmax_ppm = 1_000_000;
        cfg.marking.seed = 7;
        cfg.sched.kind = SchedKind::Wfq;
        cfg.sched.strict_bands = 1;
        cfg.sched.quanta[1] = 3_000;
        cfg.sched.weights[2] = 4;
        cfg.classify.mode = ClassifyMode::Dscp;
        cfg.classify.priomap[3] = 2;
        cfg.classify.dscpmap[46] = 0;
        cfg.shaper.rate_bps = 9_950_000_000;
        cfg.shaper.burst_bytes = 60_000;
        cfg.non_ect = NonEctPolicy::Drop;
        assert_eq!(cfg.validate(), Ok(()));
        round_trips(&cfg, &Config::DEFAULT);
        assert_eq!(value(&cfg, "mode"), "red+prob");
        assert_eq!(value(&cfg, "pmax"), "1.000000");
    }
}
