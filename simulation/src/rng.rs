//! [`SimRng`]: the one source of randomness of a run, split into independent streams.
//!
//! Every random choice of a run comes from a stream derived from the root seed and a path of
//! numbers, such as (seed, process 3, incarnation 1): adding a process, or a draw in one
//! process, shifts no other stream.

/// A small, fast, deterministic generator (SplitMix64).
///
/// # Examples
///
/// ```
/// use dynalease_sim::SimRng;
///
/// let mut a = SimRng::derive(42, &[3, 1]);
/// let mut b = SimRng::derive(42, &[3, 1]);
/// assert_eq!(a.next_u64(), b.next_u64()); // the same path, the same stream
/// assert_ne!(SimRng::derive(42, &[3]).next_u64(), SimRng::derive(42, &[4]).next_u64());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimRng {
    state: u64,
}

impl SimRng {
    /// A generator whose sequence is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        SimRng { state: seed }
    }

    /// The stream at `path` under `seed`.
    pub fn derive(seed: u64, path: &[u64]) -> Self {
        let mut state = mix(seed ^ 0x6A09_E667_F3BC_C908);
        for &step in path {
            state = mix(state ^ mix(step.wrapping_add(0xBB67_AE85_84CA_A73B)));
        }
        SimRng { state }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.state)
    }

    /// A number in `0..n`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A number in `low..=high`; `low` when the range is empty.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.below(high - low + 1)
    }

    /// A number in `-max_abs..=max_abs`.
    pub fn signed(&mut self, max_abs: u64) -> i64 {
        let max_abs = max_abs.min(i64::MAX as u64 / 2);
        self.range(0, 2 * max_abs) as i64 - max_abs as i64
    }

    /// True with probability `ppm` in a million.
    pub fn chance_ppm(&mut self, ppm: u32) -> bool {
        self.below(1_000_000) < u64::from(ppm)
    }

    /// One of `items`, or `None` if there are none.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len() as u64) as usize)
    }
}

/// The output function of SplitMix64: a bijection that mixes all bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_stay_within_their_bounds() {
        let mut rng = SimRng::new(7);
        for _ in 0..10_000 {
            assert!((5..=9).contains(&rng.range(5, 9)));
            assert!((-3..=3).contains(&rng.signed(3)));
            assert!(rng.below(4) < 4);
        }
        assert_eq!(rng.range(4, 4), 4);
        assert_eq!(rng.below(0), 0);
    }
}
