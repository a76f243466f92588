//! Reproducible pseudo-random numbers for unit tests (a linear congruential
//! generator: the same seed gives the same cases on every run).

/// A generator of numbers below a bound, from `seed`: `next(n)` is in `0..n`.
pub fn below(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    }
}
