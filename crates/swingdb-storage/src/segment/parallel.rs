//! Work on all cores: the statistics of a segment's columns (computed as a
//! segment is written, and from an offered segment's bytes), a column per
//! thread, the costliest first.

use crate::error::{Error, Result};
use datafusion::arrow::array::RecordBatch;

/// Most threads computing one segment's statistics: as many as cores, up to
/// this. They take longer than writing the file (lineitem SF1: about 1.0 s of
/// CPU against 0.7), so on this 2-core machine two threads, sharing the cores
/// with the writing one and using both while it waits for the disk, stored
/// lineitem SF1 on tmpfs in 0.97 s rather than 1.11 with one (medians of 8).
/// Each thread takes whole columns, so more than a table has columns never help.
const STATS_THREADS: usize = 8;

/// The bytes column `c` of `pieces` covers: how long its statistics take.
pub fn column_bytes(pieces: &[RecordBatch], c: usize) -> usize {
    pieces.iter().map(|p| p.column(c).to_data().get_slice_memory_size().unwrap_or(0)).sum()
}

/// `work(i)` for each `i` in `0..n`, in order, on up to [`STATS_THREADS`]
/// threads (as many as cores), the costliest (`cost`) started first.
pub fn in_parallel<T: Send>(
    n: usize,
    cost: impl Fn(usize) -> usize,
    work: impl Fn(usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(cost(i)));
    let threads = std::thread::available_parallelism().map_or(1, |c| c.get()).clamp(1, STATS_THREADS).min(n);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: Vec<Vec<(usize, Result<T>)>> = std::thread::scope(|scope| {
        let worker = || {
            let mut done = Vec::new();
            while let Some(&i) = order.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                done.push((i, work(i)));
            }
            done
        };
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(worker)).collect();
        let mut all = vec![worker()];
        all.extend(helpers.into_iter().map(|h| h.join().unwrap_or_default()));
        all
    });
    let mut results: Vec<Option<Result<T>>> = (0..n).map(|_| None).collect();
    for (i, result) in done.into_iter().flatten() {
        results[i] = Some(result);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::internal("computing segment statistics panicked"))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_in_parallel_answers_in_order_and_reports_failures() {
        let squares = in_parallel(40, |i| i % 7, |i| Ok(i * i)).unwrap();
        assert_eq!(squares, (0..40).map(|i| i * i).collect::<Vec<_>>());
        let failed = in_parallel(40, |i| i, |i| if i == 13 { Err(Error::internal("thirteen")) } else { Ok(i) });
        assert!(failed.unwrap_err().message().contains("thirteen"));
        assert!(in_parallel(0, |i| i, Ok).unwrap().is_empty());
    }
}
