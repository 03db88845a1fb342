# Run by scripts/test-python.sh when `julia` is on PATH (with SGSAMPLE_LIB set to the library the
# Python package installed), or by hand:
#   cargo build --release -p sgsample-capi
#   julia --project=bindings/julia/SGSample -e 'using Pkg; Pkg.test()'
using Test
using Random
using SGSample
using SGSample: sgs_amagold_state_size, sgs_amagold_state_align, SGS_ERR_INVALID_STEP_SIZE,
                SGS_ERR_INVALID_BATCH_SIZE, SGS_ERR_INVALID_MINIBATCH, SGS_ERR_INVALID_POSITION

const S = SGSample

# Double well (docs/algorithms.md §1.3): E θ = −2.148, Var θ = 2.862, P(θ > 0) = 0.1288.
dw_energy(t) = (t[1] + 4) * (t[1] + 1) * (t[1] - 1) * (t[1] - 3) / 14 + 0.5
dw_grad(t, seed) = [(4t[1]^3 + 3t[1]^2 - 26t[1] - 1) / 14 + randn(Xoshiro(seed))]

# A C-callable gradient for the Raw path: counts its calls in *user_data, returns theta.
function count_grad(ud::Ptr{Cvoid}, x::Ptr{Cdouble}, d::Csize_t, seed::UInt64, g::Ptr{Cdouble})
    unsafe_store!(Ptr{UInt64}(ud), unsafe_load(Ptr{UInt64}(ud)) + 1)
    for i in 1:d
        unsafe_store!(g, unsafe_load(x, i), i)
    end
    return Int32(0)
end

function batch_se(x; batches=50)
    m = [sum(b) / length(b) for b in Iterators.partition(x, length(x) ÷ batches)]
    return sqrt(sum(abs2, m .- sum(m) / length(m)) / (length(m) - 1) / length(m))
end

@testset "SGSample" begin
    @testset "layouts from the size queries" begin
        for (kind, T) in Iterators.product((:amagold, :sghmc, :sgld, :svgd), (Float64, Float32))
            st = getfield(S, Symbol("sgs_", kind, S.suffix(T)))
            @test sizeof(st) == S.cfun(kind, "state_size", T)()
            @test Base.datatype_alignment(st) <= S.cfun(kind, "state_align", T)()
        end
        @test S.version() == S.SGS_VERSION_STRING
        @test sizeof(S.sgs_amagold_config) == 8 * 7 + 4 * 6
    end

    @testset "AMAGOLD double well, Julia callbacks" begin
        draws, infos = sample(AMAGOLD, dw_energy, dw_grad, [0.0]; draws=20_000, chains=2,
                              step_size=0.25, friction=0.25, steps=10, seed=1)
        @test size(draws) == (1, 20_000, 2)
        x = vec(draws)
        @test abs(sum(x) / length(x) + 2.148) < 4.5 * batch_se(x) + 5e-4
        p = Float64.(x .> 0)
        @test abs(sum(p) / length(p) - 0.1288) < 4.5 * batch_se(p) + 5e-4
        @test all(i -> 0.3 < S.accept_rate(i) <= 1, infos)
    end

    @testset "SGHMC, SGLD, Float32" begin
        c = SGHMC(dw_grad, [0.0]; step_size=0.1, steps=5, seed=2)
        @test size(run!(c, 100)) == (1, 100)
        @test c.info.iterations == 100
        l = SGLD(dw_grad, Float32[0.0]; step_size=0.01, T=Float32)
        @test eltype(run!(l, 10)) == Float32
        @test length(position(l)) == 1
    end

    @testset "exceptions in callbacks abort and are rethrown" begin
        n = Ref(0)
        g(t, seed) = (n[] += 1) == 30 ? error("boom") : dw_grad(t, seed)
        c = SGHMC(g, [0.0]; step_size=0.1, steps=5)
        @test_throws ErrorException run!(c, 100)
        @test 0 < c.info.iterations < 100
        @test c.cb.last isa CapturedException
        n[] = 1000
        @test size(run!(c, 5)) == (1, 5)
        @test_throws DimensionMismatch run!(SGLD((t, s) -> zeros(3), [0.0]; step_size=0.1), 3)
    end

    @testset "bad inputs" begin
        e = try
            AMAGOLD(dw_energy, dw_grad, [0.0]; step_size=-1.0)
        catch err
            err
        end
        @test e isa SGSampleError && e.status == SGS_ERR_INVALID_STEP_SIZE
        @test occursin("SGS_ERR_INVALID_STEP_SIZE", sprint(showerror, e))
        @test_throws SGSampleError SGLD(dw_grad, [NaN]; step_size=0.1)
        @test_throws ArgumentError SGLD(dw_grad, [0.0]; step_size=0.1, stepz=2)
        e = try
            SVGD(zeros(1, 8); grads=(X, s) -> X, batch_size=1, step_size=0.1)
        catch err
            err
        end
        @test e isa SGSampleError && e.status == SGS_ERR_INVALID_BATCH_SIZE
        @test_throws SGSampleError minibatch(1, 3, 5)
        @test length(unique(minibatch(7, 10, 4))) == 4
    end

    @testset "AMAGOLD warm-up API" begin
        sd = [1.0, 100.0, 0.01]
        e(t) = 0.5 * sum(abs2, t ./ sd)
        g(t, seed) = t ./ sd .^ 2
        a = AMAGOLD(e, g, 200 .* sd; seed=2)        # the adaptive configuration
        @test warmup_report(a).verdict === :running
        run!(a, 1000)
        r = warmup_report(a)
        @test r.verdict === :ok && isempty(r.reasons) && r.iterations == 1000
        @test a.info.phase === :final && step_size(a) == r.step_size
        @test all(sd .^ 2 ./ 2 .< inverse_mass(a) .< 2 .* sd .^ 2)
        h = AMAGOLD(e, g, 200 .* sd; seed=2, warmup=300, approach=false, mass=:unit,
                    step_size=0.1)
        run!(h, 300)
        @test warmup_report(h).verdict === :suspect
        cmp = warmup_compare([a, h])
        @test :chains_disagree in cmp[2].reasons
        K = [2.0 0.5 0.0; 0.5 1.0 0.0; 0.0 0.0 3.0]
        f = AMAGOLD(e, g, zeros(3); step_size=0.1, mass=:dense)
        set_step_size!(f, 0.3)
        set_inverse_mass_dense!(f, K)
        @test step_size(f) == 0.3 && isapprox(inverse_mass_dense(f), K; rtol=1e-12)
        run!(f, 10)
        @test f.info.phase === :sampling && warmup_report(f).verdict === :none
        err(x) = try x(); nothing catch e; e end
        @test err(() -> set_inverse_mass!(AMAGOLD(e, g, zeros(3); step_size=0.1), ones(3))).status ==
              S.SGS_ERR_MASS_MISMATCH
        @test err(() -> set_inverse_mass_dense!(f, [1.0 2.0 0; 0.5 1 0; 0 0 1])).status ==
              S.SGS_ERR_INVALID_MASS
        @test err(() -> set_inverse_mass!(f, ones(2))).status == S.SGS_ERR_LENGTH_MISMATCH
    end

    @testset "SVGD on the mixture, d × N particles" begin
        mix(x) = (a = exp(-(x + 2)^2 / 2) / 3; b = 2exp(-(x - 2)^2 / 2) / 3;
                  (a * (x + 2) + b * (x - 2)) / (a + b))
        X0 = reshape(-10 .+ randn(Random.Xoshiro(0), 256), 1, 256)   # d × N
        s = SVGD(X0; grads=(X, seed) -> mix.(X), batch_size=16, step_size=0.2, bandwidth=2.0,
                 step_rule=S.SGS_STEP_RULE_ADAGRAD)
        X = svgd!(s, 500)
        @test size(X) == (1, 256)
        @test abs(sum(X) / 256 - 2 / 3) < 0.3
        # Per-particle callback gives the same particles as the batched one.
        s1 = SVGD(X0; grad=(x, seed) -> mix.(x), batch_size=16, step_size=0.2, bandwidth=2.0,
                  step_rule=S.SGS_STEP_RULE_ADAGRAD)
        @test svgd!(s1, 500) == X
    end

    @testset "K chains per call (sgs_*_run_batch), vectorised callbacks" begin
        venergy(Θ) = [dw_energy(Θ[:, r]) for r in 1:size(Θ, 2)]
        vgrad(Θ, seeds) = reduce(hcat, [dw_grad(Θ[:, r], seeds[r]) for r in 1:size(Θ, 2)])
        # Bit for bit the per-point chains (same streams), AMAGOLD with a fixed step size.
        a, ia = sample(AMAGOLD, venergy, vgrad, [0.0]; draws=3000, chains=4, step_size=0.25,
                       seed=1, vectorized=true)
        b, ib = sample(AMAGOLD, dw_energy, dw_grad, [0.0]; draws=3000, chains=4, step_size=0.25,
                       seed=1)
        @test size(a) == (1, 3000, 4) && a == b
        @test [i.iterations for i in ia] == [i.iterations for i in ib] == fill(3000, 4)
        @test [i.accepted for i in ia] == [i.accepted for i in ib]
        x = vec(a)   # against the truth too
        @test abs(sum(x) / length(x) + 2.148) < 4.5 * batch_se(x) + 5e-4
        # The adaptive warm-up (approach, dense mass, jittered T), with a cache of one call.
        e2(t) = dw_energy(t[1:1]) + 0.5 * t[2]^2
        g2(t, s) = [dw_grad(t[1:1], s)[1], t[2]]
        ve2(Θ) = [e2(Θ[:, r]) for r in 1:size(Θ, 2)]
        vg2(Θ, s) = reduce(hcat, [g2(Θ[:, r], s[r]) for r in 1:size(Θ, 2)])
        for max_calls in (16, 1)
            p, _ = sample(AMAGOLD, ve2, vg2, [3.0, -2.0]; draws=150, chains=3, warmup=100,
                          mass=:dense, jitter_steps=1, seed=4, vectorized=true,
                          max_calls=max_calls)
            q, _ = sample(AMAGOLD, e2, g2, [3.0, -2.0]; draws=150, chains=3, warmup=100,
                          mass=:dense, jitter_steps=1, seed=4)
            @test p == q
        end
        # SGHMC, SGLD, Float32.
        for (S, kw) in ((SGHMC, (step_size=0.1, steps=5)), (SGLD, (step_size=0.05,)))
            for T in (Float64, Float32)
                p, _ = sample(S, vgrad, [0.0]; draws=200, chains=3, seed=9, T=T,
                              vectorized=true, kw...)
                q, _ = sample(S, dw_grad, [0.0]; draws=200, chains=3, seed=9, T=T, kw...)
                @test eltype(p) == T && p == q
            end
        end
        # Per-row REJECT: (values, rejected) in the batch = OutOfDomain() per point.
        vr(Θ, s) = (vgrad(Θ, s), [abs(Θ[1, r]) > 2 for r in 1:size(Θ, 2)])
        pr(t, s) = abs(t[1]) > 2 ? throw(OutOfDomain()) : dw_grad(t, s)
        p, _ = sample(SGLD, vr, [0.0]; draws=300, chains=3, step_size=0.3, seed=2, vectorized=true)
        q, iq = sample(SGLD, pr, [0.0]; draws=300, chains=3, step_size=0.3, seed=2)
        @test p == q && all(i -> i.accepted < 300, iq)
    end

    @testset "batch: callback errors keep each chain's draws, resuming is exact" begin
        venergy(Θ) = [dw_energy(Θ[:, r]) for r in 1:size(Θ, 2)]
        calls = Ref(0)
        vgrad(Θ, seeds) = (calls[] += 1) == 57 ? error("boom") :
                          reduce(hcat, [dw_grad(Θ[:, r], seeds[r]) for r in 1:size(Θ, 2)])
        ref, _ = sample(AMAGOLD, dw_energy, dw_grad, [0.0]; draws=60, chains=3, step_size=0.25,
                        seed=5, jitter_steps=1)
        b = Batch{:amagold}(venergy, vgrad, [0.0]; chains=3, step_size=0.25, seed=5,
                            jitter_steps=1)
        @test_throws ErrorException run!(b, 40)
        @test b.cb.last isa CapturedException
        n = [size(p, 2) for p in b.partial]
        @test maximum(n) - minimum(n) <= 1 && maximum(n) < 40
        @test [i.iterations for i in b.infos] == n
        more = run!(b, 10)
        for c in 1:3
            @test hcat(b.partial[c], more[:, :, c]) == ref[:, 1:n[c]+10, c]
        end
    end

    @testset "batch: bad inputs" begin
        @test_throws ArgumentError Batch{:sgld}((Θ, s) -> Θ, [0.0]; chains=0, step_size=0.1)
        @test_throws DimensionMismatch Batch{:sgld}((Θ, s) -> Θ, zeros(2, 3); chains=2,
                                                    step_size=0.1)
        b = Batch{:sgld}((Θ, s) -> zeros(3, size(Θ, 2)), [0.0]; chains=2, step_size=0.1)
        @test_throws DimensionMismatch run!(b, 3)
        @test_throws SGSampleError Batch{:sgld}((Θ, s) -> Θ, [NaN]; chains=2, step_size=0.1)
        e = try
            Batch{:sghmc}((Θ, s) -> Θ, [0.0]; chains=2, step_size=-1.0)
        catch err
            err
        end
        @test e isa SGSampleError && e.status == SGS_ERR_INVALID_STEP_SIZE
    end

    @testset "seed-derived noise (sgs_normal, sgs_uniform)" begin
        # The first values for seed 0, pinned as in tests/noise.rs.
        @test reinterpret(UInt64, S.normal(0, 3)) ==
              UInt64[4604866114992135790, 4604690700726220116, 13821958858590898646]
        @test reinterpret(UInt64, S.uniform(0, 3)) ==
              UInt64[4602327445986093812, 4598672291840245262, 4606322996006196477]
        @test S.normal(7, 5)[1:2] == S.normal(7, 2)
        @test S.normal(7, 10; T=Float32) == Float32.(S.normal(7, 10))
        @test isempty(S.uniform(1, 0))
        z = S.normal(11, 100_000)
        @test abs(sum(z) / length(z)) < 4.5 / sqrt(length(z))
        u = S.uniform(11, 100_000; T=Float32)
        @test all(x -> 0 <= x < 1, u) && abs(sum(u) / length(u) - 0.5) < 4.5 * sqrt(1 / 12 / length(u))
    end

    @testset "Raw C callbacks" begin
        # A @cfunction of a top-level function with a Ref as user data: no trampoline.
        count = Ref{UInt64}(0)
        ud = Ptr{Cvoid}(pointer_from_objref(count))
        fptr = @cfunction(count_grad, Int32, (Ptr{Cvoid}, Ptr{Cdouble}, Csize_t, UInt64, Ptr{Cdouble}))
        GC.@preserve count begin
            c = SGHMC(S.Raw(fptr, ud), [1.0, 2.0]; step_size=0.1, steps=4)
            run!(c, 25)
        end
        @test count[] == 100
    end

    @testset "TunaMH: Laplace terms against quadrature, the bound, bad inputs" begin
        # 40 Laplace terms |y_i − θ| (bound 1) and a N(0, 1) prior: tests/tunamh.rs's model.
        y = [((i * 0.6180339887) % 1.0 - 0.5) * 4.0 + 1.0 for i in 0:39]
        diffs(t, p, idx) = [abs(y[i] - p[1]) - abs(y[i] - t[1]) for i in idx]
        prior(t, p) = (p[1]^2 - t[1]^2) / 2
        grid = range(-6.0, 8.0; length=200_001)
        lp = [-sum(abs.(y .- g)) - g^2 / 2 for g in grid]
        w = exp.(lp .- maximum(lp))
        m = sum(w .* grid) / sum(w)
        draws, infos = sample(TunaMH, diffs, [0.5]; draws=50_000, chains=2, terms=40, bound=1.0,
                              step_size=0.5, chi=0.05, exact=prior, seed=3)
        x = vec(draws)
        @test abs(sum(x) / length(x) - m) < 4.5 * batch_se(x)
        @test all(i -> 0 < S.accept_rate(i) < 1, infos)
        # Same seed, same bits: an object on stream 0 is chain 1 of the call.
        c = TunaMH(diffs, [0.5]; terms=40, bound=1.0, step_size=0.5, chi=0.05, exact=prior,
                   seed=3)
        @test run!(c, 100) == draws[:, 1:100, 1]
        @test evaluations(c) > 0
        # A difference past the declared bound: refused, the chain unchanged.
        loose(t, p, idx) = [3 * abs(p[1] - t[1]) + 1 for _ in idx]
        c2 = TunaMH(loose, [0.5]; terms=40, bound=1.0, step_size=0.5)
        e = try
            run!(c2, 10)
        catch err
            err
        end
        @test e isa SGSampleError && e.status == S.SGS_ERR_BOUND_EXCEEDED
        @test c2.info.iterations == 0 && position(c2) == [0.5]
        e = try
            TunaMH(diffs, [0.5]; terms=0, bound=1.0, step_size=0.5)
        catch err
            err
        end
        @test e isa SGSampleError && e.status == S.SGS_ERR_INVALID_BOUND
        # An exception in a callback is rethrown.
        boom(t, p, idx) = error("boom")
        @test_throws ErrorException run!(TunaMH(boom, [0.5]; terms=40, bound=1.0, step_size=0.5), 5)
    end
end
