//! Exact standard-normal draws by the Ziggurat method (Marsaglia & Tsang 2000, in the form of
//! Doornik 2005: the layer, the sign and the abscissa come from independent bits of one 64-bit
//! word, so a draw that lands in a rectangle costs exactly one generator output).
//!
//! 128 layers of equal area `V` under `f(x) = exp(−x²/2)`, with the base layer extended by the
//! tail beyond `R`. Given exact uniform bits the method is exact: every branch samples the region
//! under `f` uniformly. The tables below are written out so that no target computes them at
//! start-up (and none can compute them differently); a test regenerates them through `libm` and
//! checks every bit, and another checks that `R` closes the top layer.

use crate::rng::{Checkpoint, Rng};

/// Right edge of the base layer: the root of "the 128 layers close at x = 0", solved by bisection.
pub(crate) const R: f64 = 3.4426198558966528;
/// Area of each layer (unnormalised density): `R·f(R) + √(π/2)·erfc(R/√2)`.
#[cfg(test)]
pub(crate) const V: f64 = 0.009912563035336441;
/// Number of layers; `LAYERS` is a power of two so that the layer index is 7 bits.
pub(crate) const LAYERS: usize = 128;

/// 2⁻⁵³: scales a 53-bit integer to a uniform in `[0, 1)` (exactly).
const TWO_M53: f64 = 1.0 / 9007199254740992.0;

/// Draws one N(0, 1) variate.
///
/// Consumes one `u64` per attempt (97.2 % of draws take one attempt and no other work than one or
/// two multiplies, a table look-up and a compare): bits 0‥6 pick the layer `i`, bit 7 the sign,
/// bits 11‥63 the 53-bit integer `u`; the abscissa is `x = (u·2⁻⁵³)·X[i]`, inside the layer's
/// rectangle and under the curve when `x < X[i+1]` (`fast_plain`, the definition; hosted targets
/// compute the same bits in fewer instructions, `fast`); otherwise [`edge`] finishes the draw
/// (wedge or tail, more words). The fast path is small enough for the compiler to inline into the
/// samplers' loops where speed matters (it does at opt-level 3); on bare-metal targets
/// (`target_os = "none"`, the Cortex-M firmware) it is kept out of line, one copy for every
/// caller, because flash is what counts there and a call is a few cycles next to a soft-float
/// normal. The rare path is always out of line so that it costs the loops no code size. Same
/// bits either way.
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
pub(crate) fn normal(rng: &mut Rng) -> f64 {
    let bits = rng.next_u64();
    if let Some(z) = fast(bits) {
        return z;
    }
    // The generator goes to `edge` and back as plain words, not by reference: a reference passed
    // to an out-of-line function makes a loop's local generator escape, and the compiler then
    // keeps it in memory (a store and a load on the generator's critical path at every draw).
    // Passed by value a local generator (as in `noise::sweep`, `Rng::fill_normal`) stays in
    // registers and is only spilled on this rare path; and since only the position comes back,
    // the compiler knows the stream id did not change and keeps the LCG increment derived from
    // it in a register for the whole loop instead of recomputing it at every draw.
    let (z, at) = edge(rng.checkpoint(), rng.stream(), bits);
    rng.restore(at);
    z
}

/// The fast path of one attempt: `±x` with `x = (u·2⁻⁵³)·X[i]` when `x < X[i+1]`, else `None`.
/// This is the definition, and what bare-metal targets compute (one table, two multiplies).
#[cfg(any(target_os = "none", test))]
#[inline(always)]
fn fast_plain(bits: u64) -> Option<f64> {
    let i = (bits & 0x7f) as usize;
    let x = ((bits >> 11) as f64 * TWO_M53) * X[i];
    if x < X[i + 1] {
        // The sign goes straight into the sign bit: the same bits as `±1.0 · x`, no branch.
        Some(f64::from_bits(x.to_bits() | ((bits & 0x80) << 56)))
    } else {
        None
    }
}

/// Bare metal: the definition itself (the hosted form's tables would cost 4 KiB of flash).
#[cfg(target_os = "none")]
#[inline(always)]
fn fast(bits: u64) -> Option<f64> {
    fast_plain(bits)
}

/// `fast_plain` in fewer instructions, with the same bits, from 4 KiB of tables indexed by the
/// low byte `j` (layer and sign together): `FAST.scale[j] = ±X[i]·2⁻⁵³` and
/// `FAST.bound[j] = bits(X[i+1]) << 1`.
///
/// - `u·(±X[i]·2⁻⁵³)` is `±(u·2⁻⁵³)·X[i]` bit for bit: `u·2⁻⁵³` and `X[i]·2⁻⁵³` are exact
///   (scaling by a power of two, far from the subnormal range), so both are the same real number
///   rounded once, and round-to-nearest is symmetric in the sign (`u = 0` gives `±0` both ways).
/// - The test `|x| < X[i+1]` on the bits: for non-negative finite doubles the order of the bit
///   patterns is the numeric order, and `<< 1` drops the sign. So the sign needs no separate
///   instruction and the product is the result.
///
/// Hosted targets only: the Cortex-M firmware keeps `fast_plain` rather than 4 KiB more flash
/// (its build is compared with the host's bit for bit by `scripts/test-firmware.sh`).
#[cfg(not(target_os = "none"))]
#[inline(always)]
fn fast(bits: u64) -> Option<f64> {
    let j = (bits & 0xff) as usize;
    let x = (bits >> 11) as f64 * FAST.scale[j];
    if x.to_bits() << 1 < FAST.bound[j] {
        Some(x)
    } else {
        None
    }
}

/// The tables of the hosted `fast`, in one static so that both are addressed from one base.
#[cfg(not(target_os = "none"))]
#[repr(C)]
struct Fast {
    scale: [f64; 2 * LAYERS],
    bound: [u64; 2 * LAYERS],
}

#[cfg(not(target_os = "none"))]
static FAST: Fast = {
    let mut t = Fast {
        scale: [0.0; 2 * LAYERS],
        bound: [0; 2 * LAYERS],
    };
    let mut j = 0;
    while j < 2 * LAYERS {
        let i = j % LAYERS;
        let s = X[i] * TWO_M53;
        t.scale[j] = if j < LAYERS { s } else { -s };
        t.bound[j] = X[i + 1].to_bits() << 1;
        j += 1;
    }
    t
};

/// The rest of a draw whose first word `bits` fell outside the fast rectangle: the wedge test of
/// layer `i` (one more uniform) or, in the base layer, the tail; a rejected point starts a new
/// attempt with a fresh word.
#[cold]
#[inline(never)]
fn edge(at: Checkpoint, stream: u64, mut bits: u64) -> (f64, Checkpoint) {
    let mut rng = Rng::resume(at, stream);
    loop {
        let i = (bits & 0x7f) as usize;
        let x = ((bits >> 11) as f64 * TWO_M53) * X[i];
        let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
        if x < X[i + 1] {
            return (sign * x, rng.checkpoint());
        }
        if i == 0 {
            let z = sign * tail(&mut rng);
            return (z, rng.checkpoint());
        }
        // Wedge between the layer's rectangle and the curve.
        let y = F[i] + (F[i + 1] - F[i]) * rng.uniform_f64();
        if under_curve(i, x, y) {
            return (sign * x, rng.checkpoint());
        }
        bits = rng.next_u64();
    }
}

/// The wedge test `y < exp(−x²/2)` for a point of layer `i ≥ 1` (`X[i+1] ≤ x < X[i]`), decided
/// as `libm::exp` decides it. Hosted targets first try `squeeze`, which settles most points
/// without the exponential.
#[inline(always)]
#[cfg_attr(target_os = "none", allow(unused_variables))] // `i` is for the squeeze
fn under_curve(i: usize, x: f64, y: f64) -> bool {
    #[cfg(not(target_os = "none"))]
    if let Some(under) = squeeze(i, x, y) {
        return under;
    }
    y < libm::exp(-0.5 * x * x)
}

/// How far a point must lie beyond a bound for `squeeze` to decide it: far more than the
/// rounding errors involved (`libm::exp` is within 1 ulp, the tables within a few, the bounds'
/// arithmetic a few ulps of values ≤ 1, all below 10⁻¹⁴), so the decision is the one `exp`
/// would give; and so narrow that the points it leaves to `exp` are negligibly few.
#[cfg(not(target_os = "none"))]
const SQUEEZE_MARGIN: f64 = 1e-12;

/// `Some(y < f(x))` when cheap bounds on `f(x) = exp(−x²/2)` over layer `i`'s span settle it,
/// else `None`. On `x ≥ 1` the curve is convex: below its chord from `(X[i+1], F[i+1])` to
/// `(X[i], F[i])` and above its tangents at both ends; on `x ≤ 1` concave, the other way round;
/// the one layer that spans `x = 1` is left to `exp`. The chord test is cross-multiplied (no
/// division). Hosted only: on the Cortex-M the firmware keeps the plain test rather than more
/// flash and stack on the path of `step` (`scripts/test-firmware.sh` compares the two).
#[cfg(not(target_os = "none"))]
#[inline(always)]
fn squeeze(i: usize, x: f64, y: f64) -> Option<bool> {
    let (x0, x1, f0, f1) = (X[i + 1], X[i], F[i + 1], F[i]);
    let w = x1 - x0;
    // (y − chord(x))·w.
    let above_chord = (y - f0) * w - (f1 - f0) * (x - x0);
    // The tangent at a is f(a)·(1 − a·(x − a)).
    let t0 = f0 * (1.0 - x0 * (x - x0));
    let t1 = f1 * (1.0 + x1 * (x1 - x));
    if x0 >= 1.0 {
        if above_chord > SQUEEZE_MARGIN * w {
            return Some(false);
        }
        if y < t0.max(t1) - SQUEEZE_MARGIN {
            return Some(true);
        }
    } else if x1 <= 1.0 {
        if above_chord < -SQUEEZE_MARGIN * w {
            return Some(true);
        }
        if y > t0.min(t1) + SQUEEZE_MARGIN {
            return Some(false);
        }
    }
    None
}

/// A draw from the normal tail beyond `R`, exactly (Marsaglia 1964).
fn tail(rng: &mut Rng) -> f64 {
    loop {
        // 1 − u lies in (0, 1], so the logarithms are finite.
        let x = -libm::log(1.0 - rng.uniform_f64()) / R;
        let y = -libm::log(1.0 - rng.uniform_f64());
        if y + y >= x * x {
            return R + x;
        }
    }
}

/// Layer edges: `X[0] = V/f(R)` (the width the base layer would have as a rectangle),
/// `X[1] = R`, `X[i+1] = √(−2·ln(V/X[i] + f(X[i])))`, `X[128] = 0`.
#[rustfmt::skip]
pub(crate) const X: [f64; LAYERS + 1] = [
    3.7130862467403642, 3.4426198558966528, 3.2230849845786196,
    3.083228858214215, 2.978696252645018, 2.8943440070186717,
    2.8231253505459675, 2.761169372384155, 2.7061135731187234,
    2.6564064112581933, 2.610972248428614, 2.56903362592164,
    2.5300096723854675, 2.4934545220919517, 2.459018177408351,
    2.426420645530212, 2.395434278007468, 2.365871370113988,
    2.3375752413355313, 2.3104136836950024, 2.284274059673657,
    2.2590595738653296, 2.234686395587057, 2.211081408874728,
    2.188180432072021, 2.165926793744841, 2.1442701823562618,
    2.12316570866979, 2.102573135184999, 2.082456237987725,
    2.062782274503964, 2.0435215366506703, 2.024646973372935,
    2.0061338699589677, 1.9879595741230616, 1.9701032608497142,
    1.95254572954889, 1.9352692282919013, 1.9182573008597332,
    1.901494653100319, 1.8849670357028705, 1.8686611409895433,
    1.8525645117230882, 1.8366654602533852, 1.8209529965910063,
    1.80541676421405, 1.7900469825946201, 1.7748343955807704,
    1.759770224894233, 1.7448461281083778, 1.730054160558245,
    1.715386740708118, 1.7008366185643025, 1.6863968467734878,
    1.6720607540918537, 1.657821920948209, 1.6436741568569841,
    1.62961147946468, 1.6156280950371347, 1.6017183802152788,
    1.5878768648844024, 1.5740982160167514, 1.5603772223598424,
    1.5467087798535053, 1.533087877667558, 1.5195095847593727,
    1.5059690368565521, 1.4924614237746172, 1.4789819769830996,
    1.4655259573357966, 1.4520886428822186, 1.4386653166774634,
    1.4252512545068636, 1.4118417124397624, 1.3984319141236086,
    1.385017037725151, 1.3715922024197347, 1.3581524543224253,
    1.3446927517457155, 1.331207949657679, 1.3176927832013454,
    1.304141850120424, 1.2905495919178758, 1.2769102735517024,
    1.2632179614460308, 1.2494664995643363, 1.2356494832544838,
    1.2217602305309652, 1.2077917504067601, 1.1937367078237748,
    1.1795873846544633, 1.1653356361550498, 1.1509728421389789,
    1.1364898520030784, 1.1218769225722571, 1.1071236475235384,
    1.0922188768965566, 1.0771506248819405, 1.0619059636836223,
    1.0464709007525832, 1.0308302360564585, 1.0149673952393024,
    0.9988642334806465, 0.9825008035027634, 0.9658550793881336,
    0.9489026254979152, 0.9316161966013571, 0.9139652510088052,
    0.895915352566242, 0.8774274290977192, 0.8584568431780545,
    0.8389522142812113, 0.8188539066833217, 0.798092060626279,
    0.7765839878761528, 0.7542306644345146, 0.7309119106218861,
    0.7064796113136133, 0.6807479186459097, 0.6534786387150483,
    0.6243585973090947, 0.5929629424419851, 0.558692178375526,
    0.520656038725154, 0.47743783725379835, 0.4265479863033179,
    0.36287143102843505, 0.2723208647046907, 0.0,
];

/// `F[i] = f(X[i])`.
#[rustfmt::skip]
pub(crate) const F: [f64; LAYERS + 1] = [
    0.001014352564128612, 0.0026696290839024975, 0.005548995220816451,
    0.008624484412930442, 0.011839478657982277, 0.015167298010672,
    0.018592102737165758, 0.022103304616111534, 0.025693291936149547,
    0.029356317440253767, 0.03308788614650508, 0.0368843887869687,
    0.04074286807479052, 0.04466086220087232, 0.04863629586028395,
    0.052667401903503094, 0.05675266348153849, 0.0608907703485663,
    0.0650805852136318, 0.0693211173941802, 0.07361150188475485,
    0.0779509825146547, 0.08233889824295743, 0.08677467189554296,
    0.09125780082763466, 0.09578784912257804, 0.10036444102954545,
    0.1049872554103545, 0.10965602101581767, 0.11437051244988816,
    0.11913054670871845, 0.12393598020398153, 0.12878670619710372,
    0.13368265258464743, 0.1386237799858508, 0.1436100800919327,
    0.14864157424369664, 0.15371831220958623, 0.1588403711409347,
    0.16400785468492735, 0.16922089223892434, 0.17447963833240193,
    0.17978427212496173, 0.18513499701071306, 0.1905320403209133,
    0.19597565311811, 0.2014661100762028, 0.20700370944187335,
    0.21258877307373567, 0.2182216465563701, 0.22390269938713334,
    0.2296323252343021, 0.23541094226572704, 0.2412389935477507,
    0.2471169475146961, 0.25304529850976526, 0.2590245673987101,
    0.2650553022581612, 0.27113807914102456, 0.27727350292189695,
    0.28346220822601176, 0.2897048604458098, 0.296002156849855,
    0.30235482778947886, 0.308763638009251, 0.3152293880681566,
    0.32175291587920773, 0.3283350983761515, 0.33497685331697025,
    0.34167914123501264, 0.34844296754987136, 0.35526938485154613,
    0.36215949537303216, 0.369114453668274, 0.37613546951445326,
    0.3832238110598824, 0.3903808082413882, 0.39760785649804126,
    0.40490642081148703, 0.4122780401070233, 0.4197243320540369,
    0.427246998309561, 0.43484783025466045, 0.4425287152802451,
    0.4502916436869255, 0.4581387162728705, 0.46607215269456953,
    0.4740943006982481, 0.4822076463348372, 0.4904148252893201,
    0.49871863547658274, 0.5071220510813029, 0.5156282382498704,
    0.524240572678991, 0.5329626593899858, 0.5417983550317224,
    0.5507517931210536, 0.5598274127106931, 0.5690299910747199,
    0.5783646811267006, 0.5878370544418188, 0.5974531509518105,
    0.6072195366326031, 0.6171433708265607, 0.6272324852578127,
    0.6374954773431429, 0.6479418211185488, 0.6585820000586516,
    0.6694276673577041, 0.6804918410064122, 0.6917891434460337,
    0.7033360990258152, 0.7151515074204747, 0.7272569183545035,
    0.7396772436833357, 0.7524415591857012, 0.7655841739092333,
    0.7791460859417003, 0.7931770117838562, 0.807738294696118,
    0.8229072113952587, 0.8387836053106437, 0.8555006078850604,
    0.8732430489268495, 0.8922816508022983, 0.9130436479920331,
    0.9362826817083654, 0.9635996931557606, 1.0,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn same_fast_path(bits: u64) {
        let (a, b) = (fast(bits), fast_plain(bits));
        assert_eq!(
            a.map(f64::to_bits),
            b.map(f64::to_bits),
            "word {bits:#018x}"
        );
    }

    /// The hosted fast path is the plain one bit for bit, where they could differ: at both ends of
    /// every layer and sign and on both sides of each layer's threshold (the largest `u` that
    /// stays on the fast path, found by bisection: `x` grows with `u`), with the unused bits 8‥10
    /// set and clear.
    #[test]
    fn fast_path_is_the_plain_one_at_every_threshold() {
        const U_END: u64 = 1 << 53;
        for j in 0..2 * LAYERS as u64 {
            for spare in [0, 0b111 << 8] {
                let word = |u: u64| (u << 11) | spare | j;
                // The first u that leaves the fast path (U_END if none does).
                let (mut lo, mut hi) = (0, U_END);
                if fast_plain(word(0)).is_none() {
                    hi = 0;
                }
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if fast_plain(word(mid)).is_some() {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                for u in [0, 1, U_END - 1, hi.saturating_sub(2), hi.saturating_sub(1)]
                    .into_iter()
                    .chain((hi..U_END).take(2))
                {
                    same_fast_path(word(u));
                }
            }
        }
    }

    /// The same on generator words, and whole draws (wedge and tail included) against draws
    /// through the plain fast path.
    #[test]
    fn normal_draws_are_the_plain_ones() {
        let mut words = Rng::new(5, 3);
        for _ in 0..1 << 20 {
            same_fast_path(words.next_u64());
        }
        let plain = |rng: &mut Rng| {
            let bits = rng.next_u64();
            fast_plain(bits).unwrap_or_else(|| {
                let (z, at) = edge(rng.checkpoint(), rng.stream(), bits);
                rng.restore(at);
                z
            })
        };
        let (mut a, mut b) = (Rng::new(11, 2), Rng::new(11, 2));
        for _ in 0..1 << 20 {
            assert_eq!(normal(&mut a).to_bits(), plain(&mut b).to_bits());
        }
    }

    fn f(x: f64) -> f64 {
        libm::exp(-0.5 * x * x)
    }

    fn area(r: f64) -> f64 {
        r * f(r)
            + libm::sqrt(core::f64::consts::FRAC_PI_2) * libm::erfc(r / core::f64::consts::SQRT_2)
    }

    /// Every point `squeeze` decides, it decides as `libm::exp` does: in every layer, at random
    /// points of the wedge, at its ends, and where it is hardest, on both sides of the chord and
    /// of both tangents within a few ulps and around the margin. And it decides most points.
    #[test]
    fn squeeze_decides_as_exp_does() {
        let mut rng = Rng::new(3, 1);
        let (mut decided, mut total) = (0u64, 0u64);
        for i in 1..LAYERS {
            let (x0, x1, f0, f1) = (X[i + 1], X[i], F[i + 1], F[i]);
            for k in 0..20_000 {
                let x = match k {
                    0 => x0,
                    1 => f64::from_bits(x1.to_bits() - 1),
                    _ => x0 + (x1 - x0) * rng.uniform_f64(),
                };
                let chord = f0 + (f1 - f0) * ((x - x0) / (x1 - x0));
                let t0 = f0 * (1.0 - x0 * (x - x0));
                let t1 = f1 * (1.0 + x1 * (x1 - x));
                let wedge = f1 + (f0 - f1) * rng.uniform_f64();
                let mut check = |y: f64| {
                    if !(f1..=f0).contains(&y) {
                        return;
                    }
                    if let Some(under) = squeeze(i, x, y) {
                        assert_eq!(under, y < libm::exp(-0.5 * x * x), "layer {i} x {x} y {y}");
                        decided += 1;
                    }
                    total += 1;
                };
                check(wedge);
                for near in [chord, t0, t1] {
                    for d in [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0] {
                        check(near + d * SQUEEZE_MARGIN);
                    }
                    let b = near.to_bits() as i64;
                    for ulps in -4..=4 {
                        check(f64::from_bits((b + ulps) as u64));
                    }
                }
            }
        }
        // Most of the checked points lie within a few margins of a bound, where squeeze must
        // leave them to exp; the random wedge points are mostly decided.
        assert!(decided > total / 4, "decided {decided} of {total}");
    }

    #[test]
    fn tables_regenerate_bit_for_bit() {
        assert_eq!(area(R).to_bits(), V.to_bits());
        let mut x = [0.0; LAYERS + 1];
        x[0] = V / f(R);
        x[1] = R;
        for i in 1..LAYERS - 1 {
            x[i + 1] = libm::sqrt(-2.0 * libm::log(V / x[i] + f(x[i])));
        }
        for i in 0..=LAYERS {
            assert_eq!(x[i].to_bits(), X[i].to_bits(), "X[{i}]");
            assert_eq!(f(x[i]).to_bits(), F[i].to_bits(), "F[{i}]");
        }
    }

    #[test]
    fn r_closes_the_top_layer() {
        // The layer above X[127] must have area V with its top at f(0) = 1.
        let top = X[LAYERS - 1] * (1.0 - F[LAYERS - 1]);
        assert!((top - V).abs() < 1e-12 * V, "top layer area {top} vs {V}");
        // Every layer has area V.
        for i in 1..LAYERS {
            let a = X[i] * (F[i + 1] - F[i]);
            assert!((a - V).abs() < 1e-12, "layer {i}: {a}");
        }
    }
}
