// SPDX-License-Identifier: GPL-2.0-only
//! CPython's `random.Random` (Modules/_randommodule.c and Lib/random.py), the parts ns3/stats.py
//! draws with: MT19937 from a state `getstate()` gave, `random()`, `getrandbits(k <= 32)` and
//! `randrange(n)`. The same state gives the same draws, bit for bit, so that the page's
//! intervals do not depend on which of the two computed them (`stats.py selftest` compares).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// From `getstate()[1]`: the 624 state words, then the index of the next one.
    pub fn from_state(words: &[u64]) -> Result<PyRandom, String> {
        if words.len() != N + 1 {
            return Err(format!("a state of {} numbers, not {}", words.len(), N + 1));
        }
        let mut mt = [0u32; N];
        for (w, &v) in mt.iter_mut().zip(words) {
            *w = u32::try_from(v).map_err(|_| format!("state word {v} is not 32 bits"))?;
        }
        let index = words[N] as usize;
        if index > N {
            return Err(format!("state index {index} above {N}"));
        }
        Ok(PyRandom { mt, index })
    }

    /// What `getstate()[1]` would give now.
    pub fn state(&self) -> Vec<u64> {
        let mut words: Vec<u64> = self.mt.iter().map(|&w| u64::from(w)).collect();
        words.push(self.index as u64);
        words
    }

    /// genrand_uint32: the next tempered word, regenerating all N at once when used up.
    pub fn next_u32(&mut self) -> u32 {
        let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
        if self.index >= N {
            for kk in 0..N {
                let y = (self.mt[kk] & UPPER_MASK) | (self.mt[(kk + 1) % N] & LOWER_MASK);
                self.mt[kk] = self.mt[(kk + M) % N] ^ (y >> 1) ^ mag(y);
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random()`: 53 bits from two words, a in the high 27 and b in the low 26.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `randrange(n)` for 0 < n < 2^32 (`_randbelow_with_getrandbits`): the top
    /// bit_length(n) bits of a word, drawn again until below n.
    pub fn randbelow(&mut self, n: usize) -> usize {
        debug_assert!(n > 0 && n <= u32::MAX as usize);
        let k = usize::BITS - n.leading_zeros();
        loop {
            let r = (self.next_u32() >> (32 - k)) as usize;
            if r < n {
                return r;
            }
        }
    }

    /// `choices(population, k=len)` without weights: index floor(random() * n), n a float.
    pub fn choice_index(&mut self, n: usize) -> usize {
        (self.random() * n as f64).floor() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference init_genrand(seed), to start from a state known without Python.
    fn seeded(seed: u32) -> PyRandom {
        let mut mt = [0u32; N];
        mt[0] = seed;
        for i in 1..N {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        PyRandom { mt, index: N }
    }

    #[test]
    fn mt19937_reference_outputs() {
        // The first output for seed 5489, and the 10,000th (C++'s std::mt19937 requirement).
        let mut r = seeded(5489);
        assert_eq!(r.next_u32(), 3_499_211_612);
        for _ in 1..9_999 {
            r.next_u32();
        }
        assert_eq!(r.next_u32(), 4_123_659_995);
    }

    #[test]
    fn state_round_trip_and_refusals() {
        let mut a = seeded(1);
        let mut words = a.state();
        let mut b = PyRandom::from_state(&words).unwrap();
        for _ in 0..2 * N {
            assert_eq!(a.next_u32(), b.next_u32());
        }
        assert!(PyRandom::from_state(&words[..N]).is_err());
        words[N] = N as u64 + 1;
        assert!(PyRandom::from_state(&words).is_err());
        words[N] = 0;
        words[0] = 1 << 32;
        assert!(PyRandom::from_state(&words).is_err());
    }

    #[test]
    fn draws_stay_in_range() {
        let mut r = seeded(7);
        for n in [1usize, 2, 3, 5, 667, 1 << 20, (1 << 20) + 1] {
            for _ in 0..200 {
                assert!(r.randbelow(n) < n);
                assert!(r.choice_index(n) < n);
            }
        }
        let x = r.random();
        assert!((0.0..1.0).contains(&x));
    }
}
