"""Plausible bugs in Stein thinning (src/thin.rs), each with the tests that must catch it: the
greedy choice against the brute-force KSD minimiser, the unit scale and preconditioner against
the defaults, and the standardised draws."""

F = "src/thin.rs"
T = ["lib"]

MUTANTS = [
    dict(name="thin_cross_term_once", bug="the objectives take u(x_i, x_j) instead of 2·u",
         file=F, old="*o += 2.0 * st.pair(", new="*o += st.pair(", tests=T),
    dict(name="thin_last_minimum", bug="the last index of the smallest objective chosen",
         file=F, old="if o < low || i == 0 {", new="if o <= low || i == 0 {", tests=T),
    dict(name="thin_precond_not_squared", bug="Σ λ z² instead of Σ λ² z² in the last term",
         file=F, old="r2 += lz * lz;", new="r2 += lz * z;", tests=T),
    dict(name="thin_scale_not_on_gradients", bug="the draws standardised but not the gradients",
         file=F, old="                a *= w;\n                b *= w;\n", new="", tests=T),
    dict(name="thin_trace_is_d", bug="2β·d instead of 2β·Σλ with a preconditioner",
         file=F, old="Some(l) => l.iter().fold(0.0, |s, &v| s + v),", new="Some(_) => d as f64,",
         tests=T),
]
