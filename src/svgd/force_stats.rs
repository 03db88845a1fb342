//! The `|φ|` statistics of an iteration's info record.

use super::rows::rows;
use crate::float::Float;

/// Running `|φ|` statistics of an iteration.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ForceStats {
    pub(super) sum: f64,
    pub(super) max: f64,
    pub(super) count: u64,
}

impl ForceStats {
    /// Inlined on hosts, into [`add_rows`](Self::add_rows)' loop at d = 1; left to the compiler on
    /// bare metal, where inlining it everywhere took the with-replacement step 48 bytes past the
    /// 776-byte stack budget.
    #[cfg_attr(not(target_os = "none"), inline(always))]
    pub(super) fn add<T: Float>(&mut self, phi: &[T]) {
        let mut s = 0.0f64;
        for p in phi {
            let v = p.to_f64();
            s += v * v;
        }
        let norm = libm::sqrt(s);
        self.sum += norm;
        if norm > self.max {
            self.max = norm;
        }
        self.count += 1;
    }

    /// [`add`](Self::add) for every row of `phi` (rows of `d`), in order. At `d = 1` on hosts
    /// the rows are taken one element at a time rather than through a row iterator, which cost
    /// half the instructions of RBM-SVGD's finish at p = 8; `add` is the same either way. Bare
    /// metal keeps the iterator (flash, and the frame this is inlined into is on the KSD's stack
    /// path).
    #[inline(always)]
    pub(super) fn add_rows<T: Float>(&mut self, phi: &[T], d: usize) {
        if crate::arch::HOSTED && d == 1 {
            for p in phi {
                self.add(core::slice::from_ref(p));
            }
            return;
        }
        for row in rows(phi, d) {
            self.add(row);
        }
    }
}
