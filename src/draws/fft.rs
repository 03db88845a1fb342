//! Autocovariances of chains by a radix-2 FFT over caller memory, two real chains per complex
//! transform. O(m·log m) per pair of chains for transforms of length m (the smallest power of
//! two ≥ 2·len), every lag at once, so a chain that never decorrelates (Geyer's sequence running
//! to the last lag) costs no more than one that does. Twiddle factors come from `libm::sincos`
//! and every sum runs in a fixed order: the same bits on every target.

use super::sort::pieces;
use core::f64::consts::PI;

/// The transform length for chains of `len` values: the smallest power of two ≥ max(2·len, 4),
/// so that the cyclic correlation holds every lag below `len` without wrapping around.
pub(crate) fn fft_len(len: usize) -> Option<usize> {
    len.checked_mul(2)?.max(4).checked_next_power_of_two()
}

/// Fills `tw` (at least 2·m values) with the twiddle factors of every stage of a length-`m`
/// transform: for the stage of half-span h = 1, 2, 4, …, m/2, the h factors
/// exp(−iπk/h), k < h, as (re, im) pairs from complex offset h − 1.
pub(crate) fn twiddles(tw: &mut [f64], m: usize) {
    let mut h = 1usize;
    let mut at = 0usize;
    while h < m {
        for k in 0..h {
            let (s, c) = libm::sincos(-PI * (k as f64 / h as f64));
            if let Some([re, im]) = tw.get_mut(2 * (at + k)..2 * (at + k) + 2) {
                *re = c;
                *im = s;
            }
        }
        at += h;
        h *= 2;
    }
}

/// The forward DFT of the m complex values of `buf`, natural order in, **bit-reversed order
/// out** (decimation in frequency, Gentleman–Sande: no permutation pass).
fn forward(buf: &mut [f64], tw: &[f64], m: usize) {
    let mut h = m / 2;
    let mut at = h.saturating_sub(1);
    while h >= 1 {
        let Some(w) = tw.get(2 * at..2 * (at + h)) else {
            return;
        };
        let mut rest = &mut buf[..];
        while let Some((block, tail)) = core::mem::take(&mut rest).split_at_mut_checked(4 * h) {
            rest = tail;
            let Some((lo, hi)) = block.split_at_mut_checked(2 * h) else {
                break;
            };
            for ((l, u), w) in lo
                .chunks_exact_mut(2)
                .zip(hi.chunks_exact_mut(2))
                .zip(w.chunks_exact(2))
            {
                if let ([lr, li], [ur, ui], &[wr, wi]) = (l, u, w) {
                    let (dr, di) = (*lr - *ur, *li - *ui);
                    *lr += *ur;
                    *li += *ui;
                    *ur = wr * dr - wi * di;
                    *ui = wr * di + wi * dr;
                }
            }
        }
        h /= 2;
        at = h.saturating_sub(1);
    }
}

/// The inverse DFT (unnormalised, conjugate factors) of the m complex values of `buf`,
/// **bit-reversed order in**, natural order out (decimation in time).
fn inverse(buf: &mut [f64], tw: &[f64], m: usize) {
    let mut h = 1usize;
    let mut at = 0usize;
    while h < m {
        let Some(w) = tw.get(2 * at..2 * (at + h)) else {
            return;
        };
        let mut rest = &mut buf[..];
        while let Some((block, tail)) = core::mem::take(&mut rest).split_at_mut_checked(4 * h) {
            rest = tail;
            let Some((lo, hi)) = block.split_at_mut_checked(2 * h) else {
                break;
            };
            for ((l, u), w) in lo
                .chunks_exact_mut(2)
                .zip(hi.chunks_exact_mut(2))
                .zip(w.chunks_exact(2))
            {
                if let ([lr, li], [ur, ui], &[wr, wi]) = (l, u, w) {
                    // t = u·conj(w)
                    let tr = wr * *ur + wi * *ui;
                    let ti = wr * *ui - wi * *ur;
                    *ur = *lr - tr;
                    *ui = *li - ti;
                    *lr += tr;
                    *li += ti;
                }
            }
        }
        at += h;
        h *= 2;
    }
}

/// The two power spectra of Z = A + iB (A, B the transforms of two real sequences), in place
/// and in bit-reversed order: A_k = (Z_k + conj Z_{m−k})/2, B_k = (Z_k − conj Z_{m−k})/(2i),
/// and element k becomes |A_k|² + i·|B_k|² (both real and even in k). In bit-reversed order
/// frequency k and m − k sit mirrored in the same octave of positions [2^j, 2^{j+1})
/// (positions 0 and 1, frequencies 0 and m/2, are their own partners).
fn power_spectra(buf: &mut [f64]) {
    let spectra = |z: (f64, f64), w: (f64, f64)| {
        let (zr, zi) = z;
        let (wr, wi) = w;
        let pa = ((zr + wr) * (zr + wr) + (zi - wi) * (zi - wi)) * 0.25;
        let pb = ((zr - wr) * (zr - wr) + (zi + wi) * (zi + wi)) * 0.25;
        (pa, pb)
    };
    let Some((first, mut rest)) = buf.split_at_mut_checked(4) else {
        return;
    };
    for pair in first.chunks_exact_mut(2) {
        if let [re, im] = pair {
            let (pa, pb) = spectra((*re, *im), (*re, *im));
            *re = pa;
            *im = pb;
        }
    }
    let mut octave = 4usize; // values (2 per complex) in the next octave of positions
    while let Some((block, tail)) = core::mem::take(&mut rest).split_at_mut_checked(octave) {
        rest = tail;
        let Some((lo, hi)) = block.split_at_mut_checked(octave / 2) else {
            break;
        };
        for (a, b) in lo.chunks_exact_mut(2).zip(hi.chunks_exact_mut(2).rev()) {
            if let ([ar, ai], [br, bi]) = (a, b) {
                let (pa, pb) = spectra((*ar, *ai), (*br, *bi));
                *ar = pa;
                *ai = pb;
                *br = pa;
                *bi = pb;
            }
        }
        octave *= 2;
    }
}

/// The mean of a chain, `x₀ + Σ(x − x₀)/len` in order (the one definition every caller
/// shares): exactly x₀ for a constant chain, so that its deviations, hence its variance and
/// autocovariances, are exactly 0 (ArviZ's R̂ is then ∞ for constant chains at different
/// values, and NaN when all agree).
pub(crate) fn chain_mean(chain: &[f64]) -> f64 {
    let first = chain.first().copied().unwrap_or(f64::NAN);
    first + chain.iter().map(|&x| x - first).sum::<f64>() / chain.len() as f64
}

/// Adds every chain's biased autocovariance, `(1/len)·Σ_t (x_t − x̄)(x_{t+k} − x̄)` for the lags
/// k < len around the chain's own mean, to `acc[k]`, chain after chain in order. The chains are
/// consecutive runs of `len` values of `series`; they are transformed two at a time (the first
/// as real part, the second as imaginary part; a last odd chain with zeros). `buf` holds 2·m
/// values and `tw` the twiddles of [`twiddles`] for m = [`fft_len`]`(len)`.
pub(crate) fn add_autocovariances(
    series: &[f64],
    len: usize,
    buf: &mut [f64],
    tw: &[f64],
    m: usize,
    acc: &mut [f64],
) {
    let (lenf, mf) = (len as f64, m as f64);
    let mut chains = pieces(series, len);
    while let Some(a) = chains.next() {
        let b = chains.next();
        for v in buf.iter_mut() {
            *v = 0.0;
        }
        let ma = chain_mean(a);
        for (slot, &x) in buf.chunks_exact_mut(2).zip(a) {
            if let [re, _] = slot {
                *re = x - ma;
            }
        }
        if let Some(b) = b {
            let mb = chain_mean(b);
            for (slot, &x) in buf.chunks_exact_mut(2).zip(b) {
                if let [_, im] = slot {
                    *im = x - mb;
                }
            }
        }
        // The inverse transform of |A|² + i|B|² is the pair of (cyclic, here linear)
        // autocorrelations: the first chain's in the real parts, the second's in the imaginary.
        forward(buf, tw, m);
        power_spectra(buf);
        inverse(buf, tw, m);
        for (slot, s) in buf.chunks_exact(2).zip(acc.iter_mut()).take(len) {
            if let &[re, _] = slot {
                *s += re / mf / lenf;
            }
        }
        if b.is_some() {
            for (slot, s) in buf.chunks_exact(2).zip(acc.iter_mut()).take(len) {
                if let &[_, im] = slot {
                    *s += im / mf / lenf;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The FFT autocovariances equal the direct sums, for lengths that are and are not powers
    /// of two, and an odd number of chains.
    #[test]
    fn autocovariances_equal_the_direct_sums() {
        let mut state = 1u64;
        for (k, len) in [(2usize, 2usize), (3, 5), (2, 16), (4, 100), (1, 257)] {
            let series: Vec<f64> = (0..k * len)
                .map(|_| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    (state >> 11) as f64 / (1u64 << 53) as f64 * 4.0 + 10.0
                })
                .collect();
            let m = fft_len(len).unwrap();
            let mut tw = vec![0.0; 2 * m];
            twiddles(&mut tw, m);
            let mut buf = vec![0.0; 2 * m];
            let mut acc = vec![0.0; len];
            add_autocovariances(&series, len, &mut buf, &tw, m, &mut acc);
            for lag in 0..len {
                let want: f64 = series
                    .chunks(len)
                    .map(|c| {
                        let mean = c.iter().sum::<f64>() / len as f64;
                        (lag..len)
                            .map(|t| (c[t] - mean) * (c[t - lag] - mean))
                            .sum::<f64>()
                            / len as f64
                    })
                    .sum();
                assert!(
                    (acc[lag] - want).abs() < 1e-12,
                    "k={k} len={len} lag={lag}: {} vs {want}",
                    acc[lag]
                );
            }
        }
    }
}
