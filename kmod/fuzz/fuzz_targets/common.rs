// SPDX-License-Identifier: GPL-2.0-only
//! Helpers shared by the fuzz targets (included with `#[path]`).

use ecnsharp::band::MAX_BANDS;
use ecnsharp::config::{Config, DEFAULT_QUANTUM};

/// `cfg` with the quanta and weights of bands not in use set to the defaults: neither the dump
/// nor the printed text carries those entries, so round trips compare configurations this way.
pub fn normalized(mut cfg: Config) -> Config {
    let used = usize::from(cfg.bands).min(MAX_BANDS);
    for (i, (q, w)) in cfg
        .sched
        .quanta
        .iter_mut()
        .zip(cfg.sched.weights.iter_mut())
        .enumerate()
    {
        if i >= used {
            *q = DEFAULT_QUANTUM;
            *w = 1;
        }
    }
    cfg
}
