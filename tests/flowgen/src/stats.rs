// SPDX-License-Identifier: GPL-2.0-only
//! Summary statistics of completion times.

/// The p-th percentile (0 to 100) by nearest rank; None for no samples.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

pub fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A JSON number, or null for a missing statistic.
pub fn json(v: Option<f64>) -> String {
    v.map_or("null".into(), |x| format!("{x:.0}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 99.0), Some(99.0));
        assert_eq!(percentile(&v, 50.0), Some(50.0));
        assert_eq!(percentile(&v, 100.0), Some(100.0));
        assert_eq!(percentile(&[5.0], 99.0), Some(5.0));
        assert_eq!(percentile(&[], 99.0), None);
        assert_eq!(json(mean(&[1.0, 2.0])), "2");
        assert_eq!(json(None), "null");
    }
}
