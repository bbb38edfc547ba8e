// SPDX-License-Identifier: GPL-2.0-only
use super::*;
use std::ffi::CString;

/// Engine memory as a C++ caller provides it.
#[repr(C, align(16))]
struct Storage([u8; 8192]);

fn header() -> &'static str {
    include_str!("../ecnsharp_ns3.h")
}

fn define(name: &str) -> i64 {
    let line = header()
        .lines()
        .find(|l| l.starts_with(&format!("#define {name} ")))
        .unwrap_or_else(|| panic!("{name} not in the header"));
    let value = line[format!("#define {name} ").len()..].trim();
    let value = value.trim_start_matches('(').trim_end_matches(')');
    if let Some(shift) = value.strip_prefix("1u << ") {
        return 1 << shift.parse::<i64>().unwrap();
    }
    value.parse().unwrap()
}

fn init(words: &[&str]) -> Result<Box<Storage>, String> {
    let mut s = Box::new(Storage([0; 8192]));
    let owned: Vec<CString> = words.iter().map(|w| CString::new(*w).unwrap()).collect();
    let ptrs: Vec<*const c_char> = owned.iter().map(|w| w.as_ptr()).collect();
    let mut err = [0 as c_char; 256];
    // SAFETY: storage, words and err are valid for the call.
    let rc = unsafe {
        ecnsharp_engine_init(
            s.0.as_mut_ptr(),
            ptrs.len(),
            ptrs.as_ptr(),
            1,
            1514,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    if rc == 0 {
        Ok(s)
    } else {
        assert_eq!(rc, ECNSHARP_EINVAL);
        // SAFETY: `report` NUL-terminates.
        Err(unsafe { CStr::from_ptr(err.as_ptr()) }
            .to_str()
            .unwrap()
            .to_owned())
    }
}

#[test]
fn header_matches_the_rust_side() {
    let storage = define("ECNSHARP_ENGINE_STORAGE") as usize;
    let align = define("ECNSHARP_ENGINE_ALIGN") as usize;
    assert!(
        ecnsharp_engine_size() <= storage,
        "{}",
        ecnsharp_engine_size()
    );
    assert!(ecnsharp_engine_size() <= size_of::<Storage>());
    assert_eq!(align % ecnsharp_engine_align(), 0);
    assert_eq!(align_of::<Storage>(), align);
    assert_eq!(define("ECNSHARP_EINVAL"), i64::from(ECNSHARP_EINVAL));
    assert_eq!(define("ECNSHARP_QUEUE"), i64::from(ECNSHARP_QUEUE));
    assert_eq!(
        define("ECNSHARP_DROP_LIMIT"),
        i64::from(ECNSHARP_DROP_LIMIT)
    );
    assert_eq!(
        define("ECNSHARP_DROP_NONECT"),
        i64::from(ECNSHARP_DROP_NONECT)
    );
    assert_eq!(define("ECNSHARP_SEND"), i64::from(ECNSHARP_SEND));
    let names = [
        "ECNSHARP_MARK_INSTANTANEOUS",
        "ECNSHARP_MARK_PERSISTENT",
        "ECNSHARP_MARK_QUEUE_ENQUEUE",
        "ECNSHARP_MARK_QUEUE_DEQUEUE",
        "ECNSHARP_MARK_PROBABILISTIC",
    ];
    for (name, cause) in names.iter().zip(MarkCause::ALL) {
        assert_eq!(define(name), i64::from(cause_bits(CauseSet::only(cause))));
    }
    // The stats struct: 16 u64 fields in the header's order.
    assert_eq!(size_of::<EcnSharpStats>(), 16 * 8);
    for f in [
        "ecnsharp_engine_init",
        "ecnsharp_option_default",
        "ecnsharp_engine_enqueue",
        "ecnsharp_engine_select",
        "ecnsharp_engine_shaper_delay",
        "ecnsharp_engine_dequeue",
        "ecnsharp_engine_flush_band",
        "ecnsharp_engine_stats",
        "ecnsharp_engine_config_text",
        "ecnsharp_engine_bands",
    ] {
        assert!(header().contains(&format!(" {f}(")), "{f} not declared");
    }
}

#[test]
fn errors_name_the_option_as_the_kernel_does() {
    assert!(init(&[]).is_ok());
    let cases: [(&[&str], &str); 5] = [
        (&["bands", "17"], "bands must be 1 to 16"),
        (
            &["pst_interval", "999ns"],
            "pst_interval must be at least 1us",
        ),
        (&["mode", "fast"], "Illegal \"mode\": bad value \"fast\""),
        (&["pst_target", "-5ns"], "Illegal \"pst_target\""),
        (
            &["tmin", "300us", "tmax", "200us"],
            "tmin must not exceed tmax",
        ),
    ];
    for (words, want) in cases {
        let err = init(words)
            .err()
            .unwrap_or_else(|| panic!("{words:?} accepted"));
        assert!(err.starts_with(want), "{words:?}: {err:?}");
    }
}

#[test]
fn option_defaults_are_the_kernels() {
    let get = |k: &str| {
        let k = CString::new(k).unwrap();
        let mut out = [0 as c_char; 128];
        // SAFETY: valid string and buffer.
        let rc = unsafe { ecnsharp_option_default(k.as_ptr(), out.as_mut_ptr(), out.len()) };
        // SAFETY: NUL-terminated by `report` on success, zeroed otherwise.
        (
            rc,
            unsafe { CStr::from_ptr(out.as_ptr()) }
                .to_str()
                .unwrap()
                .to_owned(),
        )
    };
    assert_eq!(get("pst_target"), (0, "85us".into()));
    assert_eq!(get("limit"), (0, "1000".into()));
    assert_eq!(
        get("priomap"),
        (0, "1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1".into())
    );
    assert_eq!(get("nope").0, ECNSHARP_EINVAL);
    // All defaults given as words configure exactly the default engine.
    let mut words = Vec::new();
    for k in text::KEYWORDS {
        words.push(k.to_owned());
        words.extend(get(k).1.split_whitespace().map(str::to_owned));
    }
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let s = init(&refs).unwrap();
    // SAFETY: an initialised engine.
    let e = unsafe { &*s.0.as_ptr().cast::<Engine>() };
    assert_eq!(*e.config(), Config::DEFAULT);
}

/// The engine through the C ABI decides what the engine called directly decides.
#[test]
fn c_abi_is_the_engine() {
    let words = [
        "mode",
        "ecnsharp+red",
        "k",
        "20",
        "bands",
        "2",
        "pst_target",
        "5us",
    ];
    let mut s = init(&words).unwrap();
    let p = s.0.as_mut_ptr();
    let cfg = Options::parse(words)
        .unwrap()
        .applied(&Config::DEFAULT)
        .unwrap();
    let mut direct = Engine::new_seeded(&cfg, 1, 1514);
    let mut fifo: [std::collections::VecDeque<(u32, u64, i32)>; 2] = Default::default();
    let mut now = 0u64;
    for i in 0..5_000u64 {
        now += 700 + (i * 7919) % 900;
        let (len, prio, ds) = (64 + (i * 31 % 1_437) as u32, (i % 7) as u32, (i % 4) as i32);
        let (mut band, mut mark) = (0u8, 0u8);
        // SAFETY: initialised engine, valid out-pointers.
        let v = unsafe { ecnsharp_engine_enqueue(p, len, prio, ds, &mut band, &mut mark) };
        let info = PacketInfo {
            len,
            priority: prio,
            dsfield: Some(ds as u8),
        };
        match direct.enqueue(&info) {
            EnqueueVerdict::Queue {
                band: b, mark: m, ..
            } => {
                assert_eq!(
                    (v, band, mark),
                    (ECNSHARP_QUEUE, b.index() as u8, cause_bits(m))
                );
                let ds = if m.is_empty() { ds } else { 3 };
                fifo[b.index()].push_back((len, now, ds));
            }
            EnqueueVerdict::Drop { reason, .. } => assert_eq!(v, drop_code(reason)),
        }
        if i % 3 == 0 {
            continue;
        }
        // SAFETY: initialised engine.
        let sel = unsafe { ecnsharp_engine_select(p) };
        assert_eq!(sel, direct.select().map_or(-1, |b| b.index() as i32));
        if sel < 0 {
            continue;
        }
        let b = sel as usize;
        let (len, at, ds) = fifo[b].pop_front().unwrap();
        let next = fifo[b].front().map_or(-1, |q| i64::from(q.0));
        let mut mark = 0u8;
        // SAFETY: initialised engine, valid out-pointer.
        let v = unsafe { ecnsharp_engine_dequeue(p, now, b as u32, len, at, ds, next, &mut mark) };
        let band = Band::new(b).unwrap();
        let ecn = Ecn::from_dsfield(ds as u8);
        let next = u32::try_from(next).ok();
        match direct.dequeue(now, band, len, at, ecn, next) {
            DequeueVerdict::Send { mark: m } => {
                assert_eq!((v, mark), (ECNSHARP_SEND, cause_bits(m)))
            }
            DequeueVerdict::Drop { reason } => assert_eq!(v, drop_code(reason)),
        }
    }
    let mut st = EcnSharpStats::default();
    // SAFETY: initialised engine, valid out-pointer.
    unsafe { ecnsharp_engine_stats(p, &mut st) };
    let d = direct.stats();
    assert_eq!(
        (st.enqueued, st.packets, st.marks),
        (d.enqueued, d.packets, d.marks)
    );
    assert!(st.marks > 0 && st.marks_by_cause[2] > 0 && st.nonect_passed > 0);
    assert!(st.marks_by_cause.iter().sum::<u64>() >= st.marks);
}
